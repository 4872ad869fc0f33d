"""Rate lines: how far a long step is, how fast it goes and when it ends.

Every step of the flow (scoring, studies, runs) reports progress through a
callback of one message; this module formats those messages, once for all of
them. It sits beside :mod:`newsdedup.paths` rather than in a step folder
because every step uses it: ``score`` may not import ``runs`` (the flow runs
one way), so the formatting cannot live with the bars of
:mod:`newsdedup.runs.progress`, which build on it. It imports nothing of the
package and nothing beyond the standard library.
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["rate_line", "rate_reporter"]


def rate_line(label: str, done: int, total: int | None, seconds: float, unit: str = "") -> str:
    """One progress line: done of total, share, rate and ETA.

    Examples:
        >>> rate_line("pairs", 50, 100, 10.0)
        'pairs: 50 / 100 (50.0%), 5/s, ETA 10 s'
        >>> rate_line("rows", 7, None, 2.0, " rows")
        'rows: 7 rows, 3.5 rows/s'
    """
    rate = done / seconds if seconds > 0 else float("inf")
    shown = f"{rate:,.0f}" if rate >= 100 else f"{rate:.3g}"  # 0.0862 blocks/s, not 0/s
    if total is None:
        return f"{label}: {done:,}{unit}, {shown}{unit}/s"
    eta = (total - done) / rate if rate > 0 else float("inf")
    return (f"{label}: {done:,} / {total:,}{unit} ({100 * done / max(total, 1):.1f}%), "
            f"{shown}{unit}/s, ETA {eta:,.0f} s")


def rate_reporter(say: Callable[[str], None] | None, label: str, every: float = 5.0,
                  clock: Callable[[], float] = time.monotonic, unit: str = ""
                  ) -> Callable[[int, int], None]:
    """A ``(done, total)`` callback that tells ``say`` a :func:`rate_line`.

    It speaks at most once per ``every`` seconds, and always at the end (once: a
    step and the loop around it may both report the last count); with ``say`` None
    it says nothing.

    Examples:
        >>> said, ticks = [], iter([0.0, 10.0, 20.0, 21.0])
        >>> tell = rate_reporter(said.append, "pairs", clock=lambda: next(ticks))
        >>> tell(50, 100); tell(100, 100); tell(100, 100)
        >>> said
        ['pairs: 50 / 100 (50.0%), 5/s, ETA 10 s', 'pairs: 100 / 100 (100.0%), 5/s, ETA 0 s']
    """
    start = clock()
    last = [start]
    ended = [False]

    def tell(done: int, total: int) -> None:
        if say is None or ended[0]:
            return
        now = clock()
        if now - last[0] < every and done < total:
            return
        last[0] = now
        ended[0] = done >= total
        say(rate_line(label, done, total, now - start, unit))

    return tell

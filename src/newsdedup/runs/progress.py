"""Progress bars with rate and ETA behind the :data:`~newsdedup.runs.files.Progress` callback.

Every run takes a ``progress`` callback, a function of one message
(:data:`newsdedup.runs.files.Progress`). A step that can run for more than a
few seconds (loading a large file, shingling, streamed pair blocks, join row
blocks, sampling) also wants a bar; it asks for one with :func:`bar` (a
counter of work done) or :func:`tracked` (wrapping an iterator), passing the
callback it was given. What the user sees depends on that callback:

* :class:`Reporter` (what the command line passes): a ``tqdm`` bar with rate
  and ETA on a terminal; elsewhere (a log file, CI) one line with done,
  rate and ETA at most every ``every`` seconds, and nothing for steps that end
  sooner. ``newsdedup --quiet`` sets ``Reporter.quiet``: no bars, no step
  messages; rejected records and warnings are still reported.
* :func:`~newsdedup.runs.files.quiet` (the default of every run, what tests
  pass): nothing at all.
* any other callable (a test collecting messages, a notebook's ``print``):
  the same throttled rate lines, through the callable.

Bars write to stderr only, so tables printed on stdout stay clean.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sized
from typing import IO, Any, TypeVar

from newsdedup.progress import rate_line
from newsdedup.runs.files import Progress, quiet

__all__ = ["ALWAYS_SAID", "Bar", "Reporter", "bar", "counter", "rate_line", "tracked", "tracker"]

T = TypeVar("T")

ALWAYS_SAID = ("rejected ", "warning")
"""Messages starting with these are printed even under ``--quiet`` (nothing dropped silently)."""



class Bar:
    """A counter of work done; draws a tqdm bar or throttled rate lines, or nothing.

    Use as a context manager; :meth:`update` adds work done, :meth:`to` sets it.

    Examples:
        >>> said, ticks = [], iter([0.0, 1.0, 12.0, 13.0])
        >>> with Bar(said.append, 100, "pairs", clock=lambda: next(ticks)) as b:
        ...     b.update(10); b.update(90)
        >>> said
        ['pairs: 100 / 100 (100.0%), 8.33/s, ETA 0 s']
    """

    def __init__(self, say: Callable[[str], None] | None, total: int | None, label: str,
                 unit: str = "", every: float = 10.0, tqdm_bar: Any = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """A bar over ``total`` units (None: unknown) labelled ``label``."""
        self._say, self.total, self.label, self.unit = say, total, label, unit
        self._every, self._tqdm, self._clock = every, tqdm_bar, clock
        self.done = 0
        self._start = self._last = clock()
        self._spoke_at: int | None = None  # work done at the last line said

    def __enter__(self) -> Bar:
        """Start the bar."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Close the bar; a line-mode bar that spoke before says its final state."""
        if self._tqdm is not None:
            self._tqdm.close()
        elif self._say is not None and self._spoke_at not in (None, self.done):
            self._line()

    def update(self, amount: int = 1) -> None:
        """Add ``amount`` units of work done."""
        self.to(self.done + amount)

    def to(self, done: int) -> None:
        """Set the work done to ``done`` units."""
        step, self.done = done - self.done, done
        if self._tqdm is not None:
            self._tqdm.update(step)
            return
        if self._say is None:
            return
        now = self._clock()
        if now - self._last >= self._every:
            self._last = now
            self._line(now)

    def _line(self, now: float | None = None) -> None:
        assert self._say is not None
        now = self._clock() if now is None else now
        self._spoke_at = self.done
        self._say(rate_line(self.label, self.done, self.total, now - self._start, self.unit))


class Reporter:
    """The command line's :data:`~newsdedup.runs.files.Progress`: status lines and bars on stderr.

    Attributes:
        quiet: No bars and no step messages (messages starting with one of
            :data:`ALWAYS_SAID` still print).
        every: Seconds between two rate lines when stderr is not a terminal.
    """

    def __init__(self, stream: IO[str] | None = None, quiet: bool = False,
                 every: float = 10.0) -> None:
        """A reporter writing to ``stream`` (stderr by default, looked up at each write)."""
        self._stream = stream
        self.quiet = quiet
        self.every = every

    @property
    def stream(self) -> IO[str]:
        """Where lines and bars go."""
        return self._stream if self._stream is not None else sys.stderr

    def __call__(self, msg: str) -> None:
        """Print one status line (unless quiet)."""
        if self.quiet and not msg.startswith(ALWAYS_SAID):
            return
        print(f"[newsdedup] {msg}", file=self.stream, flush=True)

    def bar(self, total: int | None, label: str, unit: str = "") -> Bar:
        """A bar: tqdm on a terminal, rate lines elsewhere, nothing when quiet."""
        if self.quiet:
            return Bar(None, total, label, unit)
        if self.stream.isatty():
            from tqdm import tqdm  # only the command line on a terminal pays the import

            return Bar(None, total, label, unit, tqdm_bar=tqdm(
                total=total, desc=label, unit=unit.strip() or "it", unit_scale=True,
                file=self.stream, leave=False, dynamic_ncols=True))
        return Bar(self, total, label, unit, every=self.every)


def bar(progress: Progress, total: int | None, label: str, unit: str = "") -> Bar:
    """A progress bar for a step run with the callback ``progress``.

    Args:
        progress: The step's callback: a :class:`Reporter`, :func:`quiet` or any callable.
        total: Units of work in all (None: unknown).
        label: What is counted, e.g. ``"measure n=4: pairs"``.
        unit: Unit name shown after the counts (with a leading space).

    Returns:
        A :class:`Bar` (use it as a context manager).
    """
    if isinstance(progress, Reporter):
        return progress.bar(total, label, unit)
    if progress is quiet:
        return Bar(None, total, label, unit)
    return Bar(progress, total, label, unit)


def tracked(progress: Progress, items: Iterable[T], total: int | None, label: str,
            unit: str = "", weight: Callable[[T], int] | None = None) -> Iterator[T]:
    """Yield ``items`` while a :func:`bar` counts them (or their ``weight``).

    Examples:
        >>> list(tracked(quiet, iter([1, 2, 3]), 3, "rows"))
        [1, 2, 3]
    """
    if total is None and isinstance(items, Sized):
        total = len(items)  # a list of row blocks: the bar can give an ETA
    with bar(progress, total, label, unit) as b:
        for item in items:
            yield item
            b.update(1 if weight is None else weight(item))


def tracker(progress: Progress) -> Callable[[Iterable[T], int | None, str], Iterator[T]]:
    """The :data:`newsdedup.studies.pairstream.Track` of a step run with ``progress``.

    Examples:
        >>> list(tracker(quiet)([1, 2], 2, "rows"))
        [1, 2]
    """
    def track(items: Iterable[T], total: int | None, label: str) -> Iterator[T]:
        return tracked(progress, items, total, label)

    return track


def counter(progress: Progress, label: str, unit: str = "") -> Callable[[int, int], None]:
    """A ``(done, total)`` callback driving a :func:`bar`, closed when ``done == total``.

    Examples:
        >>> tell = counter(quiet, "pairs")
        >>> tell(5, 10); tell(10, 10)
    """
    state: dict[str, Bar] = {}

    def tell(done: int, total: int) -> None:
        if "bar" not in state:
            state["bar"] = bar(progress, total, label, unit).__enter__()
        state["bar"].to(done)
        if done >= total:
            state.pop("bar").__exit__(None, None, None)

    return tell

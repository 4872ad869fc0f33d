"""Progress bars and rate lines behind the Progress callback, and what --quiet keeps."""

import io

from newsdedup.runs.files import quiet
from newsdedup.runs.progress import Bar, Reporter, bar, counter, rate_line, tracked, tracker


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_rate_line_gives_rate_and_eta():
    assert rate_line("pairs", 25, 100, 5.0, " pairs") == (
        "pairs: 25 / 100 pairs (25.0%), 5 pairs/s, ETA 15 s")


def test_line_bar_is_throttled_and_says_its_end():
    said, ticks = [], iter([0.0, 3.0, 11.0, 12.0, 15.0, 16.0])
    with Bar(said.append, 4, "rows", every=10.0, clock=lambda: next(ticks)) as b:
        b.update()  # 3 s: too soon
        b.update()  # 11 s: spoken
        b.update()  # 12 s: too soon
        b.update()
    assert said == ["rows: 2 / 4 (50.0%), 0.182/s, ETA 11 s",
                    "rows: 4 / 4 (100.0%), 0.25/s, ETA 0 s"]


def test_short_step_says_nothing():
    said = []
    assert list(tracked(said.append, range(5), 5, "rows")) == list(range(5))
    assert said == []


def test_reporter_draws_tqdm_on_a_terminal_and_lines_elsewhere():
    tty = _Tty()
    rep = Reporter(stream=tty)
    with rep.bar(10, "measure n=4: pairs", " pairs") as b:
        b.update(10)
    assert "measure n=4: pairs" in tty.getvalue() and "pairs/s" in tty.getvalue()  # tqdm
    plain = io.StringIO()
    rep = Reporter(stream=plain, every=0.0)
    with rep.bar(3, "rows") as b:
        b.update(3)
    assert "[newsdedup] rows: 3 / 3 (100.0%)" in plain.getvalue()


def test_quiet_keeps_rejects_and_warnings_only():
    out = _Tty()
    rep = Reporter(stream=out, quiet=True)
    rep("measure: n-gram 3")
    rep("rejected feed.jsonl line 6: no id")
    rep("warning: something")
    with rep.bar(5, "rows") as b:
        b.update(5)
    assert out.getvalue().splitlines() == ["[newsdedup] rejected feed.jsonl line 6: no id",
                                           "[newsdedup] warning: something"]


def test_quiet_callback_and_counters_say_nothing():
    with bar(quiet, 3, "rows") as b:
        b.update(3)
    assert list(tracker(quiet)(iter("ab"), 2, "x")) == ["a", "b"]
    said = []
    tell = counter(said.append, "pairs")
    tell(1, 2)
    tell(2, 2)
    assert said == []  # under ten seconds

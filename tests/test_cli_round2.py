"""The command line after the second audit (issue 28, items 3, 7, 9, 16 and 19).

Item 3: a 400-digit integer for ``--num-perm``, ``--trials``, ``--window-days`` or
``join --top-k`` ended in an OverflowError traceback. Item 7: ``--n 1e10`` (or a huge
``--ngrams`` / ``--cross-n``) hung. Item 9: ``--thresholds ,`` ended in a KeyError. Item
16: Ctrl-C printed a 37-line traceback. Item 19: ``--quiet`` still printed one line per
rejected record. Each case failed before its fix.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.cli import build_parser, main
from newsdedup.cli.options import bounded, budget, finite, integer, unit

TWO = "id,title,url\na,진천군 스마트 돌봄 착수,https://a.example/1\nb,화성시 화재 감지,https://b.example/2\n"
HUGE = "1" + "0" * 400


def run_main(argv: list[str]) -> tuple[int, list[str]]:
    """Exit status and stderr lines (progress lines dropped) of one in-process run."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, [line for line in err.getvalue().splitlines()
                  if not line.startswith("[newsdedup] ")]


@pytest.fixture
def two(tmp_path) -> Path:
    path = tmp_path / "two.csv"
    path.write_text(TWO, encoding="utf-8")
    return path


@pytest.mark.parametrize(("argv", "option"), [
    ("measure {f} --num-perm " + HUGE, "--num-perm"),
    ("calibrate {f} --trials " + HUGE, "--trials"),
    ("measure {f} --crosshost --window-days " + HUGE, "--window-days"),
    ("join {f} --top-k " + HUGE, "--top-k"),
    ("dedupe {f} --ngram 1e10", "--ngram"),
    ("dedupe {f} --ngram 10000000000", "--ngram"),
    ("dedupe {f} --n 10000000000", "--n"),  # the old spelling, checked the same
    ("measure {f} --ngrams 3," + HUGE, "--ngrams"),
    ("measure {f} --crosshost --crosshost-ngram 65", "--crosshost-ngram"),
    ("calibrate {f} --thresholds ,", "unrecognized"),  # calibrate has no --thresholds
    ("measure {f} --thresholds ,", "--thresholds"),
    ("dedupe {f} --sweep ,", "--sweep"),
    ("calibrate {f} --fractions ' , '", "--fractions"),
    ("measure {f} --pair-budget nan", "--pair-budget"),
    ("signals {f} --min-cosine 2", "--min-cosine"),
    ("evaluate-pairs --resamples -1", "--resamples"),
])
def test_a_bad_number_is_one_line_and_exit_2(two, tmp_path, argv, option):
    start = time.perf_counter()
    code, lines = run_main([a.strip("'") for a in argv.format(f=two).split()]
                           + ["--out", str(tmp_path / "out")])
    assert time.perf_counter() - start < 10
    assert code == 2 and len(lines) == 1, lines
    assert option in lines[0] and "Traceback" not in lines[0]
    assert not (tmp_path / "out").exists()


def _numeric_options() -> list[tuple[str, str]]:
    """Every option of every command whose value is a number or a list of numbers."""
    found = []
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in sub.choices.items():
        for action in command._actions:
            kind = getattr(action.type, "__name__", "")
            if action.option_strings and (kind.startswith(("integer", "number"))
                                          or action.type in (finite, unit, budget)
                                          or kind in ("ints", "floats", "units", "parse")):
                found.append((name, action.option_strings[-1]))
    return found


NUMERIC = _numeric_options()

TEXTS = st.one_of(
    st.integers().map(str),
    st.integers(min_value=10**18, max_value=10**500).map(str),
    st.floats().map(repr),
    st.sampled_from(["", ",", " , ", "nan", "inf", "-inf", "1e10", "1_000", "٣", "0x10",
                     "3,", ",3", "3,,4", "+5", " 7 ", "1" * 5000]),
    st.text(max_size=12),
)


def test_the_numeric_options_are_found():
    assert len(NUMERIC) > 40
    assert ("measure", "--num-perm") in NUMERIC and ("join", "--top-k") in NUMERIC


@settings(max_examples=300)
@given(st.sampled_from(NUMERIC), TEXTS)
def test_any_value_of_any_numeric_option_parses_in_bounds_or_is_one_line(option, text):
    # The neighbourhood of items 3, 7 and 9: every numeric option of every command, with
    # huge, negative, non-finite, empty, underscored and non-ASCII numbers.
    command, flag = option
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            args = build_parser().parse_args([command, f"{flag}={text}"])
        except SystemExit as exc:
            assert exc.code == 2
            lines = err.getvalue().splitlines()
            assert len(lines) == 1 and lines[0].startswith("newsdedup"), lines
            return
    value = getattr(args, next(a.dest for a in build_parser()._subparsers._actions[1]
                               .choices[command]._actions if flag in a.option_strings))
    values = value if isinstance(value, tuple) else (value,)
    assert values, "an empty list is never accepted"
    for v in values:
        assert isinstance(v, int | float) and not isinstance(v, bool)
        if isinstance(v, float):  # finite everywhere; only a budget may be unbounded
            assert math.isfinite(v) or (flag == "--pair-budget" and v == math.inf)
        elif flag.endswith("seed"):
            assert 0 <= v < 2**32
        else:
            assert abs(v) <= 10**9


def test_bounded_types_say_their_range():
    assert integer(1, 64)("64") == 64
    with pytest.raises(argparse.ArgumentTypeError, match=r"\[1, 64\], got '65'"):
        integer(1, 64)("65")
    with pytest.raises(argparse.ArgumentTypeError, match=r"\[-1, 1\]"):
        bounded(-1, 1)("1.5")


# --- item 19: --quiet is one summary line ------------------------------------------------


def test_quiet_says_one_line_for_many_rejects_and_lists_them_in_a_file(tmp_path):
    path = tmp_path / "dups.csv"
    rows = ["id,title"] + [f"a,제목 {k}" for k in range(40)] + ["b,다른 제목"]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["dedupe", str(path), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    [line] = err.getvalue().splitlines()
    listed = tmp_path / "out" / tmp_path.name / "rejected.csv"
    assert line == ("[newsdedup] rejected 39 of 41 records of dups.csv (first: line 3: duplicate "
                    f"id 'a' (first at record 1, line 2), with another title); every one is "
                    f"listed in {listed}")
    assert listed.read_text("utf-8").count("\n") == 40  # header and 39 rejects
    # Without --quiet: the first 20 one per line, then the same summary.
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["dedupe", str(path), "--out", str(tmp_path / "out")]) == 0
    said = [x for x in err.getvalue().splitlines() if x.startswith("[newsdedup] rejected")]
    assert len(said) == 21 and said[-1] == line


def test_a_corpus_without_rejects_removes_the_previous_list(tmp_path):
    path = tmp_path / "f.csv"
    path.write_text("id,title\na,제목\na,제목 둘\nb,셋\n", encoding="utf-8")
    out = tmp_path / "out"
    assert run_main(["dedupe", str(path), "--out", str(out), "--name", "f", "--quiet"])[0] == 0
    assert (out / "f" / "rejected.csv").is_file()
    path.write_text("id,title\na,제목\nb,셋\n", encoding="utf-8")
    assert run_main(["dedupe", str(path), "--out", str(out), "--name", "f", "--quiet"])[0] == 0
    assert not (out / "f" / "rejected.csv").exists()


# --- item 16: Ctrl-C ----------------------------------------------------------------------


def test_ctrl_c_is_one_line_exit_130_and_leaves_nothing_half_written(tmp_path):
    corpus = tmp_path / "big.jsonl"
    rows = [{"id": f"i{k}", "title": f"진천군 스마트 돌봄 {k % 97} 구축 {k} 착수 소식 {k % 13}",
             "url": f"https://{'ab'[k % 2]}.example/{k}", "published_at": "2024-05-01"}
            for k in range(3000)]
    corpus.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    out = tmp_path / "out"
    command = Path(sys.executable).parent / "newsdedup"
    # A shell starts a background job with SIGINT ignored, and Python keeps an ignored
    # SIGINT (as nohup means it to): the child gets Ctrl-C back, as at a terminal.
    proc = subprocess.Popen([str(command), "run", str(corpus), "--out", str(out), "--name",
                             "feed"], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            text=True, env=os.environ | {"PYTHONUNBUFFERED": "1"},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    stage = out / ".newsdedup" / "staging" / "feed" / "feed"
    deadline = time.monotonic() + 120
    while not any(stage.rglob("*.csv")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    lines = [line for line in err.splitlines() if not line.startswith("[newsdedup] ")]
    assert proc.returncode == 130, err
    assert lines == ["newsdedup: interrupted; no file was left half-written (a command's files "
                     "are committed together or not at all)"]
    assert not (out / "feed").exists()  # nothing committed: the tree as before (absent)
    assert not (out / ".newsdedup").exists()  # staging discarded, lock released
    assert not list(out.rglob("*.tmp"))


def test_an_internal_error_is_one_line_unless_the_traceback_is_asked_for(two, monkeypatch):
    from newsdedup.cli import commands

    def bug(args):
        raise TypeError("no such column\nsecond line")

    monkeypatch.setattr(commands, "cmd_dedupe", bug)
    parser_module = sys.modules["newsdedup.cli.parser"]
    monkeypatch.setattr(parser_module, "cmd_dedupe", bug)
    code, lines = run_main(["dedupe", str(two)])
    assert code == 1
    assert lines == ["newsdedup: internal error: TypeError: no such column second line (this "
                     "is a bug; set NEWSDEDUP_TRACEBACK=1 to see where it happened)"]
    monkeypatch.setenv("NEWSDEDUP_TRACEBACK", "1")
    with pytest.raises(TypeError):
        main(["dedupe", str(two)])

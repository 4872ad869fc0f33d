"""Every CLI error of the bad-input audit (issue 16) is one readable line, never a traceback.

Each case runs ``newsdedup`` on a bad input and checks that stderr, apart from the
``[newsdedup]`` progress lines, is exactly one line, starts with ``newsdedup``, names
what is wrong (and the file, where there is one), and that the exit status is 2.
"""

from __future__ import annotations

import errno
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from newsdedup.cli import main
from newsdedup.runs import files
from newsdedup.runs.commit import tree_lock

TWO = "id,title,url\na,진천군 스마트 돌봄 착수,https://a.example/1\nb,화성시 화재 감지,https://b.example/2\n"
GOOD_CAL = {"recommended_threshold": 0.3, "rationale": "x", "upper_bound": 0.2, "band": None,
            "parameters": {"n": 3, "scorer": "idf", "text": "title"}}


@pytest.fixture
def ws(tmp_path) -> dict[str, Path]:
    """A workspace: corpora, calibration files and a results root."""
    def put(name: str, content: str | bytes) -> Path:
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return path

    out = tmp_path / "out"
    out.mkdir()
    (out / "away").symlink_to(tmp_path, target_is_directory=True)
    (out / "figs").mkdir()
    (out / "figs" / "calibration.json").write_text(json.dumps(GOOD_CAL | {"upper_bound": "x"}))
    return {
        "out": out,
        "two": put("two.csv", TWO),
        "empty": put("empty.csv", "id,title,url\n"),
        "one": put("one.csv", "id,title,url\na,진천군 스마트 돌봄 착수,https://a.example/1\n"),
        "rejected": put("rejected.csv", "id,title,url\na,,https://a.example/1\n"),
        "cal_n": put("cal_n.json", json.dumps(GOOD_CAL | {"parameters": {"n": "3"}})),
        "cal_list": put("cal_list.json", json.dumps(GOOD_CAL | {"parameters": [3, "idf"]})),
        "cal_bin": put("cal_bin.json", b"\x89PNG\r\n\x1a\n\x00\xff\xfe\xfd"),
        "cal_key": put("cal_key.json", json.dumps({"rationale": "x"})),
        "cal_window": put("cal_window.json",
                          json.dumps(GOOD_CAL | {"parameters": {"window_days": 0}})),
        "cal_declined": put("cal_declined.json", json.dumps(
            GOOD_CAL | {"recommended_threshold": None, "rationale": "no labels yet",
                        "evidence": {"next": "label the pairs of x.csv"}})),
        "a_file": put("a_file", "not a folder"),
        "bad_sheet": put("bad_sheet.csv", "id_i,id_j,label,stratum,stratum_size\n"
                                          "a,b,same,0,5\nc,d,maybe,0,5\n"),
        "strict": put("strict.csv", "id,title,url\na,A,https://a.example/1\nb,,https://a.example/2\n"),
        "nan": put("nan.jsonl", '{"id": "a", "title": NaN}\n'),
        "missing": tmp_path / "missing.csv",
    }


# (case, argv with {placeholders}, what the line must contain)
CASES = [
    ("name-dotdot", "dedupe {two} --name ../../x --out {out}", "--name '../../x'"),
    ("name-absolute", "dedupe {two} --name /tmp/abs --out {out}", "one folder name under"),
    ("name-symlink", "dedupe {two} --name away --out {out}", "outside --out"),
    ("measure-empty", "measure {empty} --out {out}", "{empty}: holds no record"),
    ("measure-one", "measure {one} --out {out}", "{one}: 1 usable item"),
    ("run-all-rejected", "run {rejected} --out {out}",
     "{rejected}:2: record 1: every one of its 1 records was rejected"),
    ("run-one", "run {one} --out {out}", "{one}: 1 usable item"),
    ("calibration-n-string", "dedupe {two} --calibration {cal_n} --out {out}",
     "{cal_n}: parameters.n must be"),
    ("calibration-parameters-list", "dedupe {two} --calibration {cal_list} --out {out}",
     "{cal_list}: parameters must be a JSON object"),
    ("calibration-binary", "dedupe {two} --calibration {cal_bin} --out {out}",
     "{cal_bin}: not UTF-8 text"),
    ("calibration-missing-key", "dedupe {two} --calibration {cal_key} --out {out}",
     "{cal_key}: missing top-level key"),
    ("label-bad-label", "label {bad_sheet}", "{bad_sheet}:3: label 'maybe' is not one of"),
    ("label-missing-column", "label {two}", "{two}:1: missing column(s)"),
    ("calibration-window", "dedupe {two} --calibration {cal_window} --out {out}",
     "{cal_window}: parameters.window_days must be a positive number or null"),
    ("calibration-declined", "dedupe {two} --calibration {cal_declined} --out {out}",
     "{cal_declined}: no threshold was recommended: no labels yet Next: label the pairs"),
    ("figures-calibration", "report figs --out {out} --figures corpus",
     "{out}/figs/calibration.json: upper_bound must be a number"),
    ("threshold-negative", "dedupe {two} --threshold -1 --no-gate --out {out}",
     "argument --threshold: expected a number in [0, 1], got '-1'"),
    ("sweep-nan", "dedupe {two} --sweep 0.1,nan --out {out}", "argument --sweep"),
    ("lsh-threshold", "join {two} --lsh-threshold 1.5 --out {out}", "argument --lsh-threshold"),
    ("join-threshold", "join {two} --threshold 2 --out {out}", "argument --threshold"),
    ("measure-thresholds-inf", "measure {two} --thresholds 0.2,inf --out {out}",
     "argument --thresholds"),
    ("precision-nan", "calibrate {two} --precision nan --out {out}", "argument --precision"),
    ("out-is-a-file", "dedupe {two} --out {a_file}", "{a_file}"),
    ("strict-csv-record", "run {strict} --strict --out {out}", "{strict}:3: record 2: missing"),
    ("strict-jsonl-nan", "dedupe {nan} --strict --out {out}", "{nan}:1: record 1: NaN is not"),
    ("missing-corpus", "measure {missing} --out {out}", "{missing}"),
]


def error_lines(err: str) -> list[str]:
    """stderr without the progress lines."""
    return [line for line in err.splitlines() if not line.startswith("[newsdedup] ")]


def run_main(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse usage errors
        return int(exc.code or 0)


@pytest.mark.parametrize(("case", "argv", "expected"), CASES, ids=[c[0] for c in CASES])
def test_each_error_is_one_line_naming_the_file(ws, capsys, case, argv, expected):
    code = run_main(argv.format(**ws).split())
    lines = error_lines(capsys.readouterr().err)
    assert code == 2, lines
    assert len(lines) == 1, lines
    assert lines[0].startswith("newsdedup") and "Traceback" not in lines[0]
    assert expected.format(**ws) in lines[0]


def test_a_second_command_on_a_locked_name_is_one_line(ws, capsys):
    with tree_lock(ws["out"], "two"):
        code = run_main(["dedupe", str(ws["two"]), "--name", "two", "--out", str(ws["out"])])
    [line] = error_lines(capsys.readouterr().err)
    assert code == 2
    assert line.startswith(f"newsdedup: error: {ws['out'].resolve() / 'two'} is being written "
                           f"by pid {os.getpid()}")


def test_a_full_disk_is_one_line_naming_the_file(ws, capsys, monkeypatch):
    # Before: "[Errno 28] No space left on device" without a path, and a truncated file.
    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(files.os, "fsync", full)
    code = run_main(["dedupe", str(ws["two"]), "--name", "two", "--out", str(ws["out"])])
    [line] = error_lines(capsys.readouterr().err)
    assert code == 2
    assert line.startswith(f"newsdedup: error: {ws['out'].resolve()}/two/dedupe/items.csv: ")
    assert line.endswith("cannot write (No space left on device); the previous file, if any, "
                         "is left as it was")
    assert not (ws["out"] / "two").exists() and not (ws["out"] / ".newsdedup").exists()


@pytest.mark.parametrize("argv", ["dedupe {two} --name ../../x --out {out}",
                                  "dedupe {two} --calibration {cal_bin} --out {out}"])
def test_the_installed_command_prints_no_traceback(ws, argv):
    command = Path(sys.executable).parent / "newsdedup"  # the installed console script
    proc = subprocess.run([str(command), *argv.format(**ws).split()], capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 2
    [line] = error_lines(proc.stderr)
    assert line.startswith("newsdedup: error: ") and "Traceback" not in proc.stderr


def test_a_reader_closing_the_listing_early_does_not_stop_the_command(tmp_path):
    # `newsdedup dedupe feed | head -1`: the listing of merged groups is longer than the
    # pipe takes; the reader leaves after one line, and the files are committed all the same.
    rows = [f"a{k},서울시 {k}번 버스 노선 개편 발표,https://a.example/{k}\n"
            f"b{k},서울시 {k}번 버스 노선 개편 발표!,https://b.example/{k}\n" for k in range(400)]
    feed = tmp_path / "feed.csv"
    feed.write_text("id,title,url\n" + "".join(rows), encoding="utf-8")
    command = Path(sys.executable).parent / "newsdedup"
    proc = subprocess.Popen([str(command), "dedupe", str(feed), "--out", str(tmp_path / "out"),
                             "--name", "feed"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait() == 0, err
    assert first.decode().startswith("800 items -> 400 kept, 400 merged groups")
    assert "Broken pipe" not in err and "Exception ignored" not in err
    items = (tmp_path / "out" / "feed" / "dedupe" / "items.csv").read_text(encoding="utf-8")
    assert len(items.splitlines()) == 801


def test_a_closed_stdout_is_skipped_as_print_skips_it(tmp_path):
    # `newsdedup dedupe feed >&-`: Python's stdout is None; the command still commits.
    feed = tmp_path / "two.csv"
    feed.write_text(TWO, encoding="utf-8")
    code = ("import sys; from newsdedup.cli import main; "
            f"sys.exit(main(['dedupe', {str(feed)!r}, '--out', {str(tmp_path / 'out')!r}, "
            "'--name', 'two']))")
    proc = subprocess.run(f"{sys.executable} -c \"{code}\" >&-", shell=True, check=False,
                          capture_output=False, stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out" / "two" / "dedupe" / "items.csv").is_file()


def test_the_listing_stream_answers_for_the_stream_it_wraps():
    from newsdedup.cli import Listing

    class Tty(io.StringIO):
        def isatty(self):
            return True

    wrapped = Listing(Tty())
    assert wrapped.isatty() and wrapped.encoding == "utf-8"
    assert wrapped.write("x") == 1

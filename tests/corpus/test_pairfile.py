"""newsdedup.corpus.pairfile: labelled pair files in CSV, TSV and JSON Lines."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from newsdedup.corpus.pairfile import is_binary, load_pair_file, parse_pair_columns
from newsdedup.corpus.records import CorpusError

COLS = {"a": "s1", "b": "s2", "score": "y"}
ROWS = [("Fed holds rates", "Fed keeps rates, \"steady\"", 1), ("진천군 돌봄", "유가 급락", 0)]


def _write(tmp_path: Path, ext: str, rows=ROWS, extra: str = "") -> Path:
    path = tmp_path / f"pairs{ext}"
    if ext == ".jsonl":
        lines = [json.dumps({"s1": a, "s2": b, "y": y}, ensure_ascii=False) for a, b, y in rows]
        path.write_text("\n".join(lines) + "\n" + extra, encoding="utf-8")
        return path
    sep = "," if ext == ".csv" else "\t"

    def q(v) -> str:
        v = str(v)
        return '"' + v.replace('"', '""') + '"' if (sep in v or '"' in v) else v

    body = [sep.join(["s1", "s2", "y"])] + [sep.join(map(q, r)) for r in rows]
    path.write_text("\n".join(body) + "\n" + extra, encoding="utf-8")
    return path


@pytest.mark.parametrize("ext", [".csv", ".tsv", ".jsonl"])
def test_every_format_reads_the_same_pairs(tmp_path: Path, ext: str) -> None:
    got = load_pair_file(_write(tmp_path, ext), COLS)
    assert got["sentence1"].tolist() == [r[0] for r in ROWS]
    assert got["sentence2"].tolist() == [r[1] for r in ROWS]
    assert got["score"].tolist() == [1.0, 0.0] and got["score"].dtype == np.float64
    assert got["line"].tolist() == ([1, 2] if ext == ".jsonl" else [2, 3])


@pytest.mark.parametrize(("ext", "extra", "line", "what"), [
    (".csv", "a,,1\n", 4, "'s2' (b) is empty"),
    (".csv", "a,b,high\n", 4, "'y' = 'high' is not a finite number"),
    (".csv", "a,b\n", 4, "expected 3 fields, got 2"),
    (".tsv", "a\tb\tnan\n", 4, "is not a finite number"),
    (".jsonl", '{"s1": "a", "s2": "b", "y": true}\n', 3, "is not a finite number"),
    (".jsonl", '{"s1": "a", "s2": 5, "y": 1}\n', 3, "'s2' (b) is a int, not text"),
    (".jsonl", '{"s1": "a", "y": 1}\n', 3, "'s2' (b) is missing"),
    (".jsonl", '{"s1": "a", "s2": "b", "y": 1', 3, "invalid JSON"),
])
def test_a_bad_row_is_one_line_naming_file_and_line(tmp_path: Path, ext: str, extra: str,
                                                    line: int, what: str) -> None:
    path = _write(tmp_path, ext, extra=extra)
    with pytest.raises(CorpusError) as info:
        load_pair_file(path, COLS)
    msg = str(info.value)
    assert msg.startswith(f"{path}:{line}:") and what in msg and "\n" not in msg


def test_file_level_errors(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="no column 'label'"):
        load_pair_file(_write(tmp_path, ".csv"), {**COLS, "score": "label"})
    with pytest.raises(CorpusError, match="unknown pair-file extension"):
        load_pair_file(tmp_path / "pairs.xlsx", COLS)
    empty = tmp_path / "e.csv"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(CorpusError, match="empty"):
        load_pair_file(empty, COLS)
    header = tmp_path / "h.csv"
    header.write_text("s1,s2,y\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="no pairs"):
        load_pair_file(header, COLS)


def test_split_column(tmp_path: Path) -> None:
    path = tmp_path / "p.csv"
    path.write_text("s1,s2,y,part\na,b,1,train\nc,d,0,dev\ne,f,1, \n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"p.csv:4: 'part' \(split\) is empty"):
        load_pair_file(path, {**COLS, "split": "part"})
    path.write_text("s1,s2,y,part\na,b,1,train\nc,d,0,dev\n", encoding="utf-8")
    assert load_pair_file(path, {**COLS, "split": "part"})["split"].tolist() == ["train", "dev"]


def test_parse_pair_columns() -> None:
    assert parse_pair_columns("a=x,b=y,score=z,split=s") == {"a": "x", "b": "y", "score": "z",
                                                             "split": "s"}
    for bad, what in (("a=x,b=y", "needs score"), ("a=x,b=y,score=z,c=w", "unknown role"),
                      ("a=x,a=y,b=y,score=z", "twice"), ("a,b=y,score=z", "ROLE=COLUMN")):
        with pytest.raises(ValueError, match=what):
            parse_pair_columns(bad)


def test_is_binary() -> None:
    assert is_binary(np.array([1.0, 0.0, 1.0]))
    assert not is_binary(np.array([1.0, 0.5]))
    assert not is_binary(np.array([]))

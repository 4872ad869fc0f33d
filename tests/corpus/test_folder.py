"""A folder of a feed's files is read as one corpus (corpus/load.py::load_corpus)."""

from __future__ import annotations

import gzip
import hashlib
import json
import warnings
from pathlib import Path

import pandas as pd
import pytest

from newsdedup.cli import main
from newsdedup.corpus.load import CorpusWarning, load_corpus
from newsdedup.corpus.records import CorpusError
from newsdedup.runs.calibrate import (
    CalibrateConfig,
    RecalibrationError,
    recalibrate,
    run_calibrate,
)
from newsdedup.runs.load import results_name

DAYS = {
    "2024-05-01.jsonl": [
        {"id": "a1", "title": "진천군, 온디바이스 AI 기반 스마트 돌봄 구축 본격 착수",
         "url": "https://www.yna.co.kr/1", "published_at": "2024-05-01T09:00:00+09:00"},
        {"id": "a2", "title": "Fed holds rates steady", "url": "https://reuters.com/2",
         "published_at": "2024-05-01T12:00:00Z"},
    ],
    "2024-05-02.jsonl": [
        {"id": "b1", "title": "진천군 온디바이스 AI기반 스마트돌봄 본격화",
         "url": "https://www.ccdn.co.kr/3", "published_at": "2024-05-02T10:00:00+09:00",
         "section": "지역"},
        {"id": "b2", "title": "", "url": "https://x.kr/4"},  # no title: rejected on line 2
        {"id": "a2", "title": "Fed holds rates steady", "url": "https://reuters.com/2",
         "published_at": "2024-05-01T12:00:00Z"},  # polled again the next day
    ],
}


def _lines(rows: list[dict]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()


def _folder(tmp_path: Path, compress_first: bool = True) -> Path:
    """The two days as files (the first gzip-compressed), a README, a hidden file."""
    folder = tmp_path / "feed"
    folder.mkdir(parents=True)
    for name, rows in DAYS.items():
        if compress_first and name.startswith("2024-05-01"):
            (folder / (name + ".gz")).write_bytes(gzip.compress(_lines(rows), mtime=0))
        else:
            (folder / name).write_bytes(_lines(rows))
    (folder / "README.md").write_text("the feed, one file a day\n")
    (folder / ".DS_Store").write_bytes(b"\x00\x00")
    return folder


def _load(path: Path, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CorpusWarning)
        return load_corpus(path, *args, **kwargs)


def test_a_folder_loads_as_its_files_in_name_order(tmp_path):
    folder = _folder(tmp_path)
    joined = tmp_path / "joined.jsonl"
    joined.write_bytes(b"".join(_lines(rows) for rows in DAYS.values()))

    with pytest.warns(CorpusWarning) as said:
        corpus = load_corpus(folder)
    assert [str(w.message).split(": ", 1)[1] for w in said] == [
        "rejected 2 of 5 records; first: 2024-05-02.jsonl record 2 (line 2): missing title "
        "(field 'title' is absent or empty)", "read 2 files; left out 1 (README.md)"]
    alone = _load(joined)

    pd.testing.assert_frame_equal(corpus.items, alone.items)
    assert corpus.files == ("2024-05-01.jsonl.gz", "2024-05-02.jsonl")
    assert corpus.left_out == ("README.md",)  # the hidden file is passed over
    assert corpus.n_records == alone.n_records == 5
    # The sha256 of the folder's `sha256sum` listing, in name order.
    listing = "".join(f"{hashlib.sha256((folder / f).read_bytes()).hexdigest()}  {f}\n"
                      for f in corpus.files)
    assert corpus.sha256 == hashlib.sha256(listing.encode()).hexdigest()
    assert results_name(folder) == "feed"


def test_a_rejected_record_names_its_file_and_its_line_there(tmp_path):
    corpus = _load(_folder(tmp_path))
    assert [(r.file, r.record, r.line, r.id) for r in corpus.rejected] == [
        ("2024-05-02.jsonl", 2, 2, "b2"), ("2024-05-02.jsonl", 3, 3, "a2")]
    assert corpus.rejected[1].reason == ("duplicate id 'a2' (first at 2024-05-01.jsonl.gz "
                                         "record 2, line 2), the same item again")
    with pytest.raises(CorpusError, match=r"feed/2024-05-02\.jsonl:2: record 2: missing title"):
        load_corpus(_folder(tmp_path / "strict"), strict=True)


def test_what_a_folder_cannot_be_read_as_says_so(tmp_path):
    folder = _folder(tmp_path, compress_first=False)
    pd.DataFrame(DAYS["2024-05-01.jsonl"]).to_csv(folder / "2024-05-03.csv", index=False)
    with pytest.raises(CorpusError, match=r"feed: the folder holds files of 2 formats: jsonl "
                                          r"\(2024-05-01\.jsonl, \.\.\.\), csv \(2024-05-03"):
        load_corpus(folder)
    only_csv = _load(folder, "csv")  # --format takes the files of one
    assert only_csv.files == ("2024-05-03.csv",)
    assert only_csv.left_out == ("2024-05-01.jsonl", "2024-05-02.jsonl", "README.md")

    empty = tmp_path / "empty"
    (empty / "sub").mkdir(parents=True)
    (empty / "notes.md").write_text("x")
    with pytest.raises(CorpusError, match=r"empty: the folder holds no corpus file .*holds 2 "
                                          r"\(notes\.md, sub/\)"):
        load_corpus(empty)


def test_text_beside_data_files_is_their_notes_and_alone_a_list_of_headlines(tmp_path):
    folder = _folder(tmp_path, compress_first=False)
    (folder / "LICENSE.txt").write_text("Licensed to the public\n")
    corpus = _load(folder)
    assert corpus.fmt == "jsonl" and corpus.left_out == ("LICENSE.txt", "README.md")
    lists = tmp_path / "lists"
    lists.mkdir()
    (lists / "a.txt").write_text("첫 기사\n")
    (lists / "b.txt").write_text("둘째 기사\n")
    with pytest.warns(CorpusWarning, match="record number"):
        listed = load_corpus(lists)
    assert listed.files == ("a.txt", "b.txt") and listed.items["id"].tolist() == ["a.txt:1",
                                                                                   "b.txt:1"]


def test_a_broken_file_of_a_folder_is_named(tmp_path):
    folder = _folder(tmp_path, compress_first=False)
    (folder / "2024-05-02.jsonl").write_text('{"id": "c1", "headline": "x"}\n')
    with pytest.raises(CorpusError, match=r"2024-05-02\.jsonl:1: field 'title'.* is in no record"):
        load_corpus(folder)
    (folder / "2024-05-02.jsonl").write_text('{"id": "c1", "title": "x"\n')
    with pytest.raises(CorpusError, match=r"feed/2024-05-02\.jsonl:1: record 1: invalid JSON"):
        load_corpus(folder)


def test_the_fields_of_every_file_are_kept(tmp_path):
    corpus = _load(_folder(tmp_path))
    section = dict(zip(corpus.items["id"], corpus.items["section"], strict=True))
    assert section == {"a1": None, "a2": None, "b1": "지역"}


def test_the_commands_read_a_folder(tmp_path, capsys):
    folder = _folder(tmp_path)
    joined = tmp_path / "joined.jsonl"
    joined.write_bytes(b"".join(_lines(rows) for rows in DAYS.values()))
    said = []
    for path, name in ((folder, []), (joined, ["--name", "joined"])):
        assert main(["dedupe", str(path), "--threshold", "0.3", "--out", str(tmp_path / "out"),
                     "--quiet", *name]) == 0
        said.append(capsys.readouterr())
    assert "3 items -> 2 kept, 1 merged groups" in said[0].out
    assert said[0].out == said[1].out
    assert ("warning: feed/: read its 2 jsonl files in name order; left out 1 (README.md)"
            in said[0].err)
    rejects = pd.read_csv(tmp_path / "out" / "feed" / "rejected.csv", dtype=str)
    assert rejects.columns.tolist()[:3] == ["file", "record", "line"]
    assert rejects["file"].tolist() == ["2024-05-02.jsonl"] * 2
    meta = json.loads((tmp_path / "out" / "feed" / "dedupe" / "dedupe.json").read_text())[
        "corpus"]
    assert meta["files"] == ["2024-05-01.jsonl.gz", "2024-05-02.jsonl"]
    assert meta["rejected"][0]["file"] == "2024-05-02.jsonl"
    single = pd.read_csv(tmp_path / "out" / "joined" / "rejected.csv", dtype=str)
    assert "file" not in single.columns  # one file's list is as before


def test_recalibrate_checks_a_folder_by_its_listing(tmp_path):
    folder = _folder(tmp_path)
    corpus = _load(folder)
    options = CalibrateConfig(trials=3, fractions=(0.9, 0.6), min_words=3)
    run_calibrate(corpus, "feed", tmp_path / "out", options, echo=False,
                  shown_root=tmp_path / "out")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CorpusWarning)  # the rejects and the README
        recalibrate("feed", folder, tmp_path / "out")  # the same files: accepted
        (folder / "2024-05-03.jsonl").write_bytes(_lines([{"id": "c1", "title": "new"}]))
        with pytest.raises(RecalibrationError, match=r"feed \(sha256 \w+\.\.\.\) is not the "
                                                     r"corpus calibrated"):
            recalibrate("feed", folder, tmp_path / "out")


def test_several_files_on_the_command_line_are_pointed_to_their_folder(tmp_path, capsys):
    folder = _folder(tmp_path, compress_first=False)
    files = [str(folder / name) for name in DAYS]
    with pytest.raises(SystemExit) as stop:
        main(["dedupe", *files, "--out", str(tmp_path / "out")])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "pass the folder that holds these files to read them as one" in err
    with pytest.raises(SystemExit):
        main(["dedupe", files[0], "--bogus"])
    assert "folder" not in capsys.readouterr().err  # an unknown option is not a file


def test_an_empty_file_of_a_folder_holds_no_record(tmp_path):
    folder = _folder(tmp_path)
    (folder / "2024-05-03.jsonl").write_bytes(b"")  # a day without news
    (folder / "2024-05-04.jsonl.gz").write_bytes(gzip.compress(b"\n"))
    corpus = _load(folder)
    assert corpus.files[-2:] == ("2024-05-03.jsonl", "2024-05-04.jsonl.gz")
    assert corpus.n_records == 5 and len(corpus.items) == 3
    with pytest.raises(CorpusError, match=r"2024-05-03\.jsonl:1: file is empty"):
        load_corpus(folder / "2024-05-03.jsonl")  # alone, it is an error

"""Cross-host runs: date errors name the file; a run never stops with files half written."""

from __future__ import annotations

import json

import pytest

from newsdedup.corpus.load import CorpusWarning, load_corpus
from newsdedup.runs.crosshost import CrossHostOptions, run_crosshost

ROWS = ("id,title,url,published_at\n"
        "a,진천군 스마트 돌봄 착수,https://a.example/1,2026-05-01\n"
        "b,진천군 스마트돌봄 본격화,https://b.example/2,yesterday\n"
        "c,화성시 화재 감지 도입,https://b.example/3,2026-05-02\n")
OPTIONS = CrossHostOptions(hosts=("a.example", "b.example"))


def test_a_bad_date_is_a_listed_reject_and_the_run_completes(tmp_path):
    path = tmp_path / "feed.csv"
    path.write_text(ROWS, encoding="utf-8")
    with pytest.warns(CorpusWarning, match="rejected 1 of 3 records"):
        corpus = load_corpus(path)
    run_crosshost(corpus, "feed", tmp_path / "out", OPTIONS, echo=False)
    record = json.loads((tmp_path / "out/feed/crosshost/crosshost.json").read_text("utf-8"))
    assert record["corpus"]["records"] == 3 and record["corpus"]["items"] == 2
    [reject] = record["corpus"]["rejected"]
    assert (reject["line"], reject["id"]) == (3, "b") and "yesterday" in reject["reason"]


def test_a_date_error_of_a_changed_table_names_the_file_and_writes_nothing(tmp_path):
    # Before: the message named neither the file nor its record count, and `run` had
    # already written measure/ and calibrate/ when cross-host stopped.
    path = tmp_path / "feed.csv"
    path.write_text(ROWS.replace("yesterday", "2026-05-03"), encoding="utf-8")
    corpus = load_corpus(path)
    corpus.items.loc[1, "published_at"] = "not a date"
    with pytest.raises(ValueError, match=rf"^{path}: crosshost: 1 of 3 rows .*\(the file has 3 "
                                         r"records, 0 rejected"):
        run_crosshost(corpus, "feed", tmp_path / "out", OPTIONS, echo=False)
    assert not (tmp_path / "out" / "feed").exists()

"""Cross-host runs: date errors name the file; a run never stops with files half written."""

from __future__ import annotations

import json

import pytest

from newsdedup.corpus.load import CorpusWarning, load_corpus
from newsdedup.runs.crosshost import CrossHostConfig, run_crosshost

ROWS = ("id,title,url,published_at\n"
        "a,진천군 스마트 돌봄 착수,https://a.example/1,2026-05-01\n"
        "b,진천군 스마트돌봄 본격화,https://b.example/2,yesterday\n"
        "c,화성시 화재 감지 도입,https://b.example/3,2026-05-02\n")
OPTIONS = CrossHostConfig(hosts=("a.example", "b.example"))


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


def _load(tmp_path, text: str):
    path = tmp_path / "feed.csv"
    path.write_text(text, encoding="utf-8")
    return load_corpus(path)


def test_without_hosts_the_corpus_uses_its_own_url_hosts(tmp_path):
    corpus = _load(tmp_path, ROWS.replace("yesterday", "2026-05-03"))
    rep = run_crosshost(corpus, "feed", tmp_path / "out", echo=False)
    record = json.loads((tmp_path / "out/feed/crosshost/crosshost.json").read_text("utf-8"))
    assert record["params"]["hosts"] == ["b.example", "a.example"]  # most items first
    assert record["params"]["hosts_from"].startswith("the corpus's URL hosts: all 2")
    assert rep.n_cross == 2  # a x b twice
    assert (tmp_path / "out/feed/crosshost/score_days.csv").is_file()


def test_a_corpus_without_url_or_source_has_no_host_information(tmp_path):
    corpus = _load(tmp_path, "id,title,published_at\na,진천군 돌봄,2026-05-01\n"
                             "b,화성시 화재,2026-05-02\n")
    run_crosshost(corpus, "feed", tmp_path / "out", echo=False)
    folder = tmp_path / "out/feed/crosshost"
    record = json.loads((folder / "crosshost.json").read_text("utf-8"))
    assert record["summary"]["note"] == ("crosshost: no host information: the corpus has no URLs "
                                         "and no source column")
    assert record["params"]["hosts"] == [] and record["summary"]["cross_pairs"] == 0
    assert not (folder / "cross_pairs.csv").exists() and not (folder / "score_days.csv").exists()
    assert "no host information" in (folder / "crosshost.md").read_text("utf-8")


def test_sources_stand_in_for_urls(tmp_path):
    corpus = _load(tmp_path, "id,title,source,published_at\na,진천군 스마트 돌봄 착수,조선,"
                             "2026-05-01\nb,진천군 스마트돌봄 본격화,동아,2026-05-01\n")
    run_crosshost(corpus, "feed", tmp_path / "out", echo=False)
    folder = tmp_path / "out/feed/crosshost"
    record = json.loads((folder / "crosshost.json").read_text("utf-8"))
    assert record["params"]["host_column"] == "source"
    assert record["params"]["hosts"] == ["조선", "동아"] and record["summary"]["cross_pairs"] == 1
    assert "the source column: the corpus has no URLs" in (folder / "crosshost.md").read_text(
        "utf-8")

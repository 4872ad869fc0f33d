import json

from newsdedup.runs.load import load_named


def test_name_and_rejects_are_reported(tmp_path):
    path = tmp_path / "feeds" / "today.jsonl"
    path.parent.mkdir()
    rows = [{"id": "a", "title": "첫 기사", "summary": ""}, {"id": "", "title": "no id"}]
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", "utf-8")
    said: list[str] = []
    corpus, name = load_named(path, progress=said.append)
    assert name == "feeds" and len(corpus.items) == 1 and corpus.dialect == "standard"
    assert said[0].startswith(f"loading {path}") and "rejected today.jsonl" in said[1]
    assert load_named(path, name="other")[1] == "other"


def test_a_list_of_headlines_is_deduped_and_its_numbered_ids_are_said_and_recorded(
        tmp_path, capsys):
    from newsdedup.cli import main

    path = tmp_path / "headlines.txt"
    path.write_text("삼성전자 3분기 실적 발표\n삼성전자, 3분기 실적 발표했다\n오늘의 날씨\n",
                    encoding="utf-8")
    assert main(["dedupe", str(path), "--out", str(tmp_path / "out"), "--name", "headlines"]) == 0
    said = capsys.readouterr()
    assert "note: headlines.txt: no record has an 'id' field" in said.err
    assert "3 items -> 2 kept, 1 merged groups" in said.out
    run = tmp_path / "out" / "headlines" / "dedupe"
    assert json.loads((run / "dedupe.json").read_text())["corpus"]["ids"] == "record numbers"
    items = (run / "items.csv").read_text(encoding="utf-8").splitlines()
    assert [line.split(",")[0] for line in items[1:]] == ["1", "2", "3"]


def test_fields_that_look_like_columns_are_named_with_the_option_that_reads_them(tmp_path):
    path = tmp_path / "feed.csv"
    path.write_text("Title,Date,Publisher\nFed raises rates,2024-05-01,AP\n"
                    "Stocks fall,2024-05-02,AP\n", encoding="utf-8")
    said: list[str] = []
    load_named(path, columns={"title": "Title"}, progress=said.append)
    assert ("note: feed.csv: 'Publisher' (source?), 'Date' (published_at?) left unread: named "
            "as those columns commonly are; --columns source=Publisher,published_at=Date reads "
            "them") in said


# --- tiny corpora (issue 16, defect 4) ---------------------------------------------------

import warnings  # noqa: E402

import pytest  # noqa: E402

from newsdedup.corpus.load import CorpusError, CorpusWarning, load_corpus  # noqa: E402
from newsdedup.runs.measure import run_measure_step  # noqa: E402
from newsdedup.runs.pipeline import run_all  # noqa: E402


@pytest.mark.parametrize(("rows", "message"), [
    ("", r"0 usable items \(0 records, 0 rejected\)"),
    # (a file whose every record is rejected fails at loading: tests/corpus/test_records_round2)
    ("a,,https://x.org/1\nb,한 건의 기사,https://x.org/2\n",
     r"1 usable item \(2 records, 1 rejected\)"),
    ("a,한 건의 기사,https://x.org/1\n", r"1 usable item \(1 record, 0 rejected\)"),
])
def test_measure_and_run_refuse_fewer_than_two_items_in_one_line(tmp_path, rows, message):
    # Before: ZeroDivisionError in the measure summary (err_mean over no pair).
    path = tmp_path / "tiny.csv"
    path.write_text("id,title,url\n" + rows, encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CorpusWarning)  # the reject is listed in corpus.rejected
        corpus = load_corpus(path, strict=False)
    for run in (run_measure_step, run_all):
        with pytest.raises(CorpusError, match=rf"^{path}: {message}: measure compares pairs"):
            run(corpus, "tiny", tmp_path / "out", echo=False)
    assert not (tmp_path / "out" / "tiny").exists()  # nothing half written

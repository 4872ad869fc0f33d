"""JSON documents as corpora (newsdedup.corpus.tabular.read_json, load_corpus's "json")."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.corpus.load import load_corpus
from newsdedup.corpus.records import CorpusError, CorpusWarning
from newsdedup.corpus.tabular import read_json, read_jsonl

ROWS = [{"id": "a", "title": "삼성전자 3분기 실적 발표", "published_at": "2024-05-01"},
        {"id": "b", "title": "Fed holds rates", "url": "https://x.org/1"}]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_an_array_loads_as_its_json_lines_twin(tmp_path):
    array = write(tmp_path, "f.json", json.dumps(ROWS, ensure_ascii=False, indent=2))
    lines = write(tmp_path, "f.jsonl", "".join(json.dumps(r, ensure_ascii=False) + "\n"
                                               for r in ROWS))
    with warnings.catch_warnings():
        warnings.simplefilter("error", CorpusWarning)
        a, b = load_corpus(array), load_corpus(lines)
    assert a.fmt == "json"
    assert a.items.equals(b.items)


def test_an_api_answer_loads_its_one_array_member(tmp_path):
    answer = {"status": "ok", "totalResults": 2, "meta": {"page": 1}, "articles": ROWS}
    path = write(tmp_path, "api.json", json.dumps(answer, ensure_ascii=False, indent=1))
    assert load_corpus(path).items["id"].tolist() == ["a", "b"]
    two = write(tmp_path, "two.json", json.dumps({"articles": ROWS, "tags": []}))
    with pytest.raises(CorpusError, match=r"members holding arrays: \['articles', 'tags'\]"):
        load_corpus(two)
    with pytest.raises(CorpusError, match="no member holds an array"):
        load_corpus(write(tmp_path, "none.json", '{"id": "a", "title": "T"}'))


def test_faults_name_their_line_and_record(tmp_path):
    with pytest.raises(CorpusError, match=r"bad\.json:3: invalid JSON"):
        load_corpus(write(tmp_path, "bad.json", '[\n{"id": "a", "title": "T"},\n{"id": }]'))
    with pytest.raises(CorpusError, match=r"arr\.json:3: record 2: expected a JSON object"):
        load_corpus(write(tmp_path, "arr.json", '[\n{"id": "a", "title": "T"},\n"x"]'))
    # A repeated key spoils its record only, which is rejected with its line.
    text = '[\n{"id": "a", "title": "T"},\n{"id": "b", "id": "c", "title": "U"}]'
    with pytest.warns(CorpusWarning, match=r"record 2 \(line 3\): duplicate key 'id'"):
        assert load_corpus(write(tmp_path, "dup.json", text)).items["id"].tolist() == ["a"]


def test_unknown_extensions_name_the_format_option(tmp_path):
    with pytest.raises(ValueError, match=r"pass --format \(fmt=\) one of .*'json'"):
        load_corpus(write(tmp_path, "f.doc", "[]"))


records = st.lists(st.dictionaries(st.sampled_from(["id", "title", "n", "x y"]),
                                   st.one_of(st.text(max_size=8), st.integers(), st.none()),
                                   max_size=4), max_size=6)


@settings(max_examples=200)
@given(records, st.sampled_from([None, 0, 1, 3]), st.booleans())
def test_records_and_lines_agree_with_the_json_lines_reader(rows, indent, wrapped):
    # Any layout of the same records (indented or on one line, wrapped in an object or
    # not) reads as the same fields; each record's line is where its object opens.
    document = {"n": 1, "items": rows} if wrapped else rows
    text = json.dumps(document, indent=indent, ensure_ascii=False)
    got = read_json(Path("f.json"), text)
    assert [r.fields for r in got] == rows
    assert [r.record for r in got] == list(range(1, len(rows) + 1))
    if indent is None:
        assert all(r.line == 1 for r in got)
    else:  # each record opens a line of its own, at the array's depth of indentation
        pad = " " * indent * (2 if wrapped else 1)
        opens = [k + 1 for k, line in enumerate(text.split("\n"))
                 if line.startswith(pad + "{") and (k > 0 or not wrapped)]
        assert [r.line for r in got] == opens
    one_per_line = "\n".join(json.dumps(r, ensure_ascii=False) for r in rows)
    assert [r.fields for r in read_jsonl(Path("f.jsonl"), one_per_line)] == rows
    # Lines ended by a carriage return alone (classic Mac) read the same, line for line.
    mac = read_jsonl(Path("f.jsonl"), one_per_line.replace("\n", "\r") + "\r")
    assert [(r.fields, r.line) for r in mac] == [(row, k + 1) for k, row in enumerate(rows)]


def test_a_member_of_an_object_field_maps_with_a_dotted_name(tmp_path):
    # NewsAPI's answer: the outlet is an object, {"id": null, "name": "BBC News"}.
    answer = {"status": "ok", "articles": [
        {"source": {"id": None, "name": "BBC News"}, "title": "Fed holds rates",
         "url": "https://bbc.co.uk/1", "publishedAt": "2024-05-01T10:00:00Z"},
        {"source": {"id": "cnn", "name": "CNN"}, "title": "Fed holds rates steady",
         "url": "https://cnn.com/2", "publishedAt": "2024-05-01T11:00:00Z"}]}
    path = write(tmp_path, "api.json", json.dumps(answer))
    columns = {"id": "url", "published_at": "publishedAt"}
    with pytest.raises(CorpusError, match=r"field 'source' \(source\) is an object or array, "
                                          r"not text; map a member with --columns "
                                          r"source=source\.name"):
        load_corpus(path, columns=columns)
    items = load_corpus(path, columns=columns | {"source": "source.name"}).items
    assert items["source"].tolist() == ["BBC News", "CNN"]
    assert items["published_at"].tolist() == ["2024-05-01T10:00:00Z", "2024-05-01T11:00:00Z"]
    with pytest.raises(CorpusError, match=r"'source\.nam' \(for 'source'\) is in no record; .*"
                                          r"e\.g\. --columns source=<field>$"):
        load_corpus(path, columns=columns | {"source": "source.nam"})


@pytest.mark.parametrize(("name", "text", "says"), [
    ("feed.json", '{"id": "a", "title": "x"}\n{"id": "b", "title": "y"}\n',
     r"feed\.json:2: invalid JSON: Extra data \(column 1\); the file is JSON Lines .*"
     r"pass --format jsonl"),
    ("feed.jsonl", '[{"id": "a", "title": "x"},\n {"id": "b", "title": "y"}]\n',
     r"feed\.jsonl:1: record 1: invalid JSON: .*; the file is one JSON document .*"
     r"pass --format json"),
    ("feed.jsonl", '[{"id": "a", "title": "x"}, {"id": "b", "title": "y"}]\n',
     r"feed\.jsonl:1: record 1: expected a JSON object, got list; the file is one JSON "
     r"document"),
])
def test_json_lines_and_a_json_document_in_each_others_names_say_which_they_are(
        tmp_path, name, text, says):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CorpusError, match=says):
        load_corpus(path)
    other = {"feed.json": "jsonl", "feed.jsonl": "json"}[name]
    assert load_corpus(path, other).items["id"].tolist() == ["a", "b"]


@pytest.mark.parametrize(("name", "text"), [
    ("feed.json", '{"id": "a", "title": "x"}\n"more"\n'),  # extra data, not an object
    ("feed.jsonl", '{"id": "a", "title": "x"\n'),  # a broken first line
])
def test_broken_json_is_not_said_to_be_the_other_format(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CorpusError) as err:
        load_corpus(path)
    assert "the file is" not in str(err.value)

"""Bad records of the second audit (issue 28, items 2, 3, 4 and 15): rejected one by one.

Item 2: a lone UTF-16 surrogate in a JSON string stopped the command. Item 3: a record
nested very deep ended in a RecursionError traceback. Item 4: a stray quote in the middle
of a CSV swallowed the following rows into one field, silently. Item 15: a mistyped
``--columns`` rejected every record and exited 0. Each failed before its fix.
"""

from __future__ import annotations

import csv
import io
import tempfile
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.cli import main
from newsdedup.corpus.load import CorpusError, CorpusWarning, LoadResult, load_corpus
from newsdedup.corpus.records import MAX_NESTING


def load_quiet(path: Path, **kwargs) -> LoadResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CorpusWarning)
        return load_corpus(path, **kwargs)


GOOD = ['{"id": "a", "title": "진천군 스마트 돌봄"}', '{"id": "b", "title": "화성시 화재 감지"}']


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("line", "reason"), [
    ('{"id": "s", "title": "bad \\ud800 x"}', "field 'title' holds a lone UTF-16 surrogate"),
    ('{"id": "s", "title": "t", "extra": {"k\\udfff": 1}}', "field 'extra' holds a lone"),
    ('{"id": "s", "title": "t", "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
     "nested deeper than the JSON reader can follow"),
    ('{"id": "s", "title": "t", "x": ' + "[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1)
     + "}", f"nests arrays or objects deeper than {MAX_NESTING} levels"),
    ('{"id": "s", "title": "t", "n": ' + "7" * 5000 + "}", "unreadable JSON value"),
])
def test_a_bad_jsonl_record_is_rejected_and_the_others_load(tmp_path, line, reason):
    path = write(tmp_path, "f.jsonl", "\n".join([GOOD[0], line, GOOD[1]]) + "\n")
    res = load_quiet(path)
    assert res.items["id"].tolist() == ["a", "b"]
    [rej] = res.rejected
    assert (rej.record, rej.line) == (2, 2) and reason in rej.reason and "\n" not in rej.reason


@pytest.mark.parametrize(("value", "reason"), [
    ("'bad \\uD800 x'", "lone UTF-16 surrogate"),
    ("[" * 5000 + "]" * 5000, f"nested deeper than {MAX_NESTING} levels on line 3"),
    ("7" * 5000, "number on line 3"),
])
def test_a_bad_typescript_record_is_rejected_and_the_others_load(tmp_path, value, reason):
    text = ("const entries = [\n  { id: 'a', title: '진천군 스마트 돌봄' },\n"
            f"  {{ id: 's', title: 't', x: {value} }},\n  {{ id: 'b', title: '화성시' }},\n];\n")
    res = load_quiet(write(tmp_path, "n.ts", text))
    assert res.items["id"].tolist() == ["a", "b"]
    [rej] = res.rejected
    assert rej.line == 3 and reason in rej.reason


def test_the_command_writes_every_other_record_after_a_surrogate(tmp_path, capsys):
    path = write(tmp_path, "f.jsonl", "\n".join([GOOD[0], '{"id": "s", "title": "\\ud800"}',
                                                 GOOD[1]]) + "\n")
    assert main(["dedupe", str(path), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and "lone UTF-16 surrogate" in err
    items = (tmp_path / "out" / tmp_path.name / "dedupe" / "items.csv").read_text("utf-8")
    assert items.count("\n") == 3  # header and the two good records


# --- item 4: a stray quote mid-file --------------------------------------------------


@pytest.mark.parametrize("text", [
    # The audit's shape: the stray quote's field is closed by the opening quote of a later,
    # correctly quoted field, with the right field count.
    'id,title,url\n1,"stray title,u1\n2,"He said ""no""",u2\n3,plain,u3\n',
    'id,title\n1,"stray title\n2,"He said ""no"" twice"\n3,plain\n',
])
def test_a_stray_quote_closed_by_a_later_quoted_field_loses_no_row(tmp_path, text):
    res = load_quiet(write(tmp_path, "q.csv", text))
    assert res.items["id"].tolist() == ["2", "3"]
    assert res.items["title"].tolist()[0] == 'He said "no"' + (" twice" if "twice" in text
                                                               else "")
    [rej] = res.rejected
    assert (rej.line, rej.id) == (2, "1") and "text after its closing quote" in rej.reason


def test_a_legitimate_multiline_field_is_still_one_record(tmp_path):
    text = 'id,title,url\n1,"first line\nsecond, line",u1\n2,"quoted ""x""",u2\n'
    res = load_quiet(write(tmp_path, "q.csv", text))
    assert res.items["title"].tolist() == ["first line\nsecond, line", 'quoted "x"']
    assert not res.rejected


TITLE = st.text(st.sampled_from('ab가나 ,"\''), min_size=1, max_size=10).filter(
    lambda t: t.strip(' ,"\''))


@settings(max_examples=400)
@given(st.lists(TITLE, min_size=2, max_size=7), st.integers(min_value=0),
       st.sampled_from([",", "\t", ";"]))
def test_one_stray_quote_anywhere_never_hides_another_row(titles, where, delimiter):
    # The neighbourhood of item 4: titles full of quotes and delimiters, written by the
    # csv module (so correctly quoted), three columns, then one stray quote anywhere.
    rows = [(f"id{k}x", t, f"u{k}") for k, t in enumerate(titles)]
    pieces = []
    for row in rows:
        buf = io.StringIO()
        csv.writer(buf, delimiter=delimiter, lineterminator="\n").writerow(row)
        pieces.append(buf.getvalue())
    k = where % len(pieces)
    pos = (where // len(pieces)) % len(pieces[k])
    pieces[k] = pieces[k][:pos] + '"' + pieces[k][pos:]
    head = delimiter.join(["id", "title", "url"]) + "\n"
    text = head + "".join(pieces)
    first_line = {i: 2 + "".join(pieces[:i]).count("\n") for i in range(len(pieces))}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "f.csv"
        path.write_text(text, encoding="utf-8")
        try:
            res = load_quiet(path, sep=delimiter)
        except CorpusError as exc:
            assert exc.line is not None and "\n" not in exc.reason
            return
    items = dict(zip(res.items["id"], res.items["title"], strict=True))
    for i, (rid, title, _) in enumerate(rows):
        if i == k:
            continue
        if items.get(rid) == title:
            continue
        # Not silently absorbed: a reject covers its line (its own, or the runaway's).
        covering = [r for r in res.rejected
                    if r.line == first_line[i] or (r.line <= first_line[i] <= (r.last_line or 0))]
        assert covering, (rid, title, text, res.items.to_dict("records"), res.rejected)


# --- item 15: nothing usable is a failure ---------------------------------------------


def test_a_mistyped_column_of_a_jsonl_file_is_one_error_naming_it(tmp_path, capsys):
    path = write(tmp_path, "f.jsonl", "\n".join(GOOD) + "\n")
    code = main(["dedupe", str(path), "--columns", "title=TITEL", "--out",
                 str(tmp_path / "out"), "--quiet"])
    [line] = capsys.readouterr().err.splitlines()
    assert code == 2
    assert line == (f"newsdedup: error: {path}:1: field 'TITEL' (for 'title') is in no record; "
                    "the records' fields: ['id', 'title']; map them with --columns title=title")
    assert not (tmp_path / "out").exists()


def test_every_record_rejected_is_a_failure_not_an_empty_run(tmp_path, capsys):
    path = write(tmp_path, "f.jsonl", '{"id": "a", "title": ""}\n{"id": "b", "title": " "}\n')
    code = main(["dedupe", str(path), "--out", str(tmp_path / "out"), "--quiet"])
    [line] = capsys.readouterr().err.splitlines()
    assert code == 2
    assert line.startswith(f"newsdedup: error: {path}:1: record 1: every one of its 2 records "
                           "was rejected")
    assert not (tmp_path / "out").exists()

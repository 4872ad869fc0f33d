"""Tests for newsdedup.corpus.load: synthetic files for every rule, then the real shared corpora."""

from __future__ import annotations

import codecs
import functools
import io
import json
import re
import tempfile
import unicodedata
import warnings
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.corpus.load import (
    CANONICAL,
    CorpusError,
    CorpusWarning,
    LoadResult,
    Rejected,
    load_corpus,
)
from newsdedup.corpus.tabular import read_lines
from newsdedup.paths import PALDYN, UCI_COLUMNS, locate_pinned, sha256_file, shared_corpus_file
from newsdedup.text.normalize import is_blank

# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def load_quiet(path: Path, **kwargs) -> LoadResult:
    """Load while asserting nothing is rejected (so no warning is expected)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", CorpusWarning)
        return load_corpus(path, **kwargs)


def line_of(text: str, needle: str) -> int:
    """1-based line of the first occurrence of ``needle``."""
    return text[: text.index(needle)].count("\n") + 1


# A module shaped like the real one, with traps: the array name in a comment and in a
# string, other exported arrays before and after, brackets inside strings.
SAMPLE_TS = """\
import { getSource, type NewsSource } from './sources';

/* not here: const entries = [ { id: 'fake-block', title: 'x' } ] */
// nor here: const entries = [
export const categoryOrder: Record<Kind, Cat[]> = {
  company: ['Product', 'Research'],
};
export const featured: NewsItem[] = [{ id: 'feat', title: 'featured, not news' }];
const trap = "const entries = ['trap']";
const entries: NewsItem[] = [
  {
    id: 'a1',
    source: 'OpenAI',
    title: 'OpenAI\\'s [new] {model}',
    summary:
      'first part, ' +
      "second part " + // a comment between the pieces
      'third part',
    publishedAt: '2026-01-02',
    url: 'https://User@Blog.Google:443/x',
    model: {
      family: 'Gemini',
      tags: ['a', 'b',],
      size: 1.5e3,
      open: false,
      note: null,
    },
    'quoted-key': "dq \\"x\\" \\u0041\\x42\\u{1F600}\\uD83D\\uDE00 tab\\tend",
    count: -3,
  },
  {
    id: `a2`,
    title: 'line \\
continued',
    url: 'https://openai.com/index/a2',
  },
];
export const newsItems: NewsItem[] = [...entries].sort((a, b) => a.id.localeCompare(b.id));
"""


# ---------------------------------------------------------------------------------------
# format dispatch and options
# ---------------------------------------------------------------------------------------





def test_unknown_extension_and_options_are_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "news.html", "<x/>")
    with pytest.raises(ValueError, match=r"cannot infer the format from extension '\.html'"):
        load_corpus(path)
    jsonl = write(tmp_path, "n.jsonl", '{"id": "a", "title": "T"}\n')
    with pytest.raises(ValueError, match="seed.*only to the ts format"):
        load_corpus(jsonl, dialect="seed")
    with pytest.raises(ValueError, match="unknown dialect"):
        load_corpus(jsonl, dialect="loose")
    with pytest.raises(ValueError, match="unknown format"):
        load_corpus(jsonl, fmt="html")
    with pytest.raises(ValueError, match="not a canonical column"):
        load_corpus(jsonl, columns={"headline": "title"})
    with pytest.raises(ValueError, match="a delimiter applies only to the csv"):
        load_corpus(jsonl, sep=";")


def test_explicit_format_overrides_extension(tmp_path: Path) -> None:
    path = write(tmp_path, "dump.txt", '{"id": "a", "title": "T"}\n')
    assert load_quiet(path, fmt="jsonl").items["id"].tolist() == ["a"]


# ---------------------------------------------------------------------------------------
# TypeScript, standard dialect
# ---------------------------------------------------------------------------------------


def test_ts_reads_only_the_entries_array(tmp_path: Path) -> None:
    path = write(tmp_path, "news.ts", SAMPLE_TS)
    res = load_quiet(path)
    items = res.items
    assert items["id"].tolist() == ["a1", "a2"]
    assert list(items.columns[: len(CANONICAL)]) == list(CANONICAL)
    assert list(items.columns[len(CANONICAL) :]) == ["model", "quoted-key", "count"]
    assert isinstance(items.index, pd.RangeIndex)
    assert (res.fmt, res.dialect, res.n_records) == ("ts", "standard", 2)


def test_ts_string_decoding(tmp_path: Path) -> None:
    items = load_quiet(write(tmp_path, "news.ts", SAMPLE_TS)).items
    first, second = items.iloc[0], items.iloc[1]
    assert first["title"] == "OpenAI's [new] {model}"
    assert first["summary"] == "first part, second part third part"  # `+` across lines
    assert first["quoted-key"] == 'dq "x" AB\U0001f600\U0001f600 tab\tend'
    assert second["title"] == "line continued"  # backslash-newline continuation
    assert second["id"] == "a2"  # template literal without substitutions


def test_ts_nested_model_block_is_kept_as_dict(tmp_path: Path) -> None:
    items = load_quiet(write(tmp_path, "news.ts", SAMPLE_TS)).items
    assert items.loc[0, "model"] == {
        "family": "Gemini",
        "tags": ["a", "b"],
        "size": 1500.0,
        "open": False,
        "note": None,
    }
    assert items.loc[1, "model"] is None  # absent extra: None, not NaN
    assert items.loc[0, "count"] == -3


def test_ts_canonical_columns_are_plain_strings(tmp_path: Path) -> None:
    items = load_quiet(write(tmp_path, "news.ts", SAMPLE_TS)).items
    for column in CANONICAL:
        assert items[column].dtype == object
        assert all(isinstance(v, str) for v in items[column])
    assert items.loc[0, "published_at"] == "2026-01-02"  # from publishedAt
    assert items.loc[1, ["summary", "source", "published_at"]].tolist() == ["", "", ""]
    assert items["host"].tolist() == ["blog.google", "openai.com"]


def test_ts_other_array_by_name(tmp_path: Path) -> None:
    res = load_quiet(write(tmp_path, "news.ts", SAMPLE_TS), array_name="featured")
    assert res.items["title"].tolist() == ["featured, not news"]


def test_ts_record_lines_point_at_the_opening_brace(tmp_path: Path) -> None:
    text = "const entries = [\n  { id: 'a' },\n\n  {\n    id: 'a', title: 'T' },\n];\n"
    with pytest.warns(CorpusWarning):
        res = load_corpus(write(tmp_path, "n.ts", text))
    assert res.rejected == [Rejected(1, 2, "a", "missing title (field 'title' is absent or empty)")]
    assert res.items["id"].tolist() == ["a"]  # the first usable "a" is not a duplicate


@pytest.mark.parametrize(
    ("source", "start_line"),
    [
        ("const entries = [\n  {\n    id: 'a',\n    title: 'no end,\n  },\n];\n", 4),
        ('const entries = [\n  { id: "a",\n    title: "x" + "never closed\n', 3),
        ("const entries = [\n  { id: 'a', title: 'ends at EOF\\", 2),
    ],
)
def test_ts_unterminated_string_names_its_start_line(
    tmp_path: Path, source: str, start_line: int
) -> None:
    with pytest.raises(CorpusError, match="unterminated string literal") as err:
        load_corpus(write(tmp_path, "n.ts", source))
    assert err.value.line == start_line
    assert str(err.value).startswith(f"{tmp_path / 'n.ts'}:{start_line}: ")


@pytest.mark.parametrize(
    ("source", "line", "message"),
    [
        ("const entries = [\n  {\n    id: 'x'\n    title: 'y',\n  },\n];\n", 4, "expected ','"),
        ("const entries = [\n  { id: 'x', source: OPENAI },\n];\n", 2, "literal value"),
        ("const entries = [\n  { id: 'x', title: 'a' + 1 },\n];\n", 2, "string literal after"),
        ("const entries = [\n  { id: 'x', title: `a${b}` },\n];\n", 2, "not a constant"),
        ("const entries = [\n  { id: 'x' },\n  'loose',\n];\n", 3, "not an object literal"),
        ("const entries = [\n  { id: 'x' },\n", 3, "found end of file"),
        ("/* open\nconst entries = [];\n", 1, "unterminated /* comment"),
        ("const entries = [{ t: '\\1' }];\n", 1, "octal escape"),
        ("const entries = [{ t: '\\u12' }];\n", 1, "4 hex digits"),
        ("export const entries: Record<string, X> = {\n};\n", 1, "not initialised with an array"),
    ],
)
def test_ts_syntax_errors_name_the_line(tmp_path: Path, source: str, line: int, message: str):
    # strict: a ${...} template rejects only its record (test_bad_input), strict raises.
    with pytest.raises(CorpusError, match=re.escape(message)) as err:
        load_corpus(write(tmp_path, "n.ts", source), strict=True)
    assert err.value.line == line


def test_ts_without_entries_array(tmp_path: Path) -> None:
    source = "// const entries = [\nexport const categoryOrder = ['a'];\nconst s = 'entries';\n"
    with pytest.raises(CorpusError, match=r"no `const entries = \[\.\.\.\]` array found"):
        load_corpus(write(tmp_path, "n.ts", source))


def test_ts_value_syntax_extras(tmp_path: Path) -> None:
    source = (
        "export const entries = [\n"
        "  { 'id': 'q', \"title\": 'T', kind: 'model' as const, n: 0x1F, m: 1_000, f: .5,\n"
        "    e: -2.5e-1, t: true, u: undefined, nested: [[1, 2], {}], 42: 'num key', },\n"
        "] as const;\n"
    )
    row = load_quiet(write(tmp_path, "n.ts", source)).items.iloc[0]
    assert (row["id"], row["kind"], row["n"], row["m"], row["f"]) == ("q", "model", 31, 1000, 0.5)
    assert (row["e"], row["t"], row["u"], row["nested"]) == (-0.25, True, None, [[1, 2], {}])
    assert row["42"] == "num key"


@settings(max_examples=150, deadline=None)
@given(st.text())
def test_ts_string_literals_round_trip(text: str) -> None:
    # A JSON string is a valid JS string literal; ensure_ascii=True also exercises
    # \\uXXXX escapes and surrogate pairs, ensure_ascii=False raw characters.
    single = "'" + text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"
    single = single.replace("\r", "\\r")
    for literal in (json.dumps("T" + text), json.dumps("T" + text, ensure_ascii=False)):
        source = f"const entries = [\n  {{ id: 'x', title: {literal}, s: {single} }},\n];\n"
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "n.ts"
            path.write_text(source, encoding="utf-8")
            row = load_corpus(path).items.iloc[0]
        # Titles are brought to NFC on loading; other fields are kept as written.
        assert row["title"] == unicodedata.normalize("NFC", "T" + text)
        assert row["s"] == text


# ---------------------------------------------------------------------------------------
# TypeScript, seed dialect
# ---------------------------------------------------------------------------------------

SEED_TS = """\
const entries = [
  {
    id: 'dq',
    title: "미국 공작 'Tech and Tariffs'",
    summary: 'It\\'s ' +
      'a \\n test',
    count: 3,
  },
  {
    id: 'no-single',
    title: "plain double",
  },
];
"""


def test_seed_dialect_keeps_only_single_quoted_segments(tmp_path: Path) -> None:
    path = write(tmp_path, "n.ts", SEED_TS)
    with pytest.warns(CorpusWarning, match="rejected 1 of 2"):
        seed = load_corpus(path, dialect="seed")
    assert seed.items.loc[0, "title"] == "Tech and Tariffs"
    assert seed.items.loc[0, "summary"] == "It's a \\n test"  # \n stays verbatim
    assert seed.items.loc[0, "count"] == 3  # non-string values are decoded as usual
    assert seed.rejected == [
        Rejected(2, 9, "no-single", "missing title (field 'title' is absent or empty)")
    ]

    standard = load_quiet(path)
    assert standard.items["title"].tolist() == ["미국 공작 'Tech and Tariffs'", "plain double"]
    assert standard.items.loc[0, "summary"] == "It's a \n test"



# ---------------------------------------------------------------------------------------
# rejects, strict mode, warnings
# ---------------------------------------------------------------------------------------

REJECTS_TS = """\
const entries = [
  { id: 'a', title: 'A' },
  { id: '', title: 'no id' },
  { title: 'missing id' },
  { id: 'b', title: '  ' },
  { id: 'c' },
  { id: 'a', title: 'again' },
  { id: 'd', title: 'D' },
];
"""


def test_rejects_are_listed_with_record_line_and_reason(tmp_path: Path) -> None:
    path = write(tmp_path, "n.ts", REJECTS_TS)
    with pytest.warns(CorpusWarning) as caught:
        res = load_corpus(path)
    assert len(caught) == 1  # one summary line per load
    assert "rejected 5 of 7 records; first: record 2 (line 3): missing id" in str(caught[0].message)
    assert res.items["id"].tolist() == ["a", "d"]
    assert res.n_records == len(res.items) + len(res.rejected) == 7
    assert [(r.record, r.line, r.id) for r in res.rejected] == [
        (2, 3, None),
        (3, 4, None),
        (4, 5, "b"),
        (5, 6, "c"),
        (6, 7, "a"),
    ]
    reasons = [r.reason for r in res.rejected]
    assert reasons[0] == reasons[1] == "missing id (field 'id' is absent or empty)"
    assert reasons[2] == reasons[3] == "missing title (field 'title' is absent or empty)"
    assert reasons[4] == "duplicate id 'a' (first at record 1, line 2), with another title"


def test_strict_mode_raises_on_the_first_reject(tmp_path: Path) -> None:
    path = write(tmp_path, "n.ts", REJECTS_TS)
    with pytest.raises(CorpusError) as err:
        load_corpus(path, strict=True)
    assert (err.value.line, err.value.record) == (3, 2)
    assert str(err.value) == f"{path}:3: record 2: missing id (field 'id' is absent or empty)"


def test_no_warning_without_rejects(tmp_path: Path) -> None:
    load_quiet(write(tmp_path, "n.ts", SAMPLE_TS))  # would raise on a CorpusWarning


# ---------------------------------------------------------------------------------------
# whole-file errors
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["n.ts", "n.jsonl", "n.csv", "n.parquet"])
@pytest.mark.parametrize("content", [b"", b"  \n\t\r\n"])
def test_empty_file_raises(tmp_path: Path, name: str, content: bytes) -> None:
    path = write(tmp_path, name, content)
    with pytest.raises(CorpusError, match="file is empty") as err:
        load_corpus(path)
    assert err.value.path == path


def test_undecodable_bytes_give_line_and_byte_offset(tmp_path: Path) -> None:
    good = b'{"id": "a", "title": "ok"}\n'
    bad = b'{"id": "b", "title": "caf' + b"\xe9" + b'"}\n'
    path = write(tmp_path, "n.jsonl", good + bad)
    offset = len(good) + len('{"id": "b", "title": "caf')
    with pytest.raises(CorpusError, match=f"byte 0xe9 at byte offset {offset} as utf-8") as err:
        load_corpus(path)
    assert err.value.line == 2
    # the same file is fine in the encoding it was written in
    assert load_quiet(path, encoding="latin-1").items["title"].tolist() == ["ok", "café"]


def test_undecodable_bytes_name_an_encoding_that_decodes_the_file(tmp_path: Path) -> None:
    korean = write(tmp_path, "k.csv", "id,title\n1,속보 뉴스\n".encode("cp949"))
    with pytest.raises(CorpusError, match=r"as utf-8; the whole file decodes as cp949: pass "
                                          r"--encoding cp949 if that is its encoding$"):
        load_corpus(korean)
    assert load_quiet(korean, encoding="cp949").items["title"].tolist() == ["속보 뉴스"]
    western = write(tmp_path, "w.csv", "id,title\n1,\"café, ça\"\n".encode("cp1252"))
    with pytest.raises(CorpusError, match=r"decodes as cp1252: pass --encoding cp1252"):
        load_corpus(western)
    with pytest.raises(CorpusError, match=r"as cp949; the whole file decodes as utf-8"):
        load_corpus(write(tmp_path, "u.csv", "id,title\n1,ẞ\n".encode()), encoding="cp949")
    with pytest.raises(CorpusError, match=r"; pass the encoding of the file with --encoding$"):
        load_corpus(write(tmp_path, "x.csv", b"id,title\n1,\xff\xfe\x81\n"))


def test_utf8_bom_is_dropped(tmp_path: Path) -> None:
    path = write(tmp_path, "n.csv", "\ufeffid,title\n1,T\n".encode())
    assert load_quiet(path).items["id"].tolist() == ["1"]


UNICODE_TEXT = "id\ttitle\tsummary\n1\t속보 \"뉴스\"\tcafé ẞ 😀\n2\t둘째 기사\t\n"


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-be"])
@pytest.mark.parametrize("name", ["n.tsv", "n.jsonl", "n.json"])
def test_a_utf16_or_utf32_file_is_read_by_its_byte_order_mark(tmp_path: Path, codec: str,
                                                               name: str) -> None:
    # Excel's "Unicode Text" is UTF-16 with a byte-order mark; the mark names the encoding.
    frame = pd.read_csv(io.StringIO(UNICODE_TEXT), sep="\t", dtype=str, keep_default_na=False)
    text = {"n.tsv": UNICODE_TEXT,
            "n.jsonl": frame.to_json(orient="records", lines=True, force_ascii=False),
            "n.json": frame.to_json(orient="records", force_ascii=False)}[name]
    bom = {"utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE,
           "utf-32-be": codecs.BOM_UTF32_BE}.get(codec, b"")
    plain = load_quiet(write(tmp_path, "plain-" + name, text.encode()))
    marked = load_quiet(write(tmp_path, name, bom + text.encode(codec)))
    pd.testing.assert_frame_equal(marked.items, plain.items)
    assert marked.items["summary"].tolist() == ["café ẞ 😀", ""]


def test_a_damaged_utf16_file_names_its_line_and_its_byte_order_mark(tmp_path: Path) -> None:
    text = "".join(f"{k}\t기사 {k}\n" for k in range(1, 40))
    data = ("id\ttitle\n" + text).encode("utf-16")
    cut = 301  # an odd number of bytes: the last character is cut in half
    # The line of the cut character, counted in the text itself (two bytes a character).
    line = ("id\ttitle\n" + text)[: (cut - 2) // 2].count("\n") + 1
    with pytest.raises(CorpusError, match=rf"c\.tsv:{line}: cannot decode byte 0x[0-9a-f]{{2}} at "
                                          rf"byte offset 300 as utf-16; its byte-order mark "
                                          rf"says utf-16: the file is damaged or cut short$"):
        load_corpus(write(tmp_path, "c.tsv", data[:cut]))
    surrogate = data[:100] + b"\x00\xdc" + data[102:]  # a low surrogate alone (little-endian)
    with pytest.raises(CorpusError, match=r"s\.tsv:\d+: cannot decode bytes 0x00 dc at byte "
                                          r"offset 100 as utf-16"):
        load_corpus(write(tmp_path, "s.tsv", surrogate))


def test_an_encoding_the_user_names_is_kept_over_a_byte_order_mark(tmp_path: Path) -> None:
    path = write(tmp_path, "k.tsv", "id\ttitle\n1\t뉴스\n".encode("utf-16"))
    with pytest.raises(CorpusError, match=r"at byte offset 0 as cp949; the file begins with a "
                                          r"utf-16 byte-order mark: pass --encoding utf-16 "):
        load_corpus(path, encoding="cp949")
    assert load_quiet(path, encoding="utf-16").items["title"].tolist() == ["뉴스"]


# ---------------------------------------------------------------------------------------
# JSONL
# ---------------------------------------------------------------------------------------


def test_jsonl_blank_lines_count_for_line_numbers(tmp_path: Path) -> None:
    text = '\n{"id": "a", "title": "A", "tags": {"k": [1]}}\n\n  \n{"id": "a", "title": "B"}\n'
    with pytest.warns(CorpusWarning):
        res = load_corpus(write(tmp_path, "n.jsonl", text))
    assert res.rejected == [Rejected(2, 5, "a", "duplicate id 'a' (first at record 1, line 2), "
                                                "with another title")]
    assert res.items.loc[0, "tags"] == {"k": [1]}


@pytest.mark.parametrize(
    ("line", "message"),
    [('{"id": "b", "title": }', "invalid JSON: Expecting value"), ("[1, 2]", "got list")],
)
def test_jsonl_bad_line_raises_with_line(tmp_path: Path, line: str, message: str) -> None:
    # After a first object the file is JSON Lines, and a bad line (a feed cut mid-write)
    # is one rejected record: reported and skipped, or with --strict the error.
    text = '{"id": "a", "title": "A"}\n\n' + line + '\n{"id": "c", "title": "C"}\n'
    path = write(tmp_path, "n.jsonl", text)
    with pytest.raises(CorpusError, match=re.escape(message)) as err:
        load_corpus(path, strict=True)
    assert (err.value.line, err.value.record) == (3, 2)
    with pytest.warns(CorpusWarning, match=re.escape(message)):
        res = load_corpus(path)
    assert res.items["id"].tolist() == ["a", "c"]
    assert [(r.line, r.record) for r in res.rejected] == [(3, 2)]
    assert message in res.rejected[0].reason
    # On the first line it is no JSON Lines file at all: the error, strict or not.
    with pytest.raises(CorpusError, match=re.escape(message)) as err:
        load_corpus(write(tmp_path, "m.jsonl", line + '\n{"id": "a", "title": "A"}\n'))
    assert (err.value.line, err.value.record) == (1, 1)


def test_jsonl_scalar_values_become_text_and_objects_are_rejected(tmp_path: Path) -> None:
    text = '{"id": 7, "title": "A", "url": null}\n{"id": "x", "title": {"ko": "제목"}}\n'
    with pytest.warns(CorpusWarning):
        res = load_corpus(write(tmp_path, "n.jsonl", text))
    assert res.items.loc[0, ["id", "url", "host"]].tolist() == ["7", "", ""]
    assert res.rejected[0].reason == ("field 'title' (title) is an object or array, not text; "
                                      "map a member with --columns title=title.ko")


unicode_text = st.text(min_size=1).filter(lambda s: not is_blank(s))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.fixed_dictionaries(
            {"title": unicode_text, "summary": st.text(), "note": st.text()},
        ),
        min_size=1,
        max_size=8,
    )
)
def test_jsonl_round_trips_exactly(records: list[dict[str, str]]) -> None:
    rows = [{"id": f"id-{i}", **r} for i, r in enumerate(records)]
    # ensure_ascii=False writes U+2028, U+0085 etc. raw: lines must split on "\n" only.
    text = "\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "n.jsonl"
        path.write_text(text, encoding="utf-8")
        res = load_corpus(path)
    assert res.rejected == []
    got = res.items[["id", "title", "summary", "note"]].to_dict("records")
    nfc = functools.partial(unicodedata.normalize, "NFC")
    assert got == [r | {"title": nfc(r["title"]), "summary": nfc(r["summary"])} for r in rows]


# ---------------------------------------------------------------------------------------
# CSV
# ---------------------------------------------------------------------------------------

UCI_HEADER = "ID,TITLE,URL,PUBLISHER,CATEGORY,STORY,HOSTNAME,TIMESTAMP\n"


def test_csv_column_mapping_keeps_extras(tmp_path: Path) -> None:
    text = (
        UCI_HEADER
        + '1,"Fed says ""weak"", data",http://www.LATimes.com/a,LA Times,b,s1,www.latimes.com,'
        + "1394470370698\n"
        + "2,Second,https://x.org/b,X,e,s2,x.org,1394470371207\n"
    )
    items = load_quiet(write(tmp_path, "u.csv", text), columns=UCI_COLUMNS).items
    assert list(items.columns) == [*CANONICAL, "CATEGORY", "STORY", "HOSTNAME"]
    assert items.loc[0, "title"] == 'Fed says "weak", data'
    assert items["host"].tolist() == ["www.latimes.com", "x.org"]  # derived from URL
    assert items["published_at"].tolist() == ["2014-03-10T16:52:50.698000+00:00",
                                              "2014-03-10T16:52:51.207000+00:00"]
    assert items["summary"].tolist() == ["", ""]


def test_csv_host_column_is_used_when_present(tmp_path: Path) -> None:
    text = "id,title,url,host\n1,T,https://a.com/x,mirror.example\n"
    assert load_quiet(write(tmp_path, "n.csv", text)).items.loc[0, "host"] == "mirror.example"


def test_csv_mapped_column_missing_from_header(tmp_path: Path) -> None:
    path = write(tmp_path, "n.csv", "id,title\n1,T\n")
    with pytest.raises(CorpusError, match=r"column 'URL' \(for 'url'\) not in the header"):
        load_corpus(path, columns={"url": "URL"})
    with pytest.raises(CorpusError, match=r"column 'id' \(for 'id'\) not in the header"):
        load_corpus(write(tmp_path, "m.csv", "ID,title\n1,T\n"))


def test_records_without_an_id_field_are_numbered_and_the_load_says_so(tmp_path: Path) -> None:
    text = 'title,published_at\nFed raises rates,2024-05-01\n"Fed, again",2024-05-02\nx,y,z\n'
    with pytest.warns(CorpusWarning) as said:
        corpus = load_corpus(write(tmp_path, "h.csv", text))
    assert corpus.numbered
    # The record number as the rejects and sheets count records (the header is no record).
    assert corpus.items["id"].tolist() == ["1", "2"]
    assert corpus.items["title"].tolist() == ["Fed raises rates", "Fed, again"]
    assert [(r.record, r.id) for r in corpus.rejected] == [(3, "3")]
    messages = [str(w.message) for w in said]
    assert any("each item's id is its record number" in m for m in messages)
    # JSON Lines whose objects carry no id: numbered the same way (blank lines are no records).
    with pytest.warns(CorpusWarning, match="record number"):
        jl = load_corpus(write(tmp_path, "h.jsonl", '{"title": "a"}\n\n{"title": "b"}\n'))
    assert jl.numbered and jl.items["id"].tolist() == ["1", "2"]
    # A file with ids is read as before, and says nothing.
    assert not load_quiet(write(tmp_path, "i.csv", "id,title\nq,T\n")).numbered


def test_an_id_named_as_a_member_of_an_object_is_read_not_numbered_over(tmp_path: Path) -> None:
    # --columns id=item.guid names no header field: the ids are still the records' own.
    text = ('[{"item": {"guid": "a1", "headline": "Fed raises rates"}},'
            ' {"item": {"guid": "b2", "headline": "Stocks fall"}}]')
    corpus = load_quiet(write(tmp_path, "nested.json", text),
                        columns={"id": "item.guid", "title": "item.headline"})
    assert not corpus.numbered
    assert corpus.items["id"].tolist() == ["a1", "b2"]
    assert corpus.items["title"].tolist() == ["Fed raises rates", "Stocks fall"]


def test_records_missing_an_id_beside_others_that_have_one_are_still_rejected(
        tmp_path: Path) -> None:
    # Some records name their ids: the others are faulty, not a list without ids.
    path = write(tmp_path, "m.jsonl", '{"id": "a", "title": "T"}\n{"title": "U"}\n')
    with pytest.warns(CorpusWarning, match="rejected 1 of 2"):
        corpus = load_corpus(path)
    assert not corpus.numbered and corpus.items["id"].tolist() == ["a"]
    # A column spelling the id's name in another case holds the ids: asked to map, not
    # numbered over.
    with pytest.raises(CorpusError, match="--columns id=ID"):
        load_corpus(write(tmp_path, "u.csv", "ID,title\n1,T\n"))


def test_a_txt_file_is_one_headline_per_line(tmp_path: Path) -> None:
    text = ("삼성전자 3분기 실적 발표\r\n\n  \n"  # CRLF, blank and blank-looking lines
            "삼성전자, 3분기 실적 발표했다\nU+2028 stays\u2028inside\n")
    with pytest.warns(CorpusWarning, match="record number"):
        corpus = load_corpus(write(tmp_path, "headlines.txt", text))
    assert corpus.fmt == "lines" and corpus.numbered
    assert corpus.items["id"].tolist() == ["1", "2", "3"]
    assert corpus.items["title"].tolist() == ["삼성전자 3분기 실적 발표",
                                              "삼성전자, 3분기 실적 발표했다",
                                              "U+2028 stays\u2028inside"]
    assert set(corpus.items["summary"]) == {""}
    # --format lines reads any file so; a tab on the first line names the option for a table.
    with pytest.warns(CorpusWarning, match="record number"):
        listed = load_corpus(write(tmp_path, "h.list", "a\nb\n"), "lines")
    assert listed.items["id"].tolist() == ["1", "2"]
    # A classic Mac file ends its lines in a carriage return alone: still one per line.
    with pytest.warns(CorpusWarning, match="record number"):
        mac = load_corpus(write(tmp_path, "mac.txt", "a\rb\r\rc\r"))
    assert mac.items["title"].tolist() == ["a", "b", "c"]
    assert [r.line for r in read_lines(Path("mac.txt"), "a\rb\r\rc\r")] == [1, 2, 4]
    with pytest.raises(CorpusError, match=r"t\.txt:2: record 1: the first headline holds a "
                                          r"tab: .*--format csv --delimiter tab"):
        load_corpus(write(tmp_path, "t.txt", "\nid\ttitle\n1\tT\n"))


def test_a_folder_of_lists_numbers_each_file_by_its_name(tmp_path: Path) -> None:
    folder = tmp_path / "days"
    folder.mkdir()
    write(folder, "2024-05-01.txt", "a\nb\n")
    write(folder, "2024-05-02.txt", "c\n")
    with pytest.warns(CorpusWarning, match=r"after its file's name"):
        corpus = load_corpus(folder)
    assert corpus.items["id"].tolist() == ["2024-05-01.txt:1", "2024-05-01.txt:2",
                                           "2024-05-02.txt:1"]


def test_fields_named_as_a_column_commonly_is_are_suggested_never_read(tmp_path: Path) -> None:
    text = "id,headline,pub_date,Publisher,HOSTNAME\n1,T,2024-05-01,AP,apnews.com\n"
    corpus = load_quiet(write(tmp_path, "n.csv", text), columns={"title": "headline"})
    assert corpus.look_alikes == (("host", "HOSTNAME"), ("source", "Publisher"),
                                  ("published_at", "pub_date"))
    # Suggested only: the canonical columns stay empty until --columns names the fields.
    row = corpus.items.loc[0]
    assert (row["published_at"], row["source"], row["host"]) == ("", "", "")
    assert row["pub_date"] == "2024-05-01"
    # A URL gives the host; two fields that look like one column suggest neither; a field
    # already mapped is no suggestion for another column.
    text = "id,title,url,date,pubDate,source\n1,T,https://a.org/x,2024-05-01,2024-05-01,AP\n"
    assert load_quiet(write(tmp_path, "m.csv", text)).look_alikes == ()
    mapped = load_quiet(write(tmp_path, "k.csv", "id,title,date\n1,T,2024-05-01\n"),
                        columns={"published_at": "date"})
    assert mapped.look_alikes == () and mapped.items.loc[0, "published_at"] == "2024-05-01"


def test_a_header_of_one_field_holding_a_separator_names_the_delimiter(tmp_path: Path) -> None:
    semi = write(tmp_path, "s.csv", "id;title\n1;T\n")
    with pytest.raises(CorpusError, match=r"holding ';': if that separates the fields, pass "
                                          r"--delimiter ';'$"):
        load_corpus(semi)
    assert load_quiet(semi, sep=";").items["title"].tolist() == ["T"]
    with pytest.raises(CorpusError, match=r"holding a tab: .* pass --delimiter tab$"):
        load_corpus(write(tmp_path, "t.csv", "id\ttitle\n1\tT\n"))


def test_missing_columns_say_which_option_maps_them(tmp_path: Path) -> None:
    # The header differs only in case: the error names the --columns that loads it, and
    # that option does load it.
    path = write(tmp_path, "u.csv", "ID,TITLE,Url\n1,T,https://a.com/x\n")
    with pytest.raises(CorpusError, match=r"; map them with --columns id=ID,title=TITLE$"):
        load_corpus(path)
    loaded = load_quiet(path, columns={"id": "ID", "title": "TITLE"}).items
    assert loaded.loc[0, "title"] == "T"
    # No field matches, or two do: the option is named with a placeholder (without an id
    # field only the title is asked for: the records would be numbered).
    with pytest.raises(CorpusError, match=r"e\.g\. --columns title=<field>$"):
        load_corpus(write(tmp_path, "v.csv", "key,name\n1,T\n"))
    # A field named as titles commonly are is named in the option.
    with pytest.raises(CorpusError, match=r"map them with --columns title=Headline$"):
        load_corpus(write(tmp_path, "v.csv", "key,Headline\n1,T\n"))
    with pytest.raises(CorpusError, match=r"e\.g\. --columns id=ID,title=<field>$"):
        load_corpus(write(tmp_path, "v.csv", "ID,Title,TITLE\n1,T,U\n"))
    jsonl = write(tmp_path, "w.jsonl", '{"ID": "1", "Title": "T"}\n')
    with pytest.raises(CorpusError, match=r"map them with --columns id=ID,title=Title"):
        load_corpus(jsonl)


def test_tsv_and_custom_separator(tmp_path: Path) -> None:
    tsv = write(tmp_path, "n.tsv", 'id\ttitle\n1\tA, with "comma"\n')
    assert load_quiet(tsv).items.loc[0, "title"] == 'A, with "comma"'
    semi = write(tmp_path, "n.csv", "id;title\n1;B\n")
    assert load_quiet(semi, sep=";").items.loc[0, "title"] == "B"


def test_csv_wrong_field_count_and_multiline_start_lines(tmp_path: Path) -> None:
    text = 'id,title,url\n1,"two\nline title",u\n2,short\n\n3,C,u,extra\n4,D,u\n'
    with pytest.warns(CorpusWarning):
        res = load_corpus(write(tmp_path, "n.csv", text))
    assert res.items["title"].tolist() == ["two\nline title", "D"]
    assert res.rejected == [
        Rejected(2, 4, "2", "expected 3 fields, got 2"),
        Rejected(3, 6, "3", "expected 3 fields, got 4"),
    ]


def test_csv_truncated_last_row(tmp_path: Path) -> None:
    # Cut inside the last field: the field count is right, so nothing can tell.
    text = "id,title,url\n1,A,http://a.com/1\n2,B,http://a.c"
    assert load_quiet(write(tmp_path, "n.csv", text)).items["url"].tolist()[-1] == "http://a.c"
    # Cut before the last field (the UCI case): reported, with a hint.
    text = "id,title,url,host\n1,A,http://a.com/1,a.com\n2,B,http://a.c"
    with pytest.warns(CorpusWarning, match="record 2 \\(line 3\\): expected 4 fields, got 3"):
        res = load_corpus(write(tmp_path, "m.csv", text))
    assert res.rejected[0].reason.endswith("file ends without a newline: truncated?)")


def test_csv_unterminated_quote_is_rejected_at_its_start_line(tmp_path: Path) -> None:
    text = 'id,title,url\n1,A,u\n2,"B is cut\nmid,way\n'
    path = write(tmp_path, "n.csv", text)
    with pytest.warns(CorpusWarning):
        res = load_corpus(path)
    assert res.items["id"].tolist() == ["1"]
    # The line the runaway quote swallowed is read again, and listed on its own.
    assert [(r.record, r.line, r.id) for r in res.rejected] == [(2, 3, "2"), (3, 4, "mid")]
    assert res.rejected[0].reason.startswith("unterminated quoted field")
    with pytest.raises(CorpusError, match="unterminated quoted field") as err:
        load_corpus(path, strict=True)
    assert err.value.line == 3


def test_csv_unterminated_quote_beyond_field_limit(tmp_path: Path) -> None:
    # csv raises "field larger than field limit" before reaching the end; still a reject.
    text = 'id,title\n1,A\n2,"' + "x" * 200_000 + "\n"
    with pytest.warns(CorpusWarning):
        res = load_corpus(write(tmp_path, "n.csv", text))
    assert res.items["id"].tolist() == ["1"]
    assert (res.rejected[0].line, res.rejected[0].reason[:26]) == (3, "unterminated quoted field:")


def test_csv_duplicate_header_names(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="duplicate column names in header: \\['id'\\]"):
        load_corpus(write(tmp_path, "n.csv", "id,title,id\n1,T,2\n"))


def test_csv_unnamed_columns_at_the_end_of_the_header_are_no_fields(tmp_path: Path) -> None:
    # A spreadsheet saved as CSV: "id,title,published_at,," and rows ending in ",,".
    text = ("id,title,published_at,,\r\n1,Fed raises rates,2024-05-01,,\r\n"
            "2,Stocks fall,2024-05-02\r\n3,Oil rises,2024-05-03,,note\r\n"
            "4,Gold flat,2024-05-04,\r\n")
    with pytest.warns(CorpusWarning, match="rejected 1 of 4"):
        res = load_corpus(write(tmp_path, "sheet.csv", text))
    assert res.items["id"].tolist() == ["1", "2", "4"]
    assert "" not in res.items.columns  # no field named ""
    # A value under an unnamed column is not dropped in silence: its record is rejected.
    assert [(r.line, r.reason) for r in res.rejected] == [(4, "expected 3 fields, got 5")]
    with pytest.raises(CorpusError, match=r"n\.csv:1: the header row names no column"):
        load_corpus(write(tmp_path, "n.csv", ",,\n1,T,\n"))


# ---------------------------------------------------------------------------------------
# Parquet
# ---------------------------------------------------------------------------------------


def test_parquet_records_are_row_numbers(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {
            "id": [10, 11, 10],
            "title": ["A", "B", "C"],
            "url": ["https://a.com/x", None, "https://c.com"],
            "score": [0.5, 1.5, 2.5],
        }
    )
    path = tmp_path / "n.parquet"
    frame.to_parquet(path)
    with pytest.warns(CorpusWarning):
        res = load_corpus(path)
    assert res.items["id"].tolist() == ["10", "11"]
    assert res.items["url"].tolist() == ["https://a.com/x", ""]
    assert res.items["host"].tolist() == ["a.com", ""]
    assert res.items["score"].tolist() == [0.5, 1.5]
    assert res.rejected == [Rejected(3, None, "10", "duplicate id '10' (first at record 1), "
                                                    "with another title")]
    with pytest.raises(CorpusError) as err:
        load_corpus(path, strict=True)
    assert str(err.value) == (f"{path}: record 3: duplicate id '10' (first at record 1), with "
                              "another title")


def test_parquet_garbage_raises(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="not a readable Parquet file"):
        load_corpus(write(tmp_path, "n.parquet", b"PAR1 not really"))


# ---------------------------------------------------------------------------------------
# real corpora (fail, not skip, when the shared files are missing)
# ---------------------------------------------------------------------------------------




def paldyn_path() -> Path:
    try:
        return locate_pinned()
    except FileNotFoundError as exc:
        pytest.fail(f"pinned paldyn corpus missing: {exc}", pytrace=False)


# Loaded once per session; a helper rather than a fixture so that a missing file makes the
# tests FAIL (a failing fixture would only be reported as an error).
@functools.cache
def paldyn(dialect: str) -> LoadResult:
    return load_quiet(paldyn_path(), dialect=dialect)


def test_paldyn_seed_dialect_reproduces_published_figures() -> None:
    paldyn_seed = paldyn("seed")
    assert paldyn_seed.summary_line() == (
        "387 items (0 rejected) / mean title 33.7 chars / mean summary 112.5 chars"
    )
    assert paldyn_seed.n_records == 387
    assert paldyn_seed.sha256 == PALDYN.sha256 == sha256_file(paldyn_seed.path)


def test_paldyn_standard_differs_only_in_two_double_quoted_titles() -> None:
    seed, standard = paldyn("seed"), paldyn("standard")
    assert len(standard.items) == 387 and standard.rejected == []
    seed, std = seed.items, standard.items
    assert list(std.columns) == list(seed.columns)
    differs = {c: seed[c].map(repr) != std[c].map(repr) for c in seed.columns}
    assert {c for c, d in differs.items() if d.any()} == {"title"}
    changed = std.loc[differs["title"], ["id", "title"]]
    assert changed["id"].tolist() == ["tech-and-tariffs", "data-center-bandwagon"]
    assert seed.loc[changed.index, "title"].tolist() == [
        "Tech and Tariffs",
        "Data Center Bandwagon",
    ]
    lines = paldyn_path().read_text(encoding="utf-8").split("\n")
    for title, lineno in zip(changed["title"], (1830, 1886), strict=True):
        assert lines[lineno - 1] == f'    title: "{title}",'


def test_paldyn_items() -> None:
    items = paldyn("standard").items
    assert items["id"].is_unique
    assert Counter(items["host"]) == {
        "openai.com": 181,
        "blog.google": 95,
        "www.anthropic.com": 68,
        "deepmind.google": 43,
    }
    assert list(items.columns) == [*CANONICAL, "kind", "category", "signal", "model"]
    assert (items["published_at"].str.match(r"^\d{4}-\d{2}-\d{2}$")).all()
    models = items["model"].dropna()
    assert len(models) > 0 and all(isinstance(m, dict) and "family" in m for m in models)
    assert items.loc[0, "id"] == "ten-advances-in-mathematics"  # file order


def test_uci_head_truncated_last_row() -> None:
    path = shared_corpus_file("uci-news-aggregator-head", "uci-news-aggregator.head.csv")
    with pytest.warns(CorpusWarning, match="rejected 1 of 6367 records"):
        res = load_corpus(path, columns=UCI_COLUMNS)
    assert len(res.items) == 6366 and res.n_records == 6367
    [rej] = res.rejected
    assert (rej.record, rej.line, rej.id) == (6367, 6368, "6367")
    assert rej.reason.startswith("expected 8 fields, got 3")
    items = res.items
    assert items["id"].tolist() == [str(i) for i in range(1, 6367)]
    assert (items["host"] == items["HOSTNAME"]).all()  # URL-derived host agrees with the file
    assert items["STORY"].nunique() == 87
    with pytest.raises(CorpusError, match="expected 8 fields, got 3") as err:
        load_corpus(path, columns=UCI_COLUMNS, strict=True)
    assert (err.value.line, err.value.record) == (6368, 6367)


def test_a_repeated_item_is_told_apart_from_another_item_under_its_id(tmp_path: Path) -> None:
    # A crawler's log of one feed polled twice repeats an item whole; a feed that reuses
    # an id for another story is a fault. Both are rejected and listed, and say which.
    rows = [{"id": "a", "title": "A", "url": "https://n.kr/a", "published_at": "2024-05-01"},
            {"id": "b", "title": "B", "url": "https://n.kr/b", "published_at": "2024-05-01"},
            {"id": "a", "title": "A", "url": "https://n.kr/a", "published_at": "2024-05-01"},
            {"id": "b", "title": "B", "url": "https://n.kr/b", "published_at": "2024-05-02"}]
    text = "".join(json.dumps(r) + "\n" for r in rows)
    with pytest.warns(CorpusWarning):
        res = load_corpus(write(tmp_path, "n.jsonl", text))
    assert [r.reason for r in res.rejected] == [
        "duplicate id 'a' (first at record 1, line 1), the same item again",
        "duplicate id 'b' (first at record 2, line 2), with another date"]

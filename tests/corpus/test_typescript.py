"""Tests for newsdedup.corpus.typescript on its own (the load_corpus paths are in test_load)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.corpus.records import CorpusError, RawRecord
from newsdedup.corpus.typescript import read_ts, seed_text


def test_read_ts_returns_raw_records_with_opening_brace_lines() -> None:
    text = "const entries = [\n  { id: 'a', n: 1 },\n\n  {\n    id: \"b\" },\n];\n"
    raws = read_ts(Path("n.ts"), text, "entries", "standard")
    assert raws == [
        RawRecord(1, 2, {"id": "a", "n": 1}, None),
        RawRecord(2, 4, {"id": "b"}, None),
    ]
    # The seed dialect keeps only single-quoted segments of string values.
    seed = read_ts(Path("n.ts"), text, "entries", "seed")
    assert [r.fields["id"] for r in seed] == ["a", ""]


def test_read_ts_names_a_non_object_element() -> None:
    with pytest.raises(CorpusError, match="element of `entries` is not an object literal"):
        read_ts(Path("n.ts"), "const entries = [\n 1,\n];", "entries", "standard")


_SEED_ORACLE = re.compile(r"'((?:[^'\\]|\\.)*)'")


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="'\\\n\"ab ", max_size=30))
def test_seed_text_matches_the_regex_semantics(source: str) -> None:
    expected = "".join(_SEED_ORACLE.findall(source)).replace("\\'", "'")
    assert seed_text(source) == expected

"""Spreadsheet-safe text cells: escaped on writing, read back as written."""

from __future__ import annotations

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from newsdedup.corpus.cells import ESCAPE, FORMULA_STARTS, escape_cell, unescape_cell
from newsdedup.evaluate.gold import read_gold
from newsdedup.runs.files import write_csv


@given(st.text())
def test_escaped_text_never_starts_a_formula_and_reads_back(text):
    escaped = escape_cell(text)
    assert not str(escaped).startswith(FORMULA_STARTS)
    if not (text.startswith(ESCAPE) and text[1:].startswith(FORMULA_STARTS)):
        assert unescape_cell(str(escaped)) == text


@given(st.one_of(st.integers(), st.floats(allow_nan=False)))
def test_numbers_are_never_escaped(value):
    assert escape_cell(value) is value


def test_a_sheet_with_formula_like_ids_round_trips_through_the_gold_reader(tmp_path):
    sheet = pd.DataFrame({"id_i": ["-17", "=x"], "id_j": ["@home", "plain"],
                          "label": ["same", "different"], "reason": ["", ""]})
    path = write_csv(sheet, tmp_path / "gold.csv")
    assert "'-17" in path.read_text(encoding="utf-8")
    gold = read_gold(path, ids=["-17", "=x", "@home", "plain"])
    assert gold.labeled[["id_i", "id_j"]].values.tolist() == [["-17", "@home"], ["=x", "plain"]]

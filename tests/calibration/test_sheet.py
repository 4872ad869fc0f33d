"""The labeling sheet (newsdedup.calibration.sheet)."""

import csv

import numpy as np
import pandas as pd
import pytest

from newsdedup.calibration.population import build_population
from newsdedup.calibration.sheet import (
    LABELS,
    ORDER,
    OTHER_DRAW,
    TEXT_COLUMNS,
    Sheet,
    SheetError,
    empty_sheet,
    new_rows,
    read_sheet,
    sheet_sample,
    with_design,
    without_text,
)
from newsdedup.runs.files import write_csv
from newsdedup.score.jaccard import PairScores

HEADER = "id_i,id_j,label,stratum,stratum_size\n"


def items():
    return pd.DataFrame({
        "id": ["a1", "b2", "-7", "d4", "e5"],
        "title": ["=SUM(A1:A2) 상승", "코스피, 마감", 'say "hi"', "plain", "@home"],
        "summary": ["line one\nline two", "", "요약", "x, y", "+1 point"],
        "source": ["s1", "s2", "s1", "s1", "s2"],
        "published_at": ["2024-01-01T00:00:00Z", "2024-01-01T05:00:00Z",
                         "2024-01-03T00:00:00Z", "", "2024-01-01T01:00:00Z"]})


def seconds(frame):
    return np.array([pd.Timestamp(p).timestamp() if p else np.nan
                     for p in frame["published_at"]], dtype=np.float64)


def population(frame=None):
    frame = items() if frame is None else frame
    ps = PairScores(np.array([0, 0, 0, 1, 2, 3]), np.array([1, 2, 4, 4, 3, 4]),
                    np.array([0.8, 0.35, 0.9, 0.15, 0.31, 0.6]))
    return build_population(ps, frame["source"], seconds(frame), frame["id"], 0.1)


def write(tmp_path, text, name="sheet.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- read_sheet errors -----------------------------------------------------------------

def test_missing_column_names_file_line_one_and_the_column(tmp_path):
    path = write(tmp_path, "id_i,id_j,label,stratum\na,b,same,0\n")
    with pytest.raises(SheetError) as err:
        read_sheet(path)
    assert err.value.line == 1 and err.value.path == path
    assert str(err.value).startswith(f"{path}:1: missing column(s) ['stratum_size']")


@pytest.mark.parametrize(("body", "line", "words"), [
    ("a,b,same,0,9\nc,d,maybe,0,9\n", 3, "label 'maybe' is not one of"),
    ("a,a,same,0,9\n", 2, "id_i and id_j must be two different ids"),
    ("a,,same,0,9\n", 2, "id_i and id_j must be two different ids"),
    ("a,b,same,0,9\nc,d,,1,4\nb,a,different,0,9\n", 4, "pair (b, a) already on line 2"),
    ("a,b,same,zero,9\n", 2, "stratum 'zero' and stratum_size '9' must be whole numbers"),
    ("a,b,same,0,9.5\n", 2, "must be whole numbers"),
    ("a,b,same,0,\n", 2, "must be whole numbers"),
])
def test_bad_rows_name_file_and_line(tmp_path, body, line, words):
    path = write(tmp_path, HEADER + body)
    with pytest.raises(SheetError) as err:
        read_sheet(path)
    assert err.value.line == line
    assert str(err.value).startswith(f"{path}:{line}: ")
    assert words in err.value.reason


def test_line_numbers_count_lines_inside_quoted_fields(tmp_path):
    body = ("id_i,id_j,label,summary_i,stratum,stratum_size\n"
            'a,b,same,"two\nlines",0,9\n'
            "c,d,nope,,0,9\n")
    with pytest.raises(SheetError) as err:
        read_sheet(write(tmp_path, body))
    assert err.value.line == 4


def test_labels_are_read_case_blind_and_trimmed(tmp_path):
    path = write(tmp_path, HEADER + "a,b, Same ,0,9\nc,d,FOLLOWUP,1,4\ne,f,,1,4\n")
    sheet = read_sheet(path)
    assert sheet.rows["label"].tolist() == ["same", "followup", ""]
    assert sheet.rows["line"].tolist() == [2, 3, 4]
    assert sheet.rows["stratum"].tolist() == [0, 1, 1]
    assert sheet.rows["stratum_size"].tolist() == [9, 4, 4]
    assert sheet.rows["batch"].tolist() == [0, 0, 0]  # no batch column: 0
    assert sheet.labelled == 2
    assert set(LABELS) == {"same", "different", "skip", "followup", "related"}


# --- sheet_sample ------------------------------------------------------------------------

def sheet_for(tmp_path, rows):
    """A sheet of (id_i, id_j, label) rows with the population's own strata."""
    pop = population()
    index = {x: k for k, x in enumerate(pop.ids)}
    lines = [HEADER.strip()]
    for a, b, label in rows:
        pos = pop.find(np.array([index[a]]), np.array([index[b]]))[0]
        stratum = int(pop.stratum[pos])
        lines.append(f"{a},{b},{label},{stratum},{int(pop.strata['size'][stratum])}")
    return read_sheet(write(tmp_path, "\n".join(lines) + "\n")), pop


def test_sheet_sample_positions_and_labels(tmp_path):
    sheet, pop = sheet_for(tmp_path, [("b2", "a1", "same"), ("a1", "-7", "skip"),
                                      ("a1", "e5", ""), ("-7", "d4", "different"),
                                      ("d4", "e5", "followup"), ("b2", "e5", "related")])
    drawn, sample = sheet_sample(sheet, pop)
    # Population pairs sorted by rows: (0,1) (0,2) (0,4) (1,4) (2,3) (3,4).
    assert drawn.tolist() == [0, 1, 2, 4, 5, 3]
    # Skipped and empty rows were drawn but are not labelled.
    assert sample.position.tolist() == [0, 4, 5, 3]
    assert sample.same.tolist() == [True, False, False, False]


def test_sheet_sample_refuses_an_id_outside_the_corpus_naming_it(tmp_path):
    pop = population()
    index = {x: k for k, x in enumerate(pop.ids)}
    pos = pop.find(np.array([index["a1"]]), np.array([index["b2"]]))[0]
    good = f"a1,b2,same,{pop.stratum[pos]},{pop.strata['size'][pop.stratum[pos]]}\n"
    path = write(tmp_path, HEADER + good + "a1,zz,same,0,1\n")
    with pytest.raises(SheetError) as err:
        sheet_sample(read_sheet(path), pop)
    assert err.value.line == 3
    assert str(err.value) == f"{path}:3: id(s) ['zz'] not in the corpus: {OTHER_DRAW}"


def test_sheet_sample_refuses_a_pair_outside_the_population(tmp_path):
    path = write(tmp_path, HEADER + "b2,d4,same,0,1\n")  # both ids known, no such pair
    with pytest.raises(SheetError) as err:
        sheet_sample(read_sheet(path), population())
    assert err.value.line == 2 and "not among the candidate pairs" in err.value.reason


def test_sheet_sample_refuses_another_stratum_or_size(tmp_path):
    pop = population()
    index = {x: k for k, x in enumerate(pop.ids)}
    pos = pop.find(np.array([index["a1"]]), np.array([index["b2"]]))[0]
    own, size = int(pop.stratum[pos]), int(pop.strata["size"][pop.stratum[pos]])
    for stratum, n in ((own + 1, size), (own, size + 1)):
        path = write(tmp_path, HEADER + f"a1,b2,same,{stratum},{n}\n")
        with pytest.raises(SheetError) as err:
            sheet_sample(read_sheet(path), pop)
        assert err.value.line == 2
        assert (f"is in stratum {own} of {size} pairs here, not stratum {stratum} of {n}"
                in err.value.reason)


# --- new_rows, with_design, without_text --------------------------------------------------

def test_new_rows_put_both_items_side_by_side():
    frame = items()
    pop = population(frame)
    rows = new_rows(pop, np.array([2, 4]), 3, frame)  # pairs (0, 4) and (2, 3)
    assert rows["batch"].tolist() == [3, 3]
    assert rows[["id_i", "id_j"]].values.tolist() == [["a1", "e5"], ["-7", "d4"]]
    assert rows["label"].tolist() == ["", ""] and rows["reason"].tolist() == ["", ""]
    assert rows["title_i"].tolist() == [frame["title"][0], frame["title"][2]]
    assert rows["title_j"].tolist() == [frame["title"][4], frame["title"][3]]
    assert rows["source_j"].tolist() == ["s2", "s1"]
    assert rows["published_i"].tolist() == ["2024-01-01T00:00:00Z", "2024-01-03T00:00:00Z"]
    assert rows["summary_i"].tolist() == ["line one\nline two", "요약"]
    assert rows["stratum"].tolist() == pop.stratum[[2, 4]].tolist()
    assert rows["stratum_size"].tolist() == pop.strata["size"].to_numpy()[
        pop.stratum[[2, 4]]].tolist()


def test_new_rows_leave_absent_item_columns_empty():
    frame = items().drop(columns=["summary", "source"])
    rows = new_rows(population(items()), np.array([0]), 1, frame)
    assert rows[["summary_i", "summary_j", "source_i", "source_j"]].values.tolist() == [
        ["", "", "", ""]]


def test_with_design_numbers_orders_and_weighs_the_rows():
    frame = items()
    pop = population(frame)
    drawn = np.array([0, 2, 5])
    rows = new_rows(pop, drawn, 1, frame)
    rows["line"] = [7, 8, 9]
    out = with_design(rows, pop, drawn)
    assert list(out.columns) == list(ORDER)
    assert out["pair"].tolist() == [1, 2, 3]
    sizes = pop.strata["size"].to_numpy()
    per = np.bincount(pop.stratum[drawn], minlength=len(sizes))
    assert out["inclusion"].tolist() == pytest.approx(
        [per[pop.stratum[p]] / sizes[pop.stratum[p]] for p in drawn], abs=1e-15)
    # Excluded pairs leave the stratum sizes.
    held = with_design(rows, pop, drawn, excluded=np.array([1, 3, 4]))
    out_sizes = sizes - np.bincount(pop.stratum[[1, 3, 4]], minlength=len(sizes))
    assert held["inclusion"].tolist() == pytest.approx(
        [per[pop.stratum[p]] / out_sizes[pop.stratum[p]] for p in drawn], abs=1e-15)


def test_without_text_drops_exactly_the_text_columns():
    frame = items()
    pop = population(frame)
    rows = with_design(new_rows(pop, np.array([0, 1]), 1, frame), pop, np.array([0, 1]))
    kept = without_text(rows)
    assert list(kept.columns) == [c for c in ORDER if c not in TEXT_COLUMNS]
    assert kept["id_i"].tolist() == rows["id_i"].tolist()
    assert len(TEXT_COLUMNS) == 8 and all(c.endswith(("_i", "_j")) for c in TEXT_COLUMNS)


def test_empty_sheet_has_every_column():
    assert list(empty_sheet().columns) == [*ORDER, "line"] and empty_sheet().empty


# --- round trip ------------------------------------------------------------------------------

def test_sheet_round_trips_through_the_csv_writer(tmp_path):
    frame = items()
    pop = population(frame)
    drawn = np.arange(len(pop))
    rows = new_rows(pop, drawn, 2, frame)
    rows["label"] = ["same", "different", "", "skip", "related", "same"]
    rows["reason"] = ["", "=two companies", "", "-", "a, b", "줄\n바꿈"]
    out = with_design(rows, pop, drawn)
    path = tmp_path / "round.csv"
    write_csv(out, path)
    # The writer escapes formula-like cells (a spreadsheet would run them)...
    with open(path, encoding="utf-8", newline="") as fh:
        raw = list(csv.DictReader(fh))
    assert raw[0]["title_i"] == "'=SUM(A1:A2) 상승" and raw[1]["id_j"] == "'-7"
    # ... and the reader takes the escape off again.
    sheet = read_sheet(path)
    assert isinstance(sheet, Sheet) and sheet.path == path
    back = sheet.rows
    for column in ("id_i", "id_j", "label", "reason", *TEXT_COLUMNS):
        assert back[column].tolist() == [str(v) for v in out[column]], column
    assert back["stratum"].tolist() == out["stratum"].tolist()
    assert back["stratum_size"].tolist() == out["stratum_size"].tolist()
    assert back["batch"].tolist() == [2] * len(out)
    assert [float(x) for x in back["inclusion"]] == pytest.approx(out["inclusion"].tolist(),
                                                                 abs=1e-6)
    assert back["line"].tolist()[0] == 2 and back["line"].is_monotonic_increasing
    assert sheet.labelled == 4
    got_drawn, sample = sheet_sample(sheet, pop)
    assert got_drawn.tolist() == drawn.tolist()
    assert sample.position.tolist() == [0, 1, 4, 5]
    assert sample.same.tolist() == [True, False, False, True]

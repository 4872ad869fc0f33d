"""Excel workbooks (``.xlsx``): read as their CSV twin, with the rows Excel shows."""

from __future__ import annotations

import datetime
import gzip
import io
import warnings
from pathlib import Path

import pytest
from openpyxl import Workbook
from openpyxl.styles import Font

from newsdedup.corpus.load import CANONICAL, CorpusError, CorpusWarning, load_corpus

# A BigKinds-like export: Korean headers, the date as text, as a number and as a date cell.
HEADER = ["뉴스 식별자", "일자", "언론사", "제목", "본문", "URL"]
ROWS = [
    ["01100101.20240501100000001", "20240501", "경향신문", "삼성전자 3분기 실적 발표", "본문 1",
     "https://www.khan.co.kr/a/1"],
    ["01100101.20240501100000002", datetime.datetime(2024, 5, 1, 9, 30), "한겨레",
     "삼성전자, 3분기 실적 발표했다", "본문 2", "https://www.hani.co.kr/a/2"],
    ["01100101.20240502100000003", 20240502, "한겨레", "오늘의 날씨", None, None],
]
COLUMNS = {"id": "뉴스 식별자", "title": "제목", "published_at": "일자", "source": "언론사",
           "summary": "본문", "url": "URL"}


def workbook(path: Path, rows: list[list], title: str = "기사", more: dict | None = None,
             above: int = 0) -> Path:
    """A workbook whose first sheet holds ``rows`` below ``above`` empty rows."""
    book = Workbook()
    sheet = book.active
    sheet.title = title
    for _ in range(above):
        sheet.append([])
    for row in rows:
        sheet.append(row)
    for name, extra in (more or {}).items():
        other = book.create_sheet(name)
        for row in extra:
            other.append(row)
    book.save(path)
    return path


def load_quiet(path: Path, **kwargs):
    """Load while asserting nothing is rejected (so no warning is expected)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", CorpusWarning)
        return load_corpus(path, **kwargs)


def test_a_workbook_loads_as_its_csv_twin_with_the_rows_excel_shows(tmp_path):
    # An empty row between records and an empty second sheet (Excel's default) change nothing.
    path = workbook(tmp_path / "bigkinds.xlsx", [HEADER, ROWS[0], ROWS[1], [None] * 6, ROWS[2]],
                    more={"Sheet2": []}, above=1)
    corpus = load_quiet(path, columns=COLUMNS)
    twin = tmp_path / "bigkinds.csv"
    text = [",".join(HEADER)] + [",".join(
        '"' + v + '"' if "," in v else v for v in
        ("" if c is None else c.isoformat() if isinstance(c, datetime.datetime) else str(c)
         for c in row)) for row in ROWS]
    twin.write_text("\n".join(text) + "\n", encoding="utf-8")
    expected = load_quiet(twin, columns=COLUMNS)
    assert corpus.fmt == "xlsx"
    assert corpus.items.equals(expected.items)
    assert corpus.items["published_at"].tolist() == ["20240501", "2024-05-01T09:30:00",
                                                     "20240502"]
    assert corpus.items["host"].tolist() == ["www.khan.co.kr", "www.hani.co.kr", ""]


def test_a_faulty_row_is_rejected_with_the_row_number_excel_shows(tmp_path):
    rows = [["id", "title"], ["a", "첫 기사"], ["b", "둘째 기사", "stray"], ["c", None]]
    with pytest.warns(CorpusWarning, match="rejected 1 of 3"):
        corpus = load_corpus(workbook(tmp_path / "w.xlsx", rows, above=2))
    assert [(r.record, r.line, r.id) for r in corpus.rejected] == [(3, 6, "c")]
    # A value under no header is kept, under its column's letter, as Excel names it.
    assert corpus.items["id"].tolist() == ["a", "b"]
    assert corpus.items["C"].tolist() == [None, "stray"]


def test_a_workbook_without_ids_is_numbered_and_a_compressed_one_is_read(tmp_path):
    path = workbook(tmp_path / "h.xlsx", [["title"], ["첫 기사"], ["둘째 기사"]])
    with pytest.warns(CorpusWarning, match="record number"):
        corpus = load_corpus(path)
    assert corpus.items["id"].tolist() == ["1", "2"]
    packed = tmp_path / "h.xlsx.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))
    with pytest.warns(CorpusWarning, match="record number"):
        assert load_corpus(packed).items.equals(corpus.items)


def test_what_a_workbook_cannot_be_read_as_says_so(tmp_path):
    two = workbook(tmp_path / "two.xlsx", [["id", "title"], ["a", "T"]],
                   more={"2024": [["id", "title"], ["b", "U"]]})
    with pytest.raises(CorpusError, match=r"two\.xlsx: 2 sheets hold data \(기사, 2024\); save "
                                          r"the one to read"):
        load_corpus(two)
    legacy = tmp_path / "old.xls"
    legacy.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 512)
    with pytest.raises(CorpusError, match=r"old\.xls: an Excel 97-2003 workbook \(\.xls\) is not "
                                          r"read: save it as \.xlsx or CSV"):
        load_corpus(legacy)
    text = tmp_path / "export.xls"
    text.write_text("id\ttitle\n1\tT\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"export\.xls: not an Excel workbook: .*--format csv"):
        load_corpus(text)
    broken = tmp_path / "broken.xlsx"
    buffer = io.BytesIO()
    Workbook().save(buffer)
    broken.write_bytes(buffer.getvalue()[:300])
    with pytest.raises(CorpusError, match=r"broken\.xlsx: not a readable Excel workbook"):
        load_corpus(broken)
    with pytest.raises(CorpusError, match=r"duplicate column names in header: \['title'\]"):
        load_corpus(workbook(tmp_path / "d.xlsx", [["id", "title", "title"], ["a", "T", "U"]]))
    with pytest.raises(CorpusError, match=r"column '제목' \(for 'title'\) not in the header"):
        load_corpus(workbook(tmp_path / "m.xlsx", [["id", "headline"], ["a", "T"]]),
                    columns={"title": "제목"})
    # A header cell left empty is named by its column letter, as Excel shows it.
    lettered = load_quiet(workbook(tmp_path / "l.xlsx", [["id", "title", None], ["a", "T", "x"]]))
    assert lettered.items.loc[0, "C"] == "x"
    # A column Excel keeps only for its formatting (a bold empty cell) is no field.
    book = Workbook()
    book.active.append(["id", "title"])
    book.active.append(["a", "T"])
    book.active.cell(row=1, column=4).font = Font(bold=True)
    book.save(tmp_path / "f.xlsx")
    assert book.active.max_column == 4
    formatted = load_quiet(tmp_path / "f.xlsx")
    assert [c for c in formatted.items.columns if c not in CANONICAL] == []

"""Readers for the tabular formats: JSONL, JSON, CSV (and TSV), Parquet, Excel, plain lines.

Each reader returns the file's records as :class:`~newsdedup.corpus.records.RawRecord`
values in file order (CSV and Parquet also return the header) and raises
:class:`~newsdedup.corpus.records.CorpusError` for faults of the file as a whole. Column
mapping and validation happen afterwards, in :mod:`newsdedup.corpus.load`.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from newsdedup.corpus.records import CorpusError, RawRecord

# --------------------------------------------------------------------------------------
# Plain text: one headline per line
# --------------------------------------------------------------------------------------


def text_lines(text: str) -> list[str]:
    r"""A text's lines, split as JSON Lines are, with its carriage returns dropped.

    Lines end in ``"\n"`` (``"\r\n"`` on Windows): only those split, so U+2028 and
    friends, which ``str.splitlines`` would also take for line ends, stay inside a
    headline. A file whose lines end in a carriage return alone (classic Mac OS, Excel's
    "CSV (Macintosh)") holds no ``"\n"``: it is split on ``"\r"`` instead, rather than
    read as one line.

    Examples:
        >>> text_lines("a\r\nb\n"), text_lines("a\rb\r"), text_lines("a\u2028b")
        (['a', 'b', ''], ['a', 'b', ''], ['a\u2028b'])
    """
    if "\n" not in text and "\r" in text:
        return text.split("\r")
    return [line.removesuffix("\r") for line in text.split("\n")]


def read_lines(path: Path, text: str) -> list[RawRecord]:
    r"""The records of a plain text of headlines: each non-blank line is one ``title``.

    A list of headlines pasted from a page or exported one per line has no field names
    and no ids; its records are numbered as they are read (the ids the loader gives them,
    :func:`newsdedup.corpus.load.load_corpus`). Surrounding spaces are kept as written:
    the scoring schemes ignore them. A tab on the first line is more likely a
    tab-separated table than a headline, so the file is refused with the option that
    reads it as one.

    Args:
        path: The file, for error messages.
        text: Its decoded text.

    Returns:
        One record per non-blank line, numbered in file order, with its line.

    Raises:
        CorpusError: The first non-blank line holds a tab.

    Examples:
        >>> [r.fields for r in read_lines(Path("h.txt"), "Fed raises rates\n\nStocks fall\n")]
        [{'title': 'Fed raises rates'}, {'title': 'Stocks fall'}]
        >>> read_lines(Path("h.txt"), "a\nb")[1].line
        2
    """
    raws: list[RawRecord] = []
    for lineno, line in enumerate(text_lines(text), start=1):
        if not line.strip():
            continue
        if not raws and "\t" in line:
            raise CorpusError(path, "the first headline holds a tab: if the file is a "
                              "tab-separated table, pass --format csv --delimiter tab",
                              line=lineno, record=1)
        raws.append(RawRecord(len(raws) + 1, lineno, {"title": line}, None))
    return raws


# --------------------------------------------------------------------------------------
# JSONL
# --------------------------------------------------------------------------------------


class _RecordProblem(ValueError):
    pass


def _refuse_constant(name: str) -> Any:
    raise _RecordProblem(f"{name} is not a JSON value (RFC 8259 has no NaN or Infinity)")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _RecordProblem(f"duplicate key {key!r} in a JSON object")
        seen[key] = value
    return seen


def read_jsonl(path: Path, text: str) -> list[RawRecord]:
    r"""The records of a JSON Lines text, one object per non-blank line.

    Args:
        path: The file, for error messages.
        text: Its decoded text.

    Returns:
        One record per object, numbered in file order, with its line; an object with a
        repeated key or a ``NaN``/``Infinity`` constant, and a later line that is no JSON
        object (a feed cut mid-write), has ``problem`` set.

    Raises:
        CorpusError: The first line is not valid JSON or not a JSON object (the file
            is no JSON Lines: the message says when it is one JSON document).

    Examples:
        >>> read_jsonl(Path("a.jsonl"), '{"id": "x"}\n\n{"id": "y"}\n')[1]
        RawRecord(record=2, line=3, fields={'id': 'y'}, problem=None, last_line=None)
    """
    raws: list[RawRecord] = []
    # Not str.splitlines: json.dumps(ensure_ascii=False) writes U+2028 and friends raw
    # inside strings (text_lines splits on line ends only).
    for lineno, line in enumerate(text_lines(text), start=1):
        if not line.strip(" \t\r"):
            continue
        record = len(raws) + 1
        try:
            value = json.loads(line, parse_constant=_refuse_constant,
                               object_pairs_hook=_unique_keys)
        except _RecordProblem as exc:
            # Valid for Python's json but not JSON (NaN) or ambiguous (a repeated key, of
            # which json.loads silently keeps the last): the record, not the file, is bad.
            raws.append(RawRecord(record, lineno, {}, str(exc)))
            continue
        except json.JSONDecodeError as exc:
            if record > 1:
                # Objects before it were read: the file is JSON Lines and this line is bad
                # (a feed cut mid-write): one rejected record, reported, not the whole file.
                raws.append(RawRecord(record, lineno, {}, f"invalid JSON: {exc.msg} (column "
                                                          f"{exc.colno})"))
                continue
            hint = "; " + _DOCUMENT_HINT if _is_document(text) else ""
            raise CorpusError(
                path, f"invalid JSON: {exc.msg} (column {exc.colno}){hint}", line=lineno,
                record=record) from exc
        except RecursionError:
            # Valid JSON nested deeper than Python's parser recurses: this record only.
            raws.append(RawRecord(record, lineno, {}, "arrays or objects nested deeper than "
                                  "the JSON reader can follow"))
            continue
        except ValueError as exc:  # a number of more than 4,300 digits (int's own limit)
            raws.append(RawRecord(record, lineno, {}, f"unreadable JSON value: {exc}"))
            continue
        if not isinstance(value, dict):
            kind = type(value).__name__
            if record > 1:
                raws.append(RawRecord(record, lineno, {}, f"expected a JSON object, got {kind}"))
                continue
            hint = "; " + _DOCUMENT_HINT if isinstance(value, list) else ""
            raise CorpusError(
                path, f"expected a JSON object, got {kind}{hint}", line=lineno, record=record
            )
        raws.append(RawRecord(record, lineno, value, None))
    return raws


# A .json file written as JSON Lines, or a .jsonl file holding one document, is common
# (exports name both ".json"); the error says which format the text is.
_LINES_HINT = ("the file is JSON Lines (one object per line): pass --format jsonl, or name "
               "it .jsonl")
_DOCUMENT_HINT = ("the file is one JSON document (an array, or an object holding one): pass "
                  "--format json, or name it .json")


def _is_lines(text: str) -> bool:
    """Whether the first two non-blank lines of ``text`` are each a JSON object."""
    lines = [line for line in text.split("\n", 50) if line.strip()][:2]
    try:
        return len(lines) == 2 and all(isinstance(json.loads(line), dict) for line in lines)
    except ValueError:
        return False


def _is_document(text: str) -> bool:
    """Whether ``text`` is one JSON array, or an object, over several lines."""
    try:
        return "\n" in text.strip() and isinstance(json.loads(text), (list, dict))
    except (ValueError, RecursionError):
        return False


def read_json(path: Path, text: str) -> list[RawRecord]:
    r"""The records of a JSON document: an array of objects, or an object holding one.

    News APIs answer with an array (``[{...}, ...]``) or wrap it in an object
    (``{"status": "ok", "totalResults": 2, "articles": [{...}, ...]}``); the records
    are then the one member whose value is an array. Each element is a record with
    the line it starts on; an element with a repeated key or a ``NaN`` has
    ``problem`` set, as in :func:`read_jsonl`.

    Args:
        path: The file, for error messages.
        text: Its decoded text.

    Returns:
        One record per element, numbered in file order.

    Raises:
        CorpusError: The text is not valid JSON, holds no array of records (or several,
            naming them), or an element is not an object.

    Examples:
        >>> read_json(Path("a.json"), '{"n": 1,\n "items": [{"id": "x"},\n {"id": "y"}]}')[1]
        RawRecord(record=2, line=3, fields={'id': 'y'}, problem=None, last_line=None)
    """
    try:
        document = json.loads(text)  # the whole file valid first: its faults are the file's
    except json.JSONDecodeError as exc:
        hint = "; " + _LINES_HINT if exc.msg == "Extra data" and _is_lines(text) else ""
        raise CorpusError(path, f"invalid JSON: {exc.msg} (column {exc.colno}){hint}",
                          line=exc.lineno) from exc
    except RecursionError as exc:
        raise CorpusError(path, "arrays or objects nested deeper than the JSON reader can "
                                "follow") from exc
    except ValueError as exc:  # a number of more than 4,300 digits (int's own limit)
        raise CorpusError(path, f"unreadable JSON value: {exc}") from exc
    start = _records_array(path, text, document)
    plain = json.JSONDecoder()
    strict = json.JSONDecoder(parse_constant=_refuse_constant, object_pairs_hook=_unique_keys)
    raws: list[RawRecord] = []
    line, counted = 1, 0
    pos = _skip_space(text, start + 1)
    while text[pos] != "]":
        line, counted = line + text.count("\n", counted, pos), pos
        record = len(raws) + 1
        try:
            value, end = strict.raw_decode(text, pos)
        except _RecordProblem as exc:
            raws.append(RawRecord(record, line, {}, str(exc)))
            end = plain.raw_decode(text, pos)[1]
        else:
            if not isinstance(value, dict):
                raise CorpusError(path, f"expected a JSON object, got {type(value).__name__}",
                                  line=line, record=record)
            raws.append(RawRecord(record, line, value, None))
        pos = _skip_space(text, end)
        if text[pos] == ",":
            pos = _skip_space(text, pos + 1)
    return raws


def _skip_space(text: str, pos: int) -> int:
    while text[pos] in " \t\r\n":
        pos += 1
    return pos


def _records_array(path: Path, text: str, document: Any) -> int:
    """Offset of the ``[`` that opens the records: the document, or its one array member."""
    top = _skip_space(text, 0)
    if isinstance(document, list):
        return top
    arrays = ([k for k, v in document.items() if isinstance(v, list)]
              if isinstance(document, dict) else [])
    if len(arrays) != 1:
        found = f"members holding arrays: {arrays}" if arrays else "no member holds an array"
        raise CorpusError(path, "expected an array of records, or an object with one member "
                                f"that holds them ({found})", line=1)
    # Walk the top-level members to the chosen one's value (the same order json.loads read;
    # a key repeated at the top level is found at its last occurrence, as json.loads keeps).
    plain = json.JSONDecoder()
    pos, found_at = _skip_space(text, top + 1), -1
    while text[pos] != "}":
        key, pos = plain.raw_decode(text, pos)
        pos = _skip_space(text, _skip_space(text, pos) + 1)  # past the colon
        if key == arrays[0]:
            found_at = pos
        pos = _skip_space(text, plain.raw_decode(text, pos)[1])
        if text[pos] == ",":
            pos = _skip_space(text, pos + 1)
    return found_at


# --------------------------------------------------------------------------------------
# CSV
# --------------------------------------------------------------------------------------


def _ends_inside_quotes(raw: str, delimiter: str, quote: str = '"') -> bool:
    """Whether csv's (non-strict) parser would still be inside a quoted field at the end.

    ``csv.reader`` silently returns whatever it has when the input ends inside quotes, so
    a truncated quoted row would otherwise come back as a shorter, plausible-looking row.
    The states mirror the C parser: a quote opens a field only at its start, and a
    doubled quote inside quotes is a literal quote.
    """
    state = "start"
    for char in raw:
        if state == "quoted":
            if char == quote:
                state = "quote_in_quoted"
        elif state == "quote_in_quoted":
            state = "quoted" if char == quote else ("start" if char == delimiter else "field")
        elif char in "\r\n" or char == delimiter:
            state = "start"
        elif state == "start":
            state = "quoted" if char == quote else "field"
    return state == "quoted"


def _text_after_close(raw: str, delimiter: str, quote: str = '"') -> int | None:
    """Offset of the first character that follows a closing quote inside its field, or None.

    In well-formed CSV a quote that closes a field is followed by a delimiter, a line end
    or the end of the text (a doubled quote is a literal quote). csv's non-strict parser
    appends anything else to the field: ``"a"b`` reads as ``ab``. Inside a record that
    spans lines this is the mark of a runaway: a stray quote opened a field, and the
    opening quote of a later, correctly quoted field (``2,"He said ""no"" twice"``) closed it,
    followed by that field's text.
    """
    state = "start"
    for pos, char in enumerate(raw):
        if state == "quoted":
            if char == quote:
                state = "quote_in_quoted"
        elif state == "quote_in_quoted":
            if char == quote:
                state = "quoted"
            elif char == delimiter or char in "\r\n":
                state = "start"
            else:
                return pos
        elif char in "\r\n" or char == delimiter:
            state = "start"
        elif state == "start":
            state = "quoted" if char == quote else "field"
    return None


def _raise_field_limit() -> None:
    """Let csv read fields of any length (its default limit is 131,072 characters).

    A headline archive with full article bodies has longer fields; the limit protects
    nothing here because the whole file is in memory already. ``sys.maxsize`` overflows a
    C ``long`` on some platforms, so halve until it is accepted.
    """
    limit = sys.maxsize
    while True:
        try:
            csv.field_size_limit(limit)
            return
        except OverflowError:
            limit //= 2


class _Lines:
    """Physical lines fed to one ``csv.reader`` from a position that can be moved.

    ``csv.reader`` pulls exactly the lines of one record per ``next`` and resets its state
    at the start of each record, so moving ``pos`` re-reads the file from any line.
    """

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.pos = 0

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        if self.pos >= len(self.lines):
            raise StopIteration
        self.pos += 1
        return self.lines[self.pos - 1]


def _row_shaped(line: str, delimiter: str, width: int, quote: str = '"') -> bool:
    """Whether a physical line would be a complete row of ``width`` fields on its own."""
    body = line.rstrip("\r\n")
    return bool(body.strip()) and quote not in body and body.count(delimiter) == width - 1


def _runaway(lines: list[str], start: int, end: int, row: list[str], delimiter: str,
             width: int) -> str | None:
    """Why a record read over lines ``start..end-1`` (more than one) is a lost closing quote.

    A quoted field may hold line breaks, so a record spanning lines is legal CSV. But an
    unterminated quote also makes a record span lines: csv reads on until the next quote
    anywhere in the file, swallowing whole rows into one field. The two cannot be told
    apart in general (a later quote may close the runaway field cleanly, with the right
    field count), so a multi-line record is accepted only when it is consistent in every
    way a runaway usually is not: it ends inside the file, the field count matches the
    header, every quote that closes a field is followed by a delimiter or a line end (a
    swallowed row that holds a correctly quoted field closes the runaway at that field's
    opening quote, followed by its text: :func:`_text_after_close`), and none of its
    continuation lines is *row-shaped* -- no quote and exactly ``width - 1`` delimiters,
    which is what a swallowed row without quotes looks like. Otherwise the opening
    line is rejected and reading resumes on the next line, so every following row is
    still read. A false alarm (prose with exactly ``width - 1`` delimiters on a
    continuation line) costs a listed reject, never a silent loss.
    """
    raw = "".join(lines[start:end])
    if end == len(lines) and _ends_inside_quotes(raw, delimiter):
        return "unterminated quoted field: the file ends inside quotes"
    if len(row) != width:
        return f"quoted field spanning lines {start + 1}-{end} gives {len(row)} of {width} fields"
    after = _text_after_close(raw, delimiter)
    if after is not None:
        number = start + 1 + raw.count("\n", 0, after)
        return (f"quoted field spanning lines {start + 1}-{end} closes on line {number} with "
                f"text after its closing quote, as a stray quote closed by a later field does")
    for number in range(start + 1, end):
        if _row_shaped(lines[number], delimiter, width):
            return (f"quoted field spanning lines {start + 1}-{end} swallows line {number + 1}, "
                    f"which reads as a row of its own")
    return None


def read_csv(path: Path, text: str, delimiter: str) -> tuple[list[str], list[RawRecord]]:
    r"""The header and rows of a delimited text; a malformed row is kept with its problem.

    Args:
        path: The file, for error messages.
        text: Its decoded text.
        delimiter: Field separator, one character, e.g. ``","`` or tab.

    Returns:
        The header and one record per non-blank row, numbered in file order, each with the
        line it starts on. A row with the wrong field count, or the opening line of an
        unterminated quote (see :func:`_runaway`), has ``problem`` set instead of being
        dropped; an unterminated quote never hides the rows after it.

    Raises:
        CorpusError: A CSV syntax error, an unusable delimiter, or a repeated name in the
            header.

    Examples:
        >>> header, raws = read_csv(Path("a.csv"), "id,title\na,T\nb\n", ",")
        >>> header, raws[0].fields, raws[1].problem
        (['id', 'title'], {'id': 'a', 'title': 'T'}, 'expected 2 fields, got 1')
        >>> [r.line for r in read_csv(Path("a.csv"), 'id,title\na,"T\nb,U\n', ",")[1]]
        [2, 3]
    """
    if len(delimiter) != 1 or delimiter in '"\r\n':
        raise CorpusError(path, f"CSV delimiter must be one character other than a quote or "
                                f"line break, got {delimiter!r}")
    _raise_field_limit()
    source = _Lines(io.StringIO(text, newline="").readlines())
    lines = source.lines
    reader = csv.reader(source, delimiter=delimiter)
    header: list[str] | None = None
    unnamed = 0
    raws: list[RawRecord] = []
    while source.pos < len(lines):
        start = source.pos
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise CorpusError(path, f"CSV error: {exc}", line=start + 1) from exc
        if not row:  # blank line
            continue
        if header is None:
            # Columns with no name at the end of the header ("id,title,,"): a spreadsheet
            # saved as CSV writes its formatted empty columns so. They are no fields; a
            # row whose cells there are empty drops them, one holding a value there keeps
            # its width and is rejected for it.
            named = len(row)
            while named and not row[named - 1].strip():
                named -= 1
            header, unnamed = row[:named], len(row) - named
            if not header:
                raise CorpusError(path, "the header row names no column", line=start + 1)
            dupes = sorted({name for name in header if header.count(name) > 1})
            if dupes:
                raise CorpusError(path, f"duplicate column names in header: {dupes}",
                                  line=start + 1)
            continue
        # Spreadsheets write fewer empty trailing cells on some rows than the header has.
        if unnamed and len(header) < len(row) <= len(header) + unnamed and not "".join(
                row[len(header):]).strip():
            row = row[:len(header)]
        raws.append(_record(lines, start, source, row, header, delimiter, len(raws) + 1))
    if header is None:  # unreachable for text that is not blank, which is caught earlier
        raise CorpusError(path, "no header row", line=1)
    return header, raws


def _record(lines: list[str], start: int, source: _Lines, row: list[str],
            header: list[str], delimiter: str, number: int) -> RawRecord:
    """The record just read from ``start``; rewinds ``source`` past a runaway's first line."""
    end = source.pos
    width = len(header)
    problem: str | None = None
    if end - start > 1:
        problem = _runaway(lines, start, end, row, delimiter, width)
        if problem is not None:
            source.pos = start + 1  # re-read everything after the opening line
            row = next(csv.reader([lines[start]], delimiter=delimiter), [])
            problem += f" (got {len(row)} of {width} fields on line {start + 1}; lost quote?)"
    elif end == len(lines) and _ends_inside_quotes(lines[start], delimiter):
        problem = (f"unterminated quoted field: the file ends inside quotes (got {len(row)} "
                   f"of {width} fields; truncated last row?)")
    if problem is None and len(row) != width:
        problem = f"expected {width} fields, got {len(row)}"
        if end == len(lines) and not lines[-1].endswith(("\n", "\r")):
            problem += " (last row, and the file ends without a newline: truncated?)"
    return RawRecord(number, start + 1, dict(zip(header, row, strict=False)), problem)


# --------------------------------------------------------------------------------------
# Parquet
# --------------------------------------------------------------------------------------


def _nullable_integers(arrow_type: Any) -> Any:
    """The pandas nullable dtype of an Arrow integer type (``Int64`` ...), else None."""
    import pyarrow as pa

    if pa.types.is_integer(arrow_type):
        return pd.api.types.pandas_dtype(str(arrow_type).replace("int", "Int").replace(
            "uInt", "UInt"))
    return None


def read_parquet(path: Path, data: bytes) -> tuple[list[str], list[RawRecord]]:
    """The column names and rows of a Parquet file; records have no line numbers.

    Args:
        path: The file, for error messages.
        data: Its bytes.

    Returns:
        The column names (as ``str``) and one record per row, numbered from 1.

    Raises:
        CorpusError: The bytes are not a readable Parquet file.
    """
    import pyarrow.parquet as pq  # only where a Parquet file is read

    try:
        table = pq.read_table(io.BytesIO(data))
        # Integer columns stay integers where a value is null: pandas' default turns such a
        # column into floats, and epoch milliseconds 1714521600000 into the text
        # "1714521600000.0", which no date rule reads (every record was rejected).
        frame = table.to_pandas(types_mapper=_nullable_integers)
    except Exception as exc:  # pyarrow raises several unrelated types for a bad file
        raise CorpusError(path, f"not a readable Parquet file: {exc}") from exc
    header = [str(c) for c in frame.columns]
    frame.columns = header
    raws = [
        RawRecord(number, None, fields, None)
        for number, fields in enumerate(frame.to_dict("records"), start=1)
    ]
    return header, raws


# --------------------------------------------------------------------------------------
# Excel workbooks
# --------------------------------------------------------------------------------------

_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
"""The first bytes of an Excel 97-2003 ``.xls`` (an OLE2 compound file), which is not read."""


def read_xlsx(path: Path, data: bytes) -> tuple[list[str], list[RawRecord]]:
    """The header and rows of the one sheet of an Excel workbook (``.xlsx``) that holds data.

    News archives are often exported as workbooks (BigKinds' Korean news export among
    them). The first non-empty row of the sheet is its header; each later row with any
    cell is a record, its ``line`` the row number Excel shows. Cells keep the type Excel
    stored (a date cell is a date, read as ISO 8601; a formula its last computed value).
    A header cell left empty above values is named by its column letter (``"C"``), as
    Excel shows it, so those values are kept under that name.

    Args:
        path: The file, for error messages.
        data: Its bytes.

    Returns:
        The header and one record per non-empty row, numbered from 1.

    Raises:
        CorpusError: The bytes are not a readable ``.xlsx`` workbook (an ``.xls`` is named
            as such), more than one sheet holds data, or the header repeats a name.
    """
    if data.startswith(_OLE2):
        raise CorpusError(path, "an Excel 97-2003 workbook (.xls) is not read: save it as "
                                ".xlsx or CSV")
    if not data.startswith(b"PK"):
        # Sites export web pages and text tables under spreadsheet names.
        raise CorpusError(path, "not an Excel workbook: an .xlsx is a zip archive and this "
                                "file is not one (a table saved as a web page or as text? "
                                "--format csv reads a text table)")
    from openpyxl import load_workbook  # only where a workbook is read
    from openpyxl.utils import get_column_letter

    try:
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # zipfile, KeyError and openpyxl's own, for a damaged file
        raise CorpusError(path, f"not a readable Excel workbook (.xlsx): {exc}") from exc
    try:
        # (row number, cells) of the non-empty rows of each sheet, read once.
        sheets = {ws.title: [(number, row) for number, row in enumerate(
            ws.iter_rows(values_only=True), start=1) if any(v is not None for v in row)]
            for ws in book.worksheets}
    finally:
        book.close()
    filled = [title for title, rows in sheets.items() if rows]
    if len(filled) > 1:
        raise CorpusError(path, f"{len(filled)} sheets hold data ({', '.join(filled)}); save "
                                f"the one to read as its own workbook or as CSV")
    if not filled:
        raise CorpusError(path, "the workbook holds no data", line=1)
    rows = sheets[filled[0]]
    first, cells = rows[0]
    # The columns up to the last that holds a value in any row: trailing columns with no
    # header and no value are Excel's formatting, not fields.
    width = 1 + max(max((k for k, v in enumerate(row) if v is not None), default=-1)
                    for _, row in rows)
    header = [get_column_letter(k + 1) if v is None or str(v).strip() == "" else str(v)
              for k, v in enumerate(cells[k] if k < len(cells) else None
                                    for k in range(width))]
    dupes = sorted({h for h in header if header.count(h) > 1})
    if dupes:
        raise CorpusError(path, f"duplicate column names in header: {dupes}", line=first)
    # Every row spans the sheet's used columns, so no value lies outside the header.
    raws = [RawRecord(record, number, {h: (row[k] if k < len(row) else None)
                                       for k, h in enumerate(header)}, None)
            for record, (number, row) in enumerate(rows[1:], start=1)]
    return header, raws

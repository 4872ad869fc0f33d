"""Readers for the tabular formats: JSONL, CSV (and TSV) and Parquet.

Each reader returns the file's records as :class:`~newsdedup.corpus.records.RawRecord`
values in file order (CSV and Parquet also return the header) and raises
:class:`~newsdedup.corpus.records.CorpusError` for faults of the file as a whole. Column
mapping and validation happen afterwards, in :mod:`newsdedup.corpus.load`.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pandas as pd

from newsdedup.corpus.records import CorpusError, RawRecord

# --------------------------------------------------------------------------------------
# JSONL
# --------------------------------------------------------------------------------------


def read_jsonl(path: Path, text: str) -> list[RawRecord]:
    r"""The records of a JSON Lines text, one object per non-blank line.

    Args:
        path: The file, for error messages.
        text: Its decoded text.

    Returns:
        One record per object, numbered in file order, with its line.

    Raises:
        CorpusError: A line is not valid JSON or not a JSON object.

    Examples:
        >>> read_jsonl(Path("a.jsonl"), '{"id": "x"}\n\n{"id": "y"}\n')[1]
        RawRecord(record=2, line=3, fields={'id': 'y'}, problem=None)
    """
    raws: list[RawRecord] = []
    # Split on "\n" only: str.splitlines would also split on U+2028, U+0085 and friends,
    # which json.dumps(ensure_ascii=False) writes raw inside strings.
    for lineno, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line.strip(" \t\r"):
            continue
        record = len(raws) + 1
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CorpusError(
                path, f"invalid JSON: {exc.msg} (column {exc.colno})", line=lineno, record=record
            ) from exc
        if not isinstance(value, dict):
            kind = type(value).__name__
            raise CorpusError(
                path, f"expected a JSON object, got {kind}", line=lineno, record=record
            )
        raws.append(RawRecord(record, lineno, value, None))
    return raws


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


def read_csv(path: Path, text: str, delimiter: str) -> tuple[list[str], list[RawRecord]]:
    r"""The header and rows of a delimited text; a malformed row is kept with its problem.

    Args:
        path: The file, for error messages.
        text: Its decoded text.
        delimiter: Field separator, e.g. ``","`` or tab.

    Returns:
        The header and one record per non-blank row, numbered in file order, each with the
        line it starts on. A row with the wrong field count or an unterminated quote has
        ``problem`` set instead of being dropped.

    Raises:
        CorpusError: A CSV syntax error outside a truncated last row, or a repeated name
            in the header.

    Examples:
        >>> header, raws = read_csv(Path("a.csv"), "id,title\na,T\nb\n", ",")
        >>> header, raws[0].fields, raws[1].problem
        (['id', 'title'], {'id': 'a', 'title': 'T'}, 'expected 2 fields, got 1')
    """
    # Feeding csv our own list of physical lines lets us recover each record's raw text
    # (reader.line_num counts the lines it has consumed, so a record spans
    # lines[previous line_num : line_num]).
    lines = io.StringIO(text, newline="").readlines()
    reader = csv.reader(lines, delimiter=delimiter)
    header: list[str] | None = None
    raws: list[RawRecord] = []
    consumed = 0
    while True:
        start = consumed + 1
        try:
            row = next(reader, None)
        except csv.Error as exc:
            # An unterminated quote swallows the rest of the file and can exceed csv's
            # field size limit; that is the same truncated record, not a different fault.
            if header is None or not _ends_inside_quotes("".join(lines[start - 1 :]), delimiter):
                raise CorpusError(path, f"CSV error: {exc}", line=reader.line_num) from exc
            problem: str | None = f"unterminated quoted field: the file ends inside quotes ({exc})"
            raws.append(RawRecord(len(raws) + 1, start, {}, problem))
            break
        if row is None:
            break
        consumed = reader.line_num
        if not row:  # blank line
            continue
        if header is None:
            header = row
            dupes = sorted({name for name in row if row.count(name) > 1})
            if dupes:
                raise CorpusError(path, f"duplicate column names in header: {dupes}", line=start)
            continue
        problem = None
        at_end = consumed == len(lines)
        if at_end and _ends_inside_quotes("".join(lines[start - 1 :]), delimiter):
            problem = (
                f"unterminated quoted field: the file ends inside quotes (got {len(row)} "
                f"of {len(header)} fields; truncated last row?)"
            )
        elif len(row) != len(header):
            problem = f"expected {len(header)} fields, got {len(row)}"
            if at_end and not text.endswith(("\n", "\r")):
                problem += " (last row, and the file ends without a newline: truncated?)"
        fields = dict(zip(header, row, strict=False))
        raws.append(RawRecord(len(raws) + 1, start, fields, problem))
    if header is None:  # unreachable for text that is not blank, which is caught earlier
        raise CorpusError(path, "no header row", line=1)
    return header, raws


# --------------------------------------------------------------------------------------
# Parquet
# --------------------------------------------------------------------------------------


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
    try:
        frame = pd.read_parquet(io.BytesIO(data))
    except Exception as exc:  # pyarrow raises several unrelated types for a bad file
        raise CorpusError(path, f"not a readable Parquet file: {exc}") from exc
    header = [str(c) for c in frame.columns]
    frame.columns = header
    raws = [
        RawRecord(number, None, fields, None)
        for number, fields in enumerate(frame.to_dict("records"), start=1)
    ]
    return header, raws


"""Corpus loaders: one table of news items from a TypeScript module, JSONL, CSV or Parquet.

Every loader returns a :class:`LoadResult` whose ``items`` frame has the canonical columns
(:data:`CANONICAL`) first, as plain ``str`` values in ``object`` columns, followed by every
other field of the file under its own name. Records that cannot be used (no id, no title,
a repeated id, a broken CSV row) are never dropped silently: each one is listed in
``LoadResult.rejected`` with its record number, line and reason, and one warning per load
summarises them. With ``strict=True`` the first such record raises :class:`CorpusError`.
Problems with the file as a whole (empty, undecodable, a syntax error) always raise.

The TypeScript reader is a small tokenizer plus a recursive-descent parser for the
``const entries: NewsItem[] = [ ... ];`` literal of the pinned paldyn corpus. It is not a
TypeScript implementation: it reads literals (strings, numbers, ``true``/``false``/``null``,
objects, arrays, ``+`` between string literals) and only skims the code before the array.

``dialect="seed"`` reproduces the field extraction behind the published tables of seed 004:
for each top-level string field it concatenates the single-quoted segments of the value's
source text and unescapes only ``\\'``. It differs from correct decoding exactly where a
value is double-quoted or uses another backslash escape.
"""

from __future__ import annotations

import bisect
import csv
import datetime
import hashlib
import io
import json
import math
import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

CANONICAL: tuple[str, ...] = ("id", "title", "summary", "url", "host", "source", "published_at")
"""Columns every loaded table starts with, in this order, as ``str`` values."""

FORMATS: tuple[str, ...] = ("ts", "jsonl", "csv", "parquet")
DIALECTS: tuple[str, ...] = ("standard", "seed")

_EXTENSIONS: dict[str, str] = {
    ".ts": "ts",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".tsv": "csv",
    ".parquet": "parquet",
}

# Field-name defaults per format; user-supplied ``columns`` are laid over these.
_FORMAT_COLUMNS: dict[str, dict[str, str]] = {"ts": {"published_at": "publishedAt"}}


# --------------------------------------------------------------------------------------
# Errors and results
# --------------------------------------------------------------------------------------


class CorpusError(ValueError):
    """A corpus file (or one record of it) cannot be read.

    Attributes:
        path: The file.
        line: 1-based line the problem is on, when known.
        record: 1-based record number, when the problem belongs to one record.
        reason: What is wrong, in words.

    Examples:
        >>> str(CorpusError("news.ts", "unterminated string literal", line=12))
        'news.ts:12: unterminated string literal'
        >>> str(CorpusError("a.csv", "missing id", line=5, record=4))
        'a.csv:5: record 4: missing id'
        >>> str(CorpusError("b.parquet", "missing title", record=3))
        'b.parquet: record 3: missing title'
    """

    def __init__(
        self,
        path: str | Path | None,
        reason: str,
        *,
        line: int | None = None,
        record: int | None = None,
    ) -> None:
        self.path = path
        self.line = line
        self.record = record
        self.reason = reason
        head = "" if path is None else str(path)
        if line is not None:
            head = f"{head}:{line}"
        parts = [head] if head else []
        if record is not None:
            parts.append(f"record {record}")
        parts.append(reason)
        super().__init__(": ".join(parts))

    def __reduce__(self) -> tuple[Any, ...]:
        # Keyword-only arguments are not in self.args, so the default pickling would fail.
        return (_rebuild_error, (self.path, self.reason, self.line, self.record))


def _rebuild_error(
    path: str | Path | None, reason: str, line: int | None, record: int | None
) -> CorpusError:
    return CorpusError(path, reason, line=line, record=record)


class CorpusWarning(UserWarning):
    """Emitted once per load when some records were rejected."""


@dataclass(frozen=True)
class Rejected:
    """One record that was not turned into an item.

    Attributes:
        record: 1-based record number in file order.
        line: 1-based line the record starts on (``None`` for Parquet).
        id: The record's id when it has a usable one, else ``None``.
        reason: Why it was rejected.
    """

    record: int
    line: int | None
    id: str | None
    reason: str


@dataclass(frozen=True, eq=False)
class LoadResult:
    """What :func:`load_corpus` read.

    Attributes:
        items: Canonical columns first, then the file's other fields; RangeIndex; file order.
        rejected: Records that could not be used, with reasons, in file order.
        path: The file read.
        fmt: ``"ts"``, ``"jsonl"``, ``"csv"`` or ``"parquet"``.
        sha256: Hex digest of the file's bytes.
        dialect: ``"standard"`` or ``"seed"``.
        n_records: Records seen; always ``len(items) + len(rejected)``.
    """

    items: pd.DataFrame
    rejected: list[Rejected]
    path: Path
    fmt: str
    sha256: str
    dialect: str
    n_records: int

    def summary_line(self) -> str:
        """One line for logs and reports.

        Returns:
            Item and reject counts with the mean title and summary lengths in characters.

        Examples:
            >>> frame = pd.DataFrame({"title": ["abc", "abcde"], "summary": ["x", "xyz"]})
            >>> LoadResult(frame, [], Path("n.ts"), "ts", "", "seed", 2).summary_line()
            '2 items (0 rejected) / mean title 4.0 chars / mean summary 2.0 chars'
        """
        head = f"{len(self.items)} items ({len(self.rejected)} rejected)"
        if len(self.items) == 0:
            return head
        title = self.items["title"].str.len().mean()
        summary = self.items["summary"].str.len().mean()
        return f"{head} / mean title {title:.1f} chars / mean summary {summary:.1f} chars"


class _Raw(NamedTuple):
    """A record as parsed, before column mapping and validation."""

    record: int
    line: int | None
    fields: dict[str, Any]
    problem: str | None  # set when the record is already known to be unusable (CSV)


# --------------------------------------------------------------------------------------
# Public entry points
# --------------------------------------------------------------------------------------

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_PORT = re.compile(r":\d*$")
_AUTHORITY = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]*://)?([^/?#]*)")


def host_of(url: str) -> str:
    """Host part of a URL, lower-cased, without scheme, userinfo or port.

    Args:
        url: An absolute URL (a bare ``host/path`` works too).

    Returns:
        The host, or ``""`` for an empty URL.

    Examples:
        >>> host_of("https://blog.google/x")
        'blog.google'
        >>> host_of("HTTP://user:pw@WWW.Example.com:8080/a?b=c")
        'www.example.com'
        >>> host_of("openai.com/index/x")
        'openai.com'
        >>> host_of("")
        ''
    """
    rest = _SCHEME.sub("", url.strip(), count=1)
    # The authority ends at the first "/", and also at "?" or "#" (RFC 3986), so a URL
    # like "http://a.com?x=1" does not leak its query into the host.
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
    authority = authority.rpartition("@")[2]
    if authority.startswith("["):  # IPv6 literal: the port, if any, follows the bracket
        authority = authority[: authority.find("]") + 1] or authority
    else:
        authority = _PORT.sub("", authority)
    return authority.lower()


def hosts_of(urls: Sequence[str]) -> list[str]:
    """:func:`host_of` of many URLs at once.

    The same rules as :func:`host_of` (tested to agree) with one regular
    expression match per URL instead of three, about 5x faster on a feed.

    Examples:
        >>> hosts_of(["https://blog.google/x", "HTTP://u@WWW.A.com:80/a", "", "[::1]:8/x"])
        ['blog.google', 'www.a.com', '', '[::1]']
    """
    if len(urls) == 0:
        return []
    # Each distinct URL once: feeds without URLs (all "") or with repeats cost one match.
    codes, distinct = pd.factorize(pd.Series(list(urls), dtype=object), sort=False)
    hosts = np.array([_host(u) for u in distinct], dtype=object)
    return hosts[codes].tolist()


def _host(url: str) -> str:
    # host_of with one match for scheme and authority: the per-URL hot path of a feed.
    authority = _AUTHORITY.match(url.strip()).group(1).rpartition("@")[2]
    if authority.startswith("["):
        return (authority[: authority.find("]") + 1] or authority).lower()
    return _PORT.sub("", authority).lower()


def load_corpus(
    path: str | Path,
    fmt: str | None = None,
    *,
    columns: Mapping[str, str] | None = None,
    strict: bool = False,
    dialect: str = "standard",
    array_name: str = "entries",
    sep: str | None = None,
    encoding: str = "utf-8",
) -> LoadResult:
    """Load a news corpus into a table of items.

    Args:
        path: The file.
        fmt: ``"ts"``, ``"jsonl"``, ``"csv"`` or ``"parquet"``; inferred from the extension
            (``.ts``, ``.jsonl``/``.ndjson``, ``.csv``/``.tsv``, ``.parquet``) when omitted.
        columns: Canonical name -> field name in the file, e.g. ``{"id": "ID"}``. Unmapped
            canonical names are looked up under their own name (and ``published_at`` under
            ``publishedAt`` for ``ts``). Fields not mapped are kept as extra columns.
        strict: Raise :class:`CorpusError` on the first unusable record instead of listing it
            in ``rejected``.
        dialect: ``"standard"`` decodes string literals as JavaScript does; ``"seed"``
            reproduces the seed-004 extraction (``ts`` only).
        array_name: Name of the ``const`` array holding the items (``ts`` only).
        sep: CSV delimiter; ``","`` by default, tab for ``.tsv`` files.
        encoding: Text encoding (not used for Parquet).

    Returns:
        The items, the rejected records and the file's identity.

    Raises:
        CorpusError: The file is empty, undecodable or malformed, or (``strict``) a record
            is unusable.
        ValueError: Unknown format, dialect or column name, or an option that does not
            apply to the format.

    Examples:
        >>> import tempfile
        >>> tmp = Path(tempfile.mkdtemp()) / "n.jsonl"
        >>> _ = tmp.write_text('{"id": "a", "title": "T", "url": "https://x.org/1"}\\n')
        >>> res = load_corpus(tmp)
        >>> res.items.loc[0, ["id", "title", "host", "summary"]].tolist()
        ['a', 'T', 'x.org', '']
    """
    path = Path(path)
    fmt = _resolve_format(path, fmt)
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}; expected one of {DIALECTS}")
    if dialect == "seed" and fmt != "ts":
        raise ValueError(f"dialect 'seed' applies only to the ts format, not {fmt!r}")
    if sep is not None and fmt != "csv":
        raise ValueError(f"sep applies only to the csv format, not {fmt!r}")
    mapping = _column_mapping(fmt, columns)

    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if not data.strip():
        raise CorpusError(path, "file is empty", line=1)

    header: list[str] | None = None
    if fmt == "parquet":
        header, raws = _read_parquet(path, data)
    else:
        text = decode_bytes(path, data, encoding)
        if not text.strip():  # whitespace in an encoding whose bytes are not ASCII spaces
            raise CorpusError(path, "file is empty (only whitespace)", line=1)
        if fmt == "ts":
            raws = _read_ts(path, text, array_name, dialect)
        elif fmt == "jsonl":
            raws = _read_jsonl(path, text)
        else:
            delimiter = sep if sep is not None else ("\t" if path.suffix.lower() == ".tsv" else ",")
            header, raws = _read_csv(path, text, delimiter)

    if header is not None:
        # A column the caller named explicitly but the file lacks is a configuration error,
        # not a property of every record; say so once instead of rejecting every row.
        # The same goes for id and title, without which no record can be used.
        needed = {"id": mapping["id"], "title": mapping["title"]} | dict(columns or {})
        absent = {c: f for c, f in needed.items() if f not in header}
        if absent:
            wanted = ", ".join(f"{f!r} (for {c!r})" for c, f in absent.items())
            line = None if fmt == "parquet" else 1
            raise CorpusError(path, f"column {wanted} not in the header {header}", line=line)
        file_fields: Iterable[str] = header
    else:
        file_fields = dict.fromkeys(k for raw in raws for k in raw.fields)

    items, extras, rejected = _validate(path, raws, mapping, list(file_fields), strict)
    if rejected:
        first = rejected[0]
        where = f"record {first.record}" + ("" if first.line is None else f" (line {first.line})")
        warnings.warn(
            f"{path}: rejected {len(rejected)} of {len(raws)} records; first: {where}: "
            f"{first.reason}",
            CorpusWarning,
            stacklevel=2,
        )
    return LoadResult(
        items=_frame(items, extras),
        rejected=rejected,
        path=path,
        fmt=fmt,
        sha256=digest,
        dialect=dialect,
        n_records=len(raws),
    )


def decode_bytes(path: str | Path, data: bytes, encoding: str = "utf-8") -> str:
    """Decode a text file's bytes, naming the line and byte offset of a bad sequence.

    A leading byte-order mark is dropped (spreadsheet exports often carry one, and it
    would otherwise stick to the first header name).

    Args:
        path: The file, for the error message.
        data: Its bytes.
        encoding: Text encoding.

    Returns:
        The text.

    Raises:
        CorpusError: The bytes are not valid in ``encoding``.

    Examples:
        >>> decode_bytes("f.txt", "가나".encode())
        '가나'
        >>> decode_bytes("f.txt", b"ok\\n\\xff")
        Traceback (most recent call last):
        ...
        newsdedup.corpus.load.CorpusError: f.txt:2: cannot decode byte 0xff at byte offset 3 as ...
    """
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        bad = data[exc.start : exc.end].hex(" ")
        plural = "s" if exc.end - exc.start > 1 else ""
        raise CorpusError(
            path,
            f"cannot decode byte{plural} 0x{bad} at byte offset {exc.start} as {encoding}",
            line=line,
        ) from exc
    return text.removeprefix("\ufeff")


def _resolve_format(path: Path, fmt: str | None) -> str:
    if fmt is None:
        suffix = path.suffix.lower()
        if suffix not in _EXTENSIONS:
            known = ", ".join(_EXTENSIONS)
            raise ValueError(
                f"{path}: cannot infer the format from extension {suffix!r} (known: {known}); "
                f"pass fmt= one of {FORMATS}"
            )
        return _EXTENSIONS[suffix]
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {FORMATS}")
    return fmt


def _column_mapping(fmt: str, columns: Mapping[str, str] | None) -> dict[str, str]:
    mapping = {name: name for name in CANONICAL} | _FORMAT_COLUMNS.get(fmt, {})
    for name, field in (columns or {}).items():
        if name not in CANONICAL:
            raise ValueError(f"columns: {name!r} is not a canonical column {CANONICAL}")
        mapping[name] = field
    return mapping


# --------------------------------------------------------------------------------------
# Validation and table building (shared by all formats)
# --------------------------------------------------------------------------------------


class _NotScalar(Exception):
    pass


def _as_text(value: Any) -> str:
    """A canonical field's value as ``str``: missing -> ``""``, numbers -> their digits."""
    if value is None or value is pd.NaT or value is pd.NA:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, datetime.date | datetime.time):  # pd.Timestamp included
        return value.isoformat()
    if isinstance(value, np.generic):  # numpy scalars from Parquet columns
        value = value.item()
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dict | list | tuple | np.ndarray):
        raise _NotScalar
    return str(value)


def _validate(
    path: Path,
    raws: list[_Raw],
    mapping: dict[str, str],
    file_fields: list[str],
    strict: bool,
) -> tuple[list[dict[str, Any]], list[str], list[Rejected]]:
    """Map fields to canonical columns and sort records into items and rejects."""
    consumed = set(mapping.values())
    derive_host = mapping["host"] not in file_fields
    # A file field named like a canonical column that was mapped elsewhere (say a "title"
    # field when title comes from "headline") must not overwrite the canonical column.
    extras = {f: (f"{f}_orig" if f in CANONICAL else f) for f in file_fields if f not in consumed}

    items: list[dict[str, Any]] = []
    rejected: list[Rejected] = []
    first_seen: dict[str, _Raw] = {}

    def reject(raw: _Raw, rid: str | None, reason: str) -> None:
        if strict:
            raise CorpusError(path, reason, line=raw.line, record=raw.record)
        rejected.append(Rejected(raw.record, raw.line, rid or None, reason))

    for raw in raws:
        if raw.problem is not None:
            rid = raw.fields.get(mapping["id"])
            reject(raw, rid.strip() if isinstance(rid, str) else None, raw.problem)
            continue
        row: dict[str, Any] = {}
        bad_field = None
        for name in CANONICAL:
            try:
                row[name] = _as_text(raw.fields.get(mapping[name]))
            except _NotScalar:
                bad_field = name
        # Reported ids are as written; a blank one is reported as None.
        rid = row["id"] if row["id"].strip() else ""
        if bad_field is not None:
            field = mapping[bad_field]
            reject(raw, rid, f"field {field!r} ({bad_field}) is an object or array, not text")
            continue
        if not rid:
            reject(raw, None, f"missing id (field {mapping['id']!r} is absent or empty)")
            continue
        if not row["title"].strip():
            reject(raw, rid, f"missing title (field {mapping['title']!r} is absent or empty)")
            continue
        # Ids are compared as written: " a" and "a" are different ids, as they are to
        # anything that joins on them later. Only accepted records claim an id, so a record
        # rejected for another reason does not make a later, usable one a duplicate.
        if row["id"] in first_seen:
            first = first_seen[row["id"]]
            where = f"record {first.record}" + (
                "" if first.line is None else f", line {first.line}"
            )
            reject(raw, rid, f"duplicate id {row['id']!r} (first at {where})")
            continue
        first_seen[row["id"]] = raw
        if derive_host:
            row["host"] = host_of(row["url"])
        for field, column in extras.items():
            row[column] = raw.fields.get(field)
        items.append(row)
    return items, list(extras.values()), rejected


def _frame(items: list[dict[str, Any]], extras: list[str]) -> pd.DataFrame:
    # dtype=object is explicit because pandas >= 3 would otherwise infer its "str" dtype
    # for text columns, and extras may hold dicts or numbers that must stay as they are.
    return pd.DataFrame(
        {
            column: pd.Series([item[column] for item in items], dtype=object)
            for column in (*CANONICAL, *extras)
        }
    )


# --------------------------------------------------------------------------------------
# JSONL
# --------------------------------------------------------------------------------------


def _read_jsonl(path: Path, text: str) -> list[_Raw]:
    raws: list[_Raw] = []
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
        raws.append(_Raw(record, lineno, value, None))
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


def _read_csv(path: Path, text: str, delimiter: str) -> tuple[list[str], list[_Raw]]:
    # Feeding csv our own list of physical lines lets us recover each record's raw text
    # (reader.line_num counts the lines it has consumed, so a record spans
    # lines[previous line_num : line_num]).
    lines = io.StringIO(text, newline="").readlines()
    reader = csv.reader(lines, delimiter=delimiter)
    header: list[str] | None = None
    raws: list[_Raw] = []
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
            problem = f"unterminated quoted field: the file ends inside quotes ({exc})"
            raws.append(_Raw(len(raws) + 1, start, {}, problem))
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
        raws.append(_Raw(len(raws) + 1, start, fields, problem))
    if header is None:  # unreachable for text that is not blank, which is caught earlier
        raise CorpusError(path, "no header row", line=1)
    return header, raws


# --------------------------------------------------------------------------------------
# Parquet
# --------------------------------------------------------------------------------------


def _read_parquet(path: Path, data: bytes) -> tuple[list[str], list[_Raw]]:
    try:
        frame = pd.read_parquet(io.BytesIO(data))
    except Exception as exc:  # pyarrow raises several unrelated types for a bad file
        raise CorpusError(path, f"not a readable Parquet file: {exc}") from exc
    header = [str(c) for c in frame.columns]
    frame.columns = header
    raws = [
        _Raw(number, None, fields, None)
        for number, fields in enumerate(frame.to_dict("records"), start=1)
    ]
    return header, raws


# --------------------------------------------------------------------------------------
# TypeScript literal reader
# --------------------------------------------------------------------------------------


class _Tok(NamedTuple):
    kind: str  # "str", "num", "ident", "punct", "eof"
    value: Any
    start: int
    end: int


_TRIVIA = re.compile(r"(?:[\s\ufeff]+|//[^\n\r\u2028\u2029]*)+")
_IDENT = re.compile(r"(?:[^\W\d]|\$)[\w$\u200c\u200d]*")
_NUMBER = re.compile(
    r"0[xX][0-9a-fA-F_]+n?|0[oO][0-7_]+n?|0[bB][01_]+n?"
    r"|(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9][0-9_]*)?n?"
)
_MULTI_PUNCT = ("...", "===", "!==", "=>", "==", "!=", "?.", "??", "<=", ">=", "&&", "||")
_PLAIN = {
    "'": re.compile(r"[^'\\\n\r]+"),
    '"': re.compile(r'[^"\\\n\r]+'),
    "`": re.compile(r"[^`\\$]+|\$(?!\{)"),
}
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v"}
_LINE_BREAKS = "\n\r\u2028\u2029"
_DIGITS = "0123456789"
_DIGITS1 = tuple(_DIGITS)  # membership of a 0-or-1 character slice: "" must not match


class _Lexer:
    """Tokens of a TypeScript source, with line numbers for errors."""

    def __init__(self, text: str, path: Path) -> None:
        self.text = text
        self.path = path
        self.pos = 0
        self._newlines = [m.start() for m in re.finditer("\n", text)]
        self._peeked: _Tok | None = None

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self._newlines, offset - 1) + 1

    def error(self, offset: int, reason: str, record: int | None = None) -> CorpusError:
        return CorpusError(self.path, reason, line=self.line_of(offset), record=record)

    def peek(self) -> _Tok:
        if self._peeked is None:
            self._peeked = self._scan()
        return self._peeked

    def next(self) -> _Tok:
        tok = self.peek()
        self._peeked = None
        return tok

    def _skip_trivia(self) -> None:
        text = self.text
        while True:
            match = _TRIVIA.match(text, self.pos)
            if match:
                self.pos = match.end()
            if text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.error(self.pos, "unterminated /* comment")
                self.pos = end + 2
                continue
            return

    def _scan(self) -> _Tok:
        self._skip_trivia()
        text, start = self.text, self.pos
        if start >= len(text):
            return _Tok("eof", None, start, start)
        char = text[start]
        if char in "'\"`":
            value = self._string(start)
            return _Tok("str", value, start, self.pos)
        if char in _DIGITS or (char == "." and text[start + 1 : start + 2] in _DIGITS1):
            match = _NUMBER.match(text, start)
            if match:
                self.pos = match.end()
                return _Tok("num", _number_value(match.group()), start, self.pos)
        match = _IDENT.match(text, start)
        if match:
            self.pos = match.end()
            return _Tok("ident", match.group(), start, self.pos)
        for punct in _MULTI_PUNCT:
            if text.startswith(punct, start):
                break
        else:
            punct = char
        self.pos = start + len(punct)
        return _Tok("punct", punct, start, self.pos)

    def _string(self, start: int) -> str | None:
        """Read a quoted or template literal starting at ``start``; leave pos after it.

        Returns ``None`` for a template literal with ``${...}`` substitutions, whose value
        is not a constant.
        """
        text, quote = self.text, self.text[start]
        plain = _PLAIN[quote]
        pos, parts, constant = start + 1, [], True
        while True:
            match = plain.match(text, pos)
            if match:
                parts.append(match.group())
                pos = match.end()
            if pos >= len(text):
                break
            char = text[pos]
            if char == quote:
                self.pos = pos + 1
                value = "".join(parts)
                if quote == "`":  # template literals normalise CRLF and CR to LF
                    value = value.replace("\r\n", "\n").replace("\r", "\n")
                return _join_surrogates(value) if constant else None
            if char == "\\":
                piece, pos = self._escape(pos + 1, start)
                parts.append(piece)
            elif char == "$":  # "${" in a template: skip the embedded expression
                pos = self._skip_substitution(pos + 2, start)
                constant = False
            else:  # a line break inside a quoted string
                break
        kind = "template literal" if quote == "`" else "string literal"
        raise self.error(start, f"unterminated {kind} (starts at line {self.line_of(start)})")

    def _skip_substitution(self, pos: int, literal_start: int) -> int:
        self.pos, depth = pos, 1
        while depth:
            tok = self._scan()
            if tok.kind == "eof":
                raise self.error(literal_start, "unterminated ${...} in template literal")
            if tok.kind == "punct":
                depth += {"{": 1, "}": -1}.get(tok.value, 0)
        return self.pos

    def _escape(self, pos: int, literal_start: int) -> tuple[str, int]:
        """Decode the escape whose backslash is just before ``pos``."""
        text = self.text
        if pos >= len(text):
            raise self.error(literal_start, "unterminated string literal")
        char = text[pos]
        if char in _LINE_BREAKS:  # line continuation: backslash-newline is nothing
            return "", pos + (2 if text.startswith("\r\n", pos) else 1)
        if char in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[char], pos + 1
        if char == "0" and text[pos + 1 : pos + 2] not in _DIGITS1:
            return "\0", pos + 1
        if char in _DIGITS:
            raise self.error(pos, f"octal escape \\{char} is not allowed in a module")
        if char == "x":
            return self._hex_escape(pos + 1, 2, "\\x"), pos + 3
        if char == "u":
            if text.startswith("{", pos + 1):
                end = text.find("}", pos + 2)
                digits = text[pos + 2 : end] if end > 0 else ""
                if not digits or not _is_hex(digits) or int(digits, 16) > 0x10FFFF:
                    raise self.error(pos, "invalid \\u{...} escape")
                return chr(int(digits, 16)), end + 1
            return self._hex_escape(pos + 1, 4, "\\u"), pos + 5
        return char, pos + 1  # \' \" \\ and any other character stand for themselves

    def _hex_escape(self, pos: int, width: int, name: str) -> str:
        digits = self.text[pos : pos + width]
        if len(digits) != width or not _is_hex(digits):
            raise self.error(pos, f"invalid {name} escape: expected {width} hex digits")
        return chr(int(digits, 16))


def _is_hex(digits: str) -> bool:
    return all(c in "0123456789abcdefABCDEF" for c in digits)


def _join_surrogates(value: str) -> str:
    # "\uD83D\uDE00" is one character in JavaScript; Python keeps two code points unless
    # the pair is recombined. Lone surrogates are left as they are.
    if not any("\ud800" <= c <= "\udfff" for c in value):
        return value
    return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _number_value(literal: str) -> int | float:
    digits = literal.replace("_", "")
    if digits.endswith("n"):  # BigInt
        return int(digits[:-1], 0)
    if digits[:2].lower() in ("0x", "0o", "0b"):
        return int(digits, 0)
    if any(c in digits for c in ".eE"):
        return float(digits)
    return int(digits)


class _Value(NamedTuple):
    value: Any
    start: int
    end: int
    is_string: bool


class _Parser:
    """Recursive descent over the literal syntax of a TypeScript data module."""

    def __init__(self, lexer: _Lexer) -> None:
        self.lx = lexer

    def fail(self, tok: _Tok, expected: str) -> CorpusError:
        found = {"eof": "end of file", "str": "a string", "num": "a number"}.get(tok.kind)
        found = found or f"{tok.value!r}"
        return self.lx.error(tok.start, f"syntax error: expected {expected}, found {found}")

    def expect(self, punct: str) -> _Tok:
        tok = self.lx.next()
        if tok.kind != "punct" or tok.value != punct:
            raise self.fail(tok, repr(punct))
        return tok

    def at(self, punct: str) -> bool:
        tok = self.lx.peek()
        return tok.kind == "punct" and tok.value == punct

    def find_array(self, name: str) -> None:
        """Advance to just after the ``[`` that opens ``const <name> ... = [``."""
        lx = self.lx
        while True:
            tok = lx.next()
            if tok.kind == "eof":
                raise CorpusError(
                    lx.path,
                    f"no `const {name} = [...]` array found (searched to line "
                    f"{lx.line_of(tok.start)})",
                )
            if tok.kind == "ident" and tok.value == "const" and lx.peek().value == name:
                decl = lx.next()
                break
        if self.at(":"):  # type annotation: skip to the "=" outside any brackets
            lx.next()
            depth = 0
            while not (depth == 0 and self.at("=")):
                tok = lx.next()
                if tok.kind == "eof":
                    raise self.fail(tok, f"'=' after the type of {name}")
                if tok.kind == "punct":
                    depth += {"(": 1, "[": 1, "{": 1, "<": 1}.get(tok.value, 0)
                    depth -= {")": 1, "]": 1, "}": 1, ">": 1}.get(tok.value, 0)
        self.expect("=")
        tok = lx.next()
        if tok.kind != "punct" or tok.value != "[":
            raise lx.error(decl.start, f"`const {name}` is not initialised with an array literal")

    def value(self) -> _Value:
        lx = self.lx
        tok = lx.next()
        if tok.kind == "str":
            if tok.value is None:
                raise lx.error(tok.start, "template literal with ${...} is not a constant")
            parts, end = [tok.value], tok.end
            while self.at("+"):  # 'a' +\n 'b': the corpus wraps long strings this way
                lx.next()
                more = lx.next()
                if more.kind != "str" or more.value is None:
                    raise self.fail(more, "a string literal after '+'")
                parts.append(more.value)
                end = more.end
            result = _Value("".join(parts), tok.start, end, True)
        elif tok.kind == "num":
            result = _Value(tok.value, tok.start, tok.end, False)
        elif tok.kind == "punct" and tok.value in "+-" and lx.peek().kind == "num":
            num = lx.next()
            result = _Value(
                -num.value if tok.value == "-" else num.value, tok.start, num.end, False
            )
        elif tok.kind == "ident" and tok.value in _KEYWORD_VALUES:
            result = _Value(_KEYWORD_VALUES[tok.value], tok.start, tok.end, False)
        elif tok.kind == "punct" and tok.value == "{":
            result = _Value(self.object_body()[0], tok.start, lx.pos, False)
        elif tok.kind == "punct" and tok.value == "[":
            result = _Value(self.array_body(), tok.start, lx.pos, False)
        else:
            raise self.fail(tok, "a literal value (string, number, object, array, true/false/null)")
        # `'model' as const` is a common TypeScript idiom in data modules; it does not
        # change the value.
        if lx.peek().kind == "ident" and lx.peek().value == "as":
            lx.next()
            const = lx.next()
            if const.value != "const":
                raise self.fail(const, "'const' after 'as'")
        return result

    def object_body(self) -> tuple[dict[str, Any], dict[str, _Value]]:
        """Parse after ``{`` up to and including ``}``; also return each value's span."""
        lx = self.lx
        fields: dict[str, Any] = {}
        spans: dict[str, _Value] = {}
        while not self.at("}"):
            key = lx.next()
            if key.kind in ("ident", "str") and key.value is not None:
                name = key.value
            elif key.kind == "num":
                name = str(key.value)
            else:
                raise self.fail(key, "a property name or '}'")
            self.expect(":")
            spans[name] = self.value()
            fields[name] = spans[name].value
            if not self.at("}"):
                self.expect(",")
        lx.next()
        return fields, spans

    def array_body(self) -> list[Any]:
        values: list[Any] = []
        while not self.at("]"):
            values.append(self.value().value)
            if not self.at("]"):
                self.expect(",")
        self.lx.next()
        return values


_KEYWORD_VALUES: dict[str, Any] = {"true": True, "false": False, "null": None, "undefined": None}


def seed_text(source: str) -> str:
    """The seed-004 reading of a field's source text.

    Concatenates every single-quoted segment of ``source`` as the regular expression
    ``'((?:[^'\\\\]|\\\\.)*)'`` would find them, then turns ``\\'`` into ``'``; every other
    escape stays as written. Double-quoted text only contributes what lies between single
    quotes inside it.

    Args:
        source: Raw source text of one value, e.g. ``"'a ' +\\n  'b'"``.

    Returns:
        The concatenated segments.

    Examples:
        >>> seed_text("'OpenAI\\\\'s ' +\\n  'model'")
        "OpenAI's model"
        >>> seed_text('"미국 공작 \\'Tech and Tariffs\\'"')
        'Tech and Tariffs'
        >>> seed_text('"no single quotes"')
        ''
        >>> seed_text("'line\\\\nbreak'")
        'line\\\\nbreak'
    """
    parts: list[str] = []
    size = len(source)
    start = source.find("'")
    while start >= 0:
        pos = start + 1
        # A segment runs over plain characters and backslash pairs; "\\." cannot take a
        # newline (no DOTALL), so a backslash before a newline or at the end stops it.
        while pos < size and source[pos] != "'":
            if source[pos] == "\\":
                if pos + 1 >= size or source[pos + 1] == "\n":
                    break
                pos += 2
            else:
                pos += 1
        if pos < size and source[pos] == "'":
            parts.append(source[start + 1 : pos])
            start = source.find("'", pos + 1)
        else:
            # No match from this quote; backtracking cannot help (every shorter run ends
            # before a non-quote), so the search resumes at the next quote after it.
            start = source.find("'", start + 1)
    return "".join(parts).replace("\\'", "'")


def _read_ts(path: Path, text: str, array_name: str, dialect: str) -> list[_Raw]:
    lexer = _Lexer(text, path)
    parser = _Parser(lexer)
    parser.find_array(array_name)
    raws: list[_Raw] = []
    while not parser.at("]"):
        tok = lexer.next()
        record = len(raws) + 1
        if tok.kind != "punct" or tok.value != "{":
            if tok.kind == "eof":
                raise parser.fail(tok, f"']' closing `{array_name}`")
            raise lexer.error(
                tok.start, f"element of `{array_name}` is not an object literal", record
            )
        fields, spans = parser.object_body()
        if dialect == "seed":
            for name, span in spans.items():
                if span.is_string:
                    fields[name] = seed_text(text[span.start : span.end])
        raws.append(_Raw(record, lexer.line_of(tok.start), fields, None))
        if not parser.at("]"):
            parser.expect(",")
    return raws

"""Corpus loading: one table of news items from a TypeScript module, JSON, CSV, Parquet or RSS.

:func:`load_corpus` returns a :class:`LoadResult` whose ``items`` frame has the canonical
columns (:data:`CANONICAL`) first, as plain ``str`` values in ``object`` columns, followed
by every other field of the file under its own name. Records that cannot be used (no id, no
title, a repeated id, a broken CSV row) are never dropped silently: each one is listed in
``LoadResult.rejected`` with its record number, line and reason, and one warning per load
summarises them. With ``strict=True`` the first such record raises :class:`CorpusError`.
Problems with the file as a whole (empty, undecodable, a syntax error) always raise.

This module holds the format dispatch, the column mapping and the validation shared by all
formats; the readers live in :mod:`newsdedup.corpus.typescript` (``news.ts``, both
dialects), :mod:`newsdedup.corpus.tabular` (JSON, JSONL, CSV, Parquet) and
:mod:`newsdedup.corpus.feedxml` (RSS, Atom), compressed files in
:mod:`newsdedup.corpus.compressed`, the error and record types in
:mod:`newsdedup.corpus.records`, URL hosts in :mod:`newsdedup.corpus.hosts`.
"""

from __future__ import annotations

import codecs
import datetime
import hashlib
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from newsdedup.corpus.compressed import COMPRESSED_SUFFIXES, compression_of, inner_name, unpack
from newsdedup.corpus.dates import OK, DateTexts, date_problem, read_date_texts
from newsdedup.corpus.feedxml import read_feed_xml
from newsdedup.corpus.hosts import host_of
from newsdedup.corpus.records import (
    CorpusError,
    CorpusWarning,
    RawRecord,
    Rejected,
    decode_bytes,
    field_problem,
)
from newsdedup.corpus.tabular import (
    read_csv,
    read_json,
    read_jsonl,
    read_lines,
    read_parquet,
    read_xlsx,
)
from newsdedup.corpus.typescript import read_ts
from newsdedup.text.normalize import canonical, is_blank

__all__ = [
    "CANONICAL",
    "DIALECTS",
    "FIELD_NAMES",
    "FORMATS",
    "CorpusError",
    "CorpusWarning",
    "LoadResult",
    "Rejected",
    "decode_bytes",
    "load_corpus",
    "look_alikes",
    "numbered_note",
]

CANONICAL: tuple[str, ...] = ("id", "title", "summary", "url", "host", "source", "published_at")
"""Columns every loaded table starts with, in this order, as ``str`` values."""

FORMATS: tuple[str, ...] = ("ts", "jsonl", "json", "csv", "parquet", "xml", "lines", "xlsx")
DIALECTS: tuple[str, ...] = ("standard", "seed")

_EXTENSIONS: dict[str, str] = {
    ".ts": "ts",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".csv": "csv",
    ".tsv": "csv",
    ".parquet": "parquet",
    ".xml": "xml",
    ".rss": "xml",
    ".atom": "xml",
    ".txt": "lines",
    ".xlsx": "xlsx",
    ".xls": "xlsx",  # read_xlsx says to save it as .xlsx
}

FIELD_NAMES: dict[str, tuple[str, ...]] = {
    "id": ("guid", "uid", "article_id", "news_id", "뉴스 식별자", "식별자", "기사 id"),
    "title": ("headline", "head", "제목", "헤드라인", "기사 제목"),
    "summary": ("description", "abstract", "snippet", "lead", "content", "body", "text", "요약",
                "본문", "내용"),
    "url": ("link", "href", "web_url", "링크", "주소"),
    "host": ("hostname", "domain", "도메인"),
    "source": ("publisher", "outlet", "media", "press", "source_name", "언론사", "매체", "출처"),
    "published_at": ("date", "pubdate", "published", "datetime", "timestamp", "time",
                     "created_at", "일자", "날짜", "발행일", "등록일", "입력일", "작성일"),
}
"""Names exports commonly give each canonical column (English and Korean), compared
without case, spaces, ``_`` or ``-``. They are only *suggested*, in an error's hint or in
:attr:`LoadResult.look_alikes`, never mapped without ``--columns``: a ``date`` may be a
crawl date, a ``text`` the whole article, and a guess that reads the wrong field would
change every figure without a word."""

# The compared texts are brought to NFC here, before anything else reads them, so that a
# decomposed (NFD) export loads into the same items as its precomposed twin: the subject
# gate, the outlet stripping and every scheme then see one spelling. Ids, URLs and the
# other fields are kept as written (an id is compared byte for byte by whatever joins on it).
_NFC_COLUMNS: tuple[str, ...] = ("title", "summary")

# Field-name defaults per format; user-supplied ``columns`` are laid over these.
_FORMAT_COLUMNS: dict[str, dict[str, str]] = {"ts": {"published_at": "publishedAt"}}


@dataclass(frozen=True, eq=False)
class LoadResult:
    """What :func:`load_corpus` read.

    Attributes:
        items: Canonical columns first, then the file's other fields; RangeIndex; file order.
        rejected: Records that could not be used, with reasons, in file order.
        path: The file or folder read.
        fmt: ``"ts"``, ``"jsonl"``, ``"json"``, ``"csv"``, ``"parquet"``, ``"xml"``,
            ``"lines"`` or ``"xlsx"``.
        sha256: Hex digest of the file's bytes as stored (compressed, if it is); of a
            folder, the digest of its files' ``sha256sum`` listing in name order.
        dialect: ``"standard"`` or ``"seed"``.
        n_records: Records seen; always ``len(items) + len(rejected)``.
        files: The files read, in order, when ``path`` is a folder; else empty.
        left_out: What a folder holds beside its corpus files (named in a warning).
        numbered: No record had an id field, so each item's id is its record number
            (``"7"``; ``"<file>:7"`` in a folder), said in a warning.
        look_alikes: ``(column, field)`` for each canonical column the file lacks under
            its name (and ``columns`` does not map) while one unmapped field is named as
            that column commonly is (:data:`FIELD_NAMES`): what a note suggests mapping.
    """

    items: pd.DataFrame
    rejected: list[Rejected]
    path: Path
    fmt: str
    sha256: str
    dialect: str
    n_records: int
    files: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()
    numbered: bool = False
    look_alikes: tuple[tuple[str, str], ...] = ()

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
    r"""Load a news corpus into a table of items.

    Args:
        path: The file; gzip, bzip2, xz or a zip of one file is read as the file it holds
            (:mod:`newsdedup.corpus.compressed`). A folder is read as one corpus: its files
            of one format, in name order (a feed's daily files); ids are unique across
            them, and a rejected record names its file.
        fmt: ``"ts"``, ``"jsonl"``, ``"json"``, ``"csv"``, ``"parquet"``, ``"xml"``,
            ``"lines"`` or ``"xlsx"``; inferred from the extension (``.ts``,
            ``.jsonl``/``.ndjson``, ``.json``, ``.csv``/``.tsv``, ``.parquet``,
            ``.xml``/``.rss``/``.atom``, ``.txt``, ``.xlsx``) when omitted, of the file held
            when compressed (``news.jsonl.gz``).
            ``json`` is one document: an array of records, or an object with one member
            holding them (as news APIs answer). ``xml`` is an RSS or Atom feed, one record
            per item under the canonical names (:mod:`newsdedup.corpus.feedxml`).
            ``lines`` is plain text, one headline per non-blank line; ``xlsx`` the one sheet
            of an Excel workbook that holds data, its first non-empty row the header.
        columns: Canonical name -> field name in the file, e.g. ``{"id": "ID"}``. Unmapped
            canonical names are looked up under their own name (and ``published_at`` under
            ``publishedAt`` for ``ts``). Fields not mapped are kept as extra columns. When
            no record has the id field (and ``columns`` names none), each item's id is its
            record number, and a warning says so (:attr:`LoadResult.numbered`).
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
        >>> _ = tmp.write_text('{"id": "a", "title": "T", "url": "https://x.org/1"}\n')
        >>> res = load_corpus(tmp)
        >>> res.items.loc[0, ["id", "title", "host", "summary"]].tolist()
        ['a', 'T', 'x.org', '']
    """
    path = Path(path)
    folder = path.is_dir()
    # Each file read, with the name of the file it holds (news.jsonl.gz holds news.jsonl).
    held, left_out = _corpus_files(path, fmt) if folder else ({path: inner_name(path)}, [])
    fmt = _one_format(path, held, fmt)
    _check_options(path, fmt, dialect, sep, encoding)
    mapping = _column_mapping(fmt, columns)

    digests: list[str] = []
    raws: list[RawRecord] = []
    fields: dict[str, None] = {}  # every file's field names, in the order first seen
    where: list[str] = []
    for file, inner in held.items():
        digest, file_fields, file_raws = _read_file(file, fmt, mapping, columns, array_name,
                                                    dialect, sep, encoding,
                                                    tab=inner.suffix.lower() == ".tsv",
                                                    empty_ok=folder)
        digests.append(digest)
        raws += file_raws
        fields.update(dict.fromkeys(file_fields))
        if folder:  # a folder's file: its records are counted in it
            where += [file.name] * len(file_raws)
    # An id named as a member of an object (--columns id=item.guid) is no header field.
    numbered = mapping["id"] not in fields and all(
        _field(raw.fields, mapping["id"]) is None for raw in raws)
    if numbered:
        raws = _numbered(path, raws, mapping["id"], where or None)
    items, extras, rejected = _validate(path, raws, mapping, list(fields), strict,
                                        where or None)
    if rejected and not items:
        # Nothing usable is a failure of the input, not a run with an empty result: most
        # often a mistyped --columns, or a file that is not what it claims to be.
        first = rejected[0]
        raise CorpusError(path if first.file is None else path / first.file,
                          f"every one of its {len(rejected)} records was rejected, so "
                          f"nothing is left to compare; the first: {first.reason}",
                          line=first.line, record=first.record)
    if rejected:
        _warn_rejected(path, rejected, len(raws))
    if left_out:
        warnings.warn(f"{path}: read {len(held)} files; left out {named(left_out)}",
                      CorpusWarning, stacklevel=2)
    if folder:
        # A folder's identity: the sha256 of its `sha256sum` listing, in name order.
        digest = hashlib.sha256("".join(f"{d}  {f.name}\n" for d, f in zip(digests, held,
                                                                            strict=True)
                                        ).encode()).hexdigest()
    return LoadResult(
        items=_frame(items, extras),
        rejected=rejected,
        path=path,
        fmt=fmt,
        sha256=digest,
        dialect=dialect,
        n_records=len(raws),
        files=tuple(f.name for f in held) if folder else (),
        left_out=tuple(left_out),
        numbered=numbered,
        look_alikes=look_alikes(mapping, list(fields)),
    )


def _folded(name: str) -> str:
    """A field name without case, spaces, ``_`` or ``-`` (``"Pub_Date"`` -> ``"pubdate"``)."""
    return "".join(ch for ch in name.casefold() if ch not in " _-")


def _look_alike(column: str, fields: Sequence[str]) -> str | None:
    """The one field of ``fields`` named as ``column`` or one of its :data:`FIELD_NAMES`."""
    names = {_folded(column), *map(_folded, FIELD_NAMES.get(column, ()))}
    hits = [f for f in fields if _folded(f) in names]
    return hits[0] if len(hits) == 1 else None


def look_alikes(mapping: Mapping[str, str], fields: Sequence[str]
                ) -> tuple[tuple[str, str], ...]:
    """Canonical columns the file lacks, each with the one unmapped field that looks like it.

    ``host`` is only suggested without a URL, from which it is derived otherwise.

    Examples:
        >>> m = {c: c for c in CANONICAL}
        >>> look_alikes(m, ["id", "title", "Pub_Date", "publisher", "HOSTNAME", "url"])
        (('source', 'publisher'), ('published_at', 'Pub_Date'))
        >>> look_alikes(m | {"published_at": "when"}, ["id", "title", "when", "date"])
        ()
    """
    present = set(fields)
    used = set(mapping.values()) & present
    free = [f for f in fields if f not in used]
    out = []
    for column in CANONICAL:
        if mapping[column] in present or (column == "host" and mapping["url"] in present):
            continue
        if mapping[column] != column:
            continue  # mapped by the caller to a field that is absent: an error already
        field = _look_alike(column, free)
        if field is not None:
            out.append((column, field))
    return tuple(out)


def numbered_note(field: str = "id", folder: bool = False) -> str:
    """What a load whose records carry no id says about the ids it gave them.

    Examples:
        >>> numbered_note()[:60]
        "no record has an 'id' field, so each item's id is its record"
    """
    where = " after its file's name (daily.txt:7)" if folder else ""
    return (f"no record has an {field!r} field, so each item's id is its record number "
            f"(1, 2, ...){where}; these ids hold while the file is not edited "
            f"(--columns id=FIELD reads a field of ids)")


def _numbered(path: Path, raws: list[RawRecord], field: str, files: list[str] | None
              ) -> list[RawRecord]:
    """The records with their record number as id (``<file>:<n>`` in a folder), said once.

    A list of headlines often has no ids; refusing it would leave the user to invent
    them, and the record number is what a reject or a labelling sheet names anyway. It
    identifies an item only while the file is not edited, which the warning says.
    """
    warnings.warn(f"{path}: {numbered_note(field, files is not None)}", CorpusWarning,
                  stacklevel=3)
    return [raw._replace(fields=raw.fields | {
        field: str(raw.record) if files is None else f"{files[k]}:{raw.record}"})
        for k, raw in enumerate(raws)]


def _read_file(
    path: Path,
    fmt: str,
    mapping: dict[str, str],
    columns: Mapping[str, str] | None,
    array_name: str,
    dialect: str,
    sep: str | None,
    encoding: str,
    tab: bool = False,
    empty_ok: bool = False,
) -> tuple[str, list[str], list[RawRecord]]:
    """One file's sha256 (as stored), field names and records, its header checked.

    ``tab``: the file (or the one it holds) is named ``.tsv``. ``empty_ok``: an empty file
    holds no record (a day without news in a folder of daily files) instead of being an
    error.
    """
    stored = path.read_bytes()
    digest = hashlib.sha256(stored).hexdigest()  # of the file as stored, compressed or not
    empty = "file is empty" if not stored.strip() else None
    # A workbook is itself a zip archive (of many files): read as stored, unless compressed
    # again (news.xlsx.gz).
    workbook = fmt == "xlsx" and compression_of(stored) == "zip"
    data = (stored if workbook else unpack(path, stored)) if empty is None else b""
    del stored  # a large compressed file's bytes are not kept beside its text
    if empty is None and not data.strip():
        empty = "file is empty once decompressed"
    if empty is not None:
        if empty_ok:
            return digest, [], []
        raise CorpusError(path, empty, line=1)
    header, raws = _read_records(path, data, fmt, array_name, dialect, sep, encoding, tab)
    if header is not None:
        file_fields = header
    else:
        file_fields = list(dict.fromkeys(k for raw in raws for k in raw.fields))
    if header is not None or file_fields:  # records all unreadable: the reject list says why
        # A mapped "a.b" is a member of an object field (JSON, TypeScript): present when a
        # record has it.
        members = [] if header is not None else [
            f for f in mapping.values() if "." in f and f not in file_fields
            and any(_field(raw.fields, f) is not None for raw in raws)]
        _check_header(path, fmt, file_fields + members, mapping, columns,
                      raws[0].line if header is None and raws else None)
    return digest, file_fields, raws


def _corpus_files(folder: Path, fmt: str | None) -> tuple[dict[Path, Path], list[str]]:
    """The corpus files of a folder, in name order, and the names it leaves out.

    Each file comes with the name of the file it holds
    (:func:`~newsdedup.corpus.compressed.inner_name`), which gives its format.

    A folder of a feed's daily files (``2024-05-01.jsonl``, ...) is one corpus: its
    files whose names end in a format's extension, compressed or not (only ``fmt``'s
    when given). Hidden files are passed over; other files and subfolders are left out
    and named (a README beside the data), never read in part.
    """
    if fmt not in (None, *FORMATS):
        raise ValueError(f"unknown format {fmt!r}; expected one of {FORMATS}")
    files: dict[Path, Path] = {}
    left_out: list[str] = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.startswith("."):
            continue
        inner = inner_name(entry) if entry.is_file() else None
        kind = _EXTENSIONS.get(inner.suffix.lower()) if inner is not None else None
        if inner is not None and kind is not None and fmt in (None, kind):
            files[entry] = inner
        else:
            left_out.append(entry.name + ("/" if entry.is_dir() else ""))
    kinds = {entry: _EXTENSIONS[inner.suffix.lower()] for entry, inner in files.items()}
    if fmt is None and set(kinds.values()) - {"lines"}:
        # Text beside data files is their notes (README.txt, LICENSE.txt), not a list of
        # headlines: left out and named, as any other file; --format lines reads them.
        notes = [entry for entry, kind in kinds.items() if kind == "lines"]
        left_out = sorted(left_out + [entry.name for entry in notes])
        files = {entry: inner for entry, inner in files.items() if entry not in notes}
    if not files:
        wanted = ", ".join(k for k, v in _EXTENSIONS.items() if fmt in (None, v))
        raise CorpusError(folder, f"the folder holds no corpus file (a name ending in {wanted}, "
                                  f"or one of these compressed); it holds "
                                  f"{named(left_out) or 'nothing'}")
    return files, left_out


def named(names: Sequence[str], shown: int = 5) -> str:
    """How many names, and the first ``shown`` of them, for a message; ``""`` for none.

    Examples:
        >>> named(["README.md", "notes/"]), named([f"{d}.txt" for d in range(7)], 2)
        ('2 (README.md, notes/)', '7 (0.txt, 1.txt, ...)')
    """
    head = ", ".join(names[:shown]) + (", ..." if len(names) > shown else "")
    return f"{len(names):,} ({head})" if names else ""


def _one_format(path: Path, held: dict[Path, Path], fmt: str | None) -> str:
    """The format of the files read: the one named, else the one their names give (one only).

    ``held``: each file read, with the name of the file it holds.
    """
    file, inner = next(iter(held.items()))
    if fmt is not None or file == path:
        return _resolve_format(file, fmt, inner)
    first: dict[str, str] = {}
    for file, inner in held.items():
        first.setdefault(_resolve_format(file, None, inner), file.name)
    if len(first) > 1:
        shown = ", ".join(f"{f} ({name}, ...)" for f, name in first.items())
        raise CorpusError(path, f"the folder holds files of {len(first)} formats: {shown}; "
                                "pass --format to read the files of one")
    return next(iter(first))


def _check_options(path: Path, fmt: str, dialect: str, sep: str | None, encoding: str) -> None:
    """Raise for a dialect, delimiter or encoding that cannot apply, naming the file."""
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}; expected one of {DIALECTS}")
    if dialect == "seed" and fmt != "ts":
        raise ValueError(f"dialect 'seed' applies only to the ts format, not {fmt!r}")
    if sep is not None and fmt != "csv":
        raise ValueError(f"{path}: a delimiter applies only to the csv format, not {fmt!r}")
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise CorpusError(path, f"unknown text encoding {encoding!r}") from None


def _warn_rejected(path: Path, rejected: list[Rejected], n_records: int) -> None:
    """The one warning per load that summarises the rejected records."""
    first = rejected[0]
    warnings.warn(
        f"{path}: rejected {len(rejected)} of {n_records} records; first: {first.where()}: "
        f"{first.reason}",
        CorpusWarning,
        stacklevel=3,  # the caller of load_corpus, as before this helper existed
    )


def _read_records(
    path: Path,
    data: bytes,
    fmt: str,
    array_name: str,
    dialect: str,
    sep: str | None,
    encoding: str,
    tab: bool,
) -> tuple[list[str] | None, list[RawRecord]]:
    """The file's records by its format's reader, with the header for CSV and Parquet.

    ``tab``: the file is named ``.tsv`` (its delimiter unless ``sep`` is given).
    """
    if fmt == "parquet":
        return read_parquet(path, data)
    if fmt == "xlsx":
        return read_xlsx(path, data)
    if fmt == "xml":  # the XML declaration may name the encoding
        return None, read_feed_xml(path, data, encoding)
    text = decode_bytes(path, data, encoding)
    if not text.strip():  # whitespace in an encoding whose bytes are not ASCII spaces
        raise CorpusError(path, "file is empty (only whitespace)", line=1)
    if fmt == "ts":
        return None, read_ts(path, text, array_name, dialect)
    if fmt == "jsonl":
        return None, read_jsonl(path, text)
    if fmt == "lines":
        return None, read_lines(path, text)
    if fmt == "json":
        return None, read_json(path, text)
    delimiter = sep if sep is not None else ("\t" if tab else ",")
    return read_csv(path, text, delimiter)


def _check_header(
    path: Path,
    fmt: str,
    fields: list[str],
    mapping: dict[str, str],
    columns: Mapping[str, str] | None,
    first_line: int | None,
) -> None:
    """Raise when the file lacks a title, a column the caller named, or its ids' name.

    ``fields`` is the header of a CSV or Parquet file, or every field name any record of a
    JSONL or TypeScript file has: a name in no record is as absent as one missing from a
    header (a mistyped ``--columns title=TITEL`` on a JSONL file). ``first_line`` is the
    line of the first record of a file without a header (None for CSV and Parquet).
    A file without an id field has its records numbered (:func:`_numbered`), unless a
    field spells the id's name in another case (``ID``): then those are its ids, and
    the caller is asked to map them.
    """
    # A column the caller named explicitly but the file lacks is a configuration error,
    # not a property of every record; say so once instead of rejecting every row.
    # The same goes for the title, without which no record can be used.
    ids = any(f.casefold() == mapping["id"].casefold() for f in fields)
    needed = ({"id": mapping["id"]} if ids else {}) | {"title": mapping["title"]} | dict(
        columns or {})
    absent = {c: f for c, f in needed.items() if f not in fields}
    if absent:
        wanted = ", ".join(f"{f!r} (for {c!r})" for c, f in absent.items())
        hint = (fmt == "csv" and _delimiter_hint(fields)) or _columns_hint(absent, fields)
        if fmt in ("csv", "parquet", "xlsx"):
            line = 1 if fmt == "csv" else None
            raise CorpusError(path, f"column {wanted} not in the header {fields}; {hint}",
                              line=line)
        shown = fields[:20] + (["..."] if len(fields) > 20 else [])
        raise CorpusError(path, f"field {wanted} is in no record; the records' fields: {shown}; "
                          f"{hint}", line=first_line)


def _delimiter_hint(header: list[str]) -> str | None:
    """A header of one field holding a separator: the file is delimited by another character.

    Examples:
        >>> _delimiter_hint(["id;title"])
        "the header is one field holding ';': if that separates the fields, pass --delimiter ';'"
        >>> _delimiter_hint(["id", "title"]) is None, _delimiter_hint(["headline"]) is None
        (True, True)
    """
    seps = [c for c in ";\t|," if len(header) == 1 and c in header[0]]
    if not seps:
        return None
    held, option = ("a tab", "tab") if seps[0] == "\t" else (repr(seps[0]), repr(seps[0]))
    return (f"the header is one field holding {held}: if that separates the fields, pass "
            f"--delimiter {option}")


def _columns_hint(absent: Mapping[str, str], fields: list[str]) -> str:
    """How to name the missing columns: ``--columns``, with the field that looks like each.

    A field looks like a column when it differs from the name asked for only in case, or is
    named as the column commonly is (:data:`FIELD_NAMES`).

    Examples:
        >>> _columns_hint({"id": "id", "title": "title"}, ["ID", "TITLE", "URL"])
        'map them with --columns id=ID,title=TITLE'
        >>> _columns_hint({"title": "TITEL"}, ["id", "title"])
        'map them with --columns title=title'
        >>> _columns_hint({"title": "title"}, ["Headline"])
        'map them with --columns title=Headline'
        >>> _columns_hint({"title": "title"}, ["name"])
        'name the field of each with --columns, e.g. --columns title=<field>'
    """
    folded: dict[str, list[str]] = {}
    for f in fields:
        folded.setdefault(f.casefold(), []).append(f)

    def one_field(name: str) -> str | None:
        hits = folded.get(name.casefold(), [])
        return hits[0] if len(hits) == 1 else None

    # The name asked for in another case, else the column's own name (a mistyped mapping;
    # not for a member path such as source.nam, whose object is no text).
    found = {c: m for c, f in absent.items()
             if (m := one_field(f) or (one_field(c) if "." not in f else None)
                 or (_look_alike(c, fields) if f == c else None))}
    option = ",".join(f"{c}={found.get(c, '<field>')}" for c in absent)
    if len(found) == len(absent):
        return f"map them with --columns {option}"
    return f"name the field of each with --columns, e.g. --columns {option}"


def _resolve_format(path: Path, fmt: str | None, inner: Path) -> str:
    """The format named, else the one the ending of ``inner`` (the file ``path`` holds) gives."""
    if fmt is None:
        suffix = inner.suffix.lower()
        if suffix not in _EXTENSIONS:
            known = ", ".join(_EXTENSIONS)
            held = "" if inner == path else f" of the file it holds ({inner.name})"
            raise ValueError(
                f"{path}: cannot infer the format from extension {suffix!r}{held} (known: "
                f"{known}, each also compressed: {', '.join(COMPRESSED_SUFFIXES)}); "
                f"pass --format (fmt=) one of {FORMATS}"
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


class _NotText(Exception):
    pass


def _as_text(value: Any) -> str:
    """A canonical field's value as ``str``: missing -> ``""``, numbers -> their digits."""
    if value is None or value is pd.NaT or value is pd.NA:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes | bytearray):  # Parquet binary columns
        # str(b"...") would give the text "b'\\xec...'", which then dedupes as such.
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError as exc:
            bad = bytes(value)[exc.start : exc.end].hex(" ")
            raise _NotText(f"bytes 0x{bad} at byte offset {exc.start} are not UTF-8") from exc
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
    raws: list[RawRecord],
    mapping: dict[str, str],
    file_fields: list[str],
    strict: bool,
    files: list[str] | None = None,
) -> tuple[list[dict[str, Any]], list[str], list[Rejected]]:
    """Map fields to canonical columns and sort records into items and rejects.

    ``files``: per record, the name of the folder's file it is in (None: one file).
    """
    consumed = set(mapping.values())
    derive_host = mapping["host"] not in file_fields
    # A file field named like a canonical column that was mapped elsewhere (say a "title"
    # field when title comes from "headline") must not overwrite the canonical column.
    extras = {f: (f"{f}_orig" if f in CANONICAL else f) for f in file_fields if f not in consumed}

    items: list[dict[str, Any]] = []
    rejected: list[Rejected] = []
    first_seen: dict[str, tuple[int, dict[str, Any]]] = {}

    def file_of(number: int) -> str | None:
        return None if files is None else files[number]

    def reject(number: int, rid: str | None, reason: str) -> None:
        raw, file = raws[number], file_of(number)
        if strict:
            raise CorpusError(path if file is None else path / file, reason, line=raw.line,
                              record=raw.record)
        rejected.append(Rejected(raw.record, raw.line, rid or None, reason, raw.last_line, file))

    dates = _dates(raws, mapping["published_at"])
    for number, raw in enumerate(raws):
        problem = raw.problem if raw.problem is not None else field_problem(raw.fields)
        if problem is not None:
            rid = _field(raw.fields, mapping["id"])
            ok_id = isinstance(rid, str) and field_problem({"id": rid}) is None
            reject(number, rid.strip() if ok_id and isinstance(rid, str) else None, problem)
            continue
        row, problem = _canonical_row(raw, mapping, int(dates.status[number]),
                                      dates.iso[number])
        # Reported ids are as written; a blank one is reported as None.
        rid = row["id"] if row["id"].strip() else ""
        if problem is not None:
            reject(number, rid, problem)
            continue
        # Ids are compared as written: " a" and "a" are different ids, as they are to
        # anything that joins on them later. Only accepted records claim an id, so a record
        # rejected for another reason does not make a later, usable one a duplicate.
        if row["id"] in first_seen:
            at, kept = first_seen[row["id"]]
            first, file = raws[at], file_of(at)
            where = ("" if file is None else f"{file} ") + f"record {first.record}" + (
                "" if first.line is None else f", line {first.line}"
            )
            reject(number, rid,
                   f"duplicate id {row['id']!r} (first at {where}){_repeat(row, kept)}")
            continue
        first_seen[row["id"]] = number, row
        if derive_host:
            row["host"] = host_of(row["url"])
        for field, column in extras.items():
            row[column] = raw.fields.get(field)
        items.append(row)
    return items, list(extras.values()), rejected


_COMPARED = {"title": "title", "summary": "summary", "url": "url", "source": "source",
             "published_at": "date"}


def _repeat(row: dict[str, Any], kept: dict[str, Any]) -> str:
    """How a record with a taken id relates to the one kept: a repeat, or what differs.

    A feed polled again and again (a crawler's log, RSS snapshots appended) repeats its
    items whole: harmless. Two different items under one id are a fault of the feed.

    Examples:
        >>> _repeat({"title": "A", "url": "u"}, {"title": "A", "url": "u"})
        ', the same item again'
        >>> _repeat({"title": "A", "url": "u"}, {"title": "B", "url": "u"})
        ', with another title'
    """
    differ = [word for c, word in _COMPARED.items() if row.get(c, "") != kept.get(c, "")]
    return f", with another {differ[0]}" if differ else ", the same item again"


def _dates(raws: list[RawRecord], field: str) -> DateTexts:
    """Per record: its ``published_at`` read by the date rule (one vectorized parse)."""
    texts = []
    for raw in raws:
        try:
            texts.append(_as_text(_field(raw.fields, field)))
        except (_NotScalar, _NotText):  # reported as such by _canonical_row
            texts.append("")
    return read_date_texts(texts)


def _field(fields: dict[str, Any], name: str) -> Any:
    """A record's field; ``a.b`` is member ``b`` of object ``a`` when no field is named so.

    News APIs nest what a feed keeps flat (NewsAPI's ``"source": {"id": …, "name": …}``),
    so ``--columns source=source.name`` reaches into the object.

    Examples:
        >>> _field({"source": {"name": "BBC"}, "a.b": 1}, "source.name"), _field({"a.b": 1}, "a.b")
        ('BBC', 1)
        >>> _field({"source": "x"}, "source.name") is None
        True
    """
    if name in fields or "." not in name:
        return fields.get(name)
    value: Any = fields
    for part in name.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def _canonical_row(
    raw: RawRecord, mapping: dict[str, str], date_status: int, date_iso: str | None
) -> tuple[dict[str, Any], str | None]:
    """The canonical columns of one record as text, and why it is unusable (None if usable).

    An unparsable date rejects the record here, with its line, rather than later: the
    cross-host windows cannot place it and the keep rules cannot rank it, and ranking it
    oldest (as the dedupe once did) would silently decide representatives by a typo. So
    does a date outside the ``datetime64[ns]`` range (year 9999). A date written as RFC
    2822, epoch seconds or milliseconds, year-first digits or as pages print it is stored
    in its ISO 8601 spelling (``date_iso``), so that every later reader of
    ``published_at`` (a labeller reading the sheet among them) sees ISO.
    """
    row: dict[str, Any] = {}
    problem = None
    for name in CANONICAL:
        field = mapping[name]
        value = _field(raw.fields, field)
        try:
            row[name] = _as_text(value)
        except _NotScalar:
            row[name] = ""
            texts = [k for k, v in value.items() if isinstance(v, str) and v.strip()
                     ] if isinstance(value, dict) else []
            hint = (f"; map a member with --columns {name}={field}.{texts[0]}" if texts
                    else "")
            problem = problem or (f"field {field!r} ({name}) is an object or array, not "
                                  f"text{hint}")
        except _NotText as exc:
            row[name] = ""
            problem = problem or f"field {field!r} ({name}): {exc}"
    for name in _NFC_COLUMNS:
        row[name] = canonical(row[name])
    if problem is not None:
        return row, problem
    if not row["id"].strip():
        return row, f"missing id (field {mapping['id']!r} is absent or empty)"
    # A title of zero-width spaces or joiners shows nothing and normalizes to "": it is as
    # missing as an empty one, and would otherwise join every other such title as a copy.
    if is_blank(row["title"]):
        what = "absent or empty" if not row["title"].strip() else "blank: only invisible characters"
        return row, f"missing title (field {mapping['title']!r} is {what})"
    if date_status != OK:
        return row, date_problem(mapping["published_at"], row["published_at"], date_status)
    if date_iso is not None:
        row["published_at"] = date_iso
    return row, None


def _frame(items: list[dict[str, Any]], extras: list[str]) -> pd.DataFrame:
    # dtype=object is explicit because pandas >= 3 would otherwise infer its "str" dtype
    # for text columns, and extras may hold dicts or numbers that must stay as they are.
    return pd.DataFrame(
        {
            column: pd.Series([item[column] for item in items], dtype=object)
            for column in (*CANONICAL, *extras)
        }
    )

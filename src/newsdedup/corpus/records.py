"""What every corpus reader produces and reports: parsed records, rejects and errors.

The format readers (:mod:`newsdedup.corpus.typescript`, :mod:`newsdedup.corpus.tabular`)
turn a file into :class:`RawRecord` values and raise :class:`CorpusError` for faults of the
file as a whole; :func:`newsdedup.corpus.load.load_corpus` validates the records and lists
the unusable ones as :class:`Rejected`.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple


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
        """Build the message ``path:line: record N: reason`` from the parts that are known."""
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
        """Pickle by the constructor's arguments (errors cross process pools)."""
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
        last_line: The last line of the record's text when it runs over lines that
            look like further records (an unclosed quote swallowing them), else ``None``.
        file: The file of a folder the record is in (``record`` and ``line`` count in
            that file); ``None`` when one file was read.
    """

    record: int
    line: int | None
    id: str | None
    reason: str
    last_line: int | None = None
    file: str | None = None

    def where(self) -> str:
        """Where the record is, for messages: ``record 3 (line 4)``, after its file's name.

        Examples:
            >>> Rejected(3, 4, None, "x").where()
            'record 3 (line 4)'
            >>> Rejected(2, None, None, "x", file="b.csv").where()
            'b.csv record 2'
        """
        head = f"{self.file} " if self.file is not None else ""
        return f"{head}record {self.record}" + ("" if self.line is None else f" (line {self.line})")


class RawRecord(NamedTuple):
    """A record as parsed, before column mapping and validation.

    Attributes:
        record: 1-based record number in file order.
        line: 1-based line the record starts on (``None`` for Parquet).
        fields: Field name -> value as read.
        problem: Set when the record is already known to be unusable (CSV).
        last_line: See :attr:`Rejected.last_line`.
    """

    record: int
    line: int | None
    fields: dict[str, Any]
    problem: str | None
    last_line: int | None = None


UNICODE_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),  # before UTF-16's: FF FE 00 00 begins with FF FE
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
"""Byte-order marks that name a UTF-16 or UTF-32 file (:func:`decode_bytes`)."""


def bom_encoding(data: bytes, encoding: str) -> str:
    r"""The encoding to read ``data`` in: ``encoding``, or the UTF-16/32 its byte-order mark names.

    Excel's "Unicode Text" export and some Windows tools write UTF-16 with a byte-order
    mark. Such a file is never valid UTF-8 (FF and FE are no UTF-8 bytes), so when
    UTF-8 is asked (the default) the mark decides; an encoding the user named otherwise
    is kept.

    Examples:
        >>> bom_encoding("id".encode("utf-16"), "utf-8"), bom_encoding(b"id", "utf-8")
        ('utf-16', 'utf-8')
        >>> bom_encoding("id".encode("utf-32"), "UTF8"), bom_encoding(b"\xff\xfei", "cp949")
        ('utf-32', 'cp949')
    """
    if codecs.lookup(encoding).name != "utf-8":
        return encoding
    return next((name for bom, name in UNICODE_BOMS if data.startswith(bom)), encoding)


def decode_bytes(path: str | Path, data: bytes, encoding: str = "utf-8") -> str:
    r"""Decode a text file's bytes, naming the line and byte offset of a bad sequence.

    A leading byte-order mark is dropped (spreadsheet exports often carry one, and it
    would otherwise stick to the first header name); a UTF-16 or UTF-32 one is read
    as its encoding when UTF-8 is asked (:func:`bom_encoding`).

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
        >>> decode_bytes("f.txt", "id\n가나".encode("utf-16"))
        'id\n가나'
        >>> decode_bytes("f.txt", b"ok\n\xff")
        Traceback (most recent call last):
        ...
        newsdedup.corpus.records.CorpusError: f.txt:2: cannot decode byte 0xff at byte offset 3 ...
    """
    asked, encoding = encoding, bom_encoding(data, encoding)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        # Lines are counted in the text before the bad bytes: in UTF-16 a newline is
        # two bytes, and one of them may be 0x0A inside another character.
        line = data[: exc.start].decode(encoding, errors="replace").count("\n") + 1
        bad = data[exc.start : exc.end].hex(" ")
        plural = "s" if exc.end - exc.start > 1 else ""
        raise CorpusError(
            path,
            f"cannot decode byte{plural} 0x{bad} at byte offset {exc.start} as {encoding}; "
            + (_encoding_hint(data, encoding) if encoding == asked else
               f"its byte-order mark says {encoding}: the file is damaged or cut short"),
            line=line,
        ) from exc
    return text.removeprefix("\ufeff")


LEGACY_ENCODINGS = ("utf-8", "cp949", "cp1252")
"""Encodings an error message tries when a file does not decode as asked: UTF-8, then
the Windows code pages of Korean (a superset of EUC-KR) and Western European text, the
legacy encodings of the feeds this tool reads first. Only a hint: nothing is decoded
with them unless the user passes ``--encoding``."""


def _encoding_hint(data: bytes, asked: str) -> str:
    r"""Which ``--encoding`` to pass: the first of :data:`LEGACY_ENCODINGS` the bytes decode in.

    Examples:
        >>> _encoding_hint("뉴스".encode("cp949"), "utf-8")
        'the whole file decodes as cp949: pass --encoding cp949 if that is its encoding'
        >>> _encoding_hint(b"\xff\xfe\x81", "utf-8")
        'pass the encoding of the file with --encoding'
        >>> _encoding_hint("id".encode("utf-16"), "cp949")
        'the file begins with a utf-16 byte-order mark: pass --encoding utf-16 (or none)'
    """
    marked = next((name for bom, name in UNICODE_BOMS if data.startswith(bom)), None)
    if marked is not None and _decodes(data, marked):
        return (f"the file begins with a {marked} byte-order mark: pass --encoding {marked} "
                "(or none)")
    for candidate in LEGACY_ENCODINGS:
        if codecs.lookup(candidate).name == codecs.lookup(asked).name:
            continue
        if not _decodes(data, candidate):
            continue
        return (f"the whole file decodes as {candidate}: pass --encoding {candidate} if that "
                "is its encoding")
    return "pass the encoding of the file with --encoding"


def _decodes(data: bytes, encoding: str) -> bool:
    """Whether ``data`` decodes in ``encoding``."""
    try:
        data.decode(encoding)
    except UnicodeDecodeError:
        return False
    return True


MAX_NESTING = 64
"""Deepest nesting of arrays and objects a record's field may have (levels below the field).

A news record's extra fields are flat or shallow; a field nested hundreds of levels deep
is damage or an attack, and everything that later prints or copies it recursively (the
CSV writer, ``repr``) would stop on Python's recursion limit."""


def _surrogate(text: str) -> str | None:
    """Where a text holds a lone UTF-16 surrogate (``"U+D800 at character 4"``), else None."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"U+{ord(text[exc.start]):04X} at character {exc.start + 1}"
    return None


def field_problem(fields: dict[str, Any], max_depth: int = MAX_NESTING) -> str | None:
    r"""Why a parsed record cannot be used whatever its columns: a lone surrogate, deep nesting.

    A JSON or JavaScript string may escape half of a surrogate pair alone (``"\ud800"``):
    it parses, but is no character, and every UTF-8 writer fails on it, so the record is
    rejected here rather than the command failing at its first write. The walk is
    iterative, so a field nested beyond the recursion limit is reported, not crashed on.

    Args:
        fields: Field name -> value as read (strings, numbers, lists, dicts).
        max_depth: Deepest nesting allowed below a field (:data:`MAX_NESTING`).

    Returns:
        The reason, naming the field, or None.

    Examples:
        >>> field_problem({"id": "a", "title": "ok", "tags": ["x", {"y": "z"}]}) is None
        True
        >>> field_problem({"id": "a", "title": "bad \ud800"})[:67]
        "field 'title' holds a lone UTF-16 surrogate (U+D800 at character 5)"
        >>> field_problem({"x": [[[[0]]]]}, max_depth=2)
        "field 'x' nests arrays or objects deeper than 2 levels"
    """
    for key in fields:
        if isinstance(key, str) and (where := _surrogate(key)) is not None:
            return (f"field name {key.encode('utf-8', 'backslashreplace').decode()!r} holds a "
                    f"lone UTF-16 surrogate ({where}), which is not a character")
    stack: list[tuple[str, Any, int]] = [(str(k), v, 0) for k, v in fields.items()]
    while stack:
        name, value, depth = stack.pop()
        if isinstance(value, str):
            if (where := _surrogate(value)) is not None:
                return (f"field {name!r} holds a lone UTF-16 surrogate ({where}), which is not "
                        "a character")
        elif isinstance(value, dict | list | tuple):
            if depth >= max_depth:
                return f"field {name!r} nests arrays or objects deeper than {max_depth} levels"
            if isinstance(value, dict):  # keys are strings too, and may hold a surrogate
                stack.extend((name, k, depth + 1) for k in value if isinstance(k, str))
            stack.extend((name, item, depth + 1) for item in
                         (value.values() if isinstance(value, dict) else value))
    return None

r"""TypeScript data modules (the pinned ``news.ts``): the ``standard`` and ``seed`` dialects.

The reader is a small tokenizer plus a recursive-descent parser for the
``const entries: NewsItem[] = [ ... ];`` literal of the pinned paldyn corpus. It is not a
TypeScript implementation: it reads literals (strings, numbers, ``true``/``false``/``null``,
objects, arrays, ``+`` between string literals) and only skims the code before the array.

``dialect="seed"`` reproduces the field extraction behind the published tables of seed 004:
for each top-level string field it concatenates the single-quoted segments of the value's
source text and unescapes only ``\'`` (:func:`seed_text`). It differs from correct
decoding exactly where a value is double-quoted or uses another backslash escape.
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path
from typing import Any, NamedTuple

from newsdedup.corpus.records import MAX_NESTING, CorpusError, RawRecord

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
                try:
                    number: Any = _number_value(match.group())
                except ValueError as exc:  # more than 4,300 digits: int's own limit
                    number = _Unreadable(str(exc))
                return _Tok("num", number, start, self.pos)
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


class _Unreadable(NamedTuple):
    """A number literal Python cannot hold (its value; the record holding it is rejected)."""

    reason: str


class _Value(NamedTuple):
    value: Any
    start: int
    end: int
    is_string: bool


class _Parser:
    """Recursive descent over the literal syntax of a TypeScript data module."""

    def __init__(self, lexer: _Lexer) -> None:
        self.lx = lexer
        # Faults of one value that do not break the syntax around it (a ${...} template):
        # the record holding them is rejected, and the records after it still load.
        self.problems: list[str] = []

    def not_constant(self, tok: _Tok) -> None:
        line = self.lx.line_of(tok.start)
        self.problems.append(f"template literal with ${{...}} on line {line} is not a constant")

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

    def value(self, depth: int = 0) -> _Value:
        lx = self.lx
        tok = lx.next()
        if depth > MAX_NESTING and tok.kind == "punct" and tok.value in "[{":
            # Deeper than any news field: skipped without recursing (Python's recursion
            # limit would stop the whole load), and its record rejected.
            self.problems.append(f"arrays or objects nested deeper than {MAX_NESTING} levels "
                                 f"on line {lx.line_of(tok.start)}")
            self._skip_nested()
            return _Value(None, tok.start, lx.pos, False)
        if tok.kind == "str":
            if tok.value is None:
                self.not_constant(tok)
            parts, end = [tok.value or ""], tok.end
            while self.at("+"):  # 'a' +\n 'b': the corpus wraps long strings this way
                lx.next()
                more = lx.next()
                if more.kind != "str":
                    raise self.fail(more, "a string literal after '+'")
                if more.value is None:
                    self.not_constant(more)
                parts.append(more.value or "")
                end = more.end
            result = _Value("".join(parts), tok.start, end, True)
        elif tok.kind == "num":
            result = _Value(self.number(tok), tok.start, tok.end, False)
        elif tok.kind == "punct" and tok.value in "+-" and lx.peek().kind == "num":
            num = lx.next()
            value = self.number(num)
            result = _Value(
                -value if tok.value == "-" and value is not None else value, tok.start,
                num.end, False
            )
        elif tok.kind == "ident" and tok.value in _KEYWORD_VALUES:
            result = _Value(_KEYWORD_VALUES[tok.value], tok.start, tok.end, False)
        elif tok.kind == "punct" and tok.value == "{":
            result = _Value(self.object_body(depth + 1)[0], tok.start, lx.pos, False)
        elif tok.kind == "punct" and tok.value == "[":
            result = _Value(self.array_body(depth + 1), tok.start, lx.pos, False)
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

    def number(self, tok: _Tok) -> Any:
        """A number token's value; None (and a problem of the record) when unreadable."""
        if isinstance(tok.value, _Unreadable):
            self.problems.append(f"number on line {self.lx.line_of(tok.start)}: "
                                 f"{tok.value.reason}")
            return None
        return tok.value

    def _skip_nested(self) -> None:
        """Skip the rest of an array or object literal whose opening bracket was just read."""
        lx, open_brackets = self.lx, 1
        while open_brackets:
            tok = lx.next()
            if tok.kind == "eof":
                raise self.fail(tok, "']' or '}' closing a nested literal")
            if tok.kind == "punct" and tok.value in "[{":
                open_brackets += 1
            elif tok.kind == "punct" and tok.value in "]}":
                open_brackets -= 1

    def object_body(self, depth: int = 0) -> tuple[dict[str, Any], dict[str, _Value]]:
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
            spans[name] = self.value(depth)
            fields[name] = spans[name].value
            if not self.at("}"):
                self.expect(",")
        lx.next()
        return fields, spans

    def array_body(self, depth: int = 0) -> list[Any]:
        values: list[Any] = []
        while not self.at("]"):
            values.append(self.value(depth).value)
            if not self.at("]"):
                self.expect(",")
        self.lx.next()
        return values


# A line inside a string literal that opens an object literal: the shape of the records
# that an unclosed quote or backtick swallows (a template literal may span lines, so the
# syntax alone cannot tell).
_SWALLOWED_RECORD = re.compile(r"[\n\r\u2028\u2029][ \t]*\{")

_KEYWORD_VALUES: dict[str, Any] = {"true": True, "false": False, "null": None, "undefined": None}


def seed_text(source: str) -> str:
    r"""The seed-004 reading of a field's source text.

    Concatenates every single-quoted segment of ``source`` as the regular expression
    ``'((?:[^'\\]|\\.)*)'`` would find them, then turns ``\'`` into ``'``; every other
    escape stays as written. Double-quoted text only contributes what lies between single
    quotes inside it.

    Args:
        source: Raw source text of one value, e.g. ``"'a ' +\n  'b'"``.

    Returns:
        The concatenated segments.

    Examples:
        >>> seed_text("'OpenAI\\'s ' +\n  'model'")
        "OpenAI's model"
        >>> seed_text('"미국 공작 \'Tech and Tariffs\'"')
        'Tech and Tariffs'
        >>> seed_text('"no single quotes"')
        ''
        >>> seed_text("'line\\nbreak'")
        'line\\nbreak'
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


def read_ts(path: Path, text: str, array_name: str, dialect: str) -> list[RawRecord]:
    """The object literals of the array ``const <array_name> = [...]`` in a TypeScript module.

    Args:
        path: The file, for error messages.
        text: Its decoded text.
        array_name: Name of the ``const`` array holding the items.
        dialect: ``"standard"`` decodes string literals as JavaScript does; ``"seed"``
            replaces each string field by :func:`seed_text` of its source text.

    Returns:
        One record per object literal, numbered in file order, with the line of its ``{``;
        a record holding a ``${...}`` template literal has ``problem`` set (naming the
        template's line) and the records after it are read as usual; so has a record with
        a string literal whose lines open object literals (records an unclosed quote
        swallowed), with ``last_line`` set so the reject covers the lines it hides.

    Raises:
        CorpusError: No such array, a syntax error, or an element that is not an object
            literal (with the line).

    Examples:
        >>> read_ts(Path("n.ts"), "const entries = [{ id: 'a', n: 2 }];", "entries", "standard")
        [RawRecord(record=1, line=1, fields={'id': 'a', 'n': 2}, problem=None,
        last_line=None)]
    """
    lexer = _Lexer(text, path)
    parser = _Parser(lexer)
    parser.find_array(array_name)
    raws: list[RawRecord] = []
    while not parser.at("]"):
        tok = lexer.next()
        record = len(raws) + 1
        if tok.kind != "punct" or tok.value != "{":
            if tok.kind == "eof":
                raise parser.fail(tok, f"']' closing `{array_name}`")
            raise lexer.error(
                tok.start, f"element of `{array_name}` is not an object literal", record
            )
        parser.problems.clear()
        fields, spans = parser.object_body()
        if dialect == "seed":
            for name, span in spans.items():
                if span.is_string:
                    fields[name] = seed_text(text[span.start : span.end])
        swallowed = [(lexer.line_of(span.start), lexer.line_of(span.end - 1))
                     for span in spans.values()
                     if span.is_string and _SWALLOWED_RECORD.search(text, span.start, span.end)]
        last_line = max((b for _, b in swallowed), default=None)
        for a, b in swallowed:
            parser.problems.append(f"a string literal over lines {a}-{b} holds lines that "
                                   "open object literals (an unclosed quote or backtick "
                                   "swallowing records?)")
        problem = "; ".join(parser.problems) or None
        raws.append(RawRecord(record, lexer.line_of(tok.start), fields, problem, last_line))
        if not parser.at("]"):
            parser.expect(",")
    return raws

"""Text cells that are safe to open in a spreadsheet, and read back as written.

A CSV cell whose text starts with ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return is run as a formula by Excel, LibreOffice and Google Sheets
(``=HYPERLINK(...)`` in a headline becomes a live link; CSV injection).
:func:`escape_cell` puts an apostrophe in front of such text, the prefix the
spreadsheets themselves use for "this is text"; :func:`unescape_cell` removes
it again, so the sheets the workbench writes (labeling sheets, ids) read back
into the same ids. Only text is escaped, never numbers: ``-0.5`` as a float
stays a number.
"""

from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a cell as a formula."""

ESCAPE = "'"
"""The prefix that marks an escaped cell."""


def escape_cell(value: object) -> object:
    """``value`` with an apostrophe in front when it is text a spreadsheet would run.

    Examples:
        >>> escape_cell("=SUM(A1:A9)"), escape_cell("plain"), escape_cell(-1.5)
        ("'=SUM(A1:A9)", 'plain', -1.5)
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return ESCAPE + value
    return value


def unescape_cell(value: str) -> str:
    """The text :func:`escape_cell` escaped, without its apostrophe (other text unchanged).

    Examples:
        >>> unescape_cell("'=1+2"), unescape_cell("'quoted"), unescape_cell("-3")
        ('=1+2', "'quoted", '-3')
    """
    if value.startswith(ESCAPE) and value[1:].startswith(FORMULA_STARTS):
        return value[1:]
    return value

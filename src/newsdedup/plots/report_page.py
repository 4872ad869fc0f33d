"""The run report rendered: one self-contained HTML page and its Markdown twin.

The HTML page needs nothing beside it and no network: figures are inline
PNGs (``data:`` URLs), the style is inline, and Korean text renders with
NanumGothic embedded as a subset of the characters the page uses
(:func:`newsdedup.plots.fonts.font_face_css`). It holds no script. The
Markdown twin says the same with the figures as ``figures/<key>.png`` beside
it. Both are built from the same :class:`~newsdedup.plots.report.Report`,
and the same report gives the same bytes.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Mapping

import pandas as pd

from newsdedup.plots.fonts import PAGE_FAMILY, font_face_css
from newsdedup.plots.report import Absent, Block, Facts, Plot, Report, Table, Text

_CODE = re.compile(r"`([^`]+)`")

STYLE = """
body { font-family: '%s', 'DejaVu Sans', 'Liberation Sans', Arial, sans-serif; margin: 2em auto;
       max-width: 1200px; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { margin-top: 1.8em;
     border-bottom: 1px solid #ccc; padding-bottom: 0.2em; }
p.headline { font-size: 1.1em; background: #f3f6fa; padding: 0.6em 0.9em; border-radius: 4px; }
table { border-collapse: collapse; margin: 0.6em 0 1.2em; font-size: 0.88em; }
th, td { border: 1px solid #d0d0d0; padding: 0.25em 0.5em; vertical-align: top; text-align: left; }
th { background: #f0f0f0; } table.facts th { width: 14em; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
caption { caption-side: top; text-align: left; color: #555; padding-bottom: 0.3em; }
p.absent { color: #8a4b00; background: #fff6e5; padding: 0.4em 0.7em; border-left: 3px solid
           #e0a040; }
figure { margin: 0.8em 0 1.4em; } figure img { max-width: 100%%; height: auto;
         border: 1px solid #eee; } figcaption { color: #555; font-size: 0.9em; }
code { background: #f4f4f4; padding: 0 0.2em; }
nav a { margin-right: 1em; }
"""


def _cell(value, spec: str | None) -> str:
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return ""
    if spec is not None and isinstance(value, int | float):
        return format(value, spec)
    if isinstance(value, float):
        return format(value, ".3f")
    return str(value)


def _cells(table: Table) -> tuple[list[str], list[list[str]], list[bool]]:
    frame = table.frame
    header = [str(c) for c in frame.columns]
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(
        frame[c]) for c in frame.columns]
    rows = [[_cell(v, table.formats.get(str(c))) for c, v in zip(frame.columns, row,
                                                                 strict=True)]
            for row in frame.itertuples(index=False, name=None)]
    return header, rows, numeric


def _inline(text: str) -> str:
    """Escape a paragraph and render its backquoted spans as code."""
    return _CODE.sub(r"<code>\1</code>", html.escape(text))


def _html_block(block: Block, images: Mapping[str, bytes]) -> str:
    if isinstance(block, Text):
        return f"<p>{_inline(block.text)}</p>"
    if isinstance(block, Absent):
        return f'<p class="absent">{_inline(block.text)}</p>'
    if isinstance(block, Facts):
        facts = "".join(f"<tr><th>{html.escape(k)}</th><td>{_inline(v)}</td></tr>"
                        for k, v in block.rows)
        return f'<table class="facts">{facts}</table>'
    if isinstance(block, Table):
        header, rows, numeric = _cells(block)
        head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
        body = "".join("<tr>" + "".join(
            f'<td class="num">{html.escape(v)}</td>' if num else f"<td>{html.escape(v)}</td>"
            for v, num in zip(row, numeric, strict=True)) + "</tr>" for row in rows)
        return (f"<table><caption>{_inline(block.caption)}</caption><thead><tr>{head}</tr>"
                f"</thead><tbody>{body}</tbody></table>")
    assert isinstance(block, Plot)
    data = base64.b64encode(images[block.key]).decode("ascii")
    w, h = (int(round(x * block.figure.dpi)) for x in block.figure.get_size_inches())
    return (f'<figure id="fig-{block.key}"><img class="plot" src="data:image/png;base64,{data}" '
            f'width="{w}" height="{h}" alt="{html.escape(block.caption)}">'
            f"<figcaption>{_inline(block.caption)}</figcaption></figure>")


def html_page(report: Report, images: Mapping[str, bytes]) -> str:
    """The report as one self-contained HTML page.

    Args:
        report: The report.
        images: Figure key -> PNG bytes (every :class:`~newsdedup.plots.report.Plot`'s).

    Returns:
        The page (UTF-8 text, no script, no external resource).
    """
    nav = " ".join(f'<a href="#{s.key}">{html.escape(s.title)}</a>' for s in report.sections)
    body = [f"<h1>newsdedup report: {html.escape(report.name)}</h1>",
            f'<p class="headline">{_inline(report.headline)}</p>', f"<nav>{nav}</nav>"]
    for section in report.sections:
        body.append(f'<h2 id="{section.key}">{html.escape(section.title)}</h2>')
        body += [_html_block(b, images) for b in section.blocks]
    text = "\n".join(body)
    # The font subset holds exactly the characters the page shows (tags are ASCII).
    css = font_face_css(html.unescape(re.sub(r"<[^>]+>", " ", text))) + (STYLE % PAGE_FAMILY)
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>newsdedup report: {html.escape(report.name)}</title>\n"
            f"<style>\n{css}\n</style>\n</head>\n<body>\n{text}\n</body>\n</html>\n")


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _md_block(block: Block) -> str:
    if isinstance(block, Text):
        return block.text
    if isinstance(block, Absent):
        return f"> {block.text}"
    if isinstance(block, Facts):
        facts = "\n".join(f"| {_md_escape(k)} | {_md_escape(v)} |" for k, v in block.rows)
        return f"| | |\n|---|---|\n{facts}"
    if isinstance(block, Table):
        header, rows, numeric = _cells(block)
        align = "|".join("---:" if n else "---" for n in numeric)
        lines = ["| " + " | ".join(_md_escape(h) for h in header) + " |", f"|{align}|"]
        lines += ["| " + " | ".join(_md_escape(v) for v in row) + " |" for row in rows]
        return f"{block.caption}\n\n" + "\n".join(lines)
    assert isinstance(block, Plot)
    return f"![{_md_escape(block.caption)}](figures/{block.key}.png)\n\n*{block.caption}*"


def markdown_page(report: Report) -> str:
    """The report as Markdown; figures are ``figures/<key>.png`` beside the file.

    Args:
        report: The report.

    Returns:
        The Markdown text.
    """
    out = [f"# newsdedup report: {report.name}", "", f"**{report.headline}**", ""]
    for section in report.sections:
        out += [f"## {section.title}", ""]
        for block in section.blocks:
            out += [_md_block(block), ""]
    return "\n".join(out)

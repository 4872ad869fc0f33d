"""HTML left in titles and summaries: entities (``&quot;``, ``&#39;``) and tags (``<b>``).

Some feeds and search APIs deliver titles still HTML-escaped, or with the
query's matches wrapped in ``<b>``. Every scheme keeps letters, so ``&quot;``
compares as the word ``quot`` and ``<b>`` as ``b``: the same headline from an
outlet that escapes and one that does not scores lower than it should. The
tool compares titles as written (the file is the record) and says when a feed
looks escaped, so that the user can decode it before loading.

Only unambiguous markup counts: an entity with its semicolon (``&amp;``, ``&#233;``,
``&#x27;``) that :func:`html.unescape` decodes, and tags of HTML's elements written
as markup is: a closing tag (``</b>``), an attribute (``<a href=…>``), or a tag in
lower case (``<b>``, ``<br/>``). Angle brackets around a name (Reuters' ``<BP>``,
``<X LTD>``, ``<U>`` for USAir, whose ticker is also HTML's underline) and a bare
``&`` (``AT&T``, ``R&D``) are text. Summaries (an RSS description exported as it
came) also carry block markup: paragraphs, links, images (``blocks=True``), whose
``href`` and ``src`` addresses would be compared as words; in a title the same
elements count when written as markup.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from html.parser import HTMLParser

import numpy as np

__all__ = ["BLOCK_TAGS", "has_markup", "html_text"]

_ENTITY = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});")
_INLINE = r"b|i|u|em|strong|mark|span|font|sup|sub|br"
BLOCK_TAGS = ("p", "div", "li", "ul", "ol", "table", "tr", "td", "h1", "h2", "h3", "h4", "h5",
              "h6", "figure", "figcaption", "blockquote")
"""Elements that start a new block of text: a word never runs across their edges."""
_HIDDEN = ("script", "style")  # elements whose text a reader never sees
_NAMES = rf"(?:{_INLINE}|{'|'.join(BLOCK_TAGS + _HIDDEN)}|a|img|iframe)"
# In a title: a closing tag, an opening tag with an attribute, or one in lower case.
_TAG = re.compile(rf"(?i:</{_NAMES}\s*>|<{_NAMES}\s+[a-z][\w:-]*\s*=)|<{_NAMES}(?:\s*/)?>")
_BLOCK_TAG = re.compile(rf"</?{_NAMES}(?:\s[^<>]*)?/?>", re.IGNORECASE)
_BLANKS = re.compile(r"\s+")


def has_markup(texts: Sequence[str], blocks: bool = False) -> np.ndarray:
    """Whether each text carries an HTML entity or a formatting tag (or, with ``blocks``, a block).

    Examples:
        >>> has_markup(["&quot;Hi&quot; said", "<b>삼성</b> 실적", "AT&T, R&D", "<BP> NET",
        ...             "&madeup; x"]).tolist()
        [True, True, False, False, False]
        >>> has_markup(["TWA <TWA> FILES ON USAIR <U>", '실적 <a href="https://n.kr/1">더보기</a>',
        ...             "속보<br/>삼성", "<P> AND <A> SET PAYOUT"]).tolist()
        [False, True, True, False]
        >>> has_markup(['<p>본문 <a href="https://n.kr/1">기사</a></p>'], blocks=True).tolist()
        [True]
    """
    tags = _BLOCK_TAG if blocks else _TAG
    return np.fromiter((_entity(t) or _tag(t, tags) for t in texts), dtype=bool,
                       count=len(texts))


def _entity(text: str) -> bool:
    return "&" in text and any(html.unescape(m) != m for m in _ENTITY.findall(text))


def _tag(text: str, tags: re.Pattern[str]) -> bool:
    return "<" in text and tags.search(text) is not None


class _Text(HTMLParser):
    """The text of an HTML fragment as a reader sees it, in pieces."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0  # inside <script> or <style>

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in _HIDDEN:
            self.hidden += 1
        elif tag in BLOCK_TAGS or tag == "br":
            self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN:
            self.hidden = max(self.hidden - 1, 0)
        elif tag in BLOCK_TAGS:
            self.parts.append(" ")


def html_text(fragment: str) -> str:
    """The text of an HTML fragment: tags dropped, entities decoded, blanks collapsed.

    A block's edges (:data:`BLOCK_TAGS`, ``<br>``) separate words; scripts and styles
    are not text.

    Examples:
        >>> html_text("<p>진천군 <b>스마트</b> 돌봄&nbsp;착수</p><img src='x.jpg'>")
        '진천군 스마트 돌봄 착수'
        >>> html_text("AT&amp;T &lt;b&gt;"), html_text("<p>a</p><p>b<br>c</p><script>x()</script>")
        ('AT&T <b>', 'a b c')
    """
    parser = _Text()
    parser.feed(fragment)
    parser.close()
    return _BLANKS.sub(" ", "".join(parser.parts)).strip()

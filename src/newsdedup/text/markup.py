"""HTML left in titles and summaries: entities (``&quot;``, ``&#39;``) and tags (``<b>``).

Some feeds and search APIs deliver titles still HTML-escaped, or with the
query's matches wrapped in ``<b>``. Every scheme keeps letters, so ``&quot;``
compares as the word ``quot`` and ``<b>`` as ``b``: the same headline from an
outlet that escapes and one that does not scores lower than it should. The
tool compares titles as written (the file is the record) and says when a feed
looks escaped, so that the user can decode it before loading.

Only unambiguous markup counts: an entity with its semicolon (``&amp;``, ``&#233;``,
``&#x27;``) that :func:`html.unescape` decodes, and the inline tags of text
formatting. Angle brackets around a name (Reuters' ``<BP>``, ``<X LTD>``) and a
bare ``&`` (``AT&T``, ``R&D``) are text. Summaries (an RSS description exported as it
came) also carry block markup: paragraphs, links, images (``blocks=True``), whose
``href`` and ``src`` addresses would be compared as words.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

import numpy as np

__all__ = ["has_markup"]

_ENTITY = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});")
_INLINE = r"b|i|u|em|strong|mark|span|font|sup|sub|br"
_TAG = re.compile(rf"</?(?:{_INLINE})(?:\s[^<>]*)?/?>", re.IGNORECASE)
_BLOCK_TAG = re.compile(rf"</?(?:{_INLINE}|p|a|img|div|li|ul|ol|table|tr|td|h[1-6]|figure"
                        r"|figcaption|blockquote|iframe|script|style)(?:\s[^<>]*)?/?>",
                        re.IGNORECASE)


def has_markup(texts: Sequence[str], blocks: bool = False) -> np.ndarray:
    """Whether each text carries an HTML entity or a formatting tag (or, with ``blocks``, a block).

    Examples:
        >>> has_markup(["&quot;Hi&quot; said", "<b>삼성</b> 실적", "AT&T, R&D", "<BP> NET",
        ...             "&madeup; x"]).tolist()
        [True, True, False, False, False]
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

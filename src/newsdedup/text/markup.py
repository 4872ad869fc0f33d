"""HTML left in titles: entities (``&quot;``, ``&#39;``) and inline tags (``<b>``).

Some feeds and search APIs deliver titles still HTML-escaped, or with the
query's matches wrapped in ``<b>``. Every scheme keeps letters, so ``&quot;``
compares as the word ``quot`` and ``<b>`` as ``b``: the same headline from an
outlet that escapes and one that does not scores lower than it should. The
tool compares titles as written (the file is the record) and says when a feed
looks escaped, so that the user can decode it before loading.

Only unambiguous markup counts: an entity with its semicolon (``&amp;``, ``&#233;``,
``&#x27;``) that :func:`html.unescape` decodes, and the inline tags of text
formatting. Angle brackets around a name (Reuters' ``<BP>``, ``<X LTD>``) and a
bare ``&`` (``AT&T``, ``R&D``) are text.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

import numpy as np

__all__ = ["has_markup"]

_ENTITY = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});")
_TAG = re.compile(r"</?(?:b|i|u|em|strong|mark|span|font|sup|sub|br)(?:\s[^<>]*)?/?>",
                  re.IGNORECASE)


def has_markup(texts: Sequence[str]) -> np.ndarray:
    """Whether each text carries an HTML entity or an inline formatting tag.

    Examples:
        >>> has_markup(["&quot;Hi&quot; said", "<b>삼성</b> 실적", "AT&T, R&D", "<BP> NET",
        ...             "&madeup; x"]).tolist()
        [True, True, False, False, False]
    """
    return np.fromiter((_entity(t) or _tag(t) for t in texts), dtype=bool, count=len(texts))


def _entity(text: str) -> bool:
    return "&" in text and any(html.unescape(m) != m for m in _ENTITY.findall(text))


def _tag(text: str) -> bool:
    return "<" in text and _TAG.search(text) is not None

"""Hosts of URLs and publication dates: the per-item fields derived from a corpus row.

The ``source`` field of an archive is often a normalized brand, so the site an item was
posted on is taken from its URL (:func:`host_of`, :func:`hosts_of`); :func:`parse_dates`
reads ``published_at`` for the date windows of the cross-host study and the signals, by
the one date rule of :mod:`newsdedup.corpus.dates`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from newsdedup.corpus.dates import DATE_RULE, parse_date_texts

__all__ = ["DATE_RULE", "host_of", "hosts_of", "parse_date_texts", "parse_dates"]

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
    match = _AUTHORITY.match(url.strip())
    assert match is not None  # every part of the pattern is optional: it matches any string
    authority = match.group(1).rpartition("@")[2]
    if authority.startswith("["):
        return (authority[: authority.find("]") + 1] or authority).lower()
    return _PORT.sub("", authority).lower()


def parse_dates(items: pd.DataFrame) -> pd.Series:
    """``published_at`` as dates; an unparsable value raises naming its row and id.

    Accepts what :data:`DATE_RULE` says: ISO dates/times, RFC 2822 dates (RSS), epoch
    seconds and epoch milliseconds (all-digit strings, as in the UCI aggregator). Empty
    values become ``NaT`` and never fall in a window.
    :func:`newsdedup.corpus.load.load_corpus` rejects a record whose date breaks the
    rule (naming file, line and record), so a loaded corpus never raises here.

    Args:
        items: A corpus table with ``id`` and ``published_at`` columns.

    Returns:
        ``datetime64[ns]`` values (naive, UTC) on the index of ``items``.

    Raises:
        ValueError: A non-empty ``published_at`` is not a date; names how many are not,
            and the first by its row of the table (not a file record) and id.

    Examples:
        >>> frame = pd.DataFrame({"id": ["a", "b"], "published_at": ["2024-05-01", ""]})
        >>> parse_dates(frame).tolist()
        [Timestamp('2024-05-01 00:00:00'), NaT]
    """
    values = items["published_at"].astype(str).tolist()
    out, bad = parse_date_texts(values)
    if bad.any():
        pos = int(np.argmax(bad))
        ident = items["id"].iloc[pos] if "id" in items.columns else pos
        raise ValueError(
            f"{int(bad.sum())} of {len(values)} rows have a published_at that is not "
            f"{DATE_RULE}; first: row {pos + 1} of the table (id {ident!r}): "
            f"{values[pos]!r}"
        )
    out.index = items.index
    return out

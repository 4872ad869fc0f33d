"""Hosts of URLs and publication dates: the per-item fields derived from a corpus row.

The ``source`` field of an archive is often a normalized brand, so the site an item was
posted on is taken from its URL (:func:`host_of`, :func:`hosts_of`); :func:`parse_dates`
reads ``published_at`` for the date windows of the cross-host study and the signals.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

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
    """``published_at`` as dates; an unparsable value raises naming its record.

    Accepts ISO dates/times and epoch milliseconds (all-digit strings, as in
    the UCI aggregator). Empty values become ``NaT`` and never fall in a window.

    Args:
        items: A corpus table with ``id`` and ``published_at`` columns.

    Returns:
        ``datetime64[ns]`` values (naive, UTC) on the index of ``items``.

    Raises:
        ValueError: A non-empty ``published_at`` is not a date; names its record and id.

    Examples:
        >>> frame = pd.DataFrame({"id": ["a", "b"], "published_at": ["2024-05-01", ""]})
        >>> parse_dates(frame).tolist()
        [Timestamp('2024-05-01 00:00:00'), NaT]
    """
    raw = items["published_at"].astype(str).reset_index(drop=True)
    digits = raw.str.fullmatch(r"\d{11,}").to_numpy()
    out = pd.Series(pd.NaT, index=raw.index, dtype="datetime64[ns]")
    if digits.any():
        out[digits] = pd.to_datetime(raw[digits].astype("int64"), unit="ms")
    rest = ~digits & (raw != "").to_numpy()
    if rest.any():
        # One vectorized parse; offsets are converted to UTC and dropped so that
        # dates with and without a zone compare on one clock.
        parsed = pd.to_datetime(raw[rest], format="ISO8601", errors="coerce", utc=True)
        bad = parsed.isna().to_numpy()
        if bad.any():
            pos = int(np.flatnonzero(rest)[np.argmax(bad)])
            raise ValueError(
                f"record {pos + 1} (id {items['id'].iloc[pos]!r}): "
                f"published_at {raw.iloc[pos]!r} is not a date"
            )
        out[rest] = parsed.dt.tz_convert(None).to_numpy()
    out.index = items.index
    return out

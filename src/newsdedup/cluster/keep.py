"""Which item represents a group: the keep rules of the dedupe.

In priority order: the original outlet over a syndicator (:data:`SYNDICATORS`), a direct
link over an opaque one (:data:`OPAQUE_HOSTS`), the newer over the older. :func:`keep_rank`
turns the rules into one rank per row; :func:`canonical_order` breaks its ties by content,
so no result depends on the order of the input rows; :func:`kept_because` names the rule
that decided for each member.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np
import pandas as pd

from newsdedup.corpus.hosts import hosts_of, parse_dates

SYNDICATORS: tuple[str, ...] = ("v.daum.net", "news.naver.com", "news.nate.com")
OPAQUE_HOSTS: tuple[str, ...] = ("news.google.com",)


def _matches(host: str, domains: Sequence[str]) -> bool:
    # m.news.naver.com is news.naver.com: match the domain or any subdomain.
    return bool(host) and any(host == d or host.endswith("." + d) for d in domains)


def text_column(items: pd.DataFrame, name: str) -> list[str]:
    """A column as ``str`` per row, ``""`` where missing (or the column is absent)."""
    if name not in items.columns:
        return [""] * len(items)
    col = items[name]
    values = col.tolist()
    # The common case, every value a string, needs no conversion (and pandas' str
    # conversion builds an Arrow array on the way: 0.1 s per 100k rows).
    if all(type(v) is str for v in values):
        return values
    return col.astype(object).where(col.notna(), "").astype(str).tolist()


def _timestamps(items: pd.DataFrame) -> np.ndarray:
    """``published_at`` as UTC seconds; ``-inf`` where missing (an unknown date is oldest).

    Dates follow the one rule of :data:`newsdedup.corpus.hosts.DATE_RULE`, as the
    cross-host windows do. An unparsable date raises instead of ranking as oldest: it
    would silently decide which copy represents a group. The loader rejects such records
    with their line, so only a table built by hand reaches this error.

    Raises:
        ValueError: A non-empty ``published_at`` is not a date (names its row and id).
    """
    if "published_at" not in items.columns:
        return np.full(len(items), -np.inf)  # every date unknown, without parsing ""s
    texts = text_column(items, "published_at")
    frame = pd.DataFrame({"id": text_column(items, "id") if "id" in items.columns
                          else [str(v) for v in items.index], "published_at": texts})
    dates = parse_dates(frame).to_numpy()
    out = np.full(len(texts), -np.inf)
    known = ~np.isnat(dates)
    out[known] = (dates[known] - np.datetime64(0, "ns")) / np.timedelta64(1, "s")
    return out


def keep_rank(
    items: pd.DataFrame,
    syndicators: Sequence[str] = SYNDICATORS,
    opaque_hosts: Sequence[str] = OPAQUE_HOSTS,
) -> np.ndarray:
    """How good each item is as a group's representative; higher is better.

    The rules of the exact-match dedupe, in priority order: the original
    outlet over a syndicator (``v.daum.net``, ``news.naver.com``, ...); a
    direct link over an opaque one (Google News redirect URLs hide the
    outlet); the newer over the older (``published_at``).

    The host is read from the ``host`` column and from the ``url``; an item is
    a syndicated copy if either is a syndicator (or a subdomain of one). The
    link is opaque when the URL's host is an opaque host, or when no host is
    known at all (nothing to link to). Missing columns count as empty.

    Args:
        items: Frame with any of ``host``, ``url``, ``published_at``.
        syndicators: Hosts that republish other outlets' articles.
        opaque_hosts: Hosts whose links hide the original outlet.

    Returns:
        ``int64`` dense rank per row. Equal criteria give equal ranks; the
        dedupe then breaks the tie by content (:func:`canonical_order`).

    Examples:
        >>> df = pd.DataFrame({"url": ["https://v.daum.net/v/1", "https://news.google.com/x",
        ...                            "https://www.inews365.com/a"],
        ...                    "published_at": ["2025-05-02", "2025-05-01", "2025-05-01"]})
        >>> keep_rank(df).tolist()
        [0, 1, 2]
    """
    return dense_rank(*keep_criteria(items, syndicators, opaque_hosts))


def dense_rank(syndicated: np.ndarray, opaque: np.ndarray, ts: np.ndarray) -> np.ndarray:
    """Dense rank of the keep criteria: original, then direct link, then newer.

    Args:
        syndicated: Per row: a syndicated copy?
        opaque: Per row: an opaque (or no) link?
        ts: Per row: publication time, UTC seconds (``-inf`` when unknown).

    Returns:
        ``int64`` rank per row, higher is better; equal criteria give equal ranks.

    Examples:
        >>> dense_rank(np.array([True, False]), np.array([False, False]), np.array([9.0, 1.0]))
        array([0, 1])
    """
    if syndicated.size == 0:
        return np.zeros(0, dtype=np.int64)
    # Sort by the criteria tuple (original first, then direct link, then time);
    # the dense rank counts the changes along that order.
    order = np.lexsort((ts, ~opaque, ~syndicated))
    keys = (syndicated[order], opaque[order], ts[order])
    change = np.zeros(order.size, dtype=bool)
    for k in keys:
        change[1:] |= k[1:] != k[:-1]
    dense = np.empty(order.size, dtype=np.int64)
    dense[order] = np.cumsum(change)
    return dense


def keep_criteria(items: pd.DataFrame, syndicators: Sequence[str],
                   opaque_hosts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: syndicated copy?, opaque link?, publication time (UTC seconds, -inf unknown)."""
    if "host" not in items.columns and "url" not in items.columns:
        # No host known: nobody is a syndicator and every link is opaque (nothing to link to).
        n = len(items)
        return np.zeros(n, dtype=bool), np.ones(n, dtype=bool), _timestamps(items)
    hosts = pd.Series(text_column(items, "host"), dtype=object)
    url_hosts = pd.Series(hosts_of(text_column(items, "url")), dtype=object)
    # A feed has few distinct hosts: match each once, then map back to the rows.
    distinct = pd.unique(pd.concat([hosts, url_hosts], ignore_index=True))
    synd = {h: _matches(h, syndicators) for h in distinct}
    opq = {h: _matches(h, opaque_hosts) for h in distinct}
    syndicated = (hosts.map(synd) | url_hosts.map(synd)).to_numpy(dtype=bool)
    link = url_hosts.where(url_hosts != "", hosts)
    opaque = ((link == "") | link.map(opq)).to_numpy(dtype=bool)
    return syndicated, opaque, _timestamps(items)


def canonical_order(rank: np.ndarray, heads: Sequence[str], ids: Sequence[str],
                    head_codes: np.ndarray | None = None) -> np.ndarray:
    """Row order that does not depend on the input order: rank, then content.

    Best rank first (so a group's founder is its best representative and is
    never replaced), ties broken by normalized headline, then id, then row
    (rows equal in all of these are interchangeable).

    Args:
        rank: :func:`keep_rank` per row.
        heads: Normalized headline per row.
        ids: Id per row, as strings.
        head_codes: :func:`text_codes` of ``heads`` when the caller has them.

    Returns:
        ``int64`` permutation of the rows.

    Examples:
        >>> canonical_order(np.array([0, 1, 1]), ["b", "z", "a"], ["1", "2", "3"]).tolist()
        [2, 1, 0]
    """
    rank = np.asarray(rank)
    heads_c = _sorted_codes(heads) if head_codes is None else np.asarray(head_codes)
    # Ids only decide between rows equal in rank and headline: rank the ids of those
    # rows alone (the same relative order as ranking all ids, one short sort instead).
    by_head = np.lexsort((heads_c, -rank))
    r, h = rank[by_head], heads_c[by_head]
    same = (r[1:] == r[:-1]) & (h[1:] == h[:-1])
    tied = np.zeros(len(rank), dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    rows = by_head[tied]
    id_codes = np.zeros(len(rank), dtype=np.int64)
    if rows.size:
        id_codes[rows] = _sorted_codes([ids[k] for k in rows.tolist()])
    return np.lexsort((np.arange(len(rank)), id_codes, heads_c, -rank)).astype(np.int64)


def text_codes(values: Sequence[str]) -> np.ndarray:
    """Dense rank of each string in code-point order: equal strings, equal codes.

    Examples:
        >>> text_codes(["b", "a", "b", ""]).tolist()
        [2, 1, 2, 0]
    """
    return _sorted_codes(values)


def _sorted_codes(values: Sequence[str]) -> np.ndarray:
    """Dense rank of each string in code-point order (equal strings, equal codes).

    One Python sort of the strings (what pandas' sorted factorize does, with
    less overhead) and a comparison of neighbours.

    Examples:
        >>> _sorted_codes(["b", "a", "b", "ab"]).tolist()
        [2, 0, 2, 1]
    """
    values = list(values)
    order = sorted(range(len(values)), key=values.__getitem__)
    ranked = [values[k] for k in order]
    step = np.fromiter(map(operator.ne, ranked[1:], ranked[:-1]), dtype=bool,
                       count=max(len(ranked) - 1, 0))
    codes = np.empty(len(values), dtype=np.int64)
    codes[order] = np.concatenate(([0], np.cumsum(step))) if values else []
    return codes


def kept_because(criteria: tuple[np.ndarray, np.ndarray, np.ndarray], rows: np.ndarray,
                  reps: np.ndarray) -> np.ndarray:
    """The first rule by which each row's representative beat it.

    Args:
        criteria: :func:`keep_criteria` per row (syndicated, opaque, time).
        rows: Rows to explain.
        reps: The representative row of each of ``rows``.

    Returns:
        Per row ``"original-over-syndicator"``, ``"direct-over-redirect"``, ``"newer"`` or
        ``"tie-break"``; ``""`` for a representative itself.
    """
    syndicated, opaque, ts = criteria
    out = np.full(rows.size, "tie-break", dtype=object)
    newer = ts[reps] > ts[rows]
    out[newer] = "newer"
    direct = opaque[rows] & ~opaque[reps]
    out[direct] = "direct-over-redirect"
    original = syndicated[rows] & ~syndicated[reps]
    out[original] = "original-over-syndicator"
    out[rows == reps] = ""
    return out

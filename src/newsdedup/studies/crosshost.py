"""Cross-host analysis: the same announcement posted on two sites (seed 004, block 3).

The ``source`` field of an archive is often a normalized brand ("Google
DeepMind" covers both deepmind.google and blog.google), so it cannot tell
sites apart; the host is taken from the URL instead (see
:func:`newsdedup.corpus.hosts.host_of`). For a chosen set of hosts the analysis
scores every pair of items on *different* hosts of that set, compares the
scores with the corpus's unrelated-pair upper bound, and narrows the
candidates with a publication-date window -- the first alternative the
published measurement proposes, since a real cross-post is usually a day or
two apart.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from newsdedup.corpus.hosts import parse_dates
from newsdedup.score.jaccard import PairScores, jaccard_block
from newsdedup.score.join import threshold_join
from newsdedup.studies.pairstream import Track, pair_blocks, untracked
from newsdedup.text.shingle import ShingleMatrix

DEFAULT_HOSTS = ("deepmind.google", "blog.google")
DEFAULT_WINDOW_DAYS = 3
MAX_LISTED = 200_000
"""Cross pairs listed with every score; above it only those at or above the floor."""
DEFAULT_FLOOR = 0.2
"""Lowest score listed when the cross pairs are too many (the measure's lowest threshold)."""
_BLOCK_CELLS = 1 << 22  # pairs per sparse product block (memory knob only)


def ordered_counts(values: Sequence[str], name: str) -> pd.DataFrame:
    """Counts of each value, most common first, ties in order of first appearance.

    Args:
        values: The values, e.g. one host per item.
        name: Column name for the values.

    Returns:
        DataFrame with columns ``name`` and ``count``.

    Examples:
        >>> ordered_counts(["b", "a", "a", "c", "b"], "host").values.tolist()
        [['b', 2], ['a', 2], ['c', 1]]
    """
    labels, first, counts = np.unique(np.asarray(values, dtype=object), return_index=True,
                                      return_counts=True)
    order = np.lexsort((first, -counts))
    return pd.DataFrame({name: labels[order], "count": counts[order].astype(np.int64)})


@dataclass(frozen=True)
class CrossHostReport:
    """Result of :func:`cross_host`.

    Attributes:
        n_items: Items in the corpus.
        n_unique_ids: Distinct ids.
        hosts: Counts per URL host.
        sources: Counts per ``source`` value.
        source_by_host: Items per (source, host), showing what a brand merges.
        focus_hosts: The host set studied.
        pairs: Every cross pair, best score first, with columns rank, score,
            days_apart, in_window, above_bound, i, j and per side id, host,
            published_at, title, summary.
        upper_bound: Unrelated-pair upper bound used (max exact Jaccard over all pairs).
        window_days: The date window, days.
        listing: None when ``pairs`` holds every cross pair; else what was
            listed (:class:`CrossListing`: the cross pairs at or above a floor,
            with the exact counts of all of them).
    """

    n_items: int
    n_unique_ids: int
    hosts: pd.DataFrame
    sources: pd.DataFrame
    source_by_host: pd.DataFrame
    focus_hosts: tuple[str, ...]
    pairs: pd.DataFrame
    upper_bound: float
    window_days: int
    listing: CrossListing | None = None

    @property
    def n_id_duplicates(self) -> int:
        """Items whose id repeats an earlier item's."""
        return self.n_items - self.n_unique_ids

    @property
    def n_cross(self) -> int:
        """Cross-host pairs scored."""
        return len(self.pairs)

    @property
    def max_score(self) -> float:
        """Highest cross-host score (0.0 without pairs)."""
        return float(self.pairs["score"].max()) if len(self.pairs) else 0.0

    @property
    def n_above_bound(self) -> int:
        """Cross-host pairs scoring above the unrelated-pair upper bound."""
        return int(self.pairs["above_bound"].sum())

    @property
    def n_in_window(self) -> int:
        """Cross-host pairs published within the date window."""
        return int(self.pairs["in_window"].sum())

    def summary(self) -> dict:
        """The counts of the report as a plain dict (for JSON reports).

        When only the pairs at or above a floor are listed, ``cross_pairs`` and
        ``in_window`` count all cross pairs (exactly), ``listed_pairs`` and
        ``list_floor`` say what was listed, and the maxima are those of the
        listed pairs (exact when some pair reaches the floor).
        """
        if self.listing is not None:
            return self._summary() | self.listing.summary(self)
        return self._summary()

    def _summary(self) -> dict:
        return {
            "items": self.n_items,
            "unique_ids": self.n_unique_ids,
            "id_duplicates": self.n_id_duplicates,
            "focus_hosts": list(self.focus_hosts),
            "cross_pairs": self.n_cross,
            "max_score": self.max_score,
            "upper_bound": self.upper_bound,
            "above_upper_bound": self.n_above_bound,
            "window_days": self.window_days,
            "in_window": self.n_in_window,
            "max_score_in_window": float(self.pairs.loc[self.pairs["in_window"], "score"].max())
            if self.n_in_window
            else 0.0,
        }


@dataclass(frozen=True)
class CrossListing:
    """How many cross pairs there are when only those at or above ``floor`` are listed.

    Attributes:
        floor: Lowest score listed.
        cross_pairs: All cross pairs of the host set (exact count).
        in_window: All cross pairs within the date window (exact count).
    """

    floor: float
    cross_pairs: int
    in_window: int

    def summary(self, rep: CrossHostReport) -> dict:
        """The summary fields that count all cross pairs, and what was listed."""
        listed_window = rep.pairs.loc[rep.pairs["in_window"], "score"]
        return {"cross_pairs": self.cross_pairs, "in_window": self.in_window,
                "listed_pairs": rep.n_cross, "list_floor": self.floor,
                "listed_in_window": int(len(listed_window)),
                "max_score": rep.max_score if rep.n_cross else None,
                "max_score_in_window": float(listed_window.max()) if len(listed_window)
                else None,
                "method": f"cross pairs and in_window: exact counts; pairs listed, maxima and "
                          f"above_upper_bound: exact among pairs scoring >= {self.floor:g} "
                          f"(null: no pair reaches it)"}


def host_groups(items: pd.DataFrame, hosts: Sequence[str]) -> list[np.ndarray]:
    """Item positions on each host of ``hosts`` that has items, in ``hosts`` order."""
    host = items["host"].to_numpy(dtype=object)
    groups = [np.flatnonzero(host == h) for h in dict.fromkeys(hosts)]
    return [g for g in groups if len(g)]


def cross_pair_count(groups: Sequence[np.ndarray]) -> int:
    """Pairs of items on two different hosts: ``sum over host pairs of |A| |B|``.

    Examples:
        >>> cross_pair_count([np.arange(3), np.arange(2), np.arange(4)])
        26
    """
    sizes = np.array([len(g) for g in groups], dtype=object)
    return int((sum(sizes) ** 2 - sum(sizes * sizes)) // 2) if len(sizes) else 0


def cross_pair_scores(shingled: ShingleMatrix, groups: Sequence[np.ndarray],
                      track: Track = untracked) -> PairScores:
    """Exact Jaccard of every pair of items on two different hosts, block by block.

    Each pair of hosts is one rectangular product ``X_A X_B^T`` in row blocks,
    so the work is the cross pairs, never ``N x N``; scores come from
    :func:`newsdedup.score.jaccard.jaccard_block`, the dense path's division.

    Returns:
        PairScores with ``i < j`` (original positions), unordered.
    """
    x, sizes = shingled.matrix.tocsr(), shingled.sizes
    parts_i, parts_j, parts_s = [], [], []
    tasks = [(a, b) for k, a in enumerate(groups) for b in groups[k + 1:]]
    for a, b in track(iter(tasks), len(tasks), "crosshost: host pairs"):
        xt = x[b].T.tocsc()
        rows = max(1, _BLOCK_CELLS // max(len(b), 1))
        for lo in range(0, len(a), rows):
            ra = a[lo:lo + rows]
            inter = (x[ra] @ xt).toarray().astype(np.int64)
            score = jaccard_block(inter, sizes[ra], sizes[b])
            ii, jj = np.repeat(ra, len(b)), np.tile(b, len(ra))
            parts_i.append(np.minimum(ii, jj))
            parts_j.append(np.maximum(ii, jj))
            parts_s.append(score.ravel())
    if not parts_s:
        z = np.zeros(0, dtype=np.int64)
        return PairScores(z, z.copy(), np.zeros(0))
    return PairScores(np.concatenate(parts_i), np.concatenate(parts_j), np.concatenate(parts_s))


def all_pairs_max(shingled: ShingleMatrix, track: Track = untracked) -> float:
    """Highest exact Jaccard over all pairs (0.0 without pairs), never ``N x N``.

    The exact join at 1/2, 1/4, ... 1/64 stops at the first threshold some
    pair reaches (its scores are the dense path's, bit for bit); below that
    every pair is visited in blocks for the maximum alone.

    Examples:
        >>> from newsdedup.text.shingle import shingle_matrix
        >>> all_pairs_max(shingle_matrix(["abcde", "abcdf", "xyz"], 3))
        0.5
    """
    for t in (0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625):
        label = f"crosshost: upper bound, join J >= {t:g}"

        def blocks(it: Iterator, label: str = label) -> Iterator:
            return track(list(it), None, label)

        got = threshold_join(shingled, t, progress=blocks)
        if len(got.pairs):
            return got.pairs.max()
    x, sizes, n = shingled.matrix.tocsr(), shingled.sizes, shingled.n_items
    xt = x.T.tocsc()
    best = 0.0
    for lo, hi in track(pair_blocks(n, _BLOCK_CELLS), None, "crosshost: upper bound, blocks"):
        if lo + 1 >= n:
            break
        inter = (x[lo:hi] @ xt[:, lo + 1:]).toarray().astype(np.int64)
        block = jaccard_block(inter, sizes[lo:hi], sizes[lo + 1:])
        upper = np.triu(np.ones(block.shape, dtype=bool), k=0)
        if upper.any():
            best = max(best, float(block[upper].max()))
    return best


def window_pair_count(items: pd.DataFrame, groups: Sequence[np.ndarray],
                      window_days: int) -> int:
    """Cross pairs (different hosts of ``groups``) published within ``window_days``, counted.

    All pairs of the host set within the window, less the pairs of one host
    within it: one sort per host, no pair listed. Undated items are never in
    the window (as in :func:`cross_host`).
    """
    dates = parse_dates(items).to_numpy()

    def within(idx: np.ndarray) -> int:
        d = dates[idx]
        d = np.sort(d[~np.isnat(d)]).astype("datetime64[ns]").astype(np.int64)
        reach = np.searchsorted(d, d + int(window_days * 86_400 * 10**9), side="right")
        return int((reach - np.arange(1, len(d) + 1)).sum())

    every = np.concatenate(groups) if groups else np.zeros(0, dtype=np.int64)
    return within(every) - sum(within(g) for g in groups)


def cross_host(
    items: pd.DataFrame,
    scores: PairScores,
    hosts: Sequence[str] = DEFAULT_HOSTS,
    window_days: int = DEFAULT_WINDOW_DAYS,
    upper_bound: float | None = None,
    listing: CrossListing | None = None,
) -> CrossHostReport:
    """Score the pairs of items on different hosts of ``hosts``.

    Args:
        items: Canonical corpus frame (id, title, summary, host, source, published_at).
        scores: Exact scores of all pairs ``i < j`` of ``items`` (the pairs the
            analysis picks from; n = 4 in the published run).
        hosts: The host set; a pair counts when both hosts are in it and differ.
        window_days: Keep-window on the publication dates, ``|d_i - d_j| <= window_days``.
        upper_bound: Unrelated-pair upper bound; defaults to the max of ``scores``.
        listing: Set when ``scores`` holds only the cross pairs at or above a
            floor: their exact counts (:class:`CrossListing`).

    Returns:
        A :class:`CrossHostReport`.
    """
    host = items["host"].to_numpy(dtype=object)
    focus = np.isin(host, np.asarray(list(hosts), dtype=object))
    hi, hj = host[scores.i], host[scores.j]
    cross = focus[scores.i] & focus[scores.j] & (hi != hj)
    bound = scores.max() if upper_bound is None else float(upper_bound)

    sub = PairScores(scores.i[cross], scores.j[cross], scores.score[cross])
    order = sub.top(len(sub))
    i, j, score = sub.i[order], sub.j[order], sub.score[order]
    dates = parse_dates(items).to_numpy()
    days = np.abs((dates[i] - dates[j]) / np.timedelta64(1, "D"))
    pairs = pd.DataFrame(
        {
            "rank": np.arange(1, len(order) + 1),
            "score": score,
            "days_apart": days,
            "in_window": days <= window_days,
            "above_bound": score > bound,
            "i": i,
            "j": j,
        }
    )
    for side, idx in (("i", i), ("j", j)):
        for col in ("id", "host", "published_at", "title", "summary"):
            pairs[f"{col}_{side}"] = items[col].to_numpy()[idx]

    source_by_host = (
        items.groupby(["source", "host"], sort=True).size().rename("count").reset_index()
    )
    return CrossHostReport(
        n_items=len(items),
        n_unique_ids=int(items["id"].nunique()),
        hosts=ordered_counts(items["host"].tolist(), "host"),
        sources=ordered_counts(items["source"].tolist(), "source"),
        source_by_host=source_by_host,
        focus_hosts=tuple(hosts),
        pairs=pairs,
        upper_bound=bound,
        window_days=window_days,
        listing=listing,
    )

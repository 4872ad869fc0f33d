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

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from newsdedup.corpus.hosts import parse_dates
from newsdedup.score.jaccard import PairScores

DEFAULT_HOSTS = ("deepmind.google", "blog.google")
DEFAULT_WINDOW_DAYS = 3


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
        """The counts of the report as a plain dict (for JSON reports)."""
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


def cross_host(
    items: pd.DataFrame,
    scores: PairScores,
    hosts: Sequence[str] = DEFAULT_HOSTS,
    window_days: int = DEFAULT_WINDOW_DAYS,
    upper_bound: float | None = None,
) -> CrossHostReport:
    """Score the pairs of items on different hosts of ``hosts``.

    Args:
        items: Canonical corpus frame (id, title, summary, host, source, published_at).
        scores: Exact scores of all pairs ``i < j`` of ``items`` (the pairs the
            analysis picks from; n = 4 in the published run).
        hosts: The host set; a pair counts when both hosts are in it and differ.
        window_days: Keep-window on the publication dates, ``|d_i - d_j| <= window_days``.
        upper_bound: Unrelated-pair upper bound; defaults to the max of ``scores``.

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
    )

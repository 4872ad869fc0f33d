"""The calibrate sweep's lowest threshold, chosen so its pair list stays proportional to ``N``.

The sweep of ``newsdedup calibrate`` works from the pairs scoring at least
its lowest threshold (:mod:`newsdedup.calibration.sweep_pairs`). How many there
are depends on the language, not only on ``N``: at ``J >= 0.05`` the pairs of
Korean syllable 4-grams stay near 40 per item at 100k headlines, but English
letter 4-grams share ``" the"``, ``"ing "`` and the like, so a fixed share of
*all* pairs passes -- 0.8% of ``N(N-1)/2`` (35M pairs at 100k, 3.5 billion at
1M), and the join that lists them, the sweep and the evidence all grow with
``N**2``.

:func:`choose_floor` therefore keeps the requested lowest threshold only
while the pairs at or above it fit a budget proportional to ``N``
(:func:`pair_budget`), and otherwise raises it to the lowest grid value that
fits. The pair count at each grid value is estimated before any join, from a
seeded uniform sample of pairs (with replacement, :func:`floor_sample_size`
pairs) scored exactly; the upper end of an exact (Clopper-Pearson) interval
must fit the budget, so the choice errs towards fewer pairs. Nothing is sampled while ``N(N-1)/2``
itself fits the budget (up to 1,414 items): there every pair could be
listed, and the sweep starts where it was asked to, as it always did.

The choice, the budget, the sample and each estimate with its interval are
returned as a :class:`SweepFloor` whose :meth:`SweepFloor.record` goes to
``calibrate/params.json`` (``sweep.floor``), so a user sees why the sweep
starts where it does. Cost: ``O(sample x shingles per item)`` to score the
sample (200k to 2M pairs whatever ``N``), memory ``O(sample)`` beside the
shingle matrix (24 bytes a pair; the rows are gathered 100k pairs at a
time). The pairs kept by the sweep are then at most about ``budget``,
``O(N)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from newsdedup.calibration.defaults import SWEEP_PAIRS_PER_ITEM
from newsdedup.score.jaccard import pair_jaccard
from newsdedup.studies.measure_streamed import pair_at
from newsdedup.studies.quantiles import clopper_pearson
from newsdedup.text.shingle import ShingleMatrix

__all__ = ["FILTER_PAIRS_PER_ITEM", "FLOOR_CONFIDENCE", "FLOOR_HITS_AT_BUDGET",
           "FLOOR_MAX_SAMPLE_PAIRS", "FLOOR_SAMPLE_PAIRS", "SWEEP_MIN_PAIRS",
           "SWEEP_PAIRS_PER_ITEM", "SweepFloor", "SweepTooLarge", "choose_floor",
           "floor_sample_size", "pair_budget", "weighted_filter_work"]

SWEEP_MIN_PAIRS = 1_000_000
"""Pairs the sweep may always list (24 MB): a corpus with no more pairs than this in all
is swept from the requested threshold without sampling."""

FLOOR_SAMPLE_PAIRS = 200_000
"""Fewest pairs of the uniform sample the floor is estimated from (about a second to score)."""

FLOOR_HITS_AT_BUDGET = 1000
"""Sampled pairs expected at or above a threshold whose count equals the budget.

The sample grows to ``1000 x total / budget`` pairs (at most
:data:`FLOOR_MAX_SAMPLE_PAIRS`), so a count near the budget is known to about
+-6% (95%): a corpus within that of its budget is not pushed up a step by the
sampling noise alone. At 100k items that is 1M pairs, a few seconds."""

FLOOR_MAX_SAMPLE_PAIRS = 2_000_000
"""Most pairs sampled (about 6 s to score at 100k headlines; 24 bytes each are kept)."""


_CHUNK = 100_000  # sampled pairs scored at once


def floor_sample_size(total: int, budget: int) -> int:
    """Pairs to sample: enough for :data:`FLOOR_HITS_AT_BUDGET` hits at the budget, clipped.

    Examples:
        >>> floor_sample_size(4_999_950_000, 5_000_000), floor_sample_size(10**8, 10**6)
        (999990, 200000)
    """
    want = FLOOR_HITS_AT_BUDGET * total // max(budget, 1)
    return int(min(FLOOR_MAX_SAMPLE_PAIRS, max(FLOOR_SAMPLE_PAIRS, want)))

FLOOR_CONFIDENCE = 0.95
"""Two-sided confidence of the interval whose upper end must fit the budget."""


def pair_budget(n_items: int, per_item: int | None = None) -> int:
    """Pairs the sweep may list for ``n_items`` items: ``max(1M, per_item x N)``.

    ``per_item`` is :data:`~newsdedup.calibration.defaults.SWEEP_PAIRS_PER_ITEM`
    (50) unless given (``newsdedup calibrate --sweep-pairs-per-item``).

    Examples:
        >>> pair_budget(387), pair_budget(100_000), pair_budget(100_000, 200)
        (1000000, 5000000, 20000000)
    """
    per = SWEEP_PAIRS_PER_ITEM if per_item is None else int(per_item)
    if per < 1:
        raise ValueError(f"pairs per item must be at least 1, got {per}")
    return max(SWEEP_MIN_PAIRS, per * int(n_items))


@dataclass(frozen=True)
class SweepFloor:
    """The sweep's lowest threshold and why.

    Attributes:
        requested: The lowest threshold asked for.
        lowest: The lowest threshold swept (``>= requested``).
        budget: Pairs the sweep may list (:func:`pair_budget`).
        total_pairs: ``N(N-1)/2``.
        sample: Pairs sampled (0 when every pair fits the budget).
        seed: Seed of the sample.
        estimates: Per grid threshold up to ``lowest``: sampled pairs at or
            above it (``hits``), the estimated pairs of the corpus
            (``pairs``) and the interval (``low``, ``high``); empty when
            nothing was sampled.
        reason: One sentence on the choice.
        per_item: Pairs per item of the budget (None: a budget given outright).
    """

    requested: float
    lowest: float
    budget: int
    total_pairs: int
    sample: int
    seed: int
    estimates: pd.DataFrame
    reason: str
    per_item: int | None = None

    @property
    def raised(self) -> bool:
        """Whether the sweep starts above the requested threshold."""
        return self.lowest > self.requested

    def record(self) -> dict | None:
        """What ``params.json`` records (``sweep.floor``); None when nothing was sampled."""
        if not self.sample:
            return None
        return {"requested": self.requested, "lowest": self.lowest, "budget_pairs": self.budget,
                "pairs_per_item": self.per_item, "total_pairs": self.total_pairs,
                "sample_pairs": self.sample, "seed": self.seed,
                "confidence": FLOOR_CONFIDENCE, "method": "sampled (Clopper-Pearson)",
                "estimates": [{k: (float(v) if k != "hits" else int(v)) for k, v in row.items()}
                              for row in self.estimates.to_dict(orient="records")],
                "reason": self.reason}


class SweepTooLarge(ValueError):
    """Even the sweep's top threshold passes more pairs than the budget, surely.

    Titles that are near-copies of each other (one template, a recurring column)
    match at every threshold the sweep has: listing their pairs would hold
    ``N**2`` of them. The calibration stops here, with the estimate and what to
    do, instead of running out of memory.
    """

    def __init__(self, top: float, pairs: float, low: float, budget: int, n_items: int,
                 per_item: int | None) -> None:
        """The top threshold, its estimated pairs and their lower bound, the budget."""
        allowance = f" ({per_item} per item)" if per_item else ""
        super().__init__(
            f"the threshold sweep cannot list this corpus's pairs: even at its top threshold "
            f"{top:.2f} an estimated {pairs:,.0f} pairs (at least {low:,.0f}) of the "
            f"{n_items:,} items score above it, over the budget of {budget:,}{allowance}; "
            "most titles are near-copies of one another (a template or a recurring column "
            "that differs only in a date or a number). Calibrate without those items, or raise "
            "--sweep-pairs-per-item (memory grows with it)")
        self.top, self.pairs, self.low, self.budget = top, pairs, low, budget


def choose_floor(shingled: ShingleMatrix, grid: Sequence[float], budget: int | None = None,
                 sample: int | None = None, seed: int = 0, per_item: int | None = None
                 ) -> SweepFloor:
    """The lowest grid threshold whose pairs fit ``budget`` (module docstring).

    Args:
        shingled: The items' shingle matrix (the sweep's n-gram size and text).
        grid: The sweep's thresholds, ascending; ``grid[0]`` is the one requested.
        budget: Pairs the sweep may list; :func:`pair_budget` of ``N`` and
            ``per_item`` by default.
        sample: Pairs to sample when ``N(N-1)/2`` exceeds the budget;
            :func:`floor_sample_size` by default.
        seed: Seed of the sample.
        per_item: Pairs per item of the default budget
            (:data:`~newsdedup.calibration.defaults.SWEEP_PAIRS_PER_ITEM` if None).

    Returns:
        A :class:`SweepFloor`; ``lowest`` is a value of ``grid``.

    Raises:
        SweepTooLarge: Even at the top of the grid the pairs surely exceed the budget
            (the lower end of their interval does).
    """
    t = np.asarray(grid, dtype=np.float64)
    if not len(t) or np.any(np.diff(t) <= 0):
        raise ValueError("the sweep grid must be non-empty and increasing")
    n = shingled.n_items
    total = n * (n - 1) // 2
    if budget is None:
        per = SWEEP_PAIRS_PER_ITEM if per_item is None else int(per_item)
        budget = pair_budget(n, per)
    else:
        budget, per = int(budget), None
    requested = float(t[0])
    if total <= budget:
        return SweepFloor(requested, requested, budget, total, 0, seed,
                          pd.DataFrame(columns=["threshold", "hits", "pairs", "low", "high"]),
                          f"all {total:,} pairs fit the budget of {budget:,}", per)
    sample = floor_sample_size(total, budget) if sample is None else int(sample)
    rng = np.random.default_rng(seed)
    i, j = pair_at(n, rng.integers(0, total, size=sample, dtype=np.int64))
    # Scored in chunks: gathering a pair's two rows costs ~1 KB, so memory stays O(chunk).
    scores = np.sort(np.concatenate([pair_jaccard(shingled, i[k:k + _CHUNK], j[k:k + _CHUNK])
                                     for k in range(0, sample, _CHUNK)] or [np.zeros(0)]))
    hits = sample - np.searchsorted(scores, t, side="left")  # sampled pairs scoring >= t
    lo, hi = clopper_pearson(hits, sample, FLOOR_CONFIDENCE)
    fits = np.flatnonzero(hi * total <= budget)
    if not len(fits) and lo[-1] * total > budget:
        raise SweepTooLarge(float(t[-1]), float(hits[-1] / sample * total), float(lo[-1] * total),
                            budget, n, per)
    pick = int(fits[0]) if len(fits) else len(t) - 1
    table = pd.DataFrame({"threshold": t, "hits": hits, "pairs": hits / sample * total,
                          "low": lo * total, "high": hi * total}).iloc[: pick + 1]
    at = table.iloc[-1]
    if pick == 0:
        reason = (f"at {requested:.2f} an estimated {at['pairs']:,.0f} pairs "
                  f"(at most {at['high']:,.0f}) fit the budget of {budget:,}")
    else:
        first = table.iloc[0]
        reason = (f"at the requested {requested:.2f} an estimated {first['pairs']:,.0f} pairs "
                  f"[{first['low']:,.0f}, {first['high']:,.0f}] exceed the budget of "
                  f"{budget:,}" + (f" ({per} per item)" if per else "")
                  + f"; {float(t[pick]):.2f} is the lowest threshold whose estimate "
                  f"(at most {at['high']:,.0f}) fits"
                  + ("" if len(fits) else "; none fits, so the sweep starts at the top"))
    return SweepFloor(requested, float(t[pick]), budget, total, sample, seed, table, reason, per)


FILTER_PAIRS_PER_ITEM = 2000
"""Pairs per item the weighted prefix filter of the IDF sweep may list.

That filter (:func:`newsdedup.score.prefix.prefix_candidates`) lists every
pair sharing a prefix shingle in a sparse product before its length and
suffix tests; listing is its cost (about 1.4M pairs a second on this
machine: 30k English headlines at 0.05 list 59M pairs in 42 s). Under IDF
weights a low threshold's prefix holds nearly every shingle but the most
common, so for English headlines the listed pairs are a fixed share of all
``N(N-1)/2`` (about 13% at 30k items and 0.05): quadratic. 2,000 per item
bounds that pass at about 2.5 minutes per 100k items."""


def weighted_filter_work(shingled: ShingleMatrix, weights: np.ndarray, threshold: float,
                         sample: int = FLOOR_SAMPLE_PAIRS, seed: int = 0) -> dict:
    """Pairs the weighted prefix filter would list and yield at ``threshold``, from a pair sample.

    Returns:
        ``{"threshold", "budget_listed", "total_pairs", "sample_pairs", "seed",
        "listed", "listed_low", "listed_high", "candidates"}``: estimates
        over the items with weight (the filter's members), with the
        Clopper-Pearson interval of the listed pairs; ``sample_pairs`` is 0
        and the estimates are the pair count itself when every pair fits
        the budget.
    """
    from newsdedup.score.prefix import candidate_mask, row_mass

    x = shingled.matrix.tocsr()
    members = np.flatnonzero(row_mass(x, weights) > 0).astype(np.int64)
    m = len(members)
    total = m * (m - 1) // 2
    budget = max(SWEEP_MIN_PAIRS, FILTER_PAIRS_PER_ITEM * shingled.n_items)
    out = {"threshold": float(threshold), "budget_listed": budget, "total_pairs": total,
           "sample_pairs": 0, "seed": seed}
    if total <= budget:
        return out | {"listed": float(total), "listed_low": float(total),
                      "listed_high": float(total), "candidates": float(total)}
    rng = np.random.default_rng(seed)
    a, b = pair_at(m, rng.integers(0, total, size=sample, dtype=np.int64))
    listed, cand = candidate_mask(x, weights, threshold, members, a, b)
    lo, hi = clopper_pearson(np.array([listed.sum()]), sample, FLOOR_CONFIDENCE)
    return out | {"sample_pairs": sample, "listed": float(listed.mean() * total),
                  "listed_low": float(lo[0] * total), "listed_high": float(hi[0] * total),
                  "candidates": float(cand.mean() * total)}

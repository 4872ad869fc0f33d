"""One cost model for the all-pairs studies: streamed, sampled or skipped, by estimated seconds.

Each study whose work grows with the pairs of a corpus (``newsdedup
measure``'s tables, its MinHash error study, calibrate's MinHash sweep) asks
this module what its options cost *before* doing any work, and takes the
cheapest one that fits, so the cost is continuous in ``N`` rather than a
fixed size at which a path switches on or off. The estimate is a function of
the item count and the settings only (never of the clock), so the same corpus
takes the same path on every machine and reruns are byte-identical; the
rates below were measured on the project's 2-core machine and only place the
switch points.

The choices, with their estimated seconds, are what the studies record in
``params.json`` (``scale.plan``) and print in their reports:

* **measure tables** (:func:`measure_plan`): ``dense`` / ``streamed`` (every
  pair, exact) while that costs at most :data:`EXACT_PREFERENCE` times the
  ``sampled`` path (exact join, LSH and a pair sample, with intervals) and
  fits ``MeasureConfig.pair_budget``;
* **MinHash error study** (:func:`error_plan`): every pair while that fits
  :data:`ERROR_BUDGET` seconds, else the largest seeded pair sample that
  does (at least ``MeasureConfig.sampled_error_pairs``), with a normal
  interval of the mean error;
* **calibrate's MinHash sweep** (:func:`minhash_sweep_plan`): streamed over
  every pair while that fits :data:`MINHASH_SWEEP_BUDGET` seconds, else left
  out (no prefix bounds an estimate, so there is no exact cheaper path);
* **joins that list pairs** (:func:`join_threshold`: the sampled measurement's
  join, the cross-host listing): the lowest threshold whose pairs, estimated
  from a uniform pair sample, fit :func:`join_budget`; a feed of one template
  holds nearly all of its pairs above a low threshold.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ERROR_BUDGET", "ERROR_PAIR_RATE", "ERROR_SIG_RATE", "EXACT_PREFERENCE",
           "JOIN_PAIRS_MIN", "JOIN_PAIRS_PER_ITEM", "MINHASH_SWEEP_BUDGET",
           "MINHASH_SWEEP_RATE", "SAMPLED_ITEM_RATE", "SAMPLE_RATE", "STREAM_RATE",
           "ErrorPlan", "MeasurePlan", "error_plan", "join_budget", "join_threshold",
           "measure_plan", "minhash_sweep_plan"]

STREAM_RATE = 1.6e8
"""Pair x permutation comparisons per second of the exact (dense or streamed) measurement.

Measured: 10,000 Korean headlines, n = 3, 4, 5, k = 128 streamed in 114 s
(150M pairs x 128 / 114 s = 1.7e8/s); the dense path at 1,000 and 3,000
items runs at 1.6e8 and 2.3e8."""

SAMPLE_RATE = 8.3e5
"""Sampled pairs per second of the sampled path (exact Jaccard and estimate of each), per n."""

SAMPLED_ITEM_RATE = 1.07e4
"""Items per second of the sampled path's per-item work (signatures, join, LSH), per n.

With :data:`SAMPLE_RATE`, fitted to the sampled measurement of synthetic
Korean headlines (3 n-gram sizes, 500k sampled pairs each): 2.1 s at 1,000
items, 2.8 s at 3,000, 8.7 s at 30,000, 29.8 s at 100,000."""

ERROR_PAIR_RATE = 3.0e8
"""Pair x permutation comparisons per second of the error study's estimates."""

ERROR_SIG_RATE = 1.16e7
"""Item x permutation signatures per second of the error study (both families)."""

ERROR_BUDGET = 1.5
"""Seconds the MinHash error study may take before it samples pairs.

The pinned archive's 74,691 pairs (387 items, every pair, as published)
are estimated at 1.15 s; 1,000 items' 499,500 pairs at 6.8 s, so they are
sampled (about 85,000 pairs, a mean error known to a few 1e-4)."""

EXACT_PREFERENCE = 1.25
"""How much more the exact measurement may cost than the sampled one and still be chosen.

Exact figures need no interval; a quarter more time is worth that. The time
of ``measure`` can then fall by at most a fifth where the path switches, and
the other steps of a run keep growing there."""

MINHASH_SWEEP_RATE = 1.2e7
"""Pairs per second of calibrate's streamed MinHash sweep (k = 128).

Measured: 3,000 Korean headlines, 4.5M pairs in 0.37 s (1,000 items: 6e6/s,
fixed costs first). It was 1.7e6 before the block counted agreements in
``uint8`` over contiguous rows (:meth:`newsdedup.score.scorers.BlockScorer.block`)."""

MINHASH_SWEEP_BUDGET = 1.0
"""Seconds calibrate's MinHash sweep may take; above it the scorer is left out of the sweep.

About 4,900 items at k = 128. Leaving the sweep out makes calibrate this much
faster at the switch, so the budget is also the largest drop of ``run``'s
time as N grows past it: 1 s of a run of about 8 s there. It was 3 s at the
slower rate (about 2,500 items: a 3,000-item run took as long as a
10,000-item one), and before that a fixed 10,000 items (50M pairs, 25-30 s:
the larger part of ``run``'s calibrate at that size)."""


JOIN_PAIRS_PER_ITEM = 100
"""Pairs per item the sampled measurement's join may list (at least :data:`JOIN_PAIRS_MIN`).

Headlines of a varied feed hold a few pairs per item at J >= 0.2 (10k
English: 27,474; 10k Korean fewer); titles from one template hold nearly all
``N^2/2``, which no join lists in bounded time. Above the budget (estimated
from the pair sample) the join starts at a higher threshold and the lower
thresholds' counts come from the sample (:func:`join_threshold`)."""

JOIN_PAIRS_MIN = 1_000_000
"""Pairs the sampled measurement's join may always list."""


def join_threshold(sample_scores, thresholds, n_items: int,
                   population: int | None = None) -> float | None:
    """The lowest threshold whose pairs, estimated from a uniform pair sample, fit the join budget.

    Args:
        sample_scores: Exact scores of a uniform pair sample.
        thresholds: Candidate join thresholds (the table's positive thresholds).
        n_items: Items of the corpus (the budget is per item).
        population: Pairs the sample was drawn from; None: all ``N(N-1)/2`` pairs (the
            cross-host listing samples its cross pairs only).

    Returns:
        The threshold, or None when even the highest would list too many pairs.

    Examples:
        >>> import numpy as np
        >>> join_threshold(np.array([0.1, 0.3, 0.9]), [0.2, 0.5], 10)
        0.2
        >>> join_threshold(np.full(10, 0.9), [0.2, 0.5], 200_000) is None
        True
        >>> join_threshold(np.array([0.1, 0.3, 0.9]), [0.2, 0.5], 10, population=3_000_000)
        0.5
    """
    budget = join_budget(n_items)
    total = n_pairs(n_items) if population is None else population
    m = len(sample_scores)
    for t in sorted(float(x) for x in thresholds):
        share = float((sample_scores >= t).sum()) / m if m else 0.0
        if share * total <= budget:
            return t
    return None


def join_budget(n_items: int) -> int:
    """Pairs a join over ``n_items`` items may list (:data:`JOIN_PAIRS_PER_ITEM` per item).

    At least :data:`JOIN_PAIRS_MIN`.

    Examples:
        >>> join_budget(1000), join_budget(100_000)
        (1000000, 10000000)
    """
    return max(JOIN_PAIRS_MIN, JOIN_PAIRS_PER_ITEM * n_items)


def n_pairs(n_items: int) -> int:
    """``N(N-1)/2``."""
    return n_items * (n_items - 1) // 2


@dataclass(frozen=True)
class ErrorPlan:
    """How the MinHash error study gets its pairs.

    Attributes:
        pairs: Pairs it uses (all, or a seeded sample of this many).
        total: Pairs of the corpus.
        seconds: Estimated seconds with ``pairs``.
        all_seconds: Estimated seconds with every pair.
    """

    pairs: int
    total: int
    seconds: float
    all_seconds: float

    @property
    def method(self) -> str:
        """``"exact"`` (every pair) or ``"sampled"``."""
        return "exact" if self.pairs >= self.total else "sampled"

    def record(self) -> dict:
        """As written to ``params.json``."""
        return {"choice": self.method, "pairs": self.pairs, "of_pairs": self.total,
                "estimated_seconds": round(self.seconds, 3),
                "estimated_seconds_all_pairs": round(self.all_seconds, 3),
                "budget_seconds": ERROR_BUDGET,
                "estimated_error": "exact" if self.method == "exact"
                else "normal interval of err_mean (err_mean_lo, err_mean_hi)"}


def error_seconds(pairs: int, n_items: int, perms_total: int, families: int) -> float:
    """Estimated seconds of the error study on ``pairs`` pairs of ``n_items`` items.

    Signatures are computed for the items the pairs touch (at most ``2 pairs``),
    estimates for every pair, at every permutation count, for every family.
    """
    touched = min(n_items, 2 * pairs)
    return (touched * perms_total * families / ERROR_SIG_RATE
            + pairs * perms_total * families / ERROR_PAIR_RATE)


def error_plan(n_items: int, perms_total: int, families: int, max_pairs: int,
               min_pairs: int) -> ErrorPlan:
    """The error study's pairs: all while they fit :data:`ERROR_BUDGET`, else the largest sample.

    Args:
        n_items: Items of the corpus.
        perms_total: Sum of the permutation counts studied.
        families: Hash families studied.
        max_pairs: Never more pairs than this (``MeasureConfig.error_max_pairs``).
        min_pairs: Never fewer than this (``MeasureConfig.sampled_error_pairs``).

    Examples:
        >>> error_plan(387, 2032, 2, 250_000, 2000).method
        'exact'
        >>> p = error_plan(1000, 2032, 2, 250_000, 2000)
        >>> p.method, 50_000 < p.pairs < 120_000
        ('sampled', True)
    """
    total = n_pairs(n_items)
    per_pair = perms_total * families / ERROR_PAIR_RATE
    per_item = perms_total * families / ERROR_SIG_RATE
    # The largest m whose cost fits the budget (items touched bounded by N).
    fit = ERROR_BUDGET / (per_pair + 2 * per_item)
    if n_items * per_item + fit * per_pair < ERROR_BUDGET:  # every item touched, still fits
        fit = (ERROR_BUDGET - n_items * per_item) / per_pair
    pairs = min(total, max_pairs, max(int(fit), min_pairs))
    return ErrorPlan(pairs, total, error_seconds(pairs, n_items, perms_total, families),
                     error_seconds(total, n_items, perms_total, families))


@dataclass(frozen=True)
class MeasurePlan:
    """How ``newsdedup measure`` gets its all-pairs figures, and what each option was estimated at.

    Attributes:
        path: ``"dense"``, ``"streamed"`` or ``"sampled"``.
        exact_seconds: Estimated seconds of the exact path (tables and error study).
        sampled_seconds: Estimated seconds of the sampled path.
        budget: ``MeasureConfig.pair_budget``.
    """

    path: str
    exact_seconds: float
    sampled_seconds: float
    budget: float

    def record(self) -> dict:
        """As written to ``params.json`` (``scale.plan``)."""
        return {"choice": self.path, "estimated_seconds_exact": round(self.exact_seconds, 3),
                "estimated_seconds_sampled": round(self.sampled_seconds, 3),
                "exact_preference": EXACT_PREFERENCE, "pair_budget_seconds": self.budget,
                "rule": "exact (dense up to dense_max_items, else streamed) while it costs at "
                        "most exact_preference x the sampled path and fits pair_budget"}


def measure_plan(n_items: int, config) -> MeasurePlan:
    """The cheapest way to the measurement's all-pairs figures (module docstring).

    Args:
        n_items: Items of the corpus.
        config: A :class:`~newsdedup.studies.measure.MeasureConfig`.

    Examples:
        >>> from newsdedup.studies.measure import MeasureConfig
        >>> [measure_plan(n, MeasureConfig()).path for n in (387, 1000, 3000, 100_000)]
        ['dense', 'dense', 'sampled', 'sampled']
    """
    ngrams = len(config.ngrams)
    perms, families = sum(config.error_perms), len(config.error_families)
    extra = getattr(config, "extra", True)
    exact_error = (error_plan(n_items, perms, families, config.error_max_pairs,
                              config.sampled_error_pairs).seconds if extra else 0.0)
    exact = n_pairs(n_items) * ngrams * config.minhash.num_perm / STREAM_RATE + exact_error
    sampled_error = error_seconds(min(config.sampled_error_pairs, n_pairs(n_items)), n_items,
                                  perms, families)
    sampled = (ngrams * (config.sample_pairs / SAMPLE_RATE + n_items / SAMPLED_ITEM_RATE)
               + sampled_error)
    if exact <= config.pair_budget and exact <= EXACT_PREFERENCE * sampled:
        path = "dense" if n_items <= config.dense_max_items else "streamed"
    else:
        path = "sampled"
    return MeasurePlan(path, exact, sampled, config.pair_budget)


def minhash_sweep_plan(n_items: int, num_perm: int) -> dict:
    """Whether calibrate's MinHash sweep streams every pair or is left out, and its estimate.

    Examples:
        >>> minhash_sweep_plan(1000, 128)["choice"], minhash_sweep_plan(10_000, 128)["choice"]
        ('streamed', 'left out')
    """
    seconds = n_pairs(n_items) * (num_perm / 128) / MINHASH_SWEEP_RATE
    return {"choice": "streamed" if seconds <= MINHASH_SWEEP_BUDGET else "left out",
            "estimated_seconds": round(seconds, 3), "budget_seconds": MINHASH_SWEEP_BUDGET}

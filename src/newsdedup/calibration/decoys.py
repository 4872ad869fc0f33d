"""Decoys that look like the dedupe's false merges, and a check that they do.

Without labels the calibration can only estimate how often unrelated pairs
are merged from pairs known to be unrelated: *decoys* (target-decoy
estimation, as in proteomics, Elias and Gygi 2007). The estimate is only as
good as the decoys' likeness to the unrelated pairs the dedupe actually
compares: pairs of two categories of an aggregator never look alike, while
its real false merges are within one category (a recurring column, the next
episode of a series, another company under one template). So decoys here
are *matched* to the compared pairs:

* **same gate bucket, same category** (``decoy_field``, when named),
  published further apart than the date window (or, without a window,
  ``decoy_days``): what the dedupe would compare if it had no window. Series
  pairs are left out: the series rule never merges them.
* **listed pairs**: known-distinct pairs from a file (``id_i``, ``id_j``).

Decoys and compared pairs are matched by their sources too (:data:`RELATIONS`):
decoys of one outlet stand for the compared pairs of one outlet (its own
templates and columns), decoys of two outlets for those of two (two outlets
filling one template, two ministries "raising fuel prices"), which the
same-source decoys alone never showed.

The estimate at threshold ``t``: each relation's decoy rate of scoring
``>= t`` applied to its compared pairs (one bucket, within the window; every
compared pair taken as unrelated: the conservative reading) bounds the wrong
*joins*; the interval comes from the Clopper-Pearson intervals of the rates
(each at half the error when both relations are compared). A group is built by
joins to its representative, and a wrong join into a group of more than two
makes more than one wrong pair, so the wrong joins become wrong pairs in the
worst way the merged groups allow (:func:`worst_false_pairs`), and precision
is one minus their share of the merged pairs. With same-source decoys and one
wrong pair per wrong join, the bound stated precision 0.80 or more where the
truth was 0.60 on a planted feed of subjects and actions
(``tests/runs/test_calibrate.py::test_the_decoy_bound_holds_against_the_truth_on_a_feed_of_shared_templates``).

**The check** (:func:`check_decoys`). Where scores are low almost every
compared pair is unrelated, so there the decoys must score like the compared
pairs: the share of compared pairs at or above the floor over the decoys'
share must lie within ``[1/2, 2]``. Compared pairs far more alike than the
decoys (topical bursts: one story's developments within days) mean the
decoys would understate the false merges; the check then fails, and the
calibration says so instead of recommending from them. Too few decoys (fewer
than :data:`MIN_DECOYS` scoring at or above the floor) fail it too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from newsdedup.calibration.population import Population
from newsdedup.studies.quantiles import CONFIDENCE, clopper_pearson

__all__ = ["DecoyRule", "DecoyEstimate", "MIN_DECOYS", "LIKENESS", "RELATIONS",
           "decoy_estimates", "worst_false_pairs"]

RELATIONS = ("one source", "two sources")
"""How decoys are matched to compared pairs by their sources (a feed without sources is
one source)."""

MIN_DECOYS = 30
"""Decoys at or above the floor the estimate needs; fewer say nothing about a rate."""

LIKENESS = 2.0
"""How far (as a factor, either way) the compared pairs' share above the floor may be
from the decoys' before the decoys are judged unlike them."""

_DAY = 86400.0


@dataclass(frozen=True)
class DecoyRule:
    """Which pairs are decoys.

    Attributes:
        gap_days: Pairs of one bucket and source further apart than this are decoys
            (the window, or ``decoy_days`` without one); None: no date decoys.
        field: Codes of the category column (decoys need equal values); None: no field.
        listed: Sorted ``i * N + j`` of listed known-distinct pairs.
        describe: One line naming the rule.
    """

    gap_days: float | None
    field: np.ndarray | None
    listed: np.ndarray
    describe: str


@dataclass(frozen=True)
class DecoyEstimate:
    """Decoy evidence of a calibrated dedupe.

    Attributes:
        curve: Per threshold: ``decoys_at``, ``decoy_rate`` (and its interval),
            ``precision`` with ``precision_low``/``precision_high`` (decoys; the
            high end is 1 where pairs merge: a lower bound only).
        decoys: Decoy pairs in all (any score).
        compared: Compared pairs in all (one bucket, within the window).
        check: ``{"passed", "likeness", "decoys_above_floor", "reason"}``.
        describe: The rule in words.
    """

    curve: pd.DataFrame
    decoys: int
    compared: int
    check: dict
    describe: str


def _group_codes(*codes: np.ndarray) -> np.ndarray:
    frame = pd.DataFrame({f"c{k}": c for k, c in enumerate(codes)})
    return frame.groupby(list(frame.columns), sort=True).ngroup().to_numpy(np.int64)


def _pairs_apart(groups: np.ndarray, days: np.ndarray, gap: float,
                 inclusive: bool = False) -> int:
    """Pairs of one group whose dates are more than ``gap`` days apart (dated rows only).

    With ``inclusive``, pairs exactly ``gap`` apart count too: the dedupe's window
    keeps those apart (it compares only pairs *less* than the window apart).
    """
    ok = np.isfinite(days)
    if ok.sum() < 2:
        return 0
    g, t = groups[ok], days[ok] - days[ok].min()
    stride = float(t.max()) + gap + 1.0
    _, rank = np.unique(g, return_inverse=True)
    key = np.sort(rank * stride + t)
    end = np.searchsorted(key, (np.floor(key / stride) + 1) * stride, side="left")
    start = np.searchsorted(key, key + gap, side="left" if inclusive else "right")
    return int(np.maximum(end - start, 0).sum())


def _pairs_within(groups: np.ndarray) -> int:
    sizes = np.bincount(pd.factorize(groups)[0]) if len(groups) else np.zeros(0, np.int64)
    return int((sizes * (sizes - 1) // 2).sum())


def worst_false_pairs(false_links: float, sizes: np.ndarray) -> float:
    """The most pairs of two events ``false_links`` wrong joins can put into these groups.

    A group is built by joining items to its representative, each join a compared pair
    scoring at or above the threshold; the pairs of its members are merged whether or
    not they were ever compared. In a group of ``s`` items, ``f`` wrong members (each of
    an event of its own, the worst case) make ``f * (s - f) + f * (f - 1) / 2`` pairs of
    two events: the ``k``-th adds ``s - k``. The most ``F`` wrong joins can make is so the
    sum of the ``F`` largest of those gains over all groups (the gains fall, so taking
    the largest first is best). In groups of two that is ``F``; a copy and its
    representative joined by a template sibling are two wrong pairs of one wrong join.

    Args:
        false_links: Wrong joins (a bound on them; may be fractional).
        sizes: The sizes of the merged groups (two items or more).

    Returns:
        The bound on pairs of two events.

    Examples:
        >>> worst_false_pairs(3, np.array([2, 2, 2, 2])), worst_false_pairs(2, np.array([4, 2]))
        (3.0, 5.0)
        >>> worst_false_pairs(2.5, np.array([4, 2]))
        5.5
    """
    if not np.isfinite(false_links):
        return float("nan")
    sizes = np.asarray(sizes, dtype=np.int64)
    sizes = sizes[sizes > 1]
    # The gains s - 1, s - 2, ..., 1 of every group, largest first: gain v is offered by
    # every group of more than v items.
    larger = np.cumsum(np.bincount(sizes)[::-1])[::-1] if sizes.size else np.zeros(1, np.int64)
    counts = np.r_[0, larger[2:]] if larger.size > 2 else np.zeros(1, np.int64)
    gains = np.repeat(np.arange(counts.size, dtype=np.float64), counts)[::-1]
    whole = int(min(np.floor(false_links), gains.size))
    extra = (false_links - whole) * gains[whole] if whole < gains.size else 0.0
    return float(gains[:whole].sum() + extra)


def decoy_estimates(pop: Population, compared: np.ndarray, series: np.ndarray,
                    buckets: np.ndarray, sources: Sequence[str] | None,
                    times: np.ndarray, rule: DecoyRule, merged_pairs: dict[float, int],
                    window_days: float | None, confidence: float = CONFIDENCE,
                    group_sizes: dict[float, np.ndarray] | None = None) -> DecoyEstimate:
    """Precision per threshold estimated from matched decoys, and the decoys' check.

    Decoys are matched to the compared pairs by their sources too (module docstring):
    the rate of decoys of one source bounds the compared pairs of one source, the rate
    of decoys of two sources the compared pairs of two (:data:`RELATIONS`). Where both
    relations are compared, each rate's interval is taken at half the error
    (Bonferroni), so that the bound holds at ``confidence`` jointly.

    Args:
        pop: The population (every pair at or above the floor, with its score).
        compared: Whether the dedupe compares each population pair (one bucket,
            within the window, not kept apart by the series rule); the pairs of one
            bucket within the window it does not compare are out of the count of
            compared pairs.
        series: Whether each population pair shares a recurring series.
        buckets: Gate bucket per row.
        sources: Source per row, or None.
        times: Publication time per row in seconds (NaN unknown).
        rule: The decoy rule.
        merged_pairs: Threshold -> pairs the dedupe merges there.
        window_days: The dedupe's window (compared pairs lie within it), or None.
        confidence: Of the intervals.
        group_sizes: Threshold -> sizes of the merged groups there: the unrelated
            compared pairs scoring ``>= t`` bound the wrong *joins*, and a join into a
            larger group makes more than one wrong pair (:func:`worst_false_pairs`).
            None: every group taken as a pair (the bound before groups were counted).

    Returns:
        The :class:`DecoyEstimate`; its ``decoy_rate`` columns are the rate over all
        compared pairs that the two relations' rates give together.
    """
    n = len(pop.ids)
    days = np.asarray(times, dtype=np.float64) / _DAY
    src = (pd.factorize(pd.Series([str(s) for s in sources], dtype=object))[0]
           if sources is not None else np.zeros(n, np.int64))
    fld = rule.field if rule.field is not None else np.zeros(n, np.int64)
    bucket = np.asarray(buckets)
    # Groups a decoy's two rows share: bucket and field (any sources), and with the source.
    matched = _group_codes(bucket, fld)
    own = _group_codes(bucket, fld, src)
    i, j = pop.i, pop.j
    one_source = src[i] == src[j]
    is_decoy = np.zeros(len(pop), dtype=bool)
    decoys_all = np.zeros(2, dtype=np.int64)  # per relation: one source, two sources
    if rule.gap_days is not None:
        apart = (matched[i] == matched[j]) & (np.abs(days[i] - days[j]) > rule.gap_days)
        is_decoy = apart & ~series
        # Series pairs are never merged, so they are no decoys: out of the count of
        # all decoys too (those the population holds; a series pair scoring below
        # the floor is left in, a slight overcount that lowers the estimated
        # precision, never raises it).
        every = _pairs_apart(matched, days, rule.gap_days)
        ones = _pairs_apart(own, days, rule.gap_days)
        decoys_all += [ones - int(np.sum(apart & series & one_source)),
                       every - ones - int(np.sum(apart & series & ~one_source))]
    if len(rule.listed):
        listed = np.isin(pop.keys(), rule.listed)
        # A listed pair the date rule already counts (above the floor or not) counts once.
        a, b = np.divmod(np.asarray(rule.listed, dtype=np.int64), n)
        dated = (np.zeros(len(a), dtype=bool) if rule.gap_days is None else
                 (matched[a] == matched[b]) & (np.abs(days[a] - days[b]) > rule.gap_days))
        in_series = np.isin(rule.listed, pop.keys()[series]) if series.any() else False
        extra = ~dated | in_series
        decoys_all += [int(np.sum(extra & (src[a] == src[b]))),
                       int(np.sum(extra & (src[a] != src[b])))]
        is_decoy |= listed
    # Compared pairs: one bucket (any source), within the window; and those of one source.
    bucket_source = _group_codes(bucket, src)
    compared_all = np.array([_pairs_within(bucket_source), 0], dtype=np.int64)
    compared_all[1] = _pairs_within(bucket) - compared_all[0]
    if window_days is not None:
        far = _pairs_apart(bucket, days, window_days, inclusive=True)
        far_own = _pairs_apart(bucket_source, days, window_days, inclusive=True)
        compared_all -= [far_own, far - far_own]
    # Pairs within reach that the series rule keeps apart are never merged: out of the
    # compared pairs, as series pairs are out of the decoys (those the population holds),
    # so that the two shares the check sets side by side count the same kind of pair.
    in_reach = bucket[i] == bucket[j]
    if window_days is not None:
        in_reach &= ~(np.abs(days[i] - days[j]) >= window_days)  # unknown dates: in reach
    held = in_reach & ~compared
    compared_all -= [int(np.sum(held & one_source)), int(np.sum(held & ~one_source))]
    compared = compared & ~is_decoy
    # A relation with compared pairs and no decoy cannot be bounded: no rate, no precision.
    used = compared_all > 0
    level = 1 - (1 - confidence) / max(int(used.sum()), 1)
    d_scores = [np.sort(pop.score[is_decoy & (one_source if k == 0 else ~one_source)])
                for k in range(2)]
    total = int(compared_all.sum())
    rows = []
    for t in sorted(merged_pairs):
        d_at = np.array([d.size - np.searchsorted(d, t, side="left") for d in d_scores])
        false = np.zeros(3)  # estimated false merges: point, low, high
        for k in np.flatnonzero(used):
            if not decoys_all[k]:
                false[:] = np.nan
                break
            lo, hi = clopper_pearson(int(d_at[k]), int(decoys_all[k]), level)
            false += compared_all[k] * np.array([d_at[k] / decoys_all[k], lo, hi])
        rate = false / total if total else np.full(3, np.nan)
        merged = merged_pairs[t]
        if group_sizes is not None:
            # Wrong joins -> wrong pairs in the groups there are: the most they can make,
            # for the point and the low end of precision.
            sizes = group_sizes[t]
            false = np.array([worst_false_pairs(false[0], sizes), false[1],
                              worst_false_pairs(false[2], sizes)])

        def precision(f: float, m: int = merged) -> float:
            return float(max(0.0, 1.0 - f / m)) if m and np.isfinite(f) else np.nan

        # Every compared pair is counted as unrelated, duplicates too, so the decoys bound
        # precision from below only: the high end is 1 (on a planted feed the truth lay
        # above the high end the decoys' low rate gave).
        rows.append({"threshold": t, "decoys_at": int(d_at.sum()), "decoy_rate": rate[0],
                     "decoy_rate_low": rate[1], "decoy_rate_high": rate[2],
                     "precision": precision(false[0]), "precision_low": precision(false[2]),
                     "precision_high": precision(0.0) if np.isfinite(false[1]) else np.nan})
    check = check_decoys(pop, is_decoy, compared, decoys_all, compared_all, one_source)
    return DecoyEstimate(pd.DataFrame(rows), int(decoys_all.sum()), total, check,
                         rule.describe)


def check_decoys(pop: Population, is_decoy: np.ndarray, compared: np.ndarray,
                 decoys_all: np.ndarray, compared_all: np.ndarray,
                 one_source: np.ndarray | None = None) -> dict:
    """Whether the decoys score like the compared pairs where almost all are unrelated.

    With two relations (one source, two sources), the compared pairs' share at or above
    the floor is set against what the decoys of each relation predict for the compared
    pairs of that relation.

    Examples:
        >>> from newsdedup.calibration.population import Population
        >>> strata = pd.DataFrame({"stratum": [0], "size": [3]})
        >>> pop = Population(np.arange(3), np.arange(3) + 3, np.full(3, 0.1), np.ones(3, bool),
        ...     np.zeros(3), np.zeros(3, int), strata, [str(k) for k in range(6)], 0.05)
        >>> check_decoys(pop, np.array([True, False, False]), np.array([False, True, True]),
        ...              np.array([10, 0]), np.array([20, 0]))["reason"][:40]
        'too few decoys: 1 score at or above the '
    """
    decoys_all, compared_all = np.asarray(decoys_all), np.asarray(compared_all)
    if one_source is None:
        one_source = np.ones(len(pop), dtype=bool)
    scored = pop.score >= pop.floor
    above_by = np.array([int((is_decoy & scored & one_source).sum()),
                         int((is_decoy & scored & ~one_source).sum())])
    above = int(above_by.sum())
    missing = (compared_all > 0) & (decoys_all == 0)
    if above < MIN_DECOYS or not compared_all.sum() or missing.any():
        short = ("" if not missing.any() else
                 "; no decoy of " + " or ".join(name for name, m in zip(
                     RELATIONS, missing, strict=True) if m)
                 + " for the compared pairs of that kind")
        return {"passed": False, "likeness": None, "decoys_above_floor": above,
                "reason": f"too few decoys: {above} score at or above the floor "
                          f"({pop.floor:g}), fewer than {MIN_DECOYS}" if not short else
                          f"too few decoys: {above} score at or above the floor "
                          f"({pop.floor:g}){short}"}
    used = compared_all > 0
    expected = float(np.sum(compared_all[used] * above_by[used] / decoys_all[used]))
    observed = float((compared & scored).sum())
    likeness = observed / expected if expected else (np.inf if observed else 1.0)
    passed = 1.0 / LIKENESS <= likeness <= LIKENESS
    if likeness == 0.0:
        reason = (f"no compared pair scores at or above the floor ({pop.floor:g}) while "
                  f"{above} decoys do: they are not like the pairs the dedupe compares")
    elif passed:
        reason = (f"the compared pairs score at or above the floor ({pop.floor:g}) "
                  f"{likeness:.2f} times as often as the decoys (within {LIKENESS:g}x either "
                  "way): the decoys look like the unrelated pairs the dedupe compares")
    elif likeness > LIKENESS:
        reason = (f"the compared pairs score at or above the floor ({pop.floor:g}) "
                  f"{likeness:.2f} times as often as the decoys: they are more alike than "
                  "the decoys even where almost all are unrelated, so the decoys would "
                  "understate the false merges")
    else:
        reason = (f"the decoys score at or above the floor ({pop.floor:g}) "
                  f"{1 / likeness:.2f} times as often as the compared pairs: they are not "
                  "like the pairs the dedupe compares")
    return {"passed": bool(passed), "likeness": float(likeness), "decoys_above_floor": above,
            "reason": reason}

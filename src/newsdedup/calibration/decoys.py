"""Decoys that look like the dedupe's false merges, and a check that they do.

Without labels the calibration can only estimate how often unrelated pairs
are merged from pairs known to be unrelated: *decoys* (target-decoy
estimation, as in proteomics, Elias and Gygi 2007). The estimate is only as
good as the decoys' likeness to the unrelated pairs the dedupe actually
compares: pairs of two categories of an aggregator never look alike, while
its real false merges are within one category (a recurring column, the next
episode of a series, another company under one template). So decoys here
are *matched* to the compared pairs:

* **same gate bucket, same source, same category** (``decoy_field``, when
  named), published further apart than the date window (or, without a
  window, ``decoy_days``): what the dedupe would compare if it had no
  window, from the same outlet and section. Series pairs are left out: the
  series rule never merges them.
* **listed pairs**: known-distinct pairs from a file (``id_i``, ``id_j``).

The estimate at threshold ``t``: the decoys' rate of scoring ``>= t``, ``r(t)``,
applied to every compared pair (one bucket, within the window); the false
merges are at most ``r(t)`` times the compared pairs (every compared pair
taken as unrelated: the conservative reading), and precision is one minus
their share of the merged pairs. The interval comes from the Clopper-Pearson
interval of ``r(t)``.

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

__all__ = ["DecoyRule", "DecoyEstimate", "MIN_DECOYS", "LIKENESS", "decoy_estimates"]

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
            ``precision`` with ``precision_low``/``precision_high`` (decoys).
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


def decoy_estimates(pop: Population, compared: np.ndarray, series: np.ndarray,
                    buckets: np.ndarray, sources: Sequence[str] | None,
                    times: np.ndarray, rule: DecoyRule, merged_pairs: dict[float, int],
                    window_days: float | None, confidence: float = CONFIDENCE
                    ) -> DecoyEstimate:
    """Precision per threshold estimated from matched decoys, and the decoys' check.

    Args:
        pop: The population (every pair at or above the floor, with its score).
        compared: Whether the dedupe compares each population pair (one bucket,
            within the window, not kept apart by the series rule).
        series: Whether each population pair shares a recurring series.
        buckets: Gate bucket per row.
        sources: Source per row, or None.
        times: Publication time per row in seconds (NaN unknown).
        rule: The decoy rule.
        merged_pairs: Threshold -> pairs the dedupe merges there.
        window_days: The dedupe's window (compared pairs lie within it), or None.
        confidence: Of the intervals.

    Returns:
        The :class:`DecoyEstimate`.
    """
    n = len(pop.ids)
    days = np.asarray(times, dtype=np.float64) / _DAY
    src = (pd.factorize(pd.Series([str(s) for s in sources], dtype=object))[0]
           if sources is not None else np.zeros(n, np.int64))
    fld = rule.field if rule.field is not None else np.zeros(n, np.int64)
    matched = _group_codes(np.asarray(buckets), src, fld)
    i, j = pop.i, pop.j
    same = matched[i] == matched[j]
    is_decoy = np.zeros(len(pop), dtype=bool)
    decoys_all = 0
    if rule.gap_days is not None:
        apart = same & (np.abs(days[i] - days[j]) > rule.gap_days)
        is_decoy = apart & ~series
        # Series pairs are never merged, so they are no decoys: out of the count of
        # all decoys too (those the population holds; a series pair scoring below
        # the floor is left in, a slight overcount that lowers the estimated
        # precision, never raises it).
        decoys_all = _pairs_apart(matched, days, rule.gap_days) - int(np.sum(apart & series))
    if len(rule.listed):
        listed = np.isin(pop.keys(), rule.listed)
        # A listed pair the date rule already counts (above the floor or not) counts once.
        a, b = np.divmod(np.asarray(rule.listed, dtype=np.int64), n)
        dated = (np.zeros(len(a), dtype=bool) if rule.gap_days is None else
                 (matched[a] == matched[b]) & (np.abs(days[a] - days[b]) > rule.gap_days))
        in_series = np.isin(rule.listed, pop.keys()[series]) if series.any() else False
        decoys_all += int(np.sum(~dated | in_series))
        is_decoy |= listed
    bucket = np.asarray(buckets)
    compared_all = _pairs_within(bucket)
    if window_days is not None:
        compared_all -= _pairs_apart(bucket, days, window_days, inclusive=True)
    compared = compared & ~is_decoy
    thresholds = sorted(merged_pairs)
    d_scores = np.sort(pop.score[is_decoy])
    rows = []
    for t in thresholds:
        d_at = int(d_scores.size - np.searchsorted(d_scores, t, side="left"))
        rate = d_at / decoys_all if decoys_all else np.nan
        lo, hi = (clopper_pearson(d_at, decoys_all, confidence) if decoys_all
                  else (np.nan, np.nan))
        merged = merged_pairs[t]

        def precision(r: float, m: int = merged) -> float:
            return float(max(0.0, 1.0 - r * compared_all / m)) if m else np.nan

        rows.append({"threshold": t, "decoys_at": d_at, "decoy_rate": rate,
                     "decoy_rate_low": lo, "decoy_rate_high": hi,
                     "precision": precision(rate), "precision_low": precision(hi),
                     "precision_high": precision(lo)})
    check = check_decoys(pop, is_decoy, compared, decoys_all, compared_all)
    return DecoyEstimate(pd.DataFrame(rows), int(decoys_all), int(compared_all), check,
                         rule.describe)


def check_decoys(pop: Population, is_decoy: np.ndarray, compared: np.ndarray,
                 decoys_all: int, compared_all: int) -> dict:
    """Whether the decoys score like the compared pairs where almost all are unrelated.

    Examples:
        >>> from newsdedup.calibration.population import Population
        >>> strata = pd.DataFrame({"stratum": [0], "size": [3]})
        >>> pop = Population(np.arange(3), np.arange(3) + 3, np.full(3, 0.1), np.ones(3, bool),
        ...     np.zeros(3), np.zeros(3, int), strata, [str(k) for k in range(6)], 0.05)
        >>> check_decoys(pop, np.array([True, False, False]), np.array([False, True, True]),
        ...              10, 20)["reason"][:40]
        'too few decoys: 1 score at or above the '
    """
    scored = pop.score >= pop.floor
    above = int((is_decoy & scored).sum())
    if above < MIN_DECOYS or not decoys_all or not compared_all:
        return {"passed": False, "likeness": None, "decoys_above_floor": above,
                "reason": f"too few decoys: {above} score at or above the floor "
                          f"({pop.floor:g}), fewer than {MIN_DECOYS}"}
    likeness = float((compared & scored).sum() / compared_all) / (above / decoys_all)
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

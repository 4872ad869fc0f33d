"""Metrics of a score against binary labels, and of a clustering against reference labels.

Everything here is label-agnostic arithmetic shared by the pair studies
(:mod:`newsdedup.evaluate`) and the story study (:mod:`newsdedup.stories`):

* per threshold: precision, recall and F1 of the rule ``score >= threshold``
  (:func:`threshold_metrics`, :func:`best_threshold`);
* threshold-free: ROC AUC (:func:`separation_auc`) and average precision;
* score distributions per class (:func:`score_distribution`).

All of it is vectorized by sorting: no Python loop over pairs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from newsdedup.calibration import default_grid

METRIC_COLUMNS: tuple[str, ...] = ("threshold", "tp", "fp", "fn", "precision", "recall", "f1")
"""Columns of :func:`threshold_metrics`, in order."""

DISTRIBUTION_STATS: tuple[str, ...] = ("count", "mean", "p5", "p50", "p95", "max")
"""Per-class statistics of a score distribution, in order."""


def metric_grid() -> np.ndarray:
    """The default thresholds ``0.05, 0.10, ..., 0.95`` (rounded, so 0.3 is exactly 0.3).

    Examples:
        >>> g = metric_grid()
        >>> len(g), g[:3].tolist(), bool(g[5] == 0.3), float(g[-1])
        (19, [0.05, 0.1, 0.15], True, 0.95)
    """
    return default_grid(0.05, 0.95, 0.05)


# --------------------------------------------------------------------------------------
# Threshold metrics
# --------------------------------------------------------------------------------------


def threshold_metrics(
    scores: np.ndarray, positive: np.ndarray, thresholds: Sequence[float]
) -> pd.DataFrame:
    """Precision, recall and F1 of the rule ``score >= threshold`` at every threshold.

    Every pair passed in is labelled: ``positive`` true is "same", false is "different"
    (drop unlabelled pairs before calling). The counts come from sorting each class once and
    a binary search per threshold, so the cost is ``O(P log P)`` whatever the grid.

    Args:
        scores: Score per pair.
        positive: Boolean label per pair, same shape as ``scores``.
        thresholds: Thresholds to evaluate.

    Returns:
        One row per threshold with :data:`METRIC_COLUMNS`: counts ``tp`` (positives flagged),
        ``fp`` (negatives flagged), ``fn`` (positives missed) as ``int64``; ``precision`` is
        NaN when nothing is flagged, ``recall`` NaN when there are no positives, and
        ``f1 = 2tp / (2tp + fp + fn)``, which is 0.0 when positives exist but none is flagged
        and NaN only when there is neither a positive nor a flagged pair.

    Raises:
        ValueError: ``scores`` and ``positive`` differ in shape.

    Examples:
        >>> s = np.array([0.9, 0.6, 0.4, 0.7, 0.2])
        >>> pos = np.array([True, True, True, False, False])
        >>> m = threshold_metrics(s, pos, [0.5, 0.8, 0.95])
        >>> m[["tp", "fp", "fn"]].values.tolist()
        [[2, 1, 1], [1, 0, 2], [0, 0, 3]]
        >>> m["precision"].round(3).tolist(), m["f1"].round(3).tolist()
        ([0.667, 1.0, nan], [0.667, 0.5, 0.0])
    """
    s = np.asarray(scores, dtype=np.float64)
    pos = np.asarray(positive, dtype=bool)
    if s.shape != pos.shape:
        raise ValueError(f"scores {s.shape} and positive {pos.shape} must have the same shape")
    t = np.asarray(thresholds, dtype=np.float64)
    pos_sorted = np.sort(s[pos])
    neg_sorted = np.sort(s[~pos])
    n_pos, n_neg = len(pos_sorted), len(neg_sorted)
    # side="left": a score equal to the threshold is flagged (score >= threshold).
    tp = (n_pos - np.searchsorted(pos_sorted, t, side="left")).astype(np.int64)
    fp = (n_neg - np.searchsorted(neg_sorted, t, side="left")).astype(np.int64)
    fn = n_pos - tp
    return pd.DataFrame(
        {
            "threshold": t,
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "precision": _ratio(tp, tp + fp),
            "recall": _ratio(tp, np.full_like(tp, n_pos)),
            "f1": _ratio(2 * tp, 2 * tp + fp + fn),
        }
    )


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` as float, NaN where ``den`` is 0 (the ratio is undefined, not zero)."""
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def best_threshold(metrics: pd.DataFrame) -> dict:
    """The row of a metrics table with the highest F1; ties go to the higher threshold.

    A higher threshold at equal F1 flags fewer pairs, and for dedupe a false merge (an
    article lost) costs more than a missed one.

    Args:
        metrics: A table with at least ``threshold`` and ``f1`` (e.g. from
            :func:`threshold_metrics`, possibly with extra columns).

    Returns:
        That row as a plain ``dict`` (Python scalars).

    Raises:
        ValueError: The table is empty or no row has a defined F1.

    Examples:
        >>> m = pd.DataFrame({"threshold": [0.1, 0.2, 0.3], "f1": [0.5, 0.8, 0.8]})
        >>> best_threshold(m)
        {'threshold': 0.3, 'f1': 0.8}
    """
    f1 = metrics["f1"].to_numpy(dtype=np.float64)
    defined = ~np.isnan(f1)
    if not defined.any():
        raise ValueError("no threshold has a defined F1 (no positives and nothing flagged)")
    thr = metrics["threshold"].to_numpy(dtype=np.float64)
    top = defined & (f1 == f1[defined].max())
    pick = int(np.flatnonzero(top)[np.argmax(thr[top])])
    # Column by column: a row Series of a mixed table would turn the int counts into floats.
    return {c: py_scalar(metrics[c].iloc[pick]) for c in metrics.columns}


def py_scalar(value):
    """A numpy scalar as the matching Python scalar (for dicts that go to JSON or reports)."""
    return value.item() if isinstance(value, np.generic) else value


def score_distribution(scores: np.ndarray, classes: np.ndarray) -> pd.DataFrame:
    """:data:`DISTRIBUTION_STATS` of the scores of each class, in order of first appearance.

    Args:
        scores: Score per pair.
        classes: Class label per pair (e.g. ``"same"`` / ``"different"``).

    Returns:
        One row per class: ``label`` then :data:`DISTRIBUTION_STATS`.

    Examples:
        >>> d = score_distribution(np.array([0.2, 0.8, 0.6]), np.array(["d", "s", "s"]))
        >>> d[["label", "count", "mean", "max"]].values.tolist()
        [['d', 1, 0.2, 0.2], ['s', 2, 0.7, 0.8]]
    """
    s = np.asarray(scores, dtype=np.float64)
    codes, names = pd.factorize(pd.Series(classes))
    # A handful of classes, not pairs.
    rows = [{"label": name, **sorted_stats(np.sort(s[codes == c]))} for c, name in enumerate(names)]
    return pd.DataFrame(rows, columns=["label", *DISTRIBUTION_STATS])


def sorted_stats(ordered: np.ndarray) -> dict:
    """:data:`DISTRIBUTION_STATS` of already sorted scores (NaN statistics when empty)."""
    if not len(ordered):
        return {"count": 0, **dict.fromkeys(DISTRIBUTION_STATS[1:], math.nan)}
    # Lower order statistics, as order_quantiles, without sorting again.
    p5, p50, p95 = ordered[(len(ordered) * np.array([0.05, 0.50, 0.95])).astype(np.int64)]
    return {
        "count": int(len(ordered)),
        "mean": float(ordered.mean()),
        "p5": float(p5),
        "p50": float(p50),
        "p95": float(p95),
        "max": float(ordered[-1]),
    }


def separation_auc(scores: np.ndarray, positive: np.ndarray) -> float:
    """Probability that a random positive outscores a random negative (ties count half).

    The threshold-free summary of separation (ROC AUC, the Mann-Whitney U over ``P * N``):
    the negatives are sorted once and every positive is placed among them by binary search.

    Examples:
        >>> separation_auc(np.array([0.9, 0.5, 0.5, 0.1]), np.array([1, 1, 0, 0], bool))
        0.875
    """
    s = np.asarray(scores, dtype=np.float64)
    pos = np.asarray(positive, dtype=bool)
    return auc_sorted(s[pos], np.sort(s[~pos]))


def auc_sorted(pos: np.ndarray, neg_sorted: np.ndarray) -> float:
    if not len(pos) or not len(neg_sorted):
        return math.nan
    below = np.searchsorted(neg_sorted, pos, side="left").sum(dtype=np.float64)
    upto = np.searchsorted(neg_sorted, pos, side="right").sum(dtype=np.float64)
    # below + (upto - below) / 2: negatives strictly lower, plus half of the ties.
    return float((below + upto) / 2 / (len(pos) * len(neg_sorted)))

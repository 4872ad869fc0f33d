"""Metrics of a score against binary labels, and of a clustering against reference labels.

Everything here is label-agnostic arithmetic shared by the pair studies
(:mod:`newsdedup.evaluate.pairs`) and the story study (:mod:`newsdedup.evaluate.stories`):

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

from newsdedup.studies.calibration import default_grid

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
    scores: np.ndarray, positive: np.ndarray, thresholds: Sequence[float] | np.ndarray
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
            "precision": ratio(tp, tp + fp),
            "recall": ratio(tp, np.full_like(tp, n_pos)),
            "f1": ratio(2 * tp, 2 * tp + fp + fn),
        }
    )


def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` as float, NaN where ``den`` is 0 (the ratio is undefined, not zero).

    Examples:
        >>> ratio(np.array([1, 0, 3]), np.array([2, 0, 3])).tolist()
        [0.5, nan, 1.0]
    """
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
    """:func:`separation_auc` from the positive scores and the sorted negative scores.

    For callers that sort the classes once anyway (millions of pairs); NaN when a class
    is empty.

    Examples:
        >>> auc_sorted(np.array([0.9, 0.5]), np.array([0.1, 0.5]))
        0.875
    """
    if not len(pos) or not len(neg_sorted):
        return math.nan
    below = np.searchsorted(neg_sorted, pos, side="left").sum(dtype=np.float64)
    upto = np.searchsorted(neg_sorted, pos, side="right").sum(dtype=np.float64)
    # below + (upto - below) / 2: negatives strictly lower, plus half of the ties.
    return float((below + upto) / 2 / (len(pos) * len(neg_sorted)))


# --------------------------------------------------------------------------------------
# Batched threshold-free metrics (one row per bootstrap resample)
# --------------------------------------------------------------------------------------


def roc_auc_rows(scores: np.ndarray, positive: np.ndarray) -> np.ndarray:
    """ROC AUC of every row of a ``(B, n)`` score matrix, ties counted half.

    The Mann-Whitney form: with average ranks over the row,
    ``AUC = (sum of positive ranks - P (P + 1) / 2) / (P N)``. Equal to
    :func:`separation_auc` row by row, but for all rows at once (bootstrap resamples).

    Args:
        scores: ``(B, n)`` or ``(n,)`` scores.
        positive: Boolean labels of the same shape.

    Returns:
        ``(B,)`` AUCs in ``[0, 1]`` (a 0-d array for 1-D input); NaN for a row without
        a positive or without a negative.

    Examples:
        >>> roc_auc_rows(np.array([[0.9, 0.5, 0.5, 0.1]]), np.array([[1, 1, 0, 0]], bool))
        array([0.875])
    """
    from scipy.stats import rankdata

    s = np.asarray(scores, dtype=np.float64)
    pos = np.asarray(positive, dtype=bool)
    ranks = rankdata(s, axis=-1)  # average ranks: a tie between classes counts half
    n_pos = pos.sum(axis=-1).astype(np.float64)
    n_neg = pos.shape[-1] - n_pos
    u = np.where(pos, ranks, 0.0).sum(axis=-1) - n_pos * (n_pos + 1) / 2
    den = n_pos * n_neg
    return np.divide(u, den, out=np.full(np.shape(u), np.nan), where=den > 0)


def average_precision_rows(scores: np.ndarray, positive: np.ndarray) -> np.ndarray:
    """Average precision of every row: ``sum over thresholds of (R_t - R_{t-1}) P_t``.

    The thresholds are the distinct scores, from the highest down; pairs with equal scores
    are flagged together (the step-wise definition, as scikit-learn's
    ``average_precision_score``). Each positive therefore contributes ``1 / P`` times the
    precision at the end of its tie group, which is how it is computed: sort each row
    descending, cumulate, and read the precision at the last index of every tie group.

    Args:
        scores: ``(B, n)`` or ``(n,)`` scores.
        positive: Boolean labels of the same shape.

    Returns:
        ``(B,)`` average precisions in ``[0, 1]`` (0-d for 1-D input); NaN for a row
        without positives.

    Examples:
        >>> s = np.array([0.9, 0.8, 0.7, 0.6])
        >>> float(average_precision_rows(s, np.array([1, 0, 1, 0], bool)))  # (1 + 2/3) / 2
        0.8333333333333333
        >>> float(average_precision_rows(np.array([0.5, 0.5]), np.array([1, 0], bool)))
        0.5
    """
    s = np.atleast_2d(np.asarray(scores, dtype=np.float64))
    pos = np.atleast_2d(np.asarray(positive, dtype=bool))
    n = s.shape[-1]
    order = np.argsort(-s, axis=-1, kind="stable")
    s_sorted = np.take_along_axis(s, order, axis=-1)
    p_sorted = np.take_along_axis(pos, order, axis=-1)
    tp = np.cumsum(p_sorted, axis=-1)
    precision = tp / np.arange(1, n + 1)
    # Index of the end of each position's tie group: the first k' >= k that ends a group.
    is_end = np.ones_like(s_sorted, dtype=bool)
    is_end[:, :-1] = s_sorted[:, 1:] != s_sorted[:, :-1]
    idx = np.where(is_end, np.arange(n), n)
    end = np.minimum.accumulate(idx[:, ::-1], axis=-1)[:, ::-1]
    group_precision = np.take_along_axis(precision, end, axis=-1)
    n_pos = p_sorted.sum(axis=-1)
    total = np.where(p_sorted, group_precision, 0.0).sum(axis=-1)
    out = np.divide(total, n_pos, out=np.full(total.shape, np.nan), where=n_pos > 0)
    return out if np.ndim(scores) > 1 else out.reshape(())


def prf_rows(scores: np.ndarray, positive: np.ndarray, threshold: float) -> dict[str, np.ndarray]:
    """Precision, recall and F1 of ``score >= threshold`` for every row.

    Args:
        scores: ``(B, n)`` or ``(n,)`` scores.
        positive: Boolean labels of the same shape.
        threshold: The cut.

    Returns:
        ``{"precision", "recall", "f1"}``, each ``(B,)`` (NaN where undefined, as in
        :func:`threshold_metrics`).

    Examples:
        >>> out = prf_rows(np.array([0.9, 0.6, 0.4, 0.7, 0.2]),
        ...                np.array([1, 1, 1, 0, 0], bool), 0.5)
        >>> [round(float(out[k]), 3) for k in ("precision", "recall", "f1")]
        [0.667, 0.667, 0.667]
    """
    s = np.asarray(scores, dtype=np.float64)
    pos = np.asarray(positive, dtype=bool)
    flagged = s >= threshold
    tp = (flagged & pos).sum(axis=-1)
    fp = (flagged & ~pos).sum(axis=-1)
    fn = (~flagged & pos).sum(axis=-1)
    return {
        "precision": ratio(np.asarray(tp), np.asarray(tp + fp)),
        "recall": ratio(np.asarray(tp), np.asarray(tp + fn)),
        "f1": ratio(np.asarray(2 * tp), np.asarray(2 * tp + fp + fn)),
    }


def curve(scores: np.ndarray, positive: np.ndarray) -> pd.DataFrame:
    """ROC and precision-recall points at every distinct score (the exact curves).

    One row per distinct score ``t``, highest first, for the rule ``score >= t``; ties are
    flagged together, as in :func:`average_precision_rows`.

    Returns:
        Columns ``threshold``, ``tp``, ``fp``, ``precision``, ``recall`` (= TPR) and ``fpr``;
        recall / fpr are NaN when a class is empty.

    Examples:
        >>> c = curve(np.array([0.9, 0.5, 0.5, 0.1]), np.array([1, 1, 0, 0], bool))
        >>> c[["threshold", "tp", "fp"]].values.tolist()
        [[0.9, 1.0, 0.0], [0.5, 2.0, 1.0], [0.1, 2.0, 2.0]]
        >>> c["precision"].round(3).tolist(), c["fpr"].tolist()
        ([1.0, 0.667, 0.5], [0.0, 0.5, 1.0])
    """
    s = np.asarray(scores, dtype=np.float64)
    pos = np.asarray(positive, dtype=bool)
    order = np.argsort(-s, kind="stable")
    s_sorted, p_sorted = s[order], pos[order]
    tp = np.cumsum(p_sorted)
    fp = np.cumsum(~p_sorted)
    end = np.append(s_sorted[1:] != s_sorted[:-1], True) if len(s) else np.zeros(0, bool)
    tp, fp = tp[end], fp[end]
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    return pd.DataFrame({
        "threshold": s_sorted[end],
        "tp": tp,
        "fp": fp,
        "precision": ratio(tp, tp + fp),
        "recall": ratio(tp, np.full_like(tp, n_pos)),
        "fpr": ratio(fp, np.full_like(fp, n_neg)),
    })


# --------------------------------------------------------------------------------------
# Bootstrap
# --------------------------------------------------------------------------------------


def bootstrap_indices(n: int, n_resamples: int = 1000, seed: int = 0) -> np.ndarray:
    """Resampling indices ``(n_resamples, n)``, drawn with replacement from a fixed seed.

    One index matrix is drawn per data set and shared by every scorer, so differences
    between scorers (and between the aligned Korean and English pairs) are paired.

    Examples:
        >>> idx = bootstrap_indices(5, 3, seed=1)
        >>> idx.shape, bool((idx == bootstrap_indices(5, 3, seed=1)).all())
        ((3, 5), True)
    """
    return np.random.default_rng(seed).integers(0, n, size=(n_resamples, n))


CONFIDENCE = 0.95
"""Confidence level of every bootstrap interval."""


def percentile_interval(values: np.ndarray, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Percentile bootstrap interval of resampled statistics (NaN resamples ignored).

    The percentile method (scipy's ``bootstrap(method="percentile")``): the
    ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles, linear interpolation.

    Returns:
        ``(low, high)``; NaN when no resample has a defined value.

    Examples:
        >>> [round(x, 6) for x in percentile_interval(np.arange(101) / 100)]
        [0.025, 0.975]
    """
    v = np.asarray(values, dtype=np.float64)
    v = v[~np.isnan(v)]
    if not len(v):
        return (math.nan, math.nan)
    alpha = (1.0 - confidence) / 2
    lo, hi = np.quantile(v, [alpha, 1.0 - alpha])
    return (float(lo), float(hi))


# --------------------------------------------------------------------------------------
# Clusterings against reference labels
# --------------------------------------------------------------------------------------


def contingency(pred: Sequence | np.ndarray,
                truth: Sequence | np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sizes of the non-empty cells of the predicted-cluster x reference-label table.

    Args:
        pred: Predicted cluster per item.
        truth: Reference label per item (no missing values: an unlabelled item must be
            given its own label by the caller, never dropped).

    Returns:
        ``(cell, pred_size, truth_size)``: for every non-empty cell its item count, and the
        size of its predicted cluster and of its reference class.

    Raises:
        ValueError: Lengths differ or a reference label is missing.
    """
    p_codes, _ = pd.factorize(pd.Series(list(pred), dtype=object))
    t_codes, _ = pd.factorize(pd.Series(list(truth), dtype=object), use_na_sentinel=True)
    if len(p_codes) != len(t_codes):
        raise ValueError(f"pred ({len(p_codes)}) and truth ({len(t_codes)}) differ in length")
    if (t_codes < 0).any() or (p_codes < 0).any():
        raise ValueError("a label is missing; give unlabelled items their own label")
    cells, cell_size = np.unique(
        p_codes.astype(np.int64) * (t_codes.max(initial=0) + 1) + t_codes, return_counts=True
    )
    width = t_codes.max(initial=0) + 1
    pred_size = np.bincount(p_codes)[cells // width]
    truth_size = np.bincount(t_codes)[cells % width]
    return cell_size.astype(np.int64), pred_size.astype(np.int64), truth_size.astype(np.int64)


def _pairs_of(sizes: np.ndarray) -> np.ndarray:
    return sizes * (sizes - 1) // 2


def pairwise_scores(pred: Sequence | np.ndarray, truth: Sequence | np.ndarray) -> dict:
    """Pairwise precision and recall of a clustering: its merged pairs against labelled pairs.

    A pair is *merged* when both items are in one predicted cluster and *true* when they
    share a reference label. Counted from the contingency table, not pair by pair.

    Returns:
        ``{"merged_pairs", "true_pairs", "tp", "precision", "recall", "f1"}``; precision
        is NaN when nothing is merged, recall NaN when no pair is true.

    Examples:
        >>> pairwise_scores([1, 1, 2, 2, 2], ["a", "a", "a", "b", "b"])
        {'merged_pairs': 4, 'true_pairs': 4, 'tp': 2, 'precision': 0.5, 'recall': 0.5, 'f1': 0.5}
    """
    cell, pred_size, truth_size = contingency(pred, truth)
    p_codes, _ = pd.factorize(pd.Series(list(pred), dtype=object))
    t_codes, _ = pd.factorize(pd.Series(list(truth), dtype=object))
    merged = int(_pairs_of(np.bincount(p_codes)).sum())
    true = int(_pairs_of(np.bincount(t_codes)).sum())
    tp = int(_pairs_of(cell).sum())
    return {
        "merged_pairs": merged,
        "true_pairs": true,
        "tp": tp,
        "precision": tp / merged if merged else math.nan,
        "recall": tp / true if true else math.nan,
        "f1": 2 * tp / (merged + true) if merged + true else math.nan,
    }


def bcubed(pred: Sequence | np.ndarray, truth: Sequence | np.ndarray) -> dict:
    """B-cubed precision and recall (Bagga and Baldwin 1998), averaged over items.

    An item's precision is the share of its predicted cluster that has its label; its recall
    the share of its label's items that are in its cluster. From the contingency table:
    ``P = sum(n_ij^2 / a_i) / N`` and ``R = sum(n_ij^2 / b_j) / N``.

    Returns:
        ``{"precision", "recall", "f1"}`` in ``[0, 1]``; NaN for no items.

    Examples:
        >>> {k: round(v, 4) for k, v in bcubed([1, 1, 2, 2, 2], list("aaabb")).items()}
        {'precision': 0.7333, 'recall': 0.7333, 'f1': 0.7333}
    """
    cell, pred_size, truth_size = contingency(pred, truth)
    n = int(cell.sum())
    if not n:
        return {"precision": math.nan, "recall": math.nan, "f1": math.nan}
    sq = cell.astype(np.float64) ** 2
    p = float((sq / pred_size).sum() / n)
    r = float((sq / truth_size).sum() / n)
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}

"""Tests for newsdedup.evaluate.metrics: hand-computed cases and brute-force references."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.evaluate.metrics import (
    DISTRIBUTION_STATS,
    METRIC_COLUMNS,
    average_precision_rows,
    bcubed,
    best_threshold,
    bootstrap_indices,
    curve,
    metric_grid,
    pairwise_scores,
    percentile_interval,
    prf_rows,
    roc_auc_rows,
    score_distribution,
    separation_auc,
    threshold_metrics,
)

SCORES = np.array([0.9, 0.6, 0.4, 0.7, 0.2])
POSITIVE = np.array([True, True, True, False, False])


def test_threshold_metrics_by_hand() -> None:
    m = threshold_metrics(SCORES, POSITIVE, [0.0, 0.4, 0.5, 0.7, 0.95])
    assert list(m.columns) == list(METRIC_COLUMNS)
    assert m[["tp", "fp", "fn"]].dtypes.eq("int64").all()
    # 0.4 and 0.7 equal a score: score >= threshold flags it.
    assert m[["tp", "fp", "fn"]].values.tolist() == [
        [3, 2, 0],
        [3, 1, 0],
        [2, 1, 1],
        [1, 1, 2],
        [0, 0, 3],
    ]
    expected_p = [3 / 5, 3 / 4, 2 / 3, 1 / 2, math.nan]
    expected_r = [1.0, 1.0, 2 / 3, 1 / 3, 0.0]
    expected_f1 = [6 / 8, 6 / 7, 4 / 6, 2 / 5, 0.0]
    np.testing.assert_allclose(m["precision"], expected_p)  # NaN == NaN here
    np.testing.assert_allclose(m["recall"], expected_r)
    np.testing.assert_allclose(m["f1"], expected_f1)


def test_threshold_metrics_degenerate_classes() -> None:
    only_neg = threshold_metrics(np.array([0.2, 0.8]), np.array([False, False]), [0.5, 0.9])
    assert only_neg["tp"].tolist() == [0, 0] and only_neg["fp"].tolist() == [1, 0]
    assert np.isnan(only_neg["recall"]).all()
    assert only_neg["f1"].tolist()[0] == 0.0 and np.isnan(only_neg["f1"].iloc[1])
    with pytest.raises(ValueError, match="same shape"):
        threshold_metrics(np.array([0.1, 0.2]), np.array([True]), [0.5])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 1.0]), st.booleans()), max_size=30
    ),
    st.lists(st.floats(0.0, 1.0), min_size=1, max_size=6),
)
def test_threshold_metrics_matches_masks(pairs: list, thresholds: list) -> None:
    scores = np.array([s for s, _ in pairs], dtype=np.float64)
    positive = np.array([p for _, p in pairs], dtype=bool)
    m = threshold_metrics(scores, positive, thresholds)
    for row, t in zip(m.itertuples(), thresholds, strict=True):
        flagged = scores >= t
        assert row.tp == int((flagged & positive).sum())
        assert row.fp == int((flagged & ~positive).sum())
        assert row.fn == int((~flagged & positive).sum())


def test_best_threshold_prefers_higher_on_ties_and_skips_nan() -> None:
    m = threshold_metrics(SCORES, POSITIVE, [0.0, 0.4, 0.5, 0.95])
    best = best_threshold(m)
    assert best["threshold"] == 0.4 and best["tp"] == 3 and isinstance(best["tp"], int)
    tie = pd.DataFrame({"threshold": [0.1, 0.3, 0.2, 0.9], "f1": [0.5, 0.8, 0.8, math.nan]})
    assert best_threshold(tie) == {"threshold": 0.3, "f1": 0.8}
    with pytest.raises(ValueError, match="no threshold"):
        best_threshold(pd.DataFrame({"threshold": [0.5], "f1": [math.nan]}))


def test_metric_grid() -> None:
    grid = metric_grid()
    assert len(grid) == 19 and grid[0] == 0.05 and grid[-1] == 0.95
    assert 0.3 in grid.tolist() and 0.7 in grid.tolist()


def test_score_distribution_and_auc() -> None:
    scores = np.arange(20) / 20
    classes = np.where(np.arange(20) < 10, "different", "same")
    d = score_distribution(scores, classes)
    assert list(d.columns) == ["label", *DISTRIBUTION_STATS]
    assert d["label"].tolist() == ["different", "same"]
    assert d["count"].tolist() == [10, 10]
    assert d["p50"].tolist() == [0.25, 0.75]  # sorted[floor(10 * 0.5)]
    assert d["max"].tolist() == [0.45, 0.95]
    assert separation_auc(scores, classes == "same") == 1.0
    rng = np.random.default_rng(1)
    s = rng.choice([0.0, 0.2, 0.5, 1.0], size=50)
    pos = rng.random(50) < 0.4
    diff = s[pos][:, None] - s[~pos][None, :]
    brute = ((diff > 0).sum() + 0.5 * (diff == 0).sum()) / diff.size
    assert separation_auc(s, pos) == pytest.approx(brute, abs=1e-12)


# ---------------------------------------------------------------------------------------
# batched AUC / AP / P-R-F1, bootstrap
# ---------------------------------------------------------------------------------------

LABELLED = st.lists(
    st.tuples(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 1.0]), st.booleans()),
    min_size=1,
    max_size=25,
)


def brute_average_precision(scores: np.ndarray, positive: np.ndarray) -> float:
    """AP by its definition: every distinct score is a threshold, from the top down."""
    n_pos = int(positive.sum())
    if not n_pos:
        return math.nan
    total, prev_recall = 0.0, 0.0
    for t in sorted(set(scores.tolist()), reverse=True):
        flagged = scores >= t
        tp = int((flagged & positive).sum())
        recall = tp / n_pos
        total += (recall - prev_recall) * tp / int(flagged.sum())
        prev_recall = recall
    return total


@settings(max_examples=100, deadline=None)
@given(LABELLED)
def test_auc_and_ap_rows_match_brute_force(pairs: list) -> None:
    s = np.array([x for x, _ in pairs])
    pos = np.array([p for _, p in pairs])
    auc = roc_auc_rows(s[None, :], pos[None, :])[0]
    if pos.all() or not pos.any():
        assert math.isnan(auc)
    else:
        diff = s[pos][:, None] - s[~pos][None, :]
        brute = ((diff > 0).sum() + 0.5 * (diff == 0).sum()) / diff.size
        assert auc == pytest.approx(brute, abs=1e-12)
        assert auc == pytest.approx(separation_auc(s, pos), abs=1e-12)
    ap = float(average_precision_rows(s, pos))
    want = brute_average_precision(s, pos)
    assert (math.isnan(ap) and math.isnan(want)) or ap == pytest.approx(want, abs=1e-12)


def test_average_precision_by_hand() -> None:
    # ranked: + - + - +  -> precisions at the positives 1, 2/3, 3/5
    s = np.array([0.9, 0.8, 0.7, 0.6, 0.5])
    pos = np.array([True, False, True, False, True])
    assert float(average_precision_rows(s, pos)) == pytest.approx((1 + 2 / 3 + 3 / 5) / 3)
    # a tie of one positive and one negative at the top flags both at once: precision 1/2
    tie = average_precision_rows(np.array([[0.9, 0.9, 0.1]]), np.array([[True, False, True]]))
    assert tie.tolist() == [pytest.approx((0.5 + 2 / 3) / 2)]


@settings(max_examples=60, deadline=None)
@given(LABELLED, st.floats(0.0, 1.0))
def test_prf_rows_matches_threshold_metrics(pairs: list, t: float) -> None:
    s = np.array([x for x, _ in pairs])
    pos = np.array([p for _, p in pairs])
    row = threshold_metrics(s, pos, [t]).iloc[0]
    got = prf_rows(s, pos, t)
    for key in ("precision", "recall", "f1"):
        np.testing.assert_equal(float(got[key]), row[key])


def test_bootstrap_is_seeded_and_agrees_with_scipy() -> None:
    from scipy.stats import bootstrap

    rng = np.random.default_rng(3)
    x = rng.normal(size=200)
    idx = bootstrap_indices(len(x), 2000, seed=5)
    assert (idx == bootstrap_indices(len(x), 2000, seed=5)).all()
    assert not (idx == bootstrap_indices(len(x), 2000, seed=6)).all()
    lo, hi = percentile_interval(x[idx].mean(axis=1))
    ref = bootstrap((x,), np.mean, n_resamples=2000, method="percentile",
                    random_state=np.random.default_rng(9)).confidence_interval
    # two independent Monte Carlo runs of the same interval: equal up to resampling noise
    assert lo == pytest.approx(ref.low, abs=0.03) and hi == pytest.approx(ref.high, abs=0.03)
    assert lo < x.mean() < hi
    assert math.isnan(percentile_interval(np.array([math.nan]))[0])


# ---------------------------------------------------------------------------------------
# clusterings: pairwise and B-cubed
# ---------------------------------------------------------------------------------------


def test_bcubed_worked_example() -> None:
    # clusters {0,1} = a,a and {2,3,4} = a,b,b; class a = {0,1,2}, b = {3,4}
    # precision per item: 1, 1, 1/3, 2/3, 2/3; recall: 2/3, 2/3, 1/3, 1, 1
    out = bcubed([1, 1, 2, 2, 2], ["a", "a", "a", "b", "b"])
    assert out["precision"] == pytest.approx((1 + 1 + 1 / 3 + 2 / 3 + 2 / 3) / 5)
    assert out["recall"] == pytest.approx((2 / 3 + 2 / 3 + 1 / 3 + 1 + 1) / 5)
    # all singletons: perfect precision, recall = mean of 1 / class size
    single = bcubed(range(5), ["a", "a", "a", "b", "b"])
    assert single["precision"] == 1.0
    assert single["recall"] == pytest.approx((3 * (1 / 3) + 2 * (1 / 2)) / 5)


CLUSTERING = st.lists(st.tuples(st.integers(0, 4), st.sampled_from("abc")), min_size=1,
                      max_size=20)


@settings(max_examples=100, deadline=None)
@given(CLUSTERING)
def test_pairwise_and_bcubed_match_loops(rows: list) -> None:
    import itertools

    pred = [p for p, _ in rows]
    truth = [t for _, t in rows]
    merged = true = tp = 0
    for a, b in itertools.combinations(range(len(rows)), 2):
        m, t = pred[a] == pred[b], truth[a] == truth[b]
        merged += m
        true += t
        tp += m and t
    got = pairwise_scores(pred, truth)
    assert (got["merged_pairs"], got["true_pairs"], got["tp"]) == (merged, true, tp)
    n = len(rows)
    p = sum(sum(pred[k] == pred[i] and truth[k] == truth[i] for k in range(n))
            / sum(pred[k] == pred[i] for k in range(n)) for i in range(n)) / n
    r = sum(sum(pred[k] == pred[i] and truth[k] == truth[i] for k in range(n))
            / sum(truth[k] == truth[i] for k in range(n)) for i in range(n)) / n
    b3 = bcubed(pred, truth)
    assert b3["precision"] == pytest.approx(p) and b3["recall"] == pytest.approx(r)


def test_contingency_rejects_missing_labels() -> None:
    with pytest.raises(ValueError, match="missing"):
        bcubed([1, 2], ["a", None])
    with pytest.raises(ValueError, match="length"):
        pairwise_scores([1, 2, 3], ["a", "b"])


@settings(max_examples=60, deadline=None)
@given(LABELLED)
def test_curve_points_match_threshold_metrics(pairs: list) -> None:
    s = np.array([x for x, _ in pairs])
    pos = np.array([p for _, p in pairs])
    c = curve(s, pos)
    assert c["threshold"].tolist() == sorted(set(s.tolist()), reverse=True)
    m = threshold_metrics(s, pos, c["threshold"].to_numpy())
    assert c["tp"].tolist() == m["tp"].tolist() and c["fp"].tolist() == m["fp"].tolist()
    np.testing.assert_equal(c["precision"].to_numpy(), m["precision"].to_numpy())
    # the last point flags everything
    assert c["tp"].iloc[-1] == pos.sum() and c["fp"].iloc[-1] == (~pos).sum()

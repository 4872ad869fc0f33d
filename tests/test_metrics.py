"""Tests for newsdedup.metrics: hand-computed cases and brute-force references."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.metrics import (
    DISTRIBUTION_STATS,
    METRIC_COLUMNS,
    best_threshold,
    metric_grid,
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

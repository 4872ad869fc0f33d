"""Tests for newsdedup.stories: synthetic stories first, then the UCI aggregator sample."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

from newsdedup.config import UCI_COLUMNS, shared_corpus_file
from newsdedup.corpus import CorpusWarning, LoadResult, load_corpus
from newsdedup.stories import evaluate_stories, grid_above, labelled_bound, same_label_pairs


def test_grid_above() -> None:
    assert [grid_above(x) for x in (0.0, 0.1146, 0.3, 0.999, 1.0)] == [0.01, 0.12, 0.31, 1.0, 1.01]


def test_same_label_pairs() -> None:
    labels = pd.Series(["s1", "s2", "s1", None, math.nan, 7], index=[10, 11, 12, 13, 14, 15])
    i = np.array([0, 0, 1, 3, 3, 5, 2])
    j = np.array([2, 1, 2, 4, 3, 5, 0])
    # read by position; missing labels match nothing, not even themselves
    assert same_label_pairs(labels, i, j).tolist() == [True, False, False, False, False, True, True]


def test_same_label_pairs_matches_a_loop() -> None:
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 5, size=40).tolist()
    i, j = np.triu_indices(40, k=1)
    want = [labels[a] == labels[b] for a, b in zip(i, j, strict=True)]
    assert same_label_pairs(labels, i, j).tolist() == want


def test_labelled_bound() -> None:
    scores = np.array([0.9, 0.1, 0.3, 0.5, 0.2])
    negative = np.array([False, True, True, True, True])
    assert labelled_bound(scores, negative) == {"count": 4, "max": 0.5, "q": 0.999, "quantile": 0.5}
    # lower order statistic: sorted [0.1, 0.2, 0.3, 0.5][floor(4 * 0.5)] = 0.3
    assert labelled_bound(scores, negative, q=0.5)["quantile"] == 0.3
    empty = labelled_bound(scores, np.zeros(5, dtype=bool))
    assert empty["count"] == 0 and math.isnan(empty["max"]) and math.isnan(empty["quantile"])


def test_evaluate_stories_synthetic() -> None:
    items = pd.DataFrame(
        {
            "title": [
                "Fed holds rates",
                "Fed holds rates steady",
                "Apple sues",
                "Apple sues",
                "Lone item",
            ],
            "summary": ["", "", "", "", ""],
            "STORY": ["a", "a", "b", "c", None],
        }
    )
    out = evaluate_stories(items, n=3, thresholds=[0.5, 0.99])
    summary = out["summary"].iloc[0]
    assert (summary["pairs"], summary["positives"], summary["negatives"]) == (10, 1, 9)
    assert summary["stories"] == 3
    assert out["distribution"]["label"].tolist() == ["same_story", "different_story"]
    assert out["distribution"]["count"].tolist() == [1, 9]
    # the two identical "Apple sues" headlines are filed under different stories
    bound = out["bound"].set_index("bound")
    assert bound.loc["max", "value"] == 1.0 and bound.loc["max", "threshold"] == 1.01
    assert bound.loc["max", "tp"] == 0 and bound.loc["max", "recall"] == 0.0
    assert out["metrics"][["tp", "fp", "fn"]].values.tolist() == [[1, 1, 0], [0, 1, 1]]


def load_uci() -> LoadResult:
    path = shared_corpus_file("uci-news-aggregator-head", "uci-news-aggregator.head.csv")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = load_corpus(path, columns=UCI_COLUMNS)
    assert [w.category for w in caught] == [CorpusWarning]
    return res


def test_uci_story_pairs() -> None:
    res = load_uci()
    [rej] = res.rejected  # the truncated last row is reported, not scored
    assert rej.id == "6367"
    items = res.items
    assert len(items) == 6366 and "STORY" in items.columns

    out = evaluate_stories(items)
    summary = out["summary"].iloc[0]
    sizes = items["STORY"].value_counts()
    assert summary["stories"] == len(sizes) == 87
    assert summary["positives"] == int((sizes * (sizes - 1) // 2).sum())
    assert summary["pairs"] == 6366 * 6365 // 2
    assert summary["positives"] + summary["negatives"] == summary["pairs"]
    assert out["distribution"]["count"].tolist() == [summary["positives"], summary["negatives"]]

    metrics = out["metrics"]
    assert (metrics["tp"] + metrics["fn"] == summary["positives"]).all()
    assert (np.diff(metrics["tp"]) <= 0).all() and (np.diff(metrics["fp"]) <= 0).all()
    at = metrics.set_index("threshold")
    # same-story pairs are mostly rewrites: high thresholds are precise but recall little
    for t in (0.3, 0.5, 0.7):
        assert at.loc[t, "precision"] > 0.85 and at.loc[t, "recall"] < 0.05

    bound = out["bound"].set_index("bound")
    assert (bound["negatives"] == summary["negatives"]).all()
    assert bound.loc["max", "value"] >= bound.loc["q0.999", "value"]
    assert bound.loc["q0.999", "threshold"] == grid_above(bound.loc["q0.999", "value"])
    dist = out["distribution"].set_index("label")
    assert dist.loc["same_story", "mean"] > dist.loc["different_story", "mean"]


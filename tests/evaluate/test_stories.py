"""Tests for newsdedup.evaluate.stories: synthetic stories first, then the UCI aggregator sample."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.corpus.load import CorpusWarning, LoadResult, load_corpus
from newsdedup.evaluate.stories import (
    cluster_study,
    evaluate_stories,
    exact_keys,
    grid_above,
    label_noise,
    labelled_bound,
    same_label_pairs,
    sample_stories,
)
from newsdedup.paths import UCI_COLUMNS, shared_corpus_file


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



# ---------------------------------------------------------------------------------------
# clustering study: the dedupe module against story ids
# ---------------------------------------------------------------------------------------

TINY = pd.DataFrame({
    "id": ["1", "2", "3", "4", "5"],
    "title": ["Fed holds rates steady", "Fed holds rates steady!",
              "Fed holds rates steady today", "Apple sues Samsung", "Apple sues Samsung"],
    "STORY": ["a", "a", "a", "b", "c"],
})


def test_cluster_study_worked_example() -> None:
    out = cluster_study(TINY, thresholds=[0.5], scorers=["jaccard"], gates=[False],
                        examples_at=0.5)
    run = out["runs"].iloc[0]
    # groups {1,2,3} (story a) and {4,5} (stories b, c; identical titles: exact pass)
    assert run["items_left"] == 2
    assert (run["merged_pairs"], run["true_merges"], run["noise_merges"]) == (4, 3, 1)
    assert run["pair_precision"] == 0.75 and run["pair_recall"] == 1.0
    assert run["pair_precision_without_noise"] == 1.0
    # B-cubed: items 1-3 precision 1; items 4, 5 precision 1/2; recall 1 everywhere
    assert run["bcubed_precision"] == pytest.approx((3 + 0.5 + 0.5) / 5)
    assert run["bcubed_recall"] == 1.0
    fm = out["false_merges"]
    assert fm[["id", "rep_id", "stage", "story", "rep_story"]].values.tolist() == [
        ["5", "4", "exact", "c", "b"]]
    assert len(out["missed"]) == 0  # every same-story pair was merged
    summary = out["summary"].iloc[0]
    assert (summary["same_story_pairs"], summary["noise_pairs"]) == (3, 1)


def test_cluster_study_lists_missed_pairs_most_similar_first() -> None:
    out = cluster_study(TINY, thresholds=[0.99], scorers=["jaccard"], gates=[True],
                        examples_at=0.99)
    missed = out["missed"]
    # at 0.99 only the exact twins (1, 2) stay together; (1|2, 3) are missed
    assert sorted(zip(missed["id_i"], missed["id_j"], strict=True)) == [("1", "3"), ("2", "3")]
    assert (missed["score"].diff().dropna() <= 0).all() and (missed["score"] < 0.99).all()


def test_cluster_study_needs_a_story_for_every_item() -> None:
    bad = TINY.assign(STORY=["a", None, "a", "b", "c"])
    with pytest.raises(ValueError, match="position 1 has no 'STORY'"):
        cluster_study(bad, thresholds=[0.5], scorers=["jaccard"], examples_at=0.5)
    with pytest.raises(ValueError, match="not one of the thresholds"):
        cluster_study(TINY, thresholds=[0.5], scorers=["jaccard"])


def test_sample_stories_keeps_whole_stories_in_order() -> None:
    items = pd.DataFrame({"STORY": list("abcabcdd"), "title": list("uvwxyzpq")})
    s = sample_stories(items, 2, seed=3)
    assert s.equals(sample_stories(items, 2, seed=3))
    assert s["STORY"].nunique() == 2
    for story in s["STORY"].unique():
        assert (items["STORY"] == story).sum() == (s["STORY"] == story).sum()
    assert s.index.is_monotonic_increasing
    assert sample_stories(items, 10).equals(items)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["Fed holds", "fed holds!", "Apple", "", "Rain",
                                           "Forex - Pound", "Forex - Yen"]),
                          st.sampled_from("abc")), min_size=1, max_size=12))
def test_label_noise_matches_a_loop(rows: list) -> None:
    import itertools

    items = pd.DataFrame({"id": [str(k) for k in range(len(rows))],
                          "title": [t for t, _ in rows], "STORY": [s for _, s in rows]})
    got = label_noise(items)
    keys = exact_keys(items, strip=False)
    want: dict[str, int] = {}
    for a, b in itertools.combinations(range(len(rows)), 2):
        if keys[a] and keys[a] == keys[b] and rows[a][1] != rows[b][1]:
            want[keys[a]] = want.get(keys[a], 0) + 1
    assert dict(zip(got["key"], got["cross_pairs"], strict=True)) == want


def test_uci_sample_study_is_consistent_with_the_pair_study() -> None:
    items = load_uci().items
    sample = sample_stories(items, 6, seed=0)
    out = cluster_study(sample, thresholds=[0.3, 0.6], scorers=["jaccard"], gates=[False, True])
    runs = out["runs"]
    # the same-story pair count is the positives count of the all-pairs study
    positives = evaluate_stories(sample, n=3)["summary"]["positives"].iloc[0]
    assert out["summary"]["same_story_pairs"].iloc[0] == positives
    assert (runs["true_merges"] <= runs["merged_pairs"]).all()
    assert (runs["items_left"] <= len(sample)).all()
    # the gate only removes merges at a given threshold
    by = runs.set_index(["gate", "threshold"])
    for t in (0.3, 0.6):
        assert by.loc[(True, t), "items_left"] >= by.loc[(False, t), "items_left"]


def test_uci_label_noise_pairs_are_identical_headlines_under_different_stories() -> None:
    items = load_uci().items
    noise = label_noise(items)
    assert len(noise) > 0 and (noise["cross_pairs"] > 0).all()
    keys = pd.Series(exact_keys(items, strip=False), index=items.index)
    for row in noise.head(5).itertuples():
        members = items[keys == row.key]
        assert members["STORY"].nunique() >= 2 and len(members) == row.items


def test_label_noise_ignores_outlet_suffixes() -> None:
    # " - " may separate a rubric, not an outlet: these differ after normalization
    items = pd.DataFrame({"id": ["1", "2"], "STORY": ["a", "b"],
                          "title": ["Forex - Pound drops", "Forex - Yen rises"]})
    assert len(label_noise(items)) == 0
    # The dedupe's exact pass keeps them apart too: a suffix longer than the
    # headline before it is not taken for an outlet name.
    assert exact_keys(items) == ["forexpounddrops", "forexyenrises"]

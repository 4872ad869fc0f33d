"""Tests for newsdedup.evaluate: hand-computed tables first, then the real labelled corpora."""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.config import UCI_COLUMNS, shared_corpus_file
from newsdedup.corpus import CorpusWarning, LoadResult, load_corpus
from newsdedup.evaluate import (
    CUTOFFS,
    DISTRIBUTION_STATS,
    METRIC_COLUMNS,
    best_threshold,
    evaluate_stories,
    evaluate_sts,
    grid_above,
    labelled_bound,
    metric_grid,
    same_label_pairs,
    score_distribution,
    sentence_pair_jaccard,
    separation_auc,
    threshold_metrics,
)
from newsdedup.normalize import SCHEMES, get_scheme
from newsdedup.pairs import load_korsts, load_stsb
from newsdedup.shingle import shingles

# ---------------------------------------------------------------------------------------
# threshold_metrics / best_threshold
# ---------------------------------------------------------------------------------------

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


def test_grid_and_grid_above() -> None:
    grid = metric_grid()
    assert len(grid) == 19 and grid[0] == 0.05 and grid[-1] == 0.95
    assert 0.3 in grid.tolist() and 0.7 in grid.tolist()
    assert [grid_above(x) for x in (0.0, 0.1146, 0.3, 0.999, 1.0)] == [0.01, 0.12, 0.31, 1.0, 1.01]


# ---------------------------------------------------------------------------------------
# sentence_pair_jaccard
# ---------------------------------------------------------------------------------------


def set_jaccard(a: set, b: set) -> float:
    union = len(a | b)
    return len(a & b) / union if union else 0.0


TEXT = st.text(alphabet=st.sampled_from(list("abcAB 12.-가나다라")), max_size=12)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(TEXT, TEXT), max_size=8),
    st.integers(1, 4),
    st.sampled_from(sorted(SCHEMES)),
)
def test_sentence_pair_jaccard_equals_set_jaccard(pairs: list, n: int, scheme: str) -> None:
    s1 = [a for a, _ in pairs]
    s2 = [b for _, b in pairs]
    got = sentence_pair_jaccard(s1, s2, n, scheme)
    norm = get_scheme(scheme)
    want = [set_jaccard(shingles(norm(a), n), shingles(norm(b), n)) for a, b in pairs]
    assert got.dtype == np.float64 and got.shape == (len(pairs),)
    assert got.tolist() == want  # exact: both are the same integer ratio


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT), min_size=1, max_size=6), st.integers(1, 3))
def test_weighted_sentence_pair_jaccard_uses_idf_over_all_sentences(pairs: list, n: int) -> None:
    norm = get_scheme("hangul-alnum")
    sets = [shingles(norm(a), n) for a, _ in pairs] + [shingles(norm(b), n) for _, b in pairs]
    total = len(sets)

    def weight(g: str) -> float:
        df = sum(g in s for s in sets)
        return math.log1p(total / (1 + df))

    want = []
    for a, b in zip(sets[: len(pairs)], sets[len(pairs) :], strict=True):
        union = sum(weight(g) for g in a | b)
        want.append(sum(weight(g) for g in a & b) / union if union else 0.0)
    got = sentence_pair_jaccard([a for a, _ in pairs], [b for _, b in pairs], n, weighted=True)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_sentence_pair_jaccard_edges() -> None:
    # identical after normalization, too short for n, and one side empty
    got = sentence_pair_jaccard(["같은 제목!", "ab", ""], ["같은제목", "ab", "abc"], 3)
    assert got.tolist() == [1.0, 0.0, 0.0]
    assert sentence_pair_jaccard([], [], 2).shape == (0,)
    with pytest.raises(ValueError, match="same length"):
        sentence_pair_jaccard(["a"], ["a", "b"], 2)
    with pytest.raises(ValueError, match="unknown normalization scheme"):
        sentence_pair_jaccard(["a"], ["b"], 2, scheme="nope")


# ---------------------------------------------------------------------------------------
# same_label_pairs, labelled_bound, distributions, AUC
# ---------------------------------------------------------------------------------------


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
# evaluate_sts / evaluate_stories on synthetic data
# ---------------------------------------------------------------------------------------


def synthetic_sts() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "filename": ["headlines"] * 5 + ["MSRpar"],
            "score": [5.0, 4.0, 0.0, 1.0, 2.5, 5.0],
            "sentence1": ["유가 급등", "금리 동결", "유가 급등", "야구 개막", "환율 하락", "x"],
            "sentence2": [
                "유가 급등세",
                "금리 동결 결정",
                "축구 결승",
                "금리 인상",
                "환율 급락",
                "x",
            ],
        }
    )


def test_evaluate_sts_tables() -> None:
    out = evaluate_sts(synthetic_sts(), ngrams=(2, 3), thresholds=[0.1, 0.5])
    assert set(out) == {"distribution", "metrics", "best", "cutoffs"}
    dist = out["distribution"]
    assert list(dist.columns) == ["n", "scheme", "label", *DISTRIBUTION_STATS]
    assert dist[["n", "label", "count"]].values.tolist() == [
        [2, "same", 2],
        [2, "different", 2],
        [3, "same", 2],
        [3, "different", 2],
    ]
    assert list(out["metrics"].columns) == ["n", "scheme", *METRIC_COLUMNS]
    assert len(out["metrics"]) == 4
    best = out["best"]
    # the MSRpar row is not read; the 2.5 pair is counted, not scored
    assert best[["n_same", "n_different", "n_between"]].values.tolist() == [[2, 2, 1]] * 2
    assert (best["mean_same"] > best["mean_different"]).all()
    assert best["f1"].tolist() == [1.0, 1.0]
    cut = out["cutoffs"]
    assert cut[["same_at", "different_at", "n"]].values.tolist() == [
        [4.0, 1.0, 2],
        [4.0, 1.0, 3],
        [3.0, 2.0, 2],
        [3.0, 2.0, 3],
    ]
    # at (3, 2) the 2.5 pair is still between; nothing else moves
    assert cut["n_between"].tolist() == [1, 1, 1, 1]


def test_evaluate_sts_main_cutoff_first_and_errors() -> None:
    df = synthetic_sts()
    out = evaluate_sts(df, ngrams=(2,), same_at=3.0, different_at=2.0)
    assert out["cutoffs"][["same_at", "different_at"]].values.tolist() == [[3.0, 2.0], [4.0, 1.0]]
    assert evaluate_sts(df, ngrams=(2,), filename=None)["best"]["n_same"].tolist() == [3]
    with pytest.raises(ValueError, match="no rows"):
        evaluate_sts(df, filename="deft-news")
    with pytest.raises(ValueError, match="leave a class empty"):
        evaluate_sts(df, same_at=5.5, different_at=1.0)


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


# ---------------------------------------------------------------------------------------
# real files (fail, not skip, when the shared files are missing)
# ---------------------------------------------------------------------------------------




@functools.cache
def sts_results(split: str) -> dict[str, dict[str, pd.DataFrame]]:
    ko = load_korsts(shared_corpus_file("korsts", f"sts-{split}.tsv"))
    en = load_stsb(shared_corpus_file("stsb-en", f"sts-{split}.csv"))
    return {"ko": evaluate_sts(ko), "en": evaluate_sts(en)}


# Label counts of the headlines part per (same_at, different_at): same, different, between.
LABEL_COUNTS = {
    "dev": {(4.0, 1.0): [50, 58, 142], (3.0, 2.0): [105, 106, 39]},
    "train": {(4.0, 1.0): [510, 423, 1066], (3.0, 2.0): [961, 773, 265]},
}


@pytest.mark.parametrize("split", ["dev", "train"])
def test_sts_headlines_same_scores_higher_in_both_languages(split: str) -> None:
    results = sts_results(split)
    for lang, out in results.items():
        best = out["best"].set_index("n")
        assert best.index.tolist() == [2, 3, 4], lang
        assert (best["mean_same"] > best["mean_different"]).all(), lang
        # clear cases are well separated by every n in both languages
        assert (best["auc"] > 0.8).all(), lang
        assert (best["f1"] > 0.75).all(), lang
        dist = out["distribution"].set_index(["n", "label"])["mean"]
        for n in (2, 3, 4):
            assert dist[(n, "same")] > dist[(n, "different")], (lang, n)


@pytest.mark.parametrize("split", ["dev", "train"])
def test_sts_korean_and_english_rows_align(split: str) -> None:
    ko, en = sts_results(split)["ko"], sts_results(split)["en"]
    keys = ["same_at", "different_at", "n", "n_same", "n_different", "n_between"]
    pd.testing.assert_frame_equal(ko["cutoffs"][keys], en["cutoffs"][keys])
    counts = ko["cutoffs"].drop_duplicates(["same_at", "different_at"])
    got = {
        (r.same_at, r.different_at): [r.n_same, r.n_different, r.n_between]
        for r in counts.itertuples()
    }
    assert got == LABEL_COUNTS[split]


def test_sts_cutoffs_table_has_both_pairs() -> None:
    cut = sts_results("dev")["ko"]["cutoffs"]
    pairs = set(zip(cut["same_at"], cut["different_at"], strict=True))
    assert pairs == set(CUTOFFS) == {(4.0, 1.0), (3.0, 2.0)}
    assert len(cut) == 2 * 3
    # the harder split separates worse: AUC drops for every n
    auc = cut.set_index(["same_at", "n"])["auc"]
    for n in (2, 3, 4):
        assert auc[(3.0, n)] < auc[(4.0, n)]
    metrics = sts_results("dev")["ko"]["metrics"]
    assert len(metrics) == 3 * len(metric_grid())




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

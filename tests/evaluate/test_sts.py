"""Tests for newsdedup.evaluate.sts: graded sentence pairs at fixed cut-offs."""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.corpus.sts import load_korsts, load_stsb
from newsdedup.evaluate.metrics import DISTRIBUTION_STATS, METRIC_COLUMNS, metric_grid
from newsdedup.evaluate.sts import CUTOFFS, evaluate_sts, sentence_pair_jaccard
from newsdedup.paths import shared_corpus_file
from newsdedup.text.normalize import SCHEMES, get_scheme
from newsdedup.text.shingle import shingles


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

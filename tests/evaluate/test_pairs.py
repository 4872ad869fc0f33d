"""Tests for newsdedup.evaluate.pairs: hand-computed tables first, then the real labelled pairs."""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.cluster.gate import gate_allows, lead_token
from newsdedup.corpus.sts import load_korsts, load_stsb
from newsdedup.evaluate.metrics import DISTRIBUTION_STATS, METRIC_COLUMNS, metric_grid
from newsdedup.evaluate.pairs import (
    CUTOFFS,
    Scorer,
    compare_languages,
    default_scorers,
    evaluate_sts,
    gate_pairs,
    headline_split,
    pair_study,
    recommend,
    reference_sentences,
    score_columns,
    score_pairs,
    sentence_pair_jaccard,
)
from newsdedup.paths import shared_corpus_file
from newsdedup.score.minhash import MinHashParams, estimate_pairs, signatures
from newsdedup.text.normalize import SCHEMES, get_scheme
from newsdedup.text.shingle import shingle_matrix, shingles


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


# ---------------------------------------------------------------------------------------
# the pair study: scorers, gate, selection on one split, bootstrap, Korean vs English
# ---------------------------------------------------------------------------------------


def test_scorer_names_and_validation() -> None:
    names = [s.name for s in default_scorers()]
    assert len(names) == len(set(names)) == 3 * 4 + 5
    assert {"jaccard-n2", "idf-batch-n5", "idf-ref-n3", "minhash-n3-k256"} <= set(names)
    for bad in (("cosine", 3, 0), ("jaccard", 0, 0), ("minhash", 3, 0), ("jaccard", 3, 8)):
        with pytest.raises(ValueError):
            Scorer(*bad)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT), min_size=1, max_size=8))
def test_gate_pairs_is_gate_allows_per_pair(pairs: list) -> None:
    got = gate_pairs([a for a, _ in pairs], [b for _, b in pairs]).tolist()
    assert got == [gate_allows(lead_token(a), lead_token(b)) for a, b in pairs]


PAIRS = pd.DataFrame({
    "sentence1": ["진천군, 스마트 돌봄 구축", "Fed holds rates steady", "유가 급등", "abc", "x"],
    "sentence2": ["진천군 스마트돌봄 구축 착수", "US Fed holds rates", "유가 급락", "abd", "y"],
})
REFERENCE = ["스마트 돌봄 사업", "Fed rates", "유가 하락", "돌봄 확대"]


def test_score_pairs_against_independent_computations() -> None:
    scorers = [Scorer("jaccard", 2), Scorer("idf-batch", 3), Scorer("idf-ref", 2),
               Scorer("minhash", 2, 8), Scorer("minhash", 2, 32)]
    out = score_pairs(PAIRS, scorers, reference=REFERENCE)
    s1, s2 = PAIRS["sentence1"].tolist(), PAIRS["sentence2"].tolist()
    assert out["jaccard-n2"].tolist() == sentence_pair_jaccard(s1, s2, 2).tolist()
    np.testing.assert_allclose(out["idf-batch-n3"], sentence_pair_jaccard(s1, s2, 3,
                                                                          weighted=True))
    # reference IDF by hand: documents of the reference corpus containing each 2-gram
    norm = get_scheme("hangul-alnum")
    ref_sets = [shingles(norm(t), 2) for t in REFERENCE]

    def w(g: str) -> float:
        return math.log1p(len(ref_sets) / (1 + sum(g in s for s in ref_sets)))

    for k, (a, b) in enumerate(zip(s1, s2, strict=True)):
        sa, sb = shingles(norm(a), 2), shingles(norm(b), 2)
        union = sum(map(w, sa | sb))
        want = sum(map(w, sa & sb)) / union if union else 0.0
        assert out["idf-ref-n2"][k] == pytest.approx(want)
    # MinHash at k = 8 uses the first 8 permutations: equal to a signature drawn with k = 8
    texts = [norm(t) for t in s1 + s2]
    sm = shingle_matrix(texts, 2)
    sigs = signatures(sm, MinHashParams(num_perm=8, seed=42))
    first = np.arange(len(s1))
    want8 = estimate_pairs(sigs, sm.sizes == 0, first, first + len(s1))
    assert out["minhash-n2-k8"].tolist() == want8.tolist()
    # the gate: the 'Fed' / 'US', 'abc' / 'abd' and 'x' / 'y' pairs start differently
    assert out["gate"].tolist() == [True, False, True, False, False]
    for col in score_columns(out):
        if col.endswith("+gate"):
            base = out[col.removesuffix("+gate")]
            assert (out[col] == np.where(out["gate"], base, 0.0)).all()
    with pytest.raises(ValueError, match="reference"):
        score_pairs(PAIRS, [Scorer("idf-ref", 2)])


def _graded(scores: list[float], grades: list[float]) -> tuple[pd.DataFrame, pd.DataFrame]:
    pairs = pd.DataFrame({"score": grades})
    scored = pd.DataFrame({"gate": [True] * len(scores), "jaccard-n2": scores})
    return pairs, scored


def test_pair_study_selects_on_one_split_and_measures_on_the_other() -> None:
    # select: same pairs score 0.6/0.7, different 0.1/0.35 -> best F1 = 1 at 0.4..0.6,
    # ties go to the highest, 0.6
    sel, sel_scored = _graded([0.6, 0.7, 0.1, 0.35], [5.0, 4.0, 0.0, 1.0])
    # test: ranked 0.9 (+) 0.8 (-) 0.5 (+) 0.3 (-) 0.2 (+), plus one unlabelled pair
    test, test_scored = _graded([0.9, 0.8, 0.5, 0.3, 0.2, 0.99], [4.5, 0.5, 4.0, 1.0, 5.0, 2.5])
    out = pair_study(sel, test, sel_scored, test_scored, cutoffs=[(4.0, 1.0)],
                     thresholds=[0.2, 0.4, 0.6, 0.8], n_resamples=200, seed=1)
    row = out["summary"].iloc[0]
    assert (row["scorer"], row["kind"], row["n"], row["k"], row["gate"]) == (
        "jaccard-n2", "jaccard", 2, 0, False)
    assert row["threshold"] == 0.6 and row["select_f1"] == 1.0
    assert (row["n_same"], row["n_different"]) == (3, 2)
    # on test at 0.6: flagged 0.9 (+), 0.8 (-): P = 1/2, R = 1/3
    assert row["precision"] == 0.5 and row["recall"] == pytest.approx(1 / 3)
    # AUC: positives 0.9, 0.5, 0.2 against negatives 0.8, 0.3 -> (2 + 1 + 0) / 6
    assert row["auc"] == pytest.approx(3 / 6)
    # AP: precisions at the positives 1/1, 2/3, 3/5
    assert row["ap"] == pytest.approx((1 + 2 / 3 + 3 / 5) / 3)
    for stat in ("auc", "ap", "precision", "recall", "f1"):
        assert row[f"{stat}_lo"] <= row[f"{stat}_hi"]
    again = pair_study(sel, test, sel_scored, test_scored, cutoffs=[(4.0, 1.0)],
                       thresholds=[0.2, 0.4, 0.6, 0.8], n_resamples=200, seed=1)
    pd.testing.assert_frame_equal(out["summary"], again["summary"])
    # the per-threshold table on test: at 0.2 every labelled pair is flagged
    first = out["thresholds"].iloc[0]
    assert (first["tp"], first["fp"], first["fpr"]) == (3, 2, 1.0)
    with pytest.raises(ValueError, match="class empty"):
        pair_study(sel, test, sel_scored, test_scored, cutoffs=[(5.5, 1.0)])


def test_compare_languages_is_paired() -> None:
    test, a = _graded([0.9, 0.8, 0.5, 0.3, 0.2], [4.5, 0.5, 4.0, 1.0, 5.0])
    _, b = _graded([0.9, 0.1, 0.5, 0.3, 0.2], [4.5, 0.5, 4.0, 1.0, 5.0])
    same = compare_languages(test, a, a, cutoffs=[(4.0, 1.0)], n_resamples=100)
    assert same[["auc_diff", "auc_diff_lo", "auc_diff_hi", "ap_diff"]].abs().max().max() == 0.0
    ab = compare_languages(test, a, b, cutoffs=[(4.0, 1.0)], n_resamples=100)
    ba = compare_languages(test, b, a, cutoffs=[(4.0, 1.0)], n_resamples=100)
    assert ab["auc_diff"].iloc[0] == pytest.approx(-ba["auc_diff"].iloc[0])
    # b ranks the negative 0.8 down to 0.1: AUC 3/6 -> 5/6
    assert ab["auc_en"].iloc[0] == pytest.approx(5 / 6) and ab["auc_ko"].iloc[0] == 0.5
    assert ab["auc_diff_lo"].iloc[0] == pytest.approx(-ba["auc_diff_hi"].iloc[0])


def test_recommend_takes_the_best_select_f1_of_a_cutoff() -> None:
    s = pd.DataFrame({"same_at": [4.0, 4.0, 3.5], "different_at": [1.0, 1.0, 3.5],
                      "scorer": ["a", "b", "c"], "select_f1": [0.9, 0.9, 0.99],
                      "select_ap": [0.8, 0.85, 0.9]})
    assert recommend(s, 4.0, 1.0)["scorer"] == "b"  # tie on F1, higher AP
    assert recommend(s, 3.5, 3.5)["scorer"] == "c"
    with pytest.raises(ValueError, match="no rows"):
        recommend(s, 3.0, 2.0)


def test_pair_study_on_the_real_headlines_counts_the_known_classes() -> None:
    ko_dev = headline_split(load_korsts(shared_corpus_file("korsts", "sts-dev.tsv")))
    ko_train = load_korsts(shared_corpus_file("korsts", "sts-train.tsv"))
    reference = reference_sentences([ko_train])
    # MSRpar (1,000) and deft-news (300) rows of the train split, two sentences each
    assert len(reference) == 2 * 1300
    scorers = [Scorer("jaccard", 3), Scorer("idf-ref", 3)]
    scored = score_pairs(ko_dev, scorers, reference=reference)
    out = pair_study(ko_dev, ko_dev, scored, scored, n_resamples=50)
    main = out["summary"][out["summary"]["same_at"] == 4.0]
    assert set(zip(main["n_same"], main["n_different"], strict=True)) == {
        tuple(LABEL_COUNTS["dev"][(4.0, 1.0)][:2])}
    split = out["summary"][out["summary"]["same_at"] == 3.5]
    assert (split["n_same"] + split["n_different"] == len(ko_dev)).all()

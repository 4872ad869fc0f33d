"""Rubrics and oversized buckets: the candidate path gives exactly the quadratic path's result."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.cluster import gate
from newsdedup.cluster.dedupe import DedupeConfig, dedupe, prepare
from newsdedup.cluster.gate import BucketLimits, bucketed_pairs, lead_token, strip_rubrics
from newsdedup.score.prefix import candidate_source, pair_scores, prefix_candidates, row_mass
from newsdedup.studies.synthetic import enlarge, headline_pool
from newsdedup.text.shingle import shingle_matrix

EVERY_BUCKET = BucketLimits(max_size=0, max_share=0.0, min_common=0)
NO_BUCKET = BucketLimits(max_size=10**12, max_share=1.0, min_common=10**12)


@pytest.mark.parametrize(("headline", "key"), [
    ("[속보] 진천군, 스마트돌봄 착수", "진천군"),
    ("【단독】[포토] 진천군 돌봄", "진천군"),
    ("<포토> 진천군 돌봄 - 연합뉴스", "진천군"),
    ("(서울=연합뉴스) 진천군 돌봄", "진천군"),
    ("（종합） 진천군 돌봄", "진천군"),
    ("[속보]", "속보"),  # nothing but a rubric: the rubric is the only text
    ("진천군 [속보] 돌봄", "진천군"),
])
def test_rubrics_are_not_subjects(headline, key):
    assert lead_token(headline) == key


def test_strip_rubrics_keeps_inner_brackets():
    assert strip_rubrics("[a] b [c]") == "b [c]"


def test_oversized_by_size_and_by_share():
    limits = BucketLimits(max_size=100, max_share=0.1, min_common=10)
    sizes = np.array([101, 100, 11, 10, 5])
    # 101 > max_size; 100 and 11 are > 10% of 105 items and > min_common; 10 is not > min_common.
    assert limits.oversized(sizes, 105).tolist() == [True, True, True, False, False]


texts_st = st.lists(
    st.lists(st.sampled_from(["가나", "다라", "마바", "사아", "자차", "ab", "cd", "다라마"]),
             min_size=1, max_size=6).map(" ".join),
    min_size=2, max_size=40)


def _weighted_jaccard_brute(x, w):
    dense = x.toarray().astype(bool)
    n = dense.shape[0]
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            inter = w[dense[i] & dense[j]].sum()
            union = w[dense[i] | dense[j]].sum()
            out[i, j] = inter / union if union > 0 else 0.0
    return out


@settings(max_examples=60, deadline=None)
@given(texts=texts_st, t=st.floats(0.05, 1.0),
       w=st.lists(st.floats(0.1, 5.0), min_size=64, max_size=64))
def test_prefix_candidates_lose_no_pair(texts, t, w):
    x = shingle_matrix(texts, 2).matrix
    weights = np.resize(np.asarray(w), x.shape[1])
    brute = _weighted_jaccard_brute(x, weights)
    want = {(i, j) for i in range(len(texts)) for j in range(i + 1, len(texts))
            if brute[i, j] >= t - 1e-12}
    got = set()
    for i, j in prefix_candidates(x, weights, t, np.arange(len(texts)), block=7):
        pairs = list(zip(i.tolist(), j.tolist(), strict=True))
        assert not got & set(pairs)  # each candidate once
        got |= set(pairs)
    assert want <= got


@settings(max_examples=60, deadline=None)
@given(texts=texts_st, t=st.floats(0.05, 1.0), scorer=st.sampled_from(["jaccard", "idf"]),
       chunk=st.integers(1, 8))
def test_candidate_path_equals_quadratic_path(texts, t, scorer, chunk):
    items = pd.DataFrame({"id": [f"i{k}" for k in range(len(texts))],
                          "title": ["연합뉴스 " + s for s in texts]})
    prep = prepare(items, DedupeConfig(scorer=scorer, exact_pass=False, n=2))
    quadratic = bucketed_pairs(prep.scorer.block, prep.buckets, t, chunk)
    cand = candidate_source(prep.shingles, prep.weights, t)
    fast = bucketed_pairs(prep.scorer.block, prep.buckets, t, chunk, candidates=cand,
                          limits=EVERY_BUCKET)
    for a, b in zip(quadratic, fast, strict=True):
        assert a.dtype == b.dtype
        assert np.array_equal(a, b)  # scores bit for bit


def test_pair_scores_bit_identical_to_block_scorer():
    texts = enlarge(headline_pool("ko"), 400, seed=3).text.tolist()
    items = pd.DataFrame({"id": [str(k) for k in range(400)], "title": texts})
    prep = prepare(items, DedupeConfig(scorer="idf", exact_pass=False))
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 400, 5000), rng.integers(0, 400, 5000)
    x = prep.shingles.tocsr()
    got = pair_scores(x, prep.weights, row_mass(x, prep.weights), a, b)
    dense = prep.scorer.block(np.arange(400), np.arange(400))
    assert np.array_equal(got, dense[a, b])


@pytest.mark.parametrize("scorer", ["idf", "jaccard"])
def test_20k_shared_lead_token_dedupes_as_the_quadratic_path(monkeypatch, scorer):
    n = 20_000
    texts = enlarge(headline_pool("ko"), n, seed=0).text
    items = pd.DataFrame({"id": [f"s{k}" for k in range(n)], "title": "연합뉴스 " + texts})
    config = DedupeConfig(scorer=scorer)
    prep = prepare(items, config)
    # The whole batch is one bucket, and the defaults call it oversized.
    assert np.unique(prep.buckets).size == 1
    assert gate.DEFAULT_LIMITS.oversized(np.array([prep.buckets.size]), prep.buckets.size)[0]
    fast = dedupe(items, config).items
    monkeypatch.setattr(gate, "DEFAULT_LIMITS", NO_BUCKET)
    quadratic = dedupe(items, config).items
    pd.testing.assert_frame_equal(fast, quadratic)
    assert fast.group.nunique() < n  # the rewrites were merged: the test is not vacuous

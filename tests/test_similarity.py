import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from newsdedup.shingle import shingle_matrix, shingles
from newsdedup.similarity import (
    PairScores,
    all_pairs_jaccard,
    idf_weights,
    jaccard_matrix,
    weighted_jaccard_matrix,
)


def _py_jaccard(a: set, b: set) -> float:
    union = a | b
    return len(a & b) / len(union) if union else 0.0


texts_st = st.lists(st.text(alphabet="abcd가나", max_size=10), min_size=2, max_size=9)


@given(texts_st, st.integers(1, 3), st.integers(1, 4))
def test_all_pairs_equal_set_based_jaccard(texts, n, block):
    sm = shingle_matrix(texts, n)
    got = all_pairs_jaccard(sm, block=block)
    sets = [shingles(t, n) for t in texts]
    pairs = list(itertools.combinations(range(len(texts)), 2))
    assert list(zip(got.i.tolist(), got.j.tolist(), strict=True)) == pairs
    want = [_py_jaccard(sets[i], sets[j]) for i, j in pairs]
    assert got.score.tolist() == want  # bit for bit, same division


def test_empty_sets_score_zero_even_against_each_other():
    m = jaccard_matrix(shingle_matrix(["a", "b", "abcd"], 3))
    assert m[0, 1] == 0.0 and m[0, 0] == 0.0 and m[2, 2] == 1.0


def test_top_breaks_ties_like_sorted_tuples_descending():
    ps = PairScores(np.array([0, 0, 1, 2]), np.array([1, 2, 2, 3]), np.array([.5, .7, .5, .1]))
    want = sorted(zip(ps.score, ps.i, ps.j, strict=True), reverse=True)
    got = [(ps.score[k], ps.i[k], ps.j[k]) for k in ps.top(4)]
    assert got == want


def test_count_at_or_above_is_inclusive():
    ps = PairScores(np.array([0, 0]), np.array([1, 2]), np.array([0.3, 0.2999]))
    assert ps.count_at_or_above([0.3]).tolist() == [1]


def test_idf_weights_follow_seed_formula():
    sm = shingle_matrix(["abc", "abd", "xyz"], 2)  # 'ab' in 2 of 3 items
    w = idf_weights(sm)
    assert np.isclose(w[sm.vocab.index("ab")], np.log(1 + 3 / 3))
    assert np.isclose(w[sm.vocab.index("xy")], np.log(1 + 3 / 2))


@given(texts_st, st.integers(1, 3))
def test_weighted_jaccard_with_unit_weights_is_jaccard(texts, n):
    sm = shingle_matrix(texts, n)
    ones = np.ones(len(sm.vocab))
    assert np.allclose(weighted_jaccard_matrix(sm, ones), jaccard_matrix(sm))


def test_idf_lowers_shared_boilerplate():
    texts = ["어드밴트온디바이스ai서비스실증확산사업참여", "엠젠솔루션온디바이스ai서비스실증확산사업참여",
             "온디바이스ai서비스실증확산사업", "진천군스마트돌봄"]
    sm = shingle_matrix(texts, 3)
    assert weighted_jaccard_matrix(sm)[0, 1] < jaccard_matrix(sm)[0, 1]


def test_reference_idf_counts_documents_of_the_reference() -> None:
    import math

    from newsdedup.similarity import reference_idf

    ref_texts = ["abcab", "abxy", "zzzz", "ab"]
    ref = shingle_matrix(ref_texts, 2)
    vocab = ["ab", "zz", "bx", "qq"]
    # documents of the reference containing each shingle, counted by hand: 3, 1, 1, 0
    want = [math.log1p(4 / (1 + df)) for df in (3, 1, 1, 0)]
    assert reference_idf(vocab, ref).tolist() == pytest.approx(want)

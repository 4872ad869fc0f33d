import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from newsdedup.score.jaccard import (
    PairScores,
    all_pairs_jaccard,
    idf_weights,
    jaccard_matrix,
    weighted_jaccard_matrix,
)
from newsdedup.text.shingle import shingle_matrix, shingles


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


@given(st.lists(st.text(alphabet="abcx", max_size=7), min_size=2, max_size=8), st.integers(1, 3))
def test_pair_jaccard_matches_the_matrix_and_a_weighted_loop(texts, n):
    from newsdedup.score.jaccard import idf_weights, pair_jaccard

    sm = shingle_matrix(texts, n)
    i, j = np.triu_indices(len(texts), k=1)
    assert pair_jaccard(sm, i, j).tolist() == jaccard_matrix(sm)[i, j].tolist()
    w = idf_weights(sm)
    sets = [sm.row(k) for k in range(len(texts))]
    weight = dict(zip(sm.vocab, w.tolist(), strict=True))
    for a, b, got in zip(i, j, pair_jaccard(sm, i, j, w), strict=True):
        union = sum(weight[g] for g in sets[a] | sets[b])
        want = sum(weight[g] for g in sets[a] & sets[b]) / union if union else 0.0
        assert abs(got - want) < 1e-12


@pytest.mark.parametrize("part_cells", [1 << 23, 5_000])
def test_pair_jaccard_compiled_merge_matches_the_dense_matrix(monkeypatch, part_cells):
    # From PAIR_KERNEL_MIN_PAIRS pairs on, the intersections come from the compiled merge on
    # two threads (in one part, or in many with a small PART_CELLS); the dense matrix is
    # computed by a sparse product, independently.
    from newsdedup.score import minhash
    from newsdedup.score.jaccard import PAIR_KERNEL_MIN_PAIRS, pair_jaccard

    monkeypatch.setattr(minhash, "PART_CELLS", part_cells)
    rng = np.random.default_rng(5)
    words = ["".join(rng.choice(list("abcdefgh"), size=4)) for _ in range(60)]
    texts = [" ".join(rng.choice(words, size=rng.integers(0, 9))) for _ in range(620)]
    sm = shingle_matrix(texts, 3)
    i, j = np.triu_indices(len(texts), k=1)
    assert len(i) >= PAIR_KERNEL_MIN_PAIRS
    assert pair_jaccard(sm, i, j).tolist() == jaccard_matrix(sm)[i, j].tolist()


def test_pair_intersections_read_unsorted_rows_like_sorted_ones():
    import scipy.sparse as sp

    from newsdedup.score.jaccard import pair_intersections

    x = sp.csr_matrix((np.ones(6, np.int32), np.array([2, 0, 1, 1, 0, 3]), np.array([0, 3, 6])))
    assert not x.has_sorted_indices
    i, j = np.array([0, 0, 1]), np.array([1, 0, 1])
    assert pair_intersections(x, i, j).tolist() == [2, 3, 3]
    w = np.array([0.5, 2.0, 4.0, 8.0])
    assert pair_intersections(x, i, j, w).tolist() == [2.5, 6.5, 10.5]

"""The prefix filter's row blocks (newsdedup.score.prefix): bounded products, same candidates.

The filter's exactness against the quadratic path is tested in
tests/cluster/test_gate_buckets.py; here, that sizing its blocks by the product's
bound changes nothing but the memory.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.score import prefix
from newsdedup.score.prefix import prefix_candidates
from newsdedup.text.shingle import shingle_matrix

texts_st = st.lists(
    st.lists(st.sampled_from(["가나", "다라", "마바", "ab", "cd", "다라마", "12", "7"]),
             min_size=1, max_size=6).map(" ".join),
    min_size=2, max_size=50)


def _candidates(texts, t, **kw):
    x = shingle_matrix(texts, 2).matrix
    out = [(i.tolist(), j.tolist()) for i, j in
           prefix_candidates(x, np.ones(x.shape[1]), t, np.arange(len(texts)), **kw)]
    return sorted(zip(sum((i for i, _ in out), []), sum((j for _, j in out), []), strict=True))


@settings(max_examples=60, deadline=None)
@given(texts=texts_st, t=st.floats(0.05, 1.0), budget=st.integers(1, 60),
       block=st.integers(1, 9))
def test_blocks_sized_by_the_bound_yield_the_same_candidates(texts, t, budget, block):
    want = _candidates(texts, t)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(prefix, "PRODUCT_ENTRIES", budget)
        assert _candidates(texts, t, block=block) == want


@settings(max_examples=60, deadline=None)
@given(texts=texts_st, t=st.floats(0.05, 1.0))
def test_the_bound_is_never_below_a_row_s_product_entries(texts, t):
    x = shingle_matrix(texts, 2).matrix.tocsr()
    pre = prefix._prefixes(x, np.ones(x.shape[1]), t)
    ones_t = pre.prefix.T.tocsr()
    ones_t.data[:] = 1.0
    entries = np.diff((pre.prefix @ ones_t).tocsr().indptr)
    assert (prefix._product_bound(pre.prefix) >= entries).all()


def test_one_template_s_titles_are_listed_a_few_rows_at_a_time(monkeypatch):
    # Every title shares its prefix with every other: a fixed 2,048-row block would list
    # rows x items entries; with the bound no block holds more than the budget.
    titles = [f"오늘의 운세 종합 안내 {k}" for k in range(600)]
    x = shingle_matrix(titles, 3).matrix
    seen = []
    real = sp.csr_matrix.__matmul__

    def counted(a, b):
        out = real(a, b)
        seen.append(out.nnz)
        return out

    monkeypatch.setattr(prefix, "PRODUCT_ENTRIES", 6_000)
    monkeypatch.setattr(sp.csr_matrix, "__matmul__", counted)
    pairs = sum(len(i) for i, _ in prefix_candidates(x, np.ones(x.shape[1]), 0.3,
                                                     np.arange(600)))
    assert pairs == 600 * 599 // 2  # all of them are candidates
    assert max(seen) <= 6_000 and len(seen) >= 60


@pytest.mark.parametrize("compiled", [False, True])
def test_pair_scores_equal_the_block_scorer_bit_for_bit(monkeypatch, compiled):
    # The vectorized path and the compiled merge both add the shared weights in column order
    # from 0.0, as the block scorer's sparse product does: the same floats, not just close ones.
    from newsdedup.score.jaccard import idf_weights, weighted_jaccard_matrix

    monkeypatch.setattr(prefix, "compiled_pairs", lambda n: compiled)
    rng = np.random.default_rng(3)
    words = ["".join(rng.choice(list("abcdefg"), size=3)) for _ in range(40)]
    sm = shingle_matrix([" ".join(rng.choice(words, size=rng.integers(0, 7)))
                         for _ in range(150)], 3)
    x = sm.matrix.tocsr()
    x.sort_indices()
    w = idf_weights(sm)
    a, b = np.triu_indices(sm.n_items, k=1)
    got = prefix.pair_scores(x, w, prefix.row_mass(x, w), a, b)
    assert got.tolist() == weighted_jaccard_matrix(sm, w)[a, b].tolist()

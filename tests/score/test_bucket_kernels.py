"""The kept pairs of the compiled bucket kernel are the listed pairs that reach the threshold."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.score.scorers import make_scorer
from newsdedup.studies.synthetic import enlarge, headline_pool
from newsdedup.text.normalize import normalize_many
from newsdedup.text.shingle import shingle_matrix


def _runs(buckets):
    items = np.argsort(buckets, kind="stable")
    b = buckets[items]
    starts = np.flatnonzero(np.r_[True, b[1:] != b[:-1]]) if items.size else items
    ends = np.r_[starts[1:], items.size].astype(np.int64)
    return items.astype(np.int64), starts.astype(np.int64), ends


def _listed(scorer, items, starts, ends, threshold):
    """Every pair of every run, scored by ``run_pairs`` and filtered (the reference)."""
    pairs = [(items[m], items[m2]) for lo, hi in zip(starts, ends, strict=True)
             for m in range(lo, hi) for m2 in range(m + 1, hi)]
    i = np.array([p[0] for p in pairs], dtype=np.int64)
    j = np.array([p[1] for p in pairs], dtype=np.int64)
    sc = scorer.run_pairs(items, starts, ends, i, j)
    ok = sc >= threshold
    return i[ok], j[ok], sc[ok], sc


def _check(scorer, buckets, threshold):
    items, starts, ends = _runs(buckets)
    *want, _ = _listed(scorer, items, starts, ends, threshold)
    got = scorer.pairs_above(items, starts, ends, threshold)
    assert got is not None
    for a, b in zip(want, got, strict=True):
        assert a.dtype == b.dtype
        assert np.array_equal(a, b)  # same pairs, same order, scores bit for bit


texts_st = st.lists(st.text(alphabet="가나다라ab[]속보", max_size=14), min_size=1, max_size=30)


@settings(max_examples=80, deadline=None)
@given(texts=texts_st, keys=st.integers(1, 4), t=st.floats(0.0, 1.0),
       scorer=st.sampled_from(["idf", "jaccard"]), n=st.integers(1, 3))
def test_pairs_above_equal_listed_pairs(texts, keys, t, scorer, n):
    sc = make_scorer(shingle_matrix(normalize_many(texts), n), scorer)
    _check(sc, np.arange(len(texts)) % keys, t)


@settings(max_examples=40, deadline=None)
@given(texts=texts_st, scorer=st.sampled_from(["idf", "jaccard"]), pick=st.integers(0, 10**6))
def test_threshold_equal_to_a_score_keeps_that_pair(texts, scorer, pick):
    # The mass bound must never drop a pair whose score is exactly the threshold.
    sc = make_scorer(shingle_matrix(normalize_many(texts), 2), scorer)
    buckets = np.zeros(len(texts), dtype=np.int64)
    items, starts, ends = _runs(buckets)
    *_, every = _listed(sc, items, starts, ends, 0.0)
    if every.size:
        _check(sc, buckets, float(every[pick % every.size]))


@pytest.mark.parametrize("scorer", ["idf", "jaccard"])
def test_pairs_above_on_headlines(scorer):
    texts = normalize_many(enlarge(headline_pool("ko"), 2000, seed=2).text.tolist())
    sc = make_scorer(shingle_matrix(texts, 3), scorer)
    buckets = np.array([ord(t[0]) % 50 if t else 0 for t in texts])  # a few big buckets
    for t in (0.0, 0.3, 0.5, 1.0):
        _check(sc, buckets, t)


def test_minhash_scorer_has_no_compiled_path():
    sc = make_scorer(shingle_matrix(["가나다", "가나라"], 2), "minhash")
    assert sc.pairs_above(np.arange(2), np.array([0]), np.array([2]), 0.3) is None

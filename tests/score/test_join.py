"""The thresholded join, top-K and histograms against the brute-force jaccard_matrix path."""

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.corpus.load import load_corpus
from newsdedup.corpus.sts import load_korsts
from newsdedup.paths import UCI_COLUMNS, shared_corpus_file
from newsdedup.score import join as join_module
from newsdedup.score.jaccard import PairScores, jaccard_matrix, upper_pairs
from newsdedup.score.join import pair_histogram, score_histogram, threshold_join, top_k
from newsdedup.text.normalize import hangul_alnum, item_text
from newsdedup.text.shingle import shingle_matrix

THRESHOLDS = (0.1, 0.2, 0.25, 0.3, 1 / 3, 0.4, 0.5, 2 / 3, 0.7, 0.9, 1.0)
# The compiled kernel with every row forced onto one of its two routes (prefix
# counting, bitmap scan); "numba" lets the cost model choose per row.
KERNELS = ("numpy", "numba", "prefix", "scan")
_ROUTE = {"prefix": 1e-300, "scan": float("inf")}  # SCAN_PAIRS_PER_READ forcing the route


def _join(shingled, t, kernel="auto", **kw):
    if kernel in _ROUTE:
        with mock.patch.object(join_module, "SCAN_PAIRS_PER_READ", _ROUTE[kernel]):
            return threshold_join(shingled, t, kernel="numba", scan=True, **kw)
    return threshold_join(shingled, t, kernel=kernel, **kw)


def _brute(shingled, t):
    full = upper_pairs(jaccard_matrix(shingled))
    keep = full.score >= t
    return full.i[keep], full.j[keep], full.score[keep]


def _assert_same_as_brute(shingled, t, full, **kw):
    got = _join(shingled, t, **kw).pairs
    keep = full.score >= t
    np.testing.assert_array_equal(got.i, full.i[keep])
    np.testing.assert_array_equal(got.j, full.j[keep])
    np.testing.assert_array_equal(got.score, full.score[keep])  # bit for bit


@pytest.fixture(scope="module")
def corpora(pinned):
    items = pinned.items
    kor = load_korsts(shared_corpus_file("korsts", "sts-dev.tsv"))
    uci = load_corpus(shared_corpus_file("uci-news-aggregator-head",
                                         "uci-news-aggregator.head.csv"), columns=UCI_COLUMNS)
    return {
        "paldyn": [hangul_alnum(item_text(t, s)) for t, s in zip(items.title, items.summary,
                                                                  strict=True)],
        "korsts": [hangul_alnum(t) for t in np.concatenate((kor.sentence1, kor.sentence2))],
        "uci": [hangul_alnum(t) for t in uci.items.title[:3000]],
    }


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", ["paldyn", "korsts", "uci"])
@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("kernel", KERNELS)
def test_join_equals_brute_force_on_shared_corpora(corpora, name, n, kernel):
    shingled = shingle_matrix(corpora[name], n)
    full = upper_pairs(jaccard_matrix(shingled))
    for t in THRESHOLDS:
        _assert_same_as_brute(shingled, t, full, kernel=kernel)
    assert len(threshold_join(shingled, 0.1).pairs) > 0  # the comparison is not vacuous


@pytest.fixture(scope="module")
def english_headlines():
    from newsdedup.studies.synthetic import enlarge, headline_pool

    texts = [hangul_alnum(x) for x in enlarge(headline_pool("en"), 4000, seed=0).text]
    shingled = shingle_matrix(texts, 3)
    return shingled, upper_pairs(jaccard_matrix(shingled))


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("t", [0.3, 0.5])
@pytest.mark.parametrize("kernel", KERNELS)
def test_join_equals_brute_force_on_english_headlines(english_headlines, t, kernel):
    # Common letter trigrams: the case the scan route exists for (issue 13's English join).
    shingled, full = english_headlines
    _assert_same_as_brute(shingled, t, full, kernel=kernel, block=700)
    assert np.count_nonzero(full.score >= t) > 100


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("t", [0.3, 0.5])
def test_compiled_join_filters_count_fewer_candidates(english_headlines, t):
    shingled, _ = english_headlines
    a, b, c = (_join(shingled, t, kernel=k) for k in ("numpy", "prefix", "scan"))
    # Every path verifies a superset of the pairs; the compiled prefix route lets fewer
    # candidates through than the sparse product, the scan only those passing the bitmaps.
    assert len(a.pairs) <= b.verified <= b.candidates <= a.candidates
    assert len(a.pairs) <= c.verified == c.candidates <= a.candidates


texts_st = st.lists(st.text(alphabet="abcde가나 ", max_size=14), min_size=1, max_size=40)


@settings(max_examples=150, deadline=None)
@given(texts_st, st.integers(1, 4), st.sampled_from(THRESHOLDS + (0.05, 0.55, 0.8)),
       st.integers(1, 9), st.sampled_from(KERNELS))
def test_join_equals_brute_force_on_random_inputs(texts, n, t, block, kernel):
    shingled = shingle_matrix(texts, n)
    _assert_same_as_brute(shingled, t, upper_pairs(jaccard_matrix(shingled)), block=block,
                          kernel=kernel)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 30), min_size=1, max_size=25), min_size=2, max_size=30),
       st.sampled_from(THRESHOLDS), st.sampled_from(KERNELS))
def test_join_on_duplicate_heavy_sets(rows, t, kernel):
    # Many near-copies over a tiny vocabulary stress the prefix and bitmap bounds.
    texts = ["".join(chr(0xAC00 + v) for v in row) for row in rows]
    shingled = shingle_matrix(texts, 1)
    _assert_same_as_brute(shingled, t, upper_pairs(jaccard_matrix(shingled)), kernel=kernel)


@pytest.mark.parametrize("t", [0.3, 0.5])
@pytest.mark.parametrize("kernel", ["numba", "prefix", "scan"])
def test_compiled_join_across_tiles_and_chunks_of_one_size(t, kernel):
    # 900 items of exactly 12 distinct symbols (of 40): one run of equal sizes longer than
    # the scan's tiles and chunks (join_kernels.SCAN_TILE, SCAN_CHUNK: 256 rows), so their
    # boundaries fall inside a run, which the small hypothesis inputs never reach.
    from newsdedup.score.join_kernels import SCAN_CHUNK, SCAN_TILE

    rng = np.random.default_rng(3)
    texts = ["".join(chr(0xAC00 + v) for v in rng.choice(40, 12, replace=False))
             for _ in range(900)]
    shingled = shingle_matrix(texts, 1)
    assert set(shingled.sizes.tolist()) == {12} and 3 * max(SCAN_TILE, SCAN_CHUNK) < 900
    full = upper_pairs(jaccard_matrix(shingled))
    _assert_same_as_brute(shingled, t, full, kernel=kernel, block=500)
    assert np.count_nonzero(full.score >= t) > 100


def test_join_counts_filter_stages_and_rejects_bad_threshold():
    r = threshold_join(shingle_matrix(["abcdef", "abcdeg", "xyzw", "", "abcdef"], 3), 0.5)
    assert r.verified <= r.candidates and len(r.pairs) <= r.verified
    assert list(zip(r.pairs.i.tolist(), r.pairs.j.tolist(), strict=True)) == [(0, 1), (0, 4),
                                                                              (1, 4)]
    for bad in (0.0, -0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="threshold"):
            threshold_join(shingle_matrix(["abc"], 3), bad)


def _brute_top_k(dense, t, k):
    n = dense.shape[0]
    nb = np.full((n, k), -1)
    sc = np.full((n, k), np.nan)
    for a in range(n):
        cand = [(-dense[a, b], b) for b in range(n) if b != a and dense[a, b] >= t]
        for slot, (s, b) in enumerate(sorted(cand)[:k]):
            nb[a, slot], sc[a, slot] = b, -s
    return nb, sc


@settings(max_examples=60, deadline=None)
@given(texts_st, st.sampled_from((0.2, 0.3, 0.5)), st.integers(1, 5))
def test_top_k_equals_brute_force(texts, t, k):
    shingled = shingle_matrix(texts, 2)
    got = top_k(threshold_join(shingled, t).pairs, len(texts), k)
    nb, sc = _brute_top_k(jaccard_matrix(shingled), t, k)
    np.testing.assert_array_equal(got.neighbour, nb)
    np.testing.assert_array_equal(got.score, sc)


def test_top_k_rejects_bad_arguments():
    ps = PairScores(np.array([0]), np.array([3]), np.array([0.5]))
    with pytest.raises(ValueError, match="k must be"):
        top_k(ps, 4, 0)
    with pytest.raises(ValueError, match="out of range"):
        top_k(ps, 3, 1)


def _brute_histogram(scores, edges):
    counts = []
    for k in range(len(edges) - 1):
        upper = scores <= edges[k + 1] if k == len(edges) - 2 else scores < edges[k + 1]
        counts.append(int(np.count_nonzero((scores >= edges[k]) & upper)))
    return counts, int(np.count_nonzero(scores < edges[0]))


@settings(max_examples=80, deadline=None)
@given(texts_st, st.integers(1, 3), st.integers(1, 7),
       st.sampled_from([[0.0, 0.1, 0.3, 0.5, 1.0], [0.0, 1.0], [0.2, 0.5, 0.9, 1.0],
                        [0.0, 1 / 3, 0.5, 2 / 3, 1.0, 1.5]]))
def test_histograms_equal_brute_force(texts, n, block, edges):
    shingled = shingle_matrix(texts, n)
    scores = upper_pairs(jaccard_matrix(shingled)).score
    counts, below = score_histogram(shingled, edges, block=block)
    want_counts, want_below = _brute_histogram(scores, np.asarray(edges))
    assert counts.tolist() == want_counts and below == want_below
    assert counts.sum() + below == len(scores)  # every pair accounted for


def test_histogram_rejects_bad_edges():
    ps = PairScores(np.zeros(0, int), np.zeros(0, int), np.zeros(0))
    for bad in ([0.5], [0.0, 0.5], [0.5, 0.2, 1.0], [-0.1, 1.0]):
        with pytest.raises(ValueError, match="edges"):
            pair_histogram(ps, bad, 0)


@settings(max_examples=40, deadline=None)
@given(sizes=st.lists(st.integers(0, 7), max_size=12), min_pairs=st.integers(1, 10))
def test_gathered_pieces_are_the_blocks_pairs_in_order_and_bounded(sizes, min_pairs):
    """Pieces concatenate to the blocks' pairs in block order; each but the last reaches
    ``min_pairs`` and holds fewer than ``min_pairs`` plus its last block's pairs."""
    start = np.cumsum([0, *sizes])
    blocks = [join_module.JoinResult(PairScores(np.arange(a, b), np.arange(a, b) + 100,
                                                np.arange(a, b) / 100.0), 0.0, 0, 0)
              for a, b in zip(start[:-1], start[1:], strict=True)]
    pieces = list(join_module.gathered_pairs(blocks, min_pairs))
    assert np.concatenate([p.i for p in pieces] or [np.zeros(0)]).tolist() == \
        list(range(int(start[-1])))
    for p in pieces:
        assert p.j.tolist() == (p.i + 100).tolist() and np.allclose(p.score, p.i / 100.0)
        assert len(p) < min_pairs + max(sizes)
    assert all(len(p) >= min_pairs for p in pieces[:-1])
    assert all(len(p) for p in pieces)


def test_a_streamed_join_gathered_gives_the_pairs_of_the_whole_join():
    """The blocks of both kernels, gathered in small pieces, are the join's pairs."""
    texts = [hangul_alnum(t) for t in ["서울 아파트값 3주 연속 상승", "서울 아파트값 4주 연속 상승",
                                        "부산 아파트값 하락", "서울 아파트 값 3주째 상승"] * 30]
    sm = shingle_matrix(texts, 3)
    whole = threshold_join(sm, 0.4).pairs
    for kernel in ("numpy", "numba"):
        pieces = list(join_module.gathered_pairs(
            join_module.join_blocks(sm, 0.4, block=7, kernel=kernel), 50))
        got = join_module.merge_blocks([join_module.JoinResult(p, 0.4, 0, 0) for p in pieces],
                                       0.4).pairs
        assert len(pieces) > 1
        np.testing.assert_array_equal(got.i, whole.i)
        np.testing.assert_array_equal(got.j, whole.j)
        np.testing.assert_array_equal(got.score, whole.score)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_scan_false_keeps_every_row_on_the_prefix_route(english_headlines):
    """``scan=False`` prices the scan out (price 0, and numpy's pairs); by default the
    per-row cost model decides, at every threshold."""
    shingled = english_headlines[0]
    seen = []
    real = join_module.join_block_compiled

    def spy(*args, **kw):
        seen.append(kw["pairs_per_read"])
        return real(*args, **kw)

    with mock.patch.object(join_module, "join_block_compiled", spy):
        low = threshold_join(shingled, 0.1, block=256, kernel="numba", scan=False)
        assert set(seen) == {0.0} and len(seen) > 1
        seen.clear()
        threshold_join(shingled, 0.1, block=256, kernel="numba")
        assert set(seen) == {join_module.SCAN_PAIRS_PER_READ}
    want = threshold_join(shingled, 0.1, kernel="numpy").pairs
    assert len(want) > 0
    np.testing.assert_array_equal(low.pairs.i, want.i)
    np.testing.assert_array_equal(low.pairs.j, want.j)
    np.testing.assert_array_equal(low.pairs.score, want.score)

"""The join's compiled kernels against their definitions and the numpy index build."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.score.jaccard import jaccard_matrix
from newsdedup.score.join import (
    _PREFIX_K,
    _SLACK,
    SCAN_PAIRS_PER_READ,
    SCAN_ROWS_PER_FLAGGED_SHINGLE,
    build_index,
)
from newsdedup.score.join_kernels import (
    MidPostings,
    _missed_share,
    _sampled_flags,
    join_rows,
    prefix_last_sizes,
)
from newsdedup.text.normalize import hangul_alnum
from newsdedup.text.shingle import shingle_matrix

texts_st = st.lists(st.text(alphabet="abcdefg가나 ", max_size=16), min_size=1, max_size=40)


@settings(max_examples=80, deadline=None)
@given(texts_st, st.integers(1, 4), st.sampled_from([0.05, 0.3, 0.5, 0.9, 1.0]))
def test_compiled_index_build_equals_numpy(texts, n, t):
    sm = shingle_matrix(texts, n)
    a, b = build_index(sm, t), build_index(sm, t, compiled=True)
    for name in ("order", "sizes", "suffix", "mid_suffix", "last", "mid_last", "min_shared",
                 "bitmap"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    for name in ("items", "prefix", "mid"):
        x, y = getattr(a, name), getattr(b, name)
        assert np.array_equal(x.indptr, y.indptr) and np.array_equal(x.indices, y.indices), name


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 300), st.data(), st.sampled_from([0.01, 0.1, 0.3, 1 / 3, 0.5, 0.8, 1.0]),
       st.integers(1, 6))
def test_prefix_last_size_is_the_last_probe_size_that_counts(s, data, t, k):
    # An entry at position pos of a row of size s counts for a probe row of size sc
    # when pos < s - ceil(q (s + sc)) + k: the kernel's test, checked size by size.
    pos = data.draw(st.integers(0, s - 1))
    t_lo = t - _SLACK
    q = t_lo / (1.0 + t_lo)
    last = int(prefix_last_sizes(np.array([pos], np.int32), np.array([s], np.int32), q, k)[0])
    counts = [pos < s - np.ceil(q * (s + sc)) + k for sc in range(s, s * 40 + 200)]
    want = s - 1 + (counts.index(False) if False in counts else len(counts))
    assert min(last, s * 40 + 199) == want


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("lang", ["ko", "en"])
def test_cost_model_sends_english_rows_to_the_scan(lang):
    # The same headlines as the join's English brute-force test: nearly every English row
    # takes the scan (common letter trigrams make its posting lists long), most Korean
    # rows the prefix route; both routes run in one Korean join.
    from newsdedup.studies.synthetic import enlarge, headline_pool

    texts = [hangul_alnum(x) for x in enlarge(headline_pool(lang), 4000, seed=0).text]
    index = build_index(shingle_matrix(texts, 3), 0.3, compiled=True)
    post = MidPostings.of(index, 0.3 - _SLACK, _PREFIX_K)
    scanned = join_rows(0, len(index.sizes), 0.3, 0.3 - _SLACK, _PREFIX_K, index.sizes,
                        post.probe_len, post.ptr, post.entries, post.bits,
                        post.item_ptr, post.item_idx, post.run_end, SCAN_PAIRS_PER_READ,
                        SCAN_ROWS_PER_FLAGGED_SHINGLE)[5]
    share = scanned / len(index.sizes)
    assert share > 0.9 if lang == "en" else 0 < share < 0.5


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_no_row_is_scanned_when_the_scan_is_priced_out():
    # English rows go to the scan at the default price (test above); at price 0 none does.
    from newsdedup.studies.synthetic import enlarge, headline_pool

    texts = [hangul_alnum(x) for x in enlarge(headline_pool("en"), 2000, seed=0).text]
    index = build_index(shingle_matrix(texts, 3), 0.3, compiled=True)
    post = MidPostings.of(index, 0.3 - _SLACK, _PREFIX_K)
    args = (0, len(index.sizes), 0.3, 0.3 - _SLACK, _PREFIX_K, index.sizes, post.probe_len,
            post.ptr, post.entries, post.bits, post.item_ptr, post.item_idx, post.run_end)
    priced_out, default = join_rows(*args, 0.0), join_rows(*args, SCAN_PAIRS_PER_READ)
    assert priced_out[5] == 0 and default[5] > 0
    # The same pairs with the same scores, compared pair by pair in (r, c) order.
    got, want = (tuple(a[np.lexsort((res[1], res[0]))] for a in res[:3])
                 for res in (priced_out, default))
    assert len(got[0]) > 0
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


def _english(n_items, t, n=3):
    from newsdedup.studies.synthetic import enlarge, headline_pool

    texts = [hangul_alnum(x) for x in enlarge(headline_pool("en"), n_items, seed=0).text]
    shingled = shingle_matrix(texts, n)
    index = build_index(shingled, t, compiled=True)
    return shingled, index, MidPostings.of(index, t - _SLACK, _PREFIX_K)


def _bound_flags(index, c, t_lo):
    """``c``'s window start, window rows the length test admits, and the rows the bound flags.

    From the row-major maps, in numpy."""
    sizes = index.sizes.astype(np.int64)
    q = t_lo / (1.0 + t_lo)
    r_lo = np.searchsorted(sizes, t_lo * sizes[c] * (1.0 - 1e-12) - 1.0, side="left")
    r = np.arange(r_lo, c)
    r = r[t_lo * sizes[c] <= sizes[r]]
    xor = np.bitwise_xor(index.bitmap[r], index.bitmap[c]).view(np.uint8)
    distance = np.unpackbits(xor, axis=1).sum(axis=1)
    limit = sizes[r] + sizes[c] - 2 * np.ceil(q * (sizes[r] + sizes[c]))
    return r_lo, len(r), r[distance <= limit]


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_sampled_flags_count_what_the_bitmap_bound_flags():
    # Sampling every chunk, the estimate is the share of the window rows the bound flags
    # times the window (rows from the window's start on, a few of them just short of the
    # length test), recomputed here from the row-major maps; the first flagged rows are
    # the lowest.
    t = 0.2
    _, index, post = _english(1500, t)
    t_lo = t - _SLACK
    rows = np.arange(200, len(index.sizes), 2, dtype=np.int64)
    r_los, admitted, want = zip(*(_bound_flags(index, c, t_lo) for c in rows), strict=True)
    r_los = np.array(r_los, dtype=np.int64)
    flagged, first = _sampled_flags(rows, r_los, t_lo, index.sizes, post.run_end, post.bits, 1, 8)
    assert sum(len(w) for w in want) > 1000
    expect = [len(w) * (c - lo) / a if a else 0.0
              for w, c, lo, a in zip(want, rows, r_los, admitted, strict=True)]
    np.testing.assert_allclose(flagged, expect, rtol=1e-12)
    for got, w in zip(first, want, strict=True):
        np.testing.assert_array_equal(got[got >= 0], w[:8])
    # One chunk in eight: an estimate, close over many rows.
    sampled, _ = _sampled_flags(rows, r_los, t_lo, index.sizes, post.run_end, post.bits, 8, 8)
    assert sampled.sum() == pytest.approx(flagged.sum(), rel=0.25)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_missed_share_is_the_share_of_flagged_rows_below_the_threshold():
    t = 0.2
    shingled, index, post = _english(800, t)
    exact = jaccard_matrix(shingled)
    shares = []
    for c in range(100, len(index.sizes), 5):
        _, _, flagged = _bound_flags(index, c, t - _SLACK)
        first = np.full(8, -1, dtype=np.int64)
        first[: min(8, len(flagged))] = flagged[:8]
        got = _missed_share(c, first, t, index.sizes, post.item_ptr, post.item_idx)
        scores = exact[index.order[flagged[:8]], index.order[c]]
        assert got == (np.mean(scores < t) if len(flagged) else 0.0)
        shares.append(got)
    assert 0 < np.mean(shares) < 1


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_vain_intersections_send_rows_back_to_the_prefix_route():
    # At 0.1 the bound needs an overlap of 9%: most rows the scan would flag score below
    # the threshold. Priced in, they keep rows on the prefix route that the reads alone
    # would scan; the pairs and scores stay the same.
    t = 0.1
    _, index, post = _english(2000, t, n=4)
    args = (0, len(index.sizes), t, t - _SLACK, _PREFIX_K, index.sizes, post.probe_len,
            post.ptr, post.entries, post.bits, post.item_ptr, post.item_idx, post.run_end,
            SCAN_PAIRS_PER_READ)
    reads_only, priced = join_rows(*args, 0.0), join_rows(*args, SCAN_ROWS_PER_FLAGGED_SHINGLE)
    assert reads_only[5] > 2 * priced[5]
    got, want = (tuple(a[np.lexsort((res[1], res[0]))] for a in res[:3])
                 for res in (priced, reads_only))
    assert len(got[0]) > 0
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("lang", "t", "n"), [("ko", 0.3, 3), ("en", 0.5, 4), ("en", 0.05, 5)])
def test_mid_postings_match_lists_built_row_by_row(lang, t, n):
    """Per rank, its rows (ascending) and their last probe sizes, kept where they count."""
    from newsdedup.score.join_kernels import prefix_last_sizes
    from newsdedup.studies.synthetic import enlarge, headline_pool

    texts = [hangul_alnum(x) for x in enlarge(headline_pool(lang), 600, seed=1).text]
    index = build_index(shingle_matrix(texts, n), t, compiled=True)
    t_lo = t - _SLACK
    post = MidPostings.of(index, t_lo, _PREFIX_K)
    lists: dict[int, list[tuple[int, int]]] = {}
    mid = index.mid
    for row in range(mid.shape[0]):
        size = int(index.sizes[row])
        for p, rank in enumerate(mid.indices[mid.indptr[row]:mid.indptr[row + 1]].tolist()):
            last = int(prefix_last_sizes(np.array([p], dtype=np.int64),
                                         np.array([size], dtype=index.sizes.dtype),
                                         t_lo / (1.0 + t_lo), _PREFIX_K)[0])
            if last >= size:
                lists.setdefault(rank, []).append((row, last))
    want_ptr = np.concatenate(([0], np.cumsum([len(lists.get(r, []))
                                               for r in range(mid.shape[1])])))
    want = np.array([e for r in range(mid.shape[1]) for e in lists.get(r, [])],
                    dtype=np.int32).reshape(-1, 2)
    np.testing.assert_array_equal(post.ptr, want_ptr)
    np.testing.assert_array_equal(post.entries, want)
    assert post.entries.dtype == np.int32 and post.ptr.dtype == np.int64

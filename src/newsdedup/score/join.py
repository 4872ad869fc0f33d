"""Exact thresholded Jaccard join, top-K neighbours and score histograms without ``N x N``.

:func:`threshold_join` returns every pair ``i < j`` with ``J(i, j) >= t`` and
its exact score -- the same pairs and the same float64 scores as thresholding
:func:`newsdedup.score.jaccard.jaccard_matrix` -- while touching only pairs that
can reach ``t``. It is the AllPairs / PPJoin idea, vectorized:

1. **Global order.** Shingles are ranked rarest first (document frequency,
   then column), and every item's shingles are sorted by that rank.
2. **Prefix filter.** If ``|x & y| >= a``, the ``k`` rarest shared shingles
   lie within the first ``|x| - a + k`` shingles of ``x`` (its *prefix*) and
   the first ``|y| - a + k`` of ``y``. For ``|x| <= |y|`` and ``J >= t`` the
   overlap is at least ``ceil(t |y|)`` and at least ``ceil(2t/(1+t) |x|)``, so
   the smaller item needs only its short "mid" prefix (PPJoin's index
   prefix) and the larger its probe prefix. Candidates are the entries of
   ``M P^T``, a sparse product of the two prefix matrices, that count at least
   ``k = 4`` shared shingles (or the whole required overlap, if smaller): one
   cheap test on the product's data drops the pairs that share a single
   mid-frequency shingle. Rare-first prefixes have short posting lists, which
   is what keeps this far below ``N**2``.
3. **Length filter.** ``J >= t`` needs ``t |y| <= |x| <= |y| / t``. Items are
   processed sorted by size, so for a block of rows the admissible columns
   are one contiguous slice.
4. **Suffix bound.** With ``c`` prefix shingles shared, the overlap is at
   most ``c`` plus the suffix length of the item whose prefix ends earlier in
   the global order; candidates whose bound is below the overlap needed for
   ``t`` are dropped before verification.
5. **Bitmap bound.** Each item also carries a 512-bit map of its shingle
   ranks; a bit set in one map and not the other is a shingle of the
   symmetric difference, so ``|x & y| <= (|x| + |y| - popcount(x ^ y)) / 2``.
   Eight word operations per pair drop most of the remaining non-pairs.
6. **Verification.** Exact intersections of the survivors by a sparse
   element-wise product, and the score ``inter / union`` computed with the
   same float64 operation as the brute-force path.

The filters use ``t - 1e-9`` so that no pair whose float score is ``>= t``
is lost to rounding; the final test is ``score >= t`` exactly as in the
brute-force path. Work is split into blocks of rows (:func:`join_block`),
which the Dask path (:mod:`newsdedup.cluster.distributed`) farms out unchanged.

Pairs are returned sorted by ``(i, j)``; scores follow the conventions of
:mod:`newsdedup.score.jaccard` (an empty item never reaches a threshold > 0).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial

import numpy as np
import scipy.sparse as sp

from newsdedup.score.bins import bin_of, check_edges
from newsdedup.score.jaccard import PairScores
from newsdedup.text.shingle import ShingleMatrix, sorted_unique

__all__ = [
    "JoinIndex",
    "JoinResult",
    "TopK",
    "GATHER_PAIRS",
    "build_index",
    "gathered_pairs",
    "join_block",
    "join_block_compiled",
    "join_blocks",
    "SCAN_PAIRS_PER_READ",
    "SCAN_ROWS_PER_FLAGGED_SHINGLE",
    "STREAM_JOIN_BLOCK",
    "STREAM_PAIR_SLOTS",
    "STREAM_NUMBA_MIN_SHINGLES",
    "merge_blocks",
    "pair_histogram",
    "score_histogram",
    "threshold_join",
    "top_k",
    "stream_block",
    "stream_kernel",
]

# Slack of the filters (not of the result): float scores are correctly
# rounded ratios, so a pair with float score >= t has exact ratio >= t - 1e-16;
# filtering at t - 1e-9 can therefore never lose it.
_SLACK = 1e-9

DEFAULT_JOIN_BLOCK = 2048
"""Rows of the size-sorted matrix per block (memory knob only)."""

_PREFIX_K = 4  # shared prefix shingles required (pkwise); 2-8 tried on headlines, 4 fastest

_VERIFY_CHUNK = 1 << 20  # candidate pairs verified at once (~30M gathered shingles)


def _check_threshold(threshold: float) -> float:
    t = float(threshold)
    if not 0.0 < t <= 1.0:
        raise ValueError(f"join threshold must lie in (0, 1], got {threshold!r}")
    return t


@dataclass(frozen=True)
class JoinIndex:
    """Everything a block of the join needs; built once, shared by all blocks.

    Attributes:
        threshold: The join threshold ``t`` in ``(0, 1]``.
        order: Original index of each non-empty item, sorted by (size, index).
        sizes: Shingle count of each item in that order (``int64``).
        items: Their shingle rows, columns relabelled by rarity rank (CSR).
        prefix: Probe prefixes, the first ``|x| - ceil(t|x|) + k`` ranks (CSR;
            ``k = 4`` shared shingles, clipped to ``|x|``).
        mid: Mid prefixes, the first ``|x| - ceil(2t/(1+t)|x|) + k`` ranks, used
            when ``x`` is the smaller item of a pair.
        suffix, mid_suffix: ``|x|`` minus the probe / mid prefix length.
        last, mid_last: Rank of the last probe / mid prefix shingle per item.
        min_shared: Shared prefix shingles a pair needs when the item is its
            smaller one: ``min(k, ceil(2t/(1+t)|x|))``.
        bitmap: ``uint64 (M, 8)``: bit ``rank % 512`` set for every shingle.
        n_items: Items of the whole collection, empty ones included.
        probe_t: ``prefix`` transposed (rank x item, CSR), built once: a
            block's product reads the posting lists of its mid prefixes from
            it. Transposing ``prefix[lo:end]`` per block instead costs
            ``O(end - lo)`` rows each time, ``O(N**2 / block)`` in all: half
            of a 100k-item join at J >= 0.05 in 335-row blocks, and nearly
            all of it at 1M items in 64-row blocks.
    """

    threshold: float
    order: np.ndarray
    sizes: np.ndarray
    items: sp.csr_matrix
    prefix: sp.csr_matrix
    mid: sp.csr_matrix
    suffix: np.ndarray
    mid_suffix: np.ndarray
    last: np.ndarray
    mid_last: np.ndarray
    min_shared: np.ndarray
    bitmap: np.ndarray
    n_items: int
    probe_t: sp.csr_matrix

    def blocks(self, block: int = DEFAULT_JOIN_BLOCK) -> list[tuple[int, int]]:
        """Row ranges ``[lo, hi)`` of the size-sorted items, in order."""
        if block < 1:
            raise ValueError(f"block must be >= 1, got {block}")
        m = len(self.order)
        return [(lo, min(lo + block, m)) for lo in range(0, m, block)]


def build_index(shingled: ShingleMatrix, threshold: float, compiled: bool = False) -> JoinIndex:
    """Sort items by size and shingles by rarity, and cut the prefixes.

    Args:
        shingled: Items as a shingle matrix.
        threshold: Join threshold ``t`` in ``(0, 1]``.
        compiled: Sort each item's ranks and set its bitmap with the compiled
            kernels (:mod:`newsdedup.score.join_kernels`) instead of numpy's
            whole-array sorts; the index is the same.

    Returns:
        A :class:`JoinIndex`.

    Examples:
        >>> from newsdedup.text.shingle import shingle_matrix
        >>> ix = build_index(shingle_matrix(["abcde", "abcd", "x"], 3), 0.5)
        >>> ix.order.tolist(), ix.sizes.tolist(), np.diff(ix.prefix.indptr).tolist()
        ([1, 0], [2, 3], [2, 3])
    """
    t = _check_threshold(threshold)
    x = shingled.matrix.tocsr()
    sizes_all = shingled.sizes
    df = np.bincount(x.indices, minlength=x.shape[1])
    # Rarest first; ties by column so the order (and every block) is deterministic.
    by_rarity = np.lexsort((np.arange(x.shape[1]), df))
    rank = np.empty(x.shape[1], dtype=np.int64)
    rank[by_rarity] = np.arange(x.shape[1])
    nonempty = np.flatnonzero(sizes_all > 0)
    order = nonempty[np.argsort(sizes_all[nonempty], kind="stable")]
    sizes = sizes_all[order].astype(np.int64)
    indptr = np.concatenate(([0], np.cumsum(sizes)))
    if compiled:
        from newsdedup.score.join_kernels import rank_rows, row_bitmaps

        ranks = rank_rows(_i64(x.indptr), _i64(x.indices), _i64(order), rank)
        bitmap = row_bitmaps(ranks, indptr, _BITMAP_WORDS)
    else:
        rows = x[order]
        row_of = np.repeat(np.arange(len(order)), sizes)
        ranks = rank[rows.indices]
        ranks = ranks[np.lexsort((ranks, row_of))]
        bitmap = _bitmaps(ranks, sizes)
    items = sp.csr_matrix(
        (np.ones(len(ranks), np.int32), ranks.astype(np.int32), indptr),
        shape=(len(order), x.shape[1]),
    )
    pos = np.arange(len(ranks)) - np.repeat(indptr[:-1], sizes)
    t_lo = t - _SLACK
    need_mid = np.ceil(2 * t_lo / (1 + t_lo) * sizes).astype(np.int64)
    probe = _cut_prefix(ranks, pos, sizes, np.ceil(t_lo * sizes).astype(np.int64), items.shape)
    mid = _cut_prefix(ranks, pos, sizes, need_mid, items.shape)
    return JoinIndex(threshold=t, order=order, sizes=sizes, items=items, prefix=probe[0],
                     mid=mid[0], suffix=probe[1], mid_suffix=mid[1], last=probe[2],
                     mid_last=mid[2],
                     min_shared=np.minimum(_PREFIX_K, need_mid).astype(np.int32),
                     bitmap=bitmap, n_items=x.shape[0], probe_t=probe[0].T.tocsr())


_BITMAP_WORDS = 8  # 512 bits: ~10% of the symmetric difference of two 50-shingle items collide


def _bitmaps(ranks: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """512-bit map per item (bit ``rank % 512``), for the bitmap bound."""
    bit = ranks % (64 * _BITMAP_WORDS)
    row = np.repeat(np.arange(len(sizes)), sizes)
    cell = sorted_unique(row * (64 * _BITMAP_WORDS) + bit)  # one entry per set bit: OR == sum
    out = np.zeros(len(sizes) * _BITMAP_WORDS, dtype=np.uint64)
    np.add.at(out, cell // 64, np.left_shift(np.uint64(1), (cell % 64).astype(np.uint64)))
    return out.reshape(len(sizes), _BITMAP_WORDS)


def _bitmap_bound(bitmap: np.ndarray, sizes: np.ndarray, r: np.ndarray, c: np.ndarray):
    """Upper bound of ``|x & y|`` from the maps: a differing bit is a differing shingle."""
    out = np.empty(len(r), dtype=np.int64)
    for lo in range(0, len(r), _VERIFY_CHUNK):
        a, b = r[lo : lo + _VERIFY_CHUNK], c[lo : lo + _VERIFY_CHUNK]
        differ = np.bitwise_count(bitmap[a] ^ bitmap[b]).sum(axis=1, dtype=np.int64)
        out[lo : lo + _VERIFY_CHUNK] = (sizes[a] + sizes[b] - differ) // 2
    return out


def _cut_prefix(
    ranks: np.ndarray, pos: np.ndarray, sizes: np.ndarray, need: np.ndarray, shape: tuple
) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
    """Prefix matrix for an overlap ``need`` per item, suffix lengths and last prefix ranks."""
    plen = np.clip(sizes - need + _PREFIX_K, 1, sizes)
    keep = pos < np.repeat(plen, sizes)
    pptr = np.concatenate(([0], np.cumsum(plen)))
    prefix = sp.csr_matrix(
        (np.ones(int(plen.sum()), np.int32), ranks[keep].astype(np.int32), pptr), shape=shape
    )
    starts = np.concatenate(([0], np.cumsum(sizes)))[:-1]
    last = ranks[starts + plen - 1] if len(sizes) else np.zeros(0, np.int64)
    return prefix, sizes - plen, last


def _intersections(items: sp.csr_matrix, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``|row a[p] & row b[p]|`` for every candidate ``p``, by sparse element-wise products."""
    out = np.empty(len(a), dtype=np.int64)
    for lo in range(0, len(a), _VERIFY_CHUNK):
        hi = lo + _VERIFY_CHUNK
        both = items[a[lo:hi]].multiply(items[b[lo:hi]])
        out[lo:hi] = np.asarray(both.sum(axis=1)).ravel()
    return out


@dataclass(frozen=True)
class JoinResult:
    """Pairs at or above a threshold and what the filters did.

    Attributes:
        pairs: :class:`~newsdedup.score.jaccard.PairScores` with ``score >= threshold``,
            sorted by ``(i, j)``, indices into the input items.
        threshold: The threshold.
        candidates: Pairs that passed the prefix and length filters (before the
            suffix bound); ``verified``: pairs whose intersection was computed.
    """

    pairs: PairScores
    threshold: float
    candidates: int
    verified: int


def join_block(index: JoinIndex, lo: int, hi: int) -> JoinResult:
    """The join restricted to size-sorted rows ``[lo, hi)`` against every later row.

    Blocks are independent and read only ``index``, so they can run anywhere
    (threads, Dask workers); :func:`merge_blocks` puts them together.

    Returns:
        A :class:`JoinResult` whose pairs are unsorted original indices ``i < j``.
    """
    t, sizes = index.threshold, index.sizes
    t_lo = t - _SLACK
    if hi <= lo:
        return _empty_result(t)
    # Rows are the smaller items of their pairs: mid prefixes against probe prefixes, over
    # every item's postings (the earlier and the far larger ones fail the tests below).
    shared = index.mid[lo:hi] @ index.probe_t
    # Cheapest test first, on the product's own arrays: enough shared prefix shingles.
    row = np.repeat(np.arange(lo, hi, dtype=np.int32), np.diff(shared.indptr))
    ok = shared.data >= index.min_shared[row]
    r, c, cnt = row[ok], shared.indices[ok], shared.data[ok]
    # Later rows only (sorted by size: at least as large), and the length filter
    # |y| <= |x| / t.
    ok = (c > r) & (t_lo * sizes[c] <= sizes[r])
    r, c, cnt = r[ok].astype(np.int64), c[ok].astype(np.int64), cnt[ok].astype(np.int64)
    n_cand = len(r)
    # Suffix bound: shared shingles beyond the prefixes all lie in the suffix of
    # the item whose prefix ends first in the global order.
    first_ends = np.where(index.mid_last[r] <= index.last[c], index.mid_suffix[r],
                          index.suffix[c])
    need = np.ceil(t_lo / (1.0 + t_lo) * (sizes[r] + sizes[c]))
    ok = cnt + first_ends >= need
    r, c, need = r[ok], c[ok], need[ok]
    ok = _bitmap_bound(index.bitmap, sizes, r, c) >= need
    r, c = r[ok], c[ok]
    inter = _intersections(index.items, r, c)
    union = sizes[r] + sizes[c] - inter
    score = np.zeros(len(r), dtype=np.float64)
    np.divide(inter, union, out=score, where=union > 0)
    hit = score >= t
    a, b = index.order[r[hit]], index.order[c[hit]]
    pairs = PairScores(i=np.minimum(a, b), j=np.maximum(a, b), score=score[hit])
    return JoinResult(pairs=pairs, threshold=t, candidates=n_cand, verified=len(r))


JOIN_KERNELS = ("auto", "numpy", "numba")
"""How :func:`threshold_join` runs its blocks (same pairs and scores whichever)."""

NUMBA_MIN_SHINGLES = 1 << 20
"""Shingle occurrences from which ``kernel="auto"`` compiles (about 20k headlines)."""

STREAM_NUMBA_MIN_SHINGLES = 1 << 17
"""Shingle occurrences (about 5,000 headlines) from which a streamed join compiles.

Streamed joins (``newsdedup join``, the sampled measurement, the cross-host study)
use it instead of :data:`NUMBA_MIN_SHINGLES`, through :func:`stream_kernel`.
Below, numpy's sparse products are cheap and numba's import (about half a
second) is not; above, the compiled kernel's memory is a few arrays per row
where a numpy block holds its rows times their length window (measured on
20,000 templated English titles, J >= 0.5: 1.68 GB peak RSS with numpy, see
the commit)."""

STREAM_JOIN_BLOCK = 256
"""Most rows per block where a join's pairs are consumed block by block (:func:`join_blocks`).

A block's pairs are at most its rows times the items: with titles from one
template (nearly every pair above the threshold) 256 rows of 20,000 items
are 5M pairs, a few hundred MB with their estimates, where 2,048 rows were
2 GB. The compiled kernel's cost per block is small beside that; fewer rows
on larger corpora: :func:`stream_block`.
"""

STREAM_PAIR_SLOTS = 1_250_000
"""A streamed block's worst case in pairs (each of its rows paired with every item).

Up to four blocks are in flight (:func:`join_blocks`), so this bounds the pairs held to
5M (about 120 MB) on a corpus of one template, where 256 rows of 20,000 titles held 20M
(0.9 GB peak RSS for the join alone; 0.5 GB at 64 rows, and no slower)."""


def stream_kernel(shingled: ShingleMatrix) -> str:
    """The join kernel of a streamed join (:func:`join_blocks`) over ``shingled``.

    ``"numba"`` from :data:`STREAM_NUMBA_MIN_SHINGLES` shingle occurrences on, else
    ``"numpy"`` (same pairs and scores whichever).

    Examples:
        >>> from newsdedup.text.shingle import shingle_matrix
        >>> stream_kernel(shingle_matrix(["abcde", "abcdf"], 3))
        'numpy'
    """
    return "numba" if shingled.matrix.nnz >= STREAM_NUMBA_MIN_SHINGLES else "numpy"


def stream_block(n_items: int) -> int:
    """Rows per streamed block for ``n_items`` items: the worst case within the pair slots.

    At most :data:`STREAM_JOIN_BLOCK` rows and at least 16 (a block's fixed cost).

    Examples:
        >>> stream_block(1_000), stream_block(20_000), stream_block(1_000_000)
        (256, 62, 16)
    """
    return int(min(STREAM_JOIN_BLOCK, max(16, STREAM_PAIR_SLOTS // max(n_items, 1))))


SCAN_PAIRS_PER_READ = 16.0
"""Window rows the compiled join tests on bitmaps for the cost of one posting entry it reads.

The price of a row's prefix route, in the unit of the scan's
(:mod:`newsdedup.score.join_kernels`): the scan tests 8-16 rows per vector
instruction, a posting read is a random access plus, for some, a candidate
to check. A row whose probe prefix reads no more entries than its length
window holds rows, divided by this, takes the prefix route at once. The
choice only moves time between two exact routes; the pairs and scores are
the same. Measured on blocks of 2,048 rows of 100k distinct English
headlines at 0.2 (n = 3-5, one route forced for the whole block, one
thread): 11-17 ns per posting entry read, 0.6-1.0 ns per window row
scanned where few rows are flagged."""


SCAN_ROWS_PER_FLAGGED_SHINGLE = 16.0
"""Window rows the scan tests for the cost of one vain intersection, per shingle of the row.

Every window row that passes the bitmap bound is intersected exactly, a
merge of two rank lists: about 1 us for rows of 90 shingles, 1,000-1,600
window rows' worth of bitmap tests (same blocks as
:data:`SCAN_PAIRS_PER_READ`, the bound's slack varied to vary the flagged
rows; measured before the merge learned to stop early, which makes a vain
intersection cheaper, so the price errs towards the prefix route). The
rows that then score below the threshold are the scan's own cost (those
above it are intersected by either route). It is large where
the bound is weak: at low thresholds (the bound needs an overlap of
``t / (1 + t)``, 9% at 0.1), and for long items whose 512-bit maps are
mostly set (English n = 4 at 0.2: 7.4M of the 9M flagged rows came from
the longest 5% of 100k items). Per row, the kernel estimates the flagged
rows from one chunk of the window in 32 and their failing share from
the first eight (:func:`newsdedup.score.join_kernels.join_rows`).

Measured with ``join_blocks`` (two threads, synthetic headlines, same
pairs every way) against the price of 64 per read alone, which the scan
was turned off below 0.2 to escape: distinct English 100k at 0.2, n = 3 /
4 / 5, 8.7 / 4.5 / 2.3 s against 9.8 / 10.2 / 9.1 s (prefix route alone:
24.0 / 4.4 / 2.1 s); at 0.1, n = 4, 16.5 s against 16.1 s on the prefix
route alone (the scan alone was projected over 10 min); 10k templated
English at 0.1, 7.1 s against 7.2 s. Where flagged rows are matches the
estimate costs a little: templated English 100k at 0.5 27.5 s against
27.3-27.9 s, templated Korean 6.3 s against 5.9-6.1 s, 20,000
near-identical titles 18.1 s against 16.4-17.5 s."""


def join_block_compiled(index: JoinIndex, postings, lo: int, hi: int,
                        pairs_per_read: float | None = None) -> JoinResult:
    """The join for the size-sorted rows ``[lo, hi)`` as the *larger* item of their pairs, compiled.

    :func:`newsdedup.score.join_kernels.join_rows`: each row either walks its
    probe prefix and counts the earlier rows through the posting lists of
    their mid prefixes (``postings``, a
    :class:`~newsdedup.score.join_kernels.MidPostings`), keeping only shingles
    inside both items' pair-specific prefixes, or -- where those lists are long, as for
    common English letter trigrams -- tests every earlier row its length
    filter admits against the 512-bit bitmap bound. Same pairs and scores as
    :func:`join_block`; ``candidates`` counts the pairs that reach the bitmap
    bound (prefix route) or pass it (scan route), ``verified`` those whose
    intersection was computed. ``pairs_per_read`` sets the prefix route's price
    (:data:`SCAN_PAIRS_PER_READ` when None; 0: the prefix route for every row);
    a flagged row costs :data:`SCAN_ROWS_PER_FLAGGED_SHINGLE` per shingle.
    """
    from newsdedup.score.join_kernels import join_rows

    if pairs_per_read is None:
        pairs_per_read = SCAN_PAIRS_PER_READ

    t = index.threshold
    r, c, score, n_cand, n_verified, _ = join_rows(
        lo, hi, t, t - _SLACK, _PREFIX_K, index.sizes, postings.probe_len, postings.ptr,
        postings.entries, postings.bits, postings.item_ptr, postings.item_idx,
        postings.run_end, float(pairs_per_read), SCAN_ROWS_PER_FLAGGED_SHINGLE)
    a, b = index.order[r], index.order[c]
    pairs = PairScores(i=np.minimum(a, b), j=np.maximum(a, b), score=score)
    return JoinResult(pairs=pairs, threshold=t, candidates=int(n_cand), verified=int(n_verified))


def _i64(values: np.ndarray) -> np.ndarray:
    return np.asarray(values, dtype=np.int64)


def _empty_result(t: float) -> JoinResult:
    z = np.zeros(0, dtype=np.int64)
    return JoinResult(PairScores(z, z.copy(), np.zeros(0)), t, 0, 0)


def merge_blocks(parts: list[JoinResult], threshold: float) -> JoinResult:
    """Concatenate block results and sort the pairs by ``(i, j)``.

    The order is a pure function of the pairs, so the merge gives the same
    arrays whatever order (or machine) the blocks ran in.
    """
    if not parts:
        return _empty_result(threshold)
    i = np.concatenate([p.pairs.i for p in parts]).astype(np.int64)
    j = np.concatenate([p.pairs.j for p in parts]).astype(np.int64)
    s = np.concatenate([p.pairs.score for p in parts])
    order = np.lexsort((j, i))
    return JoinResult(
        pairs=PairScores(i=i[order], j=j[order], score=s[order]),
        threshold=threshold,
        candidates=sum(p.candidates for p in parts),
        verified=sum(p.verified for p in parts),
    )


def threshold_join(
    shingled: ShingleMatrix,
    threshold: float,
    block: int = DEFAULT_JOIN_BLOCK,
    progress: Callable[[Iterator], Iterator] | None = None,
    kernel: str = "auto",
    scan: bool = True,
) -> JoinResult:
    """Every pair ``i < j`` with exact Jaccard ``>= threshold``, without the ``N x N`` matrix.

    Args:
        shingled: Items as a shingle matrix.
        threshold: ``t`` in ``(0, 1]``.
        block: Size-sorted rows per block (memory knob only; the result does not
            depend on it).
        progress: Optional wrapper of the block iterator (e.g. a progress bar).
        kernel: ``"numpy"`` (a sparse product per block, :func:`join_block`),
            ``"numba"`` (compiled, :func:`join_block_compiled`) or ``"auto"``
            (numba from :data:`NUMBA_MIN_SHINGLES` on). Same pairs and scores
            whichever (``candidates`` and ``verified`` count each path's stages).
        scan: Whether the compiled kernel may send a row through its bitmap scan
            where that costs less (:data:`SCAN_PAIRS_PER_READ`,
            :data:`SCAN_ROWS_PER_FLAGGED_SHINGLE`); False keeps every row on the
            prefix route. Same pairs and scores either way.

    Returns:
        A :class:`JoinResult`; ``result.pairs`` sorted by ``(i, j)`` with float64
        scores identical to ``jaccard_matrix`` at those pairs. Every pair is held:
        where they may not fit, take the blocks one by one (:func:`join_blocks`).

    Examples:
        >>> from newsdedup.text.shingle import shingle_matrix
        >>> r = threshold_join(shingle_matrix(["abcde", "abcdf", "xyz", "abcde"], 3), 0.5)
        >>> r.pairs.i.tolist(), r.pairs.j.tolist(), r.pairs.score.tolist()
        ([0, 0, 1], [1, 3, 3], [0.5, 1.0, 0.5])
    """
    threshold = _check_threshold(threshold)
    return merge_blocks(list(join_blocks(shingled, threshold, block, progress, kernel, scan)),
                        threshold)


def join_blocks(
    shingled: ShingleMatrix,
    threshold: float,
    block: int = DEFAULT_JOIN_BLOCK,
    progress: Callable[[Iterator], Iterator] | None = None,
    kernel: str = "auto",
    scan: bool = True,
) -> Iterator[JoinResult]:
    """:func:`threshold_join` one row block at a time: memory of one block's pairs, not all.

    Yields each block's :class:`JoinResult` (its pairs in no particular order;
    every pair of the join in exactly one block), in block order. Either
    kernel runs two blocks at a time on two threads (the compiled one and
    scipy's sparse products release the GIL) and at most two more wait, so at
    most four blocks' pairs are held at once.

    Examples:
        >>> from newsdedup.text.shingle import shingle_matrix
        >>> sm = shingle_matrix(["abcde", "abcdf", "xyz", "abcde"], 3)
        >>> sum(len(r.pairs) for r in join_blocks(sm, 0.5, block=1))
        3
    """
    if kernel not in JOIN_KERNELS:
        raise ValueError(f"unknown kernel {kernel!r}; choose one of {JOIN_KERNELS}")
    compiled = kernel == "numba" or (kernel == "auto"
                                     and shingled.matrix.nnz >= NUMBA_MIN_SHINGLES)
    index = build_index(shingled, threshold, compiled=compiled)
    ranges = index.blocks(block)
    it = iter(ranges) if progress is None else progress(iter(ranges))
    run_block: Callable[[int, int], JoinResult] = partial(join_block, index)
    if compiled:
        from newsdedup.score.join_kernels import MidPostings

        postings = MidPostings.of(index, index.threshold - _SLACK, _PREFIX_K)
        # Read at call time (tests force a route by setting the module's value).
        price = SCAN_PAIRS_PER_READ if scan else 0.0
        run_block = partial(join_block_compiled, index, postings, pairs_per_read=price)
    # Both kernels spend their time outside the GIL (numba's nogil loops; scipy's
    # sparse product, element-wise product and row gather): blocks run two at a time,
    # at most two waiting, so a progress bar on ``it`` follows the work, and come out
    # in block order. Measured on 100k English headlines at t = 0.1 (numpy kernel,
    # 3.4M pairs): 42.3 s on one thread, 21.8 s on two, peak RSS 0.80 -> 1.03 GB.
    running: deque = deque()
    with ThreadPoolExecutor(max_workers=2) as pool:
        for lo, hi in it:
            running.append(pool.submit(run_block, lo, hi))
            if len(running) > 2:
                yield running.popleft().result()
        while running:
            yield running.popleft().result()


GATHER_PAIRS = 1 << 20
"""Pairs :func:`gathered_pairs` collects before it hands a piece on (about 24 MB with scores).

A streamed join's blocks are small (:func:`stream_block`: 16 rows at 100k
items), and a consumer's per-piece cost (a histogram, a search per threshold,
the estimates) is mostly fixed: on 100k English headlines the sampled
measurement's 18,750 blocks cost 10 s of bookkeeping for 1.2M pairs, one
piece per n-gram size a fraction of a second."""


def gathered_pairs(parts: Iterable[JoinResult], min_pairs: int = GATHER_PAIRS
                   ) -> Iterator[PairScores]:
    """The pairs of successive join blocks, in pieces of at least ``min_pairs`` (the last: any).

    Blocks are joined in order, so the pieces concatenate to the blocks' pairs
    in the same order; a piece holds fewer than ``min_pairs`` plus one
    block's pairs. For consumers whose result does not depend on how the pairs
    are split (counts, exact sums, a top list with a total order).

    Examples:
        >>> blocks = [JoinResult(PairScores(np.array([k]), np.array([k + 1]), np.array([.5])),
        ...                      0.5, 1, 1) for k in range(5)]
        >>> [p.i.tolist() for p in gathered_pairs(blocks, 2)]
        [[0, 1], [2, 3], [4]]
    """
    if min_pairs < 1:
        raise ValueError(f"min_pairs must be >= 1, got {min_pairs}")
    held: list[PairScores] = []
    count = 0
    for part in parts:
        if not len(part.pairs):
            continue
        held.append(part.pairs)
        count += len(part.pairs)
        if count >= min_pairs:
            yield _concat(held)
            held, count = [], 0
    if held:
        yield _concat(held)


def _concat(pieces: list[PairScores]) -> PairScores:
    if len(pieces) == 1:
        return pieces[0]
    return PairScores(np.concatenate([p.i for p in pieces]),
                      np.concatenate([p.j for p in pieces]),
                      np.concatenate([p.score for p in pieces]))


@dataclass(frozen=True)
class TopK:
    """The ``k`` best neighbours of every item among pairs at or above a threshold.

    Attributes:
        neighbour: ``int64 (N, k)``, best first (score descending, then index
            ascending); ``-1`` where an item has fewer than ``k`` such neighbours.
        score: ``float64 (N, k)``; NaN where ``neighbour`` is ``-1``.
    """

    neighbour: np.ndarray
    score: np.ndarray


def top_k(pairs: PairScores, n_items: int, k: int) -> TopK:
    """Top-``k`` neighbours per item from a list of scored pairs (e.g. a join's).

    Neighbours scoring below the join threshold are not in ``pairs`` and are
    therefore not listed: run the join at the lowest score you want to see.

    Args:
        pairs: Pairs ``i < j`` with scores (each counts for both items).
        n_items: Number of items ``N`` (every index must be below it).
        k: Neighbours per item, ``k >= 1``.

    Returns:
        A :class:`TopK`.

    Examples:
        >>> ps = PairScores(np.array([0, 0, 1]), np.array([1, 2, 2]), np.array([0.5, 0.7, 0.5]))
        >>> top_k(ps, 4, 2).neighbour.tolist()
        [[2, 1], [0, 2], [0, 1], [-1, -1]]
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if len(pairs) and max(int(pairs.i.max()), int(pairs.j.max())) >= n_items:
        raise ValueError(f"pair index out of range for n_items={n_items}")
    src = np.concatenate((pairs.i, pairs.j)).astype(np.int64)
    dst = np.concatenate((pairs.j, pairs.i)).astype(np.int64)
    sc = np.concatenate((pairs.score, pairs.score))
    order = np.lexsort((dst, -sc, src))
    src, dst, sc = src[order], dst[order], sc[order]
    start = np.searchsorted(src, np.arange(n_items))
    rank = np.arange(len(src)) - start[src]
    take = rank < k
    neighbour = np.full((n_items, k), -1, dtype=np.int64)
    score = np.full((n_items, k), np.nan)
    neighbour[src[take], rank[take]] = dst[take]
    score[src[take], rank[take]] = sc[take]
    return TopK(neighbour=neighbour, score=score)


def pair_histogram(
    pairs: PairScores, edges: np.ndarray | list[float], total_pairs: int
) -> tuple[np.ndarray, int]:
    """Histogram of listed pairs; every pair not listed counts as below the first edge.

    Args:
        pairs: Scored pairs, e.g. a join at ``edges[0]`` (all pairs >= the first edge).
        edges: Increasing bin edges from ``>= 0`` to ``>= 1.0``.
        total_pairs: All pairs of the collection, ``N (N - 1) / 2``.

    Returns:
        ``(counts, below)``: ``int64`` counts per bin and the number of pairs below
        ``edges[0]``; ``counts.sum() + below == total_pairs``.
    """
    e = check_edges(edges)
    s = pairs.score
    inside = s >= e[0]
    counts = np.bincount(bin_of(s[inside], e), minlength=len(e) - 1).astype(np.int64)
    return counts, int(total_pairs - counts.sum())


def score_histogram(
    shingled: ShingleMatrix, edges: np.ndarray | list[float], block: int = DEFAULT_JOIN_BLOCK
) -> tuple[np.ndarray, int]:
    """Exact histogram of the Jaccard scores of all ``N (N - 1) / 2`` pairs, streamed.

    With ``edges[0] > 0`` only pairs reaching ``edges[0]`` matter and the
    threshold join supplies them. With ``edges[0] == 0`` every pair is binned:
    rows are streamed in blocks through the sparse product (memory
    ``O(block x N)``, never ``N x N``), and pairs sharing no shingle -- most of
    them -- are counted without being listed.

    Args:
        shingled: Items as a shingle matrix.
        edges: Increasing bin edges from ``>= 0`` to ``>= 1.0``; bin ``k`` is
            ``[edges[k], edges[k+1])``, the last one closed.
        block: Rows per sparse product (memory knob only).

    Returns:
        ``(counts, below)`` as in :func:`pair_histogram`.

    Examples:
        >>> from newsdedup.text.shingle import shingle_matrix
        >>> m = shingle_matrix(["abcde", "abcdf", "xyz"], 3)
        >>> score_histogram(m, [0.0, 0.5, 1.0])
        (array([2, 1]), 0)
    """
    e = check_edges(edges)
    n = shingled.n_items
    total = n * (n - 1) // 2
    if e[0] > 0:
        return pair_histogram(threshold_join(shingled, e[0], block).pairs, e, total)
    x = shingled.matrix.tocsr()
    sizes = shingled.sizes
    counts = np.zeros(len(e) - 1, dtype=np.int64)
    listed = 0
    for lo in range(0, n, block):
        hi = min(lo + block, n)
        inter = (x[lo:hi] @ x[lo:].T).tocoo()
        r = inter.row.astype(np.int64) + lo
        c = inter.col.astype(np.int64) + lo
        up = c > r
        r, c, v = r[up], c[up], inter.data[up].astype(np.int64)
        union = sizes[r] + sizes[c] - v
        s = np.zeros(len(v), dtype=np.float64)
        np.divide(v, union, out=s, where=union > 0)
        counts += np.bincount(bin_of(s, e), minlength=len(e) - 1)
        listed += len(v)
    counts[bin_of(np.zeros(1), e)[0]] += total - listed  # pairs sharing no shingle score 0.0
    return counts, 0


HISTOGRAM_STEP = 0.05
"""Width of the score bins written by :func:`write_join`."""

"""Compiled (numba) kernels of the exact threshold join (:mod:`newsdedup.score.join`).

:class:`MidPostings` lays out what they read besides the join index (posting
lists of the mid prefixes, word-major bitmaps, runs of equal sizes).

:func:`join_rows` finds, for each size-sorted row ``c`` of a block, every
earlier row ``r`` with Jaccard ``>= t``, by one of two exact routes chosen per
row from what each would cost:

* **Prefix route** (pkwise prefix filter). Row ``c`` walks its probe prefix
  and counts the earlier rows through the posting lists of their mid
  prefixes; a posting entry counts only while ``c`` is small enough for the
  shingle to lie inside the earlier row's pair-specific prefix (each entry
  carries that largest size, so the test is one comparison), and the counting
  is branch-free. Rows that reach ``min(k, a)`` shared prefix shingles go on
  to the bitmap bound and the exact intersection. Cheap where posting lists
  are short (Korean syllable trigrams).
* **Scan route** (bitmap bound over the length window). Where the posting
  lists inside the length window are long -- English letter trigrams, whose
  prefixes at ``t = 0.3`` hold ~70% of each set and whose lists of common
  trigrams are read billions of times -- reading them costs more than
  testing every row of the window against the 512-bit bitmap bound
  ``|x & y| <= (|x| + |y| - popcount(x ^ y)) / 2``. The bitmaps are stored
  word-major, so the test runs 8 or 16 rows per vector instruction, in
  tiles of rows and chunks of columns that stay in cache. The bound is
  valid for every pair, so the scan misses nothing. It is weak at low
  thresholds and for long items whose maps are mostly set: every window
  row it flags is intersected, and the flagged rows that score below ``t``
  are priced in from a sample of the window before a row is sent here.

Both routes end in the same exact test: the intersection of the two sorted
rank lists and the float64 ``inter / union`` of the brute-force path, kept if
``>= t``; the pairs and scores are therefore exactly those of brute force
whichever route a row takes (tested both ways). The route is a pure function
of the data, so results and their order are deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from newsdedup.paths import configure_numba_cache

configure_numba_cache()  # before numba's import: it reads NUMBA_CACHE_DIR once

from numba import njit  # noqa: E402

SCAN_TILE = 256
"""Rows tested together against one chunk of the window (they share its cache lines)."""

SCAN_CHUNK = 256
"""Window rows per chunk: 8 bitmap words x 256 rows = 16 KB, one L1 cache."""

BITMAP_WORDS = 8
"""512-bit maps: the join index's ``bitmap`` width, which the unrolled loops assume."""

PAD = 16
"""Zero columns after the word-major bitmaps: vector loops round ranges up to 16 rows."""


@njit(cache=True, nogil=True)
def _popcount64(x):  # pragma: no cover - compiled
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@njit(cache=True, nogil=True)
def _grow(buf, size):  # pragma: no cover - compiled
    if size < buf.shape[0]:
        return buf
    out = np.empty(2 * buf.shape[0], dtype=buf.dtype)
    out[: buf.shape[0]] = buf
    return out


@njit(cache=True)
def rank_rows(indptr, indices, order, rank):  # pragma: no cover - compiled
    """Rows ``order`` of a CSR matrix as their columns' ranks, each row sorted ascending.

    The compiled twin of relabelling columns by ``rank`` and sorting by (row,
    rank) in :func:`newsdedup.score.join.build_index`; same values.

    Returns:
        ``int64`` ranks of all rows, concatenated in the order of ``order``.
    """
    total = 0
    for k in range(order.shape[0]):
        total += indptr[order[k] + 1] - indptr[order[k]]
    out = np.empty(total, dtype=np.int64)
    at = 0
    for k in range(order.shape[0]):
        lo, hi = indptr[order[k]], indptr[order[k] + 1]
        for q in range(lo, hi):
            out[at + q - lo] = rank[indices[q]]
        out[at : at + hi - lo].sort()
        at += hi - lo
    return out


@njit(cache=True)
def row_bitmaps(ranks, indptr, words):  # pragma: no cover - compiled
    """``uint64 (rows, words)``: bit ``rank % (64 words)`` set for each rank of each row."""
    n_bits = np.int64(64 * words)
    out = np.zeros((indptr.shape[0] - 1, words), dtype=np.uint64)
    for r in range(indptr.shape[0] - 1):
        for q in range(indptr[r], indptr[r + 1]):
            bit = ranks[q] % n_bits
            out[r, bit // 64] |= np.uint64(1) << np.uint64(bit % 64)
    return out


@njit(cache=True)
def prefix_last_sizes(pos, size, q, k):  # pragma: no cover - compiled
    """Largest probe size for which a mid-prefix entry lies inside its pair-specific prefix.

    An entry at position ``pos`` of a row of size ``s`` counts for a probe row
    of size ``sc`` when ``pos < s - ceil(q (s + sc)) + k`` (the probe kernel's
    test, in the same float64 operations). ``ceil(q (s + sc))`` never
    decreases with ``sc``, so the sizes that pass are those up to a last one;
    this returns it (below ``s`` when the entry never counts; capped at
    ``2**31 - 1``).
    """
    out = np.empty(pos.shape[0], dtype=np.int32)
    cap = np.int64(2**31 - 1)
    for z in range(pos.shape[0]):
        s = np.int64(size[z])
        room = s + k - 1 - np.int64(pos[z])  # ceil(q (s + sc)) <= room <=> q (s + sc) <= room
        if q <= 0.0 or room / q - s >= cap:
            out[z] = cap
            continue
        d = np.int64(np.floor(room / q)) - s
        while q * (s + d + 1) <= room:
            d += 1
        while d >= s - 1 and not q * (s + d) <= room:
            d -= 1
        out[z] = max(d, s - 1)
    return out


@njit(cache=True, nogil=True)
def _exact_score(r, c, sizes, item_ptr, item_idx, q):  # pragma: no cover - compiled
    """Jaccard of rows ``r`` and ``c``, or -1.0 once it cannot reach ``t`` (``q = t / (1 + t)``).

    The intersection of their sorted ranks, and ``inter / union`` in float64 as
    brute force computes it. The merge stops when the shingles left cannot
    lift the intersection to ``ceil(q (|r| + |c|)) - 1``, one below the least
    that can score ``t`` whatever the rounding (a positional filter): most
    pairs a weak bound lets through fail early, while matching pairs
    (templated titles) test it only at their few mismatches.
    """
    pi, ei = item_ptr[r], item_ptr[r + 1]
    pj, ej = item_ptr[c], item_ptr[c + 1]
    total = sizes[r] + sizes[c]
    if total == 0:
        return 0.0
    short = np.int64(np.ceil(q * total)) - 1
    inter = np.int64(0)
    while pi < ei and pj < ej:
        u, v = item_idx[pi], item_idx[pj]
        if u == v:
            inter += 1
            pi += 1
            pj += 1
        else:
            if u < v:
                pi += 1
            else:
                pj += 1
            # Only a mismatch lowers what the intersection can still reach.
            if inter + min(ei - pi, ej - pj) < short:
                return -1.0
    return inter / (total - inter)


@njit(cache=True, nogil=True)
def _bitmap_distance(bits, r, c):  # pragma: no cover - compiled
    """``popcount(map_r ^ map_c)``: shingles of the symmetric difference, a lower bound."""
    d = np.uint64(0)
    for w in range(BITMAP_WORDS):
        d += _popcount64(bits[w, r] ^ bits[w, c])
    return np.int64(d)


@njit(cache=True, nogil=True)
def _flag_rows(bits, lo, hi, c, limit, flags):  # pragma: no cover - compiled
    """Flag the rows of ``[lo, hi)`` within ``limit`` of row ``c`` on the 512-bit maps.

    ``popcount(map_r ^ map_c) <= limit``, the bitmap bound, for every row:
    the word-major maps let the loop test 8 rows per AVX-512 instruction
    (``vpopcntq`` where the CPU has it). A 256-bit folded pre-test (the OR of
    each map's halves) does half the work per row but flags ~1% of English
    window rows at ``t = 0.3`` against ~0.005% for the full maps, and reading
    those flags back cost more than the words it saved (6.0 s against 4.3-4.8 s
    single-threaded at 100k English items). ``[lo, hi)`` is a row range
    widened to multiples of 16 rows (the columns are padded), so the loop
    vectorizes without a scalar tail; the caller drops flagged rows outside
    its range. Unsigned indices spare the loop numba's negative-index
    wraparound, which would stop its vectorization.
    """
    c0, c1, c2, c3 = bits[0, c], bits[1, c], bits[2, c], bits[3, c]
    c4, c5, c6, c7 = bits[4, c], bits[5, c], bits[6, c], bits[7, c]
    f0, f1, f2, f3 = bits[0], bits[1], bits[2], bits[3]
    f4, f5, f6, f7 = bits[4], bits[5], bits[6], bits[7]
    ulo, lim = np.uint64(lo), np.uint64(max(limit, -1) + 1)
    for r in range(ulo, np.uint64(hi)):
        d = (_popcount64(f0[r] ^ c0) + _popcount64(f1[r] ^ c1) + _popcount64(f2[r] ^ c2)
             + _popcount64(f3[r] ^ c3) + _popcount64(f4[r] ^ c4) + _popcount64(f5[r] ^ c5)
             + _popcount64(f6[r] ^ c6) + _popcount64(f7[r] ^ c7))
        flags[r - ulo] = np.uint8(d < lim)


@njit(cache=True, nogil=True)
def _emit(out_r, out_c, out_s, n, r, c, score):  # pragma: no cover - compiled
    out_r, out_c, out_s = _grow(out_r, n), _grow(out_c, n), _grow(out_s, n)
    out_r[n] = r
    out_c[n] = c
    out_s[n] = score
    return out_r, out_c, out_s, n + 1


@njit(cache=True, nogil=True)
def _flag_chunk(bits, sizes, ra, rb, r_lo, c, t_lo, q, flags):  # pragma: no cover - compiled
    """Flag the rows of chunk ``[ra, rb)`` inside row ``c``'s window ``[r_lo, c)`` (bitmap bound).

    Chunks never straddle a size run, so the bound's limit
    ``|r| + |c| - 2 ceil(q (|r| + |c|))`` on the distance, and the exact length
    test, hold for the whole chunk. ``flags[r - lo]`` is set for the flagged
    rows ``r`` of ``[a, b)``.

    Returns:
        ``(a, b, lo)``: the rows tested (none where ``a >= b``) and the offset of ``flags``.
    """
    sc, s_r = sizes[c], sizes[ra]
    a, b = max(ra, r_lo), min(rb, c)
    if a >= b or not t_lo * sc <= s_r:
        return a, a, a
    limit = s_r + sc - 2 * np.int64(np.ceil(q * (s_r + sc)))
    lo, hi = a - a % 16, b + (16 - b % 16) % 16
    _flag_rows(bits, lo, hi, c, limit, flags)
    return a, b, lo


@njit(cache=True, nogil=True)
def _scan_rows(rows, r_los, t, t_lo, sizes, run_end, bits, item_ptr, item_idx,
               out):  # pragma: no cover - compiled
    """Scan route for ``rows`` (ascending), each against its window ``[r_los[y], rows[y])``.

    Tiles of rows meet the window chunk by chunk (:func:`_flag_chunk`); rows
    flagged by the bitmap bound (read 8 flags to a word) are verified exactly.
    ``out`` is ``(out_r, out_c, out_s, n)``.

    Returns:
        ``(out, verified)``: the grown output and the pairs verified exactly.
    """
    out_r, out_c, out_s, n_out = out
    q = t_lo / (1.0 + t_lo)
    flags = np.zeros(SCAN_CHUNK + 2 * PAD, dtype=np.uint8)
    words = flags.view(np.uint64)
    verified = 0
    for t0 in range(0, rows.shape[0], SCAN_TILE):
        t1 = min(rows.shape[0], t0 + SCAN_TILE)
        ra, r_end = r_los[t0], rows[t1 - 1]  # windows of ascending rows start ascending
        while ra < r_end:
            rb = min(r_end, ra + SCAN_CHUNK, run_end[ra])
            for y in range(t0, t1):
                c = rows[y]
                a, b, lo = _flag_chunk(bits, sizes, ra, rb, r_los[y], c, t_lo, q, flags)
                if a >= b:
                    continue
                hi = b + (16 - b % 16) % 16
                for w in range((hi - lo) // 8):
                    if words[w] == 0:
                        continue
                    for r in range(max(a, lo + 8 * w), min(b, lo + 8 * w + 8)):
                        if flags[r - lo]:
                            verified += 1
                            score = _exact_score(r, c, sizes, item_ptr, item_idx, t / (1.0 + t))
                            if score >= t:
                                out_r, out_c, out_s, n_out = _emit(out_r, out_c, out_s, n_out,
                                                                   r, c, score)
            ra = rb
    return (out_r, out_c, out_s, n_out), verified


SAMPLE_EVERY = 32
"""The scan's cost estimate tests one chunk of the window in this many (:func:`_sampled_flags`).

Where flagged rows cost (thousands per row), a 32nd of a 100k window still
meets hundreds; where few are flagged the estimate is rough but the scan's
bitmap tests dominate its cost. At 0.5 on 100k distinct English headlines,
where nearly every row is weighed and few are flagged, one chunk in eight
(with a second walk of each row's prefix) made the join 2.3-2.6 s where the
price per read alone took 1.9-2.2 s; one in 32, and no second walk for rows
with nothing flagged, 1.9-2.1 s."""

SAMPLE_CHECKS = 8
"""Flagged rows per row intersected exactly where it matters: matches, or the bound's misses."""


@njit(cache=True, nogil=True)
def _sampled_flags(rows, r_los, t_lo, sizes, run_end, bits, every,
                   checks):  # pragma: no cover - compiled
    """Estimated rows of each window the scan would flag, and the first flagged rows.

    The same tiles and chunks as :func:`_scan_rows`, flags counted but not
    verified, on the chunks whose position along the tile's span is a
    multiple of ``every``: a row's estimate is its flagged share of the
    sampled window rows times its window. Where a row's bitmap is saturated
    (long items: 300 letter trigrams fill most of 512 bits) or the threshold
    is low, thousands of window rows pass the bound, and their exact
    intersections, not the bitmap tests, are what the scan costs.

    Returns:
        ``(flagged, first)``: ``float64`` estimates, one per row (0 where no
        sampled chunk met its window), and ``int64 (rows, checks)``, the first
        flagged rows met (-1 after the last).
    """
    q = t_lo / (1.0 + t_lo)
    flags = np.zeros(SCAN_CHUNK + 2 * PAD, dtype=np.uint8)
    hit = np.zeros(rows.shape[0], dtype=np.int64)
    seen = np.zeros(rows.shape[0], dtype=np.int64)
    first = np.full((rows.shape[0], checks), -1, dtype=np.int64)
    for t0 in range(0, rows.shape[0], SCAN_TILE):
        t1 = min(rows.shape[0], t0 + SCAN_TILE)
        ra, r_end = r_los[t0], rows[t1 - 1]
        chunk = 0
        while ra < r_end:
            rb = min(r_end, ra + SCAN_CHUNK, run_end[ra])
            if chunk % every == 0:
                for y in range(t0, t1):
                    a, b, lo = _flag_chunk(bits, sizes, ra, rb, r_los[y], rows[y], t_lo, q,
                                           flags)
                    for r in range(a, b):
                        if flags[r - lo]:
                            if hit[y] < checks:
                                first[y, hit[y]] = r
                            hit[y] += 1
                    seen[y] += b - a
            chunk += 1
            ra = rb
    flagged = np.zeros(rows.shape[0], dtype=np.float64)
    for y in range(rows.shape[0]):
        if seen[y] > 0:
            flagged[y] = hit[y] * ((rows[y] - r_los[y]) / seen[y])
    return flagged, first


@njit(cache=True, nogil=True)
def _missed_share(c, first, t, sizes, item_ptr, item_idx):  # pragma: no cover - compiled
    """Share of the flagged rows ``first`` (-1: none) whose pair with ``c`` scores below ``t``.

    Pairs at or above ``t`` are intersected by either route (templated titles
    flag thousands of true matches, at no cost the prefix route would not
    pay); the scan's own cost is the flagged rows that fail.
    """
    checked = missed = 0
    for r in first:
        if r < 0:
            break
        checked += 1
        if _exact_score(r, c, sizes, item_ptr, item_idx, t / (1.0 + t)) < t:
            missed += 1
    return missed / checked if checked else 0.0


@njit(cache=True, nogil=True)
def _prefix_ranges(c, r_lo, k, q, sizes, probe_len, post_ptr, entries, item_idx, item_ptr,
                   zs, ze, budget):  # pragma: no cover - compiled
    """Posting ranges ``[zs[i], ze[i])`` row ``c``'s probe prefix reads; -1 past ``budget``.

    Position ``i`` of the probe prefix is read only against earlier rows up
    to ``|r| <= (|c| - i + k - 1) / q - |c|`` (beyond, ``i`` lies outside
    ``c``'s pair-specific prefix), a bound that only shrinks along the prefix.

    Returns:
        The number of prefix positions to read, or -1 when the ranges hold
        more than ``budget`` entries (the scan route is cheaper).
    """
    sc = sizes[c]
    base = item_ptr[c]
    reads = 0
    n = 0
    for i in range(probe_len[c]):
        smax = (sc - i + k - 1) / q - sc
        r_hi = min(c, np.searchsorted(sizes, smax * (1.0 + 1e-12) + 1e-9, side="right"))
        if r_hi <= r_lo:
            break
        tok = item_idx[base + i]
        a, b = post_ptr[tok], post_ptr[tok + 1]
        listed = entries[a:b, 0]
        zs[i] = a + np.searchsorted(listed, r_lo, side="left")
        ze[i] = a + np.searchsorted(listed, r_hi, side="left")
        reads += ze[i] - zs[i]
        n = i + 1
        if reads > budget:
            return -1
    return n


@njit(cache=True, nogil=True)
def _count_shared(c, stamp, n, k, r_k, q, sizes, entries, zs, ze, seen,
                  cand):  # pragma: no cover - compiled
    """Rows sharing ``min(k, a)`` pair-prefix shingles with row ``c``, in the order reached.

    ``seen[r]`` holds ``stamp + count`` (count capped at 255; an older stamp
    reads as 0), updated without a branch per entry: ``entries[z]`` is
    ``(row, last)`` and counts when ``|c| <= last``. Rows from ``r_k`` on
    need ``k`` shared shingles, smaller ones ``a = ceil(q (|r| + |c|)) < k``.

    Returns:
        ``(cand, n_c)``.
    """
    sc = sizes[c]
    n_c = 0
    for i in range(n):
        for z in range(zs[i], ze[i]):
            r = entries[z, 0]
            alive = np.int32(entries[z, 1] >= sc)
            count = max(seen[r], stamp) - stamp + alive
            seen[r] = stamp + min(count, np.int32(255))
            if count == k and alive:
                if r >= r_k:
                    cand = _grow(cand, n_c)
                    cand[n_c] = r
                    n_c += 1
            elif alive and r < r_k and count == np.ceil(q * (sizes[r] + sc)):
                cand = _grow(cand, n_c)
                cand[n_c] = r
                n_c += 1
    return cand, n_c


@njit(cache=True, nogil=True)
def _small_need_end(c, r_lo, k, q, sizes):  # pragma: no cover - compiled
    """First row from ``r_lo`` on whose pairs with ``c`` need ``k`` or more shared shingles."""
    sc = sizes[c]
    s = sizes[r_lo]
    while s <= sc and np.ceil(q * (s + sc)) < k:
        s += 1
    return np.searchsorted(sizes, s, side="left")


@njit(cache=True, nogil=True)
def _verify(c, cand, n_c, t, t_lo, q, sizes, bits, item_ptr, item_idx,
            out):  # pragma: no cover - compiled
    """Length test, bitmap bound and exact score of the prefix route's candidates of row ``c``.

    Returns:
        ``(out, candidates, verified)``: candidates passing the length test,
        and those also passing the bitmap bound.
    """
    out_r, out_c, out_s, n_out = out
    sc = sizes[c]
    n_cand = n_verified = 0
    for y in range(n_c):
        r = cand[y]
        s_r = sizes[r]
        if not t_lo * sc <= s_r:
            continue
        n_cand += 1
        if _bitmap_distance(bits, r, c) > s_r + sc - 2 * np.ceil(q * (s_r + sc)):
            continue
        n_verified += 1
        score = _exact_score(r, c, sizes, item_ptr, item_idx, t / (1.0 + t))
        if score >= t:
            out_r, out_c, out_s, n_out = _emit(out_r, out_c, out_s, n_out, r, c, score)
    return (out_r, out_c, out_s, n_out), n_cand, n_verified


@dataclass(frozen=True)
class MidPostings:
    """What :func:`join_rows` reads besides the join index: postings, bitmaps, size runs.

    Attributes:
        ptr: Start of each rank's posting list in ``entries`` (``int64``, ranks + 1).
        entries: ``int32 (n, 2)``: per posting, a size-sorted row holding the rank in
            its mid prefix (ascending within a list) and the largest probe-row size
            for which the rank lies inside that row's pair-specific prefix
            (entries that never do are left out).
        probe_len: Probe-prefix length of every row.
        bits: The index's 512-bit maps word-major, ``uint64 (8, rows + 16)``,
            zero-padded so vector loops can round row ranges up to 16.
        run_end: For every row, the end of the run of rows of its size.
        item_ptr, item_idx: The index's rank lists (``int64`` pointers, ``int32`` ranks).
    """

    ptr: np.ndarray
    entries: np.ndarray
    probe_len: np.ndarray
    bits: np.ndarray
    run_end: np.ndarray
    item_ptr: np.ndarray
    item_idx: np.ndarray

    @classmethod
    def of(cls, index, t_lo: float, k: int) -> MidPostings:
        """The postings, word-major bitmaps and size runs of a join index.

        Args:
            index: A :class:`newsdedup.score.join.JoinIndex` (not imported here:
                the join imports this module).
            t_lo: The threshold less the filters' slack, as the kernels use it.
            k: Shared prefix shingles a pair needs (the pkwise ``k``).
        """
        mid, sizes = index.mid, index.sizes
        # Every array here has one entry per mid-prefix shingle (tens of millions at 1M
        # headlines), so each is built once and the temporaries go as soon as they are
        # used: this was the peak of a 1M-item `measure`.
        # Positions + 1 as data: a stored 0 would be dropped by the conversion.
        data = np.arange(1, mid.nnz + 1, dtype=np.int64)
        data -= np.repeat(mid.indptr[:-1], np.diff(mid.indptr))
        by_rank = sp.csr_matrix((data, mid.indices, mid.indptr), shape=mid.shape).tocsc()
        del data
        by_rank.sort_indices()
        row = by_rank.indices  # an index only: its own dtype does
        row_size = sizes[row]
        by_rank.data -= 1  # the positions again, in place
        last = prefix_last_sizes(by_rank.data, row_size, t_lo / (1.0 + t_lo), k)
        keep = last >= row_size
        del row_size
        # Entries stay in rank order, so a rank's list starts after the kept entries of
        # the ranks before it.
        kept_before = np.concatenate(([0], np.cumsum(keep, dtype=np.int64)))
        ptr = kept_before[by_rank.indptr]
        del kept_before
        # int32 pairs: the lists are streamed once per probing row, the join's memory traffic.
        entries = np.empty((int(ptr[-1]), 2), dtype=np.int32)
        entries[:, 0] = row[keep]
        entries[:, 1] = last[keep]
        del by_rank, row, last, keep
        m = len(sizes)
        if index.bitmap.shape[1] != BITMAP_WORDS:
            raise ValueError(f"the compiled join needs {BITMAP_WORDS}-word bitmaps")
        bits = np.zeros((BITMAP_WORDS, m + PAD), dtype=np.uint64)
        bits[:, :m] = index.bitmap.T
        starts = np.flatnonzero(np.r_[True, sizes[1:] != sizes[:-1]])[: m]  # none if m == 0
        ends = np.r_[starts[1:], m][: len(starts)]
        return cls(ptr=_as_i64(ptr), entries=entries,
                   probe_len=_as_i64(np.diff(index.prefix.indptr)), bits=bits,
                   run_end=_as_i64(np.repeat(ends, ends - starts)),
                   item_ptr=_as_i64(index.items.indptr),
                   item_idx=index.items.indices.astype(np.int32))


@njit(cache=True, nogil=True)
def join_rows(lo, hi, t, t_lo, k, sizes, probe_len, post_ptr, entries, bits, item_ptr,
              item_idx, run_end, pairs_per_read, rows_per_flagged_shingle=0.0
              ):  # pragma: no cover - compiled
    """Every pair ``(r, c)``, ``r < c``, with Jaccard ``>= t``, for the rows ``c`` in ``[lo, hi)``.

    A row's route is priced in window rows tested on bitmaps. Its prefix
    route costs ``pairs_per_read`` per posting entry it would read; its scan
    costs the ``window`` of earlier rows the length filter admits, plus
    ``rows_per_flagged_shingle`` times its size for every window row the
    bitmap bound would flag that scores below ``t`` (each is intersected
    exactly in vain; the count is estimated from a sample of the window,
    :func:`_sampled_flags`). A row
    takes the prefix route at once when its reads stay within
    ``window / pairs_per_read`` (the scan cannot be cheaper); the others
    take whichever route costs less. ``pairs_per_read <= 0``: every row
    takes the prefix route. Either route gives the same pairs and scores
    (module docstring).

    Returns:
        ``(r, c, score, candidates, verified, scanned_rows)``.
    """
    q = t_lo / (1.0 + t_lo)
    seen = np.zeros(sizes.shape[0], dtype=np.int32)
    longest = 1
    for c in range(lo, hi):
        longest = max(longest, probe_len[c])
    zs, ze = np.empty(longest, np.int64), np.empty(longest, np.int64)
    cand = np.empty(1024, dtype=np.int64)
    out = (np.empty(1024, np.int64), np.empty(1024, np.int64), np.empty(1024, np.float64), 0)
    heavy, heavy_lo = np.empty(hi - lo, np.int64), np.empty(hi - lo, np.int64)
    n_heavy = n_cand = n_verified = 0
    served = 0  # rows counted so far: their stamps must grow (heavy rows come last)
    for c in range(lo, hi):
        sc = sizes[c]
        r_lo = np.searchsorted(sizes, t_lo * sc * (1.0 - 1e-12) - 1.0, side="left")
        if r_lo >= c:
            continue
        budget = np.inf if pairs_per_read <= 0 else (c - r_lo) / pairs_per_read
        n = _prefix_ranges(c, r_lo, k, q, sizes, probe_len, post_ptr, entries, item_idx,
                           item_ptr, zs, ze, budget)
        if n < 0:
            heavy[n_heavy], heavy_lo[n_heavy] = c, r_lo
            n_heavy += 1
            continue
        out, cand, n_new, n_ok = _prefix_route(c, r_lo, n, served, t, t_lo, k, q, sizes,
                                               entries, zs, ze, seen, cand, bits, item_ptr,
                                               item_idx, out)
        served += 1
        n_cand += n_new
        n_verified += n_ok
    flagged, first = _sampled_flags(heavy[:n_heavy], heavy_lo[:n_heavy], t_lo, sizes, run_end,
                                    bits, SAMPLE_EVERY, SAMPLE_CHECKS)
    scan, scan_lo = np.empty(n_heavy, np.int64), np.empty(n_heavy, np.int64)
    n_scan = 0
    for y in range(n_heavy):
        c, r_lo = heavy[y], heavy_lo[y]
        most = (c - r_lo) + rows_per_flagged_shingle * sizes[c] * flagged[y]
        # Reads past ``most`` cost more than the scan even if every flagged row failed (with
        # none flagged, the first pass already found them past the window's price).
        n = -1
        if flagged[y] > 0:
            n = _prefix_ranges(c, r_lo, k, q, sizes, probe_len, post_ptr, entries, item_idx,
                               item_ptr, zs, ze, most / pairs_per_read)
        if n >= 0:
            reads = 0
            for i in range(n):
                reads += ze[i] - zs[i]
            cost = (c - r_lo) + rows_per_flagged_shingle * sizes[c] * flagged[y] * _missed_share(
                c, first[y], t, sizes, item_ptr, item_idx)
            if pairs_per_read * reads <= cost:
                out, cand, n_new, n_ok = _prefix_route(c, r_lo, n, served, t, t_lo, k, q, sizes,
                                                       entries, zs, ze, seen, cand, bits,
                                                       item_ptr, item_idx, out)
                served += 1
                n_cand += n_new
                n_verified += n_ok
                continue
        scan[n_scan], scan_lo[n_scan] = c, r_lo
        n_scan += 1
    out, n_ok = _scan_rows(scan[:n_scan], scan_lo[:n_scan], t, t_lo, sizes, run_end, bits,
                           item_ptr, item_idx, out)
    out_r, out_c, out_s, n_out = out
    return (out_r[:n_out], out_c[:n_out], out_s[:n_out], n_cand + n_ok, n_verified + n_ok,
            n_scan)


@njit(cache=True, nogil=True)
def _prefix_route(c, r_lo, n, served, t, t_lo, k, q, sizes, entries, zs, ze, seen, cand, bits,
                  item_ptr, item_idx, out):  # pragma: no cover - compiled
    """Row ``c`` by the prefix route over the ``n`` posting ranges ``zs``/``ze`` just computed.

    ``served`` rows have been counted before it in this call: its stamp in
    ``seen`` follows theirs (``seen`` is cleared every 2**22 rows, so that
    stamps stay below 2**30 in int32).

    Returns:
        ``(out, cand, candidates, verified)``: the grown buffers and the counts.
    """
    if served > 0 and served % (1 << 22) == 0:
        seen[:] = 0
    cand, n_c = _count_shared(c, np.int32((served % (1 << 22) + 1) << 8), n, k,
                              _small_need_end(c, r_lo, k, q, sizes), q, sizes, entries, zs, ze,
                              seen, cand)
    out, n_new, n_ok = _verify(c, cand, n_c, t, t_lo, q, sizes, bits, item_ptr, item_idx, out)
    return out, cand, n_new, n_ok


def _as_i64(values: np.ndarray) -> np.ndarray:
    return np.asarray(values, dtype=np.int64)

"""Compiled (numba) kernels of the large-input paths: signatures and bucket pairs.

Imported only where a step is large enough to repay numba's import and the
loading of its cached machine code (about half a second): the published
blocks on a few hundred items never import this module. Every kernel computes
exactly what its numpy counterpart computes, integer for integer and float
for float (tested against it); ``cache=True`` keeps the compiled code between
processes. The signature kernel releases the GIL (``nogil``), so callers
run disjoint parts of one job in two threads, with the same result. The
join's kernels are in :mod:`newsdedup.score.join_kernels`.
"""

from __future__ import annotations

import numpy as np

from newsdedup.paths import configure_numba_cache

configure_numba_cache()  # before numba's import: it reads NUMBA_CACHE_DIR once

from numba import njit  # noqa: E402

_P = np.uint64((1 << 61) - 1)
_LOW29 = np.uint64((1 << 29) - 1)
_LOW32 = np.uint64(0xFFFFFFFF)
_S29 = np.uint64(29)
_S32 = np.uint64(32)
_S61 = np.uint64(61)


def _crc_table() -> np.ndarray:
    """The byte table of CRC-32 (polynomial 0xEDB88320, as zlib's)."""
    table = np.zeros(256, dtype=np.uint32)
    for i in range(256):
        c = i
        for _ in range(8):
            c = (0xEDB88320 ^ (c >> 1)) if c & 1 else c >> 1
        table[i] = c
    return table


CRC_TABLE = _crc_table()


@njit(cache=True)
def _crc_byte(c, byte, table):  # pragma: no cover - compiled
    return table[(c ^ byte) & np.uint32(0xFF)] ^ (c >> np.uint32(8))


@njit(cache=True)
def crc32_of_codepoints(points, starts, table):  # pragma: no cover - compiled
    """CRC-32 of the UTF-8 bytes of each string ``points[starts[s]:starts[s + 1]]``.

    Args:
        points: ``uint32`` code points of all strings, concatenated.
        starts: ``int64`` offsets, one more than there are strings.
        table: :data:`CRC_TABLE`.

    Returns:
        ``uint64`` hash per string, equal to ``zlib.crc32(s.encode("utf-8"))``.
    """
    out = np.empty(len(starts) - 1, dtype=np.uint64)
    for s in range(len(starts) - 1):
        c = np.uint32(0xFFFFFFFF)
        for q in range(starts[s], starts[s + 1]):
            cp = np.uint32(points[q])
            if cp < 0x80:
                c = _crc_byte(c, cp, table)
                continue
            # UTF-8: a lead byte, then 6 bits per continuation byte.
            more = 1 if cp < 0x800 else (2 if cp < 0x10000 else 3)
            lead = np.uint32((0xF00 >> (more + 1)) & 0xFF)
            c = _crc_byte(c, lead | (cp >> np.uint32(6 * more)), table)
            for m in range(more - 1, -1, -1):
                cont = np.uint32(0x80) | ((cp >> np.uint32(6 * m)) & np.uint32(0x3F))
                c = _crc_byte(c, cont, table)
        out[s] = np.uint64(c ^ np.uint32(0xFFFFFFFF))
    return out


@njit(cache=True)
def empty_signatures(n, k):  # pragma: no cover - compiled
    """An uninitialised ``uint64 (n, k)`` array from numba's allocator (plain malloc).

    numpy advises transparent huge pages for large arrays; when the machine's
    memory is fragmented, the first touch of the 100 MB of 100k x 128
    signatures then waits on compaction (0.8-1 s on a first allocation in a
    scratch timing). With 4 KiB pages, the whole signature call on 100k
    English headlines took 0.149 s median wall against 0.170 s (scratch, 7
    alternating runs at low load).
    """
    return np.empty((n, k), dtype=np.uint64)


@njit(cache=True, nogil=True)
def mersenne_min_hashes(indptr, indices, h, a, b, out):  # pragma: no cover - compiled
    """Row-wise minimum of ``(a[p] * h[col] + b[p]) mod (2**61 - 1)`` over each row's columns.

    Exact, as :func:`newsdedup.score.minhash.affine_mod_mersenne61`, but with
    ``a`` split at bit 29 rather than 32, which saves three of the 17 vector
    operations per value: ``a_lo * h < 2**61`` needs no fold, and
    ``a_hi * h < 2**64`` times ``2**29`` folds as ``(high >> 32) + (high mod
    2**32) * 2**29`` (``2**61 == 1 (mod P)``). The four terms are each
    ``< 2**61``, so their sum stays below ``2**63``; one fold leaves it below
    ``P + 4``, and ``min(v, v - P)`` (``v - P`` wraps unless ``v >= P``)
    finishes the reduction. Computed per shingle occurrence instead of gathered
    from a vocabulary x k table: the table does not fit in cache and the
    gather was memory-bound. The shingle loop is outside and the permutation
    loop inside, over a ``k``-wide accumulator that stays in L1 and
    vectorizes; the other orders (a permutation outside, or blocks of 32
    permutations) and a gathered table measured slower on 100k English
    headlines.

    Args:
        indptr: CSR row pointers (any integer dtype: the matrix's own, no copy).
        indices: CSR column of each occurrence.
        h: ``uint64`` hash per column, below ``2**32``.
        a: ``uint64`` multipliers in ``[1, P)``.
        b: ``uint64`` offsets in ``[0, P)``.
        out: ``uint64 (rows, len(a))``, every row written; an empty row
            holds ``P`` (the sentinel), so ``out`` may come from ``np.empty``.
    """
    k = a.shape[0]
    a_lo = a & _LOW29
    a_hi = a >> _S29
    acc = np.empty(k, dtype=np.uint64)
    for r in range(len(indptr) - 1):
        lo, hi = indptr[r], indptr[r + 1]
        acc[:] = _P
        for q in range(lo, hi):
            hv = h[indices[q]]
            for p in range(k):
                high = a_hi[p] * hv
                total = (high >> _S32) + ((high & _LOW32) << _S29) + a_lo[p] * hv + b[p]
                v = (total & _P) + (total >> _S61)
                v = min(v, v - _P)
                acc[p] = min(acc[p], v)
        out[r, :] = acc


@njit(cache=True)
def marked_score(indptr, indices, marker, mass, i, j):  # pragma: no cover - compiled
    """Weighted Jaccard of rows ``i`` and ``j``, row ``i``'s weights spread in ``marker``.

    Row ``j`` adds ``marker[col]`` over its sorted columns (see
    :func:`run_pair_scores` for why that equals the sparse product bit for bit);
    0.0 for an empty union.
    """
    inter = 0.0
    for q in range(indptr[j], indptr[j + 1]):
        inter += marker[indices[q]]
    union = mass[i] + mass[j] - inter
    return inter / union if union > 0 else 0.0


@njit(cache=True)
def run_pair_scores(indptr, indices, data, mass, items, starts, ends, out):  # pragma: no cover
    """Weighted Jaccard of every pair inside each run ``items[starts[k]:ends[k]]``.

    Pairs are visited run by run, each member with every later member of its
    run, and their scores written to ``out`` in that order. The block scorer's
    sparse product adds the weights of the shared columns in ascending column
    order starting from 0.0, then divides by ``mass[i] + mass[j] - inter``.
    Here a member's weights are spread into a dense marker and each later
    member adds ``marker[col]`` over its own sorted columns: the shared
    columns add their weight in ascending order and the others add +0.0,
    which leaves a positive sum unchanged, so every score is bit-identical.

    Args:
        indptr: CSR row pointers (column indices sorted within each row).
        indices: CSR columns.
        data: CSR values (the shingle weights; 1.0 for plain Jaccard).
        mass: Summed weight per row.
        items: Item of each position, grouped in runs.
        starts: First position of each run.
        ends: Past-the-end position of each run.
        out: ``float64``, one score per pair (0.0 for an empty union).
    """
    n_cols = 0
    for q in range(indices.shape[0]):
        n_cols = max(n_cols, indices[q] + 1)
    marker = np.zeros(n_cols, dtype=np.float64)
    at = 0
    for k in range(starts.shape[0]):
        for m in range(starts[k], ends[k] - 1):
            i = items[m]
            for q in range(indptr[i], indptr[i + 1]):
                marker[indices[q]] = data[q]
            for m2 in range(m + 1, ends[k]):
                out[at] = marked_score(indptr, indices, marker, mass, i, items[m2])
                at += 1
            for q in range(indptr[i], indptr[i + 1]):
                marker[indices[q]] = 0.0


@njit(cache=True, nogil=True)
def signature_agreements(sigs, i, j, out):  # pragma: no cover - compiled
    """Per pair ``p``, how many of the ``k`` signature values items ``i[p]`` and ``j[p]`` share.

    The count of :func:`newsdedup.score.minhash.estimate_pairs` without its
    two gathered ``(pairs, k)`` copies and their comparison array: the numpy
    path moves about 2.1 KB per pair at ``k = 128``; this reads the two rows
    in place. ``out`` (``int64``) receives the counts; disjoint slices may run
    in two threads.
    """
    k = sigs.shape[1]
    for p in range(len(i)):
        a, b = i[p], j[p]
        same = 0
        for c in range(k):
            if sigs[a, c] == sigs[b, c]:
                same += 1
        out[p] = same


@njit(cache=True, nogil=True)
def first_shared_band(sigs, i, j, bands, rows, out):  # pragma: no cover - compiled
    """Per pair ``p``, the first band whose ``rows`` values items ``i[p]`` and ``j[p]`` share.

    ``bands`` where no band agrees. The rows are read in place and each band
    stops at its first differing value, so an unrelated pair costs about one
    comparison per band. ``out`` (``int64``) receives the band numbers;
    disjoint slices may run in two threads.
    """
    for p in range(len(i)):
        a, b = i[p], j[p]
        found = bands
        for band in range(bands):
            same = True
            for c in range(band * rows, (band + 1) * rows):
                if sigs[a, c] != sigs[b, c]:
                    same = False
                    break
            if same:
                found = band
                break
        out[p] = found


@njit(cache=True, nogil=True)
def shared_weights(indptr, indices, weights, i, j, out):  # pragma: no cover - compiled
    """Per pair ``p``, the summed ``weights`` of the columns rows ``i[p]`` and ``j[p]`` share.

    The intersection of :func:`newsdedup.score.jaccard.pair_jaccard` and
    :func:`newsdedup.score.prefix.pair_scores` without gathering both rows of
    every pair into two new sparse matrices and multiplying them (about
    1.3 us a pair at 50 shingles a row): one merge of the two sorted rows
    (CSR, sorted columns), read in place. The shared columns' weights are
    added in ascending column order starting from 0.0, the order of the
    sparse product, so every sum is the same float; with weights of 1.0 the
    sums are the exact counts. ``out`` (``float64``) gets the sums; disjoint
    slices may run in two threads.
    """
    for p in range(len(i)):
        a, a_end = indptr[i[p]], indptr[i[p] + 1]
        b, b_end = indptr[j[p]], indptr[j[p] + 1]
        acc = 0.0
        while a < a_end and b < b_end:
            ca, cb = indices[a], indices[b]
            if ca == cb:
                acc += weights[ca]
                a += 1
                b += 1
            elif ca < cb:
                a += 1
            else:
                b += 1
        out[p] = acc


@njit(cache=True, nogil=True)
def integer_dots(q, i, j, out):  # pragma: no cover - compiled
    """Per pair ``p``, the dot product of the integer rows ``q[i[p]]`` and ``q[j[p]]``.

    The cosine of :class:`newsdedup.score.embed.Quantized` without gathering both rows
    of every pair as ``float64`` copies (16 bytes a component read, and written, per
    pair: at 512 dimensions and 35 million candidate pairs that was most of the pair
    model's dedupe). The products are summed in ``int64``: the components of
    :class:`~newsdedup.score.embed.Quantized` are at most ``2**14`` in size, so below
    ``2**25`` dimensions every partial sum is an integer under ``2**53``, and ``out``
    (``float64``) holds the exact value the ``float64`` sum of the gathered copies gives
    in any order.
    Disjoint slices may run in two threads.
    """
    d = q.shape[1]
    for p in range(len(i)):
        a, b = i[p], j[p]
        acc = np.int64(0)
        for k in range(d):
            acc += np.int64(q[a, k]) * np.int64(q[b, k])
        out[p] = np.float64(acc)

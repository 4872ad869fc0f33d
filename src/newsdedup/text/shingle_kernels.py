"""Compiled (numba) construction of the shingle incidence matrix for large inputs.

:func:`newsdedup.text.shingle.shingle_matrix` builds the matrix with numpy: two hash
factorizations (code points, then packed n-gram codes) and one global sort of
``row * vocabulary + column`` keys to drop repeats inside a row. At 100k Korean
headlines (2.4M windows) the sort alone was half of the function. Here one pass numbers
the code points (a table over all of Unicode), one pass numbers the packed n-grams in
first-seen order (an open-addressing hash table), and each row's few columns are sorted
and deduplicated on their own. The result is the same matrix and vocabulary, column
for column (tested against the numpy path); imported only from
:data:`newsdedup.text.shingle.COMPILED_MIN` code points on, where it repays numba's
import.
"""

from __future__ import annotations

import numpy as np

from newsdedup.paths import configure_numba_cache

configure_numba_cache()  # before numba's import: it reads NUMBA_CACHE_DIR once

from numba import njit  # noqa: E402

_UNICODE = 0x110000  # code points of a Python str are below this
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing multiplier
_INSERTION_MAX = 64  # rows with more windows are sorted by np.sort


@njit(cache=True)
def alphabet_ids(points):  # pragma: no cover - compiled
    """Dense id of each code point, numbered in first-seen order; and the alphabet size.

    Args:
        points: ``uint32`` code points (below ``0x110000``).

    Returns:
        ``(ids, size)``: ``int64`` id per point, and how many distinct points there are.
    """
    table = np.full(_UNICODE, -1, dtype=np.int64)
    ids = np.empty(points.shape[0], dtype=np.int64)
    size = 0
    for q in range(points.shape[0]):
        c = points[q]
        if table[c] < 0:
            table[c] = size
            size += 1
        ids[q] = table[c]
    return ids, size


@njit(cache=True)
def _grown(table, bits):  # pragma: no cover - compiled
    """The hash table (pairs of key, column) rehashed into twice the slots."""
    bits += 1
    shift = np.uint64(64 - bits)
    mask = (1 << bits) - 1
    out = np.full(2 << bits, -1, dtype=np.int64)
    for h0 in range(table.shape[0] // 2):
        if table[2 * h0 + 1] >= 0:
            code = table[2 * h0]
            h = np.int64((np.uint64(code) * _GOLDEN) >> shift)
            while out[2 * h + 1] >= 0:
                h = (h + 1) & mask
            out[2 * h] = code
            out[2 * h + 1] = table[2 * h0 + 1]
    return out, bits


@njit(cache=True)
def shingle_csr(ids, lengths, n, base):  # pragma: no cover - compiled
    """CSR arrays of the n-gram sets of texts whose characters are numbered by ``ids``.

    Args:
        ids: Character id per position of the concatenated texts (:func:`alphabet_ids`).
        lengths: Length of each text.
        n: n-gram size, ``n >= 1``.
        base: Alphabet size (``base ** n < 2 ** 63``: packed codes fit ``int64``).

    Returns:
        ``(indptr, indices, first)``: ``int64`` row pointers, ``int32`` columns sorted
        within each row, and the position (in the concatenation) of each column's first
        window. Columns are numbered in first-seen order (text order, then position).
    """
    n_texts = lengths.shape[0]
    windows = 0
    longest = 1
    for k in range(n_texts):
        longest = max(longest, lengths[k])
        if lengths[k] >= n:
            windows += lengths[k] - n + 1
    # Open addressing, key and column side by side (one cache line per probe);
    # doubled whenever it is half full, so the table follows the vocabulary, not the windows.
    bits = 12
    table = np.full(2 << bits, -1, dtype=np.int64)
    first = np.empty(max(windows, 1), dtype=np.int64)
    indptr = np.zeros(n_texts + 1, dtype=np.int64)
    indices = np.empty(windows, dtype=np.int32)
    row = np.empty(longest, dtype=np.int64)
    v = 0
    at = 0
    start = 0
    for k in range(n_texts):
        count = lengths[k] - n + 1
        for p in range(count):
            code = 0
            for m in range(n):
                code = code * base + ids[start + p + m]
            shift = np.uint64(64 - bits)
            mask = (1 << bits) - 1
            h = np.int64((np.uint64(code) * _GOLDEN) >> shift)
            while table[2 * h + 1] >= 0 and table[2 * h] != code:
                h = (h + 1) & mask
            if table[2 * h + 1] < 0:
                table[2 * h] = code
                table[2 * h + 1] = v
                first[v] = start + p
                row[p] = v
                v += 1
                if 2 * v > (1 << bits):
                    table, bits = _grown(table, bits)
            else:
                row[p] = table[2 * h + 1]
        # Insertion sort: a headline has a few dozen windows, mostly in ascending order
        # already (new columns are numbered as they are met); long texts take np.sort.
        if count > _INSERTION_MAX:
            row[:count] = np.sort(row[:count])
        for q in range(1, count if count <= _INSERTION_MAX else 0):
            x = row[q]
            r = q - 1
            while r >= 0 and row[r] > x:
                row[r + 1] = row[r]
                r -= 1
            row[r + 1] = x
        for q in range(count):
            if q == 0 or row[q] != row[q - 1]:
                indices[at] = row[q]
                at += 1
        indptr[k + 1] = at
        start += lengths[k]
    return indptr, indices[:at].copy(), first[:v].copy()

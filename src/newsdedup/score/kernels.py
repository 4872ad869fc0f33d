"""Compiled (numba) kernels of the large-input paths: MinHash signatures.

Imported only where a step is large enough to repay numba's import and the
loading of its cached machine code (about half a second): the published
blocks on a few hundred items never import this module. Every kernel computes
exactly what its numpy counterpart computes, integer for integer (tested
against it); ``cache=True`` keeps the compiled code between processes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_P = np.uint64((1 << 61) - 1)
_LOW29 = np.uint64((1 << 29) - 1)
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
def mersenne_min_hashes(indptr, indices, h, a, b, out):  # pragma: no cover - compiled
    """Row-wise minimum of ``(a[p] * h[col] + b[p]) mod (2**61 - 1)`` over each row's columns.

    The arithmetic of :func:`newsdedup.score.minhash.affine_mod_mersenne61`
    (``a`` split in 32-bit halves, folds by ``2**61 == 1 (mod P)``), computed
    per shingle occurrence instead of gathered from a vocabulary x k table:
    the table does not fit in cache and the gather was memory-bound.

    Args:
        indptr: CSR row pointers.
        indices: CSR column of each occurrence.
        h: ``uint64`` hash per column, below ``2**32``.
        a: ``uint64`` multipliers in ``[1, P)``.
        b: ``uint64`` offsets in ``[0, P)``.
        out: ``uint64 (rows, len(a))``, written for every non-empty row (empty rows untouched).
    """
    k = a.shape[0]
    a_lo = a & np.uint64(0xFFFFFFFF)
    a_hi = a >> _S32
    acc = np.empty(k, dtype=np.uint64)
    for r in range(len(indptr) - 1):
        lo, hi = indptr[r], indptr[r + 1]
        if hi == lo:
            continue
        acc[:] = _P
        for q in range(lo, hi):
            hv = h[indices[q]]
            for p in range(k):
                low = a_lo[p] * hv
                high = a_hi[p] * hv
                total = (high >> _S29) + ((high & _LOW29) << _S32)
                total += (low & _P) + (low >> _S61) + b[p]
                v = (total & _P) + (total >> _S61)
                if v >= _P:
                    v -= _P
                if v < acc[p]:
                    acc[p] = v
        out[r, :] = acc


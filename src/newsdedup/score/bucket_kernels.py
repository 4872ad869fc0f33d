"""Compiled (numba) scoring of the pairs inside buckets that reach a threshold.

:meth:`newsdedup.score.scorers.BlockScorer.run_pairs` scores every listed pair, and
its caller first lists them: at 100k Korean headlines the gated dedupe's buckets hold
3.3M pairs, of which about 33k reach 0.30, and the listing (eight ``int64`` arrays of
3.3M) cost about as much as the scoring. :func:`run_pairs_above` walks the runs
itself, skips a pair whose masses alone put it below the threshold, and returns only
the pairs it keeps, with the same scores bit for bit (same arithmetic, same order of
additions as :func:`newsdedup.score.kernels.run_pair_scores`). Imported only on the
large-input path.
"""

from __future__ import annotations

import numpy as np

from newsdedup.paths import configure_numba_cache

configure_numba_cache()  # before numba's import: it reads NUMBA_CACHE_DIR once

from numba import njit  # noqa: E402

from newsdedup.score.kernels import marked_score  # noqa: E402

MASS_MARGIN = 1e-9
"""Relative margin of the mass bound: a pair is skipped only when
``min(mass) < threshold * max(mass) * (1 - MASS_MARGIN)``, far beyond float64 rounding
of sums of a few hundred weights, so no pair at or above the threshold is skipped."""


@njit(cache=True)
def run_pairs_above(indptr, indices, data, mass, items, starts, ends,
                    threshold, margin):  # pragma: no cover - compiled
    """Pairs inside each run ``items[starts[k]:ends[k]]`` scoring ``>= threshold``.

    A member's weights are spread into a dense marker and each later member adds
    ``marker[col]`` over its own sorted columns, exactly as ``run_pair_scores``. With
    non-negative weights the weighted Jaccard of two rows is at most
    ``min(mass) / max(mass)``, so pairs whose masses differ by more than the threshold
    allows (less ``margin``) are not scored; with a negative weight every pair is.

    Args:
        indptr: CSR row pointers (column indices sorted within each row).
        indices: CSR columns.
        data: CSR values (the shingle weights; 1.0 for plain Jaccard).
        mass: Summed weight per row.
        items: Item of each position, grouped in runs.
        starts: First position of each run.
        ends: Past-the-end position of each run.
        threshold: Lowest score kept.
        margin: :data:`MASS_MARGIN`.

    Returns:
        ``(i, j, score)``: ``int64``, ``int64``, ``float64``, run by run, each member
        with every later member, as the listed pairs come.
    """
    n_cols = 0
    bound = True
    for q in range(indices.shape[0]):
        n_cols = max(n_cols, indices[q] + 1)
        if data[q] < 0:
            bound = False
    marker = np.zeros(n_cols, dtype=np.float64)
    cap = 1024
    out_i = np.empty(cap, dtype=np.int64)
    out_j = np.empty(cap, dtype=np.int64)
    out_s = np.empty(cap, dtype=np.float64)
    at = 0
    factor = threshold * (1.0 - margin)
    for k in range(starts.shape[0]):
        for m in range(starts[k], ends[k] - 1):
            i = items[m]
            for q in range(indptr[i], indptr[i + 1]):
                marker[indices[q]] = data[q]
            for m2 in range(m + 1, ends[k]):
                j = items[m2]
                if bound:
                    lo, hi = min(mass[i], mass[j]), max(mass[i], mass[j])
                    if lo < factor * hi:
                        continue
                score = marked_score(indptr, indices, marker, mass, i, j)
                if score >= threshold:
                    if at == cap:
                        cap *= 2
                        out_i, out_j, out_s = _grown(out_i, out_j, out_s, cap)
                    out_i[at] = i
                    out_j[at] = j
                    out_s[at] = score
                    at += 1
            for q in range(indptr[i], indptr[i + 1]):
                marker[indices[q]] = 0.0
    return out_i[:at].copy(), out_j[:at].copy(), out_s[:at].copy()


@njit(cache=True)
def _grown(out_i, out_j, out_s, cap):  # pragma: no cover - compiled
    """The three output arrays copied into ``cap`` slots."""
    a = np.empty(cap, dtype=np.int64)
    b = np.empty(cap, dtype=np.int64)
    c = np.empty(cap, dtype=np.float64)
    n = out_i.shape[0]
    a[:n] = out_i
    b[:n] = out_j
    c[:n] = out_s
    return a, b, c

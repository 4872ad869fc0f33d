"""Candidate pairs by meaning: each item's nearest neighbours in embedding space, within a window.

The character blocking (the exact join at a Jaccard floor) finds copies and close
rewrites; an outlet that words one event in other words shares few character n-grams
with its twin and is no candidate there. A sentence encoder places both near each
other, so a second *door* proposes, for every item, its ``k`` most similar items
(cosine of L2-normalized embeddings) published within the date window: ``O(items x k)``
pairs whatever the corpus's templates, never all pairs above a cosine.

The search is exact: items are ordered by time and compared block by block with the
items inside the window of the block (one matrix product per block), so the cost is
``O(items x items-in-window x dimensions)`` time and ``O(block x items-in-window)``
memory. Items without a date are compared with every item (their gap is unknown).

Cosines from a matrix product can differ in the last bits between BLAS builds, and an
item's ``k``-th neighbour is often one of several near-ties. So the ranking reads
cosines rounded to :data:`RANK_DECIMALS` decimals, ties broken by the lower row: the
same neighbours on any machine unless two cosines straddle a rounding boundary.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["RANK_DECIMALS", "window_neighbours"]

RANK_DECIMALS = 4
"""Decimals of the cosine the ranking reads (module docstring: ties across machines)."""


def _block_top(sims: np.ndarray, cols: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row of ``sims``, the ``k`` best columns (masked cells are ``-inf``).

    Returns:
        ``(row, col)`` positions (row within the block, column as given in ``cols``)
        of the kept cells, masked cells left out.
    """
    rows, width = sims.shape
    if width == 0 or k == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    # One unique integer key per cell: the rounded cosine first, then the lower column.
    scale = 10 ** RANK_DECIMALS
    finite = np.isfinite(sims)
    q = np.where(finite, np.rint(sims.astype(np.float64) * scale), -(scale + 1)).astype(np.int64)
    rank_of_col = np.argsort(np.argsort(cols, kind="stable"), kind="stable")
    key = q * (width + 1) + (width - rank_of_col)[None, :]
    take = min(k, width)
    best = np.argpartition(-key, take - 1, axis=1)[:, :take]
    r = np.repeat(np.arange(rows), take)
    c = best.ravel()
    keep = finite[r, c]
    return r[keep], c[keep]


def window_neighbours(vectors: np.ndarray, seconds: np.ndarray, k: int,
                      window_seconds: float | None, block: int = 256,
                      progress: Callable[[int, int], None] | None = None
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every item's ``k`` nearest items by cosine, among those within the window.

    Args:
        vectors: ``(N, d)`` L2-normalized embeddings (a dot product is a cosine).
        seconds: Publication time per item in seconds; NaN when unknown.
        k: Neighbours per item.
        window_seconds: Only items published less than this apart are compared
            (the dedupe's window); None compares every pair.
        block: Rows compared at once (memory ``O(block x items-in-window)``).
        progress: Called with ``(rows done, rows)`` after each block.

    Returns:
        ``(i, j, cosine)``, each pair once with ``i < j``, sorted by ``(i, j)``: a pair
        is in the answer when either item is among the other's ``k`` nearest. The
        cosine is float64 of the float32 product.

    Examples:
        >>> v = np.array([[1, 0], [0.8, 0.6], [0, 1], [0.6, 0.8]], dtype=np.float32)
        >>> i, j, c = window_neighbours(v, np.array([0.0, 10, 20, 30]), 1, None)
        >>> list(zip(i.tolist(), j.tolist()))
        [(0, 1), (1, 3), (2, 3)]
        >>> i, j, c = window_neighbours(v, np.array([0.0, 10, 20, 30]), 1, 15.0)
        >>> list(zip(i.tolist(), j.tolist()))
        [(0, 1), (2, 3)]
    """
    x = np.ascontiguousarray(vectors, dtype=np.float32)
    n = x.shape[0]
    t = np.asarray(seconds, dtype=np.float64)
    if t.shape != (n,):
        raise ValueError(f"seconds has shape {t.shape}, expected ({n},)")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    dated = ~np.isnan(t)
    order = np.flatnonzero(dated)[np.argsort(t[dated], kind="stable")]
    undated = np.flatnonzero(~dated)
    ordered_t = t[order]
    found_i: list[np.ndarray] = []
    found_j: list[np.ndarray] = []
    everyone = np.arange(n)
    # Dated rows in time order, block by block against the items in the block's window
    # (and the undated); then the undated rows against everyone.
    starts = [("dated", lo) for lo in range(0, len(order), block)]
    starts += [("undated", lo) for lo in range(0, len(undated), block)]
    done = 0
    for kind, lo in starts:
        if kind == "undated":
            rows, cols = undated[lo:lo + block], everyone
        elif window_seconds is None:
            rows, cols = order[lo:lo + block], everyone
        else:
            rows = order[lo:lo + block]
            a = np.searchsorted(ordered_t, ordered_t[lo] - window_seconds, side="right")
            b = np.searchsorted(ordered_t, ordered_t[lo + len(rows) - 1] + window_seconds,
                                side="left")
            cols = np.concatenate([order[a:b], undated])
        sims = x[rows] @ x[cols].T
        sims[rows[:, None] == cols[None, :]] = -np.inf
        if window_seconds is not None:
            gap = np.abs(t[rows][:, None] - t[cols][None, :])
            sims[gap >= window_seconds] = -np.inf  # NaN gaps compare False: kept
        r, c = _block_top(sims, cols, k)
        found_i.append(rows[r])
        found_j.append(cols[c])
        done += len(rows)
        if progress is not None:
            progress(done, n)
    if not found_i:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float64)
    a, b = np.concatenate(found_i), np.concatenate(found_j)
    key = np.unique(np.minimum(a, b).astype(np.int64) * n + np.maximum(a, b))
    i, j = key // n, key % n
    cosine = np.einsum("ij,ij->i", x[i], x[j]).astype(np.float64)
    return i, j, cosine

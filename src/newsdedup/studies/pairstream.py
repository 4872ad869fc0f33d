"""All-pairs statistics streamed block by block: never an ``N x N`` array, never ``N^2/2`` scores.

The measurement of seed 004 (:mod:`newsdedup.studies.measure`) needs, for
every pair ``i < j``, the exact Jaccard and the MinHash estimate, and from
them a histogram of each, the pairs at or above each threshold (real,
candidates, matches), the top-K exact pairs and the mean and maximum of
``|estimate - exact|``. The dense path holds all ``N(N-1)/2`` scores; at
10,000 items that is 50M pairs per array and the process passes 4.8 GB.

:func:`stream_pair_stats` visits the pairs in blocks: the rows ``[lo, hi)``
against every later row, with ``hi - lo`` chosen so a block holds at most
``cells`` pairs (:func:`pair_blocks`). Each block's scores come from the same
float operations as the dense path (exact: one sparse product and
:func:`newsdedup.score.jaccard.jaccard_block`; estimate: agreeing positions
over ``k``), and every statistic is additive or mergeable, so the result is
*exactly* the dense one (tested): counts add up, top-K candidates merge, and
the error sum is accumulated exactly (:class:`ExactSum`) so the mean equals
``math.fsum(err) / len(err)`` bit for bit. Memory is ``O(cells)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from newsdedup.score.jaccard import jaccard_block
from newsdedup.text.shingle import ShingleMatrix

__all__ = ["DEFAULT_CELLS", "ExactSum", "PairStats", "Track", "pair_blocks", "stream_pair_stats",
           "untracked"]

Track = Callable[[Iterable[Any], "int | None", str], Iterator[Any]]
"""How a study reports a long loop: ``track(items, total, label)`` yields ``items``.

The run layer passes one that draws a progress bar
(:func:`newsdedup.runs.progress.tracker`); studies default to :func:`untracked`."""


def untracked(items: Iterable[Any], total: int | None = None, label: str = "") -> Iterator[Any]:
    """The :data:`Track` that reports nothing.

    Examples:
        >>> list(untracked([1, 2], 2, "rows"))
        [1, 2]
    """
    return iter(items)

DEFAULT_CELLS = 1 << 22
"""Pairs per block (4M: about 100 MB of working arrays); a memory knob, not a result."""

_HALF = 26  # mantissas split into two 26-bit halves: sums of 2^37 values fit in int64


class ExactSum:
    """Exact sum of many float64 values, rounded once at the end (as :func:`math.fsum`).

    Each value is ``M * 2**(e - 53)`` with an integer mantissa ``M``
    (:func:`numpy.frexp`); mantissas are summed per exponent as integers, so
    adding blocks in any order gives the same, exact total.

    Examples:
        >>> s = ExactSum()
        >>> s.add(np.array([0.1] * 10)); s.add(np.array([1e-20, -0.3]))
        >>> s.value() == math.fsum([0.1] * 10 + [1e-20, -0.3])
        True
    """

    def __init__(self) -> None:
        """An empty sum (0.0)."""
        self._total = Fraction(0)

    def add(self, values: np.ndarray) -> None:
        """Add every finite value of ``values`` (float64) exactly."""
        v = np.asarray(values, dtype=np.float64).ravel()
        if not v.size:
            return
        m, e = np.frexp(v)
        mant = np.ldexp(m, 53).astype(np.int64)  # exact: |m| < 1, 53 bits
        order = np.argsort(e, kind="stable")
        e, mant = e[order], mant[order]
        starts = np.flatnonzero(np.r_[True, e[1:] != e[:-1]])
        hi = np.add.reduceat(mant >> _HALF, starts)
        lo = np.add.reduceat(mant & ((1 << _HALF) - 1), starts)
        for exp, h, low in zip(e[starts].tolist(), hi.tolist(), lo.tolist(), strict=True):
            self._total += Fraction((h << _HALF) + low) * Fraction(2) ** (exp - 53)

    def value(self) -> float:
        """The correctly rounded total."""
        return float(self._total)


def pair_blocks(n: int, cells: int = DEFAULT_CELLS) -> Iterator[tuple[int, int]]:
    """Row ranges ``[lo, hi)`` whose pairs with all later rows number at most about ``cells``.

    Every pair ``i < j`` of ``n`` items lies in exactly one block (the one
    holding row ``i``); a block has at least one row.

    Examples:
        >>> list(pair_blocks(5, cells=4))
        [(0, 1), (1, 2), (2, 4), (4, 5)]
    """
    lo = 0
    while lo < n:
        rows = max(1, cells // max(n - lo - 1, 1))
        hi = min(n, lo + rows)
        yield lo, hi
        lo = hi


@dataclass
class PairStats:
    """Statistics of all pairs, as the dense measurement computes them.

    Attributes:
        pairs: ``N(N-1)/2``.
        thresholds: The thresholds, in the order given.
        real: Pairs with ``exact >= t`` per threshold.
        candidates: Pairs with ``estimate >= t``.
        matches: Pairs with both.
        exact_hist: ``numpy.histogram`` counts of the exact scores over ``edges``.
        estimate_hist: The same for the estimates.
        err_mean: ``math.fsum(|estimate - exact|) / pairs`` (NaN without pairs).
        err_max: Largest ``|estimate - exact|`` (NaN without pairs).
        exact_max: Highest exact score (0.0 without pairs).
        top_i: First item of the top-K exact pairs, best first (ties: later pair first).
        top_j: Second item of those pairs.
        top_score: Their exact scores.
    """

    pairs: int
    thresholds: list[float]
    real: np.ndarray
    candidates: np.ndarray
    matches: np.ndarray
    exact_hist: np.ndarray
    estimate_hist: np.ndarray
    err_mean: float
    err_max: float
    exact_max: float
    top_i: np.ndarray = field(repr=False)
    top_j: np.ndarray = field(repr=False)
    top_score: np.ndarray = field(repr=False)


def _estimate_block(sigs: np.ndarray, empty: np.ndarray, rows: np.ndarray,
                    cols: np.ndarray) -> np.ndarray:
    """Share of equal signature positions, ``agree / k`` (0.0 for empty items)."""
    a, b = sigs[rows], sigs[cols]
    agree = np.zeros((rows.size, cols.size), dtype=np.int64)
    for p in range(sigs.shape[1]):  # k comparisons of R x C, not R x C x k memory
        agree += a[:, p, None] == b[None, :, p]
    est = agree / sigs.shape[1]
    est[empty[rows], :] = 0.0
    est[:, empty[cols]] = 0.0
    return est


def _top(i: np.ndarray, j: np.ndarray, s: np.ndarray, k: int
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``k`` largest ``(score, i, j)`` triples, best first."""
    order = np.lexsort((j, i, s))[::-1][:k]
    return i[order], j[order], s[order]


def stream_pair_stats(
    shingled: ShingleMatrix,
    sigs: np.ndarray,
    thresholds: Sequence[float],
    edges: np.ndarray,
    top_k: int,
    cells: int = DEFAULT_CELLS,
    progress: Callable[[int, int], None] | None = None,
) -> PairStats:
    """Exact all-pairs statistics of exact Jaccard against the MinHash estimate, streamed.

    Args:
        shingled: The items' shingle matrix.
        sigs: Their signatures ``(N, k)``.
        thresholds: Thresholds of the real / candidates / matches counts.
        edges: Histogram bin edges (as passed to :func:`numpy.histogram`).
        top_k: Number of top exact pairs kept.
        cells: Pairs per block (memory knob only).
        progress: Called with ``(pairs done, pairs in all)`` after each block.

    Returns:
        A :class:`PairStats` equal to the dense computation's figures.

    Examples:
        >>> from newsdedup.text.shingle import shingle_matrix
        >>> m = shingle_matrix(["abcde", "abcdf", "xyz"], 3)
        >>> sigs = np.array([[1, 2], [1, 3], [4, 5]], dtype=np.uint64)
        >>> st = stream_pair_stats(m, sigs, [0.5], np.linspace(0, 1, 3), 1, cells=1)
        >>> st.pairs, st.real.tolist(), st.candidates.tolist(), st.err_max
        (3, [1], [1], 0.0)
    """
    x = shingled.matrix.tocsr()
    xt = x.T.tocsc()
    sizes = shingled.sizes
    empty = sizes == 0
    n = x.shape[0]
    t = np.asarray(list(thresholds), dtype=np.float64)
    real, cand, match = (np.zeros(t.size, dtype=np.int64) for _ in range(3))
    hist_x = np.zeros(len(edges) - 1, dtype=np.int64)
    hist_e = np.zeros(len(edges) - 1, dtype=np.int64)
    err, err_max, exact_max = ExactSum(), -math.inf, 0.0
    best: tuple[np.ndarray, ...] = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
    for lo, hi in pair_blocks(n, cells):
        rows, cols = np.arange(lo, hi), np.arange(lo + 1, n)
        if not cols.size:
            break
        inter = (x[lo:hi] @ xt[:, lo + 1:]).toarray().astype(np.int64)
        exact = jaccard_block(inter, sizes[lo:hi], sizes[lo + 1:])
        est = _estimate_block(sigs, empty, rows, cols)
        r, c = np.nonzero(cols[None, :] > rows[:, None])
        ex, es = exact[r, c], est[r, c]
        real += (ex[None, :] >= t[:, None]).sum(axis=1)
        cand += (es[None, :] >= t[:, None]).sum(axis=1)
        match += ((ex[None, :] >= t[:, None]) & (es[None, :] >= t[:, None])).sum(axis=1)
        hist_x += np.histogram(ex, bins=edges)[0]
        hist_e += np.histogram(es, bins=edges)[0]
        diff = np.abs(es - ex)
        err.add(diff)
        err_max = max(err_max, float(diff.max()))
        exact_max = max(exact_max, float(ex.max()))
        blk = _top(rows[r], cols[c], ex, top_k)
        merged = [np.concatenate(p) for p in zip(best, blk, strict=True)]
        best = _top(merged[0], merged[1], merged[2], top_k)
        if progress:
            progress(n * (n - 1) // 2 - (n - hi) * (n - hi - 1) // 2, n * (n - 1) // 2)
    pairs = n * (n - 1) // 2
    return PairStats(
        pairs=pairs, thresholds=t.tolist(), real=real, candidates=cand, matches=match,
        exact_hist=hist_x, estimate_hist=hist_e,
        err_mean=err.value() / pairs if pairs else float("nan"),
        err_max=err_max if pairs else float("nan"), exact_max=exact_max,
        top_i=best[0], top_j=best[1], top_score=best[2])

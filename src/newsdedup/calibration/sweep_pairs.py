"""The calibrate sweep's pairs without ``N x N``: every scorer's pairs above the lowest threshold.

The threshold sweep of ``newsdedup calibrate`` needs, per scorer and
threshold, the pairs at or above it and the items greedy clustering leaves.
Both follow from the pairs scoring at least the *lowest* threshold of the
grid, a sparse list, so no score matrix is ever built:

``"jaccard"``
    the exact join (:func:`newsdedup.score.join.threshold_join`): the same
    pairs and float64 scores as thresholding the dense matrix;
``"idf-jaccard"``
    the weighted prefix filter (:func:`newsdedup.score.prefix.prefix_candidates`)
    scored by :func:`newsdedup.score.prefix.pair_scores`, bit-identical to
    :func:`newsdedup.score.jaccard.weighted_jaccard_matrix` at those pairs (tested);
``"minhash"``
    no prefix bounds an estimate, so its pairs are streamed over all
    ``N(N-1)/2`` pairs in blocks (:func:`newsdedup.studies.pairstream.pair_blocks`):
    memory ``O(block)``, time ``O(N^2 k)``. Where that time is estimated
    over its budget (:func:`newsdedup.studies.cost.minhash_sweep_plan`) it is
    not spent and the scorer is left out of the sweep (``params.json`` says so).

Items left are :func:`newsdedup.cluster.greedy.greedy_pairs` on the list
(run on the items with a pair at or above each threshold:
:func:`newsdedup.cluster.sweep.sparse_partition`), equal to
:func:`newsdedup.cluster.greedy.greedy_clusters` on the matrix.
Memory grows with ``N`` plus the pairs above the lowest threshold.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from newsdedup.cluster.sweep import PartitionSweep, sparse_partition
from newsdedup.score.jaccard import PairScores, idf_weights, jaccard_block
from newsdedup.score.join import DEFAULT_JOIN_BLOCK, NUMBA_MIN_SHINGLES, threshold_join
from newsdedup.score.minhash import MinHashConfig
from newsdedup.score.prefix import pair_scores, prefix_candidates, row_mass
from newsdedup.score.scorers import make_scorer
from newsdedup.studies.pairstream import DEFAULT_CELLS, pair_blocks
from newsdedup.text.shingle import ShingleMatrix

__all__ = ["NUMPY_JOIN_CELLS", "SWEEP_SCORERS", "exact_max_pair",
           "items_left", "scorer_pairs", "sweep_from_pairs", "sweep_join_kernel"]

SWEEP_SCORERS = ("jaccard", "idf-jaccard", "minhash")
"""Scorers of the calibrate sweep, in the order of ``sweep.csv``."""

NUMPY_JOIN_CELLS = 1 << 25
"""Rows x window entries one numpy join block may produce (``block = cells / N``, 64..2048).

The numpy kernel's sparse product of a block holds up to ``block x N``
entries (12 bytes each): at most about 400 MB whatever ``N``, twice that with
the two blocks :func:`~newsdedup.score.join.join_blocks` runs at a time. The
sweep runs it only on small corpora (:func:`sweep_join_kernel`)."""


def sweep_join_kernel(shingle_count: int, n_items: int) -> tuple[str, int]:
    """Join kernel and block rows of the sweep's join.

    Compiled from :data:`~newsdedup.score.join.NUMBA_MIN_SHINGLES` shingle
    occurrences on, at any threshold: at the sweep's low floor its cost model
    keeps most rows on the prefix route, which beats numpy's block products
    there too (:data:`~newsdedup.score.join.SCAN_ROWS_PER_FLAGGED_SHINGLE`). On fewer
    shingles the numpy kernel (no compiled import to pay), in blocks of at most
    :data:`NUMPY_JOIN_CELLS` entries.

    Examples:
        >>> sweep_join_kernel(5_000_000, 100_000), sweep_join_kernel(300_000, 15_000)
        (('numba', 2048), ('numpy', 2048))
    """
    if shingle_count >= NUMBA_MIN_SHINGLES:
        return "numba", DEFAULT_JOIN_BLOCK
    return "numpy", int(np.clip(NUMPY_JOIN_CELLS // max(n_items, 1), 64, DEFAULT_JOIN_BLOCK))


Progress = Callable[[int, int], None]


def _lowest(lowest: float) -> float:
    t = float(lowest)
    if not 0.0 < t <= 1.0:
        raise ValueError(f"the lowest sweep threshold must lie in (0, 1], got {lowest!r}")
    return t


def _sorted(i: np.ndarray, j: np.ndarray, s: np.ndarray) -> PairScores:
    order = np.lexsort((j, i))
    return PairScores(i[order].astype(np.int64), j[order].astype(np.int64),
                      s[order].astype(np.float64))


def weighted_pairs(shingled: ShingleMatrix, weights: np.ndarray, lowest: float) -> PairScores:
    """Every pair ``i < j`` with weighted Jaccard ``>= lowest``, sorted by ``(i, j)``.

    Examples:
        >>> from newsdedup.text.shingle import shingle_matrix
        >>> sh = shingle_matrix(["abcde", "abcdf", "xyz"], 3)
        >>> weighted_pairs(sh, np.ones(len(sh.vocab)), 0.3).score.tolist()
        [0.5]
    """
    t = _lowest(lowest)
    x = shingled.matrix.tocsr()
    x.sort_indices()
    mass = row_mass(x, weights)
    parts: tuple[list[np.ndarray], ...] = ([], [], [])
    # An item without weight scores 0.0 with every other: it never reaches t > 0.
    members = np.flatnonzero(mass > 0).astype(np.int64)
    for a, b in (prefix_candidates(x, weights, t, members) if members.size > 1 else ()):
        s = pair_scores(x, weights, mass, a, b)
        keep = s >= t
        for acc, part in zip(parts, (np.minimum(a, b)[keep], np.maximum(a, b)[keep], s[keep]),
                             strict=True):
            acc.append(part)
    if not parts[0]:
        return PairScores(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
    return _sorted(*(np.concatenate(p) for p in parts))


def minhash_pairs(shingled: ShingleMatrix, params: MinHashConfig, lowest: float,
                  cells: int = DEFAULT_CELLS, progress: Progress | None = None) -> PairScores:
    """Every pair ``i < j`` whose MinHash estimate is ``>= lowest``, streamed in pair blocks.

    Examples:
        >>> from newsdedup.text.shingle import shingle_matrix
        >>> sh = shingle_matrix(["abcdefgh", "abcdefgh", "xyzuvw"], 3)
        >>> minhash_pairs(sh, MinHashConfig(num_perm=16), 0.5).score.tolist()
        [1.0]
    """
    t = _lowest(lowest)
    scorer = make_scorer(shingled, "minhash", minhash=params)
    n = shingled.matrix.shape[0]
    parts: tuple[list[np.ndarray], ...] = ([], [], [])
    total = n * (n - 1) // 2
    for lo, hi in pair_blocks(n, cells):
        rows, cols = np.arange(lo, hi), np.arange(lo + 1, n)
        if not cols.size:
            break
        est = scorer.block(rows, cols)
        r, c = np.nonzero((cols[None, :] > rows[:, None]) & (est >= t))
        for acc, part in zip(parts, (rows[r], cols[c], est[r, c]), strict=True):
            acc.append(part)
        if progress:
            progress(total - (n - hi) * (n - hi - 1) // 2, total)
    if not parts[0]:
        return PairScores(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
    return _sorted(*(np.concatenate(p) for p in parts))


def scorer_pairs(shingled: ShingleMatrix, scorer: str, lowest: float,
                 minhash: MinHashConfig | None = None, progress: Progress | None = None
                 ) -> PairScores:
    """The pairs of one sweep scorer scoring ``>= lowest``, as the dense matrix would give them.

    Args:
        shingled: The items' shingle matrix.
        scorer: One of :data:`SWEEP_SCORERS`.
        lowest: The lowest threshold of the sweep, in ``(0, 1]``.
        minhash: MinHash parameters (published ones by default).
        progress: ``(done, in all)``: join blocks, or the streamed MinHash pass's pairs.

    Returns:
        Pairs ``i < j`` sorted by ``(i, j)`` with their float64 scores.
    """
    if scorer == "jaccard":
        def blocks(it):
            ranges = list(it)
            for k, r in enumerate(ranges):
                yield r
                if progress:
                    progress(k + 1, len(ranges))

        kernel, block = sweep_join_kernel(shingled.matrix.nnz, shingled.n_items)
        return threshold_join(shingled, _lowest(lowest), block=block, progress=blocks,
                              kernel=kernel).pairs
    if scorer == "idf-jaccard":
        return weighted_pairs(shingled, idf_weights(shingled), lowest)
    if scorer == "minhash":
        return minhash_pairs(shingled, minhash or MinHashConfig.published(), lowest,
                             progress=progress)
    raise ValueError(f"unknown sweep scorer {scorer!r}; choose one of {list(SWEEP_SCORERS)}")


def exact_max_pair(shingled: ShingleMatrix, cells: int = DEFAULT_CELLS
                   ) -> tuple[int, int, float] | None:
    """The pair with the highest exact Jaccard, streamed (ties: the last pair in ``(i, j)`` order).

    Only needed when no pair reaches the sweep's lowest threshold (the join
    then holds nothing to take the maximum of). ``O(N^2)`` time, ``O(cells)``
    memory. The tie rule is :meth:`PairScores.top`'s, so the pair equals the
    dense path's ``upper_pair``.

    Returns:
        ``(i, j, score)``, or None with fewer than two items.
    """
    x = shingled.matrix.tocsr()
    xt = x.T.tocsc()
    sizes = shingled.sizes
    n = x.shape[0]
    best: tuple[int, int, float] | None = None
    for lo, hi in pair_blocks(n, cells):
        if lo + 1 >= n:
            break
        inter = (x[lo:hi] @ xt[:, lo + 1:]).toarray().astype(np.int64)
        exact = jaccard_block(inter, sizes[lo:hi], sizes[lo + 1:])
        r, c = np.nonzero(np.arange(lo + 1, n)[None, :] > np.arange(lo, hi)[:, None])
        if not r.size:
            continue
        s = exact[r, c]
        top = np.flatnonzero(s == s.max())[-1]
        cand = (int(lo + r[top]), int(lo + 1 + c[top]), float(s[top]))
        if best is None or cand[2] >= best[2]:
            best = cand
    return best


def items_left(n: int, pairs: PairScores, threshold: float) -> int:
    """Groups left by greedy clustering (no gate) at ``threshold`` from the sparse pair list.

    Examples:
        >>> items_left(3, PairScores(np.array([0]), np.array([1]), np.array([.5])), 0.4)
        2
    """
    return int(sparse_partition(n, pairs.i, pairs.j, pairs.score, threshold).max(initial=-1)) + 1


def sweep_from_pairs(n: int, pairs: dict[str, PairScores], thresholds: Sequence[float],
                     progress: Progress | None = None):
    """Pairs at or above and items left per scorer and threshold (``sweep.csv``'s rows).

    Args:
        n: Items of the corpus.
        pairs: Per scorer, its pairs scoring at least ``min(thresholds)``.
        thresholds: The grid.
        progress: Told ``(clusterings done, clusterings in all)``.

    Returns:
        DataFrame with columns scorer, threshold, pairs, items_left.
    """
    import pandas as pd

    t = np.asarray(thresholds, dtype=np.float64)
    frames = []
    total, done = len(pairs) * len(t), 0
    for scorer, ps in pairs.items():
        left = []
        sweep = PartitionSweep(n, ps.i, ps.j, ps.score, float(t.min(initial=np.inf)))
        for x in t:
            left.append(int(sweep.labels(float(x)).max(initial=-1)) + 1)
            done += 1
            if progress:
                progress(done, total)
        frames.append(pd.DataFrame({"scorer": scorer, "threshold": t,
                                    "pairs": ps.count_at_or_above(t), "items_left": left}))
    return pd.concat(frames, ignore_index=True)[["scorer", "threshold", "pairs", "items_left"]]

"""Scoring listed pairs: all pairs inside buckets, or the candidates of an oversized one.

:func:`newsdedup.cluster.gate.bucketed_pairs` takes this path when the buckets
hold many pairs: listing every pair inside a bucket and scoring it with a
compiled kernel costs less than the packed blocks' sparse products, and
scores nothing across buckets. The scores are bit-identical to the blocks'
(:meth:`newsdedup.score.scorers.BlockScorer.run_pairs`), so the result is the same.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["PairFilter", "PairScoring", "PairsAbove", "listed_pairs", "sorted_pairs",
           "verified_pairs"]

PairScoring = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]
"""``pair_scores(items, starts, ends, i, j) -> float64``: the score of every pair inside
each run ``items[starts[k]:ends[k]]``, listed as ``(i, j)`` run by run, each member with
every later member (:meth:`newsdedup.score.scorers.BlockScorer.run_pairs`)."""

PairsAbove = Callable[[np.ndarray, np.ndarray, np.ndarray, float],
                      "tuple[np.ndarray, np.ndarray, np.ndarray] | None"]
"""``pairs_above(items, starts, ends, threshold) -> (i, j, score) or None``: the pairs of
:data:`PairScoring` that reach ``threshold``, in its order, without listing the others
(:meth:`newsdedup.score.scorers.BlockScorer.pairs_above`); None when the scorer has no
such path."""

PairFilter = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
"""``allowed(i, j, score) -> bool`` per pair: whether items ``i[p]`` and ``j[p]``, scoring
``score[p]``, may merge at all (the dedupe's window and series rules read the items; the
pair model's filter also reads the score, one of its features). Applied to each piece of
pairs as it is scored, so pairs it refuses are never held together: the members of one
template all score above any threshold and all are kept apart."""

_PAIRS_PER_STEP = 1 << 22  # listed pairs scored at once (memory knob only)


def keep_allowed(allowed: PairFilter | None, i: np.ndarray, j: np.ndarray, score: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs ``allowed`` lets merge (all of them when it is None)."""
    if allowed is None or not len(i):
        return i, j, score
    ok = allowed(i, j, score)
    return i[ok], j[ok], score[ok]


def listed_pairs(pair_scores: PairScoring, items: np.ndarray, starts: np.ndarray,
                  ends: np.ndarray, threshold: float,
                  progress: Callable[[int, int], None] | None, total: int,
                  pairs_above: PairsAbove | None = None,
                  allowed: PairFilter | None = None) -> tuple[list[np.ndarray], ...]:
    """Every pair inside the runs ``items[starts[k]:ends[k]]`` scoring ``>= threshold``.

    Args:
        pair_scores: Scores of the pairs inside runs (:data:`PairScoring`).
        items: Item indices grouped in runs, in index order inside a run.
        starts: First position of each run.
        ends: Past-the-end position of each run.
        threshold: Keep pairs with ``score >= threshold``.
        progress: Called with ``(items done, total)`` after each group of runs.
        total: The ``total`` reported to ``progress``.
        pairs_above: Asked first for the kept pairs (:data:`PairsAbove`); when it gives
            None, or is None, the pairs are listed and scored by ``pair_scores``.
        allowed: Pairs that may merge (:data:`PairFilter`); None keeps every pair.

    Returns:
        Lists of ``i``, ``j`` and score arrays, one entry per group of runs.

    Runs are taken in groups of about :data:`_PAIRS_PER_STEP` pairs (a run is never
    split), so at most one group's pairs are held before ``allowed`` filters them;
    the items of a run are in index order, so each pair comes out as ``(i, j)``
    with ``i < j``.
    """
    out: tuple[list[np.ndarray], ...] = ([], [], [])
    sizes = ends - starts
    if not sizes.size:
        return out
    npairs = sizes * (sizes - 1) // 2
    group = (np.cumsum(npairs) - npairs) // _PAIRS_PER_STEP
    bounds = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    done = 0
    for a, b in zip(bounds, np.r_[bounds[1:], sizes.size].astype(np.int64), strict=True):
        s, st = sizes[a:b], starts[a:b]
        kept = (pairs_above(items, st, st + s, threshold) if pairs_above is not None
                else None)
        if kept is not None:
            for acc, part in zip(out, keep_allowed(allowed, *kept), strict=True):
                acc.append(part)
            done += int(s.sum())
            if progress:
                progress(done, total)
            continue
        # Member positions of the runs, then each member paired with those after it.
        member = np.repeat(st - np.cumsum(s) + s, s) + np.arange(int(s.sum()))
        later = np.repeat(s, s) - (np.arange(int(s.sum())) - np.repeat(np.cumsum(s) - s, s)) - 1
        first = np.repeat(member, later)
        second = first + 1 + (np.arange(int(later.sum())) - np.repeat(np.cumsum(later) - later,
                                                                       later))
        i, j = items[first], items[second]
        sc = pair_scores(items, st, st + s, i, j)
        ok = sc >= threshold
        for acc, part in zip(out, keep_allowed(allowed, i[ok], j[ok], sc[ok]), strict=True):
            acc.append(part)
        done += int(s.sum())
        if progress:
            progress(done, total)
    return out


def sorted_pairs(out_i: list[np.ndarray], out_j: list[np.ndarray],
                  out_s: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The collected pieces as one ``(i, j, score)``, sorted by ``(i, j)``."""
    if not out_i:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty.copy(), np.zeros(0, dtype=np.float64)
    i, j, sc = np.concatenate(out_i), np.concatenate(out_j), np.concatenate(out_s)
    order = np.lexsort((j, i))
    return i[order].astype(np.int64), j[order].astype(np.int64), sc[order].astype(np.float64)


_VERIFY_CELLS = 1 << 22  # scores computed per verification block (32 MB of float64)


def verified_pairs(block: Callable[[np.ndarray, np.ndarray], np.ndarray], ci: np.ndarray,
                   cj: np.ndarray, threshold: float
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The candidate pairs ``(ci, cj)`` that score at least ``threshold``, with their scores.

    Scores come from ``block`` on small row x column blocks (at most about
    ``2**22`` cells), so each pair gets the score the quadratic path gives it.

    Args:
        block: As for :func:`bucketed_pairs`.
        ci: First item of each candidate pair.
        cj: Second item (each pair once).
        threshold: Keep pairs with ``score >= threshold``.

    Returns:
        ``(i, j, score)`` of the kept pairs, sorted by ``(i, j)``.

    Examples:
        >>> s = np.array([[1, .9, .1], [.9, 1, .2], [.1, .2, 1]])
        >>> i, j, sc = verified_pairs(lambda r, c: s[np.ix_(r, c)], np.array([0, 1]),
        ...                           np.array([1, 2]), 0.5)
        >>> i.tolist(), j.tolist(), sc.tolist()
        ([0], [1], [0.9])
    """
    order = np.lexsort((cj, ci))
    ci, cj = np.asarray(ci, np.int64)[order], np.asarray(cj, np.int64)[order]
    rows, first = np.unique(ci, return_index=True)
    last = np.r_[first[1:], ci.size]
    out: list[list[np.ndarray]] = [[], [], []]
    k, step = 0, 256
    while k < rows.size:
        m = min(step, rows.size - k)
        cols = np.unique(cj[first[k]:last[k + m - 1]])
        while m > 1 and m * cols.size > _VERIFY_CELLS:
            m //= 2
            cols = np.unique(cj[first[k]:last[k + m - 1]])
        lo, hi = first[k], last[k + m - 1]
        scores = block(rows[k:k + m], cols)
        sc = scores[np.searchsorted(rows[k:k + m], ci[lo:hi]), np.searchsorted(cols, cj[lo:hi])]
        ok = sc >= threshold
        for acc, part in zip(out, (ci[lo:hi][ok], cj[lo:hi][ok], sc[ok]), strict=True):
            acc.append(part)
        k += m
    return sorted_pairs(*out)

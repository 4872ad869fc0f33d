"""Weighted prefix filter: every pair of a subset that can reach a weighted Jaccard ``t``.

The exact join (:mod:`newsdedup.score.join`) serves plain Jaccard. The dedupe
also scores with IDF-weighted Jaccard, ``W(A & B) / W(A | B)`` with a
positive weight per shingle, and needs the same guarantee inside one large
bucket: no pair at or above the threshold may be lost, while pairs that
cannot reach it are never scored. The weighted form of the prefix filter
gives it:

* ``W(A | B) >= max(W(A), W(B))``, so a pair at ``>= t`` shares at least
  ``t W(A)`` of ``A``'s weight and ``t W(B)`` of ``B``'s.
* Order the shingles rarest first (one global order). The *prefix* of ``A``
  is every shingle from which the rest of ``A`` (that shingle included)
  still weighs ``>= t W(A)``; the shingles after it weigh less than
  ``t W(A)``, so a pair whose shared shingles all lie beyond ``A``'s prefix
  cannot reach ``t``. Two items that reach ``t`` therefore share a shingle
  that lies in both prefixes: candidates are the nonzeros of ``P P^T``.
* ``W(A & B) <= min(W(A), W(B))`` gives the length filter
  ``min(W) >= t max(W)``.

With all weights 1 this is the classic (unweighted) prefix filter. Any global
order is correct; rarest first keeps posting lists short. Weight sums are
compared with a relative slack of ``1e-9`` so rounding can only add
candidates, never drop one. :func:`pair_scores` then scores the candidates
with the float operations of :class:`newsdedup.score.scorers.BlockScorer`
(intersection mass summed in column order, one division), so the scores are
bit-identical to the quadratic path's (tested).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from newsdedup.score.jaccard import (
    DocumentFrequency,
    compiled_pairs,
    idf_weights,
    pair_intersections,
)
from newsdedup.text.shingle import ShingleMatrix

__all__ = ["candidate_mask", "candidate_source", "pair_scores", "prefix_candidates", "row_mass",
           "scorer_weights"]

_SLACK = 1e-9
_PREFIX_SLACK = 1e-6  # only widens prefixes: more candidates, never fewer

PRODUCT_ENTRIES = 1 << 22
"""Most entries one block of :func:`prefix_candidates`' sparse product may hold (bounded
from above before it is computed). Titles of one template share their prefixes, so a
fixed number of rows lists rows x bucket entries at once: 2,048 rows of a 20,000-title
bucket are 41M entries, and that dedupe peaked at 18.4 GB (docs/scale.md)."""


def prefix_candidates(
    x: sp.csr_matrix,
    weights: np.ndarray,
    threshold: float,
    members: np.ndarray,
    block: int = 2048,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Candidate pairs ``i < j`` among ``members`` for weighted Jaccard ``>= threshold``.

    Args:
        x: Items x shingles, nonzero where an item has a shingle (CSR).
        weights: Positive weight per shingle column (ones for plain Jaccard).
        threshold: ``t`` in ``(0, 1]``; no pair scoring ``>= t`` is left out.
        members: Item indices (rows of ``x``) to pair among themselves.
        block: At most this many member rows per sparse product, fewer where the
            product's bound exceeds :data:`PRODUCT_ENTRIES` (memory knobs only).
        progress: Told ``(member rows done, member rows)`` after each block is consumed.

    Yields:
        ``(i, j)`` ``int64`` arrays of item indices, ``i < j``, one block of
        rows at a time; every candidate pair is yielded exactly once.

    Raises:
        ValueError: ``threshold`` outside ``(0, 1]``.

    Examples:
        >>> x = sp.csr_matrix(np.array([[1, 1, 1, 0], [1, 1, 0, 1], [0, 0, 0, 1]]))
        >>> [(i.tolist(), j.tolist()) for i, j in
        ...  prefix_candidates(x, np.ones(4), 0.5, np.arange(3))]
        [([0], [1])]
    """
    t = float(threshold)
    if not 0.0 < t <= 1.0:
        raise ValueError(f"prefix threshold must lie in (0, 1], got {threshold!r}")
    members = np.asarray(members, dtype=np.int64)
    pre = _prefixes(x[members].tocsr(), np.asarray(weights, dtype=np.float64), t)
    mass = pre.mass
    ones = pre.prefix.copy()
    ones.data[:] = 1.0
    for lo, hi in _row_blocks(_product_bound(pre.prefix), block, PRODUCT_ENTRIES):
        # Data: the weight of the prefix shingles a pair shares. Only the member rows after
        # the block's first one as columns: a pair is listed from its smaller row, so the
        # columns up to ``lo`` would all be dropped below (about half of the product's work;
        # the pairs, and their order, are those of the whole product).
        shared = (pre.prefix[lo:hi] @ ones[lo + 1:].T).tocoo()
        r = shared.row.astype(np.int64) + lo
        c = shared.col.astype(np.int64) + lo + 1
        small, large = np.minimum(mass[r], mass[c]), np.maximum(mass[r], mass[c])
        ok = (c > r) & (small >= (t - _SLACK) * large)
        r, c, common = r[ok], c[ok], shared.data[ok]
        # Suffix bound: beyond the prefixes, shared shingles all lie in the
        # suffix of the item whose prefix ends first in the global order.
        rest = np.where(pre.last[r] <= pre.last[c], pre.suffix[r], pre.suffix[c])
        need = (t - _PREFIX_SLACK) / (1 + t) * (mass[r] + mass[c])
        ok = common + rest >= need
        a, b = members[r[ok]], members[c[ok]]
        yield np.minimum(a, b), np.maximum(a, b)
        if progress is not None:
            progress(hi, len(members))


def _product_bound(prefix: sp.csr_matrix) -> np.ndarray:
    """Per row, an upper bound of its entries in the product of ``prefix`` with its transpose.

    The items sharing each of its prefix shingles, summed (never more than every item); a
    bound of the product with any subset of the rows as columns too.
    """
    per_shingle = np.bincount(prefix.indices, minlength=prefix.shape[1])
    rows = np.repeat(np.arange(prefix.shape[0]), np.diff(prefix.indptr))
    bound = np.bincount(rows, weights=per_shingle[prefix.indices], minlength=prefix.shape[0])
    return np.minimum(bound, prefix.shape[0]).astype(np.int64)


def _row_blocks(cost: np.ndarray, max_rows: int, budget: int) -> Iterator[tuple[int, int]]:
    """Consecutive ``(lo, hi)`` row ranges whose summed ``cost`` stays within ``budget``.

    At most ``max_rows`` rows, and one row at least, whatever it costs.

    Examples:
        >>> list(_row_blocks(np.array([1, 1, 5, 1, 1, 1]), 4, 4))
        [(0, 2), (2, 3), (3, 6)]
    """
    ends = np.cumsum(cost)
    lo, n = 0, cost.size
    while lo < n:
        before = int(ends[lo - 1]) if lo else 0
        hi = int(np.searchsorted(ends, before + budget, side="right"))
        hi = min(max(hi, lo + 1), lo + max_rows, n)
        yield lo, hi
        lo = hi


def candidate_mask(x: sp.csr_matrix, weights: np.ndarray, threshold: float, members: np.ndarray,
                   a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """What :func:`prefix_candidates` does with each pair ``(a[p], b[p])`` of ``members``.

    The same prefixes and tests, applied to the given pairs only, so that a
    seeded sample of pairs estimates the filter's work before it runs.
    ``a`` and ``b`` are positions in ``members`` (``a != b``).

    Returns:
        ``(listed, candidate)``: whether the pair shares a prefix shingle (an
        entry of the filter's sparse product, which is its cost: every such
        pair is listed, then tested), and whether it is yielded.

    Examples:
        >>> x = sp.csr_matrix(np.array([[1, 1, 1, 0], [1, 1, 0, 1], [0, 0, 0, 1]]))
        >>> [m.tolist() for m in candidate_mask(x, np.ones(4), 0.5, np.arange(3),
        ...                                     np.array([0, 0]), np.array([1, 2]))]
        [[True, False], [True, False]]
    """
    t = float(threshold)
    pre = _prefixes(x[np.asarray(members, dtype=np.int64)].tocsr(),
                    np.asarray(weights, dtype=np.float64), t)
    r, c = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    pattern = pre.prefix.copy()
    pattern.data[:] = 1.0
    common = np.asarray(pre.prefix[r].multiply(pattern[c]).sum(axis=1)).ravel()
    shares = np.asarray(pattern[r].multiply(pattern[c]).sum(axis=1)).ravel() > 0
    mass = pre.mass
    small, large = np.minimum(mass[r], mass[c]), np.maximum(mass[r], mass[c])
    rest = np.where(pre.last[r] <= pre.last[c], pre.suffix[r], pre.suffix[c])
    need = (t - _PREFIX_SLACK) / (1 + t) * (mass[r] + mass[c])
    return shares, shares & (small >= (t - _SLACK) * large) & (common + rest >= need)


@dataclass(frozen=True)
class _Prefixes:
    """Weighted prefixes of a subset: matrix (rank columns), masses, suffix weights, last ranks."""

    prefix: sp.csr_matrix
    mass: np.ndarray
    suffix: np.ndarray
    last: np.ndarray


def _prefixes(sub: sp.csr_matrix, weights: np.ndarray, t: float) -> _Prefixes:
    """Prefix matrix (columns relabelled rarest first, data = weight) and per-row bounds."""
    sub.sum_duplicates()
    n_rows, n_cols = sub.shape
    df = np.bincount(sub.indices, minlength=n_cols)
    by_rank = np.lexsort((np.arange(n_cols), df))  # column of each rank, rarest first
    rank = np.empty(n_cols, dtype=np.int64)
    rank[by_rank] = np.arange(n_cols)
    sizes = np.diff(sub.indptr)
    # Each row's entries in rank order. The rows are already grouped (CSR), so one
    # in-place sort of ``row * n_cols + rank`` orders them, and the remainder is the
    # rank: no argsort and no gathered copies, which held about 80 bytes an entry
    # (RSS rose by about 2 GB here for the 3-grams of 1M headlines). Every array and
    # sum is the one a lexsort by (row, rank) gives.
    ranks = np.repeat(np.arange(n_rows, dtype=np.int64) * max(n_cols, 1), sizes)
    ranks += rank[sub.indices]
    ranks.sort()
    np.remainder(ranks, max(n_cols, 1), out=ranks)
    w = weights[by_rank[ranks]]
    row_of = np.repeat(np.arange(n_rows, dtype=np.int32), sizes)
    cum = np.cumsum(w)
    # Weight of the row from this shingle on (itself included): row total minus
    # what comes before. A running sum over the whole matrix carries an absolute
    # rounding error of about 1e-16 x its size, hence the wider _PREFIX_SLACK.
    # A bucket of items that all normalize to "" (punctuation-only titles) has no entry:
    # then every row ends at 0, one value per row as np.repeat needs.
    rest = np.repeat(cum[sub.indptr[1:] - 1] if cum.size else np.zeros(sizes.size), sizes)
    rest -= cum  # row_end - cum + w, in that order
    rest += w
    del cum
    mass = np.zeros(n_rows, dtype=np.float64)
    np.add.at(mass, row_of, w)
    keep = rest >= np.repeat((t - _PREFIX_SLACK) * mass, sizes)
    del rest
    keep &= np.repeat(mass > 0, sizes)
    plen = np.bincount(row_of[keep], minlength=sub.shape[0])
    pptr = np.concatenate(([0], np.cumsum(plen)))
    prefix = sp.csr_matrix((w[keep], ranks[keep], pptr), shape=sub.shape)
    pmass = np.zeros(sub.shape[0], dtype=np.float64)
    np.add.at(pmass, row_of[keep], w[keep])
    # Prefixes are leading runs, so the last kept entry of a row ends its prefix.
    last = np.full(sub.shape[0], -1, dtype=np.int64)
    has = plen > 0
    last[has] = ranks[keep][pptr[1:][has] - 1]
    # A few 1e-6 of slack on the suffix: it only loosens the bound.
    suffix = np.maximum(mass - pmass, 0.0) + _PREFIX_SLACK * mass
    return _Prefixes(prefix=prefix, mass=mass, suffix=suffix, last=last)


def scorer_weights(shingled: ShingleMatrix, scorer: str,
                   reference: DocumentFrequency | None = None) -> np.ndarray | None:
    """Per-shingle weights of a scorer, as :func:`newsdedup.score.scorers.make_scorer` uses them.

    Args:
        shingled: The scored items.
        scorer: ``"jaccard"`` (all ones), ``"idf"`` (batch or reference IDF) or
            another name (None: ``"minhash"`` estimates are bounded by no prefix).
        reference: Reference document frequencies of the ``"idf"`` scorer.

    Returns:
        ``float64`` weight per vocabulary column, or None.

    Examples:
        >>> from newsdedup.text.shingle import shingle_matrix
        >>> scorer_weights(shingle_matrix(["abcd"], 3), "jaccard").tolist()
        [1.0, 1.0]
    """
    if scorer == "jaccard":
        return np.ones(len(shingled.vocab), dtype=np.float64)
    if scorer == "idf":
        return idf_weights(shingled) if reference is None else reference.weights(shingled.vocab)
    return None


def row_mass(x: sp.csr_matrix, weights: np.ndarray) -> np.ndarray:
    """Summed weight of each row, computed as the weighted scorer computes it.

    Examples:
        >>> row_mass(sp.csr_matrix(np.array([[1, 0, 1], [0, 1, 0]])), np.array([.5, 2., 1.]))
        array([1.5, 2. ])
    """
    return np.asarray(x.multiply(weights[None, :]).tocsr().sum(axis=1), dtype=np.float64).ravel()


def pair_scores(x: sp.csr_matrix, weights: np.ndarray, mass: np.ndarray, a: np.ndarray,
                b: np.ndarray) -> np.ndarray:
    """Weighted Jaccard of the pairs ``(a[p], b[p])``, bit-identical to the block scorer.

    The block scorer's sparse product adds the weights of the shared shingles
    one by one in column order, starting from 0.0; this adds them in the same
    order (one vectorized step per position, or the compiled merge of
    :func:`newsdedup.score.jaccard.pair_intersections` where
    :func:`~newsdedup.score.jaccard.compiled_pairs` says it pays), then
    divides as :func:`newsdedup.score.jaccard.jaccard_block` does.

    Args:
        x: Items x shingles, 0/1, sorted column indices (CSR).
        weights: Weight per column.
        mass: :func:`row_mass` of ``x``.
        a: First item of each pair.
        b: Second item of each pair.

    Returns:
        ``float64`` score per pair (0.0 for an empty union).

    Examples:
        >>> x = sp.csr_matrix(np.array([[1, 1, 0], [1, 1, 1]]))
        >>> w = np.ones(3)
        >>> pair_scores(x, w, row_mass(x, w), np.array([0]), np.array([1])).tolist()
        [0.6666666666666666]
    """
    out = np.zeros(len(a), dtype=np.float64)
    if compiled_pairs(len(a)):
        inter = pair_intersections(x, a, b, weights)
        union = mass[a] + mass[b] - inter
        np.divide(inter, union, out=out, where=union > 0)
        return out
    for lo in range(0, len(a), _PAIR_CHUNK):
        sl = slice(lo, lo + _PAIR_CHUNK)
        both = x[a[sl]].multiply(x[b[sl]]).tocsr()
        both.sort_indices()
        counts = np.diff(both.indptr)
        row = np.repeat(np.arange(counts.size), counts)
        pos = np.arange(both.indices.size) - np.repeat(both.indptr[:-1], counts)
        vals = weights[both.indices]
        inter = np.zeros(counts.size, dtype=np.float64)
        for p in range(int(counts.max(initial=0))):
            at = pos == p
            inter[row[at]] += vals[at]
        union = mass[a[sl]] + mass[b[sl]] - inter
        np.divide(inter, union, out=out[sl], where=union > 0)
    return out


_PAIR_CHUNK = 1 << 18  # pairs scored at once


def candidate_source(
    shingles: sp.csr_matrix | None, weights: np.ndarray | None, threshold: float
) -> Callable[[np.ndarray, Callable[[int, int], None] | None],
              Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]] | None:
    """Scored prefix candidates of a bucket for one threshold, or None where no prefix applies.

    Args:
        shingles: Items x shingles (CSR), or None.
        weights: From :func:`scorer_weights`, or None.
        threshold: The threshold; outside ``(0, 1]`` every pair qualifies and
            there is nothing to filter.

    Returns:
        ``(members, progress) -> blocks of (i, j, score)`` (:func:`prefix_candidates` scored
        by :func:`pair_scores`), which :func:`newsdedup.cluster.gate.bucketed_pairs`
        takes, or None.
    """
    if shingles is None or weights is None or not 0.0 < threshold <= 1.0:
        return None
    # The sorted copy and the masses are made on the first oversized bucket: most
    # batches have none, and at 100k items they cost 35 ms.
    made: list[tuple[sp.csr_matrix, np.ndarray]] = []

    def candidates(members: np.ndarray, progress: Callable[[int, int], None] | None = None
                   ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        if not made:
            x = shingles.tocsr()
            x.sort_indices()
            made.append((x, row_mass(x, weights)))
        x, mass = made[0]
        for i, j in prefix_candidates(x, weights, threshold, members, progress=progress):
            yield i, j, pair_scores(x, weights, mass, i, j)

    return candidates

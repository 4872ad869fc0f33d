"""Exact and IDF-weighted Jaccard between all items, vectorized.

All-pairs scores come from one sparse product: with ``X`` the 0/1 item x
shingle matrix, ``X @ X.T`` holds every intersection size and
``|A| + |B| - |A & B|`` every union size. Nothing loops over pairs in
Python. Rows are processed in blocks so memory stays ``O(block x N)``.

Pairs are always reported as ``i < j`` in row-major order (the order of
:func:`itertools.combinations`), which makes every table deterministic.

Scores are floats in ``[0, 1]``. A pair whose union is empty (both texts
shorter than n) scores 0.0; see :mod:`newsdedup.text.shingle` for why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from newsdedup.text.shingle import ShingleMatrix

DEFAULT_BLOCK = 2048


def jaccard_block(
    inter: np.ndarray, sizes_rows: np.ndarray, sizes_all: np.ndarray
) -> np.ndarray:
    """Jaccard scores of a block of rows from their intersections: ``inter / union``.

    The one float64 division every exact path (dense, joined, IDF-weighted) uses, so
    their scores agree bit for bit. A pair with an empty union scores 0.0.

    Args:
        inter: Intersection sizes (or masses), ``rows x columns``.
        sizes_rows: Size (or mass) of each row's item.
        sizes_all: Size (or mass) of each column's item.

    Returns:
        float64 scores, the shape of ``inter``.

    Examples:
        >>> jaccard_block(np.array([[2.0, 0.0]]), np.array([3.0]), np.array([3.0, 0.0]))
        array([[0.5, 0. ]])
    """
    union = sizes_rows[:, None] + sizes_all[None, :] - inter
    out = np.zeros(inter.shape, dtype=np.float64)
    np.divide(inter, union, out=out, where=union > 0)
    return out


def jaccard_matrix(shingled: ShingleMatrix, block: int = DEFAULT_BLOCK) -> np.ndarray:
    """Dense ``N x N`` matrix of exact Jaccard similarities.

    The diagonal holds 1.0 for non-empty items and 0.0 for empty ones.

    Args:
        shingled: Items as a shingle matrix.
        block: Rows per sparse product (memory knob only).

    Returns:
        ``float64`` array of shape ``(N, N)``, symmetric, values in ``[0, 1]``.

    Examples:
        >>> from newsdedup.text.shingle import shingle_matrix
        >>> jaccard_matrix(shingle_matrix(["abcd", "bcde"], 3)).round(3).tolist()
        [[1.0, 0.333], [0.333, 1.0]]
    """
    x = shingled.matrix
    sizes = shingled.sizes
    n = x.shape[0]
    out = np.empty((n, n), dtype=np.float64)
    xt = x.T.tocsc()
    for lo in range(0, n, block):
        hi = min(lo + block, n)
        inter = (x[lo:hi] @ xt).toarray().astype(np.int64)
        out[lo:hi] = jaccard_block(inter, sizes[lo:hi], sizes)
    return out


@dataclass(frozen=True)
class PairScores:
    """Scores of all unordered pairs ``i < j`` in combinations order.

    Attributes:
        i: First item index per pair, ``int64``.
        j: Second item index per pair, ``int64`` (always ``> i``).
        score: Similarity per pair, ``float64`` in ``[0, 1]``.
    """

    i: np.ndarray
    j: np.ndarray
    score: np.ndarray

    def __len__(self) -> int:
        """Number of pairs."""
        return int(self.score.shape[0])

    def at_or_above(self, threshold: float) -> np.ndarray:
        """Boolean mask of pairs with ``score >= threshold``."""
        return self.score >= threshold

    def count_at_or_above(self, thresholds: np.ndarray | list[float]) -> np.ndarray:
        """Number of pairs with ``score >= t`` for each threshold ``t`` (vectorized).

        Examples:
            >>> ps = PairScores(np.array([0, 0]), np.array([1, 2]), np.array([0.2, 0.5]))
            >>> ps.count_at_or_above([0.1, 0.2, 0.3, 0.6]).tolist()
            [2, 2, 1, 0]
        """
        ordered = np.sort(self.score)
        t = np.asarray(thresholds, dtype=np.float64)
        return (len(ordered) - np.searchsorted(ordered, t, side="left")).astype(np.int64)

    def top(self, k: int) -> np.ndarray:
        """Positions of the ``k`` highest-scoring pairs, best first.

        Ties are broken by the later pair first (larger ``i``, then larger
        ``j``): the order of sorting ``(score, i, j)`` tuples descending,
        which is how the published top-12 table is ordered.
        """
        order = np.lexsort((self.j, self.i, self.score))[::-1]
        return order[:k]

    def max(self) -> float:
        """Highest score, 0.0 when there are no pairs."""
        return float(self.score.max()) if len(self) else 0.0


def upper_pairs(matrix: np.ndarray, like: PairScores | None = None) -> PairScores:
    """Condense a symmetric score matrix to its pairs ``i < j``.

    Args:
        matrix: ``N x N`` scores.
        like: Pairs of another matrix of the same items; their ``i``, ``j``
            arrays are reused (at 6,000 items they are 20M pairs, worth
            building once per corpus, not once per scorer).

    Examples:
        >>> m = np.array([[1.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 1.0]])
        >>> upper_pairs(m).score.tolist()
        [0.5, 0.1, 0.2]
        >>> upper_pairs(m * 2, like=upper_pairs(m)).score.tolist()
        [1.0, 0.2, 0.4]
    """
    if like is None:
        i, j = np.triu_indices(matrix.shape[0], k=1)
        i, j = i.astype(np.int64), j.astype(np.int64)
    else:
        i, j = like.i, like.j
    return PairScores(i=i, j=j, score=matrix[i, j])


def all_pairs_jaccard(shingled: ShingleMatrix, block: int = DEFAULT_BLOCK) -> PairScores:
    """Exact Jaccard of every pair ``i < j``.

    Examples:
        >>> from newsdedup.text.shingle import shingle_matrix
        >>> ps = all_pairs_jaccard(shingle_matrix(["abcd", "bcde", "xyz"], 3))
        >>> ps.score.round(3).tolist()
        [0.333, 0.0, 0.0]
    """
    return upper_pairs(jaccard_matrix(shingled, block))


@dataclass(frozen=True)
class DocumentFrequency:
    """How many documents of a reference corpus contain each shingle.

    Batch IDF (seed 000) is unstable for small batches: in a batch of five
    headlines every shingle is rare. Passing the document frequencies of a
    larger reference corpus (yesterday's feed, an archive) fixes the weights.
    Two tables built on disjoint parts of a corpus add up (:meth:`merge`) to
    the table of the whole, which is how a distributed run gets global IDF.

    Attributes:
        n_docs: Number of documents counted, ``>= 0``.
        counts: ``int64`` document frequency per shingle, indexed by the
            shingle string (sorted, so equal tables compare equal).
        n: The n-gram size the shingles were cut with.
    """

    n_docs: int
    counts: pd.Series
    n: int

    @classmethod
    def from_shingles(cls, shingled: ShingleMatrix) -> DocumentFrequency:
        """Count the documents of a shingle matrix.

        Examples:
            >>> from newsdedup.text.shingle import shingle_matrix
            >>> df = DocumentFrequency.from_shingles(shingle_matrix(["abcd", "bcd"], 3))
            >>> df.n_docs, df.counts.to_dict()
            (2, {'abc': 1, 'bcd': 2})
        """
        x = shingled.matrix
        df = np.bincount(x.indices, minlength=x.shape[1]).astype(np.int64)
        counts = pd.Series(df, index=pd.Index(list(shingled.vocab), dtype=object), name="df")
        return cls(n_docs=int(x.shape[0]), counts=counts.sort_index(), n=shingled.n)

    def merge(self, other: DocumentFrequency) -> DocumentFrequency:
        """The table of both corpora together (document counts add)."""
        if other.n != self.n:
            raise ValueError(f"cannot merge document frequencies of n={self.n} and n={other.n}")
        counts = self.counts.add(other.counts, fill_value=0).astype(np.int64).sort_index()
        return DocumentFrequency(self.n_docs + other.n_docs, counts.rename("df"), self.n)

    def weights(self, vocab: Sequence[str]) -> np.ndarray:
        """IDF ``log(1 + N / (1 + df))`` of each shingle of ``vocab`` under this table.

        A shingle the reference never saw has ``df = 0`` and gets the largest
        weight, ``log(1 + N)``.

        Examples:
            >>> from newsdedup.text.shingle import shingle_matrix
            >>> ref = DocumentFrequency.from_shingles(shingle_matrix(["abcd", "bcd"], 3))
            >>> ref.weights(["bcd", "zzz"]).round(4).tolist()
            [0.5108, 1.0986]
        """
        pos = self.counts.index.get_indexer(pd.Index(list(vocab), dtype=object))
        df = np.where(pos >= 0, self.counts.to_numpy()[np.maximum(pos, 0)], 0).astype(np.float64)
        return np.log1p(self.n_docs / (1.0 + df))


def idf_weights(shingled: ShingleMatrix) -> np.ndarray:
    """Batch IDF of each shingle, as in seed 000.

    ``w = log(1 + N / (1 + df))`` with ``N`` the number of items and ``df``
    the number of items containing the shingle. Always positive; rarer
    shingles weigh more. Computed per batch, so it is unstable for very small
    batches (seed 000's stated limitation).

    Returns:
        ``float64`` weights, one per vocabulary column.
    """
    x = shingled.matrix
    df = np.bincount(x.indices, minlength=x.shape[1]).astype(np.float64)
    return np.log1p(x.shape[0] / (1.0 + df))


def pair_jaccard(
    shingled: ShingleMatrix, i: np.ndarray, j: np.ndarray, weights: np.ndarray | None = None
) -> np.ndarray:
    """Jaccard (or weighted Jaccard) of the given pairs of rows only, ``(i[p], j[p])``.

    For a few pairs out of many items (the same-story pairs of a corpus, the two sides of
    sentence pairs) this avoids the dense ``N x N`` matrix: each intersection is the row
    sum of an element-wise product of two gathered sparse rows, or, unweighted and from
    :data:`PAIR_KERNEL_MIN_PAIRS` pairs, a compiled merge of the two rows in place.

    Args:
        shingled: Items as a shingle matrix.
        i: First row of each pair.
        j: Second row of each pair.
        weights: One weight per shingle for weighted Jaccard; None counts each shingle once
            (integer counts, so the score is bit-identical to ``len(a & b) / len(a | b)``).

    Returns:
        ``float64`` scores in ``[0, 1]``, one per pair; 0.0 where the union is empty.

    Examples:
        >>> from newsdedup.text.shingle import shingle_matrix
        >>> m = shingle_matrix(["abcd", "bcde", "xyz"], 3)
        >>> pair_jaccard(m, np.array([0, 0]), np.array([1, 2])).round(3).tolist()
        [0.333, 0.0]
    """
    x = shingled.matrix
    i, j = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
    inter: np.ndarray
    if weights is not None:
        w = np.asarray(weights, dtype=np.float64)
        inter = np.asarray(x[i].multiply(x[j]) @ w, dtype=np.float64).ravel()
        mass = np.asarray(x @ w, dtype=np.float64).ravel()
    else:
        inter = (pair_intersections(x, i, j) if compiled_pairs(len(i))
                 else np.asarray(x[i].multiply(x[j]).sum(axis=1), dtype=np.int64).ravel())
        mass = shingled.sizes
    union = mass[i] + mass[j] - inter
    out = np.zeros(len(inter), dtype=np.float64)
    np.divide(inter, union, out=out, where=union > 0)
    # Weighted sums can round a hair past 1 for identical sets; the score lives in [0, 1].
    return np.clip(out, 0.0, 1.0)


PAIR_KERNEL_MIN_PAIRS = 1 << 17
"""Pairs from which :func:`compiled_pairs` says a pair scorer should use the compiled merge.

The sparse paths gather both rows of every pair and multiply them, about
1.3 us a pair at 50 shingles a row; the merge (:func:`pair_intersections`)
reads the rows in place on two threads, about ten times faster, once numba
and its cached code are loaded (about half a second). So: compiled from this
many pairs, or at any count in a process that has already loaded numba. The
results are the same numbers either way (tested)."""


def compiled_pairs(n_pairs: int) -> bool:
    """Whether scoring ``n_pairs`` pairs repays the compiled merge (:data:`PAIR_KERNEL_MIN_PAIRS`).

    Examples:
        >>> compiled_pairs(0)
        False
    """
    import sys

    return n_pairs >= PAIR_KERNEL_MIN_PAIRS or (n_pairs > 0 and "numba" in sys.modules)


def pair_intersections(x: sp.csr_matrix, i: np.ndarray, j: np.ndarray,
                       weights: np.ndarray | None = None) -> np.ndarray:
    """Per pair ``(i[p], j[p])``, the shared columns' count (or summed weight), compiled.

    One merge of the two sorted rows per pair, read in place, the pairs split
    over two threads. With ``weights``, the shared weights are added in
    ascending column order from 0.0, as the sparse product adds them, so the
    sums are the same floats.

    Args:
        x: Items x shingles, 0/1 (CSR; its columns need not be sorted).
        i: First row of each pair.
        j: Second row of each pair.
        weights: One weight per column, or None to count.

    Returns:
        ``int64`` counts, or ``float64`` sums with ``weights``.

    Examples:
        >>> x = sp.csr_matrix(np.array([[1, 1, 0], [1, 1, 1]]))
        >>> pair_intersections(x, np.array([0]), np.array([1])).tolist()
        [2]
    """
    from newsdedup.score.kernels import shared_weights
    from newsdedup.score.minhash import on_two_threads

    if not x.has_sorted_indices:
        x = x.sorted_indices()
    # The row pointers (one per item) as int64, the columns as they are: int32 below 2**31
    # columns. A copy of the columns would cost more than the merge on small pair blocks.
    indptr = x.indptr.astype(np.int64, copy=False)
    indices = x.indices if x.indices.dtype == np.int32 else x.indices.astype(np.int64)
    i, j = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
    # Counting adds weights of 1.0: exact integers in float64 up to 2**53 shared columns.
    w = (np.ones(x.shape[1], dtype=np.float64) if weights is None
         else np.asarray(weights, dtype=np.float64))
    sums = np.empty(len(i), dtype=np.float64)
    per_row = max(1, len(indices) // max(x.shape[0], 1))  # a pair reads two rows
    on_two_threads(lambda lo, hi: shared_weights(indptr, indices, w, i[lo:hi], j[lo:hi],
                                                 sums[lo:hi]), len(i), 2 * per_row)
    return sums.astype(np.int64) if weights is None else sums


def weighted_jaccard_matrix(
    shingled: ShingleMatrix, weights: np.ndarray | None = None, block: int = DEFAULT_BLOCK
) -> np.ndarray:
    """Dense matrix of weighted Jaccard: summed weight of the intersection over the union's.

    Args:
        shingled: Items as a shingle matrix.
        weights: One non-negative weight per shingle; defaults to :func:`idf_weights`.
        block: Rows per sparse product.

    Returns:
        ``float64`` ``N x N`` array in ``[0, 1]``; 0.0 where the union weighs nothing.
    """
    w = idf_weights(shingled) if weights is None else np.asarray(weights, dtype=np.float64)
    x = shingled.matrix
    xw = x.multiply(w[None, :]).tocsr()
    mass = np.asarray(xw.sum(axis=1)).ravel()
    xt = sp.csc_matrix(x.T)
    n = x.shape[0]
    out = np.empty((n, n), dtype=np.float64)
    for lo in range(0, n, block):
        hi = min(lo + block, n)
        inter = (xw[lo:hi] @ xt).toarray()
        out[lo:hi] = jaccard_block(inter, mass[lo:hi], mass)
    return out

"""Character n-gram shingles and the item x shingle incidence matrix.

A text of length L (after normalization) has ``max(L - n + 1, 0)`` windows of
``n`` characters; its shingle *set* drops repeats. A text shorter than ``n``
has the empty set. Similarity code treats two empty sets as having Jaccard
0.0 (nothing in common is known), and an empty set against anything as 0.0:
a too-short item never counts as a duplicate by shingles alone. That is the
convention of the published calibration script and the safe one for dedupe,
where a false merge loses an article.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp


def shingles(text: str, n: int) -> set[str]:
    """Set of the character n-grams of an already normalized text.

    Args:
        text: Normalized text.
        n: Window length in characters, ``n >= 1``.

    Returns:
        The distinct n-grams; empty when ``len(text) < n``.

    Examples:
        >>> sorted(shingles("스마트돌봄", 3))
        ['마트돌', '스마트', '트돌봄']
        >>> shingles("ab", 3)
        set()
    """
    if n < 1:
        raise ValueError(f"n-gram size must be >= 1, got {n}")
    return {text[i : i + n] for i in range(len(text) - n + 1)}


@dataclass(frozen=True)
class ShingleMatrix:
    """Shingle sets of a collection as a sparse 0/1 matrix.

    Attributes:
        matrix: CSR matrix, shape ``(n_items, n_shingles)``, dtype ``int32``,
            entries 1 where the item contains the shingle. Column indices are
            sorted within each row.
        vocab: The shingle strings, one per column, in first-seen order
            (item order, then position in the text), so the layout is
            deterministic.
        n: The n-gram size.
    """

    matrix: sp.csr_matrix
    vocab: list[str]
    n: int

    @property
    def sizes(self) -> np.ndarray:
        """Number of distinct shingles per item, ``int64`` of shape ``(n_items,)``."""
        return np.diff(self.matrix.indptr).astype(np.int64)

    @property
    def n_items(self) -> int:
        return self.matrix.shape[0]

    def row(self, i: int) -> set[str]:
        """Shingle set of item ``i`` as strings (for display and tests)."""
        lo, hi = self.matrix.indptr[i], self.matrix.indptr[i + 1]
        return {self.vocab[j] for j in self.matrix.indices[lo:hi]}


def shingle_matrix(texts: Sequence[str], n: int) -> ShingleMatrix:
    """Build the incidence matrix of normalized texts.

    Args:
        texts: Normalized texts, one per item.
        n: n-gram size, ``n >= 1``.

    Returns:
        A :class:`ShingleMatrix` with one row per text.

    Examples:
        >>> m = shingle_matrix(["abcd", "bcde", "a"], 3)
        >>> m.sizes.tolist()
        [2, 2, 0]
        >>> m.vocab
        ['abc', 'bcd', 'cde']
    """
    if n < 1:
        raise ValueError(f"n-gram size must be >= 1, got {n}")
    index: dict[str, int] = {}
    indptr = [0]
    indices: list[int] = []
    for text in texts:
        cols = {index.setdefault(text[i : i + n], len(index)) for i in range(len(text) - n + 1)}
        indices.extend(sorted(cols))
        indptr.append(len(indices))
    data = np.ones(len(indices), dtype=np.int32)
    matrix = sp.csr_matrix(
        (data, np.asarray(indices, dtype=np.int32), np.asarray(indptr, dtype=np.int64)),
        shape=(len(texts), len(index)),
    )
    return ShingleMatrix(matrix=matrix, vocab=list(index), n=n)

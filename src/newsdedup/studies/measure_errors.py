"""The MinHash error study of ``newsdedup measure``: error against the number of permutations.

For each hash family and permutation count ``k`` it measures ``|estimate -
exact|`` over the corpus's pairs, or over a seeded sample of them when every
pair would cost more than the study's budget
(:func:`newsdedup.studies.cost.error_plan`), beside the theoretical error.
Split from :mod:`newsdedup.studies.measure`, which re-exports these names.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from newsdedup.score.jaccard import PairScores
from newsdedup.score.minhash import MinHashConfig, signatures
from newsdedup.studies.defaults import ERROR_PERMS
from newsdedup.text.shingle import ShingleMatrix, ShingleVocab

__all__ = ["column_codes", "error_intervals", "error_pair_sample", "error_table",
           "error_vs_num_perm", "prefix_agreements", "segment_agreements",
           "touched_rows"]


def error_pair_sample(n_pairs: int, max_pairs: int, seed: int = 0) -> np.ndarray:
    """Positions of the pairs used by the error study: all, or a seeded sample.

    Examples:
        >>> error_pair_sample(5, 10).tolist()
        [0, 1, 2, 3, 4]
        >>> len(error_pair_sample(1000, 10))
        10
    """
    if n_pairs <= max_pairs:
        return np.arange(n_pairs)
    return np.sort(np.random.default_rng(seed).choice(n_pairs, size=max_pairs, replace=False))


def error_vs_num_perm(
    shingled: ShingleMatrix,
    exact: PairScores,
    families: Sequence[MinHashConfig],
    perms: Sequence[int] = ERROR_PERMS,
    max_pairs: int = 250_000,
) -> pd.DataFrame:
    """MinHash estimation error against the number of permutations.

    For each family and ``k`` it reports the measured mean, max and RMS of
    ``|estimate - exact|`` over the pairs, the theoretical RMS
    ``sqrt(mean(J(1-J))/k)`` (the root of the mean binomial variance), and
    the worst-case standard error ``sqrt(0.25/k)`` at ``J = 0.5``. Up to
    ``max_pairs`` pairs are all used (the published corpus has 74,691); a
    larger corpus uses a seeded sample of that size, and the ``pairs`` column
    says how many.

    Returns:
        DataFrame with columns family, scheme, seed, num_perm, pairs, err_mean,
        err_max, rmse, theory_rmse, theory_se_max.
    """
    pick = error_pair_sample(len(exact), max_pairs)
    i, j = exact.i[pick], exact.j[pick]
    rows = np.unique(np.concatenate([i, j]))
    if len(rows) < shingled.n_items:
        # A sample touching some items: sign only those (a row's signature does not depend
        # on the other rows, so the values are the same).
        shingled = touched_rows(shingled, rows)
        i, j = np.searchsorted(rows, i), np.searchsorted(rows, j)
    return error_table(shingled, i, j, exact.score[pick], families, perms)


def touched_rows(shingled: ShingleMatrix, rows: np.ndarray) -> ShingleMatrix:
    """The shingle matrix of some rows, vocabulary cut to their shingles.

    Signatures hash each shingle string, so a row's signature does not depend
    on the other rows: it equals the row of the full collection's signatures,
    at the cost of the rows' vocabulary only.
    """
    import scipy.sparse as sp

    x = shingled.matrix[np.asarray(rows, dtype=np.int64)]
    used = np.unique(x.indices)
    remap = np.zeros(x.shape[1], dtype=np.int64)
    remap[used] = np.arange(len(used))
    m = sp.csr_matrix((x.data, remap[x.indices], x.indptr), shape=(x.shape[0], len(used)))
    vocab = shingled.vocab
    return ShingleMatrix(m, vocab.take(used) if isinstance(vocab, ShingleVocab)
                         else [vocab[c] for c in used.tolist()], shingled.n)


def error_table(shingled: ShingleMatrix, i: np.ndarray, j: np.ndarray, score: np.ndarray,
                families: Sequence[MinHashConfig], perms: Sequence[int]) -> pd.DataFrame:
    """:func:`error_vs_num_perm` on given pairs ``(i, j)`` with their exact scores."""
    empty = shingled.sizes == 0
    beside_empty = empty[i] | empty[j]
    var = math.fsum(score * (1.0 - score)) / len(score) if len(score) else float("nan")
    ks = [int(k) for k in perms]
    rows = []
    for base in families:
        if base.family == "crc32-mersenne61" and ks:
            # Its permutations are drawn one after another from one seed, so the k-permutation
            # signature is the first k columns of the widest one: hash the vocabulary once,
            # and count each pair's agreements once, at every k.
            widest = signatures(shingled, MinHashConfig(**(base.as_dict() | {"num_perm": max(ks)})))
            counts = prefix_agreements(widest, i, j, ks)
        else:
            # Other families draw each width's permutations anew (datasketch draws all of a
            # signature's multipliers, then all its offsets): one signature per k, side by
            # side, so each pair's rows are gathered once for every k.
            sigs = [signatures(shingled, MinHashConfig(**(base.as_dict() | {"num_perm": k})))
                    for k in ks]
            starts = np.cumsum([0, *ks[:-1]])
            side = segment_agreements(np.hstack(sigs) if sigs else np.zeros((len(empty), 0)),
                                      i, j, starts)
            counts = {k: side[:, s] for s, k in enumerate(ks)}
        for k in ks:
            params = MinHashConfig(**(base.as_dict() | {"num_perm": k}))
            # estimate_pairs' own arithmetic: agreements / k, 0.0 beside an empty item.
            est = counts[k] / k
            est[beside_empty] = 0.0
            err = np.abs(est - score)
            rows.append(
                {
                    "family": params.family,
                    "scheme": params.scheme,
                    "seed": params.seed,
                    "num_perm": int(k),
                    "pairs": len(score),
                    "err_mean": math.fsum(err) / len(err),
                    "err_max": float(err.max()),
                    "rmse": math.sqrt(math.fsum(err * err) / len(err)),
                    "theory_rmse": math.sqrt(var / k),
                    "theory_se_max": math.sqrt(0.25 / k),
                }
            )
    return pd.DataFrame(rows)


def prefix_agreements(sigs: np.ndarray, i: np.ndarray, j: np.ndarray, ks: Sequence[int],
                      chunk: int = 1 << 22) -> dict[int, np.ndarray]:
    """Per ``k`` in ``ks``, how many of the first ``k`` signature positions pairs ``(i, j)`` share.

    One comparison of the widest signatures instead of one per ``k``; the
    counts equal ``estimate_pairs(sigs[:, :k], ...) * k`` (tested).

    Examples:
        >>> s = np.array([[1, 2, 3, 4], [1, 0, 3, 4]], dtype=np.uint64)
        >>> {k: v.tolist() for k, v in prefix_agreements(s, np.array([0]), np.array([1]),
        ...                                              [2, 4]).items()}
        {2: [1], 4: [3]}
    """
    cuts = sorted({int(k) for k in ks})
    if not cuts:
        return {}
    # Agreements between consecutive cuts, then running totals.
    running = np.cumsum(segment_agreements(sigs[:, :cuts[-1]], i, j, np.r_[0, cuts[:-1]],
                                           chunk), axis=1)
    return {k: running[:, c] for c, k in enumerate(cuts)}


def segment_agreements(sigs: np.ndarray, i: np.ndarray, j: np.ndarray, starts: np.ndarray,
                       chunk: int = 1 << 22) -> np.ndarray:
    """How many positions pairs ``(i, j)`` share in each run of columns starting at ``starts``.

    Segment ``s`` holds the columns from ``starts[s]`` up to the next start
    (the last one to the end). The rows of every pair are gathered once, as
    :func:`column_codes` (a quarter of the bytes of ``uint64`` values): that
    gather is the cost (1,000 items, 85k pairs x 1,024 positions: 0.35-0.50 s
    as ``uint64``, 0.16 s as codes).

    Args:
        sigs: Signatures ``(N, width)``.
        i: First item of each pair.
        j: Second item of each pair.
        starts: Increasing first columns of the segments, ``starts[0] == 0``.
        chunk: Values compared at once (memory knob only).

    Returns:
        ``int64`` array ``(len(i), len(starts))``.

    Examples:
        >>> s = np.array([[1, 2, 3, 4, 5], [1, 0, 3, 4, 0]], dtype=np.uint64)
        >>> segment_agreements(s, np.array([0]), np.array([1]), np.array([0, 2])).tolist()
        [[1, 2]]
    """
    starts = np.asarray(starts, dtype=np.int64)
    out = np.zeros((len(i), len(starts)), dtype=np.int64)
    width = sigs.shape[1]
    if not len(i) or not width:
        return out
    codes = column_codes(sigs)
    step = max(1, chunk // width)
    # A segment's count is at most its width: the smallest unsigned type holding it is exact.
    dtype = np.min_scalar_type(width)
    for lo in range(0, len(i), step):
        eq = (codes[i[lo:lo + step]] == codes[j[lo:lo + step]]).view(np.uint8)
        out[lo:lo + step] = np.add.reduceat(eq, starts, axis=1, dtype=dtype)
    return out


def column_codes(sigs: np.ndarray) -> np.ndarray:
    """Each column's values renumbered ``0, 1, ...`` in sorted order, in the smallest dtype.

    Two rows agree at a position exactly when their codes do, so agreement
    counts are unchanged; the codes of ``N`` rows are below ``N`` (``uint16``
    up to 65,536 rows, else ``uint32``).

    Examples:
        >>> column_codes(np.array([[7, 2**60], [3, 2**60], [7, 5]], dtype=np.uint64)).tolist()
        [[1, 1], [0, 1], [1, 0]]
    """
    n = sigs.shape[0]
    dtype = np.uint16 if n <= 1 << 16 else np.uint32
    # Each column sorted as a contiguous row of the transpose (sorting down the columns of
    # the row-major signatures is strided: 0.14 s -> 0.07 s at 1,000 x 2,032).
    columns = np.ascontiguousarray(sigs.T)
    order = np.argsort(columns, axis=1)
    ordered = np.take_along_axis(columns, order, axis=1)
    ranks = np.zeros(columns.shape, dtype=dtype)
    if n > 1:
        np.cumsum(ordered[:, 1:] != ordered[:, :-1], axis=1, dtype=dtype, out=ranks[:, 1:])
    codes = np.empty_like(ranks)
    np.put_along_axis(codes, order, ranks, axis=1)
    return np.ascontiguousarray(codes.T)


def error_intervals(errors: pd.DataFrame, total_pairs: int, confidence: float) -> pd.DataFrame:
    """Add a normal interval of ``err_mean`` where the error table used a sample of the pairs.

    The spread comes from the table itself (``rmse`` and ``err_mean`` give the
    sample variance). A table over every pair is returned unchanged.
    """
    if errors.empty or int(errors["pairs"].max()) >= total_pairs:
        return errors
    from newsdedup.studies.quantiles import norm_ppf  # sampled tables only: no scipy.special
    m = errors["pairs"].to_numpy(dtype=np.float64)
    var = np.maximum(errors["rmse"] ** 2 - errors["err_mean"] ** 2, 0.0) * m / np.maximum(m - 1, 1)
    half = norm_ppf(0.5 + confidence / 2) * np.sqrt(var / m)
    return errors.assign(err_mean_lo=np.maximum(errors["err_mean"] - half, 0.0),
                         err_mean_hi=errors["err_mean"] + half, method="sampled",
                         of_pairs=total_pairs)

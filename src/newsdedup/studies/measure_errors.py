"""The MinHash error study of ``newsdedup measure``: error against the number of permutations.

For each hash family and permutation count ``k`` it measures ``|estimate -
exact|`` over the corpus's pairs, or over a seeded sample of them when every
pair would cost more than the study's budget
(:func:`newsdedup.studies.cost.error_plan`), beside the theoretical error.
Split from :mod:`newsdedup.studies.measure`, which re-exports these names.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence

import numpy as np
import pandas as pd

from newsdedup.score.jaccard import PairScores
from newsdedup.score.minhash import NUMBA_MIN_CELLS, MinHashConfig, estimate_pairs, signatures
from newsdedup.studies.defaults import ERROR_PERMS
from newsdedup.text.shingle import ShingleMatrix, ShingleVocab

__all__ = ["error_intervals", "error_pair_sample", "error_table", "error_vs_num_perm",
           "prefix_agreements", "touched_rows"]


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
    var = math.fsum(score * (1.0 - score)) / len(score) if len(score) else float("nan")
    # numba only where this process has already paid for its import (about half a second):
    # the counts, and so the estimates, are the same either way.
    kernel = "auto" if "numba" in sys.modules else "numpy"
    rows = []
    for base in families:
        prefix_counts = None
        if base.family == "crc32-mersenne61" and len(perms):
            # Its permutations are drawn one after another from one seed, so the k-permutation
            # signature is the first k columns of the widest one: hash the vocabulary once,
            # and count each pair's agreements once, at every k.
            widest = signatures(shingled, MinHashConfig(**(base.as_dict()
                                                           | {"num_perm": int(max(perms))})))
            prefix_counts = prefix_agreements(widest, i, j, [int(k) for k in perms])
        for k in perms:
            params = MinHashConfig(**(base.as_dict() | {"num_perm": int(k)}))
            if prefix_counts is not None:
                # estimate_pairs' own arithmetic: agreements / k, 0.0 beside an empty item.
                est = prefix_counts[int(k)] / int(k)
                est[empty[i] | empty[j]] = 0.0
            else:
                sigs = signatures(shingled, params)
                numpy_path = kernel == "numpy" or len(i) * int(k) < NUMBA_MIN_CELLS
                if numpy_path and params.family == "datasketch" and params.scheme == "affine32":
                    # Its values are taken mod 2**32: compared as uint32 they are the same
                    # agreements from half the memory traffic (the numpy path's gathers of
                    # both rows of every pair are this loop's cost: 0.80 s -> 0.29 s over
                    # the seven k of a 1,000-item sample). The compiled path reads rows in
                    # place and is compiled for uint64: left as it is.
                    sigs = sigs.astype(np.uint32)
                est = estimate_pairs(sigs, empty, i, j, kernel=kernel)
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
    out = {k: np.empty(len(i), dtype=np.int64) for k in cuts}
    step = max(1, chunk // max(cuts[-1], 1)) if cuts else 1
    bounds = np.r_[0, cuts]
    for lo in range(0, len(i), step):
        a, b = i[lo:lo + step], j[lo:lo + step]
        eq = sigs[a, :cuts[-1]] == sigs[b, :cuts[-1]]
        # Agreements per segment between consecutive cuts, then running totals.
        seg = np.add.reduceat(eq, bounds[:-1], axis=1, dtype=np.int64) if len(a) else \
            np.zeros((0, len(cuts)), dtype=np.int64)
        for c, k in enumerate(cuts):
            out[k][lo:lo + step] = seg[:, :c + 1].sum(axis=1)
    return out


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

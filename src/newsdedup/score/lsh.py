"""MinHash LSH candidates at scale, and their recall against the exact join per similarity bin.

Two ways to get LSH candidate pairs from the same signatures
(:func:`newsdedup.score.minhash.signatures`, either family):

* :func:`datasketch_candidates` -- what a datasketch user runs: every item is
  inserted into a :class:`datasketch.MinHashLSH` with explicit bands x rows
  and queried back;
* :func:`newsdedup.score.minhash.lsh_candidate_pairs` -- vectorized banding (one
  sort per band). datasketch keys a band by its exact bytes, so both give the
  same pairs (tested); the vectorized one is the path for large batches.

:func:`choose_bands` picks bands x rows for a threshold and ``k``: the choice of
datasketch's optimiser (equal false-positive / false-negative weights; made
without datasketch by :func:`~newsdedup.score.minhash.lsh_params`) or, given a
recall target, the cheapest banding whose S-curve ``1 - (1 - s^r)^b`` reaches
it at the threshold. :func:`recall_by_bin` is the curve a user needs to choose
between exact and approximate: the share of true pairs (from
:func:`newsdedup.score.join.threshold_join`) that LSH proposes, per Jaccard bin,
beside the S-curve's expectation, and the number of candidates per true pair.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import datasketch
import numpy as np
import pandas as pd

from newsdedup.score.bins import bin_of, check_edges
from newsdedup.score.jaccard import PairScores
from newsdedup.score.minhash import MinHashConfig, lsh_params

__all__ = [
    "Banding",
    "candidate_probability",
    "choose_bands",
    "datasketch_candidates",
    "recall_by_bin",
]


def candidate_probability(s: np.ndarray | float, bands: int, rows: int) -> np.ndarray:
    """Chance that a pair of Jaccard ``s`` shares a band: ``1 - (1 - s**rows)**bands``.

    Examples:
        >>> float(candidate_probability(1.0, 4, 8)), float(candidate_probability(0.0, 4, 8))
        (1.0, 0.0)
    """
    s = np.asarray(s, dtype=np.float64)
    return 1.0 - (1.0 - s**rows) ** bands


@dataclass(frozen=True)
class Banding:
    """An LSH banding and why it was chosen; written into every output that uses it.

    Attributes:
        bands: Number of bands ``b``.
        rows: Permutations per band ``r`` (``b * r <= num_perm``).
        num_perm: Signature length ``k``.
        threshold: The Jaccard threshold it was chosen for.
        rule: ``"datasketch-optimal"`` or ``"recall>=<target>"``.
        recall_at_threshold: ``candidate_probability(threshold, b, r)``.
    """

    bands: int
    rows: int
    num_perm: int
    threshold: float
    rule: str
    recall_at_threshold: float

    def as_dict(self) -> dict:
        """The fields as a plain dict (for JSON reports)."""
        return asdict(self)


def choose_bands(threshold: float, num_perm: int, min_recall: float | None = None) -> Banding:
    """Bands x rows for a threshold and signature length.

    Args:
        threshold: Jaccard threshold in ``(0, 1)``.
        num_perm: Signature length ``k >= 1``.
        min_recall: None for datasketch's optimiser; else the candidate
            probability wanted at ``threshold`` (so every pair at or above it is
            proposed at least that often), met at the least expected number of
            false candidates (the S-curve's area below ``threshold``).

    Returns:
        A :class:`Banding`.

    Raises:
        ValueError: Threshold or recall outside ``(0, 1)``, or no banding with
            ``b * r <= num_perm`` reaching ``min_recall``.

    Examples:
        >>> b = choose_bands(0.5, 128, min_recall=0.95)
        >>> b.recall_at_threshold >= 0.95, b.bands * b.rows <= 128
        (True, True)
    """
    if not 0.0 < threshold < 1.0:
        raise ValueError(f"LSH threshold must lie in (0, 1), got {threshold!r}")
    if num_perm < 1:
        raise ValueError(f"num_perm must be >= 1, got {num_perm}")
    if min_recall is None:
        b, r = lsh_params(threshold, num_perm)
        rule = "datasketch-optimal"
    else:
        if not 0.0 < min_recall < 1.0:
            raise ValueError(f"min_recall must lie in (0, 1), got {min_recall!r}")
        grid = np.linspace(0.0, threshold, 201)
        best = None
        for r in range(1, num_perm + 1):
            b = num_perm // r
            if candidate_probability(threshold, b, r) < min_recall:
                continue
            false = np.trapezoid(candidate_probability(grid, b, r), grid)
            if best is None or false < best[0]:
                best = (false, b, r)
        if best is None:
            raise ValueError(f"no banding of {num_perm} permutations reaches recall "
                             f"{min_recall} at J = {threshold}")
        _, b, r = best
        rule = f"recall>={min_recall:g}"
    return Banding(bands=int(b), rows=int(r), num_perm=num_perm, threshold=float(threshold),
                   rule=rule, recall_at_threshold=float(candidate_probability(threshold, b, r)))


def datasketch_candidates(
    sigs: np.ndarray, empty: np.ndarray, banding: Banding, params: MinHashConfig
) -> np.ndarray:
    """Candidate pairs from :class:`datasketch.MinHashLSH`, as sorted linear indices ``i * N + j``.

    Args:
        sigs: Signatures ``(N, k)`` of either family.
        empty: Boolean ``(N,)``; items without shingles are not inserted.
        banding: Bands x rows (``params=(b, r)`` is passed to datasketch, so its
            optimiser is not consulted again).
        params: The family the signatures came from.

    Returns:
        ``int64`` sorted unique ``i * N + j`` with ``i < j``.
    """
    n, k = sigs.shape
    if k != banding.num_perm:
        raise ValueError(f"signatures have {k} permutations, banding expects {banding.num_perm}")
    lsh = datasketch.MinHashLSH(num_perm=k, params=(banding.bands, banding.rows))
    # datasketch wants a scheme label on every sketch; the index reads only the
    # hash values. The published family has no datasketch scheme, so it goes in
    # as "legacy" (also (a*h + b) mod 2^61-1); our outputs record the real family.
    scheme = params.scheme if params.family == "datasketch" else "legacy"
    keep = np.flatnonzero(~empty)
    sketches = [datasketch.LeanMinHash(seed=params.seed, hashvalues=sigs[i], scheme=scheme)
                for i in keep]
    with lsh.insertion_session() as session:
        for i, m in zip(keep.tolist(), sketches, strict=True):
            session.insert(i, m, check_duplication=False)
    found = []
    for i, m in zip(keep.tolist(), sketches, strict=True):
        hits = np.fromiter(lsh.query(m), dtype=np.int64)
        found.append(i * n + hits[hits > i])
    return np.unique(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)


def recall_by_bin(
    truth: PairScores,
    candidates: np.ndarray,
    n_items: int,
    edges: np.ndarray | list[float],
    banding: Banding | None = None,
) -> pd.DataFrame:
    """Recall of LSH candidates against exact pairs, per Jaccard bin.

    Args:
        truth: Every pair with ``J >= edges[0]`` and its exact score (a
            :func:`~newsdedup.score.join.threshold_join` at ``edges[0]``).
        candidates: Sorted linear candidate indices ``i * N + j``.
        n_items: ``N``.
        edges: Increasing bin edges, ``edges[0] > 0``, last ``>= 1.0``; bin ``k`` is
            ``[edges[k], edges[k+1])``, the last one closed.
        banding: If given, the S-curve's expected recall per bin (mean of
            :func:`candidate_probability` over the bin's true pairs).

    Returns:
        One row per bin: ``lo, hi, true_pairs, found, recall`` (NaN for an empty
        bin) and ``expected`` when ``banding`` is given.
    """
    e = check_edges(edges)
    if e[0] <= 0:
        raise ValueError("recall bins must start above 0: pairs below the join are not listed")
    if len(truth) and truth.score.min() < e[0]:
        raise ValueError("truth holds pairs below edges[0]; join at edges[0]")
    linear = truth.i.astype(np.int64) * n_items + truth.j
    pos = np.searchsorted(candidates, linear)
    hit = (pos < len(candidates)) & (candidates[np.minimum(pos, len(candidates) - 1)] == linear) \
        if len(candidates) else np.zeros(len(linear), bool)
    b = bin_of(truth.score, e)
    nb = len(e) - 1
    true_n = np.bincount(b, minlength=nb)
    found = np.bincount(b, weights=hit, minlength=nb).astype(np.int64)
    out = pd.DataFrame({"lo": e[:-1], "hi": e[1:], "true_pairs": true_n, "found": found})
    with np.errstate(invalid="ignore", divide="ignore"):
        out["recall"] = found / np.where(true_n > 0, true_n, np.nan)
        if banding is not None:
            p = candidate_probability(truth.score, banding.bands, banding.rows)
            out["expected"] = np.bincount(b, weights=p, minlength=nb) / np.where(
                true_n > 0, true_n, np.nan)
    return out

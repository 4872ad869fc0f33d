"""Estimated precision of a dedupe's merges, threshold by threshold, from decoys.

:func:`newsdedup.studies.decoys.decoy_curve` estimates the precision of
"merge every pair scoring ``>= t``". A dedupe does not do that: the subject
gate compares only headlines with the same lead token, and greedy
clustering joins an item to a group's representative, so its merged pairs
(all pairs within one group) are neither all the pairs ``>= t`` nor only
them. What the user gets is the merges, so the calibration estimates those:
:func:`merge_precision` for one clustering, :func:`merge_curve` for the
dedupe at every threshold of a grid (prepared once, clustered per threshold,
as :func:`newsdedup.cluster.sweep.sweep_items_left` does).

**When the gate decides the merges.** At low thresholds the dedupe merges
most of what the gate lets it compare. The merged pairs are then chosen by
the lead token, not the score, and a lead token is nearly pure in topic: few
decoys are ever compared, so few are merged, and the estimate reads high
while the merges are topical groups (UCI head, 4-grams: 0.97 estimated
against 0.83 measured at ``t = 0.05``, where 54 % of the gate's pairs are
merged). The curve therefore reports ``gate_share``, merged pairs over the
pairs the gate admits, as a warning sign; the recommendation uses the low
end of the interval (:func:`newsdedup.studies.evidence.choose`), which keeps
it out of that region on the UCI head.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from newsdedup.cluster.dedupe import DedupeConfig, near_pairs, prepare
from newsdedup.cluster.sweep import PartitionSweep
from newsdedup.progress import rate_reporter
from newsdedup.studies.decoys import (
    CONFIDENCE,
    DecoySpace,
    Interval,
    estimate_false,
    extrapolate,
    point_false,
    precision_interval,
)
from newsdedup.studies.multinomial import multinomial_dot

BOOTSTRAP = 1000  # cluster resamples of merge_precision's interval


def merge_precision(labels: Sequence[int] | np.ndarray, space: DecoySpace, method: str = "auto",
                    confidence: float = CONFIDENCE, resamples: int = BOOTSTRAP,
                    seed: int = 0) -> dict:
    """Estimated pairwise precision of a clustering (a dedupe's merges).

    The merged pairs are the within-cluster pairs; those that are decoys are
    false for certain, and the rest are extrapolated as in
    :func:`estimate_false` (within-cluster decoys per eligible pair, scaled to
    all pairs).

    False merges come in blocks: one wrong merge of two stories of sizes
    ``a`` and ``b`` makes ``a * b`` false pairs at once, so the pairs are not
    independent trials and a binomial interval on them is far too narrow.
    The interval therefore resamples *clusters* (a percentile bootstrap) and
    is widened to contain the binomial intervals of both estimators.

    Args:
        labels: Cluster per item (``DedupeResult.clustering.labels``).
        space: The decoy rule over the same items.
        method: See :func:`estimate_false`.
        confidence: Of the intervals.
        resamples: Cluster bootstrap resamples (0: binomial intervals only).
        seed: Of the bootstrap.

    Returns:
        ``{"merged_pairs", "decoys", "method", "false": Interval,
        "precision": Interval}``.

    Examples:
        >>> from newsdedup.studies.decoys import field_decoys
        >>> s = field_decoys(["a", "b", "a", "b"])
        >>> r = merge_precision([0, 0, 1, 1], s, method="pooled")
        >>> r["merged_pairs"], r["decoys"], r["precision"].value
        (2, 2, 0.0)
    """
    # Codes by first appearance, as for a Series of the labels (no per-item objects).
    lab = pd.factorize(np.asarray(labels))[0].astype(np.int64)
    if len(lab) != space.n_items:
        raise ValueError(f"{len(lab)} labels for {space.n_items} items")
    i, j = _within_pairs(lab)
    est = estimate_false(space, i, j, method, confidence)
    false = est["false"]
    if resamples and len(i):
        boot = _cluster_bootstrap(space, lab, i, j, est["method"], resamples, seed)
        a = (1.0 - confidence) / 2
        lo, hi = np.quantile(boot, [a, 1 - a])
        false = Interval(false.value, min(false.low, float(lo)), max(false.high, float(hi)))
    return {"merged_pairs": est["pairs"], "decoys": est["decoys"], "method": est["method"],
            "false": false, "precision": precision_interval(false, est["pairs"])}


def _cluster_bootstrap(space: DecoySpace, lab: np.ndarray, i: np.ndarray, j: np.ndarray,
                       method: str, resamples: int, seed: int) -> np.ndarray:
    """Point estimates of the false merged pairs over clusters resampled with replacement.

    A resample only changes how often each cluster's decoys count, so the
    decoy counts (per value pair for ``"nearest"``) are summed per cluster
    once and weighted by the draws, instead of repeating pairs.
    """
    groups = np.unique(lab[i])
    g = np.searchsorted(groups, lab[i])
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(len(groups), np.full(len(groups), 1.0 / len(groups)),
                            size=resamples)  # how often each merged cluster is drawn
    dec = space.is_decoy(i, j)
    totals = draws @ np.bincount(g[dec], minlength=len(groups))
    if method != "nearest":
        return np.array([point_false(space, int(d), None, method) for d in totals])
    levels = space.n_levels()
    a, b = space.codes[i[dec]], space.codes[j[dec]]
    key = np.minimum(a, b) * levels + np.maximum(a, b)
    per_cluster = np.zeros((len(groups), levels * levels), dtype=np.int64)
    np.add.at(per_cluster, (g[dec], key), 1)
    counts = (draws @ per_cluster).reshape(resamples, levels, levels)
    return np.array([point_false(space, int(d), c + c.T, method)
                     for d, c in zip(totals, counts, strict=True)])


def _within_pairs(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All pairs ``i < j``-in-group-order of equal label, cluster by cluster, vectorized.

    Groups in label order; within a group, each member (in row order) with
    every later member, as ``np.triu_indices`` lists them.
    """
    lab = np.asarray(labels, dtype=np.int64)
    order = np.argsort(lab, kind="stable")
    ordered = lab[order]
    n = len(lab)
    first = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if n else np.zeros(0, int)
    sizes = np.diff(np.r_[first, n])
    start = np.repeat(first, sizes)
    later = (start + np.repeat(sizes, sizes) - 1 - np.arange(n)).astype(np.int64)
    total = int(later.sum())
    if not total:
        z = np.zeros(0, dtype=np.int64)
        return z, z.copy()
    k = np.arange(total) - np.repeat(np.cumsum(later) - later, later)
    return order[np.repeat(np.arange(n), later)], order[np.repeat(np.arange(n) + 1, later) + k]


_DAY = 86400.0


def compared_decoys(space: DecoySpace, blocks: np.ndarray) -> int:
    """Decoy pairs among the row pairs of one gate block (the pairs the dedupe compares).

    Counted without listing the pairs: per block from value counts (field),
    sorted times (days), or the listed pairs that fall in one block.

    Examples:
        >>> from newsdedup.studies.decoys import field_decoys
        >>> compared_decoys(field_decoys(list("abab")), np.array([0, 0, 0, 1]))
        2
    """
    b = np.asarray(blocks, dtype=np.int64)
    if space.kind == "field":
        known = space.codes >= 0
        cells = pd.DataFrame({"b": b[known], "c": space.codes[known]}).value_counts()
        per_block = cells.groupby(level=0).agg(["sum", lambda c: int((c * c).sum())])
        k, sq = per_block.iloc[:, 0].to_numpy(np.int64), per_block.iloc[:, 1].to_numpy(np.int64)
        return int(((k * k - sq) // 2).sum())
    if space.kind == "days":
        ok = np.isfinite(space.times)
        if ok.sum() < 2:
            return 0
        t = (space.times[ok] - space.times[ok].min()) / _DAY
        # Blocks laid end to end, further apart than any gap: one sorted key per row.
        stride = float(t.max()) + space.days + 1.0
        _, rank = np.unique(b[ok], return_inverse=True)
        key = np.sort(rank * stride + t)
        end = np.searchsorted(key, (np.floor(key / stride) + 1) * stride, side="left")
        start = np.searchsorted(key, key + space.days, side="left")
        return int(np.maximum(end - start, 0).sum())
    lo, hi = space.keys // space.n_items, space.keys % space.n_items
    return int((b[lo] == b[hi]).sum())


def rows_of_pairs(exact_id: np.ndarray, a: np.ndarray, b: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Row pairs behind survivor pairs: each row of exact group ``a[p]`` with each of ``b[p]``.

    Examples:
        >>> i, j = rows_of_pairs(np.array([0, 1, 0]), np.array([0]), np.array([1]))
        >>> sorted(zip(i.tolist(), j.tolist()))
        [(0, 1), (2, 1)]
    """
    e = np.asarray(exact_id, dtype=np.int64)
    order = np.argsort(e, kind="stable")
    sizes = np.bincount(e, minlength=int(e.max(initial=-1)) + 1)
    starts = np.concatenate(([0], np.cumsum(sizes)))[:-1]
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    ga, gb = sizes[a], sizes[b]
    per = ga * gb
    pair = np.repeat(np.arange(len(a)), per)
    k = np.arange(int(per.sum())) - np.repeat(np.cumsum(per) - per, per)
    return order[starts[a][pair] + k // gb[pair]], order[starts[b][pair] + k % gb[pair]]


@dataclass(frozen=True)
class Compared:
    """The pairs the dedupe compares (rows in one gate block), split into decoys and targets.

    Attributes:
        pairs: Compared row pairs.
        decoys: Decoys among them.
        lam: The score ``lambda`` of the null-share estimate (the grid's lowest threshold).
        above: Compared pairs scoring ``>= lambda`` (exact twins count as 1.0).
        above_decoys: Decoys among those.
    """

    pairs: int
    decoys: int
    lam: float
    above: int
    above_decoys: int

    @property
    def targets(self) -> int:
        """Compared pairs that are not decoys (the dedupe's possible true merges)."""
        return self.pairs - self.decoys

    def null_share(self) -> float:
        """Estimated share of unrelated pairs among the compared targets (Storey's pi0).

        Pairs scoring below ``lambda`` are almost all unrelated, so the
        targets' share below ``lambda`` over the decoys' share below it
        estimates how many targets are unrelated. Unrelated targets that
        score higher than decoys (one section's headlines share words) make
        it read low: it is the optimistic end, 1 the conventional one.

        Examples:
            >>> Compared(100, 50, 0.05, 30, 5).null_share()
            0.5555555555555556
        """
        below_d, below_t = self.decoys - self.above_decoys, self.targets - (self.above
                                                                            - self.above_decoys)
        if not self.decoys or not self.targets or not below_d:
            return 1.0
        return float(min(1.0, (below_t / self.targets) / (below_d / self.decoys)))


def compared_pairs(space: DecoySpace, prep, pairs: tuple[np.ndarray, np.ndarray, np.ndarray],
                   lam: float) -> Compared:
    """Count the compared pairs, their decoys, and both above ``lam``, from the near pairs.

    Args:
        space: The decoy rule.
        prep: The dedupe's :class:`~newsdedup.cluster.dedupe.Prepared` state.
        pairs: Its near pairs (survivor positions) scoring at least ``lam``.
        lam: The lowest threshold of the grid.
    """
    blocks = prep.buckets[prep.exact_id] if space.n_items else np.zeros(0, np.int64)
    a, b, score = pairs
    keep = np.asarray(score) >= lam
    i, j = rows_of_pairs(prep.exact_id, np.asarray(a)[keep], np.asarray(b)[keep])
    ti, tj = _within_pairs(np.asarray(prep.exact_id, dtype=np.int64))
    above_decoys = int(space.is_decoy(i, j).sum() + space.is_decoy(ti, tj).sum())
    return Compared(pairs=block_pairs(blocks), decoys=compared_decoys(space, blocks),
                    lam=float(lam), above=int(len(i) + len(ti)), above_decoys=above_decoys)


def merge_estimate(labels: np.ndarray, space: DecoySpace, compared: Compared,
                   confidence: float = CONFIDENCE, resamples: int = BOOTSTRAP, seed: int = 0
                   ) -> dict:
    """Estimated false pairs among a dedupe's merges, from decoys among the pairs it compares.

    The decoy rate is taken among the *compared* pairs (one gate block):
    ``r = merged decoys / compared decoys``. Each compared target pair is
    assumed to be merged falsely at that rate if it is unrelated, and a
    share ``pi0`` of them is: ``false = decoys + r * pi0 * targets``. The
    point uses the estimated ``pi0`` (:meth:`Compared.null_share`). Its
    sampling interval is the wider of a cluster bootstrap (false merges come
    in blocks) and the negative-binomial prediction interval of the realised
    count (:func:`~newsdedup.studies.decoys.extrapolate`); it is widened to
    contain the conventional target-decoy reading ``pi0 = 1`` (every compared
    target unrelated), the most false merges the decoy rate allows.

    Returns:
        ``{"merged_pairs", "decoys", "method", "null_share", "false": Interval,
        "precision": Interval}``.
    """
    # Codes by first appearance, as for a Series of the labels (no per-item objects).
    lab = pd.factorize(np.asarray(labels))[0].astype(np.int64)
    i, j = _within_pairs(lab)
    dec = space.is_decoy(i, j)
    d, merged = int(dec.sum()), len(i)
    pi0 = compared.null_share()
    out = {"merged_pairs": merged, "decoys": d, "method": "compared", "null_share": pi0}
    if not compared.decoys:  # no decoy is ever compared: no rate to borrow
        false = Interval(np.nan, float(d), float(d + compared.targets))
        return out | {"false": false, "precision": precision_interval(false, merged)}
    scale = compared.targets / compared.decoys
    value = d + d * scale * pi0
    _, lo, hi = extrapolate(d, compared.decoys, int(round(pi0 * compared.targets)), confidence)
    low, high = d + lo, d + hi
    if resamples and merged:
        groups = np.unique(lab[i])
        per_cluster = np.bincount(np.searchsorted(groups, lab[i][dec]), minlength=len(groups))
        # Only clusters holding decoys change the draw's total, and a multinomial's counts
        # of some categories are a multinomial with the rest pooled: draw just those.
        hit = per_cluster[per_cluster > 0]
        share = np.append(np.full(len(hit), 1.0 / len(groups)), 1.0 - len(hit) / len(groups))
        rng = np.random.default_rng(seed)
        # rng.multinomial(...)[:, :-1] @ hit, the same numbers from the same stream, compiled.
        draws = multinomial_dot(rng, len(groups), np.clip(share, 0.0, 1.0), resamples, hit)
        a = (1.0 - confidence) / 2
        boot_lo, boot_hi = np.quantile(draws * (1 + scale * pi0), [a, 1 - a])
        low, high = min(low, float(boot_lo)), max(high, float(boot_hi))
    # The conventional reading (every compared target unrelated) bounds what pi0 can add.
    high = max(high, d * (1 + scale))
    false = Interval(float(value), low, high)
    return out | {"false": false, "precision": precision_interval(false, merged)}


def block_pairs(blocks: np.ndarray) -> int:
    """Pairs within one block (the pairs the gate lets the dedupe compare).

    Examples:
        >>> block_pairs(np.array([0, 0, 0, 1, 1, 2]))
        4
    """
    sizes = np.bincount(np.asarray(blocks, dtype=np.int64))
    return int((sizes * (sizes - 1) // 2).sum())


CURVE_BOOTSTRAP = BOOTSTRAP  # cluster resamples per threshold of merge_curve


def merge_curve(items: pd.DataFrame, config: DedupeConfig, space: DecoySpace | None,
                thresholds: Sequence[float], resamples: int = CURVE_BOOTSTRAP, seed: int = 0,
                progress: Callable[[str], None] | None = None
                ) -> tuple[pd.DataFrame, dict[float, np.ndarray]]:
    """Items left, merged pairs and (with decoys) estimated precision of the dedupe per threshold.

    Args:
        items: The corpus.
        config: The dedupe settings (as ``DedupeConfig.from_calibration`` will build them).
        space: The decoy rule, or None (no estimate columns are filled).
        thresholds: The grid.
        resamples: Cluster bootstrap resamples per threshold.
        seed: Of the bootstrap.
        progress: Told the thresholds done, with rate and ETA (at most every 5 s).

    Returns:
        ``(curve, partitions)``: one row per threshold with threshold,
        items_left, merged_pairs, gate_pairs, gate_share, decoys, method,
        null_share, false, false_low, false_high, precision, precision_low,
        precision_high (NaN without decoys or merges); and the partition
        per threshold (for measured precision against labels).
    """
    grid = [float(t) for t in thresholds]
    prep = prepare(items, config)
    pairs = near_pairs(prep, min(grid)) if grid else None
    blocks = prep.buckets[prep.exact_id] if len(items) else np.zeros(0, np.int64)
    gate = block_pairs(blocks)
    compared = (compared_pairs(space, prep, pairs, min(grid))
                if space is not None and pairs is not None else None)
    rows, partitions = [], {}
    tell = (rate_reporter(progress, f"calibrate: dedupe merges ({config.scorer}), thresholds")
            if progress is not None else None)
    sweep = (PartitionSweep(prep.survivors.size, *pairs, min(grid), prep.rank[prep.survivors])
             if pairs is not None else None)
    for k, t in enumerate(grid):
        assert sweep is not None
        lab = sweep.labels(t)[prep.exact_id]
        partitions[t] = lab
        sizes = np.bincount(lab) if len(lab) else np.zeros(0, np.int64)
        merged = int((sizes * (sizes - 1) // 2).sum())
        row = {"threshold": t, "items_left": int((sizes > 0).sum()), "merged_pairs": merged,
               "gate_pairs": gate, "gate_share": merged / gate if gate else float("nan"),
               "decoys": 0, "method": "", "null_share": np.nan, "false": np.nan,
               "false_low": np.nan, "false_high": np.nan, "precision": np.nan,
               "precision_low": np.nan, "precision_high": np.nan}
        if space is not None and compared is not None:
            est = merge_estimate(lab, space, compared, resamples=resamples, seed=seed)
            f, p = est["false"], est["precision"]
            row |= {"decoys": est["decoys"], "method": est["method"],
                    "null_share": est["null_share"], "false": f.value, "false_low": f.low,
                    "false_high": f.high, "precision": p.value, "precision_low": p.low,
                    "precision_high": p.high}
        rows.append(row)
        if tell is not None:
            tell(k + 1, len(grid))
    return pd.DataFrame(rows), partitions

"""The measurement of seed 004 when visiting every pair does not fit the time budget.

:func:`plan_pairs` decides, from the pair count alone and before any work,
how ``newsdedup measure`` gets its all-pairs figures: ``dense`` (every score
held, up to ``MeasureConfig.dense_max_items``), ``streamed`` (every pair
visited in blocks, :mod:`newsdedup.studies.measure_streamed`) while the
estimated time fits ``MeasureConfig.pair_budget``, else ``sampled``, here.

Per n-gram size the sampled path gets

* **exactly**, from the exact join at the lowest threshold
  (:func:`newsdedup.score.join.threshold_join`, ``t0``): the real pairs per
  threshold, the top pairs (all pairs at or above ``t0``), the highest exact
  score (when some pair reaches ``t0``), the histogram bins at or above
  ``t0`` and the LSH table (band-sharing pairs, checked against the join);
* **MinHash candidates per threshold** from LSH banding (datasketch's
  bands x rows for that threshold, as the LSH table) plus signature
  verification (the estimate of a proposed pair reaches ``t``); recall
  against the exact join. A dense run counts every pair whose estimate
  reaches ``t``; banding proposes most of them (its ``expected`` recall per
  bin is in the LSH table), so the column is labelled ``lsh+verify``;
* **by sampling**: the rest of the histograms and the mean and maximum
  ``|estimate - exact|``, from a seeded uniform sample of pairs (with
  replacement). Pairs below ``t0`` number ``total - |join|`` exactly; the
  sample's pairs below ``t0`` estimate how they spread over the bins, with
  an exact (Clopper-Pearson) interval per bin, and their mean error with a
  normal interval. The sample size and the interval are written beside every
  sampled figure, and every figure says ``exact`` or ``sampled``.

Memory is ``O(N x bands + one join block + sample)``: the pairs at or above
``t0`` are streamed block by block into their counts, histograms, error sums
and top pairs (:class:`JoinStats`), never held, so titles from one template
(most pairs above ``t0``) cost what varied ones do. The LSH candidates are
counted the same way, bucket by bucket (:func:`band_candidate_counts`), and a
join pair is a candidate where its signatures share a band
(:func:`~newsdedup.score.minhash.first_shared_band`), so no threshold's
candidates are held either (at 300,000 Korean headlines tracemalloc counted
0.77 GB held before listing them and a peak of 1.84 GB while they were). Their
work is bounded before it starts (``MeasureConfig.lsh_max_pairs``, checked
against the band-sharing pairs summed over bands; a threshold above it is
reported as skipped, with the bound).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from newsdedup.score.jaccard import PairScores, pair_jaccard
from newsdedup.score.join import gathered_pairs, join_blocks, stream_block, stream_kernel
from newsdedup.score.minhash import (
    bucket_pairs,
    estimate_pairs,
    first_shared_band,
    lsh_params,
    signatures,
)
from newsdedup.studies.cost import join_threshold, measure_plan
from newsdedup.studies.measure import (
    MeasureConfig,
    MeasureReport,
    error_intervals,
    error_table,
    top_pairs,
    touched_rows,
)
from newsdedup.studies.measure_streamed import HISTOGRAM_EDGES, pair_at
from newsdedup.studies.pairstream import ExactSum, Track, untracked
from newsdedup.text.shingle import ShingleMatrix, shingle_matrix, sorted_unique

__all__ = ["SampledNgram", "band_buckets", "band_candidate_counts", "band_candidates",
           "band_pair_bound", "bucket_pair_chunks", "plan_pairs", "run_sampled", "sample_rows"]

def _silent(_msg: str) -> None:
    return None


def plan_pairs(n_items: int, config: MeasureConfig) -> tuple[str, float]:
    """How the measurement gets its all-pairs figures, and the exact path's estimated time.

    The choice of :func:`newsdedup.studies.cost.measure_plan` (the exact path
    while it costs at most a quarter more than the sampled one and fits
    ``config.pair_budget``).

    Returns:
        ``(path, seconds)``: path ``"dense"``, ``"streamed"`` or ``"sampled"``;
        seconds the exact path (every pair, and its error study) is estimated at.

    Examples:
        >>> plan_pairs(387, MeasureConfig())[0], plan_pairs(100_000, MeasureConfig())[0]
        ('dense', 'sampled')
    """
    plan = measure_plan(n_items, config)
    return plan.path, plan.exact_seconds


def sample_rows(shingled: ShingleMatrix, rows: np.ndarray) -> ShingleMatrix:
    """:func:`newsdedup.studies.measure.touched_rows` (kept under this name for callers)."""
    return touched_rows(shingled, rows)


def _band_keys(part: np.ndarray) -> np.ndarray:
    """One 64-bit key per row of a band slice (equal rows, equal keys; collisions possible)."""
    key = part[:, 0].copy()
    with np.errstate(over="ignore"):
        for c in range(1, part.shape[1]):
            key = key * np.uint64(0x9E3779B97F4A7C15) + part[:, c]
    return key


def band_buckets(sigs: np.ndarray, empty: np.ndarray, bands: int, rows: int
                 ) -> tuple[int, list[tuple[np.ndarray, np.ndarray]]]:
    """Per band, the items sharing a bucket and their bucket numbers; and the pair bound.

    Each band's rows are bucketed by a 64-bit key (one sort of one column, not
    a lexsort of ``rows`` columns). The bound is the pairs sharing a bucket
    summed over bands: at least the distinct band-sharing pairs (a key
    collision only adds pairs), known before any pair is listed.

    Returns:
        ``(bound, [(items, bucket) per band])``: the items of shared buckets,
        grouped by bucket number (``int32`` below 2**31 rows).
    """
    keep = np.flatnonzero(~empty)
    rowsigs = sigs if len(keep) == len(sigs) else sigs[keep]
    # The parts of all bands (up to 37) are held together, most items in a shared bucket
    # of each: int32 where the rows fit, half of what int64 parts held at 1M items.
    index = np.int32 if len(sigs) < 2**31 else np.int64
    total, parts = 0, []
    for band in range(bands):
        key = _band_keys(rowsigs[:, band * rows:(band + 1) * rows])
        order = np.argsort(key, kind="stable")  # one sort per band
        sk = key[order]
        bucket = np.cumsum(np.r_[True, sk[1:] != sk[:-1]]) - 1 if len(sk) else order
        counts = np.bincount(bucket).astype(np.int64)
        total += int((counts * (counts - 1) // 2).sum())
        shared = counts[bucket] > 1
        parts.append((keep[order[shared]].astype(index),
                      bucket[shared].astype(index)))  # grouped by bucket
    return total, parts


def band_candidates(sigs: np.ndarray, empty: np.ndarray, bands: int, rows: int,
                    buckets: list[tuple[np.ndarray, np.ndarray]] | None = None) -> np.ndarray:
    """Pairs sharing at least one band, as sorted linear indices ``i * N + j``.

    The pairs of :func:`newsdedup.score.minhash.lsh_candidate_pairs`, from the
    buckets of :func:`band_buckets` (given, or computed); a pair is kept only
    where its band slices are equal, so a key collision never adds a pair.

    Examples:
        >>> s = np.array([[1, 2, 3, 4], [1, 2, 0, 0], [0, 2, 3, 4]], dtype=np.uint64)
        >>> band_candidates(s, np.zeros(3, bool), 2, 2).tolist()  # (0,1) and (0,2)
        [1, 2]
    """
    n = sigs.shape[0]
    parts = buckets if buckets is not None else band_buckets(sigs, empty, bands, rows)[1]
    found = []
    for band, (members, bucket) in enumerate(parts):
        m = len(members)
        if m < 2:
            continue
        local = bucket_pairs(bucket)
        a, b = members[local // m], members[local % m]
        a, b = np.minimum(a, b), np.maximum(a, b)
        part = slice(band * rows, (band + 1) * rows)
        same = (sigs[a, part] == sigs[b, part]).all(axis=1)
        found.append(a[same].astype(np.int64) * n + b[same])
    return sorted_unique(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)


def bucket_pair_chunks(members: np.ndarray, bucket: np.ndarray, chunk: int
                       ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The pairs of items sharing a bucket, ``(a, b)`` with ``a < b``, about ``chunk`` at a time.

    ``members`` are grouped by ``bucket`` (as :func:`band_buckets` returns
    them); consecutive buckets are taken together while their pairs fit in
    ``chunk``, so one bucket larger than that comes alone.

    Examples:
        >>> [(a.tolist(), b.tolist()) for a, b in
        ...  bucket_pair_chunks(np.array([5, 2, 7, 1, 3]), np.array([0, 0, 0, 1, 1]), 2)]
        [([2, 5, 2], [5, 7, 7]), ([1], [3])]
    """
    if len(members) < 2:
        return
    starts = np.flatnonzero(np.r_[True, bucket[1:] != bucket[:-1]])
    sizes = np.diff(np.r_[starts, len(bucket)])
    ends = np.cumsum(sizes * (sizes - 1) // 2)  # pairs up to and including each bucket
    lo = 0
    while lo < len(starts):
        # The buckets whose pairs fit beside the first one's in ``chunk`` (at least one).
        hi = max(lo + 1, int(np.searchsorted(ends, (ends[lo - 1] if lo else 0) + chunk,
                                             side="right")))
        first, last = starts[lo], starts[hi - 1] + sizes[hi - 1]
        part = members[first:last]
        local = bucket_pairs(bucket[first:last])
        a, b = part[local // len(part)], part[local % len(part)]
        yield np.minimum(a, b), np.maximum(a, b)
        lo = hi


def band_candidate_counts(sigs: np.ndarray, empty: np.ndarray, bands: int, rows: int,
                          threshold: float,
                          buckets: list[tuple[np.ndarray, np.ndarray]] | None = None,
                          chunk: int = 1 << 21) -> tuple[int, int]:
    """The distinct band-sharing pairs, and how many of them estimate at or above ``threshold``.

    ``len(band_candidates(...))`` and the count of its pairs whose estimate
    reaches ``threshold``, without listing the candidates: the buckets of each
    band are walked ``chunk`` pairs at a time, and a pair counts in the band
    it shares first (:func:`~newsdedup.score.minhash.first_shared_band`), so
    it counts once, and a key collision (slices not equal) never counts.

    Examples:
        >>> s = np.array([[1, 2, 3, 4], [1, 2, 0, 0], [0, 2, 3, 4]], dtype=np.uint64)
        >>> band_candidate_counts(s, np.zeros(3, bool), 2, 2, 0.5)  # (0,1) and (0,2)
        (2, 2)
    """
    parts = buckets if buckets is not None else band_buckets(sigs, empty, bands, rows)[1]
    distinct = verified = 0
    for band, (members, bucket) in enumerate(parts):
        for a, b in bucket_pair_chunks(members, bucket, chunk):
            new = first_shared_band(sigs, a, b, bands, rows) == band
            a, b = a[new], b[new]
            distinct += len(a)
            verified += int(np.count_nonzero(estimate_pairs(sigs, empty, a, b) >= threshold))
    return distinct, verified


def band_pair_bound(sigs: np.ndarray, empty: np.ndarray, bands: int, rows: int) -> int:
    """Pairs sharing a band, summed over bands (an upper bound of the distinct candidates).

    Examples:
        >>> s = np.array([[1, 2, 3, 4], [1, 2, 0, 0], [0, 2, 3, 4]], dtype=np.uint64)
        >>> band_pair_bound(s, np.zeros(3, bool), 2, 2)
        2
    """
    return band_buckets(sigs, empty, bands, rows)[0]


@dataclass(frozen=True)
class SampledNgram:
    """One n-gram size measured from the join, LSH and a pair sample (``NgramMeasurement``'s API).

    Attributes:
        n: n-gram size.
        n_items: Items measured.
        mean_shingles: Mean shingles per item.
        pairs: ``N(N-1)/2``.
        join: The best ``top_k`` exact pairs at or above the lowest threshold
            (:attr:`join_threshold`), best first; the join itself is streamed.
        join_threshold: ``t0``.
        thresholds: threshold, real, candidates, matches, recall and their methods.
        lsh: The LSH table (as the dense path's), with the candidate bound.
        hist: Per bin: exact / estimate counts (point), their intervals and methods.
        figures: Summary figures with ``*_lo``, ``*_hi`` and ``*_method`` beside them.
        sig_seconds: Wall time of the signatures.
        exact_seconds: Wall time of the join.
        shingled: The incidence matrix, kept for the size the error study reads
            (``top_ngram``) only: the other sizes' matrices are not read again.
    """

    n: int
    n_items: int
    mean_shingles: float
    pairs: int
    join: PairScores
    join_threshold: float
    thresholds: pd.DataFrame
    lsh: pd.DataFrame
    hist: pd.DataFrame
    figures: dict = field(default_factory=dict)
    sig_seconds: float = 0.0
    exact_seconds: float = 0.0
    shingled: ShingleMatrix | None = None

    @property
    def err_mean(self) -> float:
        """Mean absolute error of the estimate over all pairs (sampled)."""
        return float(self.figures["err_mean"])

    @property
    def err_max(self) -> float:
        """Largest absolute error seen (a lower bound of the all-pairs maximum)."""
        return float(self.figures["err_max"])

    def histogram_counts(self, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Point estimates of the exact and estimated counts per bin."""
        if not np.array_equal(edges, HISTOGRAM_EDGES):
            raise ValueError("the sampled measurement binned scores in 100 bins only")
        return self.hist["exact"].to_numpy(), self.hist["estimate"].to_numpy()

    def histogram_table(self, edges: np.ndarray) -> pd.DataFrame:
        """The histogram with intervals and methods (``histogram.csv`` rows of this n)."""
        self.histogram_counts(edges)
        return self.hist

    def summary_row(self) -> dict:
        """One row of the summary table: the dense columns, then intervals and methods."""
        return {"n": self.n, "items": self.n_items, "pairs": self.pairs,
                "mean_shingles": self.mean_shingles, **self.figures}


def _sample(shingled: ShingleMatrix, sigs: np.ndarray, config: MeasureConfig, n: int
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A seeded uniform sample of pairs (with replacement): items, exact scores, estimates."""
    items = shingled.n_items
    total = items * (items - 1) // 2
    rng = np.random.default_rng([config.sample_seed, n])
    pos = (rng.integers(0, total, size=config.sample_pairs, dtype=np.int64) if total
           else np.zeros(0, dtype=np.int64))
    i, j = pair_at(items, pos)
    empty = shingled.sizes == 0
    return i, j, pair_jaccard(shingled, i, j), estimate_pairs(sigs, empty, i, j)


def _histograms(stats: JoinStats, ex_s: np.ndarray, es_s: np.ndarray,
                t0: float, outside: int, confidence: float) -> pd.DataFrame:
    """Bins = exact part (join pairs) + pairs below ``t0`` spread as the sample's are."""
    # Imported here: the measure command loads this module on every corpus, and only the
    # sampled path needs scipy.special.
    from newsdedup.studies.quantiles import clopper_pearson

    e = HISTOGRAM_EDGES
    below = ex_s < t0
    m = int(below.sum())
    out = {"bin_lo": e[:-1], "bin_hi": e[1:]}
    for col, listed, sampled in (("exact", stats.hist_exact, ex_s[below]),
                                 ("estimate", stats.hist_estimate, es_s[below])):
        part = listed.astype(np.float64)
        k = np.histogram(sampled, bins=e)[0]
        lo, hi = clopper_pearson(k, m, confidence)
        point = k / m if m else np.zeros(len(k))
        exact = (e[:-1] >= t0) if col == "exact" else np.zeros(len(k), bool)
        exact |= outside == 0
        out[col] = np.where(exact, part, part + outside * point)
        out[f"{col}_lo"] = np.where(exact, part, part + outside * lo)
        out[f"{col}_hi"] = np.where(exact, part, part + outside * hi)
        out[f"{col}_method"] = np.where(exact, "exact", "sampled")
    out["sample_pairs"] = np.full(len(e) - 1, m)
    return pd.DataFrame(out)


def _error_figures(stats: JoinStats, ex_s: np.ndarray, es_s: np.ndarray,
                   t0: float, total: int, confidence: float) -> dict:
    """Mean and max ``|estimate - exact|``: join pairs exactly, the rest from the sample."""
    from newsdedup.studies.quantiles import norm_ppf  # sampled path only, as in _histograms

    below = ex_s < t0
    err_s = np.abs(es_s[below] - ex_s[below])
    outside, m = total - stats.count, len(err_s)
    mean_s = math.fsum(err_s) / m if m else float("nan")
    sd = float(np.std(err_s, ddof=1)) if m > 1 else float("nan")
    half = float(norm_ppf(0.5 + confidence / 2)) * sd / math.sqrt(m) if m > 1 else float("nan")
    exact_sum = stats.err_sum.value()  # exactly math.fsum of the join pairs' errors

    def mean_of(x: float) -> float:
        return (exact_sum + outside * x) / total if total else float("nan")

    seen = [stats.err_max] if stats.count else []
    seen += [float(err_s.max())] if m else []
    err_max = max(seen) if seen else float("nan")
    if stats.count:
        exact_max, ex_lo, ex_hi, ex_method = stats.exact_max, math.nan, math.nan, "exact"
    elif math.isfinite(t0):
        exact_max = float(ex_s.max()) if len(ex_s) else 0.0
        ex_lo, ex_hi, ex_method = exact_max, t0, "sampled (largest seen; all pairs are below t0)"
    else:  # no join ran (too many pairs at every threshold): only the sample was seen
        exact_max = float(ex_s.max()) if len(ex_s) else 0.0
        ex_lo, ex_hi = exact_max, 1.0
        ex_method = "sampled (largest seen: a lower bound; too many pairs to join)"
    return {
        "err_mean": mean_of(mean_s) if outside else mean_of(0.0),
        "err_max": err_max, "exact_max": exact_max,
        "sample_pairs": m, "confidence": confidence,
        "err_mean_lo": mean_of(max(mean_s - half, 0.0)) if outside else mean_of(0.0),
        "err_mean_hi": mean_of(mean_s + half) if outside else mean_of(0.0),
        "err_mean_method": "sampled" if outside else "exact",
        "err_max_lo": err_max, "err_max_hi": 1.0 if outside else err_max,
        "err_max_method": "sampled (largest seen: a lower bound)" if outside else "exact",
        "exact_max_lo": ex_lo, "exact_max_hi": ex_hi, "exact_max_method": ex_method,
    }


def _lsh_candidates(sigs: np.ndarray, empty: np.ndarray, thresholds, config: MeasureConfig
                    ) -> list[dict]:
    """Per threshold: banding, the band-sharing pairs' bound and (within the limit) their counts.

    Each entry holds ``t``, ``bands``, ``rows``, ``bound`` and either
    ``candidates`` (distinct band-sharing pairs) with ``verified`` (how many of
    them the estimate puts at or above ``t``), or ``skipped`` (why not counted).
    """
    out = []
    for t in thresholds:
        bands, rows = lsh_params(t, config.minhash.num_perm)
        bound, buckets = band_buckets(sigs, empty, bands, rows)
        entry: dict = {"t": float(t), "bands": bands, "rows": rows, "bound": bound}
        if bound > config.lsh_max_pairs:
            entry["skipped"] = f"skipped: up to {bound:,} band-sharing pairs > lsh_max_pairs"
        else:
            entry["candidates"], entry["verified"] = band_candidate_counts(
                sigs, empty, bands, rows, t, buckets)
        del buckets
        out.append(entry)
    return out


def _lsh_rows(lsh: list[dict], stats: JoinStats) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per threshold: the LSH table row and the lsh+verify candidates of the threshold table."""
    lsh_rows, thr_rows = [], []
    for k, e in enumerate(lsh):
        real = int(stats.real[k])
        base = {"threshold": e["t"], "real": real}
        if "skipped" in e:
            why = e["skipped"]
            lsh_rows.append({**base, "bands": e["bands"], "rows": e["rows"],
                             "candidates": math.nan, "matches": math.nan, "recall": math.nan,
                             "bound": e["bound"], "method": why})
            thr_rows.append({**base, "candidates": math.nan, "matches": math.nan,
                             "recall": math.nan, "real_method": "exact", "candidates_method": why})
            continue
        matches, vmatches = int(stats.matches[k]), int(stats.verified_matches[k])
        lsh_rows.append({**base, "bands": e["bands"], "rows": e["rows"],
                         "candidates": e["candidates"], "matches": matches,
                         "recall": matches / real if real else math.nan,
                         "bound": e["bound"], "method": "exact"})
        thr_rows.append({**base, "candidates": e["verified"], "matches": vmatches,
                         "recall": vmatches / real if real else math.nan, "real_method": "exact",
                         "candidates_method": f"lsh+verify ({e['bands']}x{e['rows']})"})
    lsh_table = pd.DataFrame(lsh_rows, columns=["threshold", "bands", "rows", "real",
                                                "candidates", "matches", "recall", "bound",
                                                "method"])
    return pd.DataFrame(thr_rows), lsh_table


def _sampled_row(t: float, ex_s: np.ndarray, es_s: np.ndarray, total: int,
                 config: MeasureConfig) -> dict:
    """A threshold-table row below the join threshold: every count scaled from the sample."""
    m = len(ex_s)

    def scaled(hit: np.ndarray) -> int:
        return round(total * float(hit.sum()) / m) if m else 0

    real, cand = scaled(ex_s >= t), scaled(es_s >= t)
    matches = scaled((ex_s >= t) & (es_s >= t))
    how = f"sampled ({m:,} pairs; the join lists only higher thresholds)"
    return {"threshold": float(t), "real": real, "candidates": cand, "matches": matches,
            "recall": matches / real if real else math.nan, "real_method": how,
            "candidates_method": how}


def _skipped_lsh_row(t: float, floor: float, config: MeasureConfig, row: pd.Series) -> dict:
    """An LSH-table row below the join threshold: banding only, the pairs not listed."""
    bands, rows = lsh_params(t, config.minhash.num_perm)
    return {"threshold": float(t), "bands": bands, "rows": rows, "real": row["real"],
            "candidates": math.nan, "matches": math.nan, "recall": math.nan,
            "bound": math.nan,
            "method": f"skipped: the pairs at J >= {t:g} are too many to list (join from "
                      f"{floor:g}); real sampled"}


class JoinStats:
    """What the sampled measurement needs of the pairs at or above ``t0``, block by block.

    The join's pairs are never all held (templated titles put most of the
    ``N^2/2`` pairs above ``t0``): each block adds its counts per threshold,
    histogram counts, the exact sum and maximum of ``|estimate - exact|``,
    its LSH matches, and competes for the top ``k``. Every figure is the one
    the whole list would give (the error sum exactly: :class:`ExactSum`).
    """

    def __init__(self, lsh: list[dict], sigs: np.ndarray, top_k: int) -> None:
        """Empty statistics for the thresholds of ``lsh`` (:func:`_lsh_candidates`).

        ``sigs`` are the items' signatures: a join pair is an LSH candidate of
        a threshold where they share one of its bands.
        """
        nt = len(lsh)
        self.lsh, self.sigs, self.k = lsh, sigs, top_k
        self.count = 0
        self.real = np.zeros(nt, dtype=np.int64)
        self.matches = np.zeros(nt, dtype=np.int64)
        self.verified_matches = np.zeros(nt, dtype=np.int64)
        self.hist_exact = np.zeros(len(HISTOGRAM_EDGES) - 1, dtype=np.int64)
        self.hist_estimate = np.zeros(len(HISTOGRAM_EDGES) - 1, dtype=np.int64)
        self.err_sum = ExactSum()
        self.err_max = -math.inf
        self.exact_max = -math.inf
        z = np.zeros(0, dtype=np.int64)
        self.top = PairScores(z, z.copy(), np.zeros(0))

    def add(self, pairs: PairScores, est: np.ndarray, counts: bool = True) -> None:
        """Add one block's pairs and their estimates.

        With ``counts=False`` the pairs only compete for the top pairs (sampled
        pairs, when no threshold's pairs can be listed).
        """
        if not len(pairs):
            return
        score = pairs.score
        if counts:
            self._count(pairs, est)
        i = np.concatenate([self.top.i, pairs.i]).astype(np.int64)
        j = np.concatenate([self.top.j, pairs.j]).astype(np.int64)
        s = np.concatenate([self.top.score, score])
        best = np.lexsort((j, i, s))[::-1][:self.k]  # PairScores.top's order
        self.top = PairScores(i[best], j[best], s[best])

    def _count(self, pairs: PairScores, est: np.ndarray) -> None:
        score = pairs.score
        self.count += len(pairs)
        self.hist_exact += np.histogram(score, bins=HISTOGRAM_EDGES)[0]
        self.hist_estimate += np.histogram(est, bins=HISTOGRAM_EDGES)[0]
        err = np.abs(est - score)
        self.err_sum.add(err)
        self.err_max = max(self.err_max, float(err.max()))
        self.exact_max = max(self.exact_max, float(score.max()))
        for k, e in enumerate(self.lsh):
            above = np.flatnonzero(score >= e["t"])
            self.real[k] += len(above)
            if "skipped" in e or not len(above):
                continue
            # A join pair scores above 0, so neither item is empty: it is a candidate
            # exactly where it shares a band.
            hit = above[first_shared_band(self.sigs, pairs.i[above], pairs.j[above],
                                          e["bands"], e["rows"]) < e["bands"]]
            self.matches[k] += len(hit)
            self.verified_matches[k] += int(np.count_nonzero(est[hit] >= e["t"]))


def measure_sampled_ngram(texts: list[str], n: int, config: MeasureConfig,
                          say: Callable[[str], None] = _silent, track: Track = untracked,
                          keep_matrix: bool = True) -> SampledNgram:
    """Measure one n-gram size from the join, LSH banding and a pair sample (module docstring).

    ``keep_matrix=False`` leaves the shingle matrix out of the result (``shingled`` None).
    """
    shingled = shingle_matrix(texts, n)
    empty = shingled.sizes == 0
    items = shingled.n_items
    total = items * (items - 1) // 2
    t0 = time.perf_counter()
    sigs = signatures(shingled, config.minhash)
    t1 = time.perf_counter()
    positive = [t for t in config.thresholds if t > 0]
    si, sj, ex_s, es_s = _sample(shingled, sigs, config, n)
    # The join lists the pairs at or above the lowest threshold whose pairs (estimated from
    # the sample) fit the budget; below it the counts come from the sample.
    t_join = join_threshold(ex_s, positive, items) if positive else 1.0
    listed = [t for t in positive if t_join is not None and t >= t_join]
    lsh = _lsh_candidates(sigs, empty, listed, config)
    stats = JoinStats(lsh, sigs, config.top_k)
    if t_join is not None:
        # The join's pairs block by block (never all held), compiled where numpy's block
        # products would hold rows x window entries.
        kernel = stream_kernel(shingled)
        parts = join_blocks(shingled, t_join, stream_block(shingled.n_items), kernel=kernel,
                            progress=lambda it: track(
                list(it), None, f"measure n={n}: join J >= {t_join:g}, row blocks"))
        for pairs in gathered_pairs(parts):
            stats.add(pairs, estimate_pairs(sigs, empty, pairs.i, pairs.j))
    else:  # even the highest threshold's pairs are too many: the best sampled pairs
        stats.add(PairScores(np.minimum(si, sj), np.maximum(si, sj), ex_s), es_s,
                  counts=False)
    t2 = time.perf_counter()
    floor = t_join if t_join is not None else math.inf
    listing = (f"{stats.count:,} pairs at J >= {floor:g}" if t_join is not None else
               f"no join (the sample puts more pairs than the budget at J >= {max(positive):g})"
               if positive else "no join")
    say(f"measure: n-gram {n}: {listing}; sampling {config.sample_pairs:,} of {total:,} pairs")
    figures = _error_figures(stats, ex_s, es_s, floor, total, config.confidence)
    hist = _histograms(stats, ex_s, es_s, floor, total - stats.count, config.confidence)
    say(f"measure: n-gram {n}: LSH candidates per threshold")
    thr, lsh_table = _lsh_rows(lsh, stats)
    below = [t for t in positive if t not in listed]
    if below:
        rows = pd.DataFrame([_sampled_row(t, ex_s, es_s, total, config) for t in below])
        thr = pd.concat([rows, thr], ignore_index=True)
        lsh_table = pd.concat([pd.DataFrame([_skipped_lsh_row(t, floor, config, rows.iloc[k])
                                             for k, t in enumerate(below)]), lsh_table],
                              ignore_index=True)
        order = {t: k for k, t in enumerate(config.thresholds)}
        thr = thr.sort_values("threshold", key=lambda s: s.map(order), kind="stable")
        lsh_table = lsh_table.sort_values("threshold", key=lambda s: s.map(order),
                                          kind="stable").reset_index(drop=True)
    del lsh
    if len(positive) < len(config.thresholds):  # t = 0: every pair is real and a candidate
        zero = {"threshold": 0.0, "real": total, "candidates": total, "matches": total,
                "recall": 1.0 if total else math.nan, "real_method": "exact",
                "candidates_method": "exact"}
        thr = pd.concat([thr, pd.DataFrame([zero])], ignore_index=True)
        order = {t: k for k, t in enumerate(config.thresholds)}
        thr = thr.sort_values("threshold", key=lambda s: s.map(order), kind="stable")
    return SampledNgram(n=n, n_items=items,
                        mean_shingles=float(shingled.sizes.mean()) if items else 0.0,
                        shingled=shingled if keep_matrix else None, pairs=total, join=stats.top,
                        join_threshold=floor, thresholds=thr.reset_index(drop=True),
                        lsh=lsh_table, hist=hist,
                        figures=figures, sig_seconds=t1 - t0, exact_seconds=t2 - t1)


def run_sampled(items: pd.DataFrame, texts: list[str], config: MeasureConfig,
                say: Callable[[str], None] = _silent, track: Track = untracked
                ) -> MeasureReport:
    """The measurement of ``items`` (normalized ``texts``) from the join, LSH and pair samples.

    Returns:
        A :class:`~newsdedup.studies.measure.MeasureReport` whose ``scale``
        records the path and how every figure was obtained (empty n-gram sweep).
    """
    per_ngram = []
    for n in config.ngrams:
        say(f"measure: n-gram {n}: exact join, LSH and a sample of pairs")
        per_ngram.append(measure_sampled_ngram(texts, n, config, say, track,
                                               keep_matrix=n == config.top_ngram))
    top_m = next(m for m in per_ngram if m.n == config.top_ngram)
    if top_m.shingled is None:  # pragma: no cover - kept above for this size
        raise RuntimeError(f"the matrix of n-gram size {top_m.n} was not kept")
    say(f"measure: error versus permutations {list(config.error_perms)} on "
             f"{config.sampled_error_pairs:,} sampled pairs")
    rng = np.random.default_rng([config.sample_seed, top_m.n, 1])
    pos = (rng.integers(0, top_m.pairs, size=config.sampled_error_pairs, dtype=np.int64)
           if top_m.pairs else np.zeros(0, dtype=np.int64))
    i, j = pair_at(len(texts), pos)
    rows, inverse = np.unique(np.concatenate([i, j]), return_inverse=True)
    sub = sample_rows(top_m.shingled, rows)
    si, sj = inverse[:len(i)], inverse[len(i):]
    errors = (error_intervals(error_table(sub, si, sj, pair_jaccard(sub, si, sj),
                                          config.error_families, config.error_perms),
                              top_m.pairs, config.confidence)
              if top_m.pairs else pd.DataFrame())  # one item: no pair to study
    top = top_pairs(items, top_m.join, config.top_k)
    scale = {"path": "sampled", "pair_budget_seconds": config.pair_budget,
             "sample_pairs": config.sample_pairs, "sample_seed": config.sample_seed,
             "sampled_error_pairs": config.sampled_error_pairs,
             "confidence": config.confidence, "lsh_max_pairs": config.lsh_max_pairs,
             "join_threshold": (top_m.join_threshold if math.isfinite(top_m.join_threshold)
                                else None),
             "figures": {
                 "summary": "pairs, mean_shingles, exact_max (join non-empty): exact; err_mean, "
                            "err_max: sampled (columns *_lo, *_hi, *_method, sample_pairs)",
                 "thresholds": "real: exact (join); candidates, matches, recall: lsh+verify; "
                               "thresholds whose pairs are too many to list (below "
                               "join_threshold): every count sampled (see *_method)",
                 "lsh": "exact (band-sharing pairs against the join)",
                 "histogram": "bins at or above the join threshold: exact; the rest: sampled "
                              "(columns *_lo, *_hi, *_method, sample_pairs)",
                 "top_pairs": (f"exact: the best pairs among those at J >= "
                               f"{top_m.join_threshold:g} ({len(top)} listed)"
                               if math.isfinite(top_m.join_threshold) else
                               "sampled: the best pairs of the pair sample (every threshold's "
                               "pairs too many to list)"),
                 "error_vs_perm": "sampled (err_mean_lo, err_mean_hi)",
                 "ngram_sweep": "not computed on this path"}}
    return MeasureReport(config=config, per_ngram=per_ngram, top=top,  # type: ignore[arg-type]
                         errors=errors, scale=scale)

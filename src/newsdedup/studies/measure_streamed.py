"""The measurement of seed 004 on corpora too large to hold every pair's score.

:func:`newsdedup.studies.measure.run_measure` switches here above
``MeasureConfig.dense_max_items``. Per n-gram size the exact-against-estimate
figures (summary, threshold table, histogram, top pairs) come from
:func:`newsdedup.studies.pairstream.stream_pair_stats`: all ``N(N-1)/2``
pairs, block by block, the same numbers as the dense path. The error study
uses the same seeded pair sample as the dense path (its ``pairs`` column
says how many), with exact scores of the sampled pairs only. Not computed
here (empty tables): the n-gram sweep and the LSH table. Memory is
``O(N + block)``; time still grows like ``N^2 k`` (every pair is visited).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from newsdedup.progress import rate_reporter
from newsdedup.score.jaccard import PairScores, pair_jaccard
from newsdedup.score.minhash import signatures
from newsdedup.studies.measure import (
    MeasureConfig,
    MeasureReport,
    error_intervals,
    error_pair_sample,
    error_table,
    study_error_plan,
    top_pairs,
    touched_rows,
)
from newsdedup.studies.pairstream import PairStats, stream_pair_stats
from newsdedup.text.shingle import ShingleMatrix, shingle_matrix

__all__ = ["HISTOGRAM_EDGES", "StreamedNgram", "pair_at", "run_streamed"]

HISTOGRAM_EDGES = np.linspace(0.0, 1.0, 101)
"""The bins of ``histogram.csv`` (``MeasureReport.histogram``'s default, 100 bins)."""


@dataclass(frozen=True)
class StreamedNgram:
    """One n-gram size measured by streaming; the interface of ``NgramMeasurement``.

    Attributes:
        n: n-gram size.
        shingled: The incidence matrix.
        stats: The streamed all-pairs statistics.
        thresholds: Table with columns threshold, real, candidates, matches, recall.
        lsh: Empty (not computed on the streamed path).
        sig_seconds: Wall time of the signatures.
        exact_seconds: Wall time of the streamed pass.
    """

    n: int
    shingled: ShingleMatrix
    stats: PairStats
    thresholds: pd.DataFrame
    lsh: pd.DataFrame
    sig_seconds: float
    exact_seconds: float

    @property
    def mean_shingles(self) -> float:
        """Mean shingles per item."""
        return float(self.shingled.sizes.mean()) if self.shingled.n_items else 0.0

    @property
    def err_mean(self) -> float:
        """Mean absolute error of the estimate over all pairs."""
        return self.stats.err_mean

    @property
    def err_max(self) -> float:
        """Largest absolute error over all pairs."""
        return self.stats.err_max

    def histogram_counts(self, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Exact and estimated counts per bin; only the streamed bins are available.

        Raises:
            ValueError: ``edges`` differ from :data:`HISTOGRAM_EDGES`.
        """
        if not np.array_equal(edges, HISTOGRAM_EDGES):
            raise ValueError("the streamed measurement binned scores in 100 bins only")
        return self.stats.exact_hist, self.stats.estimate_hist

    def summary_row(self) -> dict:
        """One row of the per-n-gram summary table (as the dense path's)."""
        return {"n": self.n, "items": self.shingled.n_items, "pairs": self.stats.pairs,
                "mean_shingles": self.mean_shingles, "err_mean": self.err_mean,
                "err_max": self.err_max, "exact_max": self.stats.exact_max}


def pair_at(n: int, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Items ``(i, j)`` of pairs given by their position in combinations order.

    Examples:
        >>> i, j = pair_at(4, np.arange(6))
        >>> list(zip(i.tolist(), j.tolist()))
        [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    """
    rows = np.arange(n, dtype=np.int64)
    starts = rows * n - rows * (rows + 1) // 2  # position of pair (i, i + 1)
    i = np.searchsorted(starts, positions, side="right") - 1
    return i, positions - starts[i] + i + 1



def _table(stats: PairStats) -> pd.DataFrame:
    real = stats.real.tolist()
    matches = stats.matches.tolist()
    return pd.DataFrame({
        "threshold": stats.thresholds, "real": real, "candidates": stats.candidates.tolist(),
        "matches": matches,
        "recall": [m / r if r else float("nan") for m, r in zip(matches, real, strict=True)]})


def run_streamed(items: pd.DataFrame, texts: list[str], config: MeasureConfig,
                 say: Callable[[str], None],
                 count: Callable[[str], Callable[[int, int], None]] | None = None
                 ) -> MeasureReport:
    """The measurement of ``items`` (normalized ``texts``) without all-pair arrays.

    Args:
        items: Canonical corpus frame (id, title).
        texts: Their normalized texts.
        config: The measurement settings.
        say: Told what step is running.
        count: Makes the ``(pairs done, pairs in all)`` callback of one n-gram
            size from its label (a progress bar); None: :func:`rate_reporter`
            lines through ``say``.

    Returns:
        A :class:`~newsdedup.studies.measure.MeasureReport` (empty sweep, tracks and LSH).
    """
    per_ngram = []
    for n in config.ngrams:
        say(f"measure: n-gram {n}: streaming {len(texts) * (len(texts) - 1) // 2:,} pairs "
            "in blocks (exact and estimated Jaccard)")
        shingled = shingle_matrix(texts, n)
        t0 = time.perf_counter()
        sigs = signatures(shingled, config.minhash)
        t1 = time.perf_counter()
        tell = (count or (lambda lb: rate_reporter(say, lb)))(f"measure n={n}")
        stats = stream_pair_stats(shingled, sigs, config.thresholds, HISTOGRAM_EDGES,
                                  config.top_k, progress=tell)
        per_ngram.append(StreamedNgram(n, shingled, stats, _table(stats), pd.DataFrame(),
                                       t1 - t0, time.perf_counter() - t1))
    top_m = next(m for m in per_ngram if m.n == config.top_ngram)
    plan = study_error_plan(len(texts), config)
    say(f"measure: error versus permutations {list(config.error_perms)} on "
        f"{plan.pairs:,} of {plan.total:,} pairs")
    pick = error_pair_sample(top_m.stats.pairs, plan.pairs)
    i, j = pair_at(len(texts), pick)
    rows = np.unique(np.concatenate([i, j]))
    # Sign only the items the sample touches (same values, see touched_rows).
    sub = touched_rows(top_m.shingled, rows) if len(rows) < len(texts) else top_m.shingled
    si, sj = (np.searchsorted(rows, i), np.searchsorted(rows, j)) if len(rows) < len(texts) \
        else (i, j)
    errors = error_table(sub, si, sj, pair_jaccard(sub, si, sj),
                         config.error_families, config.error_perms)
    st = top_m.stats
    top = top_pairs(items, PairScores(st.top_i, st.top_j, st.top_score), config.top_k)
    errors = error_intervals(errors, st.pairs, config.confidence)
    scale = {"path": "streamed", "pair_budget_seconds": config.pair_budget,
             "error_study": plan.record(),
             "figures": {"summary": "exact", "thresholds": "exact", "histogram": "exact",
                         "top_pairs": "exact",
                         "error_vs_perm": "exact" if plan.method == "exact"
                         else "sampled (err_mean_lo, err_mean_hi)",
                         "lsh": "not computed on this path",
                         "ngram_sweep": "not computed on this path"}}
    return MeasureReport(config=config, per_ngram=per_ngram, top=top,  # type: ignore[arg-type]
                         errors=errors, scale=scale)

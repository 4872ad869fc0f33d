"""The measurement of seed 004, block 1: exact all-pairs Jaccard against MinHash.

For each n-gram size the measurement shingles every item (title + " " +
summary, normalized), computes the exact Jaccard of all ``N(N-1)/2`` pairs,
the MinHash estimate of the same pairs, the estimation error, and for each
threshold how many pairs really reach it ("real"), how many the estimate
puts there ("candidates"), how many of those agree ("matches") and the
recall ``matches / real``. It also measures the error against the number of
permutations, for both hash families, beside the theoretical standard error
``sqrt(J(1-J)/k)``, and what LSH banding would return at each threshold.

Everything here is computed from the corpus; nothing is read from the seed.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from newsdedup.score.jaccard import PairScores, jaccard_matrix, upper_pairs
from newsdedup.score.minhash import (
    MinHashConfig,
    estimate_matrix,
    lsh_candidates,
    lsh_params,
    signatures,
)
from newsdedup.studies.calibration import order_quantiles
from newsdedup.studies.cost import ErrorPlan, error_plan
from newsdedup.studies.defaults import ERROR_PERMS as ERROR_PERMS
from newsdedup.studies.defaults import PAIR_BUDGET, SAMPLE_PAIRS
from newsdedup.studies.defaults import PUBLISHED_THRESHOLDS as PUBLISHED_THRESHOLDS
from newsdedup.studies.measure_errors import error_intervals as error_intervals
from newsdedup.studies.measure_errors import error_pair_sample as error_pair_sample
from newsdedup.studies.measure_errors import error_table as error_table
from newsdedup.studies.measure_errors import error_vs_num_perm as error_vs_num_perm
from newsdedup.studies.measure_errors import prefix_agreements as prefix_agreements
from newsdedup.studies.measure_errors import touched_rows as touched_rows
from newsdedup.text.normalize import DEFAULT_SCHEME, item_texts
from newsdedup.text.shingle import ShingleMatrix, shingle_matrix


@dataclass(frozen=True)
class MeasureConfig:
    """Parameters of one measurement run (all written to ``params.json``).

    Attributes:
        ngrams: n-gram sizes to measure, characters.
        thresholds: Jaccard thresholds of the table, each in ``[0, 1]``.
        top_k: Number of top exact pairs listed.
        top_ngram: n-gram size of the top-pairs list (must be in ``ngrams``).
        scheme: Normalization scheme name (see :mod:`newsdedup.text.normalize`).
        minhash: Family, size and seed of the main signature.
        error_perms: Permutation counts of the error-versus-k study.
        error_families: Families of that study (each with its own seed).
        lsh: Whether to report LSH banding candidates per threshold.
        error_max_pairs: Pairs of the error study; larger corpora use a seeded sample.
        sweep_ngrams: n-gram sizes of the n-gram sweep (how every score moves
            with n); the top pairs at ``top_ngram`` are followed across them.
        dense_max_items: Largest corpus measured with all pair scores held in
            memory (6,000 items: 18M pairs, about 1.5 GB over three n-gram
            sizes). ``newsdedup measure`` streams larger corpora in blocks
            (:mod:`newsdedup.studies.measure_streamed`, same figures exactly); the
            n-gram sweep and the LSH table are then not computed. A memory
            knob, not written to ``params.json``.
        pair_budget: Seconds the streamed pass over every pair may take,
            estimated from the pair count before starting
            (:func:`newsdedup.studies.measure_sampled.plan_pairs`); above it the
            all-pairs figures come from the exact join, LSH banding and a
            seeded pair sample (:mod:`newsdedup.studies.measure_sampled`).
        sample_pairs: Pairs of that uniform sample (per n-gram size).
        sample_seed: Seed of the samples.
        sampled_error_pairs: Pairs of the error-versus-permutations study on
            the sampled path (signatures up to 1,024 permutations of their items).
        confidence: Level of the intervals beside sampled figures.
        lsh_max_pairs: Largest number of band-sharing pairs listed for one
            threshold on the sampled path (bounded before listing); above it the
            threshold's LSH figures are reported as skipped.

        The last six settings are written to ``params.json`` (key ``scale``) by
        the streamed and sampled paths, not by the dense one.
        extra: Whether the dense path also runs the studies beyond published
            block 1 (LSH table, error against k, histogram, n-gram sweep):
            ``newsdedup measure --full`` and ``newsdedup run`` do. Written to
            ``params.json`` (``extra_studies``) only when off; the streamed and
            sampled paths (large corpora) always run their studies.
    """

    ngrams: tuple[int, ...] = (3, 4, 5)
    thresholds: tuple[float, ...] = PUBLISHED_THRESHOLDS
    top_k: int = 12
    top_ngram: int = 4
    scheme: str = DEFAULT_SCHEME
    minhash: MinHashConfig = field(default_factory=MinHashConfig.published)
    error_perms: tuple[int, ...] = ERROR_PERMS
    error_families: tuple[MinHashConfig, ...] = (
        MinHashConfig.published(),
        MinHashConfig.datasketch(),
    )
    lsh: bool = True
    error_max_pairs: int = 250_000
    sweep_ngrams: tuple[int, ...] = (2, 3, 4, 5, 6)
    dense_max_items: int = 6000
    pair_budget: float = PAIR_BUDGET
    sample_pairs: int = SAMPLE_PAIRS
    sample_seed: int = 0
    sampled_error_pairs: int = 2_000
    confidence: float = 0.95
    lsh_max_pairs: int = 30_000_000
    extra: bool = True

    def __post_init__(self) -> None:
        """Check the settings; raise ValueError naming the bad one."""
        if self.top_ngram not in self.ngrams:
            raise ValueError(f"top_ngram {self.top_ngram} is not among ngrams {self.ngrams}")
        for t in self.thresholds:
            if not 0.0 <= t <= 1.0:
                raise ValueError(f"threshold {t} is outside [0, 1]")
        if self.sample_pairs < 1 or self.sampled_error_pairs < 1:
            raise ValueError("sample_pairs and sampled_error_pairs must be >= 1")
        if not 0.0 < self.confidence < 1.0:
            raise ValueError(f"confidence {self.confidence} is outside (0, 1)")
        if not self.pair_budget >= 0:
            raise ValueError(f"pair_budget {self.pair_budget} must be >= 0 seconds")

    def as_dict(self) -> dict:
        """The settings as a plain dict, as written to the measurement's JSON."""
        return {
            "ngrams": list(self.ngrams),
            "thresholds": list(self.thresholds),
            "top_k": self.top_k,
            "top_ngram": self.top_ngram,
            "normalization": self.scheme,
            "text": "title + ' ' + summary",
            "minhash": self.minhash.as_dict(),
            "error_perms": list(self.error_perms),
            "error_families": [p.as_dict() for p in self.error_families],
            "error_max_pairs": self.error_max_pairs,
            "sweep_ngrams": list(self.sweep_ngrams),
            "lsh": "datasketch MinHashLSH optimiser, weights (0.5, 0.5)" if self.lsh else None,
        } | ({} if self.extra else {"extra_studies": False})


@dataclass(frozen=True)
class NgramMeasurement:
    """Result of measuring one n-gram size.

    Attributes:
        n: n-gram size.
        shingled: The incidence matrix.
        exact: Exact Jaccard of all pairs.
        estimate: MinHash estimate of all pairs (same pair order).
        thresholds: Table with columns threshold, real, candidates, matches, recall.
        lsh: Table with columns threshold, bands, rows, candidates, matches, recall
            (empty when LSH is off).
        sig_seconds: Wall time of the signatures (not reproducible; never written to tables).
        exact_seconds: Wall time of the exact all-pairs Jaccard.
    """

    n: int
    shingled: ShingleMatrix
    exact: PairScores
    estimate: PairScores
    thresholds: pd.DataFrame
    lsh: pd.DataFrame
    sig_seconds: float
    exact_seconds: float

    @property
    def mean_shingles(self) -> float:
        """Mean shingles per item (0.0 for no items)."""
        return float(self.shingled.sizes.mean()) if self.shingled.n_items else 0.0

    @property
    def abs_error(self) -> np.ndarray:
        """``|estimate - exact|`` per pair."""
        return np.abs(self.estimate.score - self.exact.score)

    @cached_property
    def err_mean(self) -> float:
        """Mean absolute error of the estimate (NaN without pairs).

        Computed once: the summary, the console and the report all read it.
        """
        # fsum: the mean is correctly rounded, independent of summation order.
        err = self.abs_error
        return math.fsum(err) / len(err) if len(err) else float("nan")

    @cached_property
    def err_max(self) -> float:
        """Largest absolute error of the estimate (NaN without pairs)."""
        err = self.abs_error
        return float(err.max()) if len(err) else float("nan")

    def histogram_counts(self, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``numpy.histogram`` counts of the exact and of the estimated scores."""
        return (np.histogram(self.exact.score, bins=edges)[0],
                np.histogram(self.estimate.score, bins=edges)[0])

    def summary_row(self) -> dict:
        """One row of the per-n-gram summary table."""
        return {
            "n": self.n,
            "items": self.shingled.n_items,
            "pairs": len(self.exact),
            "mean_shingles": self.mean_shingles,
            "err_mean": self.err_mean,
            "err_max": self.err_max,
            "exact_max": self.exact.max(),
        }


def normalized_texts(items: pd.DataFrame, scheme: str = DEFAULT_SCHEME) -> list[str]:
    """Normalized ``title + " " + summary`` of each item, in row order.

    :func:`newsdedup.text.normalize.item_texts` with ``text="title+summary"``, the text
    every measurement of seed 004 compares.

    Args:
        items: A table with ``title`` and ``summary`` columns.
        scheme: Normalization scheme name.

    Returns:
        One normalized text per row.

    Examples:
        >>> normalized_texts(pd.DataFrame({"title": ["AI 모델"], "summary": ["공개"]}))
        ['ai모델공개']
    """
    return item_texts(items, "title+summary", scheme)


def threshold_table(
    exact: PairScores, candidate: np.ndarray | PairScores, thresholds: Sequence[float]
) -> pd.DataFrame:
    """Real pairs, candidate pairs, matches and recall at each threshold.

    Args:
        exact: Exact scores of all pairs.
        candidate: Either estimated scores (a candidate is ``estimate >= t``)
            or a fixed boolean mask over the same pairs.
        thresholds: Thresholds in ``[0, 1]``.

    Returns:
        DataFrame with columns threshold, real, candidates, matches, recall
        (recall is NaN where there are no real pairs).
    """
    rows = []
    for t in thresholds:
        real = exact.score >= t
        cand = candidate.score >= t if isinstance(candidate, PairScores) else candidate
        matches = int(np.count_nonzero(real & cand))
        n_real = int(np.count_nonzero(real))
        rows.append(
            {
                "threshold": float(t),
                "real": n_real,
                "candidates": int(np.count_nonzero(cand)),
                "matches": matches,
                "recall": matches / n_real if n_real else float("nan"),
            }
        )
    return pd.DataFrame(rows)


def measure_ngram(texts: Sequence[str], n: int, config: MeasureConfig) -> NgramMeasurement:
    """Measure one n-gram size on normalized texts (see module docstring)."""
    shingled = shingle_matrix(texts, n)
    empty = shingled.sizes == 0
    t0 = time.perf_counter()
    sigs = signatures(shingled, config.minhash)
    t1 = time.perf_counter()
    exact = upper_pairs(jaccard_matrix(shingled))
    t2 = time.perf_counter()
    # All pairs: k dense N x N comparisons beat gathering N^2/2 signature rows.
    estimate = upper_pairs(estimate_matrix(sigs, empty), like=exact)
    lsh_rows = []
    if config.lsh and config.extra:
        for t in config.thresholds:
            bands, rows = lsh_params(t, config.minhash.num_perm)
            mask = lsh_candidates(sigs, empty, bands, rows, exact.i, exact.j)
            table = threshold_table(exact, mask, [t])
            lsh_rows.append(table.assign(bands=bands, rows=rows))
    lsh = (
        pd.concat(lsh_rows, ignore_index=True)[
            ["threshold", "bands", "rows", "real", "candidates", "matches", "recall"]
        ]
        if lsh_rows
        else pd.DataFrame()
    )
    return NgramMeasurement(
        n=n,
        shingled=shingled,
        exact=exact,
        estimate=estimate,
        thresholds=threshold_table(exact, estimate, config.thresholds),
        lsh=lsh,
        sig_seconds=t1 - t0,
        exact_seconds=t2 - t1,
    )


def top_pairs(items: pd.DataFrame, scores: PairScores, k: int) -> pd.DataFrame:
    """The ``k`` highest-scoring pairs with ids and titles, best first.

    Returns:
        DataFrame with columns rank, score, i, j, id_i, id_j, title_i, title_j.
    """
    pos = scores.top(k)
    i, j = scores.i[pos], scores.j[pos]
    ids = items["id"].to_numpy()
    titles = items["title"].to_numpy()
    return pd.DataFrame(
        {
            "rank": np.arange(1, len(pos) + 1),
            "score": scores.score[pos],
            "i": i,
            "j": j,
            "id_i": ids[i],
            "id_j": ids[j],
            "title_i": titles[i],
            "title_j": titles[j],
        }
    )


@dataclass(frozen=True)
class MeasureReport:
    """Everything one measurement run produced.

    Attributes:
        config: The parameters.
        per_ngram: One :class:`NgramMeasurement` per n, in ``config.ngrams`` order.
        top: Top exact pairs at ``config.top_ngram``.
        errors: Error-versus-permutations table (at ``config.top_ngram``).
        ngram_sweep: Distribution of all exact scores per n (:func:`ngram_sweep`).
        ngram_tracks: Scores of the top pairs at every n (:func:`ngram_sweep`).
        scale: How the all-pairs figures were obtained (path, budget, sample,
            ``exact`` or ``sampled`` per figure); empty on the dense path.
    """

    config: MeasureConfig
    per_ngram: list[NgramMeasurement]
    top: pd.DataFrame
    errors: pd.DataFrame
    ngram_sweep: pd.DataFrame = field(default_factory=pd.DataFrame)
    ngram_tracks: pd.DataFrame = field(default_factory=pd.DataFrame)
    scale: dict = field(default_factory=dict)

    def summary(self) -> pd.DataFrame:
        """One row per n: items, pairs, mean shingles, error mean and max, exact max."""
        return pd.DataFrame([m.summary_row() for m in self.per_ngram])

    def thresholds(self) -> pd.DataFrame:
        """The threshold tables of all n, stacked, with an ``n`` column first."""
        out = pd.concat([m.thresholds.assign(n=m.n) for m in self.per_ngram], ignore_index=True)
        cols = ["n", "threshold", "real", "candidates", "matches", "recall"]
        return out[cols + [c for c in out.columns if c not in cols]]  # sampled: methods after

    def lsh(self) -> pd.DataFrame:
        """The LSH tables of all n, stacked, with an ``n`` column first."""
        frames = [m.lsh.assign(n=m.n) for m in self.per_ngram if len(m.lsh)]
        if not frames:
            return pd.DataFrame()
        out = pd.concat(frames, ignore_index=True)
        return out[["n"] + [c for c in out.columns if c != "n"]]

    def histogram(self, bins: int = 100) -> pd.DataFrame:
        """Exact and estimated score counts per bin of width ``1/bins``, per n."""
        edges = np.linspace(0.0, 1.0, bins + 1)
        frames = []
        for m in self.per_ngram:
            if hasattr(m, "histogram_table"):  # sampled: point, interval and method per bin
                frames.append(m.histogram_table(edges).assign(n=m.n))
                continue
            frames.append(
                pd.DataFrame(
                    {
                        "n": m.n,
                        "bin_lo": edges[:-1],
                        "bin_hi": edges[1:],
                        "exact": m.histogram_counts(edges)[0],
                        "estimate": m.histogram_counts(edges)[1],
                    }
                )
            )
        out = pd.concat(frames, ignore_index=True)
        cols = ["n", "bin_lo", "bin_hi", "exact", "estimate"]
        return out[cols + [c for c in out.columns if c not in cols]]

    def by_n(self, n: int) -> NgramMeasurement:
        """The measurement of n-gram size ``n``.

        Raises:
            KeyError: ``n`` was not measured.
        """
        for m in self.per_ngram:
            if m.n == n:
                return m
        raise KeyError(f"n-gram size {n} was not measured")


def run_measure(
    items: pd.DataFrame, config: MeasureConfig | None = None, progress=None
) -> MeasureReport:
    """Run the whole measurement on a loaded corpus.

    Args:
        items: Canonical corpus frame (needs id, title, summary).
        config: Parameters; defaults reproduce the published block.
        progress: Optional ``callable(str)`` told what step is running.

    Returns:
        A :class:`MeasureReport`.

    Raises:
        ValueError: Fewer than 2 items: there is no pair to measure.
    """
    if len(items) < 2:
        raise ValueError(f"measure needs at least 2 items (a pair), got {len(items)}")
    config = config or MeasureConfig()
    say = progress or (lambda _msg: None)
    texts = normalized_texts(items, config.scheme)
    per_ngram = []
    for n in config.ngrams:
        say(f"measure: n-gram {n}: shingles, signatures, exact and estimated Jaccard")
        per_ngram.append(measure_ngram(texts, n, config))
    top_m = next(m for m in per_ngram if m.n == config.top_ngram)
    top = top_pairs(items, top_m.exact, config.top_k)
    if not config.extra:  # published block 1 only (`newsdedup measure` without --full)
        return MeasureReport(config=config, per_ngram=per_ngram, top=top, errors=pd.DataFrame())
    plan = study_error_plan(len(items), config)
    say(f"measure: error versus permutations {list(config.error_perms)}"
        + ("" if plan.method == "exact" else
           f" on {plan.pairs:,} sampled pairs (all {plan.total:,}: ~{plan.all_seconds:,.0f} s)"))
    errors = error_vs_num_perm(top_m.shingled, top_m.exact, config.error_families,
                               config.error_perms, plan.pairs)
    errors = error_intervals(errors, len(top_m.exact), config.confidence)
    say(f"measure: n-gram sweep {list(config.sweep_ngrams)}")
    measured = {m.n: m.exact for m in per_ngram}
    sweep, tracks = ngram_sweep(texts, config.sweep_ngrams, top_m.exact.top(config.top_k),
                                like=top_m.exact, known=measured)
    return MeasureReport(
        config=config,
        per_ngram=per_ngram,
        top=top,
        errors=errors,
        ngram_sweep=sweep,
        ngram_tracks=tracks,
        # Every figure exact (the pinned archive): nothing to record, params.json as published.
        scale={} if plan.method == "exact" else {
            "path": "dense", "error_study": plan.record(),
            "figures": {"error_vs_perm": "sampled (err_mean_lo, err_mean_hi)"}},
    )


def study_error_plan(n_items: int, config: MeasureConfig) -> ErrorPlan:
    """The error study's pairs for ``n_items`` items (:func:`.cost.error_plan`)."""
    return error_plan(n_items, sum(config.error_perms), len(config.error_families),
                      config.error_max_pairs, config.sampled_error_pairs)


SWEEP_QUANTILES: dict[str, float] = {"p50": 0.5, "p90": 0.9, "p99": 0.99, "p999": 0.999}
SWEEP_LEVELS: tuple[float, ...] = (0.1, 0.2, 0.3)


def ngram_sweep(
    texts: Sequence[str],
    ngrams: Sequence[int],
    tracked: np.ndarray,
    like: PairScores | None = None,
    known: dict[int, PairScores] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """How every pair's exact Jaccard moves with the n-gram size.

    Smaller n shares more short fragments (particles, syllables), so all
    scores rise; larger n keeps only longer runs, so unrelated pairs fall to
    zero faster than rewrites do. The sweep shows both at once: the
    distribution of all pair scores per n, and the scores of a few tracked
    pairs (the top pairs at the reference n) followed across n.

    Args:
        texts: Normalized texts.
        ngrams: n-gram sizes, characters, each ``>= 1``.
        tracked: Positions (in combinations order) of the pairs to follow.
        like: Pairs whose index arrays to reuse (same items).
        known: Exact scores already computed for some n (not recomputed).

    Returns:
        ``(sweep, tracks)``. ``sweep``: one row per n with ``pairs``,
        ``mean_shingles``, ``mean``, quantiles ``p50``/``p90``/``p99``/``p999``
        (order statistics, :func:`newsdedup.studies.calibration.order_quantiles`),
        ``max`` and ``pairs_ge_0.1``/``0.2``/``0.3``. ``tracks``: one row per
        tracked pair and n with ``rank`` (1 = best at the reference n), ``i``,
        ``j``, ``n``, ``score``.

    Examples:
        >>> sweep, tracks = ngram_sweep(["abcdef", "abcxyz", "uvwxyz"], [2, 3], np.array([0]))
        >>> sweep[["n", "max"]].round(3).values.tolist()
        [[2.0, 0.25], [3.0, 0.143]]
        >>> tracks["score"].round(3).tolist()
        [0.25, 0.143]
    """
    known = known or {}
    rows, track_rows = [], []
    for n in ngrams:
        shingled = shingle_matrix(texts, n)
        scores = known.get(n) or upper_pairs(jaccard_matrix(shingled), like=like)
        like = like or scores
        v = scores.score
        q = order_quantiles(v, list(SWEEP_QUANTILES.values()))
        row = {"n": n, "pairs": len(v),
               "mean_shingles": float(shingled.sizes.mean()) if shingled.n_items else 0.0,
               "mean": math.fsum(v) / len(v) if len(v) else float("nan")}
        row |= {name: float(val) for name, val in zip(SWEEP_QUANTILES, q, strict=True)}
        row |= {"max": scores.max()}
        counts = scores.count_at_or_above(list(SWEEP_LEVELS))
        row |= {f"pairs_ge_{t}": int(c) for t, c in zip(SWEEP_LEVELS, counts, strict=True)}
        rows.append(row)
        track_rows.append(pd.DataFrame({
            "rank": np.arange(1, len(tracked) + 1), "i": scores.i[tracked],
            "j": scores.j[tracked], "n": n, "score": v[tracked]}))
    tracks = (pd.concat(track_rows, ignore_index=True) if track_rows else pd.DataFrame())
    return pd.DataFrame(rows), tracks

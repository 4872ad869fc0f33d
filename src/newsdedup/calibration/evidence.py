"""The calibration of a dedupe on one corpus: series, window, candidates, evidence, next labels.

:func:`calibration_evidence` is the one orchestrator, in named steps:

1. **series** (:mod:`newsdedup.text.series`): the corpus's recurring columns
   and templates, per source;
2. **window** (:mod:`newsdedup.cluster.window`): the date window, learned
   from the date gaps of high-scoring pairs outside the series (or given);
3. **sweep**: the calibrated dedupe (subject gate, window, series rule) at
   every threshold of the grid: items left, merged pairs, the groups;
4. **population** (:mod:`newsdedup.calibration.population`): the candidate
   pairs and their strata;
5. **evidence**: labels (a story column, or a sheet read back:
   :mod:`newsdedup.calibration.estimate`), matched decoys and their check
   (:mod:`newsdedup.calibration.decoys`), the published bound;
6. **choice** (:mod:`newsdedup.calibration.choice`): the method, the
   threshold, precision and recall with what each is over;
7. **next labels** (:mod:`newsdedup.calibration.design`): the pairs a person
   should label next, appended to the sheet, drawn where the interval at the
   threshold of interest is widest.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from newsdedup.calibration.choice import Choice, from_labels, with_holdout, without_labels
from newsdedup.calibration.decoys import DecoyEstimate, DecoyRule, decoy_estimates
from newsdedup.calibration.defaults import (
    DEFAULT_DECOY_DAYS,
    DEFAULT_PRECISION,
    FIRST_BATCH,
    HOLDOUT_BATCH,
    NEXT_BATCH,
)
from newsdedup.calibration.design import (
    draw_batch,
    drawn_per_stratum,
    first_allocation,
    next_allocation,
)
from newsdedup.calibration.estimate import LabelSample, label_estimates
from newsdedup.calibration.population import (
    MergedAt,
    Population,
    build_population,
    grouped_level,
)
from newsdedup.calibration.sheet import (
    Sheet,
    SheetError,
    empty_sheet,
    new_rows,
    read_sheet,
    sheet_sample,
    with_design,
)
from newsdedup.calibration.stories import read_pair_ids, story_scores
from newsdedup.calibration.sweep_floor import SweepFloor, choose_floor
from newsdedup.cluster.dedupe import (
    DedupeConfig,
    Prepared,
    RowsRead,
    corpus_series,
    headlines,
    near_pairs,
    prepare,
    rows_read,
)
from newsdedup.cluster.exact import same_partition
from newsdedup.cluster.keep import text_column
from newsdedup.cluster.sweep import PartitionSweep
from newsdedup.cluster.window import WindowChoice, learn_window
from newsdedup.score.jaccard import PairScores
from newsdedup.studies.calibration import default_grid
from newsdedup.studies.measure import normalized_texts
from newsdedup.text.series import Series, member_pairs, series_pairs
from newsdedup.text.shingle import ShingleMatrix, shingle_matrix

__all__ = ["EvidenceConfig", "Evidence", "calibration_evidence", "simulated_recall",
           "WINDOW_HIGH", "FIRST_BATCH", "NEXT_BATCH"]

WINDOW_HIGH = 0.5
"""Pairs scoring at least this (calibrated scorer) are read to learn the window: at 0.5 of
4-gram Jaccard two headlines share half their n-grams, which unrelated items rarely do."""



@dataclass(frozen=True)
class EvidenceConfig:
    """What the recommendation is estimated from (``newsdedup calibrate`` options).

    Attributes:
        decoy_field: Column whose *equal* values make decoys matched (a section,
            a category), or None.
        decoy_days: Decoys' date gap when no window applies.
        decoy_pairs: CSV of known-distinct pairs (``id_i``, ``id_j``), or None.
        precision: Target precision of the recommended threshold.
        labels: A labeling sheet drawn by an earlier calibration, labelled, or None.
        story_column: Column of story ids (labels for every pair), or None.
        seed: Of the bootstraps, the posterior draws and the draws of pairs.
        window_days: The dedupe's date window in days; None learns it.
        series: Learn recurring series and apply the series rule.
        first_batch: Pairs the first batch asks to label.
        next_batch: Pairs every later batch asks to label.
        holdout: A hold-out sheet: labelled, it measures the calibrated dedupe on
            pairs the loop never drew; absent, it is drawn (``holdout_size``
            pairs, as a first batch is, around the recommended threshold).
        holdout_size: Pairs of a hold-out sheet drawn here.
    """

    decoy_field: str | None = None
    decoy_days: float = DEFAULT_DECOY_DAYS
    decoy_pairs: Path | None = None
    precision: float = DEFAULT_PRECISION
    labels: Path | None = None
    story_column: str | None = None
    seed: int = 0
    window_days: float | None = None
    series: bool = True
    first_batch: int = FIRST_BATCH
    next_batch: int = NEXT_BATCH
    holdout: Path | None = None
    holdout_size: int = FIRST_BATCH

    def record(self) -> dict:
        """The options as written to ``params.json`` (paths as given)."""
        def path(p: Path | None) -> str | None:
            return None if p is None else str(p)

        return {"decoy_field": self.decoy_field, "decoy_days": self.decoy_days,
                "decoy_pairs": path(self.decoy_pairs), "precision": self.precision,
                "labels": path(self.labels), "story_column": self.story_column,
                "seed": self.seed, "window_days": self.window_days, "series": self.series,
                "first_batch": self.first_batch, "next_batch": self.next_batch,
                "holdout": path(self.holdout), "holdout_size": self.holdout_size}


@dataclass(frozen=True)
class Evidence:
    """Everything a calibration found, for its files and its report.

    Attributes:
        curve: Per threshold: items left, merged pairs; measured precision and
            recall (labels), decoy estimates, simulated recall of rewrites.
        choice: The :data:`~newsdedup.calibration.choice.Choice`.
        config: The calibrated dedupe (window and series rule included).
        window: The learned window (None when given).
        series: The corpus's series (None when the rule is off).
        population: The candidate pairs.
        strata: The strata with pairs drawn and labelled in each.
        sheet: The labeling sheet to write (earlier rows and the next batch).
        decoys: The decoy evidence (None when no decoy applies).
        labels: What the labels are, in words (None without labels).
        labelled: Labelled pairs read.
        holdout: The hold-out sheet to write (drawn here), or empty.
        holdout_labels: What the hold-out labels are, in words (None without).
        holdout_labelled: Labelled hold-out pairs read.
        merged_at: Threshold -> whether the calibrated dedupe merges each pair of
            ``population`` there (the curve's merges, for measuring them on other labels).
    """

    curve: pd.DataFrame
    choice: Choice
    config: DedupeConfig
    window: WindowChoice | None
    series: Series | None
    population: Population
    strata: pd.DataFrame
    sheet: pd.DataFrame
    decoys: DecoyEstimate | None
    labels: str | None
    labelled: int = 0
    holdout: pd.DataFrame = field(default_factory=pd.DataFrame)
    holdout_labels: str | None = None
    holdout_labelled: int = 0
    merged_at: Mapping[float, np.ndarray] | None = None


def simulated_recall(sensitivity, thresholds: Sequence[float]) -> pd.DataFrame:
    """Share of simulated rewrites caught at each threshold (both sides reduced).

    Not a recall of the corpus: the share of pairs made by dropping words of
    one item twice (:mod:`newsdedup.studies.sensitivity`) that score at least
    the threshold; low and high are the least and most caught retention level
    (a range over how heavily a rewrite changes the words, not an interval).

    Examples:
        >>> from types import SimpleNamespace
        >>> sens = SimpleNamespace(both={0.9: [0.8, 0.6], 0.5: [0.2, 0.1]})
        >>> simulated_recall(sens, [0.5]).values.tolist()
        [[0.5, 0.5, 0.0, 1.0]]
    """
    levels = [np.asarray(v, dtype=np.float64) for v in sensitivity.both.values() if len(v)]
    rows = []
    for t in np.asarray(thresholds, dtype=np.float64):
        shares = [float(np.mean(v >= t)) for v in levels]
        pooled = float(np.mean(np.concatenate(levels) >= t)) if levels else math.nan
        rows.append({"threshold": float(t), "recall_sim": pooled,
                     "recall_sim_low": min(shares, default=math.nan),
                     "recall_sim_high": max(shares, default=math.nan)})
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Candidates:
    """The calibrated score's grid, shingles and the pairs at or above the grid's floor.

    Attributes:
        grid: Thresholds, ascending (starting at the floor).
        shingled: The rows' shingles of the calibrated text and n-gram size.
        floor: How the grid's lowest threshold was chosen
            (:class:`~newsdedup.calibration.sweep_floor.SweepFloor`).
    """

    grid: np.ndarray
    shingled: ShingleMatrix
    floor: SweepFloor


def candidate_grid(items: pd.DataFrame, n: int, scheme: str, lo: float, hi: float, seed: int,
                   per_item: int, progress: Callable[[str], None] | None = None) -> Candidates:
    """The grid of a calibration, its floor raised where the pairs would not fit in ``O(N)``.

    English letter n-grams put a fixed share of all ``N^2`` pairs above 0.05,
    so the grid starts higher there (and says so): see
    :func:`newsdedup.calibration.sweep_floor.choose_floor`.
    """
    grid = default_grid(lo, hi)
    shingled = shingle_matrix(normalized_texts(items, scheme), n)
    floor = choose_floor(shingled, grid.tolist(), seed=seed, per_item=per_item)
    if floor.raised:
        if progress is not None:
            progress(f"calibrate: sweep starts at {floor.lowest:.2f}, not {floor.requested:.2f}: "
                     f"{floor.reason}")
        grid = grid[grid >= floor.lowest]
    return Candidates(grid, shingled, floor)


def _sources(items: pd.DataFrame) -> list[str] | None:
    return text_column(items, "source") if "source" in items.columns else None


def learned_window(times: np.ndarray, pairs: PairScores, series: Series | None, seed: int
                   ) -> WindowChoice:
    """Step 2: the window from the high-scoring pairs that are no two members of one series.

    A column's issues come days apart and would read as copies coming late; items of
    other sources written in a series' template are left in, as unrelated pairs whose
    gaps the background of random pairs accounts for.
    """
    high = pairs.score >= WINDOW_HIGH
    i, j, s = pairs.i[high], pairs.j[high], pairs.score[high]
    if series is not None and len(i):
        keep = ~member_pairs(series, i, j)
        i, j, s = i[keep], j[keep], s[keep]
    return learn_window(times, i, j, s, high=WINDOW_HIGH, seed=seed)


@dataclass(frozen=True)
class Sweep:
    """Step 3: the calibrated dedupe at every threshold.

    Attributes:
        prep: Its prepared state.
        partitions: Group per row, per threshold.
        table: Per threshold: ``threshold``, ``items_left``, ``merged_pairs``.
    """

    prep: Prepared
    partitions: dict[float, np.ndarray]
    table: pd.DataFrame


def sweep(items: pd.DataFrame, config: DedupeConfig, series: Series | None,
          grid: Sequence[float], read: RowsRead | None = None) -> Sweep:
    """The dedupe's groups at every threshold, prepared once, clustered per threshold.

    ``read``: :func:`~newsdedup.cluster.dedupe.rows_read` of the rows, if the caller has it.
    """
    grid = [float(t) for t in grid]
    prep = prepare(items, config, series=series, read=read)
    pairs = near_pairs(prep, min(grid))
    walk = PartitionSweep(prep.survivors.size, *pairs, min(grid), prep.rank[prep.survivors])
    partitions, rows = {}, []
    # Group numbers are row numbers at most: as int32 the grid's partitions take half
    # (50 thresholds x 1M headlines: 0.2 GB, not 0.4 GB), kept through the evidence.
    small = len(items) < 2**31
    for t in grid:
        lab = walk.labels(t)[prep.exact_id] if len(items) else np.zeros(0, np.int64)
        partitions[t] = lab.astype(np.int32) if small else lab
        sizes = np.bincount(lab) if len(lab) else np.zeros(0, np.int64)
        rows.append({"threshold": t, "items_left": int((sizes > 0).sum()),
                     "merged_pairs": int((sizes * (sizes - 1) // 2).sum())})
    return Sweep(prep, partitions, pd.DataFrame(rows))


STORY_BASIS = "the story column"
"""How a basis read from a story column begins: its recall is over every same-story pair
of the corpus, not over the candidate pairs as a sheet's is."""


def _story_curve(items: pd.DataFrame, column: str, partitions: dict[float, np.ndarray],
                 seed: int) -> pd.DataFrame:
    if column not in items.columns:
        raise ValueError(f"story column {column!r} is not a column of the corpus "
                         f"({list(items.columns)})")
    story = items[column].tolist()
    rows = []
    for t, lab in partitions.items():
        r = story_scores(lab, story, seed=seed)
        p, q = r["precision"], r["recall"]
        rows.append({"threshold": t, "precision_measured": p.value,
                     "precision_measured_low": p.low, "precision_measured_high": p.high,
                     "recall_measured": q.value, "recall_measured_low": q.low,
                     "recall_measured_high": q.high})
    return pd.DataFrame(rows)


def _measured(estimates: pd.DataFrame) -> pd.DataFrame:
    names = {f"{a}{b}": f"{a}_measured{b}" for a in ("precision", "recall")
             for b in ("", "_low", "_high")}
    keep = ["threshold", "labelled_merged", *names, "same_pairs", "same_pairs_low",
            "same_pairs_high"]
    return estimates[keep].rename(columns=names)


def _decoy_rule(items: pd.DataFrame, options: EvidenceConfig, window: float | None
                ) -> DecoyRule:
    ids = text_column(items, "id")
    n = len(ids)
    listed = np.zeros(0, np.int64)
    parts = []
    if options.decoy_pairs is not None:
        a, b = read_pair_ids(options.decoy_pairs, ids)
        listed = np.unique(np.minimum(a, b) * n + np.maximum(a, b))
        parts.append(f"{len(listed)} listed pairs ({options.decoy_pairs})")
    field_codes = None
    if options.decoy_field is not None:
        if options.decoy_field not in items.columns:
            raise ValueError(f"decoy field {options.decoy_field!r} is not a column of the "
                             f"corpus ({list(items.columns)})")
        field_codes = pd.factorize(items[options.decoy_field].astype(str))[0]
    gap = window if window is not None else options.decoy_days
    matched = "one bucket" + (f" and {options.decoy_field}" if options.decoy_field else "")
    parts.insert(0, f"pairs of {matched} published more than {gap:g} days apart, of one "
                    "source for the compared pairs of one source and of two for those of two")
    return DecoyRule(gap, field_codes, listed, "; ".join(parts))


def _next_step(sheet_path: Path, rerun: Sequence[str] | None, unlabelled: int) -> str:
    command = [*(rerun or ["newsdedup", "calibrate", "FILE"]), "--labels", str(sheet_path)]
    return (f"label the {unlabelled} pairs of {sheet_path} (`newsdedup label {sheet_path}`, or "
            f"fill its label column: same / different / skip), then run "
            f"`{shlex.join(command)}`")


def _focus(curve: pd.DataFrame, choice: Choice) -> float | None:
    """The threshold the next batch sharpens: the recommended one, or the most promising.

    Without a recommendation, the threshold whose precision interval reaches highest
    at its low end (ties: the lowest threshold, it merges the most) is the one more
    labels are likeliest to lift over the target.
    """
    if choice["threshold"] is not None:
        return float(choice["threshold"])
    if "precision_measured_low" not in curve.columns:
        return None
    ok = curve[(curve["merged_pairs"] > 0) & curve["precision_measured_low"].notna()]
    if not len(ok):
        return None
    best = ok["precision_measured_low"].max()
    return float(ok.loc[ok["precision_measured_low"] == best, "threshold"].min())


def _next_batch(pop: Population, sheet: Sheet | None, drawn: np.ndarray,
                sample: LabelSample | None, merged_at: Mapping[float, np.ndarray],
                focus: float | None, recommended: bool, items: pd.DataFrame,
                options: EvidenceConfig, held: np.ndarray) -> pd.DataFrame:
    """Step 7: the sheet with the next batch appended (nothing new while rows wait).

    The first batch spreads half its pairs over every stratum
    (:func:`~newsdedup.calibration.design.first_allocation`) and puts the other
    half where they shrink the precision interval at the threshold of interest
    most (the provisional recommendation, or the middle of the grid); later
    batches put all their pairs where they shrink the intervals there most:
    precision's alone until a threshold is recommended, then precision's and
    recall's.

    Pairs of a hold-out sheet (``held``) are never drawn: the loop and the
    hold-out stay disjoint. The loop's inclusion probabilities stay
    ``n_h / N_h``: the hold-out is itself a random sample of the stratum, so
    leaving it out does not change which pairs the loop is likely to draw.
    """
    earlier = sheet.rows if sheet is not None else empty_sheet()
    waiting = int((earlier["label"] == "").sum()) if len(earlier) else 0
    if waiting:
        return with_design(earlier, pop, drawn)
    if not len(pop):  # no candidate pair: nothing to label
        return earlier
    batch = int(earlier["batch"].max()) + 1 if len(earlier) else 1
    grid = sorted(merged_at)
    # The bound may recommend a threshold below the grid's floor ("just above the
    # highest-scoring pair" of a feed whose pairs all score low): the nearest threshold
    # of the grid merges what it merges.
    focus = (grid[len(grid) // 2] if focus is None
             else min(grid, key=lambda t: (abs(t - focus), t)))
    labels = sample if sample is not None else LabelSample(np.zeros(0, np.int64), np.zeros(0))
    size = options.first_batch if not len(earlier) else options.next_batch
    spread = size // 2 if not len(labels.position) else 0
    taken = np.concatenate([drawn, held])
    room = pop.strata["size"].to_numpy() - drawn_per_stratum(pop, taken)
    allocation = first_allocation(room, spread)
    allocation += next_allocation(pop, merged_at[focus], labels,
                                  drawn_per_stratum(pop, taken) + allocation, size - spread,
                                  recall=recommended)
    positions = draw_batch(pop, allocation, taken, options.seed, batch)
    rows = pd.concat([earlier, new_rows(pop, positions, batch, items)], ignore_index=True)
    return with_design(rows, pop, np.concatenate([drawn, positions]))


def calibration_evidence(items: pd.DataFrame, options: EvidenceConfig, base: DedupeConfig,
                         grid: Sequence[float], pairs: PairScores, shingled: ShingleMatrix,
                         sensitivity, bound_threshold: float | None, sheet_path: Path,
                         rerun: Sequence[str] | None = None,
                         progress: Callable[[str], None] | None = None,
                         series: Series | None = None) -> Evidence:
    """Calibrate the dedupe on a corpus (module docstring: the steps).

    Args:
        items: The corpus.
        options: Evidence options.
        base: The dedupe being calibrated (n-gram size, text, scorer, gate).
        grid: The thresholds, ascending; ``grid[0]`` is the floor of ``pairs``.
        pairs: Row pairs scoring at least ``grid[0]`` on the calibrated score.
        shingled: The rows' shingle matrix of that score.
        sensitivity: The word-retention simulation (simulated recall), or None.
        bound_threshold: The published bound's recommendation, or None.
        sheet_path: Where the labeling sheet will be written (named in the next step).
        rerun: The calibrate command as run (the next step adds ``--labels``).
        progress: Told each step.
        series: The corpus's series learned with ``base``'s inputs
            (:func:`~newsdedup.cluster.dedupe.series_inputs`), when the caller has them;
            learned here otherwise.

    Returns:
        The :class:`Evidence`.
    """
    say = progress or (lambda _m: None)
    grid = [float(t) for t in grid]
    dedupe = _calibrated_dedupe(items, options, base, grid, pairs, say, series)
    pop = build_population(pairs, _sources(items), dedupe.times, text_column(items, "id"),
                           grid[0], grouped_level(pairs, dedupe.reference))
    say(f"calibrate: {len(pop):,} candidate pairs in {len(pop.strata)} strata")
    merged_at = MergedAt(pop, dedupe.swept.partitions)
    curve = (dedupe.swept.table.merge(simulated_recall(sensitivity, grid), on="threshold",
                                      how="left")
             if sensitivity is not None else dedupe.swept.table)
    labelled = _labelled(items, options, pop, merged_at, dedupe.swept.partitions)
    if labelled.curve is not None:
        curve = curve.merge(labelled.curve, on="threshold", how="left")
    rule = _decoy_rule(items, options, dedupe.config.window_days)
    decoys = _decoys(rule, items, dedupe, pop)
    if decoys is not None:
        curve = curve.merge(decoys.curve.rename(columns={
            "precision": "decoy_precision", "precision_low": "decoy_precision_low",
            "precision_high": "decoy_precision_high"}), on="threshold", how="left")
    choice = _choose(curve, options, labelled.basis, rule, decoys, dedupe, bound_threshold)
    held_sheet = (read_sheet(options.holdout)
                  if options.holdout is not None and Path(options.holdout).is_file() else None)
    held = (sheet_sample(held_sheet, pop)[0] if held_sheet is not None
            else np.zeros(0, np.int64))
    rows = labelled.sheet.rows if labelled.sheet is not None else empty_sheet()
    if options.story_column is None:  # a story column labels every pair: no sheet
        rows = _next_batch(pop, labelled.sheet, labelled.drawn, labelled.sample, merged_at,
                           _focus(curve, choice), choice["method"] == "labels", items, options,
                           held)
    waiting = int((rows["label"] == "").sum()) if len(rows) else 0
    if waiting and choice["more_labels"]:
        choice = choice | {"next": _next_step(sheet_path, rerun, waiting)}
    all_drawn = (pop.find(_rows_index(rows["id_i"], pop), _rows_index(rows["id_j"], pop))
                 if len(rows) else np.zeros(0, np.int64))
    holdout, holdout_labels, holdout_labelled = pd.DataFrame(), None, 0
    if options.holdout is not None:
        curve, holdout, holdout_labels, holdout_labelled = _holdout(
            pop, merged_at, labelled.drawn, all_drawn, labelled.sample, held_sheet, curve,
            choice, items, options)
        choice = _with_holdout_step(choice, curve, holdout, holdout_labels, options, rerun)
    strata = pop.strata.assign(drawn=drawn_per_stratum(pop, all_drawn),
                               labelled=drawn_per_stratum(
                                   pop, labelled.sample.position if labelled.sample is not None
                                   else np.zeros(0, np.int64)))
    return Evidence(curve=curve, choice=choice, config=dedupe.config, window=dedupe.window,
                    series=dedupe.series, population=pop, strata=strata, sheet=rows,
                    decoys=decoys, labels=labelled.basis,
                    labelled=0 if labelled.sample is None else len(labelled.sample.position),
                    holdout=holdout, holdout_labels=holdout_labels,
                    holdout_labelled=holdout_labelled, merged_at=merged_at)


@dataclass(frozen=True)
class CalibratedDedupe:
    """Steps 1-3: the dedupe being calibrated, at every threshold.

    Attributes:
        config: The dedupe (window and series rule included).
        series: The corpus's series (None when the rule is off).
        window: The learned window (None when given).
        times: Publication time per row, seconds (NaN: unknown).
        swept: The dedupe at every threshold.
        reference: The groups per threshold of the dedupe the strata follow:
            as learned from the corpus, whatever a user overrides, and with the
            published exact pass (equal normalized headlines,
            ``exact_key="scheme"``) and the series rule of one source's members
            (:meth:`~newsdedup.text.series.Series.of_members`), so that a sheet
            drawn once stays a probability sample when the window, the series
            rule or the exact pass change. Any fixed stratification keeps the estimates unbiased;
            the dedupe being calibrated is measured by splitting each stratum
            into its merged and unmerged pairs. ``swept.partitions`` itself when
            the two dedupes are one. Only the groups are kept: the reference's
            prepared state (texts, shingle matrix, scorer) is never read again,
            so it is let go when its sweep returns.
    """

    config: DedupeConfig
    series: Series | None
    window: WindowChoice | None
    times: np.ndarray
    swept: Sweep
    reference: dict[float, np.ndarray]


def _calibrated_dedupe(items: pd.DataFrame, options: EvidenceConfig, base: DedupeConfig,
                       grid: list[float], pairs: PairScores, say: Callable[[str], None],
                       given_series: Series | None = None) -> CalibratedDedupe:
    """Steps 1-3: series, window, and the sweep (and the reference sweep the strata follow)."""
    # Headlines and keep criteria once, for the series, the window and the sweeps.
    read = rows_read(items, base)
    times = np.where(np.isfinite(read.criteria[2]), read.criteria[2], np.nan)
    found = given_series if given_series is not None else (
        corpus_series(items, base, read) if options.series else None)
    series = found if options.series else None
    window = None
    window_days = options.window_days
    if window_days is None:
        window = learned_window(times, pairs, series, options.seed)
        window_days = window.days
    say(f"calibrate: {0 if series is None else len(series.table)} series; "
        + (window.reason if window is not None else f"window {window_days:g} days (given)"))
    config = replace(base, window_days=window_days, series=options.series)
    swept = sweep(items, config, series, grid, read)
    reference = swept.partitions
    learned_series = found if found is not None else corpus_series(items, base, read)
    # The reference's series rule is the one every sheet so far was drawn under: members
    # of one source's series, titles as spelled (Series.of_members).
    if (options.window_days is not None or not options.series
            or not _published_exact(base, read) or learned_series.widened()):
        learned = window.days if window is not None else learned_window(
            times, pairs, learned_series, options.seed).days
        published = replace(base, window_days=learned, series=True, exact_key="scheme")
        # Its exact key is its own; its keep criteria are base's (same hosts and lists).
        reference = sweep(items, published, learned_series.of_members(), grid,
                          RowsRead(headlines(items, published), read.criteria)).partitions
    return CalibratedDedupe(config, series, window, times, swept, reference)


def _published_exact(base: DedupeConfig, read: RowsRead) -> bool:
    """Whether ``base``'s exact pass groups the rows as the published one (the strata's)."""
    return not base.exact_pass or same_partition(read.heads.keys, read.heads.heads)


@dataclass(frozen=True)
class Labelled:
    """Step 5a: what labels say (a story column or a sheet read back).

    Attributes:
        curve: Measured precision and recall per threshold, or None without labels.
        basis: What the labels are, in words (None without labels).
        sheet: The sheet read (None without one).
        drawn: Population positions of the sheet's pairs.
        sample: Its labelled pairs (None without a sheet).
    """

    curve: pd.DataFrame | None
    basis: str | None
    sheet: Sheet | None
    drawn: np.ndarray
    sample: LabelSample | None


def _labelled(items: pd.DataFrame, options: EvidenceConfig, pop: Population,
              merged_at: Mapping[float, np.ndarray], partitions: dict[float, np.ndarray]
              ) -> Labelled:
    sheet = read_sheet(options.labels) if options.labels is not None else None
    drawn, sample = (sheet_sample(sheet, pop) if sheet is not None
                     else (np.zeros(0, np.int64), None))
    if options.story_column is not None:
        return Labelled(_story_curve(items, options.story_column, partitions, options.seed),
                        f"{STORY_BASIS} {options.story_column} (every pair)", sheet, drawn,
                        sample)
    if sample is not None and len(sample.position):
        est = label_estimates(pop, merged_at, sample, seed=options.seed)
        basis = (f"{len(sample.position)} labelled pairs of {options.labels} (a stratified "
                 f"sample of {len(pop):,} candidate pairs, inverse-probability weighted)")
        return Labelled(_measured(est), basis, sheet, drawn, sample)
    return Labelled(None, None, sheet, drawn, sample)


def _merged_sizes(groups: np.ndarray) -> np.ndarray:
    """Sizes of the groups of two items or more, from a group number per row."""
    sizes = np.bincount(groups) if len(groups) else np.zeros(0, np.int64)
    return sizes[sizes > 1]


def _decoys(rule: DecoyRule, items: pd.DataFrame, dedupe: CalibratedDedupe,
            pop: Population) -> DecoyEstimate | None:
    """Step 5b: matched decoys (None without dates or listed pairs)."""
    if np.isfinite(dedupe.times).sum() < 2 and not len(rule.listed):
        return None
    prep = dedupe.swept.prep
    compared, shared = compared_pairs(pop, prep)
    merged = dict(zip(dedupe.swept.table["threshold"], dedupe.swept.table["merged_pairs"],
                      strict=True))
    sizes = {t: _merged_sizes(lab) for t, lab in dedupe.swept.partitions.items()}
    return decoy_estimates(pop, compared, shared, prep.buckets[prep.exact_id], _sources(items),
                           dedupe.times, rule, merged, dedupe.config.window_days,
                           group_sizes=sizes)


def _choose(curve: pd.DataFrame, options: EvidenceConfig, basis: str | None, rule: DecoyRule,
            decoys: DecoyEstimate | None, dedupe: CalibratedDedupe,
            bound_threshold: float | None) -> Choice:
    """Step 6: labels first, then passed decoys, then the bound, else decline."""
    if basis is not None:
        return from_labels(curve, options.precision, basis)
    decoy_curve = (None if decoys is None else
                   decoys.curve.merge(dedupe.swept.table[["threshold", "merged_pairs"]],
                                      on="threshold"))
    return without_labels(decoy_curve, None if decoys is None else decoys.check, rule.describe,
                          bound_threshold, options.precision)


def _with_holdout_step(choice: Choice, curve: pd.DataFrame, holdout: pd.DataFrame,
                       basis: str | None, options: EvidenceConfig,
                       rerun: Sequence[str] | None) -> Choice:
    """Step 8: restate the choice on a labelled hold-out, or say how to label a drawn one."""
    if basis is not None:
        return with_holdout(choice, curve, basis)
    if not len(holdout):
        return choice
    command = [*(rerun or ["newsdedup", "calibrate", "FILE"]),
               *(["--labels", str(options.labels)] if options.labels is not None else [])]
    step = (f"label the {len(holdout)} hold-out pairs of {options.holdout} (`newsdedup label "
            f"{options.holdout}`), then run `{shlex.join(command)}` again: the hold-out then "
            "measures the recommended threshold")
    return choice | {"next": step if not choice.get("next") else f"{choice['next']}; and {step}"}


def _holdout(pop: Population, merged_at: Mapping[float, np.ndarray], loop: np.ndarray,
             taken: np.ndarray, loop_sample: LabelSample | None, sheet: Sheet | None,
             curve: pd.DataFrame, choice: Choice, items: pd.DataFrame, options: EvidenceConfig
             ) -> tuple[pd.DataFrame, pd.DataFrame, str | None, int]:
    """Step 8: a hold-out sheet, measured against when labelled, drawn when absent.

    The hold-out is a stratified sample of the pairs the loop did not draw
    (``taken``: every pair of the loop's sheet, its next batch included). Its
    estimate counts the loop's labelled pairs as they are and estimates every
    other pair from the hold-out alone, so it measures all merges with labels
    that played no part in choosing the threshold: the loop's own estimate at
    the threshold it chose leans optimistic (the threshold was picked where
    its labels looked good), the hold-out's does not.
    """
    if sheet is not None:
        drawn, sample = sheet_sample(sheet, pop)
        if np.isin(drawn, loop).any():
            first = int(sheet.rows["line"].iloc[int(np.argmax(np.isin(drawn, loop)))])
            raise SheetError(sheet.path, first, "this pair is on the labeling sheet too: a "
                                                "hold-out must hold pairs the loop never drew")
        known = ((loop_sample.position, loop_sample.same) if loop_sample is not None
                 else (np.zeros(0, np.int64), np.zeros(0, bool)))
        est = label_estimates(pop, merged_at, LabelSample(sample.position, sample.same, known),
                              seed=options.seed + 1)
        names = {f"{a}{b}": f"{a}_holdout{b}" for a in ("precision", "recall")
                 for b in ("", "_low", "_high")}
        curve = curve.merge(est[["threshold", *names]].rename(columns=names), on="threshold",
                            how="left")
        basis = (f"{len(sample.position)} labelled hold-out pairs of {sheet.path} (a stratified "
                 "sample of the candidate pairs the loop did not draw), with the loop's "
                 f"{len(known[0])} labelled pairs counted as labelled")
        return curve, pd.DataFrame(), basis, len(sample.position)
    grid = sorted(merged_at)
    focus = choice["threshold"] if choice["threshold"] is not None else grid[len(grid) // 2]
    room = pop.strata["size"].to_numpy() - drawn_per_stratum(pop, taken)
    spread = options.holdout_size // 2
    allocation = first_allocation(room, spread)
    empty = LabelSample(np.zeros(0, np.int64), np.zeros(0), (taken, np.zeros(len(taken), bool)))
    allocation += next_allocation(pop, merged_at[focus], empty,
                                  drawn_per_stratum(pop, taken) + allocation,
                                  options.holdout_size - spread, recall=False)
    positions = draw_batch(pop, allocation, taken, options.seed, HOLDOUT_BATCH)
    rows = with_design(new_rows(pop, positions, HOLDOUT_BATCH, items), pop, positions, taken)
    return curve, rows, None, 0


def compared_pairs(pop: Population, prep: Prepared) -> tuple[np.ndarray, np.ndarray]:
    """Which population pairs the dedupe compares, and which share a series.

    Compared: one gate bucket, within the window, not kept apart by the series rule
    (rows of one exact group count as compared: they merge at every threshold).
    """
    i, j = pop.i, pop.j
    rows_bucket = prep.buckets[prep.exact_id]
    compared = rows_bucket[i] == rows_bucket[j]
    shared = np.zeros(len(pop), dtype=bool)
    if prep.rules is not None and compared.any():
        compared[compared] = prep.rules.allowed(i[compared], j[compared])
        if prep.rules.series is not None:
            shared = series_pairs(prep.rules.series, i, j)
    compared |= prep.exact_id[i] == prep.exact_id[j]
    return compared, shared


def _rows_index(ids: pd.Series, pop: Population) -> np.ndarray:
    index = {x: k for k, x in enumerate(pop.ids)}
    return np.array([index[x] for x in ids], dtype=np.int64)

"""The evidence step of ``newsdedup calibrate``: decoys, simulated recall, labels, choice.

:func:`calibration_evidence` computes, for the dedupe that
``DedupeConfig.from_calibration`` will build, the per-threshold table of
:mod:`newsdedup.studies.evidence` (``precision_recall.csv``), the all-pairs
decoy curves of every swept scorer (``decoy_pairs.csv``) and the
recommendation (:func:`newsdedup.studies.evidence.choose`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from newsdedup.cluster.dedupe import DedupeConfig
from newsdedup.evaluate.gold import read_gold
from newsdedup.runs.files import Progress, quiet
from newsdedup.score.jaccard import PairScores
from newsdedup.studies.decoys import DecoySpace, NoDecoys, decoy_curve, decoy_space
from newsdedup.studies.evidence import choose, simulated_recall
from newsdedup.studies.labels import (
    gold_positions,
    gold_scores,
    read_pair_ids,
    sheet_weights,
    story_scores,
)
from newsdedup.studies.merges import merge_curve


@dataclass(frozen=True)
class Evidence:
    """The evidence of a calibration.

    Attributes:
        curve: Per threshold: merges, decoy estimate, simulated and measured recall.
        decoy_pairs: All-pairs decoy curves per scorer (empty without decoys).
        choice: :func:`newsdedup.studies.evidence.choose`'s result.
        decoys: The decoy rule's description, or why none applies.
        labels: What the labels are, or None.
        scorers: The per-threshold table of every dedupe scorer (a scorer
            column; the calibrated one is ``curve``), empty when not computed.
    """

    curve: pd.DataFrame
    decoy_pairs: pd.DataFrame
    choice: dict
    decoys: str
    labels: str | None
    scorers: pd.DataFrame = field(default_factory=pd.DataFrame)


def dedupe_config(parameters: Mapping) -> DedupeConfig:
    """The dedupe ``DedupeConfig.from_calibration`` builds from ``calibration.json`` parameters."""
    return DedupeConfig(n=parameters["n"], scorer=parameters["scorer"],
                        text=parameters["text"], scheme=parameters["normalization"])


def _space(items: pd.DataFrame, options) -> tuple[DecoySpace | None, str]:
    pairs = None
    if options.decoy_pairs is not None:
        pairs = read_pair_ids(options.decoy_pairs, items["id"].astype(str).tolist())
    try:
        space = decoy_space(items, decoy_field=options.decoy_field,
                            decoy_days=options.decoy_days, decoy_pairs=pairs)
    except NoDecoys as exc:
        return None, str(exc)
    return space, space.describe


def _measured(items: pd.DataFrame, options, partitions: Mapping[float, np.ndarray]
              ) -> tuple[pd.DataFrame | None, str | None]:
    """Measured precision and recall per threshold from a story column or a gold file."""
    if options.story_column is None and options.gold is None:
        return None, None
    if options.story_column is not None:
        if options.story_column not in items.columns:
            raise ValueError(f"story column {options.story_column!r} is not a column of the "
                             f"corpus ({list(items.columns)})")
        story = items[options.story_column].tolist()
        what = f"the story column {options.story_column}"

        def score(lab: np.ndarray) -> dict:
            return story_scores(lab, story, seed=options.seed)
    else:
        ids = items["id"].astype(str).tolist()
        gold = read_gold(options.gold, ids).labeled
        i, j, pos = gold_positions(ids, gold)
        weights = sheet_weights(options.gold, gold)
        what = f"{len(gold)} gold pairs ({options.gold})"

        def score(lab: np.ndarray) -> dict:
            return gold_scores(lab, i, j, pos, weights, seed=options.seed)
    rows = []
    for t, lab in partitions.items():
        r = score(lab)
        p, q = r["precision"], r["recall"]
        rows.append({"threshold": t, "precision_measured": p.value,
                     "precision_measured_low": p.low, "precision_measured_high": p.high,
                     "recall_measured": q.value, "recall_measured_low": q.low,
                     "recall_measured_high": q.high})
    return pd.DataFrame(rows), what


def decoy_pair_curves(pairs: Mapping[str, PairScores], space: DecoySpace,
                      grid: Sequence[float]) -> pd.DataFrame:
    """Decoy estimate of "merge every pair ``>= t``" per scorer (beside the merges).

    Args:
        pairs: Scores of every pair per scorer.
        space: The decoy rule.
        grid: The thresholds.

    Returns:
        :func:`newsdedup.studies.decoys.decoy_curve` per scorer, with a scorer column.
    """
    lo = float(min(grid))
    frames = []
    for scorer, ps in pairs.items():
        keep = ps.score >= lo
        sub = PairScores(ps.i[keep], ps.j[keep], ps.score[keep])
        frames.append(decoy_curve(sub, space, grid).assign(scorer=scorer))
    out = pd.concat(frames, ignore_index=True)
    return out[["scorer", *[c for c in out.columns if c != "scorer"]]]


EVIDENCE_SCORERS = ("jaccard", "idf")
"""Dedupe scorers whose merges are estimated per threshold (``precision_recall_scorers.csv``)."""


def scorer_curves(items: pd.DataFrame, options, config: DedupeConfig, space: DecoySpace | None,
                  grid: Sequence[float], sensitivity, progress: Progress = quiet,
                  known: Mapping[str, pd.DataFrame] | None = None) -> pd.DataFrame:
    """The per-threshold evidence of the dedupe with each of :data:`EVIDENCE_SCORERS`.

    Same n-gram size, text and normalization as the calibrated dedupe; only
    the scorer changes. The simulated recall is of plain Jaccard (the
    simulation scores its rewrites so), so it is given for that scorer only;
    measured precision and recall (with labels) for every scorer. ``known``
    holds curves already computed (the calibrated scorer's).

    Returns:
        The rows of :func:`newsdedup.studies.merges.merge_curve` (plus the
        recall and measured columns), with a leading scorer column.
    """
    frames = []
    for scorer in EVIDENCE_SCORERS:
        if known and scorer in known:
            frames.append(known[scorer].assign(scorer=scorer))
            continue
        progress(f"calibrate: dedupe merges per threshold, scorer {scorer}")
        curve, partitions = merge_curve(items, replace(config, scorer=scorer), space, grid,
                                        seed=options.seed)
        if scorer == "jaccard":
            curve = curve.merge(simulated_recall(sensitivity, grid), on="threshold", how="left")
        measured, _ = _measured(items, options, partitions)
        if measured is not None:
            curve = curve.merge(measured, on="threshold", how="left")
        frames.append(curve.assign(scorer=scorer))
    out = pd.concat(frames, ignore_index=True)
    return out[["scorer", *[c for c in out.columns if c != "scorer"]]]


def calibration_evidence(items: pd.DataFrame, options, sensitivity, pairs: Mapping[str, PairScores],
                         grid: Sequence[float], parameters: Mapping,
                         bound_threshold: float | None, progress: Progress = quiet,
                         extra: bool = True) -> Evidence:
    """Per-threshold evidence of the calibrated dedupe and the recommendation from it.

    Args:
        items: The corpus.
        options: :class:`newsdedup.runs.calibrate.EvidenceOptions`.
        sensitivity: The word-retention simulation.
        pairs: Scores of every pair per swept scorer (for the all-pairs decoy curves).
        grid: The thresholds.
        parameters: ``calibration.json``'s parameters (the dedupe they build is estimated).
        bound_threshold: The published bound's recommendation.
        progress: Progress callback.
        extra: Also the all-pairs decoy curves of every swept scorer and the
            evidence of every dedupe scorer (``--full``); without them the
            calibrated dedupe's curve and the choice are the same.

    Returns:
        The :class:`Evidence`.
    """
    space, decoys = _space(items, options)
    progress(f"calibrate: dedupe merges per threshold; decoys: {decoys}")
    curve, partitions = merge_curve(items, dedupe_config(parameters), space, grid,
                                    seed=options.seed, progress=progress)
    curve = curve.merge(simulated_recall(sensitivity, grid), on="threshold", how="left")
    measured, labels = _measured(items, options, partitions)
    if measured is not None:
        curve = curve.merge(measured, on="threshold", how="left")
    table = (decoy_pair_curves(pairs, space, grid) if space is not None and extra
             else pd.DataFrame(columns=["scorer", "threshold"]))
    choice = choose(curve, options.precision, bound_threshold, labels,
                    decoys if space is not None else None)
    config = dedupe_config(parameters)
    scorers = (scorer_curves(items, options, config, space, grid, sensitivity, progress,
                             known={config.scorer: curve}) if extra else pd.DataFrame())
    return Evidence(curve=curve, decoy_pairs=table, choice=choice, decoys=decoys, labels=labels,
                    scorers=scorers)

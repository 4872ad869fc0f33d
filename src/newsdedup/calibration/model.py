"""The pair model's calibration: fit it from the loop's labels, measure it on the hold-out.

``newsdedup calibrate --model`` adds this step after the character threshold's
(:mod:`newsdedup.calibration.evidence`). It reads the same population ``U`` and the same
labelled sheets:

1. every candidate pair of ``U`` gets its :func:`~newsdedup.score.pair_model.pair_features`
   (the items are embedded once, cached; :func:`newsdedup.cluster.modelled.item_signals`);
2. the :class:`~newsdedup.score.pair_model.PairModel` is fitted on the loop's labelled
   pairs (their inclusion probabilities from the sheet's design);
3. at each probability cut, the model's dedupe
   (:func:`newsdedup.cluster.modelled.model_dedupe`, what ``dedupe --calibration`` runs)
   groups the items, and the pairs of ``U`` it merges are measured as the character
   threshold's merges are (:func:`~newsdedup.calibration.estimate.label_estimates`), by
   the loop's labels and by the hold-out's; the recommended cut is chosen by
   :func:`recommended_cut`;
4. on the same labels, the best recall at the target precision of: the model's dedupe;
   the calibrated character dedupe (its threshold, gate, window and series rule); the
   model's pair decisions (``P >= cut``, no groups); and the character score's pair
   decisions (``score >= t``);
5. a reliability table: the hold-out's labelled pairs in tenths of predicted probability,
   each bin's mean probability beside its observed share of same-event pairs (weighted by
   the inverse inclusion probability, as the population is).

With a labelled hold-out, a second hold-out may be drawn where the model merges
(``--model-holdout``, :mod:`newsdedup.calibration.model_sample`): once labelled, both
hold-outs are read as one sample of the strata banded by the design model's probability,
and every hold-out figure above (the model's, the calibrated dedupe's, the scores') comes
from them, so the model's merges of low character score are measured, not bounded.

Every recall here is among the same-event pairs of ``U``: a rewrite sharing almost no
character n-gram with its twin scores below the population's floor, is no candidate of
either dedupe, and is outside these recalls for both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from newsdedup.calibration.defaults import FIRST_BATCH
from newsdedup.calibration.estimate import DRAWS, LabelSample, label_estimates
from newsdedup.calibration.model_sample import (
    FOCUS_CUT,
    MODEL_EDGES,
    Design,
    banded,
    draw_model_sheet,
    read_model_holdout,
)
from newsdedup.calibration.population import MergedAt, Population
from newsdedup.calibration.sheet import read_sheet, sheet_sample
from newsdedup.cluster.dedupe import DedupeConfig
from newsdedup.cluster.modelled import item_signals, model_config, score_candidates
from newsdedup.score.pair_model import PairModel, pair_features

__all__ = ["CUTS", "ModelEvidence", "model_evidence", "recommended_cut", "reliability"]

CUTS: tuple[float, ...] = tuple(np.round(np.arange(0.05, 0.96, 0.05), 2).tolist())
"""The probability cuts measured."""

COMPARISON_DRAWS = 1000
"""Posterior draws of the comparison curves (their point estimates are compared)."""

RELIABILITY_MIN_PAIRS = 20
"""A reliability bin with fewer labelled pairs is listed but not judged."""

RELIABILITY_TOLERANCE = 0.10
"""A judged bin's mean probability must lie within this of its observed rate."""


@dataclass(frozen=True)
class ModelEvidence:
    """What the pair model's step found.

    Attributes:
        model: The fitted model.
        curve: The model's dedupe per cut (greedy groups of the pairs at ``P >= cut``):
            ``cut``, ``merged_pairs``, the loop's ``precision``/``recall`` (with
            ``_low``/``_high``), with a labelled hold-out ``precision_holdout`` etc.,
            ``items_left`` and ``largest_group``.
        pairs: The same for the model's pair decisions (``P >= cut``, no grouping).
        character: The same for the character score's pair decisions (``score >= t``).
        reliability: :func:`reliability` of the hold-out (of the loop without one).
        choice: ``cut`` recommended (None when no cut reaches the target), ``target``,
            ``basis`` and, at the target, the best recall of the model's dedupe, the
            calibrated dedupe, the model's pairs and the character score's pairs.
        backend: The embedding backend the cosine feature used.
        floor: Lowest character Jaccard of a candidate (the population's floor).
        ngram: Character n-gram size of that Jaccard.
        scheme: Its normalization scheme.
        link: How the curve's groups were formed (``link`` of
            :func:`~newsdedup.cluster.greedy.greedy_pairs`).
        model_sheet: A model hold-out drawn here, to write and label (else empty).
        design: Its design, to write beside it (None when none was drawn).
        model_labelled: Labelled pairs of the model hold-out read (0: none).
        model_holdout: The model hold-out sheet asked for (None: none).
    """

    model: PairModel
    curve: pd.DataFrame
    pairs: pd.DataFrame
    character: pd.DataFrame
    reliability: pd.DataFrame
    choice: dict
    backend: str
    floor: float
    ngram: int
    scheme: str
    link: str
    model_sheet: pd.DataFrame = field(default_factory=pd.DataFrame)
    design: Design | None = None
    model_labelled: int = 0
    model_holdout: Path | None = None


def _inclusion(pop: Population, drawn: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Each labelled pair's inclusion probability: pairs drawn in its stratum / its size."""
    per = np.bincount(pop.stratum[drawn], minlength=len(pop.strata))
    stratum = pop.stratum[positions]
    return per[stratum] / pop.strata["size"].to_numpy()[stratum]


def reliability(prob: np.ndarray, same: np.ndarray, weight: np.ndarray) -> pd.DataFrame:
    """Labelled pairs in tenths of predicted probability: mean probability against the rate.

    Args:
        prob: Predicted probability per labelled pair.
        same: Its label.
        weight: Its weight (inverse inclusion probability).

    Returns:
        One row per non-empty bin: ``bin_lo``, ``pairs``, ``mean_probability`` and
        ``observed`` (weighted mean probability and share of ``same``), ``judged`` (at least
        :data:`RELIABILITY_MIN_PAIRS` pairs) and ``within`` (judged and within
        :data:`RELIABILITY_TOLERANCE`; NA when not judged).

    Examples:
        >>> r = reliability(np.array([0.05] * 20 + [0.95] * 3), np.array([0] * 19 + [1] * 4),
        ...                 np.ones(23))
        >>> r[["bin_lo", "pairs", "observed", "within"]].values.tolist()
        [[0.0, 20, 0.05, True], [0.9, 3, 1.0, <NA>]]
    """
    p = np.asarray(prob, dtype=np.float64)
    y = np.asarray(same, dtype=np.float64)
    w = np.asarray(weight, dtype=np.float64)
    bins = np.minimum((p * 10).astype(np.int64), 9)
    rows = []
    for b in np.unique(bins):
        at = bins == b
        # Both weighted: the population's probability and rate in the bin, not the sheet's.
        observed = float(np.average(y[at], weights=w[at]))
        mean = float(np.average(p[at], weights=w[at]))
        judged = int(at.sum()) >= RELIABILITY_MIN_PAIRS
        rows.append({"bin_lo": b / 10, "pairs": int(at.sum()), "mean_probability": mean,
                     "observed": observed, "judged": judged,
                     "within": (abs(mean - observed) <= RELIABILITY_TOLERANCE) if judged
                     else pd.NA})
    return pd.DataFrame(rows).astype({"within": "boolean"})


def _measured(merged_at: Mapping[float, np.ndarray],
              samples: dict[str, tuple[Population, LabelSample]], seed: int, key: str,
              draws: int = DRAWS) -> pd.DataFrame:
    """Per cut (or threshold): merged pairs and each sample's estimates, suffixed by its name.

    ``samples`` maps a column suffix (``""`` the loop's, ``"_holdout"``) to its labels and
    the strata they are a sample of (the hold-outs': banded, with a model hold-out).
    """
    table = pd.DataFrame({key: list(merged_at),
                          "merged_pairs": [int(np.count_nonzero(m)) for m in merged_at.values()]})
    for k, (suffix, (pop, sample)) in enumerate(samples.items()):
        est = label_estimates(pop, merged_at, sample, seed=seed + k, draws=draws)
        for metric in ("precision", "recall"):
            for end in ("", "_low", "_high"):
                table[f"{metric}{suffix}{end}"] = est[f"{metric}{end}"].to_numpy()
    return table


def _best_recall(table: pd.DataFrame, key: str, target: float, prefix: str) -> dict | None:
    """The highest recall among the rows whose point precision reaches ``target``."""
    ok = table[table[f"precision{prefix}"] >= target]
    if not len(ok):
        return None
    row = ok.loc[ok[f"recall{prefix}"].idxmax()]
    return {key: float(row[key]), "precision": float(row[f"precision{prefix}"]),
            "recall": float(row[f"recall{prefix}"]),
            "recall_low": float(row[f"recall{prefix}_low"]),
            "recall_high": float(row[f"recall{prefix}_high"])}


def model_evidence(items: pd.DataFrame, pop: Population, labels: Path,
                   holdout: Path | None, base: DedupeConfig, target: float, backend: str,
                   cache_dir: Path | None, seed: int = 0,
                   grid: Sequence[float] = (), dedupe_curve: pd.DataFrame | None = None,
                   progress: Callable[[str], None] | None = None,
                   model_holdout: Path | None = None, model_holdout_size: int = FIRST_BATCH,
                   dedupe_merged: Mapping[float, np.ndarray] | None = None,
                   threshold: float | None = None) -> ModelEvidence:
    """Fit and measure the pair model (module docstring: the steps).

    Args:
        items: The corpus, in the calibration's order (the population's rows).
        pop: The candidate pairs.
        labels: The loop's labelled sheet.
        holdout: A labelled hold-out sheet, or None.
        base: The calibrated dedupe's settings (its n-gram size and scheme: the
            population's score).
        target: Target precision.
        backend: Embedding backend of the cosine feature.
        cache_dir: Embedding cache folder of this corpus, or None.
        seed: Of the posterior draws.
        grid: Character thresholds to measure beside the model (the sweep's).
        dedupe_curve: The calibrated dedupe's curve (``precision_recall.csv``), whose
            best recall at the target is compared with the model's dedupe (when
            ``dedupe_merged`` is not given).
        progress: Told each step.
        model_holdout: The model hold-out sheet: labelled, read with the hold-out;
            absent, drawn (once the hold-out is labelled); None: none.
        model_holdout_size: Pairs of a model hold-out drawn here.
        dedupe_merged: The calibrated dedupe's merges per threshold: measured on the
            same labels as the model (both hold-outs), and compared.
        threshold: The calibrated dedupe's recommended threshold (one of
            ``dedupe_merged``'s), or None: a cut the hold-out confirms is recommended
            only where the model finds more than the dedupe there (:func:`recommended_cut`).

    Returns:
        The :class:`ModelEvidence`.

    Raises:
        ValueError: The sheet has fewer than two labels of either answer; a model
            hold-out without its design file, or drawn with other embeddings.
    """
    say = progress or (lambda _m: None)
    drawn, loop = sheet_sample(read_sheet(labels), pop)
    held = None
    held_drawn = np.zeros(0, np.int64)
    if holdout is not None and Path(holdout).is_file():
        held_drawn, sample = sheet_sample(read_sheet(holdout), pop)
        if len(sample.position):  # a hold-out just drawn has no labels yet
            held = LabelSample(sample.position, sample.same, (loop.position, loop.same))
    say(f"calibrate: pair model, {len(pop):,} candidate pairs, embeddings ({backend})")
    config = model_config(base.n, base.scheme)
    signals = item_signals(items, config, backend, cache_dir, progress=progress)
    features = pair_features(signals, pop.i, pop.j, pop.score)
    model = PairModel.fit(features[loop.position], loop.same,
                          _inclusion(pop, drawn, loop.position),
                          fitted_on=f"{len(loop.position)} labelled pairs of {labels} "
                                    f"({int(np.sum(loop.same))} same)")
    prob = model.probability(features)
    # The model's dedupe, exactly as `dedupe --calibration` runs it (cluster.modelled):
    # the candidates at the floor (no exact pass), greedy groups at each cut by average
    # link (no chaining, no topic drawn in through its representative).
    scored = score_candidates(items, model, pop.floor, base.n, base.scheme, signals)
    groups = {c: scored.labels(c) for c in CUTS}
    held_pop, model_sheet, design, model_labelled = pop, pd.DataFrame(), None, 0
    if model_holdout is not None and held is not None:
        design, held_pop, model_sheet, model_labelled, held = _model_holdout(
            items, pop, model, features, backend, Path(model_holdout), model_holdout_size,
            {"the loop's sheet": drawn, "the hold-out": held_drawn}, held,
            pop.merged(groups[FOCUS_CUT]), seed)
    both = {"": (pop, loop)} | ({"_holdout": (held_pop, held)} if held is not None else {})
    curve = _measured(MergedAt(pop, groups), both, seed, "cut")
    curve["items_left"] = [int(g.max(initial=-1)) + 1 for g in groups.values()]
    curve["largest_group"] = [int(np.bincount(g).max(initial=0)) for g in groups.values()]
    # The comparisons read the hold-out (the loop's labels without one) and their point
    # estimates: fewer posterior draws do there.
    one = {"_holdout": (held_pop, held)} if held is not None else {"": (pop, loop)}
    pairs = _measured({c: prob >= c for c in CUTS}, one, seed, "cut", COMPARISON_DRAWS)
    thresholds = [float(t) for t in grid] or [round(x, 2) for x in np.arange(0.05, 1.0, 0.01)]
    character = _measured({t: pop.score >= t - 1e-12 for t in thresholds}, one, seed,
                          "threshold", COMPARISON_DRAWS)
    prefix = "_holdout" if held is not None else ""
    if held is not None:
        table = reliability(prob[held.position], held.same,
                            1.0 / _held_inclusion(held_pop, held, drawn))
    else:
        table = reliability(prob[loop.position], loop.same,
                            1.0 / _inclusion(pop, drawn, loop.position))
    calibrated = None
    if dedupe_merged is not None:  # on the very labels the model is measured on
        calibrated = _best_recall(_measured(dedupe_merged, one, seed, "threshold",
                                            COMPARISON_DRAWS), "threshold", target, prefix)
    elif dedupe_curve is not None:
        named = dedupe_curve.rename(columns=lambda c: c.replace("_measured", ""))
        if f"precision{prefix}" in named.columns:
            calibrated = _best_recall(named, "threshold", target, prefix)
    threshold_recall = None
    if dedupe_merged is not None and threshold is not None and threshold in dedupe_merged:
        threshold_recall = _recall_at(_measured({threshold: dedupe_merged[threshold]}, one,
                                                seed, "threshold", COMPARISON_DRAWS), prefix)
    cut, cut_basis = recommended_cut(curve, target, threshold_recall)
    choice = {"cut": cut, "cut_basis": cut_basis, "target": target,
              "basis": ("the loop's labels (no hold-out: they also fitted the model)"
                        if held is None else "the hold-out's labels" if not model_labelled
                        else f"the hold-out's labels and {model_labelled} labelled pairs of "
                             "the model's hold-out, drawn where it merges"),
              "model_dedupe": _best_recall(curve, "cut", target, prefix),
              "calibrated_dedupe": calibrated,
              "model_pairs": _best_recall(pairs, "cut", target, prefix),
              "character_pairs": _best_recall(character, "threshold", target, prefix)}
    return ModelEvidence(model, curve, pairs, character, table, choice, backend, pop.floor,
                         base.n, base.scheme, scored.link, model_sheet, design, model_labelled,
                         None if model_holdout is None else Path(model_holdout))


def _model_holdout(items: pd.DataFrame, pop: Population, model: PairModel,
                   features: np.ndarray, backend: str, path: Path, size: int,
                   others: dict[str, np.ndarray], held: LabelSample,
                   merged_focus: np.ndarray, seed: int
                   ) -> tuple[Design | None, Population, pd.DataFrame, int, LabelSample]:
    """The model hold-out: read with the hold-out when it exists, drawn when absent.

    Returns:
        ``(design, population, drawn, labelled, sample)``: the design of a sheet drawn
        here (else None), the population the hold-out sample is of (banded once the
        model hold-out is read), the rows drawn here (else empty), its labelled pairs
        read, and the hold-out sample (both sheets once read).
    """
    if path.is_file():
        bands, both, labelled = read_model_holdout(path, pop, features, backend, held, others)
        return None, bands, pd.DataFrame(), labelled, both
    design = Design(model, MODEL_EDGES, backend)
    bands = banded(pop, model.probability(features), design.edges)
    rows = draw_model_sheet(bands, merged_focus, np.concatenate(list(others.values())), size,
                            seed, items, held)
    return design, pop, rows, 0, held


def _recall_at(table: pd.DataFrame, prefix: str) -> float:
    """The one row's point recall (of the hold-out's labels when ``prefix`` names them)."""
    return float(table[f"recall{prefix}"].iloc[0])


def recommended_cut(curve: pd.DataFrame, target: float, threshold_recall: float | None = None
                    ) -> tuple[float | None, str]:
    """The cut ``dedupe --calibration`` dedupes at, and why (None: it keeps the threshold).

    1. The lowest cut whose precision interval *on the loop's labels* lies at or above
       the target: the threshold's rule.
    2. Else, with a labelled hold-out, the loop proposes and the hold-out confirms: the
       lowest cut whose loop point precision reaches the target is recommended when the
       hold-out's interval there lies at or above it, and the model's dedupe there finds
       more same-event pairs than the calibrated dedupe at its threshold (point recalls on
       the same labels; ``threshold_recall`` None: no such comparison). The loop's labels
       were drawn by character strata and rarely fall where the model merges (its merges
       of low score are bounded there, not measured), so its interval alone seldom clears
       a target the hold-outs show the cut reaching. Only the one proposed cut is looked
       up on the hold-out: the hold-out chooses nothing, it confirms or declines.

    Examples:
        >>> curve = pd.DataFrame({"cut": [0.5, 0.7, 0.9], "precision": [0.8, 0.92, 0.95],
        ...     "precision_low": [0.6, 0.7, 0.8], "precision_holdout_low": [0.7, 0.91, 0.93],
        ...     "recall_holdout": [0.5, 0.4, 0.2]})
        >>> recommended_cut(curve, 0.9)[0], recommended_cut(curve, 0.9, 0.45)[0]
        (0.7, None)
    """
    ok = curve[curve["precision_low"] >= target]
    if len(ok):
        return float(ok["cut"].min()), ("the loop's labels: the lowest cut whose precision "
                                        "interval lies at or above the target")
    proposed = curve[curve["precision"] >= target]
    if "precision_holdout_low" not in curve.columns or not len(proposed):
        return None, "no cut's precision interval on the loop's labels reaches the target"
    row = proposed.loc[proposed["cut"].idxmin()]
    if not row["precision_holdout_low"] >= target:
        return None, (f"the loop's labels propose {row['cut']:.2f} (the lowest cut whose point "
                      "precision reaches the target); the hold-out's interval there does not "
                      "reach it")
    if threshold_recall is not None and not row["recall_holdout"] > threshold_recall:
        return None, (f"the loop's labels propose {row['cut']:.2f} and the hold-out confirms "
                      "its precision, but there the model's dedupe finds no more same-event "
                      "pairs than the calibrated dedupe at its threshold")
    return float(row["cut"]), ("proposed by the loop's labels (the lowest cut whose point "
                               "precision reaches the target), confirmed by the hold-out's "
                               "interval, finding more than the calibrated dedupe")


def _held_inclusion(pop: Population, held: LabelSample, loop_drawn: np.ndarray) -> np.ndarray:
    """A hold-out pair's inclusion probability among the pairs the loop did not draw."""
    per = np.bincount(pop.stratum[held.position], minlength=len(pop.strata))
    taken = np.bincount(pop.stratum[loop_drawn], minlength=len(pop.strata))
    stratum = pop.stratum[held.position]
    room = np.maximum(pop.strata["size"].to_numpy() - taken, 1)
    return per[stratum] / room[stratum]

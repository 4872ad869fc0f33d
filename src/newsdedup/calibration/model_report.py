"""The pair model's step in words: calibration.json's ``pair_model``, calibrate.md, the console."""

from __future__ import annotations

import math

import pandas as pd

from newsdedup.calibration.model import RELIABILITY_MIN_PAIRS, RELIABILITY_TOLERANCE, ModelEvidence
from newsdedup.runs.files import markdown_table

__all__ = ["MODEL_FILE", "model_lines", "model_record", "model_sections"]

MODEL_FILE = "pair_model.json"
"""The fitted model's parameters in ``<out>/<name>/calibrate/``."""


def _plain(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def _at(table: pd.DataFrame, key: str, value: float | None) -> pd.Series | None:
    if value is None:
        return None
    row = table[(table[key] - value).abs() < 1e-9]
    return row.iloc[0] if len(row) else None


def _measure(row: pd.Series | None, name: str, basis: str) -> dict | None:
    if row is None or name not in row.index:
        return None
    return {"value": _plain(row[name]), "low": _plain(row[f"{name}_low"]),
            "high": _plain(row[f"{name}_high"]), "basis": basis}


def _held(model: ModelEvidence) -> bool:
    return "precision_holdout" in model.curve.columns


def model_record(model: ModelEvidence, path: str) -> dict:
    """calibration.json's ``pair_model``: the model file, the cut and what it reaches.

    ``versus_character`` holds, at the target precision, the best recall of each scorer
    on the same labels (the hold-out's when there is one), and their ratio.
    """
    choice = model.choice
    row = _at(model.curve, "cut", choice["cut"])
    held = _held(model)
    basis_loop = model.model.fitted_on + " (they also fitted the model: optimistic)"
    judged = model.reliability[model.reliability["judged"]]
    return {
        "file": path,
        "features": list(model.model.features),
        "embedding": model.backend,
        "floor": model.floor, "ngram": model.ngram, "scheme": model.scheme,
        "link": model.link,
        "fitted_on": model.model.fitted_on,
        "target_precision": choice["target"],
        "recommended_cut": choice["cut"],
        "cut_basis": choice["cut_basis"],
        "merged_pairs": None if row is None else int(row["merged_pairs"]),
        "largest_group": None if row is None else int(row["largest_group"]),
        "precision": _measure(row, "precision_holdout" if held else "precision",
                              choice["basis"] if held else basis_loop),
        "recall": _measure(row, "recall_holdout" if held else "recall",
                           choice["basis"] if held else basis_loop),
        "model_holdout": _model_holdout_record(model),
        "versus": {
            "basis": choice["basis"],
            "note": "the highest recall whose point precision reaches the target: the "
                    "model's dedupe (greedy groups at P >= cut) against the calibrated "
                    "dedupe (character threshold, gate, window, series); the model's pair "
                    "decisions against the character score's (no grouping)",
            "model_dedupe": choice["model_dedupe"],
            "calibrated_dedupe": choice["calibrated_dedupe"],
            "dedupe_recall_ratio": _ratio(choice["model_dedupe"], choice["calibrated_dedupe"]),
            "model_pairs": choice["model_pairs"],
            "character_pairs": choice["character_pairs"],
            "pairs_recall_ratio": _ratio(choice["model_pairs"], choice["character_pairs"])},
        "reliability": {"table": "calibrate/pair_model_reliability.csv",
                        "judged_bins": int(len(judged)),
                        "within": int(judged["within"].sum()) if len(judged) else 0,
                        "rule": f"bins of at least {RELIABILITY_MIN_PAIRS} labelled pairs, "
                                f"mean probability within {RELIABILITY_TOLERANCE:.2f} of the "
                                "observed rate"},
        "curves": {"dedupe": "calibrate/pair_model.csv", "pairs": "calibrate/pair_model_pairs.csv",
                   "character_pairs": "calibrate/pair_model_character.csv"},
    }


def _model_holdout_record(model: ModelEvidence) -> dict | None:
    """The model hold-out asked for: drawn here (to label), or read (labelled pairs)."""
    if model.model_holdout is None:
        return None
    if len(model.model_sheet):
        return {"sheet": str(model.model_holdout), "drawn": len(model.model_sheet)}
    return {"sheet": str(model.model_holdout), "labelled": model.model_labelled}


def _ratio(mine: dict | None, theirs: dict | None) -> float | None:
    if not mine or not theirs or not theirs["recall"]:
        return None
    return mine["recall"] / theirs["recall"]


def _fmt(x: dict | None) -> str:
    if not x or x.get("value") is None:
        return "n/a"
    return f"{x['value']:.3f} [{x['low']:.3f}, {x['high']:.3f}]"


def model_lines(model: ModelEvidence) -> list[str]:
    """The step's outcome in a few lines (console and calibrate.md)."""
    rec = model_record(model, MODEL_FILE)
    lines = [f"pair model: fitted on {rec['fitted_on']}; cosine of {model.backend} embeddings."]
    if rec["recommended_cut"] is None:
        lines.append(f"pair model: no cut recommended at target {rec['target_precision']:g} "
                     f"({rec['cut_basis']}), so dedupe --calibration keeps the character "
                     "threshold; label more pairs.")
    else:
        lines.append(f"pair model: cut {rec['recommended_cut']:.2f} ({rec['cut_basis']}) "
                     f"merges {rec['merged_pairs']:,} candidate pairs; precision "
                     f"{_fmt(rec['precision'])}, recall {_fmt(rec['recall'])} "
                     f"({rec['precision']['basis'] if rec['precision'] else ''}); dedupe "
                     "--calibration dedupes by the model.")
    vs = rec["versus"]
    # Two comparisons, each at the highest recall whose point precision reaches the
    # target: the dedupes (groups), and each pair decided alone (no gate, window, series
    # rule or grouping), where the character score can fall short of a target its
    # calibrated dedupe reaches.
    for what, mine, theirs, key, ratio in (
            ("dedupes (groups)", vs["model_dedupe"], vs["calibrated_dedupe"],
             "dedupe_recall_ratio", "the calibrated dedupe"),
            ("pairs decided alone (no gate, window or series rule)", vs["model_pairs"],
             vs["character_pairs"], "pairs_recall_ratio", "the character score alone")):
        head = (f"{what}, point precision >= {rec['target_precision']:g} on "
                f"{vs['basis']}: ")
        if mine and theirs:
            lines.append(head + f"model recall {mine['recall']:.3f} (cut {mine['cut']:.2f}), "
                         f"{ratio} {theirs['recall']:.3f} (threshold {theirs['threshold']:.2f})"
                         f": {vs[key]:.2f}x.")
        elif mine:
            lines.append(head + f"model recall {mine['recall']:.3f} (cut {mine['cut']:.2f}); "
                         f"{ratio} reaches that precision at no threshold.")
        else:
            lines.append(head + "no cut of the model reaches that precision.")
    rel = rec["reliability"]
    lines.append(f"reliability: {rel['within']} of {rel['judged_bins']} judged bins within "
                 f"{RELIABILITY_TOLERANCE:.2f} ({rel['rule']}).")
    sheet = rec["model_holdout"]
    if sheet is not None and "drawn" in sheet:
        lines.append(f"next: label the {sheet['drawn']} pairs of the model's hold-out "
                     f"{sheet['sheet']} (`newsdedup label {sheet['sheet']}`), drawn where the "
                     "model merges pairs the hold-out's labels rarely reach, then run the same "
                     "command again: both hold-outs then measure the model's merges.")
    elif sheet is not None and not sheet["labelled"] and "precision_holdout" not in model.curve:
        lines.append(f"pair model: the model's hold-out {sheet['sheet']} is drawn once the "
                     "hold-out (--holdout) is labelled.")
    elif sheet is not None and not sheet["labelled"]:
        lines.append(f"next: label the model's hold-out {sheet['sheet']} (`newsdedup label "
                     f"{sheet['sheet']}`), then run the same command again.")
    return lines


def model_sections(model: ModelEvidence) -> list[tuple[str, str]]:
    """calibrate.md's sections of the pair model."""
    coef = pd.DataFrame({"feature": list(model.model.features),
                         "coefficient (per standard deviation)": list(model.model.coef)})
    a, b = model.model.calibration
    return [
        ("Pair model", "\n\n".join(model_lines(model))),
        ("Pair model: coefficients", markdown_table(coef, ".3f") + f"\n\nRecalibration to the "
         f"candidate pairs: logit = {a:.3f} + {b:.3f} x (the fit's logit)."),
        ("Pair model: precision and recall per probability cut", markdown_table(
            model.curve, ".3f", {"cut": ".2f", "merged_pairs": ".0f"})),
        ("Pair model: reliability", markdown_table(
            model.reliability, ".3f", {"bin_lo": ".1f", "pairs": ".0f"})),
    ]

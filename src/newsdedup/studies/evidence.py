"""Per-threshold evidence of a calibration and the threshold it recommends.

One table (``precision_recall.csv``) holds, for every threshold of the grid,
what the dedupe that ``DedupeConfig.from_calibration`` builds would do:
items left and merged pairs; the decoy estimate of its merges' precision
(:func:`newsdedup.studies.merges.merge_curve`); the recall estimated from the
word-retention simulation (:func:`simulated_recall`); and, with labels, the
measured precision and recall (:mod:`newsdedup.studies.labels`).

:func:`choose` picks the evidence in this order:

1. **labels** (a story column or gold pairs): measured, so they beat
   estimates.
2. **decoys**: estimated precision of the dedupe's *merges*. The merges, not "every pair ``>= t``"
   (:func:`newsdedup.studies.decoys.decoy_curve`), because the merges are what
   the user gets: the gate removes most high-scoring unrelated pairs, so the
   all-pairs curve understates the dedupe's precision (on the UCI head no
   threshold reaches 0.95 over all pairs, while the gated merges measure 0.94
   against STORY at 0.20). The all-pairs curves are written beside it.
3. **bound**: when no decoy rule applies, or the decoys find no threshold
   whose merges reach the target (on a corpus without duplicates every
   merge is false), the published unrelated-pair bound
   (:func:`newsdedup.studies.calibration.calibrate`) decides, as before.

With labels or decoys the recommendation is the lowest threshold whose
precision reaches the target *with confidence*: the low end of its interval,
not its point estimate. The point estimate would take the lowest threshold
whose merges look good on average, and the decoy estimate is most
optimistic exactly there: at low thresholds the gate, not the score, picks
the merges (``gate_share``, see :mod:`newsdedup.studies.merges`), few
decoys are ever compared, and the estimate stays flat while the merges turn
into topical groups. Requiring the interval's low end costs a few
hundredths of a threshold where the estimate is sound and keeps the
recommendation out of that region.

When no threshold's low end reaches the target, the decoys still recommend
the threshold whose *point* estimate reaches it with the highest low end:
the most trustworthy of the thresholds that look good, and the note says
that the target is met only on the point. In the gate-dominated region the
low end is low (the conventional reading, every compared pair unrelated,
counts the most false merges there), so this too stays out of it. On the
UCI head (``docs/calibration.md``) no threshold's merges measure 0.95
against STORY, and none is estimated to with confidence.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd


def simulated_recall(sensitivity, thresholds: Sequence[float]) -> pd.DataFrame:
    """Share of simulated rewrites caught at each threshold (both sides reduced).

    Args:
        sensitivity: A :class:`newsdedup.studies.sensitivity.SensitivityResult`.
        thresholds: The grid.

    Returns:
        Columns threshold, recall_sim (share of all simulated pairs, every
        retention level alike, scoring ``>= t``), recall_sim_low and
        recall_sim_high (the least and the most caught retention level: the
        range over how heavily a rewrite changes the words, not a sampling
        interval).
    """
    levels = [np.asarray(v, dtype=np.float64) for v in sensitivity.both.values() if len(v)]
    rows = []
    for t in np.asarray(thresholds, dtype=np.float64):
        shares = [float(np.mean(v >= t)) for v in levels]
        pooled = (float(np.mean(np.concatenate(levels) >= t)) if levels else math.nan)
        rows.append({"threshold": float(t), "recall_sim": pooled,
                     "recall_sim_low": min(shares, default=math.nan),
                     "recall_sim_high": max(shares, default=math.nan)})
    return pd.DataFrame(rows)


def _interval(row: pd.Series, prefix: str) -> dict:
    """``{"value", "low", "high"}`` from ``prefix`` and its ``_low``, ``_high`` (NaN: None)."""
    def plain(x) -> float | None:
        return None if x is None or not math.isfinite(float(x)) else float(x)

    return {"value": plain(row[prefix]), "low": plain(row[f"{prefix}_low"]),
            "high": plain(row[f"{prefix}_high"])}


def _lowest(curve: pd.DataFrame, column: str, target: float) -> float | None:
    """Lowest threshold with merges whose ``column`` reaches ``target``."""
    ok = (curve["merged_pairs"] > 0) & (curve[column] >= target)
    hits = curve.loc[ok, "threshold"]
    return float(hits.min()) if len(hits) else None


def _most_trusted(curve: pd.DataFrame, target: float) -> float | None:
    """Among thresholds whose point estimate reaches ``target``, the one with the highest low end.

    Ties go to the lowest threshold (it merges the most).
    """
    ok = curve[(curve["merged_pairs"] > 0) & (curve["precision"] >= target)
               & (curve["precision_low"] > 0)]
    if not len(ok):
        return None
    best = ok["precision_low"].max()
    return float(ok.loc[ok["precision_low"] == best, "threshold"].min())


def _row(curve: pd.DataFrame, t: float) -> pd.Series | None:
    at = curve[np.isclose(curve["threshold"], t)]
    return at.iloc[0] if len(at) else None


def choose(curve: pd.DataFrame, target: float, bound_threshold: float | None,
           labels: str | None = None, decoys: str | None = None) -> dict:
    """The recommended threshold, the evidence that chose it and its precision and recall.

    Args:
        curve: The per-threshold table (see the module docstring); measured
            columns ``precision_measured*`` / ``recall_measured*`` when labelled.
        target: Target precision.
        bound_threshold: The published bound's recommendation (None if none).
        labels: What the labels are (for the text), or None without labels.
        decoys: The decoy rule's description, or None when none applies.

    Returns:
        ``{"method", "threshold", "estimated_precision", "estimated_recall",
        "note"}``: method ``"labels"``, ``"decoys"`` or ``"bound"``; the
        intervals as ``{"value", "low", "high"}`` at the threshold (values
        None where nothing is merged); ``note`` says why, in words.

    Examples:
        >>> c = pd.DataFrame({"threshold": [0.1, 0.2], "merged_pairs": [0, 10],
        ...     "gate_share": [0.6, 0.1], "precision": [0.97, 0.96],
        ...     "precision_low": [0.96, 0.95], "precision_high": [1, 1], "recall_sim": [1, .9],
        ...     "recall_sim_low": [1, .8], "recall_sim_high": [1, 1]})
        >>> choose(c, 0.95, None, decoys="d")["threshold"]
        0.2
    """
    note = []
    if labels is not None:
        t = _lowest(curve, "precision_measured_low", target)
        if t is not None:
            return _result("labels", t, curve, "precision_measured", "recall_measured",
                           f"Measured on {labels}: {t:.2f} is the lowest threshold whose "
                           f"measured precision reaches {target:.2f} (the low end of its "
                           f"interval).")
        note.append(f"On {labels} no threshold reaches a measured precision of {target:.2f}.")
    if decoys is not None:
        t = _lowest(curve, "precision_low", target)
        if t is not None:
            return _result("decoys", t, curve, "precision", "recall_sim",
                           " ".join(note) + f" Estimated from decoys ({decoys}): {t:.2f} is "
                           f"the lowest threshold whose dedupe merges have an estimated "
                           f"precision of at least {target:.2f} (the low end of its interval; "
                           f"the estimate is of the merges the dedupe makes, not of every pair "
                           f"scoring at least the threshold).")
        t = _most_trusted(curve, target)
        if t is not None:
            row = _row(curve, t)
            assert row is not None
            return _result("decoys", t, curve, "precision", "recall_sim",
                           " ".join(note) + f" Estimated from decoys ({decoys}): no threshold's "
                           f"merges reach a precision of {target:.2f} at the low end of their "
                           f"interval; {t:.2f} is the threshold whose estimate reaches it with "
                           f"the highest low end ({row['precision_low']:.3f}). Read that low "
                           f"end before trusting the target, or label pairs to measure it "
                           f"(newsdedup label-sheet).")
        note.append(f"The decoys ({decoys}) find no threshold whose merges reach an estimated "
                    f"precision of {target:.2f}; on a corpus without duplicates every merge "
                    f"is a false one.")
    else:
        note.append("No decoy rule applies (no decoy field or pairs given, and the dates "
                    "span less than the decoy gap or are missing).")
    note.append("The published unrelated-pair bound decides"
                + (f": {bound_threshold:.2f}." if bound_threshold is not None
                   else ", and it gives no threshold either."))
    if bound_threshold is None:
        return {"method": "bound", "threshold": None, "estimated_precision": None,
                "estimated_recall": None, "note": " ".join(note).strip()}
    return _result("bound", bound_threshold, curve, "precision", "recall_sim",
                   " ".join(note).strip())


def _result(method: str, t: float, curve: pd.DataFrame, precision: str, recall: str,
            note: str) -> dict:
    row = _row(curve, t)
    empty = {"value": None, "low": None, "high": None}
    return {"method": method, "threshold": t,
            "estimated_precision": empty if row is None else _interval(row, precision),
            "estimated_recall": empty if row is None else _interval(row, recall),
            "note": note.strip()}

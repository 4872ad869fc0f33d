"""The calibration's one report: the same words on the console and in ``calibration.md``.

What a user needs, in this order: the method that chose, the threshold and
the window, precision and recall at it with their intervals and what each is
over, the items left, the series found, and, when the calibration declines,
why and the exact command to run next. Measured and simulated figures are
never given one name: the recall of simulated rewrites is printed as such.
"""

from __future__ import annotations

import math

import pandas as pd

from newsdedup.calibration.choice import Choice

__all__ = ["summary_lines", "curve_columns"]


def _interval(x: dict | None) -> str:
    if not x or x.get("value") is None:
        return "n/a"
    lo = "?" if x.get("low") is None else f"{x['low']:.3f}"
    hi = "?" if x.get("high") is None else f"{x['high']:.3f}"
    return f"{x['value']:.3f} [{lo}, {hi}]"


def _row(curve: pd.DataFrame, t: float | None) -> pd.Series | None:
    if t is None or not len(curve):
        return None
    at = curve[(curve["threshold"] - t).abs() < 1e-9]
    return at.iloc[0] if len(at) else None


def summary_lines(evidence, n_items: int) -> list[str]:
    """The calibration's summary, one statement a line (console and Markdown alike).

    Args:
        evidence: A :class:`newsdedup.calibration.evidence.Evidence`.
        n_items: Items of the corpus.

    Returns:
        The lines.
    """
    c: Choice = evidence.choice
    config = evidence.config
    t = c["threshold"]
    window = ("none" if config.window_days is None else f"{config.window_days:g} days")
    series = evidence.series
    found = 0 if series is None else len(series.table)
    members = 0 if series is None else int(series.member().sum())
    head = (f"method: {c['method']}; recommended threshold "
            + ("none" if t is None else f"{t:.2f}")
            + f" (target precision {c['target']:.2f}); date window {window}; series rule "
            + ("on" if config.series else "off") + f" ({found} series, {members} items)")
    lines = [head]
    row = _row(evidence.curve, t)
    if row is not None:
        lines.append(f"at {t:.2f}: {int(row['items_left']):,} of {n_items:,} items left, "
                     f"{int(row['merged_pairs']):,} pairs merged")
    if c["precision"]["value"] is not None:
        lines.append(f"precision {_interval(c['precision'])} (95% interval; over "
                     f"{c['precision']['basis']})")
    if c["recall"]["value"] is not None:
        lines.append(f"recall {_interval(c['recall'])} (95% interval; over "
                     f"{c['recall']['basis']}; among the same-event pairs scoring at least "
                     f"{evidence.population.floor:g})")
    if row is not None and "recall_sim" in row.index and _finite(row["recall_sim"]):
        lines.append(f"simulated rewrites caught at {t:.2f}: {row['recall_sim']:.3f} "
                     f"(range over word-retention levels {row['recall_sim_low']:.3f}-"
                     f"{row['recall_sim_high']:.3f}; not a recall of this corpus)")
    if c.get("loop_precision") is not None and c["loop_precision"]["value"] is not None:
        lines.append(f"the loop's own estimate at {t:.2f} (it chose the threshold, so it leans "
                     f"optimistic): precision {_interval(c['loop_precision'])}, recall "
                     f"{_interval(c['loop_recall'])} (over {c['loop_precision']['basis']})")
    if evidence.window is not None:
        lines.append(f"window: {evidence.window.reason}")
    if evidence.decoys is not None:
        lines.append(f"decoy check: {'passed' if evidence.decoys.check['passed'] else 'failed'}"
                     f" ({evidence.decoys.check['reason']})")
    lines.append(c["note"])
    if c.get("next"):
        lines.append(f"next: {c['next']}")
    return lines


def _finite(x) -> bool:
    try:
        return math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def curve_columns(curve: pd.DataFrame) -> list[str]:
    """The columns of ``precision_recall.csv`` shown in ``calibration.md`` (those present)."""
    wanted = ["threshold", "items_left", "merged_pairs", "precision_measured",
              "precision_measured_low", "precision_measured_high", "recall_measured",
              "recall_measured_low", "recall_measured_high", "decoy_precision",
              "decoy_precision_low", "decoy_precision_high", "precision_holdout",
              "recall_holdout", "recall_sim"]
    return [c for c in wanted if c in curve.columns]

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
from newsdedup.calibration.evidence import STORY_BASIS

__all__ = ["summary_lines", "curve_columns", "outcome_row", "outcome_table", "WIDE_RECALL"]

WIDE_RECALL = 0.5
"""Width of a recall interval from which the summary says to read its ends, not its value."""


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
        # A story column knows every same-event pair of the corpus, and its recall counts
        # them all; a sheet's counts those among the candidate pairs (the population).
        among = ("every same-story pair of the corpus"
                 if str(c["recall"]["basis"]).startswith(STORY_BASIS) else
                 f"among the same-event pairs scoring at least {evidence.population.floor:g}")
        lines.append(f"recall {_interval(c['recall'])} (95% interval; over "
                     f"{c['recall']['basis']}; {among})")
        low, high = c["recall"].get("low"), c["recall"].get("high")
        if _finite(low) and _finite(high) and high - low >= WIDE_RECALL:
            # The same-event pairs a dedupe leaves apart sit in large strata of low scores,
            # each labelled pair standing for thousands: their count, recall's denominator,
            # is known within a factor of ten or more, and the point value means little.
            lines.append(f"recall is barely measured: its interval spans {high - low:.2f}; "
                         "read its ends, not its value (more labels among the low-scoring "
                         "pairs narrow it)")
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


def outcome_row(feed: str, labelled: dict, unlabelled: dict, curve: pd.DataFrame) -> dict:
    """One feed's calibration without and with labels, against its labelled hold-out.

    Args:
        feed: The feed's name.
        labelled: ``calibration.json`` of the run with the loop's and hold-out's labels.
        unlabelled: ``calibration.json`` of the run without labels.
        curve: ``precision_recall.csv`` of the labelled run (its hold-out columns
            measure any threshold, the unlabelled run's choice included).

    Returns:
        The row :func:`outcome_table` prints.
    """
    t0 = unlabelled.get("recommended_threshold")
    at0 = _row(curve, t0) if unlabelled.get("method") != "bound" else None
    held0 = (None if at0 is None or "precision_holdout" not in curve.columns else
             {"value": at0["precision_holdout"], "low": at0["precision_holdout_low"],
              "high": at0["precision_holdout_high"]})
    labels = labelled.get("labels") or {}
    holdout = labelled.get("holdout") or {}
    return {
        "feed": feed,
        "without_labels": (f"{unlabelled['method']} {t0:g}" if t0 is not None
                           else "declines"),
        "stated": _interval(unlabelled.get("estimated_precision"))
        if unlabelled.get("method") != "bound" else "bound (no precision)",
        "measured_there": _interval(held0) if held0 is not None else "n/a",
        "with_labels": (f"{labelled['method']} {labelled['recommended_threshold']:g}"
                        if labelled.get("recommended_threshold") is not None else "declines"),
        "precision": _interval(labelled.get("estimated_precision")),
        "recall": _interval(labelled.get("estimated_recall")),
        "labels": f"{labels.get('labelled', '?')} + {holdout.get('labelled', '?')} hold-out",
        "holdout_confirms": holdout.get("confirms"),
    }


def outcome_table(rows: list[dict]) -> str:
    """The rows of :func:`outcome_row` as the Markdown table ``docs/calibration.md`` shows.

    Examples:
        >>> row = {"feed": "f", "without_labels": "decoys 0.3", "stated": "0.950 [0.900, 0.980]",
        ...        "measured_there": "0.910 [0.850, 0.950]", "with_labels": "labels 0.4",
        ...        "precision": "0.930 [0.900, 0.960]", "recall": "0.200 [0.100, 0.300]",
        ...        "labels": "200 + 150 hold-out", "holdout_confirms": True}
        >>> print(outcome_table([row]).splitlines()[2])
        | f | decoys 0.3 | 0.950 [0.900, 0.980] | 0.910 [0.850, 0.950] | labels 0.4 | 0.930 [0.900, 0.960] | 0.200 [0.100, 0.300] | 200 + 150 hold-out | yes |
    """  # noqa: E501
    head = ("| feed | without labels | stated precision | hold-out measures there "
            "| with labels | precision (hold-out) | recall (hold-out) | labels "
            "| hold-out confirms |")
    lines = [head, "|" + "---|" * 9]
    for r in rows:
        confirms = {True: "yes", False: "no", None: "n/a"}[r["holdout_confirms"]]
        lines.append(f"| {r['feed']} | {r['without_labels']} | {r['stated']} | "
                     f"{r['measured_there']} | {r['with_labels']} | {r['precision']} | "
                     f"{r['recall']} | {r['labels']} | {confirms} |")
    return "\n".join(lines)

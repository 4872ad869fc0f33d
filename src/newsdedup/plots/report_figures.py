"""Figures of the run report: items per day, the threshold sweep, candidates against decoys.

Each draws one table a run wrote (counts per day, the per-threshold curve,
counts per score bin), never the pairs themselves, so a figure costs the same
on 100 items and on 1M. The columns a table lacks are left out of the figure
(the calibration's tables gain columns as it grows: measured, hold-out and
decoy precision are each drawn when present).
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from newsdedup.plots.calibrate import (
    LABELLED_PRECISION,
    LABELLED_RECALL,
    decoy_merges,
    decoy_precision,
    interval_curves,
)
from newsdedup.plots.style import BOUND_COLOR, DPI, RECOMMENDED_COLOR, bound_line, new_figure

DAYS_SIZE = (10.5, 3.6)
"""Size of the items-per-day figure, inches."""

SWEEP_SIZE = (12.0, 4.2)
"""Size of the three-panel sweep figure, inches."""

SCORES_SIZE = (10.5, 4.2)
"""Size of the two-panel score figure, inches."""

RECALL_COLUMNS = (*LABELLED_RECALL,
                  ("recall_sim", "simulated rewrites (range over retention)", "#ff7f0e", "-"))
"""Recall columns drawn when present (``recall_sim``'s low and high: a range, not an interval)."""


def items_per_day(dates: Sequence[str], counts: Mapping[str, Sequence[int]]) -> Figure:
    """Items published per day, stacked by source.

    Args:
        dates: The days (``YYYY-MM-DD``), in order.
        counts: Source -> items per day (same length as ``dates``), most items first.

    Returns:
        The figure; one bar container per source, labelled with it.

    Examples:
        >>> fig = items_per_day(["2024-01-01", "2024-01-02"], {"a": [3, 1], "b": [0, 2]})
        >>> [c.get_label() for c in fig.axes[0].containers]
        ['a', 'b']
    """
    fig, (ax,) = new_figure(*DAYS_SIZE)
    x = np.arange(len(dates))
    bottom = np.zeros(len(dates))
    for source, values in counts.items():
        v = np.asarray(values, dtype=np.float64)
        ax.bar(x, v, bottom=bottom, width=0.85, label=str(source), lw=0)
        bottom += v
    # At most about 12 labelled days, whatever the span.
    step = max(1, int(np.ceil(len(dates) / 12)))
    ax.set_xticks(x[::step], [str(d) for d in list(dates)[::step]], rotation=30, ha="right",
                  fontsize=8)
    ax.set_ylabel("items published")
    ax.grid(alpha=0.3, axis="y")
    if counts:
        ax.legend(fontsize=8, loc="upper left", ncols=min(len(counts), 5))
    ax.set_title("Items per day (UTC), by source")
    return fig


def _recommended(ax: Axes, recommended: float | None) -> None:
    if recommended is not None:
        ax.axvline(recommended, color=RECOMMENDED_COLOR, lw=1.3, ls="-.",
                   label=f"recommended {recommended:.2f}")


def sweep_curves(curve: pd.DataFrame, recommended: float | None,
                 target: float | None = None, decoys: dict | None = None) -> Figure:
    """Items left, merged pairs, precision and recall of the calibrated dedupe per threshold.

    Answers: what does each threshold cost and buy, and how sure is each
    number? (a) items left and merged pairs, (b) every precision the table
    has with its interval (the decoys' a lower bound, grey when their check
    failed), (c) every recall with its interval (the simulated recall's band
    is the range over retention levels). The recommended
    threshold is the dash-dot line, the target precision the dotted one.

    Args:
        curve: ``calibrate/precision_recall.csv`` (threshold, items_left, merged_pairs and
            any of the labelled columns and :data:`RECALL_COLUMNS`).
        recommended: The recommended threshold, or None.
        target: The target precision, or None.
        decoys: The ``decoys`` object of ``calibration.json``, or None.

    Returns:
        The figure; panel titles start with (a), (b), (c); with ``merged_pairs`` a fourth
        axes, the twin of (a), carries them.

    Examples:
        >>> c = pd.DataFrame({"threshold": [.1, .2], "items_left": [5, 8], "merged_pairs": [6, 2],
        ...                   "precision": [.8, .95], "precision_low": [.7, .9],
        ...                   "precision_high": [.9, 1.], "recall_sim": [.9, .7]})
        >>> [ax.get_title()[:3] for ax in sweep_curves(c, .2, .95).axes]  # (a)'s twin last
        ['(a)', '(b)', '(c)', '']
    """
    fig, (a, b, c) = new_figure(*SWEEP_SIZE, ncols=3, sharex=True)
    curve = curve.sort_values("threshold")
    t = curve["threshold"].to_numpy(dtype=np.float64)
    a.plot(t, curve["items_left"].to_numpy(dtype=np.float64), color="#7f7f7f", lw=1.8,
           label="items left")
    a.set_ylabel("items left after the dedupe")
    twin = None
    if "merged_pairs" in curve:
        twin = a.twinx()
        twin.plot(t, curve["merged_pairs"].to_numpy(dtype=np.float64), color="#8c564b", lw=1.4,
                  ls="--", label="merged pairs")
        twin.set_yscale("symlog", linthresh=1.0)
        twin.set_ylim(bottom=0)
        twin.set_ylabel("merged pairs (dashed, symlog)")
    a.set_title("(a) items left and merged pairs")
    drawn = (interval_curves(b, curve, LABELLED_PRECISION)
             + decoy_precision(b, curve, decoys))
    if target is not None:
        b.axhline(target, color=BOUND_COLOR, lw=1.0, ls=":", label=f"target {target:.2f}")
    b.set_ylim(0.0, 1.02)
    b.set_ylabel("precision of the merges")
    b.set_title("(b) precision")
    if not drawn:
        b.text(0.05, 0.5, "no precision estimate in this run", transform=b.transAxes,
               color=BOUND_COLOR)
    if not interval_curves(c, curve, RECALL_COLUMNS):
        c.text(0.05, 0.5, "no recall estimate in this run", transform=c.transAxes,
               color=BOUND_COLOR)
    c.set_ylim(0.0, 1.02)
    c.set_ylabel("recall")
    c.set_title("(c) recall")
    for ax in (a, b, c):
        _recommended(ax, recommended)
        ax.set_xlabel("threshold")
        ax.grid(alpha=0.3)
        handles, labels = ax.get_legend_handles_labels()
        if ax is a and twin is not None:  # one legend for both axes of panel (a)
            more = twin.get_legend_handles_labels()
            handles, labels = handles + more[0], labels + more[1]
        if handles:
            ax.legend(handles, labels, fontsize=7, loc="best")
    fig.suptitle("Threshold sweep of the calibrated dedupe")
    return fig


def _all_pairs_panel(ax: Axes, histogram: pd.DataFrame | None, n: int | None,
                     upper_bound: float | None, recommended: float | None) -> None:
    ax.set_title("(a) all pairs" + (f", n = {n}" if n is not None else ""))
    ax.set_xlabel("score (exact Jaccard)")
    ax.grid(alpha=0.3)
    if histogram is None or not len(histogram):
        ax.text(0.05, 0.5, "no score histogram in this run", transform=ax.transAxes,
                color=BOUND_COLOR)
        return
    if n is not None and (histogram["n"] == n).any():
        histogram = histogram[histogram["n"] == n]
    else:
        histogram = histogram[histogram["n"] == histogram["n"].min()]
    h = histogram.sort_values("bin_lo")
    edges = np.append(h["bin_lo"].to_numpy(dtype=np.float64), float(h["bin_hi"].iloc[-1]))
    exact = h["exact"].to_numpy(dtype=np.float64)
    ax.stairs(exact, edges, fill=True, alpha=0.4, color="#1f77b4",
              label=f"pairs ({int(exact.sum()):,})")
    if exact.any():
        ax.set_yscale("log")
    ax.set_ylabel("pairs per bin (log)")
    if upper_bound is not None:
        bound_line(ax, upper_bound, vertical=True)
    _recommended(ax, recommended)
    ax.legend(fontsize=7, loc="upper right")


def score_panels(histogram: pd.DataFrame | None, curve: pd.DataFrame | None,
                 decoys: dict | None = None, n: int | None = None,
                 upper_bound: float | None = None, recommended: float | None = None,
                 no_decoys: str = "no precision/recall curve in this run") -> Figure:
    """The score distribution of all pairs, and the merges against the decoys.

    Answers: where does the bulk of the pairs sit, and how many of the pairs
    the dedupe merges at each threshold do the decoys (pairs that cannot be
    one story) say are unrelated? The gap between the two curves of (b) is
    what the duplicates add.

    Args:
        histogram: ``measure/histogram.csv`` (n, bin_lo, bin_hi, exact), or None.
        curve: ``calibrate/precision_recall.csv`` (merged pairs and decoy rate per
            threshold), or None.
        decoys: The ``decoys`` object of ``calibration.json``, or None.
        n: The n-gram size of ``histogram`` drawn (the calibration's); default the smallest.
        upper_bound: The unrelated-pair bound, or None.
        recommended: The recommended threshold, or None.
        no_decoys: What panel (b) says without a curve.

    Returns:
        The figure; panel titles start with (a) and (b).

    Examples:
        >>> h = pd.DataFrame({"n": [4, 4], "bin_lo": [0, .5], "bin_hi": [.5, 1], "exact": [9, 1]})
        >>> [ax.get_title()[:3] for ax in score_panels(h, None, n=4).axes]
        ['(a)', '(b)']
    """
    fig = Figure(figsize=SCORES_SIZE, dpi=DPI, layout="constrained")
    a, b = fig.subplots(1, 2)
    _all_pairs_panel(a, histogram, n, upper_bound, recommended)
    if curve is None:
        b.set_title("(b) merges against decoys")
        b.text(0.05, 0.5, textwrap.fill(no_decoys, 55), transform=b.transAxes,
               color=BOUND_COLOR, fontsize=9, va="center")
    else:
        decoy_merges(b, curve.sort_values("threshold"), decoys, recommended,
                     "(b) merges against decoys")
    fig.suptitle("Score distributions: all pairs, and merges against decoys")
    return fig

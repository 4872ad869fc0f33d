"""Figures of the calibrate and dedupe steps: sensitivity, threshold sweep, dedupe sweep.

They draw what ``newsdedup calibrate`` and ``newsdedup dedupe`` write under
``results/<name>/calibrate/`` and ``results/<name>/dedupe/`` (read by
:func:`newsdedup.plots.results.load_results`). Each function takes DataFrames
and returns a :class:`matplotlib.figure.Figure`; :mod:`newsdedup.plots.write` saves them.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from newsdedup.plots.style import (
    BOUND_COLOR,
    DPI,
    RECOMMENDED_COLOR,
    SENSITIVITY_SIZE,
    TWO_PANELS,
    bound_line,
    new_figure,
)


def crossings(x: Sequence[float], y: Sequence[float], level: float) -> list[float]:
    """Where a piecewise-linear curve crosses a horizontal level.

    The sensitivity figure marks the retention ``f`` at which a curve drops
    through the unrelated-pair bound; the tables only have the grid values,
    so the crossing is interpolated linearly between neighbouring points.

    Args:
        x: Abscissae, in any order (sorted here).
        y: Curve values at ``x``.
        level: The horizontal level.

    Returns:
        x positions of the crossings, ascending. A point exactly on the level
        counts once.

    Examples:
        >>> crossings([0.5, 0.6, 0.7], [0.1, 0.2, 0.3], 0.25)
        [0.65]
        >>> crossings([0.5, 0.6], [0.3, 0.4], 0.25)
        []
    """
    order = np.argsort(np.asarray(x, dtype=np.float64))
    xs = np.asarray(x, dtype=np.float64)[order]
    ys = np.asarray(y, dtype=np.float64)[order] - level
    out: list[float] = []
    for k in range(len(xs) - 1):
        a, b = ys[k], ys[k + 1]
        if a == 0.0:
            out.append(float(xs[k]))
        elif a * b < 0.0:
            out.append(float(round(xs[k] + (xs[k + 1] - xs[k]) * a / (a - b), 10)))
    if len(ys) and ys[-1] == 0.0:
        out.append(float(xs[-1]))
    return out


def _sweep_axes(axes: list[Axes], pairs_label: str, pairs_title: str, items_label: str) -> None:
    """Axes of a two-panel threshold sweep: pairs (symlog, zero visible) and items left."""
    for ax in axes:
        ax.set_xlabel("threshold (score at or above)")
        ax.grid(alpha=0.3, which="both")
    axes[0].set_yscale("symlog", linthresh=1.0)
    axes[0].set_ylim(bottom=0)
    axes[0].set_ylabel(f"{pairs_label} (symlog)")
    axes[0].set_title(pairs_title)
    axes[1].set_ylabel(items_label)
    axes[1].set_title("items left")


def _sensitivity_panel(ax: Axes, table: pd.DataFrame, title: str, upper_bound: float,
                       recommended: float | None, color: str) -> None:
    t = table.sort_values("f")
    f = t["f"].to_numpy(dtype=np.float64)
    ax.fill_between(f, t["min"], t["mean"], color=color, alpha=0.12, lw=0, label="min .. mean")
    if "p5" in t:
        ax.fill_between(f, t["p5"], t["mean"], color=color, alpha=0.22, lw=0, label="p5 .. mean")
        ax.plot(f, t["p5"], "--", color=color, lw=1.2, label="p5")
    ax.plot(f, t["mean"], "o-", color=color, lw=2.0, ms=4, label="mean")
    ax.plot(f, t["min"], ":", color=color, lw=1.2, label="min")
    bound_line(ax, upper_bound, vertical=False)
    if recommended is not None:
        ax.axhline(recommended, color=RECOMMENDED_COLOR, lw=1.0, ls="-.",
                   label=f"recommended {recommended:.2f}")
    # The point of the figure: the retention at which each curve falls through the bound.
    for col, marker in (("mean", "o"), ("p5", "v")):
        if col not in t:
            continue
        for x in crossings(f, t[col], upper_bound):
            ax.plot([x], [upper_bound], marker, ms=9, mfc="white", mec=BOUND_COLOR, mew=1.6,
                    zorder=4, label="_crossing")
            # mean crossings are labelled above-left, p5 below-right: they sit close together.
            ax.annotate(f"{col} crosses\nat f = {x:.2f}", (x, upper_bound),
                        xytext=(-70, 22) if col == "mean" else (8, -40),
                        textcoords="offset points", fontsize=8, color=BOUND_COLOR,
                        bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none",
                              "alpha": 0.85},
                        arrowprops={"arrowstyle": "-", "color": BOUND_COLOR, "lw": 0.6})
    ax.set_title(title)
    ax.set_xlabel("f, share of words each version keeps")
    ax.set_ylim(0.0, 1.0)
    ax.grid(alpha=0.3)


def sensitivity_curves(both: pd.DataFrame, one: pd.DataFrame, upper_bound: float,
                       recommended: float | None = None) -> Figure:
    """Jaccard of simulated rewrites against word retention, with the unrelated-pair bound.

    Answers: how much rewording can a duplicate survive and still score above
    every unrelated pair? Where a curve crosses the bound, duplicates at that
    retention stop being separable by the score; the crossing is marked.

    Args:
        both: ``calibrate/both_sided.csv``: f, mean, p5, min (both versions reduced).
        one: ``calibrate/one_sided.csv``: f, mean, min (original vs one reduced version).
        upper_bound: The unrelated-pair upper bound (horizontal dashed line).
        recommended: The recommended threshold, or None.

    Returns:
        The figure: left panel both-sided, right panel one-sided; the line
        labelled ``"mean"`` in each has the frame's ``mean`` column as y-data.

    Examples:
        >>> b = pd.DataFrame({"f": [.5, .9], "mean": [.2, .6], "p5": [.1, .4], "min": [0, .2]})
        >>> o = pd.DataFrame({"f": [.5, .9], "mean": [.3, .8], "min": [0, .3]})
        >>> fig = sensitivity_curves(b, o, 0.25, 0.26)
        >>> [ax.get_title() for ax in fig.axes]
        ['both versions reworded', 'one version reworded']
    """
    fig, axes = new_figure(*SENSITIVITY_SIZE, ncols=2, sharey=True)
    _sensitivity_panel(axes[0], both, "both versions reworded", upper_bound, recommended,
                       "#1f77b4")
    _sensitivity_panel(axes[1], one, "one version reworded", upper_bound, recommended, "#2ca02c")
    axes[0].set_ylabel("exact Jaccard of the simulated pair")
    axes[0].legend(fontsize=8, loc="upper left")
    fig.suptitle("Sensitivity: which rewrites still score above every unrelated pair?")
    return fig


def threshold_sweep(sweep: pd.DataFrame, recommended: float | None,
                    band: Sequence[float] | None) -> Figure:
    """Pairs at or above each threshold and items left after dedupe, per scorer.

    Answers: what does a threshold cost on this corpus, and where does the
    calibrated value sit? The band ``(low, high]`` is shaded and the
    recommended threshold drawn as a vertical line. The pair count uses a
    symmetric-log axis so that zero pairs (above the bound) stays visible.

    Args:
        sweep: ``calibrate/sweep.csv``: scorer, threshold, pairs, items_left.
        recommended: The recommended threshold, or None (then none is drawn).
        band: ``(low, high)`` of the calibrated band, or None.

    Returns:
        The figure: left panel pairs, right panel items left, one line per
        scorer labelled with its name.

    Examples:
        >>> s = pd.DataFrame({"scorer": ["jaccard"] * 2, "threshold": [.1, .2],
        ...                   "pairs": [5, 0], "items_left": [8, 10]})
        >>> [ln.get_label() for ln in threshold_sweep(s, .2, (.15, .3)).axes[0].lines]
        ['jaccard', 'recommended 0.20']
    """
    fig, axes = new_figure(*TWO_PANELS, ncols=2, sharex=True)
    for scorer, g in sweep.groupby("scorer", sort=False):
        g = g.sort_values("threshold")
        axes[0].plot(g["threshold"], g["pairs"], lw=1.6, label=str(scorer))
        axes[1].plot(g["threshold"], g["items_left"], lw=1.6, label=str(scorer))
    for ax in axes:
        if band is not None:
            ax.axvspan(band[0], band[1], color=BOUND_COLOR, alpha=0.12,
                       label=f"band ({band[0]:.3f}, {band[1]:.3f}]")
        if recommended is not None:
            ax.axvline(recommended, color=RECOMMENDED_COLOR, lw=1.2, ls="-.",
                       label=f"recommended {recommended:.2f}")
    _sweep_axes(axes, "pairs at or above", "pairs flagged", "items left after greedy clustering")
    axes[0].legend(fontsize=8, loc="upper right")
    if band is None and recommended is None:
        axes[0].text(0.02, 0.03, "no calibrated band for this corpus", transform=axes[0].transAxes,
                     fontsize=9, color=BOUND_COLOR)
    fig.suptitle("Threshold sweep by scorer")
    return fig


def dedupe_sweep(sweep: pd.DataFrame, threshold: float | None = None) -> Figure:
    """Items left and pairs flagged per threshold, per scorer, with the gate on and off.

    Answers: what does the subject gate buy, and at what threshold does each
    scorer start merging? Solid lines are gated, dashed ungated, one colour
    per scorer; the gap between a solid and a dashed line is what the gate
    blocks. The threshold in use is drawn as a vertical line.

    Args:
        sweep: ``dedupe/sweep.csv``: scorer, gate, threshold, pairs_at_or_above,
            items_left.
        threshold: The dedupe's threshold, or None.

    Returns:
        The figure; every line is labelled ``"<scorer>, gate on|off"``.

    Examples:
        >>> t = pd.DataFrame({"scorer": ["idf"] * 4, "gate": [True, True, False, False],
        ...                   "threshold": [.2, .3] * 2, "pairs_at_or_above": [2, 1, 5, 3],
        ...                   "items_left": [8, 9, 5, 7]})
        >>> [ln.get_label() for ln in dedupe_sweep(t).axes[1].lines]
        ['idf, gate on', 'idf, gate off']
    """
    fig, axes = new_figure(*TWO_PANELS, ncols=2, sharex=True)
    colors = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, (scorer, g) in enumerate(sweep.groupby("scorer", sort=False)):
        for gate, sub in g.groupby("gate", sort=False):
            sub = sub.sort_values("threshold")
            label = f"{scorer}, gate {'on' if gate else 'off'}"
            style = dict(color=colors[k % len(colors)], lw=1.6, ls="-" if gate else "--")
            axes[0].plot(sub["threshold"], sub["pairs_at_or_above"], label=label, **style)
            axes[1].plot(sub["threshold"], sub["items_left"], label=label, **style)
    for ax in axes:
        if threshold is not None:
            ax.axvline(threshold, color=RECOMMENDED_COLOR, lw=1.2, ls="-.")
    _sweep_axes(axes, "near-pass pairs at or above", "pairs the near pass compares and flags",
                "items left after dedupe")
    axes[1].legend(fontsize=8, loc="lower right")
    title = "Dedupe sweep: scorers with the subject gate on (solid) and off (dashed)"
    if threshold is not None:
        title += f"; threshold in use {threshold:.2f}"
    fig.suptitle(title)
    return fig


EVIDENCE_SIZE = (10.5, 7.6)
"""Size of the four-panel calibration evidence figure, inches."""


def _band(ax: Axes, x, value, low, high, color: str, label: str, ls: str = "-") -> None:
    """A curve with its interval shaded (NaN where nothing was merged: gaps, not zeros)."""
    ax.fill_between(x, low, high, color=color, alpha=0.18, lw=0)
    ax.plot(x, value, ls, color=color, lw=1.6, label=label)


DECOYS_FAILED_COLOR = "#bdbdbd"
"""Colour of a decoy estimate whose check failed (drawn for reference, not used)."""


def decoy_precision(ax: Axes, curve: pd.DataFrame, decoys: dict | None) -> bool:
    """Draw the decoys' precision: a lower bound, shaded from its low end up to the value.

    Decoys count every compared pair as a possible unrelated one, so they bound
    precision from below only: the value has no meaningful upper end
    (``calibration.json`` states it as 1.0). When the decoys' check failed
    (``decoys.check.passed`` false), the curve is drawn grey and labelled as
    not used: the calibration did not rest on it.

    Args:
        ax: Where to draw.
        curve: ``calibrate/precision_recall.csv``.
        decoys: The ``decoys`` object of ``calibration.json``, or None.

    Returns:
        Whether a curve was drawn (the table has ``decoy_precision`` values).

    Examples:
        >>> c = pd.DataFrame({"threshold": [.1, .2], "decoy_precision": [.8, .95],
        ...                   "decoy_precision_low": [.7, .9]})
        >>> fig, (ax,) = new_figure(4, 3)
        >>> decoy_precision(ax, c, {"check": {"passed": False}})
        True
        >>> ax.lines[0].get_label()
        'decoys (check failed: not used)'
    """
    est = "decoy_precision"
    if est not in curve or not curve[est].notna().any():
        return False
    passed = ((decoys or {}).get("check") or {}).get("passed", True)
    color = "#1f77b4" if passed else DECOYS_FAILED_COLOR
    label = "decoys (lower bound)" if passed else "decoys (check failed: not used)"
    t = curve["threshold"].to_numpy(dtype=np.float64)
    value = curve[est].to_numpy(dtype=np.float64)
    if f"{est}_low" in curve:
        ax.fill_between(t, curve[f"{est}_low"].to_numpy(dtype=np.float64), value, color=color,
                        alpha=0.18, lw=0)
    ax.plot(t, value, "-", color=color, lw=1.6, label=label)
    return True


def decoy_merges(ax: Axes, curve: pd.DataFrame, decoys: dict | None,
                 recommended: float | None, title: str) -> None:
    """Merged pairs at or above each threshold, and the unrelated ones the decoys predict.

    The decoys' rate at a threshold (share of decoy pairs scoring at or above
    it) times the pairs the dedupe compares is how many unrelated compared
    pairs would pass there: the gap between the two curves is what the
    duplicates add. Without the compared count the panel draws the rate alone.

    Args:
        ax: Where to draw.
        curve: ``calibrate/precision_recall.csv`` (``merged_pairs``, ``decoy_rate`` with
            ``decoy_rate_low`` and ``decoy_rate_high``).
        decoys: The ``decoys`` object of ``calibration.json`` (``compared_pairs``,
            ``check``), or None.
        recommended: The recommended threshold, or None.
        title: The panel's title.

    Examples:
        >>> c = pd.DataFrame({"threshold": [.1, .2], "merged_pairs": [40, 10],
        ...     "decoy_rate": [.01, .001], "decoy_rate_low": [.005, 0.],
        ...     "decoy_rate_high": [.02, .003]})
        >>> fig, (ax,) = new_figure(4, 3)
        >>> decoy_merges(ax, c, {"compared_pairs": 1000}, None, "(d)")
        >>> [ln.get_label() for ln in ax.lines]
        ['merged pairs', 'unrelated compared pairs, predicted by the decoys']
        >>> ax.lines[1].get_ydata().tolist()
        [10.0, 1.0]
    """
    ax.set_title(title)
    ax.set_xlabel("threshold")
    ax.grid(alpha=0.3)
    if "decoy_rate" not in curve or not curve["decoy_rate"].notna().any():
        ax.text(0.05, 0.5, "no decoy rule applies", transform=ax.transAxes, color=BOUND_COLOR)
        return
    t = curve["threshold"].to_numpy(dtype=np.float64)
    check = (decoys or {}).get("check") or {}
    compared = (decoys or {}).get("compared_pairs")
    rate, low, high = (curve[c].to_numpy(dtype=np.float64)
                       for c in ("decoy_rate", "decoy_rate_low", "decoy_rate_high"))
    if compared is None or "merged_pairs" not in curve:
        _band(ax, t, rate, low, high, BOUND_COLOR, "decoy rate (unrelated pairs that pass)")
        ax.set_ylim(bottom=0)
        ax.set_ylabel("share of decoy pairs")
    else:
        ax.plot(t, curve["merged_pairs"].to_numpy(dtype=np.float64), color="#1f77b4", lw=1.6,
                label="merged pairs")
        k = float(compared)
        _band(ax, t, rate * k, low * k, high * k, BOUND_COLOR,
              "unrelated compared pairs, predicted by the decoys")
        ax.set_yscale("symlog", linthresh=1.0)
        ax.set_ylim(bottom=0)
        ax.set_ylabel("pairs at or above the threshold (symlog)")
    if check.get("passed") is False:
        ax.text(0.03, 0.03, "decoy check failed: not used", transform=ax.transAxes,
                color=BOUND_COLOR, fontsize=8)
    if recommended is not None:
        ax.axvline(recommended, color=RECOMMENDED_COLOR, lw=1.2, ls="-.")
    ax.legend(fontsize=7, loc="upper right")


def calibration_evidence(curve: pd.DataFrame, recommended: float | None,
                         target: float | None = None, decoys: dict | None = None) -> Figure:
    """Estimated precision, recall and items left per threshold; merges against decoys.

    Answers: what does each threshold of the calibrated dedupe cost and buy,
    how sure is that, and how far apart are the merges and the unrelated
    pairs the decoys predict? Four panels: (a) precision: measured on labels
    (and on the hold-out) with its interval, and the decoys' lower bound;
    (b) recall: measured (labels, hold-out) and simulated (the range over
    retention levels); (c) items left; (d) :func:`decoy_merges`.

    Args:
        curve: ``calibrate/precision_recall.csv``.
        recommended: The recommended threshold, or None.
        target: The target precision (a horizontal line), or None.
        decoys: The ``decoys`` object of ``calibration.json``, or None.

    Returns:
        The figure; panel titles start with (a) ... (d).

    Examples:
        >>> c = pd.DataFrame({"threshold": [.1, .2], "items_left": [5, 8],
        ...     "merged_pairs": [6, 2], "decoy_precision": [.8, .95],
        ...     "decoy_precision_low": [.7, .9], "recall_sim": [.9, .7],
        ...     "recall_sim_low": [.5, .3], "recall_sim_high": [1., .9]})
        >>> [ax.get_title()[:3] for ax in calibration_evidence(c, .2, .95).axes]
        ['(a)', '(b)', '(c)', '(d)']
    """
    fig = Figure(figsize=EVIDENCE_SIZE, dpi=DPI, layout="constrained")
    a, b, c, d = fig.subplots(2, 2).ravel()
    t = curve["threshold"].to_numpy(dtype=np.float64)
    decoy_precision(a, curve, decoys)
    for col, color, label in (("precision_measured", "#2ca02c", "measured (labels)"),
                              ("precision_holdout", "#17becf", "hold-out labels")):
        if col in curve and curve[col].notna().any():
            _band(a, t, curve[col], curve[f"{col}_low"], curve[f"{col}_high"], color, label, "--")
    if target is not None:
        a.axhline(target, color=BOUND_COLOR, lw=1.0, ls=":", label=f"target {target:.2f}")
    shown = [c for c in ("decoy_precision_low", "precision_measured_low",
                         "precision_holdout_low") if c in curve]
    lows = (curve[shown].to_numpy(dtype=np.float64).ravel() if shown
            else np.array([np.nan]))
    floor = np.nanmin(lows) if np.isfinite(lows).any() else 0.0
    a.set_ylim(max(0.0, min(0.5, floor - 0.05)), 1.02)
    a.set_ylabel("pairwise precision of the merges")
    a.set_title("(a) precision")
    if "recall_sim" in curve:
        _band(b, t, curve["recall_sim"], curve["recall_sim_low"], curve["recall_sim_high"],
              "#ff7f0e", "simulated rewrites (range over retention)")
    for col, color, label in (("recall_measured", "#2ca02c", "measured (labels)"),
                              ("recall_holdout", "#17becf", "hold-out labels")):
        if col in curve and curve[col].notna().any():
            _band(b, t, curve[col], curve[f"{col}_low"], curve[f"{col}_high"], color, label, "--")
    b.set_ylim(0.0, 1.02)
    b.set_ylabel("recall")
    b.set_title("(b) recall")
    c.plot(t, curve["items_left"], color="#7f7f7f", lw=1.6, label="items left")
    c.set_ylabel("items left after the dedupe")
    c.set_title("(c) items left")
    for ax in (a, b, c):
        ax.set_xlabel("threshold")
        ax.grid(alpha=0.3)
        if recommended is not None:
            ax.axvline(recommended, color=RECOMMENDED_COLOR, lw=1.2, ls="-.",
                       label=f"recommended {recommended:.2f}")
        ax.legend(fontsize=7, loc="best")
    decoy_merges(d, curve, decoys, recommended, "(d) merges against decoys")
    fig.suptitle("Calibration evidence: what each threshold of the dedupe merges")
    return fig

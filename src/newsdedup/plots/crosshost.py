"""Figure of the crosshost step: cross-host pair scores against the unrelated-pair bound.

It draws what ``newsdedup crosshost`` writes under ``results/<name>/crosshost/``
(read by :func:`newsdedup.plots.results.load_results`) and returns a
:class:`matplotlib.figure.Figure`; :mod:`newsdedup.plots.write` saves it.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from newsdedup.plots.style import TWO_PANELS, bound_line, new_figure


def cross_host_scores(cross_pairs: pd.DataFrame, upper_bound: float, window_days: int | None = None,
                      label_top: int = 3) -> Figure:
    """Scores of the cross-host pairs, pairs within the date window highlighted.

    Answers: does any pair of items on different hosts score above the
    unrelated-pair bound, and where do the pairs published close together
    (the plausible cross-posts) land? Left: score histogram (log counts) of
    all cross pairs and of the in-window ones. Right: score against days
    apart; the best in-window pairs are labelled by their ids.

    Args:
        cross_pairs: ``crosshost/cross_pairs.csv``: score, days_apart, in_window,
            id_i, id_j (best first).
        upper_bound: The unrelated-pair upper bound.
        window_days: Width of the date window, shaded on the right panel; default
            the largest ``days_apart`` among in-window pairs.
        label_top: How many of the best in-window pairs to label.

    Returns:
        The figure; the right panel's two scatter collections (all, in window)
        have ``(days_apart, score)`` offsets.

    Examples:
        >>> c = pd.DataFrame({"score": [.2, .1, .05], "days_apart": [1.0, 40.0, 2.0],
        ...                   "in_window": [True, False, True], "id_i": list("abc"),
        ...                   "id_j": list("xyz")})
        >>> fig = cross_host_scores(c, 0.25)
        >>> len(fig.axes[1].collections)
        2
    """
    scores = cross_pairs["score"].to_numpy(dtype=np.float64)
    in_window = cross_pairs["in_window"].astype(bool).to_numpy()
    fig, axes = new_figure(*TWO_PANELS, ncols=2)

    hi = max(float(scores.max()) if len(scores) else 0.0, upper_bound)
    _score_histogram(axes[0], scores, in_window, upper_bound, hi)
    _score_against_days(axes[1], cross_pairs, upper_bound, hi, window_days, label_top)
    fig.suptitle("Cross-host pairs against the unrelated-pair bound")
    return fig


def _score_histogram(ax: Axes, scores: np.ndarray, in_window: np.ndarray, upper_bound: float,
                     hi: float) -> None:
    """Left panel: score histogram (log counts) of all cross pairs and of the in-window ones."""
    # 0.01 bins, as in the measure histogram, up to just past the highest score or bound.
    n_bins = max(1, math.ceil((hi + 0.02) * 100))
    edges = np.round(np.arange(n_bins + 1) / 100, 10)
    all_counts = np.histogram(scores, bins=edges)[0].astype(np.float64)
    win_counts = np.histogram(scores[in_window], bins=edges)[0].astype(np.float64)
    ax.stairs(all_counts, edges, fill=True, color="#7f7f7f", alpha=0.4,
              label=f"all cross pairs ({len(scores):,})")
    ax.stairs(win_counts, edges, fill=True, color="#d62728", alpha=0.75,
              label=f"within the date window ({int(in_window.sum()):,})")
    bound_line(ax, upper_bound, vertical=True)
    if all_counts.any():
        ax.set_yscale("log")
    else:
        # A corpus without two of the hosts has no cross pairs: say so instead of an empty log axis.
        ax.text(0.5, 0.5, "no cross-host pairs", transform=ax.transAxes, ha="center")
    ax.set_xlabel("exact Jaccard (bin width 0.01)")
    ax.set_ylabel("pairs per bin (log)")
    ax.set_title("cross-host score distribution")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")


def _score_against_days(ax: Axes, cross_pairs: pd.DataFrame, upper_bound: float, hi: float,
                        window_days: float | None, label_top: int) -> None:
    """Right panel: score against days apart, the best in-window pairs labelled by their ids."""
    scores = cross_pairs["score"].to_numpy(dtype=np.float64)
    in_window = cross_pairs["in_window"].astype(bool).to_numpy()
    days = cross_pairs["days_apart"].to_numpy(dtype=np.float64)
    if window_days is None:
        window_days = float(days[in_window].max()) if in_window.any() else None
    if window_days is not None:
        ax.axvspan(-0.5, window_days + 0.5, color="#d62728", alpha=0.08,
                   label=f"window <= {window_days:g} days")
    ax.scatter(days[~in_window], scores[~in_window], s=6, color="#7f7f7f", alpha=0.35, lw=0,
               label="outside window")
    ax.scatter(days[in_window], scores[in_window], s=22, color="#d62728", alpha=0.9, lw=0,
               label="within window")
    bound_line(ax, upper_bound, vertical=False, label=False)
    # Label the best in-window pairs: these are the candidates someone must look at.
    best = cross_pairs[in_window].sort_values("score", ascending=False).head(label_top)
    # Labels are stacked in a fixed column so they never overlap, whatever the scores.
    for k, row in enumerate(best.itertuples(index=False)):
        ax.annotate(f"{row.id_i} /\n{row.id_j}  ({row.score:.3f}, {row.days_apart:g} d)",
                    (row.days_apart, row.score), xytext=(0.2, 0.74 - 0.13 * k),
                    textcoords="axes fraction", fontsize=7, va="center",
                    arrowprops={"arrowstyle": "-", "color": "#d62728", "lw": 0.6})
    ax.set_xscale("symlog", linthresh=10.0)
    ax.set_xlim(left=-0.5)
    ax.set_ylim(0.0, hi * 1.15 + 0.01)
    ax.set_xlabel("days between publication dates (symlog)")
    ax.set_ylabel("exact Jaccard")
    ax.set_title("score vs days apart")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")

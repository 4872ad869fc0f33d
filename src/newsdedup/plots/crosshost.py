"""Figure of the crosshost step: cross-host pair scores against the unrelated-pair bound.

It draws what ``newsdedup measure --crosshost`` writes under ``results/<name>/crosshost/``
(read by :func:`newsdedup.plots.results.load_results`) and returns a
:class:`matplotlib.figure.Figure`; :mod:`newsdedup.plots.write` saves it.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure

from newsdedup.plots.style import TWO_PANELS, bound_line, new_figure
from newsdedup.studies.crosshost import score_day_bins


def as_bins(cross_pairs: pd.DataFrame) -> pd.DataFrame:
    """The score-and-days bins of a cross-pair listing (``score_days.csv`` passes through).

    Args:
        cross_pairs: ``crosshost/score_days.csv``, or a listing with score, days_apart
            and in_window (``cross_pairs.csv``).

    Returns:
        The bins (:func:`newsdedup.studies.crosshost.score_day_bins`).
    """
    if "score_lo" in cross_pairs:
        return cross_pairs
    return score_day_bins(cross_pairs["score"].to_numpy(dtype=np.float64),
                          cross_pairs["days_apart"].to_numpy(dtype=np.float64),
                          cross_pairs["in_window"].astype(bool).to_numpy())


def cross_host_scores(cross_pairs: pd.DataFrame, upper_bound: float, window_days: int | None = None,
                      label_top: int = 3, top: pd.DataFrame | None = None) -> Figure:
    """Scores of the cross-host pairs, pairs within the date window highlighted.

    Answers: does any pair of items on different hosts score above the
    unrelated-pair bound, and where do the pairs published close together
    (the plausible cross-posts) land? Left: score histogram (log counts) of
    all cross pairs and of the in-window ones. Right: pairs per score and
    days-apart bin (log colour); the best in-window pairs are labelled by
    their ids. Drawn from counts per bin, so the cost does not grow with the
    number of pairs.

    Args:
        cross_pairs: ``crosshost/score_days.csv`` (pairs per score and days bin), or a
            listing (``crosshost/cross_pairs.csv``: score, days_apart, in_window, id_i, id_j).
        upper_bound: The unrelated-pair upper bound.
        window_days: Width of the date window, shaded on the right panel; default
            the largest day edge of the in-window bins.
        label_top: How many of the best in-window pairs to label.
        top: The best pairs (the head of ``cross_pairs.csv``) to label; default
            ``cross_pairs`` itself when it is a listing.

    Returns:
        The figure; the right panel holds one mesh of the counts and the marked best
        in-window pairs, labelled "best within window".

    Examples:
        >>> c = pd.DataFrame({"score": [.2, .1, .05], "days_apart": [1.0, 40.0, 2.0],
        ...                   "in_window": [True, False, True], "id_i": list("abc"),
        ...                   "id_j": list("xyz")})
        >>> fig = cross_host_scores(c, 0.25)
        >>> [type(c).__name__ for c in fig.axes[1].collections]
        ['QuadMesh', 'PathCollection']
    """
    bins = as_bins(cross_pairs)
    if top is None and "score_lo" not in cross_pairs:
        top = cross_pairs
    fig, axes = new_figure(*TWO_PANELS, ncols=2)
    hi = max(float(bins["score_hi"].max()) if len(bins) else 0.0, upper_bound)
    _score_histogram(axes[0], bins, upper_bound, hi)
    _score_against_days(axes[1], bins, top, upper_bound, hi, window_days, label_top)
    fig.suptitle("Cross-host pairs against the unrelated-pair bound")
    return fig


def _score_histogram(ax: Axes, bins: pd.DataFrame, upper_bound: float, hi: float) -> None:
    """Left panel: score histogram (log counts) of all cross pairs and of the in-window ones."""
    # 0.01 bins, as in the measure histogram, up to just past the highest score or bound.
    n_bins = max(1, math.ceil((hi + 0.02) * 100))
    edges = np.round(np.arange(n_bins + 1) / 100, 10)
    code = np.round(bins["score_lo"].to_numpy(dtype=np.float64) * 100).astype(np.int64)
    pairs = bins["pairs"].to_numpy(dtype=np.float64)
    window = bins["in_window"].astype(bool).to_numpy()
    all_counts = np.bincount(code, weights=pairs, minlength=n_bins)[:n_bins]
    win_counts = np.bincount(code[window], weights=pairs[window], minlength=n_bins)[:n_bins]
    ax.stairs(all_counts, edges, fill=True, color="#7f7f7f", alpha=0.4,
              label=f"all cross pairs ({int(pairs.sum()):,})")
    ax.stairs(win_counts, edges, fill=True, color="#d62728", alpha=0.75,
              label=f"within the date window ({int(pairs[window].sum()):,})")
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


def _score_against_days(ax: Axes, bins: pd.DataFrame, top: pd.DataFrame | None,
                        upper_bound: float, hi: float, window_days: float | None,
                        label_top: int) -> None:
    """Right panel: pairs per score and days bin, the best in-window pairs labelled by their ids."""
    dated = bins[bins["days_lo"].notna()]
    if window_days is None and dated["in_window"].any():
        window_days = float(dated.loc[dated["in_window"].astype(bool), "days_hi"].max()) - 1
    if window_days is not None:
        ax.axvspan(-0.5, window_days + 0.5, color="#d62728", alpha=0.08,
                   label=f"window <= {window_days:g} days")
    days_edges = np.unique(np.concatenate([dated["days_lo"], dated["days_hi"]]))
    days_edges = days_edges[np.isfinite(days_edges)]
    if len(dated) and len(days_edges) >= 2:
        score_edges = np.round(np.arange(0, math.ceil(hi * 100) + 2) / 100, 10)
        grid = np.zeros((len(score_edges) - 1, len(days_edges) - 1))
        rows = np.round(dated["score_lo"].to_numpy(dtype=np.float64) * 100).astype(np.int64)
        cols = np.searchsorted(days_edges, dated["days_lo"].to_numpy(dtype=np.float64))
        ok = (rows < grid.shape[0]) & (cols < grid.shape[1])
        np.add.at(grid, (rows[ok], cols[ok]), dated["pairs"].to_numpy(dtype=np.float64)[ok])
        mesh = ax.pcolormesh(days_edges, score_edges, np.ma.masked_equal(grid, 0.0),
                             cmap="Greys", norm=LogNorm(vmin=1, vmax=max(grid.max(), 1.0)),
                             shading="flat")
        ax.figure.colorbar(mesh, ax=ax, label="pairs per bin", pad=0.01)
    bound_line(ax, upper_bound, vertical=False, label=False)
    _label_best(ax, top, label_top)
    ax.set_xscale("symlog", linthresh=10.0)
    ax.set_xlim(left=-0.5)
    ax.set_ylim(0.0, hi * 1.15 + 0.01)
    ax.set_xlabel("days between publication dates (symlog)")
    ax.set_ylabel("exact Jaccard")
    ax.set_title("score vs days apart")
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="upper right")


def _label_best(ax: Axes, top: pd.DataFrame | None, label_top: int) -> None:
    """Label the best in-window pairs: these are the candidates someone must look at."""
    if top is None or not len(top):
        return
    window = top[top["in_window"].astype(bool)]
    best = window.sort_values("score", ascending=False, kind="stable").head(label_top)
    ax.scatter(best["days_apart"], best["score"], s=22, color="#d62728", lw=0, zorder=4,
               label="best within window")
    # Labels are stacked in a fixed column so they never overlap, whatever the scores.
    for k, row in enumerate(best.itertuples(index=False)):
        ax.annotate(f"{row.id_i} /\n{row.id_j}  ({row.score:.3f}, {row.days_apart:g} d)",
                    (row.days_apart, row.score), xytext=(0.2, 0.74 - 0.13 * k),
                    textcoords="axes fraction", fontsize=7, va="center",
                    arrowprops={"arrowstyle": "-", "color": "#d62728", "lw": 0.6})

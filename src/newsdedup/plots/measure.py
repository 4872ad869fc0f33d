"""Figures of the measure step: score distribution, MinHash error, n-gram sweep.

They draw what ``newsdedup measure`` writes under ``results/<name>/measure/``
(read by :func:`newsdedup.plots.results.load_results`). Each function takes
DataFrames (not paths) and returns a :class:`matplotlib.figure.Figure`, which
keeps the functions testable on small synthetic frames and usable from
notebooks; :mod:`newsdedup.plots.write` saves them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from newsdedup.plots.style import (
    BOUND_COLOR,
    FAMILY_COLORS,
    ONE_PANEL,
    TWO_PANELS,
    bound_line,
    new_figure,
)


def score_distribution(histogram: pd.DataFrame, upper_bound: float,
                       bound_n: int | None = None, labelled: pd.DataFrame | None = None,
                       labelled_n: int | None = None) -> Figure:
    """Counts of all-pairs exact Jaccard and MinHash estimates per score bin, one panel per n.

    Answers: how far is the bulk of the pairs from any usable threshold, and
    where is the highest pair? Counts are on a log axis because almost every
    pair sits in the first bins.

    Args:
        histogram: ``measure/histogram.csv``: n, bin_lo, bin_hi, exact, estimate.
        upper_bound: The unrelated-pair upper bound, drawn as a vertical line.
        bound_n: n-gram size the bound was measured at; the line is drawn only in
            that panel (the bound of other n differs). None draws it everywhere.
        labelled: Labelled pairs with their exact score on the same text
            (``signals/gold_pairs.csv``: ``label``, ``text_jaccard``); the
            ``"same"`` pairs are marked by triangles along the top of the
            ``labelled_n`` panel, so one sees where true duplicates fall in the
            distribution (seed 004's AlphaEvolve pair sits below the bound).
        labelled_n: n-gram size of the labelled scores.

    Returns:
        The figure; each panel holds two ``StepPatch`` artists (exact, estimate)
        whose values are the frame's columns, and the marked panel one line
        labelled ``"labelled same-event pairs (k)"`` whose x data are their scores.

    Examples:
        >>> h = pd.DataFrame({"n": [4, 4], "bin_lo": [0.0, 0.5], "bin_hi": [0.5, 1.0],
        ...                   "exact": [10, 1], "estimate": [9, 2]})
        >>> fig = score_distribution(h, 0.6)
        >>> [p.get_label() for p in fig.axes[0].patches]
        ['exact Jaccard', 'MinHash estimate']
    """
    ns = sorted(histogram["n"].unique())
    legend_ax: Axes | None = None
    fig, axes = new_figure(4.0 * max(len(ns), 1) + 0.5, 4.0, ncols=max(len(ns), 1), sharey=True)
    for ax, n in zip(axes, ns, strict=False):
        h = histogram[histogram["n"] == n].sort_values("bin_lo")
        edges = np.append(h["bin_lo"].to_numpy(), h["bin_hi"].to_numpy()[-1])
        exact = h["exact"].to_numpy(dtype=np.float64)
        ax.stairs(exact, edges, fill=True, alpha=0.35, color="#1f77b4", label="exact Jaccard")
        ax.stairs(h["estimate"].to_numpy(dtype=np.float64), edges, color="#ff7f0e", lw=1.2,
                  label="MinHash estimate")
        if bound_n is None or n == bound_n:
            bound_line(ax, upper_bound, vertical=True)
            legend_ax = legend_ax or ax
        if labelled is not None and n == labelled_n:
            same = np.sort(labelled.loc[labelled["label"] == "same", "text_jaccard"].to_numpy())
            # x in data, y in axes fraction: the markers sit along the top whatever the counts.
            ax.plot(same, np.full(same.size, 0.97), ls="none", marker="v", ms=8,
                    color="#27ae60", transform=ax.get_xaxis_transform(),
                    label=f"labelled same-event pairs ({same.size})")
        nonzero = np.flatnonzero(exact > 0)
        top = edges[nonzero[-1] + 1] if len(nonzero) else 1.0
        # Zoom to the occupied range: beyond the highest pair the axis is empty by construction.
        ax.set_xlim(0.0, min(1.0, max(top, upper_bound) + 0.1))
        ax.set_yscale("log")
        ax.set_title(f"n = {n}: {int(exact.sum()):,} pairs")
        width = float(h["bin_hi"].iloc[0] - h["bin_lo"].iloc[0])
        ax.set_xlabel(f"score (bin width {width:.2f})")
        ax.grid(alpha=0.3, which="major")
    axes[0].set_ylabel("pairs per bin (log)")
    # The legend goes where the bound is drawn, so all three entries appear together.
    (legend_ax or axes[0]).legend(loc="upper right", fontsize=8)
    fig.suptitle("All-pairs score distribution by character n-gram size")
    return fig


def minhash_error(errors: pd.DataFrame, highlight_k: int | None = 128) -> Figure:
    """MinHash estimation error against the number of permutations, per hash family.

    Answers: is the estimator as accurate as theory says, and how many
    permutations would a 0.01 distinction need? Measured RMSE (solid) and max
    error (dotted) per family, the theoretical RMS ``sqrt(mean J(1-J)/k)`` and
    the worst-case standard error ``sqrt(0.25/k)`` (at ``J = 0.5``). Both axes
    are logarithmic, where the ``k**-0.5`` laws are straight lines.

    Args:
        errors: ``measure/error_vs_perm.csv``: family, seed, num_perm, err_max,
            rmse, theory_rmse, theory_se_max (one row per family, seed and k).
        highlight_k: Permutation count marked with a vertical line (the published
            run used 128); None or a k not in the table marks nothing.

    Returns:
        The figure; lines are labelled ``"<family> RMSE"``, ``"<family> max"``,
        ``"theory RMS ..."`` and ``"worst-case SE ..."``.

    Examples:
        >>> e = pd.DataFrame({"family": ["a", "a"], "seed": [1, 1], "num_perm": [16, 64],
        ...                   "err_mean": [.02, .01], "err_max": [.2, .1], "rmse": [.03, .015],
        ...                   "theory_rmse": [.03, .015], "theory_se_max": [.125, .0625]})
        >>> [ln.get_label() for ln in minhash_error(e).axes[0].lines]
        ['a RMSE', 'a max', 'theory RMS sqrt(mean J(1-J)/k)', 'worst-case SE sqrt(0.25/k)']
    """
    fig, (ax,) = new_figure(*ONE_PANEL)
    colors = FAMILY_COLORS
    groups = list(errors.groupby(["family", "seed"], sort=True))
    per_family = errors.groupby("family")["seed"].nunique()
    for k, ((family, seed), g) in enumerate(groups):
        g = g.sort_values("num_perm")
        label = family if per_family[family] == 1 else f"{family} (seed {seed})"
        color = colors[k % len(colors)]
        ax.plot(g["num_perm"], g["rmse"], "o-", color=color, lw=1.6, ms=4, label=f"{label} RMSE")
        ax.plot(g["num_perm"], g["err_max"], "s:", color=color, lw=1.2, ms=3,
                label=f"{label} max")
    # The theoretical lines depend only on the exact scores and k, not on the family:
    # draw them once.
    theory = errors.drop_duplicates("num_perm").sort_values("num_perm")
    ax.plot(theory["num_perm"], theory["theory_rmse"], "-", color="black", lw=1.0, alpha=0.7,
            label="theory RMS sqrt(mean J(1-J)/k)")
    ax.plot(theory["num_perm"], theory["theory_se_max"], "--", color="gray", lw=1.0,
            label="worst-case SE sqrt(0.25/k)")
    ks = theory["num_perm"].to_numpy()
    if highlight_k is not None and highlight_k in set(ks.tolist()):
        ax.axvline(highlight_k, color="#999999", lw=0.8, ls="-", zorder=0)
        ax.annotate(f"k = {highlight_k}", (highlight_k, 1.0), xycoords=("data", "axes fraction"),
                    xytext=(4, -12), textcoords="offset points", fontsize=8, color="#555555")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(ks, [str(int(k)) for k in ks])
    ax.set_xlabel("permutations k")
    ax.set_ylabel("|estimate - exact Jaccard| over all pairs")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="lower left")
    ax.set_title("MinHash estimation error vs number of permutations")
    return fig


def ngram_sweep(sweep: pd.DataFrame, tracks: pd.DataFrame, upper_bound: float | None = None,
                bound_n: int | None = None, label_top: int = 3) -> Figure:
    """How every pair's score moves with the n-gram size.

    Answers: which n separates best? Left: the distribution of all pair
    scores per n (mean, upper quantiles, maximum; log axis). Right: the top pairs at the
    reference n followed across n; the best ``label_top`` are labelled by rank.

    Args:
        sweep: ``measure/ngram_sweep.csv``.
        tracks: ``measure/ngram_tracks.csv``.
        upper_bound: The unrelated-pair bound, marked at ``bound_n`` (both or neither).
        bound_n: The n-gram size the bound was measured at.
        label_top: Tracked pairs to label.

    Returns:
        The figure; the left panel has one line per statistic, labelled with
        the column name, whose y data are the column.

    Examples:
        >>> s = pd.DataFrame({"n": [3, 4], "mean": [.02, .01], "p90": [.05, .03],
        ...                   "p99": [.1, .06], "p999": [.2, .1], "max": [.3, .2]})
        >>> t = pd.DataFrame({"rank": [1, 1], "n": [3, 4], "score": [.3, .2]})
        >>> [ln.get_label() for ln in ngram_sweep(s, t).axes[0].lines]
        ['mean', 'p90', 'p99', 'p999', 'max']
    """
    fig, axes = new_figure(*TWO_PANELS, ncols=2)
    s = sweep.sort_values("n")
    for col, style in (("mean", "-"), ("p90", "--"), ("p99", "-."), ("p999", ":"),
                       ("max", "-")):
        if col in s:
            axes[0].plot(s["n"], s[col], ls=style, marker="o", ms=4, lw=1.6, label=col)
    for rank, g in tracks.groupby("rank", sort=True):
        g = g.sort_values("n")
        top = rank <= label_top
        axes[1].plot(g["n"], g["score"], marker="o", ms=3, lw=1.4 if top else 0.8,
                     alpha=1.0 if top else 0.45, label=f"pair #{rank}" if top else None)
    for ax in axes:
        if upper_bound is not None and bound_n is not None:
            ax.plot([bound_n], [upper_bound], marker="D", ms=8, color=BOUND_COLOR, ls="none",
                    label=f"unrelated-pair bound {upper_bound:.3f} (n={bound_n})", zorder=4)
        ax.set_xlabel("n-gram size n (characters)")
        ax.set_xticks(sorted(s["n"].unique()))
        ax.grid(alpha=0.3)
    # Log scale: the statistics span two decades; a zero (a quantile at large n)
    # simply drops out of the line.
    axes[0].set_yscale("log")
    axes[0].set_ylabel("exact Jaccard (log)")
    axes[0].set_title("all pairs: distribution per n")
    axes[1].set_ylabel("exact Jaccard")
    axes[1].set_title("the top pairs at the reference n, across n")
    axes[0].legend(fontsize=8, loc="lower left")
    axes[1].legend(fontsize=8, loc="lower left")
    fig.suptitle("n-gram sweep: every score falls as n grows")
    return fig

"""Figures of a results tree: every plot of the project, drawn from the written tables.

The analysis steps (``newsdedup measure | calibrate | crosshost``) write CSV
and JSON under ``results/<corpus-name>/``; this module only reads those files
and draws them. Nothing is recomputed here, so a figure always shows the
numbers of the tables next to it.

Each plot function takes DataFrames (not paths) and returns a
:class:`matplotlib.figure.Figure`, which keeps the functions testable on
small synthetic frames and usable from notebooks. :func:`write_figures`
writes the five PNGs of one corpus; ``python -m newsdedup.plots.figures [name]``
runs it from the command line (``make figures``).

Figures are built with :class:`~matplotlib.figure.Figure` directly rather
than through ``pyplot``: no global figure registry fills up when many are
written, and nothing depends on the interactive backend.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from newsdedup import paths

DEFAULT_NAME = paths.PALDYN.name
"""Corpus whose results are drawn when no name is given."""

DPI = 100
"""Resolution of the written PNGs; with the fixed sizes below it fixes their pixel size."""

BOUND_COLOR = "#c0392b"
"""Colour of the unrelated-pair upper bound in every figure, so it reads the same everywhere."""

RECOMMENDED_COLOR = "#2c3e50"

FIGURE_FILES: dict[str, str] = {
    "score_distribution": "score_distribution.png",
    "minhash_error": "minhash_error.png",
    "sensitivity": "sensitivity.png",
    "threshold_sweep": "threshold_sweep.png",
    "cross_host": "cross_host.png",
    "ngram_sweep": "ngram_sweep.png",
    "dedupe_sweep": "dedupe_sweep.png",
}
"""Figure key -> file name under ``results/<name>/figures/``."""

# Which make target writes each input file: the error message of a missing file
# must tell the reader how to get it, not only that it is absent.
_FILES: dict[str, tuple[str, str]] = {
    "histogram": ("measure/histogram.csv", "measure"),
    "errors": ("measure/error_vs_perm.csv", "measure"),
    "thresholds": ("measure/thresholds.csv", "measure"),
    "summary": ("measure/summary.csv", "measure"),
    "top_pairs": ("measure/top_pairs.csv", "measure"),
    "lsh": ("measure/lsh.csv", "measure"),
    "both_sided": ("calibrate/both_sided.csv", "calibrate"),
    "one_sided": ("calibrate/one_sided.csv", "calibrate"),
    "retention": ("calibrate/retention.csv", "calibrate"),
    "sweep": ("calibrate/sweep.csv", "calibrate"),
    "quantiles": ("calibrate/quantiles.csv", "calibrate"),
    "cross_pairs": ("crosshost/cross_pairs.csv", "crosshost"),
    "ngram_sweep": ("measure/ngram_sweep.csv", "measure"),
    "ngram_tracks": ("measure/ngram_tracks.csv", "measure"),
    "dedupe_sweep": ("dedupe/sweep.csv", "dedupe"),
    "gold_pairs": ("signals/gold_pairs.csv", "signals"),
}
CALIBRATION_FILE = "calibration.json"

# Written only under some options (LSH can be switched off; quantiles are an
# optional extra table): reading them gives None instead of an error.
# The n-gram sweep and the dedupe sweep are newer steps: an older results tree
# without them still draws the other figures.
_OPTIONAL = frozenset({"lsh", "quantiles", "ngram_sweep", "ngram_tracks", "dedupe_sweep",
                       "gold_pairs"})


def _missing(path: Path, target: str, name: str) -> FileNotFoundError:
    return FileNotFoundError(
        f"{path} not found. It is written by `make {target}` (or `make reproduce`, which runs "
        f"every step for the pinned corpus); for another corpus run "
        f"`make {target} CORPUS=path/to/file NAME={name}`."
    )


class _Table:
    """A table attribute of :class:`Results`: the frame, or the missing-file error on access."""

    def __init__(self, doc: str) -> None:
        self.__doc__ = doc

    def __set_name__(self, owner: type, name: str) -> None:
        self.key = name

    def __get__(self, obj: Results | None, objtype: type | None = None):
        if obj is None:
            return self
        return obj.table(self.key)


@dataclass(frozen=True)
class Results:
    """The tables of one corpus's results tree, as written by the ``newsdedup`` steps.

    Every table that exists is read by :func:`load_results`. A table whose file
    is missing raises :class:`FileNotFoundError` (naming the file and the
    ``make`` target that writes it) when it is *used*, so a notebook that needs
    only the measure tables works after ``make measure`` alone.

    Attributes:
        name: Corpus name (the folder under the results root).
        path: The folder ``<root>/<name>/``.
        frames: The tables found, keyed by attribute name (``histogram``, ``sweep``, ...).
        calibration_data: ``calibration.json`` as a dict, or None if absent.
    """

    name: str
    path: Path
    frames: dict[str, pd.DataFrame]
    calibration_data: dict | None = None

    histogram = _Table("``measure/histogram.csv``: n, bin_lo, bin_hi, exact, estimate.")
    errors = _Table("``measure/error_vs_perm.csv``: family, scheme, seed, num_perm, err_mean, "
                    "err_max, rmse, theory_rmse, theory_se_max.")
    thresholds = _Table("``measure/thresholds.csv``: n, threshold, real, candidates, matches, "
                        "recall.")
    summary = _Table("``measure/summary.csv``: one row per n-gram size.")
    top_pairs = _Table("``measure/top_pairs.csv``: the highest exact pairs.")
    lsh = _Table("``measure/lsh.csv``, or None when LSH was switched off.")
    both_sided = _Table("``calibrate/both_sided.csv``: f, pairs, mean, std, p5, min.")
    one_sided = _Table("``calibrate/one_sided.csv``: f, pairs, mean, std, min.")
    retention = _Table("``calibrate/retention.csv``: both-sided table plus above_bound (and "
                       "caught_at_recommended when a threshold was recommended).")
    sweep = _Table("``calibrate/sweep.csv``: scorer, threshold, pairs, items_left.")
    quantiles = _Table("``calibrate/quantiles.csv`` (side, f, q, value), or None.")
    cross_pairs = _Table("``crosshost/cross_pairs.csv``: every cross-host pair, best first.")
    ngram_sweep = _Table("``measure/ngram_sweep.csv``: n, pairs, mean_shingles, mean, p50, p90, "
                         "p99, p999, max, pairs_ge_*; or None.")
    ngram_tracks = _Table("``measure/ngram_tracks.csv``: rank, i, j, n, score; or None.")
    gold_pairs = _Table("``signals/gold_pairs.csv``: labelled pairs with their signals "
                        "(``newsdedup evaluate-gold``); or None.")
    dedupe_sweep = _Table("``dedupe/sweep.csv``: scorer, gate, threshold, pairs_at_or_above, "
                          "items_left, merged; or None.")

    def table(self, key: str) -> pd.DataFrame | None:
        """One table by attribute name; None for an absent optional table.

        Raises:
            KeyError: ``key`` is not a table of the results tree.
            FileNotFoundError: The table's file is missing; the message names the
                file and the ``make`` target that writes it.
        """
        if key not in _FILES:
            raise KeyError(f"unknown table {key!r}; tables: {', '.join(_FILES)}")
        if key in self.frames:
            return self.frames[key]
        if key in _OPTIONAL:
            return None
        rel, target = _FILES[key]
        raise _missing(self.path / rel, target, self.name)

    @property
    def calibration(self) -> dict:
        """``calibration.json``: recommended_threshold, rationale, band, upper_bound, ..."""
        if self.calibration_data is None:
            raise _missing(self.path / CALIBRATION_FILE, "calibrate", self.name)
        return self.calibration_data

    @property
    def upper_bound(self) -> float:
        """The unrelated-pair upper bound: max exact Jaccard over all pairs."""
        return float(self.calibration["upper_bound"])

    @property
    def recommended(self) -> float | None:
        """The recommended threshold, or None when the calibration found no band."""
        value = self.calibration.get("recommended_threshold")
        return None if value is None else float(value)

    @property
    def band(self) -> tuple[float, float] | None:
        """``(low, high]`` of the threshold band, or None."""
        band = self.calibration.get("band")
        return None if band is None else (float(band[0]), float(band[1]))

    @property
    def gold_n(self) -> int | None:
        """n-gram size of the labelled pairs' scores (``signals/gold_params.json``), or None."""
        path = self.path / "signals" / "gold_params.json"
        if not path.is_file():
            return None
        return int(json.loads(path.read_text(encoding="utf-8"))["options"]["signals"]["n"])

    @property
    def dedupe_threshold(self) -> float | None:
        """The threshold of the last dedupe run (``dedupe/dedupe.json``), or None."""
        path = self.path / "dedupe" / "dedupe.json"
        if not path.is_file():
            return None
        return float(json.loads(path.read_text(encoding="utf-8"))["config"]["threshold"])

    @property
    def calibration_n(self) -> int | None:
        """n-gram size the bound was measured at (None if the JSON does not say)."""
        n = self.calibration.get("parameters", {}).get("n")
        return None if n is None else int(n)


def load_results(name: str = DEFAULT_NAME, root: Path | None = None) -> Results:
    """Read the results tree of one corpus.

    Args:
        name: Corpus name, the folder under the results root.
        root: Results root; default :data:`newsdedup.paths.RESULTS_DIR`
            (``results/``, or ``$NEWSDEDUP_RESULTS``).

    Returns:
        A :class:`Results` holding every table found. Using a table whose file
        is missing raises :class:`FileNotFoundError` naming the file and the
        ``make`` target that writes it.

    Raises:
        FileNotFoundError: No table of the tree exists at all (nothing was run for
            ``name``); the message names the first expected file and the target.

    Examples:
        >>> load_results("no-such-corpus", Path("/nonexistent"))
        Traceback (most recent call last):
        ...
        FileNotFoundError: /nonexistent/no-such-corpus/measure/histogram.csv not found. ...
    """
    base = (Path(root) / name) if root is not None else paths.results_dir(name)
    frames = {key: pd.read_csv(base / rel) for key, (rel, _) in _FILES.items()
              if (base / rel).is_file()}
    cal_path = base / CALIBRATION_FILE
    calibration = (json.loads(cal_path.read_text(encoding="utf-8"))
                   if cal_path.is_file() else None)
    if not frames and calibration is None:
        rel, target = _FILES["histogram"]
        raise _missing(base / rel, target, name)
    return Results(name=name, path=base, frames=frames, calibration_data=calibration)


# --- helpers -----------------------------------------------------------------


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


def _bound_line(ax: Axes, upper_bound: float, vertical: bool, label: bool = True) -> None:
    text = f"unrelated-pair bound {upper_bound:.3f}" if label else None
    if vertical:
        ax.axvline(upper_bound, color=BOUND_COLOR, lw=1.4, ls="--", label=text, zorder=3)
    else:
        ax.axhline(upper_bound, color=BOUND_COLOR, lw=1.4, ls="--", label=text, zorder=3)


def _new_figure(width: float, height: float, ncols: int = 1, **kw) -> tuple[Figure, list[Axes]]:
    # layout="constrained" keeps labels inside the fixed canvas, so the PNG size
    # never depends on text length (bbox_inches="tight" would).
    fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    axes = fig.subplots(1, ncols, squeeze=False, **kw)[0]
    return fig, list(axes)


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


# --- plots -------------------------------------------------------------------


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
    fig, axes = _new_figure(4.0 * max(len(ns), 1) + 0.5, 4.0, ncols=max(len(ns), 1), sharey=True)
    for ax, n in zip(axes, ns, strict=False):
        h = histogram[histogram["n"] == n].sort_values("bin_lo")
        edges = np.append(h["bin_lo"].to_numpy(), h["bin_hi"].to_numpy()[-1])
        exact = h["exact"].to_numpy(dtype=np.float64)
        ax.stairs(exact, edges, fill=True, alpha=0.35, color="#1f77b4", label="exact Jaccard")
        ax.stairs(h["estimate"].to_numpy(dtype=np.float64), edges, color="#ff7f0e", lw=1.2,
                  label="MinHash estimate")
        if bound_n is None or n == bound_n:
            _bound_line(ax, upper_bound, vertical=True)
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
    fig, (ax,) = _new_figure(7.5, 4.8)
    colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b"]
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
    _bound_line(ax, upper_bound, vertical=False)
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
    fig, axes = _new_figure(10.5, 4.6, ncols=2, sharey=True)
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
    fig, axes = _new_figure(10.5, 4.4, ncols=2, sharex=True)
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
    days = cross_pairs["days_apart"].to_numpy(dtype=np.float64)
    fig, axes = _new_figure(10.5, 4.4, ncols=2)

    hi = max(float(scores.max()) if len(scores) else 0.0, upper_bound)
    # 0.01 bins, as in the measure histogram, up to just past the highest score or bound.
    n_bins = max(1, math.ceil((hi + 0.02) * 100))
    edges = np.round(np.arange(n_bins + 1) / 100, 10)
    all_counts = np.histogram(scores, bins=edges)[0].astype(np.float64)
    win_counts = np.histogram(scores[in_window], bins=edges)[0].astype(np.float64)
    ax = axes[0]
    ax.stairs(all_counts, edges, fill=True, color="#7f7f7f", alpha=0.4,
              label=f"all cross pairs ({len(scores):,})")
    ax.stairs(win_counts, edges, fill=True, color="#d62728", alpha=0.75,
              label=f"within the date window ({int(in_window.sum()):,})")
    _bound_line(ax, upper_bound, vertical=True)
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

    ax = axes[1]
    if window_days is None:
        window_days = float(days[in_window].max()) if in_window.any() else None
    if window_days is not None:
        ax.axvspan(-0.5, window_days + 0.5, color="#d62728", alpha=0.08,
                   label=f"window <= {window_days:g} days")
    ax.scatter(days[~in_window], scores[~in_window], s=6, color="#7f7f7f", alpha=0.35, lw=0,
               label="outside window")
    ax.scatter(days[in_window], scores[in_window], s=22, color="#d62728", alpha=0.9, lw=0,
               label="within window")
    _bound_line(ax, upper_bound, vertical=False, label=False)
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
    fig.suptitle("Cross-host pairs against the unrelated-pair bound")
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
    fig, axes = _new_figure(10.5, 4.4, ncols=2)
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
    fig, axes = _new_figure(10.5, 4.4, ncols=2, sharex=True)
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


# --- writing -----------------------------------------------------------------


def all_figures(results: Results) -> dict[str, Figure]:
    """Every figure of one results tree, keyed as :data:`FIGURE_FILES`.

    The five figures of the published blocks always; the n-gram and dedupe
    sweeps when their tables exist.
    """
    window = None
    cross_json = results.path / "crosshost" / "crosshost.json"
    if cross_json.is_file():
        window = json.loads(cross_json.read_text(encoding="utf-8")).get(
            "params", {}).get("window_days")
    out = {
        "score_distribution": score_distribution(results.histogram, results.upper_bound,
                                                 results.calibration_n, results.gold_pairs,
                                                 results.gold_n),
        "minhash_error": minhash_error(results.errors),
        "sensitivity": sensitivity_curves(results.both_sided, results.one_sided,
                                          results.upper_bound, results.recommended),
        "threshold_sweep": threshold_sweep(results.sweep, results.recommended, results.band),
        "cross_host": cross_host_scores(results.cross_pairs, results.upper_bound, window),
    }
    if results.ngram_sweep is not None and results.ngram_tracks is not None:
        out["ngram_sweep"] = ngram_sweep(results.ngram_sweep, results.ngram_tracks,
                                         results.upper_bound, results.calibration_n)
    if results.dedupe_sweep is not None:
        out["dedupe_sweep"] = dedupe_sweep(results.dedupe_sweep, results.dedupe_threshold)
    return out


def save(fig: Figure, path: Path) -> Path:
    """Write a figure as PNG, and SVG beside it, so reruns give identical bytes.

    ``metadata={"Software": None}`` drops the matplotlib version stamp (and
    ``"Date"`` the SVG's time stamp); the size comes from the figure and
    :data:`DPI`, not from a tight bounding box; a fixed ``svg.hashsalt``
    makes the SVG's element ids stable.

    Returns:
        The PNG path (the SVG has the same stem).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=DPI, format="png", metadata={"Software": None})
    with matplotlib.rc_context({"svg.hashsalt": "newsdedup", "svg.fonttype": "path"}):
        fig.savefig(path.with_suffix(".svg"), format="svg",
                    metadata={"Date": None, "Creator": None})
    return path


def save_figure(results: Results, key: str, fig: Figure) -> Path:
    """Save one figure of a results tree under its file name (PNG and SVG).

    What the notebooks call, so that executing them regenerates every figure
    exactly as ``python -m newsdedup.plots.figures`` writes it.

    Args:
        results: The results tree the figure was drawn from.
        key: Figure key of :data:`FIGURE_FILES`.
        fig: The figure.

    Returns:
        The PNG path.
    """
    if key not in FIGURE_FILES:
        raise KeyError(f"unknown figure {key!r}; figures: {', '.join(FIGURE_FILES)}")
    return save(fig, results.path / "figures" / FIGURE_FILES[key])


def write_figures(name: str = DEFAULT_NAME, root: Path | None = None) -> list[Path]:
    """Draw every figure of a corpus into ``<root>/<name>/figures/``.

    Args:
        name: Corpus name.
        root: Results root; default :data:`newsdedup.paths.RESULTS_DIR`.

    Returns:
        The written PNG paths, in :data:`FIGURE_FILES` order.

    Raises:
        FileNotFoundError: An input table is missing (see :func:`load_results`).
    """
    results = load_results(name, root)
    out = results.path / "figures"
    return [save(fig, out / FIGURE_FILES[key]) for key, fig in all_figures(results).items()]


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``python -m newsdedup.plots.figures [name] [--root DIR]``."""
    parser = argparse.ArgumentParser(
        prog="python -m newsdedup.plots.figures",
        description="Write the PNG figures of results/<name>/ into results/<name>/figures/.",
    )
    parser.add_argument("name", nargs="?", default=DEFAULT_NAME,
                        help="corpus name, the folder under the results root "
                             "(default: %(default)s)")
    return run_writer(parser, lambda args: write_figures(args.name, args.root), argv)


def run_writer(parser: argparse.ArgumentParser,
               write: Callable[[argparse.Namespace], list[Path]],
               argv: Sequence[str] | None = None) -> int:
    """The command line of a figure writer: ``--root``, headless drawing, paths printed.

    Args:
        parser: The command's parser (``--root`` is added here).
        write: Draws and saves the figures for the parsed arguments.
        argv: Arguments; ``sys.argv[1:]`` when None.

    Returns:
        0; a missing input table exits with status 2 and the file's name.
    """
    parser.add_argument("--root", type=Path, default=None,
                        help=f"results root (default: {paths.RESULTS_DIR})")
    args = parser.parse_args(argv)
    # A headless backend: the command runs in make and CI, where no display exists.
    # Set here, not at import, so importing this module in a notebook leaves its backend alone.
    matplotlib.use("Agg")
    try:
        written = write(args)
    except FileNotFoundError as exc:
        parser.exit(2, f"error: {exc}\n")
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Figures of the labelled evaluation: ROC / PR curves, precision and recall per threshold.

The commands ``newsdedup evaluate pairs`` and ``newsdedup evaluate clusters`` write their
tables under ``results/<dataset>/eval/``; this module draws them (read by
:func:`newsdedup.plots.results.load_eval`). The exact ROC and PR curves are computed here
from the per-pair scores of the test split (``scores.csv``) with
:func:`newsdedup.evaluate.metrics.curve`, so every point of a curve is a threshold a user
could set; the chosen operating points come from ``summary.csv`` (chosen on the select
split, as the tables report them). Each function takes DataFrames and returns a
:class:`matplotlib.figure.Figure`, built without ``pyplot`` (see :mod:`newsdedup.plots.style`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from newsdedup.corpus.sts import label_pairs
from newsdedup.evaluate.metrics import curve
from newsdedup.evaluate.pairs import SCORER_KINDS
from newsdedup.plots.results import EvalResults, load_eval, run_folder
from newsdedup.plots.style import (
    DPI,
    EVAL_PANEL,
    RECOMMENDED_COLOR,
    SERIES_COLORS,
    save,
)

PAIR_FILES = ("summary", "thresholds", "scores", "gate")
CLUSTER_FILES = ("summary", "runs", "false_merges", "missed", "noise")

_GATE_STYLE = {False: "-", True: "--"}


def _cut(df: pd.DataFrame, same_at: float, different_at: float) -> pd.DataFrame:
    return df[(df["same_at"] == same_at) & (df["different_at"] == different_at)]


def _panels(n: int, width: float = EVAL_PANEL[0],
            height: float = EVAL_PANEL[1]) -> tuple[Figure, list[Axes]]:
    fig = Figure(figsize=(width * n, height), dpi=DPI, layout="constrained")
    return fig, list(fig.subplots(1, n, squeeze=False)[0])


def _column(scorer: str, gate: bool) -> str:
    return f"{scorer}+gate" if gate else scorer


def _line_label(row: pd.Series) -> str:
    if row["kind"] == "embedding":
        return str(row["scorer"]).removeprefix("embedding-")
    return f"k={row['k']}" if row["kind"] == "minhash" else f"n={row['n']}"


def curves(scores: pd.DataFrame, summary: pd.DataFrame, same_at: float = 4.0,
           different_at: float = 1.0, kind: str = "roc") -> Figure:
    """ROC (``kind="roc"``) or precision-recall (``"pr"``) curves of every scorer.

    One panel per scorer kind (plain, batch-IDF, reference-IDF Jaccard, MinHash, embedding),
    one colour per n (or k, or backend), gate off solid and gate on dashed; a dot marks each
    curve's operating point (the threshold chosen on the select split) and a star the
    recommended scorer.

    Args:
        scores: ``scores.csv`` of a pair study (``grade`` and one column per scorer).
        summary: ``summary.csv`` of the same study.
        same_at: Cut-off of "same".
        different_at: Cut-off of "different".
        kind: ``"roc"`` or ``"pr"``.
    """
    if kind not in ("roc", "pr"):
        raise ValueError(f"kind must be 'roc' or 'pr', got {kind!r}")
    keep, positive = _labelled_scores(scores, same_at, different_at)
    rows = _cut(summary, same_at, different_at)
    best = rows.iloc[int(np.argmax(rows["select_f1"].to_numpy()))]
    fig, axes = _panels(len(SCORER_KINDS))
    x_key, y_key = ("fpr", "recall") if kind == "roc" else ("recall", "precision")
    for ax, scorer_kind in zip(axes, SCORER_KINDS, strict=True):
        part = rows[rows["kind"] == scorer_kind]
        # One colour per n (or k, or embedding backend: those share n = k = 0).
        for c, (_, group) in enumerate(part.groupby(["n", "k", "scorer"], sort=True)):
            for _, row in group.iterrows():
                s = scores[_column(row["scorer"], row["gate"])].to_numpy()[keep]
                pts = curve(s, positive)
                color = SERIES_COLORS[c % len(SERIES_COLORS)]
                label = f"{_line_label(row)}{' gate' if row['gate'] else ''}"
                ax.plot(pts[x_key], pts[y_key], _GATE_STYLE[bool(row["gate"])], color=color,
                        lw=1.2, label=label, drawstyle="steps-post" if kind == "pr" else None)
                flagged = pts[pts["threshold"] >= row["threshold"]]
                if not len(flagged):  # nothing reaches the threshold: no point to mark
                    continue
                at = flagged.iloc[-1]
                is_best = row["scorer"] == best["scorer"] and row["gate"] == best["gate"]
                ax.plot(at[x_key], at[y_key], "*" if is_best else "o", ms=12 if is_best else 5,
                        color=RECOMMENDED_COLOR if is_best else color, zorder=4)
        ax.set_title(scorer_kind)
        ax.set_xlabel("false positive rate" if kind == "roc" else "recall")
        ax.set_ylabel("true positive rate (recall)" if kind == "roc" else "precision")
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
        ax.legend(fontsize=7, loc="lower right" if kind == "roc" else "lower left")
    what = "ROC" if kind == "roc" else "Precision-recall"
    fig.suptitle(f"{what} on the test split, same >= {same_at:g} / different "
                 f"{'<' if same_at == different_at else '<='} {different_at:g}; "
                 f"star: {best['scorer']}{' +gate' if best['gate'] else ''} at "
                 f"{best['threshold']:.2f}")
    return fig


def _labelled_scores(scores: pd.DataFrame, same_at: float, different_at: float):
    labels = label_pairs(scores.rename(columns={"grade": "score"}), same_at, different_at)
    keep = (labels != "between").to_numpy()
    return keep, (labels[keep] == "same").to_numpy()


def threshold_panels(scores: pd.DataFrame, summary: pd.DataFrame, same_at: float = 4.0,
                     different_at: float = 1.0) -> Figure:
    """Precision (solid) and recall (dashed) against the threshold, per scorer kind and gate.

    Rows of panels: gate off, gate on; columns: scorer kinds. The curves are exact (a step at
    every distinct score of the test split, :func:`newsdedup.evaluate.metrics.curve`); the vertical
    line in each colour is that scorer's threshold chosen on the select split.
    """
    keep, positive = _labelled_scores(scores, same_at, different_at)
    rows = _cut(summary, same_at, different_at)
    fig = Figure(figsize=(4.0 * len(SCORER_KINDS), 6.4), dpi=DPI, layout="constrained")
    grid = fig.subplots(2, len(SCORER_KINDS), squeeze=False, sharex=True, sharey=True)
    for r, gate in enumerate((False, True)):
        for ax, scorer_kind in zip(grid[r], SCORER_KINDS, strict=True):
            part = rows[(rows["kind"] == scorer_kind) & (rows["gate"] == gate)]
            for c, (_, row) in enumerate(part.iterrows()):
                color = SERIES_COLORS[c % len(SERIES_COLORS)]
                pts = curve(scores[_column(row["scorer"], gate)].to_numpy()[keep], positive)
                # "score >= t" keeps its value from one distinct score up to the next.
                ax.plot(pts["threshold"], pts["precision"], "-", color=color, lw=1.2,
                        drawstyle="steps-pre", label=_line_label(row))
                ax.plot(pts["threshold"], pts["recall"], "--", color=color, lw=1.0,
                        drawstyle="steps-pre")
                ax.axvline(row["threshold"], color=color, lw=0.8, alpha=0.6)
            ax.set_title(f"{scorer_kind}, gate {'on' if gate else 'off'}", fontsize=10)
            ax.set_xlim(0.0, 1.0)
            ax.set_ylim(-0.02, 1.02)
            if r == 1:
                ax.set_xlabel("threshold")
            ax.legend(fontsize=7, loc="center right")
        grid[r][0].set_ylabel("precision (solid), recall (dashed)")
    fig.suptitle(f"Per threshold on the test split, same >= {same_at:g}; vertical lines: "
                 "thresholds chosen on the select split")
    return fig


def language_gap(compare: pd.DataFrame, same_at: float = 4.0, different_at: float = 1.0
                 ) -> Figure:
    """AUC in Korean against English per scorer (gate off and on).

    The paired interval of the difference is drawn as error bars around the Korean value.

    Args:
        compare: ``compare.csv`` of ``sts-ko-en`` (``auc_ko``, ``auc_en``, ``auc_diff*``).
        same_at: Cut-off of "same".
        different_at: Cut-off of "different".

    Returns:
        The figure (one panel, one column of points per scorer and gate).
    """
    rows = _cut(compare, same_at, different_at).reset_index(drop=True)
    fig, (ax,) = _panels(1, width=11.0, height=4.2)
    x = np.arange(len(rows))
    ax.scatter(x, rows["auc_en"], marker="s", color=SERIES_COLORS[0], label="English (STS-B)")
    err = np.vstack([rows["auc_diff"] - rows["auc_diff_lo"],
                     rows["auc_diff_hi"] - rows["auc_diff"]])
    ax.errorbar(x, rows["auc_ko"], yerr=err, fmt="o", color=SERIES_COLORS[3], capsize=2,
                label="Korean (KorSTS), bars: 95% CI of ko - en")
    ax.set_xticks(x, [f"{s}{' +gate' if g else ''}" for s, g in zip(rows["scorer"],
                                                                  rows["gate"], strict=True)],
                  rotation=90, fontsize=7)
    ax.set_ylabel("ROC AUC (test split)")
    ax.legend(fontsize=8)
    ax.set_title(f"The same headline pairs in two languages, same >= {same_at:g}")
    return fig


def cluster_runs(runs: pd.DataFrame) -> Figure:
    """The dedupe against story ids: pairwise precision, B-cubed recall and items left.

    Per threshold, one colour per scorer, gate off solid and on dashed.

    Args:
        runs: ``runs.csv`` of a clustering study.

    Returns:
        The figure, one panel per measure.
    """
    fig, axes = _panels(3)
    for c, (scorer, part) in enumerate(runs.groupby("scorer", sort=True)):
        for gate, g in part.groupby("gate", sort=True):
            style: dict[str, Any] = dict(color=SERIES_COLORS[c % len(SERIES_COLORS)],
                                         ls=_GATE_STYLE[bool(gate)], marker="o", ms=3,
                                         label=f"{scorer}{' gate' if gate else ''}")
            axes[0].plot(g["threshold"], g["pair_precision"], **style)
            axes[1].plot(g["threshold"], g["bcubed_recall"], **style)
            axes[2].plot(g["threshold"], g["items_left"], **style)
    for ax, title in zip(axes, ("pairwise precision of merges", "B-cubed recall",
                                "items left"), strict=True):
        ax.set_title(title)
        ax.set_xlabel("dedupe threshold")
        ax.axvline(0.3, color=RECOMMENDED_COLOR, lw=0.8, ls=":")
        ax.legend(fontsize=7)
    return fig


RECOMMENDATION_COLUMNS = ("same_at", "different_at", "scorer", "gate", "threshold", "auc",
                          "auc_lo", "auc_hi", "ap", "precision", "recall", "f1", "f1_lo",
                          "f1_hi")


def cut_offs(summary: pd.DataFrame) -> tuple[tuple[float, float], tuple[float, float]]:
    """The first and the last label cut-off ``(same_at, different_at)`` of a pair study.

    KorSTS and STS-B have two (grade >= 4 against <= 1, then 3.5 against 3.5); a
    study of 0/1 labels has one, which is then both.

    Examples:
        >>> cut_offs(pd.DataFrame({"same_at": [4.0, 4.0, 3.5], "different_at": [1.0, 1.0, 3.5]}))
        ((4.0, 1.0), (3.5, 3.5))
    """
    cuts = list(dict.fromkeys(zip(summary["same_at"].astype(float),
                                  summary["different_at"].astype(float), strict=True)))
    return cuts[0], cuts[-1]


def recommendations(results: EvalResults) -> pd.DataFrame:
    """The recommended scorer of each cut-off with its test-split figures (a pair study).

    Raises:
        ValueError: ``results`` is not a pair study (no ``recommendation.json``).
    """
    if results.recommendation is None:
        raise ValueError(f"{results.path} holds no recommendation.json (not a pair study)")
    return pd.DataFrame(results.recommendation["recommendations"])[list(RECOMMENDATION_COLUMNS)]


EVAL_FIGURES: dict[str, tuple[str, str]] = {
    "roc": ("korsts", "roc_same4_diff1.png"),
    "pr": ("korsts", "pr_same4_diff1.png"),
    "roc_en": ("stsb-en", "roc_same4_diff1.png"),
    "language_gap": ("sts-ko-en", "language_gap_same4_diff1.png"),
    "cluster_runs": ("uci-news-aggregator-head-sample12", "cluster_runs.png"),
}
"""Figure key -> (dataset, file under ``results/<dataset>/eval/figures/``)."""


def draw(key: str, root: Path | None = None) -> Figure:
    """One of the :data:`EVAL_FIGURES`, drawn from its dataset's tables.

    Args:
        key: Figure key.
        root: Results root; :data:`newsdedup.paths.RESULTS_DIR` by default.
    """
    dataset, _ = EVAL_FIGURES[key]
    res = load_eval(dataset, root)
    if key in ("roc", "roc_en"):
        return curves(res.table("scores"), res.table("summary"), 4.0, 1.0, kind="roc")
    if key == "pr":
        return curves(res.table("scores"), res.table("summary"), 4.0, 1.0, kind="pr")
    if key == "language_gap":
        return language_gap(res.table("compare"), 4.0, 1.0)
    return cluster_runs(res.table("runs"))


def save_eval_figure(fig: Figure, key: str, root: Path | None = None) -> Path:
    """Save a figure of :data:`EVAL_FIGURES` (PNG and SVG) where :func:`write_eval_figures` does.

    Returns:
        The PNG path.
    """
    dataset, name = EVAL_FIGURES[key]
    return save(fig, run_folder(dataset, root) / "eval" / "figures" / name)


def write_eval_figures(root: Path | None = None) -> list[Path]:
    """Draw and save every figure of :data:`EVAL_FIGURES` (``make eval`` runs this).

    Returns:
        The PNG paths, in :data:`EVAL_FIGURES` order.
    """
    return [save_eval_figure(draw(key, root), key, root) for key in EVAL_FIGURES]

"""Plots of the pair signals, for ``notebooks/08-signals.ipynb``.

They draw what ``newsdedup signals`` writes under ``results/<name>/signals/``
(read by :func:`newsdedup.plots.results.load_signals`) and return
:class:`matplotlib.figure.Figure` objects built directly (no pyplot state), like
every figure of :mod:`newsdedup.plots`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from newsdedup.plots.results import SignalResults
from newsdedup.plots.style import BOUND_COLOR, CANDIDATE_COLOR, DPI, SIGNALS_SIZE, save

FIGURE_FILE = "score_vs_gap.png"
"""File name of :func:`score_vs_gap` under ``results/<name>/signals/`` (SVG beside it)."""

def score_vs_gap(host_pairs: pd.DataFrame, upper_bound: float | None = None,
                 score: str = "text_jaccard", max_days: float | None = None,
                 label: bool = True) -> Figure:
    """Surface score against publication gap for the host rule's pairs, candidates highlighted.

    Answers: do the pairs the signal detector proposes stand out on the
    surface score? (In the pinned archive they do not: they sit at the bottom
    of the score range, below the unrelated-pair bound, at gaps of 0-1 day.)

    Args:
        host_pairs: ``signals/host_pairs.csv`` (``days_apart``, ``score``,
            ``candidate``, ``id_i``, ``id_j``).
        upper_bound: Unrelated-pair bound drawn as a dashed line, if given.
        score: Score column on the y axis.
        max_days: Date window shaded on the x axis, if given.
        label: Write the candidates' ids beside them.

    Returns:
        The figure; its axes hold two scatter collections (other pairs, candidates)
        with ``(days_apart + 1, score)`` offsets (the x axis is logarithmic in
        ``1 + days`` so that same-day pairs show).

    Examples:
        >>> hp = pd.DataFrame({"days_apart": [0.0, 30.0, 1.0], "text_jaccard": [.1, .2, .05],
        ...                    "candidate": [True, False, False], "id_i": list("abc"),
        ...                    "id_j": list("xyz")})
        >>> fig = score_vs_gap(hp, 0.234)
        >>> [len(c.get_offsets()) for c in fig.axes[0].collections]
        [2, 1]
    """
    days = host_pairs["days_apart"].to_numpy(np.float64)
    y = host_pairs[score].to_numpy(np.float64)
    cand = host_pairs["candidate"].astype(bool).to_numpy()
    fig = Figure(figsize=SIGNALS_SIZE, dpi=DPI, layout="constrained")
    ax = fig.subplots()
    x = days + 1.0
    ax.scatter(x[~cand], y[~cand], s=9, color="#7f7f7f", alpha=0.35,
               label=f"other pairs ({int((~cand).sum()):,})")
    ax.scatter(x[cand], y[cand], s=42, color=CANDIDATE_COLOR, edgecolor="black", zorder=4,
               label=f"detector candidates ({int(cand.sum())})")
    if label:
        for xi, yi, a, b in zip(x[cand], y[cand], host_pairs["id_i"].to_numpy()[cand],
                                host_pairs["id_j"].to_numpy()[cand], strict=True):
            ax.annotate(f"{a} / {b}", (xi, yi), fontsize=7, xytext=(6, 2),
                        textcoords="offset points")
    if upper_bound is not None:
        ax.axhline(upper_bound, color=BOUND_COLOR, ls="--", lw=1.4,
                   label=f"unrelated-pair bound {upper_bound:.3f}")
    if max_days is not None:
        ax.axvspan(1.0, max_days + 1.0, color=CANDIDATE_COLOR, alpha=0.08,
                   label=f"date window <= {max_days:g} d")
    ax.set_xscale("log")
    ax.set_xlabel("1 + days between the two publication dates (log)")
    ax.set_ylabel(f"surface score ({score})")
    ax.set_title("cross-host pairs: surface score against date gap")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")
    return fig


def save_figure(results: SignalResults, fig: Figure) -> Path:
    """Save the score-against-gap figure beside the tables it was drawn from (PNG and SVG).

    What the notebook calls, with :func:`newsdedup.plots.style.save` (fixed size,
    no version or date stamps), so reruns give identical files.

    Args:
        results: The signal tables the figure was drawn from.
        fig: The figure.

    Returns:
        The PNG path, ``results/<name>/signals/score_vs_gap.png``.
    """
    return save(fig, results.path / FIGURE_FILE)

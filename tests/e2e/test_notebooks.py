"""Notebooks: committed without outputs, free of logic, and they run against real results.

The results are generated once per session with the ``newsdedup run`` command
into a temporary root; the kernels find them through ``NEWSDEDUP_RESULTS``,
which :mod:`newsdedup.paths` reads at import. The run is shortened (fewer
simulation trials and permutation counts) because the notebooks only need
every table to exist; the numbers themselves are tested elsewhere.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from newsdedup import cli, paths
from newsdedup.plots import signals as signal_figures
from newsdedup.plots import write
from newsdedup.plots.results import load_results
from newsdedup.runs.notebooks import NOTEBOOKS_DIR, clear_outputs, execute_all, main, notebook_paths

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
    "05-cross-host.ipynb": "crosshost.cross_host_scores(",
    "06-ngram-sweep.ipynb": "measure.ngram_sweep(",
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
LOADS = {"08-signals.ipynb": "load_signals(NAME)"}
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
    code = _code(nb)
    assert code[0].startswith(f'NAME = "{paths.PALDYN.name}"')
    joined = "\n".join(code)
    assert LOADS.get(name, "load_results(NAME)") in joined
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
def executed(results_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Copies of the notebooks executed in place by ``python -m newsdedup.runs.notebooks``."""
    folder = tmp_path_factory.mktemp("notebooks")
    # Those that read the pinned corpus's results (07 reads results/*/eval and is
    # executed by tests/test_eval_figures.py against the committed tables).
    for path in notebook_paths(NOTEBOOKS_DIR):
        if path.name in EXPECTED:
            shutil.copy(path, folder / path.name)
    with pytest.MonkeyPatch.context() as mp:
        # The kernel is a child process: it inherits this and resolves results/ from it.
        mp.setenv("NEWSDEDUP_RESULTS", str(results_root))
        # Three kernels at once: start-up dominates and overlaps (about 2x faster).
        assert main([str(folder), "--jobs", "3"]) == 0
    return folder


def test_results_load_and_figures_write(results_root: Path) -> None:
    res = load_results(paths.PALDYN.name, results_root)
    assert res.upper_bound == pytest.approx(0.234, abs=5e-4)
    written = write.write_all(paths.PALDYN.name, results_root, which=("corpus",))
    assert [p.name for p in written] == list(write.FIGURE_FILES.values())
    assert all(p.stat().st_size > 10_000 for p in written)


@pytest.mark.parametrize("name", EXPECTED)
def test_notebook_runs_without_errors(executed: Path, results_root: Path, name: str) -> None:
    nb = _read(executed / name)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert all(c.execution_count is not None for c in nb.cells if c.cell_type == "code")
    # It read the temporary results, not the checkout's results/.
    printed = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert str(results_root / paths.PALDYN.name) in printed
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
        assert "calibrate.calibration_evidence(" in "\n".join(_code(nb))


@pytest.mark.parametrize("name", EXPECTED)
def test_clearing_an_executed_notebook_gives_back_the_committed_file(executed: Path,
                                                                      name: str) -> None:
    # `make notebooks` then `python -m newsdedup.runs.notebooks --clear` must leave no diff.
    copy = executed.parent / f"cleared-{name}"
    shutil.copy(executed / name, copy)
    nbformat.write(clear_outputs(_read(copy)), copy)
    assert copy.read_bytes() == (NOTEBOOKS_DIR / name).read_bytes()

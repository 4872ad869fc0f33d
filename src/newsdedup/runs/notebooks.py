"""Execute the project notebooks: ``python -m newsdedup.runs.notebooks [folder]``.

The notebooks in ``notebooks/`` only load results and call
the plot modules of :mod:`newsdedup.plots`; running them is how one checks that they still
work against the current tables. They are stored without outputs, so
``make notebooks`` (which executes them in place) fills in the outputs for
reading, and ``--clear`` strips them again before a commit. ``-j N`` runs N
kernels at once; kernel start-up is most of the time of these short notebooks.

**On any run.** Each notebook's first code cell is tagged ``parameters``
(papermill's convention) and sets ``RUN_DIR``, the run folder it reads
(None: the pinned archive's). ``--run-dir results/my-feed`` executes copies
of the notebooks on that run: a cell setting ``RUN_DIR`` (and any ``-p NAME
VALUE``) is inserted after the parameters cell, tagged
``injected-parameters``, and the executed copies are written to
``results/my-feed/notebooks/``; the committed notebooks are not touched. A
notebook whose tables the run lacks (``metadata.newsdedup.needs``, e.g. 08
needs ``signals/params.json``) is skipped with the reason.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from newsdedup import paths
from newsdedup.runs.files import Progress

NOTEBOOKS_DIR: Path = paths.PROJECT_ROOT / "notebooks"
"""Default folder of the notebooks."""

KERNEL = "python3"
TIMEOUT = 600
"""Seconds one cell may run before execution is aborted."""

_NUMBERED = re.compile(r"^\d{2}-.+\.ipynb$")


def notebook_paths(folder: Path = NOTEBOOKS_DIR) -> list[Path]:
    """The numbered notebooks ``NN-*.ipynb`` of a folder, in name order.

    Args:
        folder: Folder to search (not recursive).

    Returns:
        Sorted paths; scratch notebooks without a two-digit prefix are ignored.

    Examples:
        >>> notebook_paths(Path("/nonexistent"))
        []
    """
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_file() and _NUMBERED.match(p.name))


def needs(path: Path) -> list[str]:
    """The files (relative to a run folder) a notebook reads: ``metadata.newsdedup.needs``."""
    nb = nbformat.read(path, as_version=4)
    return list(nb.metadata.get("newsdedup", {}).get("needs", []))


def parameter_names(nb: nbformat.NotebookNode) -> list[str]:
    """Names the notebook's ``parameters`` cell assigns (empty without such a cell)."""
    for cell in nb.cells:
        if cell.cell_type == "code" and "parameters" in cell.metadata.get("tags", []):
            tree = ast.parse(cell.source)
            return [t.id for node in tree.body if isinstance(node, ast.Assign)
                    for t in node.targets if isinstance(t, ast.Name)]
    return []


def inject(nb: nbformat.NotebookNode, values: dict[str, object]) -> nbformat.NotebookNode:
    """Insert a cell setting ``values`` after the ``parameters`` cell (papermill's way).

    Only the names the parameters cell assigns are set; the cell is tagged
    ``injected-parameters``.

    Args:
        nb: The notebook (changed in place).
        values: Parameter name -> value (written with :func:`repr`).

    Returns:
        The same notebook.

    Raises:
        ValueError: The notebook has no ``parameters`` cell.

    Examples:
        >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("RUN_DIR = None")])
        >>> nb.cells[0].metadata["tags"] = ["parameters"]
        >>> inject(nb, {"RUN_DIR": "/r/feed", "OTHER": 1}).cells[1].source
        "RUN_DIR = '/r/feed'"
    """
    names = parameter_names(nb)
    if not names:
        raise ValueError("the notebook has no cell tagged 'parameters'")
    where = next(k for k, c in enumerate(nb.cells)
                 if c.cell_type == "code" and "parameters" in c.metadata.get("tags", []))
    lines = [f"{k} = {v!r}" for k, v in values.items() if k in names]
    cell = nbformat.v4.new_code_cell("\n".join(lines))
    cell.metadata["tags"] = ["injected-parameters"]
    nb.cells.insert(where + 1, cell)
    return nb


def prepare_run(folder: Path, run_dir: Path, values: dict[str, object],
                progress: Progress = print) -> list[Path]:
    """Copies of the notebooks that apply to a run, with its parameters, in ``<run>/notebooks/``.

    Args:
        folder: The notebooks' folder.
        run_dir: The run folder.
        values: Parameters besides ``RUN_DIR``.
        progress: Told which notebooks are skipped and why.

    Returns:
        The copies to execute, in name order.
    """
    run_dir = run_dir.resolve()
    target = run_dir / "notebooks"
    target.mkdir(parents=True, exist_ok=True)
    out = []
    for path in notebook_paths(folder):
        missing = [rel for rel in needs(path) if not (run_dir / rel).is_file()]
        if missing:
            progress(f"skipped {path.name}: {run_dir} has no {missing[0]}")
            continue
        nb = inject(nbformat.read(path, as_version=4), {"RUN_DIR": str(run_dir), **values})
        nbformat.write(nb, target / path.name)
        out.append(target / path.name)
    return out


def clear_outputs(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Remove outputs, execution counts and run metadata in place: the committed form.

    Args:
        nb: A notebook.

    Returns:
        The same notebook.

    Examples:
        >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")])
        >>> nb.cells[0].execution_count = 3
        >>> clear_outputs(nb).cells[0].execution_count is None
        True
    """
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
            # Timing metadata from nbclient changes on every run and would dirty the diff.
            cell.metadata.pop("execution", None)
    # Execution records the kernel's exact Python version and lexer details; keep only the
    # language name so the committed file does not change with the machine that ran it.
    language = nb.metadata.get("language_info", {}).get("name", "python")
    nb.metadata["language_info"] = {"name": language}
    return nb


def _client(nb: nbformat.NotebookNode, path: Path, timeout: int,
            kernel_name: str) -> NotebookClient:
    # The kernel's working directory is the notebook's folder, as when a reader opens it.
    return NotebookClient(nb, timeout=timeout, kernel_name=kernel_name,
                          resources={"metadata": {"path": str(path.parent.resolve())}})


def execute(path: Path, *, write: bool = True, timeout: int = TIMEOUT,
            kernel_name: str = KERNEL) -> nbformat.NotebookNode:
    """Run every cell of a notebook with its folder as the working directory.

    Args:
        path: The ``.ipynb`` file.
        write: Save the executed notebook (with outputs) back to ``path``.
        timeout: Seconds allowed per cell.
        kernel_name: Jupyter kernel to start.

    Returns:
        The executed notebook.

    Raises:
        nbclient.exceptions.CellExecutionError: A cell raised; the notebook is not written.
    """
    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    _client(nb, path, timeout, kernel_name).execute()
    if write:
        nbformat.write(nb, path)
    return nb


@dataclass(frozen=True)
class Run:
    """Outcome of executing one notebook.

    Attributes:
        path: The notebook.
        seconds: Wall time, kernel start included.
        error: The exception that stopped it, or None on success.
    """

    path: Path
    seconds: float
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        """Whether the notebook ran without an error."""
        return self.error is None


def _report(progress: Progress, k: int, total: int, run: Run) -> None:
    status = f"ok ({run.seconds:.1f} s)" if run.ok else f"FAILED ({run.seconds:.1f} s)"
    progress(f"[{k}/{total}] {run.path} {status}")


async def _execute_async(path: Path, sem: asyncio.Semaphore, write: bool, timeout: int,
                         kernel_name: str) -> Run:
    async with sem:
        start = time.perf_counter()
        try:
            nb = nbformat.read(path, as_version=4)
            await _client(nb, path, timeout, kernel_name).async_execute()
            if write:
                nbformat.write(nb, path)
        except Exception as exc:  # reported per notebook; the others still run
            return Run(path, time.perf_counter() - start, exc)
        return Run(path, time.perf_counter() - start)


async def _execute_many(paths: Sequence[Path], jobs: int, write: bool, timeout: int,
                        kernel_name: str, progress: Progress) -> list[Run]:
    sem = asyncio.Semaphore(jobs)
    tasks = [asyncio.ensure_future(_execute_async(Path(p), sem, write, timeout, kernel_name))
             for p in paths]
    for k, done in enumerate(asyncio.as_completed(tasks), 1):
        _report(progress, k, len(tasks), await done)
    return [t.result() for t in tasks]


def execute_all(paths: Sequence[Path], *, jobs: int = 1, write: bool = True,
                timeout: int = TIMEOUT, kernel_name: str = KERNEL,
                progress: Progress = print) -> list[Run]:
    """Execute several notebooks, each in its own kernel, ``jobs`` at a time.

    Every notebook runs even when an earlier one fails, so one run reports all
    broken notebooks. Kernel start-up dominates the time of these short
    notebooks; ``jobs > 1`` overlaps it.

    Args:
        paths: Notebooks to run.
        jobs: Kernels running at once (at least 1).
        write: Save each executed notebook back in place.
        timeout: Seconds allowed per cell.
        kernel_name: Jupyter kernel to start.
        progress: Called with one line per finished notebook.

    Returns:
        One :class:`Run` per path, in the order of ``paths``.
    """
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    if jobs == 1:
        runs = []
        for k, path in enumerate(paths, 1):
            start = time.perf_counter()
            try:
                execute(Path(path), write=write, timeout=timeout, kernel_name=kernel_name)
                run = Run(Path(path), time.perf_counter() - start)
            except Exception as exc:  # reported per notebook; the others still run
                run = Run(Path(path), time.perf_counter() - start, exc)
            _report(progress, k, len(paths), run)
            runs.append(run)
        return runs
    return asyncio.run(_execute_many(paths, jobs, write, timeout, kernel_name, progress))


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: execute (or, with ``--clear``, strip) every numbered notebook of a folder."""
    parser = argparse.ArgumentParser(
        prog="python -m newsdedup.runs.notebooks",
        description="Execute every notebooks/NN-*.ipynb in place with nbclient "
                    "(kernel python3, working directory = the notebook folder).",
    )
    parser.add_argument("folder", nargs="?", type=Path, default=NOTEBOOKS_DIR,
                        help="folder of the notebooks (default: %(default)s)")
    parser.add_argument("--timeout", type=int, default=TIMEOUT,
                        help="seconds per cell (default: %(default)s)")
    parser.add_argument("-j", "--jobs", type=int, default=1,
                        help="notebooks executed at once (default: %(default)s)")
    parser.add_argument("--no-write", dest="write", action="store_false",
                        help="execute but leave the notebook files as they are (checks that "
                             "they run; their figures are still regenerated)")
    parser.add_argument("--clear", action="store_true",
                        help="do not execute; remove outputs and execution counts instead "
                             "(the committed form)")
    parser.add_argument("--run-dir", type=Path, metavar="RUN_DIR",
                        help="execute copies of the notebooks on this run folder (e.g. "
                             "results/my-feed), written to RUN_DIR/notebooks/; the committed "
                             "notebooks are left as they are")
    parser.add_argument("-p", "--parameter", nargs=2, action="append", default=[],
                        metavar=("NAME", "VALUE"),
                        help="with --run-dir: set another parameter, e.g. -p RECALIBRATE_FROM "
                             "path/to/corpus.jsonl (a Python literal, else a string)")
    args = parser.parse_args(argv)
    paths = notebook_paths(args.folder)
    if not paths:
        parser.exit(2, f"error: no NN-*.ipynb notebooks in {args.folder}\n")
    if args.run_dir is not None:
        if not args.run_dir.is_dir():
            parser.exit(2, f"error: {args.run_dir} is not a run folder\n")
        paths = prepare_run(args.folder, args.run_dir, dict(
            (k, _literal(v)) for k, v in args.parameter), lambda m: print(m, flush=True))
    if args.clear:
        for k, path in enumerate(paths, 1):
            nbformat.write(clear_outputs(nbformat.read(path, as_version=4)), path)
            print(f"[{k}/{len(paths)}] cleared {path}", flush=True)
        return 0
    print(f"executing {len(paths)} notebooks in {args.folder} (jobs={args.jobs})", flush=True)
    runs = execute_all(paths, jobs=args.jobs, timeout=args.timeout, write=args.write,
                       progress=lambda line: print(line, flush=True))
    failed = [r for r in runs if not r.ok]
    for run in failed:
        print(f"\n{run.path}:\n{run.error}", file=sys.stderr)
    return 1 if failed else 0


def _literal(text: str) -> object:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


if __name__ == "__main__":
    raise SystemExit(main())

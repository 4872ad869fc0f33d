"""A fresh run on the pinned corpus rewrites the committed results byte for byte.

The committed tables under ``results/paldyn-ai-lab-news/`` are what the README
shows. This test recomputes them into a temporary folder and compares every
committed file: CSV and Markdown byte for byte, JSON after dropping the
``environment`` block (library versions), PNG by existence and size in pixels
(font rendering may differ between machines; the numbers behind each figure
are the CSVs compared here).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from newsdedup.cli import parse
from newsdedup.paths import PALDYN, results_dir
from newsdedup.runs.commit import INVOCATION
from newsdedup.runs.compare import committed_files, result_difference
from newsdedup.runs.pipeline import run_all

COMMITTED = results_dir(PALDYN.name)
SKIP = {"timings.json"}  # wall times: never reproducible, never committed
OWNED = {"signals"}  # reproduced by their own runs in tests/test_signal_runs.py


@pytest.fixture(scope="module")
def fresh(pinned, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("results")
    # `make reproduce` runs `newsdedup run`, which records its options in params.json.
    token = INVOCATION.set(parse(["run"]).config_options)
    try:
        run_all(pinned, PALDYN.name, out, echo=False, rerun=["newsdedup", "run"])
    finally:
        INVOCATION.reset(token)
    from newsdedup.plots.write import write_figures
    from newsdedup.runs.report import run_report

    write_figures(PALDYN.name, out)
    # `make reproduce` runs signals after `run` and then rewrites the report, which lists
    # the steps the folder holds: the committed signals (reproduced by their own tests)
    # stand in for that run here.
    shutil.copytree(COMMITTED / "signals", out / PALDYN.name / "signals")
    run_report(out / PALDYN.name)
    return out / PALDYN.name


def _committed_files() -> list[Path]:
    # What git tracks, not what an earlier `make reproduce` left in the folder.
    files = sorted(p for p in committed_files(COMMITTED)
                   if p.name not in SKIP and p.suffix != ".svg"
                   and p.relative_to(COMMITTED).parts[0] not in OWNED)
    assert files, f"no committed results under {COMMITTED}: run `make reproduce` and commit"
    return files


@pytest.mark.parametrize("rel", [p.relative_to(COMMITTED).as_posix() for p in _committed_files()]
                         if COMMITTED.is_dir() else ["<missing>"])
def test_committed_file_is_reproduced(fresh, rel):
    if rel == "params.json":
        # One entry per command: `make reproduce` adds signals', evaluate gold's and the
        # report's after the run's; the run's entry is the one this fresh run writes.
        committed, made = (json.loads(p.read_text("utf-8")) for p in (COMMITTED / rel, fresh / rel))
        assert set(made) == {"run"} and made["run"] == committed["run"] == {}
        assert set(committed) == {"run", "signals", "evaluate gold", "report"}
        assert committed["report"] == {"run": f"results/{PALDYN.name}"}
        return
    assert result_difference(COMMITTED / rel, fresh / rel) is None, rel


def test_every_fresh_table_is_committed(fresh):
    # Regenerated, not committed (.gitignore): every cross pair with titles, the
    # calibration's labeling sheet (titles side by side) and the report's HTML page
    # (its Markdown twin and figures are committed and compared).
    ignored = {"crosshost/cross_pairs.csv", "calibrate/to_label.csv", "report/report.html"}
    # SVG twins of the PNGs are regenerated, not committed (.gitignore).
    made = {p.relative_to(fresh).as_posix() for p in fresh.rglob("*")
            if p.is_file() and p.name not in SKIP and p.suffix != ".svg"
            and p.relative_to(fresh).parts[0] not in OWNED}
    committed = {p.relative_to(COMMITTED).as_posix() for p in _committed_files()}
    assert made - ignored <= committed, f"not committed: {sorted(made - ignored - committed)}"

"""The three published-block commands without --full: the published figures, lean and light.

``newsdedup measure``, ``calibrate`` and ``crosshost`` on the pinned corpus
write the published blocks only (``--full`` and ``newsdedup run`` add the other
studies). What they write must equal what ``run`` writes (the committed
results), file for file where a file is whole, row for row where the lean run
writes a part of it (the plain-Jaccard rows of ``sweep.csv``), and
``calibration.json`` must be the committed one but for the pointers to the
files only ``--full`` writes. A child process checks what the commands import.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from newsdedup.cli import main
from newsdedup.paths import PALDYN, results_dir
from newsdedup.runs.compare import committed_files, result_difference

COMMITTED = results_dir(PALDYN.name)

WHOLE = {
    "measure": ["summary.csv", "thresholds.csv", "top_pairs.csv"],
    "calibrate": ["both_sided.csv", "one_sided.csv", "retention.csv", "quantiles.csv",
                  "precision_recall.csv"],
    "crosshost": ["hosts.csv", "sources.csv", "source_by_host.csv", "crosshost.md",
                  "crosshost.json"],
}
COMMAND = {"measure": ["measure"], "calibrate": ["calibrate"],
           "crosshost": ["measure", "--crosshost"]}
"""The command line that writes each folder."""
EXTRA = {
    "measure": {"lsh.csv", "error_vs_perm.csv", "histogram.csv", "ngram_sweep.csv",
                "ngram_tracks.csv"},
    # The calibration package writes the same files either way; --full adds sweep rows.
    "calibrate": set(),
}


@pytest.fixture(scope="module")
def lean(pinned, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("results")
    for folder in WHOLE:
        assert main([*COMMAND[folder], "--out", str(out), "--quiet"]) == 0
    return out / PALDYN.name


@pytest.mark.parametrize("rel", [f"{c}/{f}" for c, files in WHOLE.items() for f in files])
def test_lean_file_equals_the_committed_one(lean, rel):
    assert result_difference(COMMITTED / rel, lean / rel) is None, rel


def test_lean_commands_leave_out_only_the_extra_studies(lean):
    for command, extra in EXTRA.items():
        written = {p.name for p in (lean / command).iterdir()}
        # What git tracks: `make reproduce` leaves the git-ignored timings.json beside it.
        committed = {p.name for p in committed_files(COMMITTED / command)}
        assert not written & extra, command
        assert committed - written == extra, command
        params = json.loads((lean / command / "params.json").read_text("utf-8"))
        assert params.get("extra_studies", params.get("config", {}).get("extra_studies")) is False


def test_lean_sweep_is_the_plain_jaccard_part_of_the_full_one(lean):
    full = pd.read_csv(COMMITTED / "calibrate/sweep.csv")
    part = pd.read_csv(lean / "calibrate/sweep.csv")
    pd.testing.assert_frame_equal(part, full[full["scorer"] == "jaccard"].reset_index(drop=True))


def test_lean_calibration_json_differs_only_in_the_next_step(lean):
    full = json.loads((COMMITTED / "calibration.json").read_text("utf-8"))
    part = json.loads((lean / "calibration.json").read_text("utf-8"))
    for record in (full, part):
        record.pop("environment", None)
        record.get("corpus", {}).pop("environment", None)
    # The next step names the labeling sheet where this command wrote it, and the command
    # as run (`newsdedup run` into results/ for the committed file).
    assert str(lean / "calibrate" / "to_label.csv") in part["evidence"].pop("next")
    assert "results/paldyn-ai-lab-news/calibrate/to_label.csv" in full["evidence"].pop("next")
    assert part == full
    for key in ("recommended_threshold", "rationale", "parameters", "method",
                "estimated_precision", "estimated_recall"):
        assert key in part  # what issue 14 asks of every calibration.json


def test_full_option_writes_what_run_writes(pinned, tmp_path):
    assert main(["measure", "--full", "--out", str(tmp_path), "--quiet"]) == 0
    folder = tmp_path / PALDYN.name / "measure"
    for rel in sorted(p.name for p in committed_files(COMMITTED / "measure")):
        assert result_difference(COMMITTED / "measure" / rel, folder / rel) is None, rel


HEAVY = ("matplotlib", "datasketch", "numba", "tqdm", "scipy.stats", "scipy.integrate",
         "scipy.linalg", "scipy.sparse.csgraph")
"""Libraries the block commands do without (the calibration's decoy intervals take their
quantiles from scipy.special through newsdedup.studies.quantiles, not from scipy.stats;
scipy.sparse.csgraph, which pulls in scipy.linalg, serves only connected_components)."""


def test_block_commands_import_no_heavy_library(pinned, tmp_path):
    # A fresh interpreter: what the commands import, and nothing imported by this test.
    code = (
        "import sys\n"
        "from newsdedup.cli import main\n"
        f"heavy = {HEAVY!r}\n"
        "print(sorted(m for m in heavy if m in sys.modules), flush=True)\n"
        "for c in (['measure', '--crosshost'], ['measure'], ['calibrate']):\n"
        f"    assert main([*c, '--out', {str(tmp_path)!r}, '--quiet']) == 0\n"
        "    print(sorted(m for m in heavy if m in sys.modules), flush=True)\n"
        "    print('special', 'scipy.special' in sys.modules, flush=True)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False, timeout=600)
    assert done.returncode == 0, done.stderr
    loaded = [line for line in done.stdout.splitlines() if line.startswith("[")]
    assert loaded == ["[]"] * 4  # the parser, crosshost, measure, calibrate
    # scipy.special serves the sampled measure's and the calibration's intervals only:
    # crosshost and measure on the pinned corpus (exact paths) do not import it.
    special = [line for line in done.stdout.splitlines() if line.startswith("special")]
    assert special[:2] == ["special False"] * 2

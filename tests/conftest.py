"""Shared fixtures. The pinned corpus must be present: its tests fail, never skip."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from newsdedup.corpus.load import LoadResult, load_corpus
from newsdedup.paths import locate_pinned

# Property tests draw the same examples on every run (determinism: a CI run passes or fails
# for the code, not for the draw). HYPOTHESIS_PROFILE=explore draws fresh random examples
# to hunt for new failures; a failure found that way becomes an explicit regression test.
# No deadline: speed is measured in bench/, and a loaded CI machine must not fail a test.
settings.register_profile("fixed", derandomize=True, deadline=None)
settings.register_profile("explore", derandomize=False, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fixed"))


# The fast lane (`make test`) leaves out what is marked slow; `make check` (CI) runs all.
# Slow: every end-to-end test (whole commands on real corpora, notebooks, the report in a
# browser) and the tests named here, each over 10 s on this project's 2-core machine
# (`pytest --durations=40` prints them).
SLOW_FOLDERS = ("e2e",)
SLOW_TESTS: tuple[str, ...] = (
    "tests/runs/test_calibrate.py::test_the_labeling_loop_and_its_hold_out_measure_the_dedupe",
    "tests/plots/test_write.py::test_write_all_",
    "tests/plots/test_write.py::test_write_figures_writes_stable_png_and_svg",
    "tests/cluster/test_gate_buckets.py::test_20k_shared_lead_token",
    "tests/runs/test_containment.py::test_a_run_of_another_corpus_killed_midway",
    "tests/test_cli_round2.py::test_ctrl_c_is_one_line",
    "tests/plots/test_evaluate.py::test_notebook_07_runs",
    "tests/plots/test_evaluate.py::test_committed_eval_figures_are_redrawn",
    "tests/score/test_scorers.py::test_embedding_block_and_pair_scores_agree",
    "tests/calibration/test_model.py::test_the_",
    "tests/calibration/test_model.py::test_run_",
)


def pytest_collection_modifyitems(config, items) -> None:
    """Mark the slow tests ``slow``: end-to-end folders and :data:`SLOW_TESTS`."""
    for item in items:
        parts = item.path.parts
        in_folder = "tests" in parts and any(f in parts for f in SLOW_FOLDERS)
        if in_folder or any(item.nodeid.startswith(t) for t in SLOW_TESTS):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def pinned() -> LoadResult:
    """The 387-item archive read as the published run read it (seed dialect)."""
    return load_corpus(locate_pinned(), dialect="seed")


@pytest.fixture(scope="session")
def pinned_standard() -> LoadResult:
    """The same archive with correct TypeScript string decoding."""
    return load_corpus(locate_pinned(), dialect="standard")

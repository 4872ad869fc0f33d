"""The two real feeds, calibrated without and with their labelled sheets, as ``make feeds`` does.

Each run is compared with its committed files (``results/<feed>/`` and
``results/<feed>-unlabelled/``): the choice, the curve and the strata are the
same bytes on any checkout (JSON without its environment block). The
commands are run from the checkout with the Makefile's relative paths, since
``calibration.json`` records the command to run next as the user typed it.

About five minutes in all.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from newsdedup import paths
from newsdedup.cli import main
from newsdedup.runs.compare import result_difference

FEEDS = {
    "knews-rss-big3": ("knews-rss-big3", "knews-rss-big3.jsonl"),
    "reuters21578-titles": ("reuters21578-titles", "reuters-005-009.csv"),
}
LABELLED = ("calibration.json", "calibrate/precision_recall.csv", "calibrate/strata.csv")


def _run(argv: list[str], out: Path, monkeypatch) -> None:
    # The next step quotes the command as typed: make feeds' form (no --out, no --quiet).
    monkeypatch.setattr(sys, "argv", ["newsdedup", *argv])
    assert main([*argv, "--out", str(out), "--quiet"]) == 0


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """Both feeds calibrated without and with labels into a temporary results root."""
    out = tmp_path_factory.mktemp("results")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(paths.PROJECT_ROOT)
        for feed, (folder, name) in FEEDS.items():
            corpus = paths.CORPORA_DIR / folder / name
            if not corpus.is_file():
                pytest.skip(f"{corpus} not available")
            shown = os.path.relpath(corpus, paths.PROJECT_ROOT)
            _run(["calibrate", shown, "--name", f"{feed}-unlabelled"], out, mp)
            _run(["calibrate", shown, "--name", feed,
                  "--labels", f"data/gold/{feed}.calibrate.csv",
                  "--holdout", f"data/gold/{feed}.holdout.csv"], out, mp)
    return out


@pytest.mark.parametrize("feed", sorted(FEEDS))
@pytest.mark.parametrize("rel", LABELLED)
def test_the_labelled_calibration_is_the_committed_one(fresh: Path, feed: str, rel: str):
    committed = paths.RESULTS_DIR / feed / rel
    assert committed.is_file(), f"{committed} missing: run `make feeds` and commit it"
    assert result_difference(committed, fresh / feed / rel) is None, f"{feed}/{rel}"


@pytest.mark.parametrize("feed", sorted(FEEDS))
def test_the_unlabelled_calibration_is_the_committed_one(fresh: Path, feed: str):
    rel = f"{feed}-unlabelled/calibration.json"
    committed = paths.RESULTS_DIR / rel
    assert committed.is_file(), f"{committed} missing: run `make feeds` and commit it"
    assert result_difference(committed, fresh / rel) is None, rel

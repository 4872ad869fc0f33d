"""The two real feeds, calibrated without and with their labelled sheets, as ``make feeds`` does.

Each run is compared with its committed files (``results/<feed>/`` and
``results/<feed>-unlabelled/``): the choice, the curve and the strata are the
same bytes on any checkout (JSON without its environment block). The
commands are run from the checkout with the Makefile's relative paths, since
``calibration.json`` records the command to run next as the user typed it.

About five minutes in all.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from newsdedup import paths
from newsdedup.cli import main
from newsdedup.runs.compare import EMBEDDING_TOLERANCE, result_difference

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
            _run(["calibrate", shown, "--name", feed, "--model",
                  "--labels", f"data/gold/{feed}.calibrate.csv",
                  "--holdout", f"data/gold/{feed}.holdout.csv"], out, mp)
    return out


def _as_committed(fresh: Path, rel: str, tmp_path: Path) -> Path:
    """The fresh file with its results root named as ``make feeds`` names it (``results/``).

    The next step names the labeling sheet under the results root the user gave:
    ``results/`` from the checkout, a temporary folder here; nothing else may differ.
    """
    copy = tmp_path / Path(rel).name
    text = (fresh / rel).read_text("utf-8")
    copy.write_text(text.replace(f"{fresh}/", "results/"), encoding="utf-8")
    return copy


@pytest.mark.parametrize("feed", sorted(FEEDS))
@pytest.mark.parametrize("rel", LABELLED)
def test_the_labelled_calibration_is_the_committed_one(fresh: Path, feed: str, rel: str,
                                                        tmp_path: Path):
    committed = paths.RESULTS_DIR / feed / rel
    assert committed.is_file(), f"{committed} missing: run `make feeds` and commit it"
    fresh_file = _as_committed(fresh, f"{feed}/{rel}", tmp_path)
    if rel == "calibration.json":  # the pair model's part is compared below
        committed, fresh_file = (_without_model(p, tmp_path / name) for p, name in (
            (committed, "committed.json"), (fresh_file, "fresh.json")))
    assert result_difference(committed, fresh_file) is None, f"{feed}/{rel}"


def _without_model(path: Path, to: Path) -> Path:
    data = json.loads(path.read_text("utf-8"))
    data.pop("pair_model", None)
    to.write_text(json.dumps(data), encoding="utf-8")
    return to


MODEL_FILES = ("calibrate/pair_model.json", "calibrate/pair_model.csv",
               "calibrate/pair_model_pairs.csv", "calibrate/pair_model_character.csv",
               "calibrate/pair_model_reliability.csv")


@pytest.mark.parametrize("feed", sorted(FEEDS))
@pytest.mark.parametrize("rel", MODEL_FILES)
def test_the_pair_model_is_the_committed_one(fresh: Path, feed: str, rel: str, tmp_path: Path):
    """Its cosine feature comes from float32 sentence embeddings, whose last digits follow
    the CPU's kernels: numbers agree within :data:`EMBEDDING_TOLERANCE` (counts exactly,
    unless a pair's probability sits that close to a cut)."""
    committed = paths.RESULTS_DIR / feed / rel
    assert committed.is_file(), f"{committed} missing: run `make feeds` and commit it"
    fresh_file = fresh / feed / rel
    assert result_difference(committed, fresh_file, EMBEDDING_TOLERANCE) is None, f"{feed}/{rel}"
    record = {k: json.loads((root / feed / "calibration.json").read_text("utf-8"))["pair_model"]
              for k, root in (("committed", paths.RESULTS_DIR), ("fresh", fresh))}
    assert record["fresh"]["recommended_cut"] == record["committed"]["recommended_cut"]
    for key in ("model_dedupe", "calibrated_dedupe", "model_pairs", "character_pairs"):
        old, new = record["committed"]["versus"][key], record["fresh"]["versus"][key]
        assert (old is None) == (new is None), key
        if old is not None:
            assert new["recall"] == pytest.approx(old["recall"], abs=EMBEDDING_TOLERANCE), key


@pytest.mark.parametrize("feed", sorted(FEEDS))
def test_the_unlabelled_calibration_is_the_committed_one(fresh: Path, feed: str,
                                                          tmp_path: Path):
    rel = f"{feed}-unlabelled/calibration.json"
    committed = paths.RESULTS_DIR / rel
    assert committed.is_file(), f"{committed} missing: run `make feeds` and commit it"
    assert result_difference(committed, _as_committed(fresh, rel, tmp_path)) is None, rel

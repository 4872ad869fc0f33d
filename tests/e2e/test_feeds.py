"""The two real feeds, calibrated without and with their labelled sheets, as ``make feeds`` does.

Each run is compared with its committed files (``results/<feed>/`` and
``results/<feed>-unlabelled/``): the choice, the curve and the strata are the
same bytes on any checkout (JSON without its environment block). The
commands are run from the checkout with the Makefile's relative paths, since
``calibration.json`` records the command to run next as the user typed it.
The door study (``make doors``) runs on the same results root and is compared
with ``results/<feed>/doors/``.

About six minutes in all.
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
                  "--holdout", f"data/gold/{feed}.holdout.csv",
                  "--model-holdout", f"data/gold/{feed}.model.csv"], out, mp)
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


@pytest.fixture(scope="module")
def doors(fresh):
    """``make doors`` into the same temporary results root (its embeddings cached by ``fresh``)."""
    from newsdedup.runs import door_study

    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(paths.PROJECT_ROOT)
        for feed, (folder, name) in FEEDS.items():
            shown = os.path.relpath(paths.CORPORA_DIR / folder / name, paths.PROJECT_ROOT)
            assert door_study.main([shown, "--name", feed, "--out", str(fresh),
                                    "--labels", f"data/gold/{feed}.calibrate.csv",
                                    "--holdout", f"data/gold/{feed}.holdout.csv",
                                    "--door-labels", f"data/gold/{feed}.doors.csv",
                                    "--calibration", str(fresh / feed / "calibration.json"),
                                    "--model-holdout", f"data/gold/{feed}.model.csv"]
                                   ) == 0
    return fresh


@pytest.mark.parametrize("feed", sorted(FEEDS))
@pytest.mark.parametrize("rel", ["doors/doors.csv", "doors/doors.json",
                                 "doors/doors_dedupe.csv"])
def test_the_door_study_is_the_committed_one(doors: Path, feed: str, rel: str):
    """The door's neighbours come from float32 embeddings: numbers agree within
    :data:`EMBEDDING_TOLERANCE`, and the door's labelled sheet is read (a neighbour set
    that moved would move a sheet pair out of its stratum: refused, not absorbed)."""
    committed = paths.RESULTS_DIR / feed / rel
    assert committed.is_file(), f"{committed} missing: run `make doors` and commit it"
    assert result_difference(committed, doors / feed / rel, EMBEDDING_TOLERANCE) is None
    if rel.endswith(".json"):
        record = json.loads((doors / feed / rel).read_text("utf-8"))
        assert record["door_labelled"] == 60 and record["population"] == json.loads(
            (paths.RESULTS_DIR / feed / "calibration.json").read_text("utf-8")
        )["labels"]["population"]


def test_without_door_labels_the_sheet_to_label_is_written(doors: Path, tmp_path: Path):
    """The first run on a feed: the door's sample, items side by side, the one committed."""
    from newsdedup.calibration.sheet import without_text
    from newsdedup.runs import door_study

    feed = "reuters21578-titles"
    folder, name = FEEDS[feed]
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(paths.PROJECT_ROOT)
        shown = os.path.relpath(paths.CORPORA_DIR / folder / name, paths.PROJECT_ROOT)
        assert door_study.main([shown, "--name", feed, "--out", str(tmp_path),
                                "--labels", f"data/gold/{feed}.calibrate.csv",
                                "--holdout", f"data/gold/{feed}.holdout.csv"]) == 0
    import pandas as pd

    drawn = pd.read_csv(tmp_path / feed / "doors" / "to_label.csv", keep_default_na=False,
                        dtype=str)
    assert {"title_i", "title_j", "published_i"} <= set(drawn.columns)
    assert "score" not in drawn.columns and not (drawn["label"] != "").any()
    committed = pd.read_csv(paths.DATA_DIR / "gold" / f"{feed}.doors.csv", keep_default_na=False,
                            dtype=str)
    got = without_text(drawn)
    for column in ("pair", "id_i", "id_j", "stratum", "stratum_size", "inclusion"):
        assert got[column].tolist() == committed[column].tolist(), column
    assert not (tmp_path / feed / "doors" / "doors.csv").exists()


def test_the_models_holdout_is_the_one_calibrate_draws(fresh: Path, tmp_path: Path):
    """The committed model hold-out (data/gold/<feed>.model.csv) was drawn by calibrate, not
    chosen: drawn again from the same labels, the same pairs in the same strata, and a
    design whose model agrees within :data:`EMBEDDING_TOLERANCE` (its cosine feature)."""
    import pandas as pd

    from newsdedup.calibration.model_sample import design_path
    from newsdedup.calibration.sheet import without_text

    feed = "reuters21578-titles"
    folder, name = FEEDS[feed]
    sheet = tmp_path / f"{feed}.model.csv"
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(paths.PROJECT_ROOT)
        shown = os.path.relpath(paths.CORPORA_DIR / folder / name, paths.PROJECT_ROOT)
        _run(["calibrate", shown, "--name", feed, "--model",
              "--labels", f"data/gold/{feed}.calibrate.csv",
              "--holdout", f"data/gold/{feed}.holdout.csv", "--model-holdout", str(sheet)],
             tmp_path / "out", mp)
    drawn = without_text(pd.read_csv(sheet, keep_default_na=False, dtype=str))
    committed = pd.read_csv(paths.DATA_DIR / "gold" / f"{feed}.model.csv",
                            keep_default_na=False, dtype=str)
    for column in ("pair", "batch", "id_i", "id_j", "stratum", "stratum_size", "inclusion"):
        assert drawn[column].tolist() == committed[column].tolist(), column
    assert not (drawn["label"] != "").any()
    fresh_design = json.loads(design_path(sheet).read_text("utf-8"))
    kept = json.loads((paths.DATA_DIR / "gold" / f"{feed}.model.design.json").read_text("utf-8"))
    assert fresh_design["edges"] == kept["edges"]
    for key in ("centre", "scale", "coef"):
        assert fresh_design["model"][key] == pytest.approx(kept["model"][key],
                                                           abs=EMBEDDING_TOLERANCE), key

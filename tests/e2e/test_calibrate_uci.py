"""The UCI head calibrated three ways, each checked against its story ids (``STORY``).

* without labels (``--decoy-field CATEGORY``): the calibration never sees
  ``STORY``; whatever it states must hold against it, or it must decline;
* with ``STORY`` as the label of every pair (``--story-column``): the curve
  is the dedupe it describes;
* the labeling loop answered from ``STORY`` (200 labels, then a 100-pair
  hold-out): the stated interval at the recommended threshold holds the
  precision computed from ``STORY`` over the candidate pairs.

A few minutes in all.
"""

from __future__ import annotations

import json
import tempfile
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from newsdedup.calibration.evidence import EvidenceConfig
from newsdedup.calibration.simulate import holdout_run, run_loop, true_scores
from newsdedup.cli import main
from newsdedup.cluster.dedupe import DedupeConfig, dedupe
from newsdedup.corpus.load import load_corpus
from newsdedup.evaluate.metrics import pairwise_scores
from newsdedup.paths import UCI_COLUMNS, CorpusNotFound, shared_corpus_file

COLUMNS = ",".join(f"{k}={v}" for k, v in UCI_COLUMNS.items())


@pytest.fixture(scope="module")
def uci_path():
    try:
        return shared_corpus_file("uci-news-aggregator-head", "uci-news-aggregator.head.csv")
    except CorpusNotFound:
        pytest.skip("shared corpora not available")


@pytest.fixture(scope="module")
def items(uci_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the truncated last record is reported by the runs
        return load_corpus(uci_path, columns=UCI_COLUMNS).items


def _calibrate(uci_path, out: Path, *extra: str) -> dict:
    code = main(["calibrate", str(uci_path), "--name", "uci-head", "--out", str(out),
                 "--columns", COLUMNS, "--quiet", *extra])
    assert code == 0
    return json.loads((out / "uci-head" / "calibration.json").read_text(encoding="utf-8"))


def test_without_labels_it_states_only_what_holds_against_the_story_ids(uci_path, items,
                                                                         tmp_path):
    cal = _calibrate(uci_path, tmp_path, "--decoy-field", "CATEGORY")
    assert "STORY" not in json.dumps(cal)  # the story ids were never read
    if cal["method"] == "declined":
        assert cal["recommended_threshold"] is None
        assert "newsdedup label" in cal["evidence"]["next"]
        return
    config = DedupeConfig.from_calibration(tmp_path / "uci-head" / "calibration.json")
    measured = pairwise_scores(dedupe(items, config).clustering.labels, items["STORY"].tolist())
    est = cal["estimated_precision"]
    assert est["low"] <= measured["precision"] <= est["high"]
    assert measured["precision"] >= cal["target_precision"] - 0.02


def test_story_labels_make_a_curve_that_is_the_dedupe_it_describes(uci_path, items, tmp_path):
    cal = _calibrate(uci_path, tmp_path, "--story-column", "STORY")
    folder = tmp_path / "uci-head"
    curve = pd.read_csv(folder / "calibrate" / "precision_recall.csv")
    assert cal["method"] == "labels"
    ok = curve[(curve["merged_pairs"] > 0)
               & (curve["precision_measured_low"] >= cal["target_precision"])]
    assert cal["recommended_threshold"] == pytest.approx(ok["threshold"].min())
    result = dedupe(items, DedupeConfig.from_calibration(folder / "calibration.json"))
    row = curve[np.isclose(curve["threshold"], cal["recommended_threshold"])].iloc[0]
    sizes = np.bincount(result.clustering.labels)
    assert row["merged_pairs"] == int((sizes * (sizes - 1) // 2).sum())
    measured = pairwise_scores(result.clustering.labels, items["STORY"].tolist())
    # precision_recall.csv holds six decimals.
    assert row["precision_measured"] == pytest.approx(measured["precision"], abs=5e-7)


def test_the_loop_answered_from_the_story_ids_states_an_interval_that_holds(items):
    truth = dict(zip(items["id"], items["STORY"], strict=True))
    options = EvidenceConfig(seed=0)
    with tempfile.TemporaryDirectory() as tmp:
        loop = run_loop(items, truth, options, budget=200, workdir=Path(tmp))
        assert loop.choice["method"] == "labels" and loop.labelled == 200
        held = holdout_run(items, truth, replace(options, labels=Path(tmp) / "sheet.csv"), 100)
    t = loop.choice["threshold"]
    result = dedupe(items, replace(loop.config, threshold=t))
    precision, _ = true_scores(loop, result.clustering.labels, items["STORY"].to_numpy())
    stated = held.choice["precision"]
    assert held.choice["threshold"] == t
    assert stated["low"] <= precision <= stated["high"]

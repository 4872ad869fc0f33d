"""Done-when of issue 14: the UCI head calibrated without its story ids, checked against them.

``newsdedup calibrate`` runs with ``--decoy-field CATEGORY`` and never sees
``STORY``; the dedupe that ``DedupeConfig.from_calibration`` builds from the
written file is then scored against ``STORY``. About 40 s.
"""

from __future__ import annotations

import json
import warnings

import pytest

from newsdedup.cli import main
from newsdedup.cluster.dedupe import DedupeConfig, dedupe
from newsdedup.corpus.load import load_corpus
from newsdedup.evaluate.metrics import pairwise_scores
from newsdedup.paths import UCI_COLUMNS, CorpusNotFound, shared_corpus_file

COLUMNS = ",".join(f"{k}={v}" for k, v in UCI_COLUMNS.items())


@pytest.fixture(scope="module")
def uci(tmp_path_factory):
    try:
        path = shared_corpus_file("uci-news-aggregator-head", "uci-news-aggregator.head.csv")
    except CorpusNotFound:
        pytest.skip("shared corpora not available")
    out = tmp_path_factory.mktemp("results")
    code = main(["calibrate", str(path), "--name", "uci-head", "--out", str(out),
                 "--columns", COLUMNS, "--decoy-field", "CATEGORY"])
    assert code == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the truncated last record is reported by the run
        items = load_corpus(path, columns=UCI_COLUMNS).items
    return out / "uci-head", items


def test_uci_calibrated_from_decoys_holds_against_story(uci):
    folder, items = uci
    cal = json.loads((folder / "calibration.json").read_text(encoding="utf-8"))
    assert cal["method"] == "decoys"
    assert "STORY" not in json.dumps(cal["evidence"])  # the labels were not used
    config = DedupeConfig.from_calibration(folder / "calibration.json")
    assert config.threshold == cal["recommended_threshold"]
    measured = pairwise_scores(dedupe(items, config).clustering.labels, items["STORY"].tolist())
    assert measured["merged_pairs"] >= 1000
    assert measured["precision"] >= 0.90
    est = cal["estimated_precision"]
    # The done-when of issue 14: the interval contains the measured precision, and is no
    # wider than +-0.05.
    assert est["low"] <= measured["precision"] <= est["high"]
    assert est["high"] - est["low"] <= 0.10


def test_uci_curve_matches_the_dedupe_it_describes(uci):
    import pandas as pd

    folder, items = uci
    curve = pd.read_csv(folder / "calibrate" / "precision_recall.csv")
    cal = json.loads((folder / "calibration.json").read_text(encoding="utf-8"))
    row = curve[curve["threshold"].round(6) == round(cal["recommended_threshold"], 6)].iloc[0]
    result = dedupe(items, DedupeConfig.from_calibration(folder / "calibration.json"))
    assert row["items_left"] == result.clustering.labels.max() + 1
    sizes = result.items["group"].value_counts()
    assert row["merged_pairs"] == int((sizes * (sizes - 1) // 2).sum())
    # The recommendation: the lowest threshold whose interval clears the target, or else
    # the one whose point reaches it with the highest low end.
    merged = curve[curve["merged_pairs"] > 0]
    ok = merged[merged["precision_low"] >= 0.95]
    if not len(ok):
        ok = merged[merged["precision"] >= 0.95]
        ok = ok[ok["precision_low"] == ok["precision_low"].max()]
    assert cal["recommended_threshold"] == pytest.approx(ok["threshold"].min())

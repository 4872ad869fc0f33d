"""The calibrate run's evidence: files, method choice, and DedupeConfig.from_calibration."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from newsdedup.cluster.dedupe import DedupeConfig, dedupe
from newsdedup.corpus.load import load_corpus
from newsdedup.evaluate.metrics import pairwise_scores
from newsdedup.runs.calibrate import CalibrateOptions, EvidenceOptions, recalibrate, run_calibrate

WORDS = ("market", "board", "vote", "plan", "city", "river", "school", "budget", "court", "storm",
         "bank", "tech", "game", "film", "health", "energy", "rail", "port", "farm", "water",
         "police", "fire", "museum", "bridge")


def _corpus(tmp_path, days: float) -> tuple:
    """60 stories of 8-10 words, each posted 1-3 times with a word or two changed."""
    rng = np.random.default_rng(2)
    rows = []
    for s in range(60):
        base = [f"s{s}lead", *rng.choice(WORDS, 9)]
        for k in range(int(rng.integers(1, 4))):
            words = list(base)
            if k:
                words[int(rng.integers(1, len(words)))] = str(rng.choice(WORDS))
            rows.append({"id": f"{s}-{k}", "title": " ".join(words), "story": f"st{s}",
                         "section": "abc"[s % 3],
                         "published_at": (pd.Timestamp("2024-01-01", tz="UTC")
                                          + pd.Timedelta(days=float(rng.uniform(0, days))))
                         .isoformat()})
    path = tmp_path / "feed.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return load_corpus(path), path


OPTS = dict(trials=3, fractions=(0.9, 0.6), min_words=5)


def test_story_labels_choose_and_the_curve_is_the_dedupe(tmp_path):
    corpus, _ = _corpus(tmp_path, 1.0)
    options = CalibrateOptions(**OPTS, evidence=EvidenceOptions(story_column="story"))
    run_calibrate(corpus, "feed", tmp_path / "out", options, echo=False)
    cal_path = tmp_path / "out" / "feed" / "calibration.json"
    cal = json.loads(cal_path.read_text(encoding="utf-8"))
    curve = pd.read_csv(tmp_path / "out" / "feed" / "calibrate" / "precision_recall.csv")
    assert cal["method"] == "labels"
    config = DedupeConfig.from_calibration(cal_path)
    labels = dedupe(corpus.items, config).clustering.labels
    measured = pairwise_scores(labels, corpus.items["story"].tolist())
    row = curve[np.isclose(curve["threshold"], cal["recommended_threshold"])].iloc[0]
    assert row["merged_pairs"] == measured["merged_pairs"]
    assert row["precision_measured"] == pytest.approx(measured["precision"], abs=1e-6)
    assert cal["estimated_precision"]["value"] == pytest.approx(measured["precision"])
    ok = curve[(curve["merged_pairs"] > 0) & (curve["precision_measured_low"] >= 0.95)]
    assert cal["recommended_threshold"] == pytest.approx(ok["threshold"].min())


def test_no_decoy_rule_falls_back_to_the_bound_and_says_so(tmp_path):
    corpus, _ = _corpus(tmp_path, 1.0)
    cal = run_calibrate(corpus, "feed", tmp_path / "out", CalibrateOptions(**OPTS), echo=False)
    written = json.loads((tmp_path / "out" / "feed" / "calibration.json").read_text("utf-8"))
    assert written["method"] == "bound"
    assert "No decoy rule applies" in written["evidence"]["note"]
    assert written["recommended_threshold"] == cal.recommended
    assert not (tmp_path / "out" / "feed" / "calibrate" / "decoy_pairs.csv").exists()


def test_recalibrate_rereads_the_evidence_options(tmp_path):
    corpus, path = _corpus(tmp_path, 30.0)
    options = CalibrateOptions(**OPTS, evidence=EvidenceOptions(decoy_field="section",
                                                                precision=0.9))
    run_calibrate(corpus, "feed", tmp_path / "out", options, echo=False)
    folder = tmp_path / "out" / "feed"
    before = {p.name: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    recalibrate("feed", path, tmp_path / "out")
    after = {p.name: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert before == after
    assert json.loads(before["calibration.json"])["evidence"]["target_precision"] == 0.9
    assert "section" in json.loads(before["calibration.json"])["evidence"]["decoys"]


def test_every_dedupe_scorer_gets_its_curve(tmp_path):
    corpus, _ = _corpus(tmp_path, 30.0)
    options = CalibrateOptions(**OPTS, evidence=EvidenceOptions(decoy_field="section",
                                                                story_column="story"))
    run_calibrate(corpus, "feed", tmp_path / "out", options, echo=False)
    folder = tmp_path / "out" / "feed" / "calibrate"
    table = pd.read_csv(folder / "precision_recall_scorers.csv")
    curve = pd.read_csv(folder / "precision_recall.csv")
    assert sorted(set(table["scorer"])) == ["idf", "jaccard"]
    jac = table[table["scorer"] == "jaccard"].drop(columns="scorer").reset_index(drop=True)
    pd.testing.assert_frame_equal(jac[curve.columns], curve)
    for scorer in ("idf", "jaccard"):  # each row is the dedupe with that scorer
        rows = table[table["scorer"] == scorer].set_index("threshold")
        config = DedupeConfig(n=4, scorer=scorer, text="title+summary", threshold=0.3)
        labels = dedupe(corpus.items.assign(summary=""), config).clustering.labels
        measured = pairwise_scores(labels, corpus.items["story"].tolist())
        row = rows.loc[rows.index[np.isclose(rows.index, 0.3)][0]]
        assert row["merged_pairs"] == measured["merged_pairs"]
        assert row["precision_measured"] == pytest.approx(measured["precision"], abs=1e-6)
    assert table.loc[table["scorer"] == "idf", "precision"].notna().any()


def test_large_corpus_samples_the_simulation_and_leaves_out_minhash(tmp_path, monkeypatch):
    from newsdedup.studies import cost

    monkeypatch.setattr(cost, "MINHASH_SWEEP_BUDGET", 0.0)  # as if the corpus were large
    corpus, _ = _corpus(tmp_path, 1.0)
    options = CalibrateOptions(**OPTS, simulation_items=20)
    run_calibrate(corpus, "feed", tmp_path / "out", options, echo=False)
    folder = tmp_path / "out" / "feed" / "calibrate"
    params = json.loads((folder / "params.json").read_text(encoding="utf-8"))
    assert params["sensitivity"]["sample"] == {"items": len(corpus.items), "sampled": 20,
                                               "seed": options.seed}
    assert params["sensitivity"]["items_used"] + params["sensitivity"]["items_skipped"] == 20
    assert params["sweep"]["left_out"] == ["minhash"]
    assert params["sweep"]["minhash_sweep"]["choice"] == "left out"
    assert "minhash" not in set(pd.read_csv(folder / "sweep.csv")["scorer"])


def test_raised_sweep_floor_is_recorded_and_the_sweep_is_the_dense_one_above_it(
        tmp_path, monkeypatch):
    from newsdedup.cluster.greedy import greedy_clusters
    from newsdedup.score.jaccard import jaccard_matrix, upper_pairs
    from newsdedup.studies import sweep_floor
    from newsdedup.studies.measure import normalized_texts
    from newsdedup.text.shingle import shingle_matrix

    corpus, path = _corpus(tmp_path, 1.0)
    n = len(corpus.items)
    # As if the corpus were large: no minimum, and a budget of 2 pairs per item (the option).
    monkeypatch.setattr(sweep_floor, "SWEEP_MIN_PAIRS", 0)
    run_calibrate(corpus, "feed", tmp_path / "out",
                  CalibrateOptions(**OPTS, sweep_pairs_per_item=2), echo=False)
    folder = tmp_path / "out" / "feed" / "calibrate"
    params = json.loads((folder / "params.json").read_text(encoding="utf-8"))
    floor = params["sweep"]["floor"]
    assert floor["requested"] == 0.05 and floor["lowest"] > 0.05
    assert floor["budget_pairs"] == 2 * n and params["sweep"]["thresholds"][0] == floor["lowest"]
    assert floor["pairs_per_item"] == 2 and "(2 per item)" in floor["reason"]
    assert "Sweep floor" in (folder / "calibrate.md").read_text(encoding="utf-8")
    sweep = pd.read_csv(folder / "sweep.csv")
    assert sweep["threshold"].min() == pytest.approx(floor["lowest"])
    # Above the floor every figure is the dense one, and every item is in some group.
    m = jaccard_matrix(shingle_matrix(normalized_texts(corpus.items), 4))
    rows = sweep[sweep["scorer"] == "jaccard"]
    grid = rows["threshold"].tolist()
    assert rows["pairs"].tolist() == upper_pairs(m).count_at_or_above(grid).tolist()
    assert rows["items_left"].tolist() == [greedy_clusters(m, t).n_groups for t in grid]
    assert rows["pairs"].iloc[0] <= 2 * n
    labels = greedy_clusters(m, grid[0]).labels
    assert len(labels) == n and (labels >= 0).all()
    evidence = pd.read_csv(folder / "precision_recall.csv")
    assert evidence["threshold"].min() == pytest.approx(floor["lowest"])
    # Rerunning from params.json asks for the same 0.05 and lands on the same floor.
    recalibrate("feed", path, tmp_path / "out")
    again = json.loads((folder / "params.json").read_text(encoding="utf-8"))
    assert again["sweep"]["floor"] == floor


def test_idf_sweep_left_out_over_its_filter_budget_and_the_calibration_is_unchanged(
        tmp_path, monkeypatch):
    from newsdedup.studies import sweep_floor

    corpus, _ = _corpus(tmp_path, 1.0)
    monkeypatch.setattr(sweep_floor, "SWEEP_MIN_PAIRS", 0)  # as if the corpus were large
    run_calibrate(corpus, "with", tmp_path / "out", CalibrateOptions(**OPTS), echo=False)
    monkeypatch.setattr(sweep_floor, "FILTER_PAIRS_PER_ITEM", 1)
    run_calibrate(corpus, "without", tmp_path / "out", CalibrateOptions(**OPTS), echo=False)
    folder = tmp_path / "out" / "without" / "calibrate"
    params = json.loads((folder / "params.json").read_text(encoding="utf-8"))
    assert "idf-jaccard" in params["sweep"]["left_out"]
    work = params["sweep"]["idf_filter_left_out"]
    assert work["budget_listed"] == len(corpus.items) and work["listed_high"] > len(corpus.items)
    sweep = pd.read_csv(folder / "sweep.csv")
    assert "idf-jaccard" not in set(sweep["scorer"])
    kept = pd.read_csv(tmp_path / "out" / "with" / "calibrate" / "sweep.csv")
    assert "idf-jaccard" in set(kept["scorer"])
    pd.testing.assert_frame_equal(sweep[sweep["scorer"] == "jaccard"].reset_index(drop=True),
                                  kept[kept["scorer"] == "jaccard"].reset_index(drop=True))
    cal = {k: json.loads((tmp_path / "out" / k / "calibration.json").read_text("utf-8"))
           for k in ("with", "without")}
    for key in ("recommended_threshold", "upper_bound", "band", "method",
                "estimated_precision"):
        assert cal["with"][key] == cal["without"][key]

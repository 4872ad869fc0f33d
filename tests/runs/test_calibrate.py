"""The calibrate run's evidence: files, method choice, and DedupeConfig.from_calibration."""

from __future__ import annotations

import itertools
import json
import random
import shlex
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from newsdedup.calibration.sheet import OTHER_DRAW, SheetError
from newsdedup.cluster.dedupe import DedupeConfig, dedupe
from newsdedup.corpus.load import load_corpus
from newsdedup.evaluate.metrics import pairwise_scores
from newsdedup.runs.calibrate import CalibrateConfig, EvidenceConfig, recalibrate, run_calibrate

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
    options = CalibrateConfig(**OPTS, evidence=EvidenceConfig(story_column="story"))
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
    # Its recall counts every same-story pair, and the summary says so (not "among the
    # pairs scoring at least the floor", a sheet's basis).
    assert row["recall_measured"] == pytest.approx(measured["recall"], abs=1e-6)
    summary = (tmp_path / "out" / "feed" / "calibrate" / "calibrate.md").read_text("utf-8")
    assert "over the story column story (every pair); every same-story pair of the corpus)" in (
        summary)
    assert "among the same-event pairs scoring at least" not in summary


def test_without_dates_or_labels_the_bound_or_a_decline_says_why(tmp_path):
    corpus, _ = _corpus(tmp_path, 1.0)
    undated = corpus.items.drop(columns="published_at")
    corpus = type(corpus)(**{**corpus.__dict__, "items": undated})
    cal = run_calibrate(corpus, "feed", tmp_path / "out", CalibrateConfig(**OPTS), echo=False)
    written = json.loads((tmp_path / "out" / "feed" / "calibration.json").read_text("utf-8"))
    assert written["decoys"] is None  # no dates, no listed pairs: no decoy evidence
    if cal.band is None:
        assert written["method"] == "declined" and written["recommended_threshold"] is None
    else:
        assert written["method"] == "bound"
        assert written["recommended_threshold"] == cal.recommended
    assert "No decoys apply (no dates and no listed pairs)" in written["evidence"]["note"]
    # Either way the next step is a labeling sheet drawn from the candidate pairs.
    sheet = pd.read_csv(tmp_path / "out" / "feed" / "calibrate" / "to_label.csv")
    assert len(sheet) == min(100, written["labels"]["candidate_pairs"])
    assert "newsdedup label" in written["evidence"]["next"]


def test_a_feed_without_candidate_pairs_is_calibrated_with_nothing_to_label(tmp_path):
    # Thirty titles share one 3-gram and nothing else: every pair scores about 0.04,
    # below the floor, and the bound's threshold ("just above the highest-scoring
    # pair") lies below the grid. This once stopped with "internal error: KeyError".
    rng = np.random.default_rng(5)
    syllables = [chr(0xAC00 + int(k)) for k in rng.choice(11172, size=450, replace=False)]
    words = ["".join(syllables[k:k + 3]) for k in range(0, 450, 3)]
    rows = [{"id": f"r{k}", "title": " ".join(["오늘의", *words[k * 5:(k + 1) * 5]])}
            for k in range(30)]
    path = tmp_path / "feed.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    cal = run_calibrate(load_corpus(path), "feed", tmp_path / "out", CalibrateConfig(**OPTS),
                        echo=False)
    written = json.loads((tmp_path / "out" / "feed" / "calibration.json").read_text("utf-8"))
    assert written["labels"]["candidate_pairs"] == 0
    assert written["recommended_threshold"] == cal.recommended
    assert written["method"] == "bound" and cal.recommended < written["labels"]["floor"]
    assert not (tmp_path / "out" / "feed" / "calibrate" / "to_label.csv").exists()
    assert "newsdedup label" not in (written["evidence"].get("next") or "")


def test_recalibrate_rereads_the_evidence_options(tmp_path):
    corpus, path = _corpus(tmp_path, 30.0)
    options = CalibrateConfig(**OPTS, evidence=EvidenceConfig(decoy_field="section",
                                                                precision=0.8,
                                                                window_days=2.0))
    # Named under the root, as recalibrate names it (its next step's labeling sheet).
    run_calibrate(corpus, "feed", tmp_path / "out", options, echo=False,
                  shown_root=tmp_path / "out")
    folder = tmp_path / "out" / "feed"
    before = {p.name: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    recalibrate("feed", path, tmp_path / "out")
    after = {p.name: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert before == after
    cal = json.loads(before["calibration.json"])
    assert cal["target_precision"] == 0.8
    assert cal["parameters"]["window_days"] == 2.0 and cal["window"]["reason"] == "given"
    assert "section" in cal["decoys"]["rule"]


def _answer(sheet_path, story: dict) -> None:
    """Label every empty row of a sheet from the story ids (equal: same)."""
    rows = pd.read_csv(sheet_path, dtype=str, keep_default_na=False)
    empty = rows["label"] == ""
    rows.loc[empty, "label"] = [("same" if story[a] == story[b] else "different")
                                for a, b in zip(rows.loc[empty, "id_i"], rows.loc[empty, "id_j"],
                                                strict=True)]
    rows.to_csv(sheet_path, index=False)


def test_the_labeling_loop_and_its_hold_out_measure_the_dedupe_they_recommend(tmp_path):
    corpus, path = _corpus(tmp_path, 30.0)
    story = dict(zip(corpus.items["id"], corpus.items["story"], strict=True))
    out, folder = tmp_path / "out", tmp_path / "out" / "feed"
    options = CalibrateConfig(**OPTS, evidence=EvidenceConfig(precision=0.8))
    run_calibrate(corpus, "feed", out, options, echo=False)
    sheet = folder / "calibrate" / "to_label.csv"
    labelled = tmp_path / "labelled.csv"
    for _ in range(3):  # label each batch, rerun with the sheet
        _answer(sheet, story)
        labelled.write_bytes(sheet.read_bytes())
        options = CalibrateConfig(**OPTS, evidence=EvidenceConfig(precision=0.8,
                                                                    labels=labelled))
        run_calibrate(corpus, "feed", out, options, echo=False)
    cal = json.loads((folder / "calibration.json").read_text("utf-8"))
    assert cal["method"] == "labels"
    assert cal["labels"]["labelled"] == len(pd.read_csv(labelled))
    curve = pd.read_csv(folder / "calibrate" / "precision_recall.csv")
    ok = curve[(curve["merged_pairs"] > 0) & (curve["precision_measured_low"] >= 0.8)]
    assert cal["recommended_threshold"] == pytest.approx(ok["threshold"].min())
    # The file builds the dedupe it measured: the merged pairs the curve says.
    config = DedupeConfig.from_calibration(folder / "calibration.json")
    assert config.window_days == cal["window"]["days"] and config.series is True
    sizes = np.bincount(dedupe(corpus.items, config).clustering.labels)
    row = curve[np.isclose(curve["threshold"], cal["recommended_threshold"])].iloc[0]
    assert row["merged_pairs"] == int((sizes * (sizes - 1) // 2).sum())
    # A hold-out: drawn where --holdout names it, disjoint from the loop's sheet, then read.
    holdout = tmp_path / "holdout.csv"
    options = CalibrateConfig(**OPTS, evidence=EvidenceConfig(precision=0.8, labels=labelled,
                                                                holdout=holdout,
                                                                holdout_size=30))
    run_calibrate(corpus, "feed", out, options, echo=False)
    drawn = pd.read_csv(holdout, dtype=str, keep_default_na=False)
    loop = pd.read_csv(sheet, dtype=str, keep_default_na=False)
    def key(f):
        return set(map(frozenset, zip(f["id_i"], f["id_j"], strict=True)))

    assert len(drawn) == 30 and not key(drawn) & key(loop)
    assert (drawn["batch"] == "0").all()
    _answer(holdout, story)
    run_calibrate(corpus, "feed", out, options, echo=False)
    cal = json.loads((folder / "calibration.json").read_text("utf-8"))
    assert cal["holdout"]["precision"] == cal["estimated_precision"]
    assert cal["holdout"]["loop_precision"]["basis"].startswith(
        f"{cal['labels']['labelled']} labelled pairs")
    assert cal["holdout"]["confirms"] == (cal["estimated_precision"]["low"] >= 0.8)


def test_full_adds_the_other_scorers_sweeps_and_the_calibration_is_unchanged(tmp_path):
    corpus, _ = _corpus(tmp_path, 30.0)
    run_calibrate(corpus, "full", tmp_path / "out", CalibrateConfig(**OPTS, extra=True),
                  echo=False)
    run_calibrate(corpus, "plain", tmp_path / "out", CalibrateConfig(**OPTS, extra=False),
                  echo=False)
    def read(k):
        return pd.read_csv(tmp_path / "out" / k / "calibrate" / "sweep.csv")

    assert {"idf-jaccard", "jaccard", "gated-dedupe"} <= set(read("full")["scorer"])
    assert set(read("plain")["scorer"]) == {"jaccard"}
    cal = {k: json.loads((tmp_path / "out" / k / "calibration.json").read_text("utf-8"))
           for k in ("full", "plain")}
    for key in ("recommended_threshold", "method", "estimated_precision", "window", "series"):
        assert cal["full"][key] == cal["plain"][key]


def test_large_corpus_samples_the_simulation_and_leaves_out_minhash(tmp_path, monkeypatch):
    from newsdedup.studies import cost

    monkeypatch.setattr(cost, "MINHASH_SWEEP_BUDGET", 0.0)  # as if the corpus were large
    corpus, _ = _corpus(tmp_path, 1.0)
    options = CalibrateConfig(**OPTS, simulation_items=20)
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
    from newsdedup.calibration import sweep_floor
    from newsdedup.cluster.greedy import greedy_clusters
    from newsdedup.runs.calibrate import calibration_order
    from newsdedup.score.jaccard import jaccard_matrix, upper_pairs
    from newsdedup.studies.measure import normalized_texts
    from newsdedup.text.shingle import shingle_matrix

    corpus, path = _corpus(tmp_path, 1.0)
    n = len(corpus.items)
    # As if the corpus were large: no minimum, and a budget of 2 pairs per item (the option).
    monkeypatch.setattr(sweep_floor, "SWEEP_MIN_PAIRS", 0)
    run_calibrate(corpus, "feed", tmp_path / "out",
                  CalibrateConfig(**OPTS, sweep_pairs_per_item=2), echo=False)
    folder = tmp_path / "out" / "feed" / "calibrate"
    params = json.loads((folder / "params.json").read_text(encoding="utf-8"))
    floor = params["sweep"]["floor"]
    assert floor["requested"] == 0.05 and floor["lowest"] > 0.05
    assert floor["budget_pairs"] == 2 * n and params["sweep"]["thresholds"][0] == floor["lowest"]
    assert floor["pairs_per_item"] == 2 and "(2 per item)" in floor["reason"]
    assert "Sweep floor" in (folder / "calibrate.md").read_text(encoding="utf-8")
    sweep = pd.read_csv(folder / "sweep.csv")
    assert sweep["threshold"].min() == pytest.approx(floor["lowest"])
    # Above the floor every figure is the dense one, and every item is in some group (the
    # sweep visits the items in id order).
    visited = calibration_order(corpus.items, corpus.dialect)
    assert visited["id"].tolist() == sorted(corpus.items["id"].tolist())
    m = jaccard_matrix(shingle_matrix(normalized_texts(visited), 4))
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
    from newsdedup.calibration import sweep_floor

    corpus, _ = _corpus(tmp_path, 1.0)
    monkeypatch.setattr(sweep_floor, "SWEEP_MIN_PAIRS", 0)  # as if the corpus were large
    run_calibrate(corpus, "with", tmp_path / "out", CalibrateConfig(**OPTS), echo=False)
    monkeypatch.setattr(sweep_floor, "FILTER_PAIRS_PER_ITEM", 1)
    run_calibrate(corpus, "without", tmp_path / "out", CalibrateConfig(**OPTS), echo=False)
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


def test_shuffling_the_records_changes_no_figure(tmp_path):
    corpus, path = _corpus(tmp_path, 30.0)
    shuffled = corpus.items.sample(frac=1.0, random_state=3).reset_index(drop=True)
    other = tmp_path / "shuffled.csv"
    shuffled.to_csv(other, index=False)
    out = tmp_path / "out"
    for name, file in (("a", path), ("b", other)):
        run_calibrate(load_corpus(file), name, out, CalibrateConfig(**OPTS), echo=False)
    def read(name, f):
        return (out / name / f).read_bytes()

    # Every table, the sweep's greedy clustering included: the calibration visits the
    # items in id order (only the published reading of the pinned archive keeps the file's).
    for table in ("precision_recall.csv", "strata.csv", "series.csv", "quantiles.csv",
                  "both_sided.csv", "one_sided.csv", "sweep.csv", "retention.csv"):
        assert read("a", f"calibrate/{table}") == read("b", f"calibrate/{table}"), table
    cal = {k: json.loads(read(k, "calibration.json")) for k in ("a", "b")}
    for key in ("recommended_threshold", "method", "estimated_precision", "estimated_recall",
                "simulated_recall", "window", "band", "upper_bound"):
        assert cal["a"][key] == cal["b"][key], key
    # The labeling sheet asks for the same pairs (ids, either order) in both.
    sheets = {k: pd.read_csv(out / k / "calibrate" / "to_label.csv") for k in ("a", "b")}
    pairs = {k: sorted(map(sorted, zip(s["id_i"], s["id_j"], strict=True)))
             for k, s in sheets.items()}
    assert pairs["a"] == pairs["b"]


def test_the_strata_stay_the_published_exact_pass_s_when_the_exact_key_splits_groups(
        tmp_path, monkeypatch):
    """Issue 28, item 5: grouping the exact pass by every script splits 與/野 headlines, but
    the strata a labelled sheet was drawn from must not move (the reference dedupe keeps
    the published exact pass); the merged pairs the curve counts do move."""
    corpus, path = _corpus(tmp_path, 1.0)
    items = corpus.items.copy()
    twins = items.drop_duplicates("story").head(12).copy()
    twins["title"] = ["野, " + t for t in twins["title"]]
    twins["id"] = [f"{i}-hanja" for i in twins["id"]]
    items["title"] = [("與, " + t) if i in set(twins["id"].str[:-6]) else t
                      for i, t in zip(items["id"], items["title"], strict=True)]
    hanja = tmp_path / "hanja.csv"
    pd.concat([items, twins], ignore_index=True).to_csv(hanja, index=False)
    out = tmp_path / "out"
    import newsdedup.runs.calibrate as runner
    published = runner.base_config
    run_calibrate(load_corpus(hanja), "every", out, CalibrateConfig(**OPTS), echo=False)
    monkeypatch.setattr(runner, "base_config",
                        lambda o: replace(published(o), exact_key="scheme"))
    run_calibrate(load_corpus(hanja), "scheme", out, CalibrateConfig(**OPTS), echo=False)
    # The strata and their sizes (what a sheet is checked against); where the next batch
    # is drawn follows the dedupe being calibrated, so "drawn" may differ.
    strata = {k: pd.read_csv(out / k / "calibrate" / "strata.csv").drop(
        columns=["drawn", "labelled"]) for k in ("every", "scheme")}
    pd.testing.assert_frame_equal(strata["every"], strata["scheme"])
    curves = {k: pd.read_csv(out / k / "calibrate" / "precision_recall.csv")
              for k in ("every", "scheme")}
    # The published exact pass merges the twelve 與/野 pairs at every threshold; the
    # default merges them nowhere above their near-pass score.
    top = curves["scheme"]["threshold"].max()
    at = {k: int(c.loc[np.isclose(c["threshold"], top), "merged_pairs"].iloc[0])
          for k, c in curves.items()}
    assert at["scheme"] - at["every"] >= 12


@pytest.mark.parametrize("window_days", [None, 2.0])
def test_calibration_reads_headlines_and_keep_criteria_once(tmp_path, monkeypatch, window_days):
    """Series, window and sweeps share one read of the rows; the reference sweep, whose
    exact key is its own, reads only its headlines again (a given window forces it)."""
    from collections import Counter

    import newsdedup.calibration.evidence as ev
    import newsdedup.cluster.dedupe as dd

    counts: Counter = Counter()

    def counted(real, name):
        return lambda *a, **k: counts.update([name]) or real(*a, **k)

    for module, name in ((dd, "headlines"), (ev, "headlines"), (dd, "keep_criteria")):
        monkeypatch.setattr(module, name, counted(getattr(module, name), name))
    inside: list = []
    real = ev._calibrated_dedupe

    def spy(*a, **k):
        before = Counter(counts)
        out = real(*a, **k)
        inside.append((counts - before, out.reference is not out.swept.partitions))
        return out

    monkeypatch.setattr(ev, "_calibrated_dedupe", spy)
    corpus, _ = _corpus(tmp_path, 30.0)
    run_calibrate(corpus, "reads", tmp_path / "out",
                  CalibrateConfig(**OPTS, evidence=EvidenceConfig(window_days=window_days)),
                  echo=False)
    [(read, reference)] = inside
    assert reference == (window_days is not None)
    assert read == Counter(headlines=1 + reference, keep_criteria=1)


def test_full_learns_the_series_once_and_every_sweep_is_the_one_learning_its_own(
        tmp_path, monkeypatch):
    """The gated sweep and the calibrated dedupe share one learned series, same figures."""
    import newsdedup.cluster.dedupe as dd
    from newsdedup.cluster.sweep import sweep_items_left
    from newsdedup.runs.calibrate import calibration_order

    corpus, path = _corpus(tmp_path, 30.0)
    rows = pd.read_csv(path).to_dict("records")
    for d in range(1, 21):  # a daily column of one source: a series the rules keep apart
        rows.append({"id": f"col-{d}", "title": f"[오늘의 운세] 7월 {d}일 띠별 운세 모음",
                     "story": f"col{d}", "section": "a",
                     "published_at": f"2024-01-{d:02d}T06:00:00+00:00"})
    pd.DataFrame(rows).to_csv(path, index=False)
    corpus = load_corpus(path)
    calls = []
    real = dd.learn_series
    monkeypatch.setattr(dd, "learn_series", lambda *a, **k: calls.append(1) or real(*a, **k))
    run_calibrate(corpus, "full", tmp_path / "out", CalibrateConfig(**OPTS, extra=True),
                  echo=False)
    assert len(calls) == 1
    cal = json.loads((tmp_path / "out" / "full" / "calibration.json").read_text("utf-8"))
    assert cal["series"]["found"] >= 1, cal["series"]
    run_calibrate(corpus, "plain", tmp_path / "out", CalibrateConfig(**OPTS, extra=False),
                  echo=False)
    plain = json.loads((tmp_path / "out" / "plain" / "calibration.json").read_text("utf-8"))
    for key in ("recommended_threshold", "method", "estimated_precision", "window", "series"):
        assert cal[key] == plain[key]
    sweep = pd.read_csv(tmp_path / "out" / "full" / "calibrate" / "sweep.csv")
    gated = sweep[sweep.scorer == "gated-dedupe"].reset_index(drop=True)
    alone = sweep_items_left(calibration_order(corpus.items, corpus.dialect),
                             gated["threshold"].tolist(), DedupeConfig())
    assert gated["items_left"].tolist() == alone["items_left"].tolist()
    assert gated["pairs"].tolist() == alone["pairs_at_or_above"].tolist()


def test_a_sheet_passed_before_it_is_labelled_is_said_to_hold_no_answer(tmp_path):
    # The loop's sheet given back unanswered: the calibration goes on without labels (the
    # decoys), and says so, where it had passed in silence.
    corpus, _ = _corpus(tmp_path, 30.0)
    out, said = tmp_path / "out", []
    run_calibrate(corpus, "feed", out, CalibrateConfig(**OPTS), echo=False)
    sheet = out / "feed" / "calibrate" / "to_label.csv"
    unanswered = tmp_path / "unanswered.csv"
    unanswered.write_bytes(sheet.read_bytes())
    options = CalibrateConfig(**OPTS, evidence=EvidenceConfig(labels=unanswered))
    run_calibrate(corpus, "feed", out, options, progress=said.append, echo=False)
    rows = len(pd.read_csv(unanswered))
    assert (f"warning: {unanswered} holds no answer yet ({rows} pairs, every label blank or "
            "skip), so this calibration reads no labels") in "\n".join(said)
    assert json.loads((out / "feed" / "calibration.json").read_text("utf-8"))["method"] != "labels"
    story = dict(zip(corpus.items["id"], corpus.items["story"], strict=True))
    _answer(unanswered, story)
    said.clear()
    run_calibrate(corpus, "feed", out, options, progress=said.append, echo=False)
    assert not any("holds no answer" in line for line in said)


def test_a_sheet_of_a_grown_feed_is_refused_saying_what_to_do(tmp_path):
    # A feed labelled yesterday and grown since: the new items move pairs between strata,
    # so the sheet is no sample of today's pairs. The refusal said "another corpus or
    # other settings", which a user rerunning the same feed could not act on.
    corpus, path = _corpus(tmp_path, 30.0)
    out = tmp_path / "out"
    run_calibrate(corpus, "feed", out, CalibrateConfig(**OPTS), echo=False)
    sheet = tmp_path / "labelled.csv"
    sheet.write_bytes((out / "feed" / "calibrate" / "to_label.csv").read_bytes())
    _answer(sheet, dict(zip(corpus.items["id"], corpus.items["story"], strict=True)))
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    grown_path = tmp_path / "grown.csv"
    pd.concat([frame, frame.assign(id="new-" + frame["id"],
                                   title=frame["title"].str.replace("lead", "lede"))]
              ).to_csv(grown_path, index=False)
    grown = load_corpus(grown_path)
    options = CalibrateConfig(**OPTS, evidence=EvidenceConfig(labels=sheet))
    with pytest.raises(SheetError) as err:
        run_calibrate(grown, "grown", out, options, echo=False)
    assert err.value.path == sheet and err.value.line >= 2
    assert err.value.reason.endswith(OTHER_DRAW)
    assert "another version of this one" in OTHER_DRAW and "--calibration" in OTHER_DRAW
    # The feed it was drawn from reads it.
    run_calibrate(corpus, "feed", out, options, echo=False)
    assert json.loads((out / "feed" / "calibration.json").read_text("utf-8"))["method"] == "labels"


SUBJECTS = ("Crown Prince", "Central Bank", "Aramco", "Dubai Municipality", "Statistics Authority",
            "Emirates Airline", "Ministry of Foreign Affairs", "Egyptian Government",
            "Telecom Company", "Ministry of Education", "Egyptian Exchange", "Ministry of Finance",
            "Police", "Ministry of Health", "Railway Authority")
ACTIONS = ("announces a new stimulus package", "holds interest rates", "posts record profits",
           "publishes inflation data", "warns of a severe heat wave", "launches a new air route",
           "condemns the attack on the embassy", "raises fuel prices",
           "signs a partnership agreement", "changes exam dates", "falls sharply",
           "issues international bonds", "busts a fraud ring",
           "expands the vaccination campaign", "opens a new station")


def _templated_feed(tmp_path, seed: int):
    """80 events "<subject> <action>" over 30 days from four outlets, 30 copied by four
    others within hours: different subjects doing one action are different events, and
    most of them are pairs of two outlets."""
    rnd = random.Random(seed)
    combos = list(itertools.product(range(len(SUBJECTS)), range(len(ACTIONS))))
    rnd.shuffle(combos)
    start = datetime(2023, 3, 1)
    rows = []
    for k, (s, a) in enumerate(combos[:80]):
        at = start + timedelta(days=rnd.randrange(30), minutes=rnd.randrange(1440))
        rows.append({"id": f"b{k}", "title": f"{SUBJECTS[s]} {ACTIONS[a]}",
                     "source": f"src{rnd.randrange(4)}", "published_at": at, "story": f"b{k}"})
    for c in range(30):
        at = rows[c]["published_at"] + timedelta(hours=rnd.randrange(1, 6))
        suffix = rnd.choice([" - Reuters", " - Al Jazeera", " - Al Arabiya"])
        rows.append({"id": f"c{c}", "title": rows[c]["title"] + suffix,
                     "source": f"src{rnd.randrange(4, 8)}", "published_at": at,
                     "story": rows[c]["story"]})
    rnd.shuffle(rows)
    path = tmp_path / f"templated{seed}.csv"
    pd.DataFrame([r | {"published_at": r["published_at"].isoformat() + "+00:00"}
                  for r in rows]).to_csv(path, index=False)
    return load_corpus(path)


@pytest.mark.parametrize("seed", range(4))
def test_the_decoy_bound_holds_against_the_truth_on_a_feed_of_shared_templates(tmp_path, seed):
    # The decoys' precision is a lower bound: at every threshold the calibrated dedupe's
    # true precision (from the planted events) is at or above it. Bounded by the
    # same-source decoys alone, and one wrong pair per wrong join, seed 0 fell under it.
    corpus = _templated_feed(tmp_path, seed)
    out = tmp_path / "out"
    run_calibrate(corpus, "feed", out, CalibrateConfig(**OPTS, evidence=EvidenceConfig(
        precision=0.75)), echo=False)
    cal = json.loads((out / "feed" / "calibration.json").read_text("utf-8"))
    assert cal["decoys"]["check"]["passed"]  # the decoys are read: the test is not vacuous
    curve = pd.read_csv(out / "feed" / "calibrate" / "precision_recall.csv")
    stated = curve[curve["decoy_precision_low"].notna() & (curve["merged_pairs"] > 0)]
    assert len(stated) > 20
    # The calibrated settings, whether or not a threshold reached the target (the curve
    # is the dedupe at every threshold either way).
    recorded = out / "feed" / "settings.json"
    recorded.write_text(json.dumps(cal | {"recommended_threshold": 0.5, "rationale": "test"}),
                        "utf-8")
    calibrated = DedupeConfig.from_calibration(recorded)
    for row in stated.itertuples():
        config = replace(calibrated, threshold=float(row.threshold))
        truth = pairwise_scores(dedupe(corpus.items, config).clustering.labels,
                                corpus.items["story"].tolist())
        assert truth["merged_pairs"] == row.merged_pairs  # the dedupe the curve measured
        assert truth["precision"] >= row.decoy_precision_low - 1e-12, row.threshold


# --- the next step once a threshold is recommended ---------------------------------------

def _choice(method="labels", threshold=0.44, **extra):
    return {"method": method, "threshold": threshold, "next": "label the 50 pairs of S",
            **extra}


RERUN = ["newsdedup", "calibrate", "feeds/x.csv", "--columns", "id=ID,title=T", "--precision",
         "0.8", "--name", "x"]


def test_a_threshold_the_loop_chose_is_first_measured_on_a_hold_out_then_applied(tmp_path):
    from newsdedup.cli import parse
    from newsdedup.runs.calibrate import with_dedupe_step

    labels = tmp_path / "x.csv"
    labels.write_text("id_i,id_j,label\n", "utf-8")  # --labels must name a file
    step = with_dedupe_step(_choice(), labels, None, RERUN, Path("feeds/x.csv"),
                            Path("results/x/calibration.json"))["next"]
    check, rest = step.split(" draws a hold-out sheet to ", 1)
    assert check.startswith("measure 0.44 on pairs that did not choose it: ")
    held = tmp_path / "x.holdout.csv"
    assert (f"`newsdedup calibrate feeds/x.csv --columns id=ID,title=T --precision 0.8 --name x "
            f"--labels {labels} --holdout {held}`") in check
    assert rest.endswith("; or, to narrow the intervals, label the 50 pairs of S")
    dedupe = rest.split("then dedupe with 0.44: `", 1)[1].split("`", 1)[0]
    assert dedupe == ("newsdedup dedupe feeds/x.csv --columns id=ID,title=T --name x "
                      "--calibration results/x/calibration.json")
    # Both commands are ones the command line accepts, reading the same corpus.
    args = parse(shlex.split(dedupe)[1:])
    assert args.calibration == Path("results/x/calibration.json")
    assert args.corpus == Path("feeds/x.csv") and args.columns == {"id": "ID", "title": "T"}
    again = parse(shlex.split(check.split("`")[1])[1:])
    assert again.holdout == held and again.labels == labels and again.precision == 0.8


def test_a_confirmed_threshold_is_applied_and_an_unconfirmed_one_left_to_the_note():
    from newsdedup.runs.calibrate import with_dedupe_step

    where = Path("results/x/calibration.json")
    held = [*RERUN, "--holdout", "h.csv"]
    ok = with_dedupe_step(_choice(holdout_confirms=True), Path("s.csv"), Path("h.csv"), held,
                          Path("feeds/x.csv"), where)["next"]
    assert ok.startswith("dedupe with 0.44: `newsdedup dedupe feeds/x.csv ")
    assert "--holdout" not in ok.split("`")[1]
    not_ok = _choice(holdout_confirms=False)
    assert with_dedupe_step(not_ok, Path("s.csv"), Path("h.csv"), held, Path("feeds/x.csv"),
                            where) == not_ok
    # Without labels (decoys, the bound) there is nothing to hold out: applied at once.
    decoys = with_dedupe_step(_choice("decoys", 0.6, next=None), None, None, RERUN,
                              Path("feeds/x.csv"), where)["next"]
    assert decoys.startswith("dedupe with 0.60: ") and "; or" not in decoys


@pytest.mark.parametrize("choice, rerun", [
    (_choice(threshold=None), RERUN),          # declined: the labels' step stands
    (_choice(), ["newsdedup", "run", "feeds/x.csv"]),  # run dedupes with it itself
    (_choice(), None),                         # called from Python: no command line
])
def test_no_dedupe_step_without_a_threshold_or_a_calibrate_command(choice, rerun):
    from newsdedup.runs.calibrate import with_dedupe_step

    assert with_dedupe_step(choice, Path("s.csv"), None, rerun, Path("feeds/x.csv"),
                            Path("c.json")) == choice


def test_both_hold_outs_may_be_written_where_the_user_names_them(tmp_path):
    """``--holdout`` and ``--model-holdout`` each name a file outside ``--out`` (data/gold/):
    both folders are the user's to write in (the model sheet's design goes beside it)."""
    from newsdedup.runs.calibrate import ModelConfig, named_sheets

    options = CalibrateConfig(evidence=EvidenceConfig(holdout=tmp_path / "a" / "h.csv"),
                              model=ModelConfig(holdout=tmp_path / "b" / "m.csv"))
    assert named_sheets({"options": options}) == [tmp_path / "a" / "h.csv",
                                                  tmp_path / "b" / "m.csv"]
    assert named_sheets({"options": CalibrateConfig()}) == [None, None]

"""The pair model's calibration step (newsdedup.calibration.model), through ``calibrate --model``.

The corpus's story ids label every pair, so what the step estimates from its sheets is
checked against the truth over all candidate pairs. The sentence encoder is replaced by
a bag-of-words vector (the step's wiring is under test, not the encoder's quality).
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pandas as pd
import pytest

import newsdedup.cluster.modelled as modelled_step
import newsdedup.runs.calibrate as runner
from newsdedup.calibration.evidence import EvidenceConfig
from newsdedup.calibration.model import recommended_cut, reliability
from newsdedup.calibration.model_sample import MODEL_EDGES, design_path
from newsdedup.cluster.modelled import ModelSpec, model_config, model_dedupe
from newsdedup.corpus.load import load_corpus
from newsdedup.runs.calibrate import CalibrateConfig, ModelConfig, run_calibrate
from newsdedup.score.pair_model import PairModel, pair_features

WORDS = ("market", "board", "vote", "plan", "city", "river", "school", "budget", "court", "storm",
         "bank", "tech", "game", "film", "health", "energy", "rail", "port", "farm", "water")


def bag_of_words(texts, **_kw) -> np.ndarray:
    """A deterministic stand-in for a sentence encoder: hashed words, L2-normalized."""
    out = np.zeros((len(texts), 64), dtype=np.float32)
    for r, text in enumerate(texts):
        for w in text.lower().split():
            out[r, int(hashlib.md5(w.encode()).hexdigest(), 16) % 64] += 1.0
    norm = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(norm > 0, norm, 1.0)


def _corpus(tmp_path):
    """80 stories, each told 1-4 times in other words by other outlets within hours."""
    rng = np.random.default_rng(5)
    rows = []
    for s in range(80):
        base = [f"s{s % 25}lead", *rng.choice(WORDS, 8)]
        start = pd.Timestamp("2024-01-01", tz="UTC") + pd.Timedelta(days=float(rng.uniform(0, 20)))
        for k in range(int(rng.integers(1, 5))):
            words = list(base)
            for _ in range(int(rng.integers(0, 4)) if k else 0):
                words[int(rng.integers(1, len(words)))] = str(rng.choice(WORDS))
            rows.append({"id": f"{s}-{k}", "title": " ".join(words), "story": f"st{s}",
                         "source": f"outlet{k}",
                         "published_at": (start + pd.Timedelta(hours=float(k * rng.uniform(0, 5))))
                         .isoformat()})
    path = tmp_path / "feed.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _answer(sheet, story):
    rows = pd.read_csv(sheet, dtype=str, keep_default_na=False)
    empty = rows["label"] == ""
    rows.loc[empty, "label"] = ["same" if story[a] == story[b] else "different"
                                for a, b in zip(rows.loc[empty, "id_i"], rows.loc[empty, "id_j"],
                                                strict=True)]
    rows.to_csv(sheet, index=False)


@pytest.fixture(scope="module")
def modelled(tmp_path_factory):
    """The corpus calibrated with a labelled sheet and a labelled hold-out, and --model."""
    tmp = tmp_path_factory.mktemp("model")
    path = _corpus(tmp)
    corpus = load_corpus(path)
    story = dict(zip(corpus.items["id"], corpus.items["story"], strict=True))
    out, folder = tmp / "out", tmp / "out" / "feed"
    opts = dict(trials=2, fractions=(0.9, 0.6), min_words=5, extra=False)
    seen = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(modelled_step, "embed", bag_of_words)
        original = runner.model_evidence

        def keep(*args, **kwargs):
            seen["items"], seen["pop"] = args[0], args[1]
            seen["evidence"] = original(*args, **kwargs)
            return seen["evidence"]

        mp.setattr(runner, "model_evidence", keep)
        run_calibrate(corpus, "feed", out, CalibrateConfig(**opts), echo=False)
        labels, holdout = tmp / "labels.csv", tmp / "holdout.csv"
        labels.write_bytes((folder / "calibrate" / "to_label.csv").read_bytes())
        _answer(labels, story)
        evidence = EvidenceConfig(labels=labels, holdout=holdout, holdout_size=60)
        run_calibrate(corpus, "feed", out, CalibrateConfig(**opts, evidence=evidence),
                      echo=False)  # draws the hold-out
        _answer(holdout, story)
        run_calibrate(corpus, "feed", out, CalibrateConfig(
            **opts, evidence=evidence, model=ModelConfig(cache_root=None)), echo=False)
        plain = dict(seen)
        # Then the model's hold-out, into another results root: drawn, answered, read.
        sheet = tmp / "model.csv"
        held_options = CalibrateConfig(**opts, evidence=evidence,
                                       model=ModelConfig(cache_root=None, holdout=sheet))
        run_calibrate(corpus, "feed", tmp / "out2", held_options, echo=False)
        drawn = seen["evidence"]
        _answer(sheet, story)
        run_calibrate(corpus, "feed", tmp / "out2", held_options, echo=False)
        plain["model_holdout"] = (tmp / "out2" / "feed", sheet, drawn, seen["evidence"])
    return folder, plain, story


def test_the_model_file_and_tables_are_written_and_named(modelled):
    folder, seen, _ = modelled
    cal = json.loads((folder / "calibration.json").read_text("utf-8"))
    rec = cal["pair_model"]
    assert rec["file"] == "calibrate/pair_model.json"
    model = PairModel.from_record(json.loads((folder / rec["file"]).read_text("utf-8")), "x")
    assert model == seen["evidence"].model
    for table in ("pair_model.csv", "pair_model_pairs.csv", "pair_model_character.csv",
                  "pair_model_reliability.csv"):
        assert (folder / "calibrate" / table).is_file(), table
    assert "Pair model" in (folder / "calibrate" / "calibrate.md").read_text("utf-8")


def test_the_curves_measure_what_dedupe_runs(modelled):
    folder, seen, _ = modelled
    pop, items = seen["pop"], seen["items"]
    cal = json.loads((folder / "calibration.json").read_text("utf-8"))["pair_model"]
    # The probabilities again, from the file's parameters and the pairs' features.
    model = PairModel.from_record(json.loads((folder / cal["file"]).read_text("utf-8")), "x")
    prob = model.probability(_features(seen))
    pairs = pd.read_csv(folder / "calibrate" / "pair_model_pairs.csv")
    for cut, merged in zip(pairs["cut"], pairs["merged_pairs"], strict=True):
        assert merged == int((prob >= cut).sum()), cut
    # Each cut's row counts the pairs that the dedupe at that cut merges.
    assert cal["link"] == "average"  # the groups the curve measured, and dedupe runs
    spec = ModelSpec(model, None, cal["floor"], cal["ngram"], cal["scheme"], cal["embedding"],
                     link=cal["link"])
    groups = pd.read_csv(folder / "calibrate" / "pair_model.csv")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(modelled_step, "embed", bag_of_words)
        for row in groups.iloc[::4].itertuples(index=False):
            labels = model_dedupe(items, spec, cut=row.cut).clustering.labels
            assert row.largest_group == np.bincount(labels).max(), row.cut
            assert row.merged_pairs == int(pop.merged(labels).sum()), row.cut
            assert row.items_left == labels.max() + 1, row.cut


def test_the_estimates_hold_the_truth_of_the_story_ids(modelled):
    folder, seen, story = modelled
    pop, items, ev = seen["pop"], seen["items"], seen["evidence"]
    ids = items["id"].tolist()
    same = np.array([story[ids[a]] == story[ids[b]] for a, b in zip(pop.i, pop.j, strict=True)])
    pairs = pd.read_csv(folder / "calibrate" / "pair_model_pairs.csv")
    probs = ev.model.probability(_features(seen))
    covered = checked = 0
    for row in pairs.itertuples(index=False):
        merged = probs >= row.cut
        if merged.sum() < 5:
            continue
        true_p = same[merged].mean()
        true_r = (same & merged).sum() / same.sum()
        checked += 2
        covered += row.precision_holdout_low - 1e-9 <= true_p <= row.precision_holdout_high + 1e-9
        covered += row.recall_holdout_low - 1e-9 <= true_r <= row.recall_holdout_high + 1e-9
    assert checked >= 10
    assert covered >= 0.8 * checked  # 95% intervals, correlated across cuts


def test_the_models_holdout_is_drawn_then_read_with_the_holdout(modelled):
    _, seen, story = modelled
    folder, sheet, drawn, read = seen["model_holdout"]
    assert len(drawn.model_sheet) and drawn.design is not None
    rows = pd.read_csv(sheet, dtype=str, keep_default_na=False)
    assert len(rows) == len(drawn.model_sheet) <= 60
    assert json.loads(design_path(sheet).read_text("utf-8"))["model"] == drawn.model.record()
    # Drawn only where the design model may merge, among pairs no other sheet drew.
    pop = seen["pop"]
    ids = {x: k for k, x in enumerate(pop.ids)}
    at = pop.find(np.array([ids[x] for x in rows["id_i"]]),
                  np.array([ids[x] for x in rows["id_j"]]))
    assert np.all(drawn.model.probability(_features(seen)[at]) >= MODEL_EDGES[0])
    tmp = sheet.parent
    for other in ("labels.csv", "holdout.csv"):
        taken = pd.read_csv(tmp / other, dtype=str)
        assert not set(zip(taken["id_i"], taken["id_j"], strict=True)) & set(
            zip(rows["id_i"], rows["id_j"], strict=True)), other
    # Read back: both hold-outs measure the model, and the files say so.
    assert read.model_labelled == len(rows) and read.design is None
    cal = json.loads((folder / "calibration.json").read_text("utf-8"))["pair_model"]
    assert cal["model_holdout"] == {"sheet": str(sheet), "labelled": len(rows)}
    assert "model's hold-out" in cal["versus"]["basis"]
    # Its pair decisions' intervals hold the truth over the candidate pairs.
    same = np.array([story[pop.ids[a]] == story[pop.ids[b]]
                     for a, b in zip(pop.i, pop.j, strict=True)])
    probs = read.model.probability(_features(seen))
    covered = checked = 0
    for row in read.pairs.itertuples(index=False):
        merged = probs >= row.cut
        if merged.sum() < 5:
            continue
        checked += 1
        covered += row.precision_holdout_low - 1e-9 <= same[merged].mean() <= (
            row.precision_holdout_high + 1e-9)
    assert checked >= 5 and covered >= 0.8 * checked


def _features(seen):
    """The features of the population's pairs, computed the step's way."""
    items, pop = seen["items"], seen["pop"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(modelled_step, "embed", bag_of_words)
        sig = modelled_step.item_signals(items, model_config(4, "hangul-alnum"), "use", None)
    return pair_features(sig, pop.i, pop.j, pop.score)


def _curve(**columns):
    base = {"cut": [0.5, 0.7, 0.9], "precision": [0.8, 0.92, 0.95],
            "precision_low": [0.6, 0.7, 0.8], "precision_holdout_low": [0.7, 0.91, 0.93],
            "recall_holdout": [0.5, 0.4, 0.2]}
    return pd.DataFrame(base | columns)


def test_the_loop_recommends_first_then_the_hold_out_confirms_the_loops_proposal():
    # The loop's own interval reaches the target at 0.9: its rule comes first.
    cut, why = recommended_cut(_curve(precision_low=[0.6, 0.7, 0.91]), 0.9)
    assert cut == 0.9 and why.startswith("the loop's labels")
    # Else the loop's point estimate proposes 0.7, and the hold-out confirms it...
    cut, why = recommended_cut(_curve(), 0.9, threshold_recall=0.3)
    assert cut == 0.7 and "confirmed by the hold-out" in why
    # ... or declines it: the hold-out never picks another cut (0.9 would pass).
    cut, why = recommended_cut(_curve(precision_holdout_low=[0.7, 0.88, 0.93]), 0.9)
    assert cut is None and "does not reach it" in why
    # Confirmed, but finding no more than the calibrated dedupe: the threshold stays.
    cut, why = recommended_cut(_curve(), 0.9, threshold_recall=0.4)
    assert cut is None and "no more same-event pairs" in why
    # Without a hold-out only the loop's interval can recommend.
    assert recommended_cut(_curve().drop(columns="precision_holdout_low"), 0.9)[0] is None


def test_reliability_bins_judge_only_full_bins():
    r = reliability(np.r_[np.full(30, 0.15), np.full(25, 0.85), [0.5]],
                    np.r_[np.zeros(27), np.ones(3), np.ones(20), np.zeros(5), [1]],
                    np.ones(56))
    assert r["bin_lo"].tolist() == [0.1, 0.5, 0.8]
    assert r["pairs"].tolist() == [30, 1, 25]
    assert r["observed"].tolist() == pytest.approx([0.1, 1.0, 0.8])
    assert r["within"].tolist() == [True, pd.NA, True]
    skewed = reliability(np.full(20, 0.9), np.r_[np.ones(10), np.zeros(10)], np.ones(20))
    assert skewed["within"].tolist() == [False]


def test_model_without_labels_is_refused_in_one_line(tmp_path):
    corpus = load_corpus(_corpus(tmp_path))
    with pytest.raises(ValueError, match="--model fits the pair model from labelled pairs"):
        run_calibrate(corpus, "feed", tmp_path / "out",
                      CalibrateConfig(model=ModelConfig()), echo=False)


def test_a_model_holdout_without_a_holdout_is_refused_in_one_line(tmp_path):
    corpus = load_corpus(_corpus(tmp_path))
    sheet = tmp_path / "labels.csv"
    sheet.write_text("id_i,id_j,label,stratum,stratum_size\n", "utf-8")
    options = CalibrateConfig(evidence=EvidenceConfig(labels=sheet),
                              model=ModelConfig(holdout=tmp_path / "model.csv"))
    with pytest.raises(ValueError, match="--model-holdout is drawn beside a labelled hold-out"):
        run_calibrate(corpus, "feed", tmp_path / "out", options, echo=False)
    assert not (tmp_path / "model.csv").exists()


def test_run_dedupes_by_the_model_when_the_calibration_recommends_a_cut(modelled, tmp_path):
    from newsdedup.runs.pipeline import run_all

    folder, _, _ = modelled
    tmp = folder.parent.parent
    # A low target, so that the loop's labels certify a cut on this small corpus.
    evidence = EvidenceConfig(labels=tmp / "labels.csv", holdout=tmp / "holdout.csv",
                              precision=0.5)
    options = CalibrateConfig(trials=2, fractions=(0.9, 0.6), min_words=5, evidence=evidence,
                              model=ModelConfig(cache_root=None))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(modelled_step, "embed", bag_of_words)
        run_all(load_corpus(tmp / "feed.csv"), "feed", tmp_path, calibrate_options=options,
                echo=False)
    cal = json.loads((tmp_path / "feed" / "calibration.json").read_text("utf-8"))
    assert cal["pair_model"]["recommended_cut"] is not None
    meta = json.loads((tmp_path / "feed" / "dedupe" / "dedupe.json").read_text("utf-8"))
    assert meta["pair_model"]["cut"] == cal["pair_model"]["recommended_cut"]
    assert (tmp_path / "feed" / "report" / "report.md").is_file()

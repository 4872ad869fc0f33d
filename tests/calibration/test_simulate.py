"""Planted corpora and the labeling loop on them (newsdedup.calibration.simulate)."""

import functools
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import newsdedup.calibration.evidence as evidence_module
import newsdedup.calibration.simulate as simulate
from newsdedup.calibration.estimate import label_estimates
from newsdedup.calibration.evidence import EvidenceConfig
from newsdedup.calibration.population import build_population
from newsdedup.calibration.simulate import (
    answer_sheet,
    coverage_study,
    holdout_run,
    planted_corpus,
    run_loop,
    true_scores,
)
from newsdedup.cluster.dedupe import DedupeConfig
from newsdedup.score.jaccard import PairScores

DAY = 86400.0


def synthetic_pool(size, seed=0):
    """Unique headlines of five to nine random lowercase words (no commas)."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    vocab = ["".join(rng.choice(letters, int(rng.integers(4, 9)))) for _ in range(3000)]
    pool = [" ".join(rng.choice(vocab, int(rng.integers(5, 10)))) for _ in range(size)]
    return list(dict.fromkeys(pool))


@functools.cache
def planted(seed=0, events=600):
    return planted_corpus(synthetic_pool(events + 200), seed, events=events)


def frame(c):
    t = pd.to_datetime(c.items["published_at"]).map(pd.Timestamp.timestamp).to_numpy()
    return c.items.assign(event=c.event, kind=c.kind, t=t)


def blocks(rows):
    """Consecutive rows cut where the source changes (planted series alternate sources)."""
    cut = (rows["source"] != rows["source"].shift()).cumsum()
    return [g for _, g in rows.groupby(cut, sort=False)]


def is_subsequence(small, big):
    it = iter(big)
    return all(w in it for w in small)


@pytest.fixture
def fewer_draws(monkeypatch):
    """The calibration's posterior draws cut to 200 (the loop's speed, not its logic)."""
    monkeypatch.setattr(evidence_module, "label_estimates",
                        functools.partial(label_estimates, draws=200))


# --- planted_corpus: its truth is what the docstring says ---------------------------------

def test_items_have_the_documented_columns_and_unique_ids():
    c = planted()
    assert list(c.items.columns) == ["id", "title", "summary", "source", "published_at"]
    assert c.items["id"].is_unique
    assert (c.items["summary"] == "").all()
    assert set(c.items["source"]) <= {"a", "b", "c"}
    assert len(c.event) == len(c.kind) == len(c.items)
    assert set(c.kind) == {"event", "rewrite", "copy", "series", "template", "lookalike"}


def test_events_are_distinct_pool_headlines_numbered_in_order():
    pool = synthetic_pool(800)
    f = frame(planted())
    ev = f[f["kind"] == "event"]
    assert ev["event"].tolist() == list(range(600))
    assert ev["title"].is_unique and set(ev["title"]) <= set(pool)
    assert ev["t"].min() >= pd.Timestamp("2024-01-01").timestamp()
    assert ev["t"].max() < pd.Timestamp("2024-01-15").timestamp()  # 14 days


def test_rewrites_and_copies_share_their_events_id_and_follow_it():
    f = frame(planted())
    ev = f[f["kind"] == "event"].set_index("event")
    for kind in ("rewrite", "copy"):
        rows = f[f["kind"] == kind]
        assert len(rows) and rows["event"].isin(ev.index).all()
        base = ev.loc[rows["event"]]
        gap = rows["t"].to_numpy() - base["t"].to_numpy()
        if kind == "copy":
            assert (rows["title"].to_numpy() == base["title"].to_numpy()).all()
            assert (rows["source"].to_numpy() == base["source"].to_numpy()).all()
            assert (rows["published_at"].to_numpy() == base["published_at"].to_numpy()).all()
        else:
            assert gap.min() >= -1 and gap.max() <= DAY / 2 + 1  # within 12 hours after
            for title, original in zip(rows["title"], base["title"], strict=True):
                words, full = title.split(), original.split()
                assert len(words) >= 2 and is_subsequence(words, full)


def test_a_third_get_one_to_three_rewrites_and_one_in_twenty_a_copy():
    f = frame(planted())
    rewrites = f[f["kind"] == "rewrite"].groupby("event").size()
    assert rewrites.between(1, 3).all()
    # 600 events: the share with rewrites has sd 0.019 around 1/3, copies sd 5.3 around 30.
    assert len(rewrites) / 600 == pytest.approx(1 / 3, abs=0.08)
    assert 10 <= (f["kind"] == "copy").sum() <= 55


def test_series_keep_one_source_change_one_position_and_step_one_day():
    f = frame(planted())
    found = blocks(f[f["kind"] == "series"])
    assert len(found) == 8
    for b in found:
        assert 5 <= len(b) <= 10 and b["source"].nunique() == 1
        assert np.all(np.abs(np.diff(b["t"].to_numpy()) - DAY) <= 1)
        words = [t.split() for t in b["title"]]
        assert len({len(w) for w in words}) == 1
        varying = [p for p in range(len(words[0])) if len({w[p] for w in words}) > 1]
        assert len(varying) <= 1


def test_templates_share_a_four_word_tail_after_a_changing_first_word():
    f = frame(planted())
    found = blocks(f[f["kind"] == "template"])
    assert len(found) == 3
    for b in found:
        assert 15 <= len(b) <= 29 and b["source"].nunique() == 1
        words = [t.split() for t in b["title"]]
        assert all(len(w) == 5 and w[0].endswith(",") for w in words)
        assert len({tuple(w[1:]) for w in words}) == 1


def test_lookalikes_copy_an_events_first_word_one_to_five_days_away():
    f = frame(planted())
    ev = f[f["kind"] == "event"]
    looks = f[f["kind"] == "lookalike"]
    assert len(looks) == 40  # every synthetic headline has at least three words
    for title, t in zip(looks["title"], looks["t"], strict=True):
        words = title.split()
        gap = np.abs(ev["t"].to_numpy() - t)
        near = ev[(gap >= DAY - 1) & (gap <= 5 * DAY + 1)
                  & (ev["title"].str.split().str[0] == words[0])
                  & (ev["title"].str.split().str.len() == len(words))]
        assert len(near), title


def test_planted_series_templates_and_lookalikes_are_each_their_own_event():
    f = frame(planted())
    own = f[f["kind"].isin(["series", "template", "lookalike"])]
    assert own["event"].is_unique
    assert not own["event"].isin(f.loc[~f.index.isin(own.index), "event"]).any()
    assert own["event"].min() == 600


def test_same_seed_same_corpus_other_seed_another():
    pool = synthetic_pool(400)
    a, b = planted_corpus(pool, 3, events=200), planted_corpus(pool, 3, events=200)
    c = planted_corpus(pool, 4, events=200)
    pd.testing.assert_frame_equal(a.items, b.items)
    assert (a.event == b.event).all() and (a.kind == b.kind).all()
    assert not a.items["title"].equals(c.items["title"])


def test_rewrites_come_from_any_source_their_events_own_too():
    # As the docstring says: an outlet rewrites its own story too (an update), so the
    # strata of same and different source both hold duplicates.
    f = frame(planted())
    source = f[f["kind"] == "event"].set_index("event")["source"]
    rows = f[f["kind"] == "rewrite"]
    same = rows["source"].to_numpy() == source.loc[rows["event"]].to_numpy()
    assert same.any() and not same.all()


# --- answer_sheet and true_scores ---------------------------------------------------------

def test_answer_sheet_fills_only_empty_labels_up_to_the_limit():
    rows = pd.DataFrame({"id_i": ["a", "a", "b", "c"], "id_j": ["b", "c", "c", "d"],
                         "label": ["skip", "", "", ""]})
    truth = {"a": 1, "b": 1, "c": 2, "d": 2}
    assert answer_sheet(rows, truth)["label"].tolist() == ["skip", "different", "different",
                                                           "same"]
    assert answer_sheet(rows, truth, limit=1)["label"].tolist() == ["skip", "different", "",
                                                                    ""]
    assert answer_sheet(rows, truth, limit=0)["label"].tolist() == ["skip", "", "", ""]
    assert answer_sheet(rows, truth, limit=-3)["label"].tolist() == ["skip", "", "", ""]
    assert rows["label"].tolist() == ["skip", "", "", ""]  # the input is left alone


def test_true_scores_count_pairs_of_the_population_by_hand():
    # Rows 0..5; the population holds 7 of the 15 pairs.
    pairs = [(0, 1), (0, 2), (1, 2), (2, 3), (3, 4), (3, 5), (4, 5)]
    i, j = (np.array(x) for x in zip(*pairs, strict=True))
    pop = build_population(PairScores(i, j, np.full(len(pairs), 0.5)), None, np.zeros(6),
                           list("abcdef"), 0.1)
    ev = SimpleNamespace(population=pop)
    labels = np.array([0, 0, 0, 1, 1, 2])  # merges (0,1), (0,2), (1,2), (3,4) in U
    event = np.array([7, 7, 8, 9, 9, 9])  # same: (0,1), (3,4), (3,5), (4,5) in U
    precision, recall = true_scores(ev, labels, event)
    assert precision == pytest.approx(2 / 4) and recall == pytest.approx(2 / 4)
    p, r = true_scores(ev, np.arange(6), event)
    assert np.isnan(p) and r == 0.0


# --- run_loop and holdout_run with a scripted calibration ---------------------------------

class Scripted:
    """A calibration that offers the next `batch` unlabelled pairs of a fixed list."""

    def __init__(self, pairs, batch):
        self.pairs, self.batch, self.calls = pairs, batch, []

    def __call__(self, items, options, sheet_path):
        done = (pd.read_csv(options.labels, keep_default_na=False)
                if options.labels is not None else pd.DataFrame(columns=["id_i", "id_j",
                                                                         "label"]))
        self.calls.append((options, len(done)))
        have = set(zip(done["id_i"], done["id_j"], strict=True))
        fresh = [p for p in self.pairs if p not in have][:self.batch]
        sheet = pd.concat([done[["id_i", "id_j", "label"]],
                           pd.DataFrame({"id_i": [a for a, _ in fresh],
                                         "id_j": [b for _, b in fresh], "label": ""})],
                          ignore_index=True)
        return SimpleNamespace(sheet=sheet, labelled=int((sheet["label"] != "").sum()),
                               holdout=pd.DataFrame(), choice={"threshold": None})


def scripted_truth(n=10):
    ids = [f"x{k}" for k in range(n)]
    truth = {x: k // 3 for k, x in enumerate(ids)}
    pairs = [(ids[a], ids[b]) for a in range(n) for b in range(a + 1, n)]
    return ids, truth, pairs


def test_run_loop_labels_batch_after_batch_and_stops_at_the_budget(tmp_path):
    _, truth, pairs = scripted_truth()
    calib = Scripted(pairs, batch=5)
    ev = run_loop(pd.DataFrame(), truth, EvidenceConfig(), budget=12, workdir=tmp_path,
                  calibrate=calib)
    # Batches of 5, 5, then 2 of the third (the budget), then one last calibration.
    assert [n for _, n in calib.calls] == [0, 5, 10, 12]
    written = pd.read_csv(tmp_path / "sheet.csv", keep_default_na=False)
    assert len(written) == 12 and (written["label"] != "").all()
    for a, b, label in written[["id_i", "id_j", "label"]].itertuples(index=False):
        assert label == ("same" if truth[a] == truth[b] else "different")
    assert ev.labelled == 12
    assert calib.calls[-1][0].labels == tmp_path / "sheet.csv"


def test_run_loop_stops_when_the_calibration_offers_no_more_pairs(tmp_path):
    _, truth, pairs = scripted_truth(4)  # 6 pairs
    calib = Scripted(pairs, batch=4)
    ev = run_loop(pd.DataFrame(), truth, EvidenceConfig(), budget=100, workdir=tmp_path,
                  calibrate=calib)
    assert ev.labelled == 6
    assert calib.calls[-1][1] == 6 and len(calib.calls) <= 4


def test_run_loop_with_nothing_to_label_calibrates_once(tmp_path):
    calib = Scripted([], batch=3)
    ev = run_loop(pd.DataFrame(), {}, EvidenceConfig(), budget=10, workdir=tmp_path,
                  calibrate=calib)
    assert len(calib.calls) == 1 and calib.calls[0][0].labels is None and ev.labelled == 0


def test_holdout_run_draws_answers_and_reads_the_holdout():
    ids, truth, pairs = scripted_truth()
    calls = []

    def calib(items, options, sheet_path):
        calls.append(options)
        if options.holdout is not None and Path(options.holdout).is_file():
            read = pd.read_csv(options.holdout, keep_default_na=False)
            return SimpleNamespace(holdout=pd.DataFrame(), read=read)
        drawn = pd.DataFrame({"id_i": [a for a, _ in pairs[:options.holdout_size]],
                              "id_j": [b for _, b in pairs[:options.holdout_size]],
                              "label": ""})
        return SimpleNamespace(holdout=drawn)

    loop_sheet = Path("loop.csv")
    ev = holdout_run(pd.DataFrame(), truth, EvidenceConfig(labels=loop_sheet, seed=4), 7,
                     calibrate=calib)
    assert len(calls) == 2
    assert calls[0].holdout_size == 7 and calls[0].holdout == calls[1].holdout
    assert calls[0].labels == calls[1].labels == loop_sheet and calls[1].seed == 4
    assert len(ev.read) == 7
    for a, b, label in ev.read[["id_i", "id_j", "label"]].itertuples(index=False):
        assert label == ("same" if truth[a] == truth[b] else "different")


# --- the real loop on a small planted corpus ----------------------------------------------

def test_real_loop_on_a_small_planted_corpus_labels_from_the_truth(tmp_path, fewer_draws):
    c = planted(1, events=150)
    truth = dict(zip(c.items["id"], c.event, strict=True))
    ev = run_loop(c.items, truth, EvidenceConfig(seed=1), budget=40, workdir=tmp_path)
    assert 0 < ev.labelled <= 40
    sheet = pd.read_csv(tmp_path / "sheet.csv", keep_default_na=False, dtype=str)
    labelled = sheet[sheet["label"] != ""]
    assert len(labelled) == ev.labelled
    for a, b, label in labelled[["id_i", "id_j", "label"]].itertuples(index=False):
        assert label == ("same" if truth[a] == truth[b] else "different")


# --- coverage_study -----------------------------------------------------------------------

def fake_loop(choice_of):
    """run_loop / holdout_run stand-ins whose choice depends on the seed."""
    def loop(items, truth, opts, budget, workdir=None):
        return SimpleNamespace(choice=choice_of(opts.seed), labelled=budget,
                               config=DedupeConfig())
    return loop


def interval(value, low, high):
    return {"value": value, "low": low, "high": high, "basis": "b"}


def test_coverage_study_marks_covered_where_the_truth_lies_in_the_stated_interval(monkeypatch):
    loop_choice = {"method": "labels", "threshold": 0.3,
                   "precision": interval(0.9, 0.85, 0.95), "recall": interval(0.5, 0.1, 0.3)}
    held_choice = {"method": "labels", "threshold": 0.3,
                   "precision": interval(0.97, 0.95, 0.99), "recall": interval(0.2, 0.1, 0.4)}
    monkeypatch.setattr(simulate, "planted_corpus", lambda pool, seed: planted(seed, 150))

    def held(items, truth, opts, size):
        assert Path(opts.labels).name == "sheet.csv" and size == 10
        return SimpleNamespace(choice=held_choice)

    def loop_writing_sheet(items, truth, opts, budget, workdir=None):
        (Path(workdir) / "sheet.csv").write_text("id_i,id_j,label\n")
        return fake_loop(lambda s: loop_choice)(items, truth, opts, budget, workdir)

    monkeypatch.setattr(simulate, "run_loop", loop_writing_sheet)
    monkeypatch.setattr(simulate, "holdout_run", held)
    monkeypatch.setattr(simulate, "true_scores", lambda ev, labels, event: (0.9, 0.2))
    monkeypatch.setattr("newsdedup.cluster.dedupe.dedupe",
                        lambda items, config: SimpleNamespace(
                            clustering=SimpleNamespace(labels=np.zeros(len(items)))))
    out = coverage_study([], [5], budget=30, holdout=10)
    r = out.iloc[0]
    assert r["seed"] == 5 and r["labelled"] == 30 and r["threshold"] == 0.3
    assert r["precision_true"] == 0.9 and r["recall_true"] == 0.2
    assert bool(r["loop_precision_covered"]) is True  # 0.85 <= 0.9 <= 0.95
    assert bool(r["loop_recall_covered"]) is True  # 0.1 <= 0.2 <= 0.3
    assert bool(r["holdout_precision_covered"]) is False  # 0.9 < 0.95
    assert bool(r["holdout_recall_covered"]) is True
    assert r["holdout_precision_low"] == 0.95 and r["loop_recall"] == 0.5


def test_coverage_study_without_a_threshold_has_no_truth_columns(monkeypatch):
    monkeypatch.setattr(simulate, "planted_corpus", lambda pool, seed: planted(seed, 150))
    declined = {"method": "declined", "threshold": None,
                "precision": interval(None, None, None), "recall": interval(None, None, None)}
    monkeypatch.setattr(simulate, "run_loop", fake_loop(lambda s: declined))

    def never(*a, **k):
        raise AssertionError("no hold-out without a threshold")

    monkeypatch.setattr(simulate, "holdout_run", never)
    seen = []
    out = coverage_study([], [0, 1], budget=5, holdout=10, progress=seen.append)
    assert out["seed"].tolist() == [0, 1] and out["method"].tolist() == ["declined"] * 2
    assert "precision_true" not in out.columns and len(seen) == 2


def test_coverage_study_runs_end_to_end_on_a_small_pool(fewer_draws, tmp_path):
    pool = synthetic_pool(800, seed=5)
    # 40 labels: with fewer the loop is not yet sure of its target on this pool (it
    # declines), and there is no threshold to check.
    out = coverage_study(pool, [2], budget=40, holdout=20)
    r = out.iloc[0]
    assert r["seed"] == 2 and 0 < r["labelled"] <= 40
    assert r["method"] == "labels" and r["threshold"] is not None
    for who in ("loop", "holdout"):
        for name in ("precision", "recall"):
            low, high = r[f"{who}_{name}_low"], r[f"{who}_{name}_high"]
            assert low <= r[f"{who}_{name}"] <= high
            assert bool(r[f"{who}_{name}_covered"]) == bool(low <= r[f"{name}_true"] <= high)
    # The truth at the chosen threshold, pair by pair over the candidate pairs (which do
    # not depend on labels), with the calibrated dedupe rebuilt from the corpus alone.
    from dataclasses import replace

    from newsdedup.calibration.simulate import calibrate_items
    from newsdedup.cluster.dedupe import dedupe

    corpus = planted_corpus(pool, 2)
    ev = calibrate_items(corpus.items, EvidenceConfig(seed=2), tmp_path / "s.csv")
    groups = dedupe(corpus.items, replace(ev.config, threshold=r["threshold"])).clustering.labels
    pop = ev.population
    tp = merged = same = 0
    for a, b in zip(pop.i, pop.j, strict=True):
        m, s = groups[a] == groups[b], corpus.event[a] == corpus.event[b]
        tp, merged, same = tp + (m and s), merged + m, same + s
    assert r["precision_true"] == pytest.approx(tp / merged, abs=1e-12)
    assert r["recall_true"] == pytest.approx(tp / same, abs=1e-12)

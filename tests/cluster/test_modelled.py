"""The dedupe by a pair model (newsdedup.cluster.modelled) and ``dedupe --calibration``."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import newsdedup.cluster.modelled as modelled
from newsdedup.calibration.file import CalibrationFileError
from newsdedup.cli import main
from newsdedup.cluster.dedupe import dedupe
from newsdedup.cluster.modelled import (
    ModelSpec,
    item_signals,
    model_config,
    model_dedupe,
    read_model_spec,
    score_candidates,
)
from newsdedup.score.pair_model import PairModel

from .conftest import average_link_reference


def bag_of_words(texts, **_kw) -> np.ndarray:
    out = np.zeros((len(texts), 32), dtype=np.float32)
    for r, text in enumerate(texts):
        for w in text.lower().split():
            out[r, int(hashlib.md5(w.encode()).hexdigest(), 16) % 32] += 1.0
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


@pytest.fixture(autouse=True)
def no_encoder(monkeypatch):
    monkeypatch.setattr(modelled, "embed", bag_of_words)


def corpus(n: int = 60, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    words = [f"w{k}" for k in range(40)]
    rows = []
    for s in range(n // 3):
        base = list(rng.choice(words, 7))
        for k in range(3):
            t = list(base)
            for _ in range(k):
                t[int(rng.integers(0, 7))] = str(rng.choice(words))
            rows.append({"id": f"{s}-{k}", "title": " ".join(t), "summary": "",
                         "published_at": f"2024-01-{1 + s % 28:02d}T0{k}:00:00Z"})
    return pd.DataFrame(rows)


def jaccard_only(at: float) -> PairModel:
    """P >= 0.5 exactly when the character Jaccard reaches ``at`` (a monotone model)."""
    return PairModel(("jaccard",), (0.0,), (1.0,), -40.0 * at, (40.0,), (0.0, 1.0), "by hand")


@pytest.mark.parametrize("at", [0.2, 0.35, 0.6])
def test_a_model_of_the_jaccard_alone_groups_as_the_character_dedupe(at):
    items = corpus()
    spec = ModelSpec(jaccard_only(at), 0.5, 0.05, 3, "hangul-alnum", "use")
    by_model = model_dedupe(items, spec)
    by_score = dedupe(items, replace(model_config(3, "hangul-alnum"), threshold=at))
    assert by_model.items["group"].tolist() == by_score.items["group"].tolist()
    assert by_model.items["representative"].tolist() == by_score.items["representative"].tolist()


def drifting(n: int = 90, per: int = 5, seed: int = 0) -> pd.DataFrame:
    """Stories of ``per`` versions, each changing one more word of the last (a drift)."""
    rng = np.random.default_rng(seed)
    words = [f"w{k}" for k in range(40)]
    rows = []
    for s in range(n // per):
        title = list(rng.choice(words, 7))
        for k in range(per):
            if k:
                title[int(rng.integers(0, 7))] = str(rng.choice(words))
            rows.append({"id": f"{s}-{k}", "title": " ".join(title), "summary": "",
                         "published_at": f"2024-01-{1 + s % 28:02d}T0{k}:00:00Z"})
    return pd.DataFrame(rows)


# A model on Jaccard and the cosine: its probabilities are not one score's ranks.
TWO_SIGNALS = PairModel(("jaccard", "cosine"), (0.0, 0.0), (1.0, 1.0), -6.0, (8.0, 4.0),
                        (0.0, 1.0), "by hand")


@pytest.mark.parametrize("cut", [0.3, 0.5, 0.8])
def test_the_model_groups_by_average_link_as_the_plain_oracle_does(cut):
    items = drifting()
    spec = ModelSpec(TWO_SIGNALS, cut, 0.05, 3, "hangul-alnum", "use", link="average")
    got = model_dedupe(items, spec)
    scored = score_candidates(items, TWO_SIGNALS, 0.05, 3, "hangul-alnum",
                              item_signals(items, model_config(3, "hangul-alnum"), "use", None))
    # Survivors are every row, in visiting order: the oracle visits them so.
    want = average_link_reference(len(items), scored.i, scored.j, scored.probability, cut,
                                  rank=scored.prep.rank[scored.prep.survivors])
    per_row = np.empty(len(items), dtype=np.int64)
    per_row[scored.prep.survivors] = want
    assert pd.factorize(got.items["group"])[0].tolist() == pd.factorize(per_row)[0].tolist()


def test_the_candidates_are_the_join_s_pairs_the_model_finds_likely():
    from newsdedup.cluster.dedupe import near_pairs, prepare
    from newsdedup.cluster.modelled import UNLIKELY
    from newsdedup.score.pair_model import pair_features

    items = drifting(150, seed=3)
    config = model_config(3, "hangul-alnum")
    signals = item_signals(items, config, "use", None)
    # A model under which many candidates fall below UNLIKELY, so the filter has work.
    model = PairModel(("jaccard", "cosine"), (0.0, 0.0), (1.0, 1.0), -9.0, (12.0, 3.0),
                      (0.0, 1.0), "by hand")
    scored = score_candidates(items, model, 0.05, 3, "hangul-alnum", signals)
    prep = prepare(items, config)
    i, j, jaccard = near_pairs(prep, 0.05)  # every candidate, scored afterwards
    prob = model.probability(model.columns(pair_features(
        signals, prep.survivors[i], prep.survivors[j], jaccard)))
    likely = prob >= UNLIKELY
    assert 0 < likely.sum() < len(i)
    assert list(zip(scored.i.tolist(), scored.j.tolist(), strict=True)) == list(
        zip(i[likely].tolist(), j[likely].tolist(), strict=True))
    assert scored.probability.tolist() == prob[likely].tolist()


def test_the_spec_link_decides_the_groups():
    # On drifting stories the two rules group differently (the oracle test says which is
    # right): the spec's link reaches the clustering.
    spec = ModelSpec(TWO_SIGNALS, 0.5, 0.05, 3, "hangul-alnum", "use", link="average")
    by_average = model_dedupe(drifting(), spec).items["group"]
    by_rep = model_dedupe(drifting(), replace(spec, link="representative")).items["group"]
    assert by_average.tolist() != by_rep.tolist()


def test_the_cut_is_required_and_the_error_says_what_to_do():
    spec = ModelSpec(jaccard_only(0.3), None, 0.05, 3, "hangul-alnum", "use", "cal.json")
    with pytest.raises(ValueError, match="cal.json: the pair model has no recommended cut"):
        model_dedupe(corpus(), spec)


def _calibration(tmp_path, cut=0.5, **change):
    model = jaccard_only(0.3)
    (tmp_path / "calibrate").mkdir(exist_ok=True)
    (tmp_path / "calibrate" / "pair_model.json").write_text(json.dumps(model.record()), "utf-8")
    rec = {"file": "calibrate/pair_model.json", "recommended_cut": cut, "floor": 0.05,
           "ngram": 3, "scheme": "hangul-alnum", "embedding": "use"} | change
    cal = {"recommended_threshold": 0.3, "rationale": "test", "pair_model": rec}
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(cal), "utf-8")
    return path


def test_read_model_spec_reads_the_model_file_beside_the_calibration(tmp_path):
    spec = read_model_spec(_calibration(tmp_path))
    assert spec is not None and spec.cut == 0.5 and spec.model == jaccard_only(0.3)
    (tmp_path / "plain.json").write_text('{"recommended_threshold": 0.3}', "utf-8")
    assert read_model_spec(tmp_path / "plain.json") is None


def test_the_link_is_read_and_a_file_without_one_was_measured_by_the_representative(tmp_path):
    assert read_model_spec(_calibration(tmp_path, link="average")).link == "average"
    assert read_model_spec(_calibration(tmp_path)).link == "representative"


@pytest.mark.parametrize(("change", "message"), [
    ({"link": "single"}, "'link' must be one of"),
    ({"recommended_cut": 2}, "'recommended_cut' must be a number in"),
    ({"file": "calibrate/missing.json"}, "its model file .* does not exist"),
])
def test_a_bad_pair_model_part_is_one_line_naming_the_file(tmp_path, change, message):
    path = _calibration(tmp_path, **change)
    with pytest.raises(CalibrationFileError, match=rf"calibration.json: pair_model: {message}"):
        read_model_spec(path)


def test_a_missing_key_is_named(tmp_path):
    path = _calibration(tmp_path)
    data = json.loads(path.read_text("utf-8"))
    del data["pair_model"]["floor"]
    path.write_text(json.dumps(data), "utf-8")
    with pytest.raises(CalibrationFileError, match="pair_model: 'floor' is missing"):
        read_model_spec(path)


def _feed(tmp_path):
    path = tmp_path / "feed.csv"
    corpus().to_csv(path, index=False)
    return path


def test_dedupe_with_the_calibration_runs_the_model_and_says_so(tmp_path):
    cal, feed = _calibration(tmp_path), _feed(tmp_path)
    assert main(["dedupe", str(feed), "--calibration", str(cal), "--out", str(tmp_path / "o"),
                 "--name", "f", "--quiet"]) == 0
    meta = json.loads((tmp_path / "o" / "f" / "dedupe" / "dedupe.json").read_text("utf-8"))
    assert meta["pair_model"]["cut"] == 0.5 and meta["pair_model"]["calibration"] == str(cal)
    assert meta["pair_model"]["link"] == "representative"  # a file without one: as measured
    expected = dedupe(pd.read_csv(feed, dtype=str, keep_default_na=False),
                      replace(model_config(3, "hangul-alnum"), threshold=0.3))
    assert meta["kept"] == len(expected.kept())
    # --no-model: the character threshold of the same file.
    assert main(["dedupe", str(feed), "--calibration", str(cal), "--no-model", "--out",
                 str(tmp_path / "o"), "--name", "g", "--quiet"]) == 0
    meta = json.loads((tmp_path / "o" / "g" / "dedupe" / "dedupe.json").read_text("utf-8"))
    assert "pair_model" not in meta and meta["config"]["threshold"] == 0.3


def test_options_of_the_character_dedupe_beside_a_model_are_refused(tmp_path, capsys):
    cal, feed = _calibration(tmp_path), _feed(tmp_path)
    assert main(["dedupe", str(feed), "--calibration", str(cal), "--scorer", "idf",
                 "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--scorer" in err[0] and "--no-model" in err[0]


def test_a_model_without_a_cut_falls_back_to_the_threshold_with_a_note(tmp_path, capsys):
    cal, feed = _calibration(tmp_path, cut=None), _feed(tmp_path)
    assert main(["dedupe", str(feed), "--calibration", str(cal), "--out", str(tmp_path / "o"),
                 "--name", "f", "--quiet"]) == 0
    assert "no recommended cut" in capsys.readouterr().err
    meta = json.loads((tmp_path / "o" / "f" / "dedupe" / "dedupe.json").read_text("utf-8"))
    assert "pair_model" not in meta


def _exact_jaccard(a: str, b: str, n: int) -> float:
    """Character n-gram Jaccard by sets, on the shingles the model's candidates read."""
    from newsdedup.text.normalize import item_text, normalize
    from newsdedup.text.shingle import shingles

    sa, sb = (shingles(normalize(item_text(t, ""), "hangul-alnum"), n) for t in (a, b))
    return len(sa & sb) / len(sa | sb) if sa | sb else 0.0


def test_the_door_adds_its_pairs_flags_them_and_scores_their_jaccard():
    items = corpus(45, seed=3)
    signals = modelled.item_signals(items, model_config(3, "hangul-alnum"), "use", None)
    model = jaccard_only(0.3)
    alone = modelled.score_candidates(items, model, 0.3, 3, "hangul-alnum", signals)
    door = modelled.DoorSpec(k=3, min_cosine=0.2, window_days=None)
    both = modelled.score_candidates(items, model, 0.3, 3, "hangul-alnum", signals, door)
    rows = alone.prep.survivors

    def pairs(s):
        return {(min(a, b), max(a, b)): (f, p) for a, b, f, p in zip(
            rows[s.i].tolist(), rows[s.j].tolist(), s.found_by.tolist(),
            s.probability.tolist(), strict=True)}

    before, after = pairs(alone), pairs(both)
    di, dj, _ = modelled.door_rows(signals.vectors, signals.times, door)
    door_pairs = set(zip(di.tolist(), dj.tolist(), strict=True))
    assert set(after) == set(before) | door_pairs
    assert all(f == modelled.BY_CHARACTERS for f, _ in before.values())
    for pair, (flag, prob) in after.items():
        want = ((modelled.BY_CHARACTERS if pair in before else 0)
                | (modelled.BY_EMBEDDINGS if pair in door_pairs else 0))
        assert flag == want, pair
        if pair in before:
            assert prob == before[pair][1]  # the character candidates score as before
    only = sorted(door_pairs - set(before))
    assert only, "the corpus should give the door pairs of its own"
    titles = items["title"].tolist()
    n = 3
    for a, b in only[:20]:
        jac = _exact_jaccard(titles[a], titles[b], n)
        assert jac < 0.3
        # The model reads the Jaccard alone (a logistic of 40 (J - 0.3)): its probability
        # says which Jaccard it got.
        assert after[(a, b)][1] == pytest.approx(1.0 / (1.0 + np.exp(-40.0 * (jac - 0.3))),
                                                 rel=1e-9, abs=1e-12)


def test_door_rows_respect_the_window_and_the_cosine_floor():
    items = corpus(30, seed=4)
    signals = modelled.item_signals(items, model_config(3, "hangul-alnum"), "use", None)
    i, j, cos = modelled.door_rows(signals.vectors, signals.times,
                                   modelled.DoorSpec(4, 0.5, 0.5))
    assert np.all(cos >= 0.5)
    gap = np.abs(signals.times[i] - signals.times[j])
    assert np.all(gap < 0.5 * 86400)

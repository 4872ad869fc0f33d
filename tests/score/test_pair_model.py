"""The pair model (newsdedup.score.pair_model): features, fit, calibration, record."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.score.pair_model import (
    PAIR_FEATURES,
    ItemSignals,
    PairModel,
    PairModelError,
    number_codes,
    pair_features,
)

HOUR = 3600.0


def signals(**over) -> ItemSignals:
    vectors = np.array([[1, 0], [0.6, 0.8], [0, 1], [1, 0]], dtype=np.float32)
    base = dict(vectors=vectors, times=np.array([0.0, 3 * HOUR, np.nan, 48 * HOUR]),
                sources=np.array([0, 0, 1, -1]), lengths=np.array([10, 20, 5, 10]),
                numbers=number_codes(["a 1", "a 2", "b", "1 a"]), leads=np.array([0, 0, 1, 2]),
                series=sp.csr_matrix(np.array([[1], [1], [0], [0]])))
    return ItemSignals(**(base | over))


def test_features_of_a_hand_made_corpus():
    i, j = np.array([0, 0, 1, 0]), np.array([1, 2, 2, 3])
    x = pair_features(signals(), i, j, np.array([0.5, 0.1, 0.2, 0.9]))
    col = {f: x[:, k].tolist() for k, f in enumerate(PAIR_FEATURES)}
    assert col["jaccard"] == [0.5, 0.1, 0.2, 0.9]
    assert col["cosine"] == pytest.approx([0.6, 0.0, 0.8, 1.0], abs=1e-4)
    assert col["log_gap_hours"] == pytest.approx([np.log1p(3), 0.0, 0.0, np.log1p(48)])
    assert col["gap_unknown"] == [0, 1, 1, 0]
    assert col["same_source"] == [1, 0, 0, 0]  # an unknown source is no one's
    assert col["length_ratio"] == [0.5, 0.5, 0.25, 1.0]
    # "a 1" / "a 2" differ; "b" has none; "1 a" carries the same numbers as "a 1".
    assert col["numbers_differ"] == [1, 0, 0, 0]
    assert col["same_lead"] == [1, 0, 0, 0]
    assert col["same_series"] == [1, 0, 0, 0]


def test_unknown_times_read_as_the_keep_rules_give_them_raise_no_warning():
    # cluster.keep writes an unknown date as -inf; -inf minus -inf warned "invalid value".
    times = np.array([0.0, 3 * HOUR, -np.inf, -np.inf])
    i, j = np.array([0, 0, 2]), np.array([1, 2, 3])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = pair_features(signals(times=times), i, j, np.array([0.5, 0.1, 0.2]))
    col = {f: x[:, k].tolist() for k, f in enumerate(PAIR_FEATURES)}
    assert col["gap_unknown"] == [0, 1, 1]
    assert col["log_gap_hours"] == pytest.approx([np.log1p(3), 0.0, 0.0])


def test_without_series_the_series_feature_is_zero():
    x = pair_features(signals(series=None), np.array([0]), np.array([1]), np.array([0.5]))
    assert x[0, PAIR_FEATURES.index("same_series")] == 0


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.integers(0, 30), max_size=4), min_size=2, max_size=12))
def test_number_codes_are_equal_exactly_for_equal_sets_of_numbers(numbers):
    titles = [" ".join(f"w{n}" if k % 2 else str(n) for k, n in enumerate(ns))
              for ns in numbers]
    sets = [frozenset(n for k, n in enumerate(ns) if not k % 2) for ns in numbers]
    codes = number_codes(titles)
    for a in range(len(titles)):
        assert (codes[a] == -1) == (not sets[a])
        for b in range(len(titles)):
            if sets[a] and sets[b]:
                assert (codes[a] == codes[b]) == (sets[a] == sets[b])


def _planted(n: int, seed: int):
    """Features and labels drawn from a known logistic model."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, len(PAIR_FEATURES)))
    truth = 1 / (1 + np.exp(-(-3.0 + 2.0 * x[:, 0] + 1.0 * x[:, 1] - 1.0 * x[:, 2])))
    return x, truth, rng.random(n) < truth


def test_the_fit_recovers_a_planted_model():
    x, truth, y = _planted(6000, 1)
    model = PairModel.fit(x, y, np.ones(len(y)))
    assert np.abs(model.probability(x) - truth).mean() < 0.02
    coef = np.asarray(model.coef) / np.asarray(model.scale) * model.calibration[1]
    assert coef[:3] == pytest.approx([2.0, 1.0, -1.0], abs=0.25)


def test_a_stratified_sample_gives_probabilities_calibrated_on_the_population():
    # The strata follow something the features do not hold (here a hidden score), as the
    # loop's strata follow the source, the day and the score bins while the model is only
    # linear in its features. The sheet over-draws one stratum; the unweighted fit then
    # learns the sheet's rate, and the weighted recalibration brings it back to the
    # population's.
    rng = np.random.default_rng(2)
    n = 200_000
    x = rng.normal(size=(n, len(PAIR_FEATURES)))
    hidden = rng.normal(size=n)
    truth = 1 / (1 + np.exp(-(-3.0 + 2.0 * x[:, 0] + 1.5 * hidden)))
    y = rng.random(n) < truth
    inclusion = np.where(hidden > 0.5, 0.05, 0.005)
    drawn = rng.random(n) < inclusion
    model = PairModel.fit(x[drawn], y[drawn], inclusion[drawn])
    prob = model.probability(x)
    # What the recalibration solves for: over the sheet, weighted, as many expected as
    # observed same-event pairs ...
    w = 1 / inclusion[drawn]
    assert np.average(prob[drawn], weights=w) == pytest.approx(np.average(y[drawn], weights=w),
                                                               abs=1e-6)
    # ... so over the population the mean probability is the rate, within the sample's
    # error (about 0.004 here: some 700 pairs of the low stratum stand for 138,000).
    assert prob.mean() == pytest.approx(y.mean(), abs=0.015)
    raw = PairModel(model.features, model.centre, model.scale, model.intercept, model.coef,
                    (0.0, 1.0))
    assert abs(raw.probability(x).mean() - y.mean()) > 0.1
    # Reliability over the population: each well-filled tenth of probability holds its
    # share of same-event pairs.
    bins = np.minimum((prob * 10).astype(int), 9)
    for b in np.unique(bins):
        at = bins == b
        if at.sum() >= 2000:
            assert abs(prob[at].mean() - y[at].mean()) < 0.10, b


def test_the_fit_refuses_one_answer_and_bad_inclusion():
    x = np.zeros((5, len(PAIR_FEATURES)))
    with pytest.raises(ValueError, match="two labels of each answer"):
        PairModel.fit(x, np.array([True] * 5), np.ones(5))
    with pytest.raises(ValueError, match=r"inclusion probabilities must lie in \(0, 1\]"):
        PairModel.fit(x, np.array([True, True, False, False, True]), np.array([1, 1, 0, 1, 1]))


def test_the_record_is_plain_json_and_reads_back_to_the_same_probabilities():
    x, _, y = _planted(500, 4)
    model = PairModel.fit(x, y, np.full(len(y), 0.5), fitted_on="500 planted pairs")
    text = json.dumps(model.record())
    again = PairModel.from_record(json.loads(text), "m.json")
    assert again == model
    assert np.array_equal(again.probability(x), model.probability(x))


@pytest.mark.parametrize(("change", "message"), [
    ({"kind": "forest"}, "'kind' must be 'logistic'"),
    ({"features": ["jaccard", "colour"]}, r"unknown feature\(s\) \['colour'\]"),
    ({"coef": [1.0]}, "'coef' must be 9 finite numbers"),
    ({"centre": [float("nan")] * 9}, "'centre' must be 9 finite numbers"),
    ({"scale": [0.0] * 9}, "'scale' must be positive"),
    ({"calibration": {"a": 1}}, "'calibration' must be"),
    ({"intercept": "1"}, "'intercept' must be a finite number"),
])
def test_a_bad_record_is_one_line_naming_where_and_what(change, message):
    good = PairModel(PAIR_FEATURES, (0.0,) * 9, (1.0,) * 9, 0.0, (1.0,) * 9, (0.0, 1.0)).record()
    with pytest.raises(PairModelError, match=rf"^cal.json: pair_model: {message}"):
        PairModel.from_record(good | change, "cal.json: pair_model")


def test_columns_reorders_features_for_a_model_of_fewer():
    x = np.arange(2 * len(PAIR_FEATURES), dtype=float).reshape(2, -1)
    model = PairModel(("cosine", "jaccard"), (0.0, 0.0), (1.0, 1.0), 0.0, (1.0, 1.0), (0.0, 1.0))
    assert model.columns(x).tolist() == [[1.0, 0.0], [10.0, 9.0]]

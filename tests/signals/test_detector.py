"""The rule-based detector: switchable rules, the funnel, and the published pairs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.signals.detector import RULES, DetectorConfig, detect, funnel
from newsdedup.signals.pairs import RELATIONS, pair_signals, prepare

frames = st.integers(0, 30).flatmap(lambda n: st.builds(
    lambda rel, days, shared, conflict: pd.DataFrame({
        "host_relation": rel, "days_apart": days, "shared_entities": shared,
        "version_conflict": conflict}),
    st.lists(st.sampled_from(RELATIONS), min_size=n, max_size=n),
    st.lists(st.one_of(st.just(float("nan")), st.floats(0, 10)), min_size=n, max_size=n),
    st.lists(st.integers(0, 3), min_size=n, max_size=n),
    st.lists(st.booleans(), min_size=n, max_size=n)))
configs = st.builds(DetectorConfig, host=st.booleans(), date=st.booleans(),
                    entity=st.booleans(), version=st.booleans(),
                    max_days=st.floats(0, 5), min_shared=st.integers(1, 3))


@settings(max_examples=80, deadline=None)
@given(frames, configs)
def test_funnel_ends_at_the_candidates_and_never_grows(frame, config):
    fun = funnel(frame, config)
    pairs = fun["pairs"].to_numpy()
    assert pairs[0] == len(frame) and (np.diff(pairs) <= 0).all()
    assert (fun["dropped"].to_numpy()[1:] == -np.diff(pairs)).all()
    assert fun["rule"].tolist()[1:] == config.enabled()
    d = detect(frame, config)
    assert pairs[-1] == int(d["candidate"].sum())
    # A pair is a candidate exactly when no rule rejected it.
    assert ((d["rejected_by"] == "") == d["candidate"]).all()


@settings(max_examples=80, deadline=None)
@given(frames, configs)
def test_rejected_by_is_the_first_enabled_rule_failed(frame, config):
    d = detect(frame, config)
    for row in d.itertuples(index=False):
        failed = [r for r in config.enabled() if not getattr(row, f"pass_{r}")]
        assert row.rejected_by == (failed[0] if failed else "")
        assert row.failed == "+".join(failed)


def test_every_rule_can_be_switched_off():
    frame = pd.DataFrame({"host_relation": ["cross-org"], "days_apart": [float("nan")],
                          "shared_entities": [0], "version_conflict": [True]})
    assert not detect(frame)["candidate"].iloc[0]
    off = DetectorConfig(host=False, date=False, entity=False, version=False)
    assert detect(frame, off)["candidate"].iloc[0]
    assert funnel(frame, off)["rule"].tolist() == ["all pairs"]


def test_invalid_settings_are_rejected():
    with pytest.raises(ValueError, match="relation"):
        DetectorConfig(relations=("cousins",))
    with pytest.raises(ValueError, match="min_shared"):
        DetectorConfig(min_shared=0)
    with pytest.raises(ValueError, match="max_days"):
        DetectorConfig(max_days=-1)


@pytest.fixture(scope="module")
def pinned_detected(pinned) -> pd.DataFrame:
    d = detect(pair_signals(prepare(pinned.items)))
    return d.set_index(["id_i", "id_j"])


def _row(d, a, b):
    return d.loc[(a, b)] if (a, b) in d.index else d.loc[(b, a)]


def test_alphaevolve_is_proposed_and_the_published_false_pairs_are_rejected(pinned_detected):
    d = pinned_detected
    assert _row(d, "alphaevolve-updates", "alphaevolve-impact")["candidate"]
    er16 = _row(d, "gemini-robotics-er-2", "gemini-robotics-er-1-6")
    assert not er16["candidate"] and er16["rejected_by"] == "date"
    assert "version" in er16["failed"].split("+")  # the conflict stands on its own too
    r2 = _row(d, "gemini-robotics-er-2", "gemini-robotics-2")
    assert not r2["candidate"] and r2["rejected_by"] == "date"
    assert "entity" in r2["failed"].split("+")


def test_the_version_rule_rejects_er_1_6_when_the_window_is_off(pinned):
    d = detect(pair_signals(prepare(pinned.items)), DetectorConfig(date=False))
    d = d.set_index(["id_i", "id_j"])
    assert _row(d, "gemini-robotics-er-2", "gemini-robotics-er-1-6")["rejected_by"] == "version"
    assert _row(d, "gemini-robotics-er-2", "gemini-robotics-2")["rejected_by"] == "entity"


def test_pinned_funnel_starts_from_the_published_counts(pinned_detected):
    frame = pinned_detected.reset_index()
    fun = funnel(frame)
    n = 387
    assert fun["pairs"].tolist()[:2] == [n * (n - 1) // 2, 4085]  # seed 004: 74,691 and 4,085
    assert fun["rule"].tolist() == ["all pairs", *RULES]


@settings(max_examples=60, deadline=None)
@given(frames, configs)
def test_ablation_equals_the_funnel_end_of_each_reduced_detector(frame, config):
    from dataclasses import replace

    from newsdedup.signals.detector import ablation

    abl = ablation(frame, config).set_index("without")["candidates"]
    assert abl[""] == funnel(frame, config)["pairs"].iloc[-1]
    for r in config.enabled():
        assert abl[r] == funnel(frame, replace(config, **{r: False}))["pairs"].iloc[-1]
        assert abl[r] >= abl[""]

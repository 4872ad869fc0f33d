"""The second door: its pairs beside the character population, its sheet and its estimates."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from newsdedup.calibration.design import first_allocation
from newsdedup.calibration.doors import (
    DOOR_KIND,
    DoorConfig,
    background_cosine,
    door_estimates,
    door_sheet,
    embedding_door,
)
from newsdedup.calibration.estimate import LabelSample
from newsdedup.calibration.population import Population
from newsdedup.calibration.sheet import Sheet, sheet_sample
from newsdedup.score.neighbours import window_neighbours


def _clusters(n_per: int, dim: int = 6, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors in ``dim`` tight clusters of ``n_per`` items; the cluster of each item."""
    rng = np.random.default_rng(seed)
    centres = np.eye(dim, dtype=np.float32)
    which = np.repeat(np.arange(dim), n_per)
    x = centres[which] + rng.normal(scale=0.05, size=(len(which), dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True), which


def _population(i: np.ndarray, j: np.ndarray, n_items: int) -> Population:
    key = np.unique(np.minimum(i, j) * n_items + np.maximum(i, j))
    a, b = key // n_items, key % n_items
    strata = pd.DataFrame({"stratum": [0], "kind": ["scored"], "score_lo": [0.05],
                           "score_hi": [1.0000001], "size": [len(a)]})
    return Population(a, b, np.full(len(a), 0.5), np.zeros(len(a), bool), np.zeros(len(a)),
                      np.zeros(len(a), np.int64), strata, [f"id{k:04d}" for k in range(n_items)],
                      0.05)


def test_background_cosine_reads_the_random_pairs_within_the_window():
    x, which = _clusters(20, dim=2)
    # Half the random pairs share a cluster (cosine ~1), half do not (~0).
    assert background_cosine(x, np.zeros(40), None, 4000, 0.25, 0)[0] == pytest.approx(0.0,
                                                                                       abs=0.2)
    assert background_cosine(x, np.zeros(40), None, 4000, 0.9, 0)[0] >= 0.95
    # With the clusters a day apart and a one-hour window, every pair within it shares a
    # cluster: even a low quantile is near 1.
    t = which * 86400.0
    value, record = background_cosine(x, t, 3600.0, 4000, 0.25, 0)
    assert value >= 0.95
    assert 0 < record["pairs_in_window"] < 4000
    a = np.random.default_rng([0, 17])  # same seed: the count is of these draws
    ii, jj = a.integers(0, 40, 4000), a.integers(0, 40, 4000)
    assert record["pairs_in_window"] == int(np.count_nonzero((ii != jj) & (which[ii] == which[jj])))


def test_background_cosine_needs_enough_pairs():
    value, record = background_cosine(np.eye(3, dtype=np.float32), np.zeros(3), None, 50, 0.99, 0)
    assert value == 0.0 and "fewer than 100" in record["note"]


def test_the_door_splits_its_pairs_by_the_character_population():
    x, which = _clusters(8, dim=5, seed=3)
    n = len(x)
    t = np.arange(n, dtype=np.float64)
    # The character population: some same-cluster pairs and some cross-cluster ones.
    rng = np.random.default_rng(1)
    ci, cj = rng.integers(0, n, 60), rng.integers(0, n, 60)
    keep = ci != cj
    pop = _population(ci[keep], cj[keep], n)
    config = DoorConfig(k=3, background_pairs=5000, strata=3, labels=10)
    door = embedding_door(pop, x, t, np.zeros(n, np.int64), None, config)
    ni, nj, _ = window_neighbours(x, t, 3, None)
    kept = np.einsum("ij,ij->i", x[ni], x[nj]) >= door.min_cosine
    assert set(zip(door.i.tolist(), door.j.tolist(), strict=True)) == \
        set(zip(ni[kept].tolist(), nj[kept].tolist(), strict=True))
    in_pop = {(a, b): p for p, (a, b) in enumerate(zip(pop.i.tolist(), pop.j.tolist(),
                                                       strict=True))}
    for a, b, p in zip(door.i.tolist(), door.j.tolist(), door.in_u.tolist(), strict=True):
        assert p == in_pop.get((a, b), -1)
    only = door.only
    assert set(zip(only.i.tolist(), only.j.tolist(), strict=True)) == {
        (a, b) for a, b, p in zip(door.i.tolist(), door.j.tolist(), door.in_u.tolist(),
                                  strict=True) if p < 0}
    assert int(only.strata["size"].sum()) == len(only)
    assert (only.strata["kind"] == DOOR_KIND).all()
    lo = only.strata["score_lo"].to_numpy()[only.stratum]
    hi = only.strata["score_hi"].to_numpy()[only.stratum]
    assert np.all((only.score >= lo) & (only.score < hi))
    assert only.strata["score_lo"].iloc[0] == door.min_cosine
    assert door.in_population(pop).sum() == np.count_nonzero(door.in_u >= 0)


def test_the_sheet_is_a_stratified_sample_of_the_door_only_pairs():
    x, _ = _clusters(12, dim=4, seed=5)
    n = len(x)
    pop = _population(np.array([0]), np.array([1]), n)
    config = DoorConfig(k=5, background_pairs=5000, strata=3, labels=9, seed=2)
    door = embedding_door(pop, x, np.zeros(n), np.zeros(n, np.int64), None, config)
    items = pd.DataFrame({"id": door.only.ids, "title": [f"t{k}" for k in range(n)]})
    sheet = door_sheet(door, items, config)
    sizes = door.only.strata["size"].to_numpy()
    want = first_allocation(sizes, config.labels)
    assert np.bincount(sheet["stratum"], minlength=len(sizes)).tolist() == want.tolist()
    np.testing.assert_allclose(sheet["inclusion"], want[sheet["stratum"]] / sizes[sheet["stratum"]])
    # Read back as a sheet: every pair found in D, in its stratum.
    rows = sheet.assign(label="different", line=np.arange(2, len(sheet) + 2))
    drawn, sample = sheet_sample(Sheet(rows, "sheet.csv"), door.only)
    assert len(drawn) == len(sheet) and len(sample.position) == len(sheet)
    assert sheet.equals(door_sheet(door, items, config))  # the same draw on a rerun


def test_estimates_are_the_true_counts_when_every_pair_is_labelled():
    x, which = _clusters(6, dim=4, seed=7)
    n = len(x)
    rng = np.random.default_rng(4)
    ci, cj = rng.integers(0, n, 40), rng.integers(0, n, 40)
    keep = ci != cj
    pop = _population(ci[keep], cj[keep], n)
    config = DoorConfig(k=4, background_pairs=5000, strata=2, labels=5, draws=200)
    door = embedding_door(pop, x, np.zeros(n), np.zeros(n, np.int64), None, config)
    # The truth: same cluster, same event. Everything labelled, so nothing is estimated.
    u_same = which[pop.i] == which[pop.j]
    d_same = which[door.only.i] == which[door.only.j]
    u_sample = LabelSample(np.arange(len(pop)), u_same)
    d_sample = LabelSample(np.arange(len(door.only)), d_same)
    merged = np.zeros(len(pop), bool)
    merged[:3] = True
    merged_d = np.zeros(len(door.only), bool)
    merged_d[::2] = True
    table = door_estimates(pop, u_sample, door, d_sample, config,
                           {"some dedupe": (merged, merged_d)})
    rows = table.set_index("row")
    in_e = door.in_population(pop)
    T_u, T_d, T_b = int(u_same.sum()), int(d_same.sum()), int((u_same & in_e).sum())
    expect = {"characters": (T_u, T_u / (T_u + T_d), T_d),
              "embeddings": (T_b + T_d, (T_b + T_d) / (T_u + T_d), T_u - T_b),
              "both": (T_b, T_b / (T_u + T_d), None),
              "either": (T_u + T_d, 1.0, None)}
    for name, (same, share, missed) in expect.items():
        r = rows.loc[name]
        assert r["same_pairs"] == r["same_pairs_low"] == r["same_pairs_high"] == same, name
        assert r["share"] == pytest.approx(share) and r["share_low"] == pytest.approx(share)
        if missed is None:
            assert np.isnan(r["missed_alone"])
        else:
            assert r["missed_alone"] == missed, name
    tp_u, tp_d = int((u_same & merged).sum()), int((d_same & merged_d).sum())
    m = 3 + int(merged_d.sum())
    r = rows.loc["some dedupe"]
    assert r["pairs"] == m and r["same_pairs"] == tp_u + tp_d
    assert r["precision"] == pytest.approx((tp_u + tp_d) / m)
    assert r["recall_u"] == pytest.approx(tp_u / T_u)
    assert r["share"] == pytest.approx((tp_u + tp_d) / (T_u + T_d))
    assert rows.loc["characters", "pairs"] == len(pop)
    assert rows.loc["either", "pairs"] == len(pop) + len(door.only)


def test_settings_that_cannot_run_are_refused():
    with pytest.raises(ValueError, match="at least 1"):
        DoorConfig(k=0)
    with pytest.raises(ValueError, match="background_quantile"):
        DoorConfig(background_quantile=1.0)

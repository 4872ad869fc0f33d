"""Calibration: sweeps, the unrelated-pair bound, the band and the recommendation."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from newsdedup.runs.console import sensitivity_console
from newsdedup.runs.crosshost import exact_scores
from newsdedup.score.jaccard import PairScores
from newsdedup.studies.calibration import (
    calibrate,
    default_grid,
    order_quantiles,
    sensitivity_quantiles,
    sweep,
)
from newsdedup.studies.sensitivity import SensitivityConfig, simulate, texts_from_items


@pytest.fixture(scope="module")
def pinned_calibration(pinned):
    scores = exact_scores(pinned.items, 4)
    sens = simulate(texts_from_items(pinned.items), SensitivityConfig())
    table = sweep(scores, default_grid())
    return calibrate(scores, pinned.items, sens, table), sens


def test_grid_has_exact_steps():
    grid = default_grid(0.05, 0.6)
    assert len(grid) == 56 and 0.3 in grid.tolist() and grid[0] == 0.05 and grid[-1] == 0.6


def test_order_quantiles_match_the_published_p5_definition():
    v = np.random.default_rng(0).random(7740)
    assert order_quantiles(v, [0.05])[0] == np.sort(v)[len(v) // 20]


def test_sweep_counts_and_items_left():
    ps = PairScores(np.array([0, 0, 1]), np.array([1, 2, 2]), np.array([0.5, 0.2, 0.3]))
    out = sweep(ps, [0.1, 0.3, 0.6], items_left=lambda t: 3 - int(t < 0.6))
    assert out.pairs.tolist() == [3, 2, 0] and out.items_left.tolist() == [2, 2, 3]


def test_published_bound_band_and_recommendation(pinned_calibration):
    cal, _ = pinned_calibration
    assert f"{cal.upper_bound:.3f}" == "0.234"  # published: 무관쌍 상한 0.234
    assert cal.upper_pair["id_i"] == "gpt-5-5-instant-system-card"
    assert cal.caught95_f == 0.8 and cal.caught_all_f == 0.9
    assert cal.band[0] == cal.upper_bound and f"{cal.band[1]:.3f}" == "0.259"
    assert cal.recommended == 0.24
    assert cal.recommended > cal.upper_bound and cal.recommended <= cal.band[1]
    ret = cal.retention.set_index("f")
    assert ret.loc[0.9, "above_bound"] == 1.0 and ret.loc[0.7, "above_bound"] < 0.95
    assert "0.234" in cal.rationale and "0.24" in cal.rationale


def test_console_prints_the_published_block(pinned_calibration):
    cal, sens = pinned_calibration
    text = sensitivity_console(sens, cal.upper_bound)
    assert "  0.8   0.443    0.120    0.259   0.015" in text
    assert "  0.9   0.781    0.114   0.273" in text
    assert text.endswith("= 0.234")


def test_quantiles_table_agrees_with_p5(pinned_calibration):
    _, sens = pinned_calibration
    q = sensitivity_quantiles(sens)
    p5 = q[(q.side == "both") & (q.q == 0.05)].set_index("f")["value"]
    assert np.allclose(p5.to_numpy(), sens.both_table().set_index("f")["p5"].to_numpy())


def test_no_band_means_no_threshold():
    class Fake:
        params = SensitivityConfig()
        both = {f: np.full(100, 0.1) for f in params.fractions}

        def both_table(self):
            return pd.DataFrame({"f": list(self.params.fractions), "pairs": 100, "mean": 0.1,
                                 "std": 0.0, "p5": 0.1, "min": 0.1})

    ps = PairScores(np.array([0]), np.array([1]), np.array([0.5]))
    items = pd.DataFrame({"id": ["a", "b"], "title": ["x", "y"]})
    cal = calibrate(ps, items, Fake(), sweep(ps, [0.5]))
    assert cal.recommended is None and cal.band is None
    assert "no threshold separates" in cal.rationale
    assert cal.as_dict()["recommended_threshold"] is None


def test_titles_too_short_to_simulate_give_nan_shares_without_a_warning():
    # CJK titles without spaces, or one-word titles: no item has enough words for the
    # retention simulation, so no fraction has values. The shares are NaN, and numpy's
    # "mean of empty slice" warning no longer reaches the user's console.
    import warnings

    titles = ["東京で大きな地震が発生", "東京で大きな地震、被害確認中", "大阪で新しい駅が開業"]
    items = pd.DataFrame({"id": ["a", "b", "c"], "title": titles, "summary": ""})
    sens = simulate(texts_from_items(items), SensitivityConfig())
    assert all(v.size == 0 for v in sens.both.values())
    scores = exact_scores(items, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        cal = calibrate(scores, items, sens, sweep(scores, default_grid()))
    assert cal.retention["above_bound"].isna().all()
    assert cal.recommended is None


def test_recalibrate_rewrites_the_same_calibration(tmp_path):
    from newsdedup import cli
    from newsdedup.paths import PALDYN
    from newsdedup.runs.calibrate import RecalibrationError, recalibrate

    assert cli.main(["calibrate", "--out", str(tmp_path), "--trials", "3"]) == 0
    written = tmp_path / PALDYN.name / "calibration.json"
    before = written.read_bytes()
    written.unlink()
    cal = recalibrate(PALDYN.name, root=tmp_path)
    # All but the next step's command line, which only the command as run knows (recalibrate
    # names `newsdedup calibrate FILE`); both name the same labeling sheet.
    again, first = json.loads(written.read_bytes()), json.loads(before)
    sheet = str(tmp_path / PALDYN.name / "calibrate" / "to_label.csv")
    assert sheet in again["evidence"].pop("next") and sheet in first["evidence"].pop("next")
    assert again == first
    assert cal.recommended == json.loads(before)["recommended_threshold"]
    other = tmp_path / "other.jsonl"
    other.write_text('{"id": "a", "title": "t", "summary": "s"}\n', encoding="utf-8")
    with pytest.raises(RecalibrationError, match="not the corpus calibrated"):
        recalibrate(PALDYN.name, corpus_path=other, root=tmp_path)
    with pytest.raises(RecalibrationError, match="make calibrate NAME=nothing"):
        recalibrate("nothing", root=tmp_path)

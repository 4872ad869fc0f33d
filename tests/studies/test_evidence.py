"""The recommendation's choice of evidence, and the simulated recall."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from newsdedup.studies.evidence import choose, simulated_recall


def _curve(**extra):
    base = {"threshold": [0.1, 0.2, 0.3], "merged_pairs": [50, 20, 5],
            "precision": [0.97, 0.96, 0.99], "precision_low": [0.90, 0.955, 0.97],
            "precision_high": [0.99, 0.99, 1.0], "recall_sim": [0.9, 0.8, 0.7],
            "recall_sim_low": [0.5, 0.4, 0.3], "recall_sim_high": [1.0, 1.0, 1.0]}
    return pd.DataFrame(base | extra)


def test_decoys_take_the_lowest_threshold_whose_interval_clears_the_target():
    got = choose(_curve(), 0.95, 0.5, decoys="rule")
    assert (got["method"], got["threshold"]) == ("decoys", 0.2)
    assert got["estimated_precision"] == {"value": 0.96, "low": 0.955, "high": 0.99}
    assert got["estimated_recall"] == {"value": 0.8, "low": 0.4, "high": 1.0}


def test_labels_beat_decoys_and_fall_through_when_they_reach_nothing():
    measured = {"precision_measured": [0.99, 0.99, 0.99],
                "precision_measured_low": [0.4, 0.6, 0.96],
                "precision_measured_high": [1, 1, 1], "recall_measured": [0.5, 0.4, 0.3],
                "recall_measured_low": [0.4, 0.3, 0.2], "recall_measured_high": [0.6, 0.5, 0.4]}
    got = choose(_curve(**measured), 0.95, None, labels="gold", decoys="rule")
    assert (got["method"], got["threshold"]) == ("labels", 0.3)
    assert got["estimated_recall"]["value"] == 0.3
    measured["precision_measured_low"] = [0.1, 0.1, 0.1]
    got = choose(_curve(**measured), 0.95, None, labels="gold", decoys="rule")
    assert got["method"] == "decoys" and "no threshold reaches a measured" in got["note"]


def test_bound_decides_without_decoys_or_when_decoys_reach_nothing():
    got = choose(_curve(), 0.95, 0.2)
    assert (got["method"], got["threshold"]) == ("bound", 0.2)
    assert "No decoy rule applies" in got["note"]
    low = _curve(precision=[0.5, 0.9, 0.94], precision_low=[0.1, 0.1, 0.1])
    got = choose(low, 0.95, None, decoys="rule")
    assert got["method"] == "bound" and got["threshold"] is None
    assert got["estimated_precision"] is None


def test_without_confidence_the_decoys_take_the_point_with_the_highest_low_end():
    curve = _curve(precision_low=[0.90, 0.93, 0.92])
    got = choose(curve, 0.95, None, decoys="rule")
    assert (got["method"], got["threshold"]) == ("decoys", 0.2)
    assert "highest low end (0.930)" in got["note"]
    # A threshold whose point misses the target is never taken, however high its low end.
    got = choose(_curve(precision=[0.97, 0.94, 0.96], precision_low=[0.90, 0.93, 0.92]),
                 0.95, None, decoys="rule")
    assert got["threshold"] == 0.3


def test_simulated_recall_pools_and_ranges_over_levels():
    sens = SimpleNamespace(both={0.9: np.array([0.5, 0.6, 0.7]), 0.5: np.array([0.1, 0.3])})
    r = simulated_recall(sens, [0.3, 0.65]).set_index("threshold")
    assert r.loc[0.3].tolist() == pytest.approx([4 / 5, 0.5, 1.0])
    assert r.loc[0.65].tolist() == pytest.approx([1 / 5, 0.0, 1 / 3])

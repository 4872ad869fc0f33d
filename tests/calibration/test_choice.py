"""The order of evidence and the recommendation (newsdedup.calibration.choice)."""

import math

import numpy as np
import pandas as pd
import pytest

from newsdedup.calibration.choice import from_labels, interval, with_holdout, without_labels

NAN = float("nan")


def labels_curve(thresholds, low, value=None, high=None, merged=None, recall=None):
    """A measured curve: precision (value, low, high) and recall per threshold."""
    n = len(thresholds)
    value = value if value is not None else [min(x + 0.03, 1.0) for x in low]
    high = high if high is not None else [min(x + 0.06, 1.0) for x in low]
    recall = recall if recall is not None else list(np.linspace(0.9, 0.3, n))
    return pd.DataFrame({
        "threshold": thresholds,
        "merged_pairs": merged if merged is not None else [100] * n,
        "precision_measured": value, "precision_measured_low": low,
        "precision_measured_high": high,
        "recall_measured": recall, "recall_measured_low": [r - 0.1 for r in recall],
        "recall_measured_high": [r + 0.1 for r in recall]})


def decoy_curve(thresholds, low, merged=None):
    return pd.DataFrame({"threshold": thresholds, "precision": [x + 0.02 for x in low],
                         "precision_low": low, "precision_high": [x + 0.04 for x in low],
                         "merged_pairs": merged if merged is not None else [50] * len(low)})


def holdout_curve(thresholds, low):
    return pd.DataFrame({"threshold": thresholds,
                         "precision_holdout": [x + 0.02 for x in low],
                         "precision_holdout_low": low,
                         "precision_holdout_high": [x + 0.04 for x in low],
                         "recall_holdout": [0.5] * len(low),
                         "recall_holdout_low": [0.4] * len(low),
                         "recall_holdout_high": [0.6] * len(low)})


# --- interval -----------------------------------------------------------------------------

def test_interval_reads_the_prefixed_columns_and_turns_nan_into_none():
    r = pd.Series({"x": 0.5, "x_low": NAN, "x_high": 0.75})
    assert interval(r, "x", "b") == {"value": 0.5, "low": None, "high": 0.75, "basis": "b"}
    assert interval(None, "x", "none") == {"value": None, "low": None, "high": None,
                                           "basis": "none"}


# --- from_labels --------------------------------------------------------------------------

def test_the_lowest_threshold_whose_low_end_reaches_the_target_is_chosen():
    curve = labels_curve([0.1, 0.2, 0.3, 0.4, 0.5], [0.70, 0.85, 0.91, 0.89, 0.95])
    c = from_labels(curve, 0.9, "my labels")
    assert c["method"] == "labels" and c["threshold"] == pytest.approx(0.3)
    assert c["precision"] == {"value": pytest.approx(0.94), "low": pytest.approx(0.91),
                              "high": pytest.approx(0.97), "basis": "my labels"}
    expected_recall = float(np.linspace(0.9, 0.3, 5)[2])
    assert c["recall"]["value"] == pytest.approx(expected_recall)
    assert c["recall"]["low"] == pytest.approx(expected_recall - 0.1)
    assert c["target"] == 0.9 and c["more_labels"] is True and c["next"] is None


def test_a_low_end_exactly_at_the_target_reaches_it():
    c = from_labels(labels_curve([0.1, 0.2], [0.89, 0.9]), 0.9, "b")
    assert c["threshold"] == pytest.approx(0.2)


def test_rows_out_of_order_still_give_the_lowest_threshold():
    curve = labels_curve([0.5, 0.2, 0.4, 0.3], [0.99, 0.92, 0.95, 0.93])
    assert from_labels(curve, 0.9, "b")["threshold"] == pytest.approx(0.2)


def test_a_threshold_without_merged_pairs_is_never_chosen():
    curve = labels_curve([0.1, 0.2, 0.3], [0.95, 0.8, 0.96], merged=[0, 40, 10])
    assert from_labels(curve, 0.9, "b")["threshold"] == pytest.approx(0.3)


def test_declines_when_no_low_end_reaches_the_target_but_a_high_end_does():
    curve = labels_curve([0.1, 0.2, 0.3], [0.6, 0.85, 0.84],
                         value=[0.7, 0.88, 0.88], high=[0.8, 0.93, 0.95])
    c = from_labels(curve, 0.9, "b")
    assert c["method"] == "declined" and c["threshold"] is None
    # The best is the highest precision, ties to the lowest threshold: 0.2.
    assert "The best is 0.20" in c["note"]
    assert c["precision"]["value"] == pytest.approx(0.88)
    assert c["precision"]["low"] == pytest.approx(0.85)
    assert c["more_labels"] is True and "More labels" in c["note"]


def test_declines_without_hope_when_no_high_end_reaches_the_target():
    curve = labels_curve([0.1, 0.2], [0.5, 0.6], value=[0.6, 0.7], high=[0.7, 0.85])
    c = from_labels(curve, 0.9, "b")
    assert c["method"] == "declined" and c["more_labels"] is False
    assert "cannot reach the target" in c["note"]
    assert c["precision"]["value"] == pytest.approx(0.7)


def test_declines_with_no_figures_when_nothing_is_merged():
    curve = labels_curve([0.1, 0.2], [NAN, NAN], value=[NAN, NAN], high=[NAN, NAN],
                         merged=[0, 0])
    c = from_labels(curve, 0.9, "b")
    assert c["method"] == "declined" and c["more_labels"] is False
    assert c["precision"]["value"] is None and "The best" not in c["note"]


# --- without_labels -----------------------------------------------------------------------

PASSED = {"passed": True, "reason": "fine"}
FAILED = {"passed": False, "reason": "too few decoys"}


def test_passed_decoys_choose_the_lowest_threshold_with_a_one_sided_interval():
    decoys = decoy_curve([0.1, 0.2, 0.3], [0.8, 0.92, 0.97], merged=[50, 50, 50])
    c = without_labels(decoys, PASSED, "rule", 0.5, 0.9)
    assert c["method"] == "decoys" and c["threshold"] == pytest.approx(0.2)
    assert c["precision"]["low"] == pytest.approx(0.92)
    assert c["precision"]["value"] == pytest.approx(0.94)
    assert c["precision"]["high"] == 1.0  # a lower bound only
    assert c["recall"]["value"] is None
    assert "rule" in c["precision"]["basis"]


def test_decoys_skip_thresholds_without_merged_pairs():
    decoys = decoy_curve([0.1, 0.2], [0.95, 0.96], merged=[0, 30])
    assert without_labels(decoys, PASSED, "r", None, 0.9)["threshold"] == pytest.approx(0.2)


@pytest.mark.parametrize(("check", "low"), [(FAILED, [0.95, 0.99]), (PASSED, [0.5, 0.6])])
def test_failed_or_short_decoys_fall_back_to_the_bound(check, low):
    c = without_labels(decoy_curve([0.1, 0.2], low), check, "r", 0.42, 0.9)
    assert c["method"] == "bound" and c["threshold"] == pytest.approx(0.42)
    assert c["precision"]["value"] is None and c["more_labels"] is True


def test_failed_decoys_and_no_bound_decline_with_the_reason():
    c = without_labels(decoy_curve([0.1], [0.99]), FAILED, "r", None, 0.9)
    assert c["method"] == "declined" and c["threshold"] is None
    assert "too few decoys" in c["note"] and "Label the pairs" in c["note"]


# --- with_holdout -------------------------------------------------------------------------

def loop_choice(t, target=0.9):
    return from_labels(labels_curve([0.1, 0.2, 0.3], [0.8, 0.91, 0.95]), target, "loop") | {
        "threshold": t}


def test_holdout_restates_precision_and_recall_from_its_columns():
    choice = loop_choice(0.2)
    curve = holdout_curve([0.1, 0.2, 0.3], [0.7, 0.93, 0.96])
    c = with_holdout(choice, curve, "hold-out labels")
    assert c["threshold"] == choice["threshold"] and c["method"] == "labels"
    assert c["precision"] == {"value": pytest.approx(0.95), "low": pytest.approx(0.93),
                              "high": pytest.approx(0.97), "basis": "hold-out labels"}
    assert c["recall"] == {"value": 0.5, "low": 0.4, "high": 0.6, "basis": "hold-out labels"}
    assert c["loop_precision"] == choice["precision"]
    assert c["loop_recall"] == choice["recall"]
    assert c["holdout_confirms"] is True
    assert c["note"].startswith(choice["note"]) and "confirms it" in c["note"]


def test_holdout_below_the_target_does_not_confirm_a_loop_that_did():
    choice = loop_choice(0.2)
    assert choice["precision"]["low"] >= 0.9  # the loop's own interval reached the target
    c = with_holdout(choice, holdout_curve([0.1, 0.2, 0.3], [0.99, 0.85, 0.99]), "h")
    assert c["holdout_confirms"] is False
    assert c["precision"]["low"] == pytest.approx(0.85)
    assert c["threshold"] == pytest.approx(0.2)  # the threshold does not move
    assert "does not confirm" in c["note"]


def test_holdout_without_a_low_end_does_not_confirm():
    curve = holdout_curve([0.2], [NAN])
    c = with_holdout(loop_choice(0.2), curve, "h")
    assert c["precision"]["low"] is None and c["holdout_confirms"] is False


def test_holdout_finds_the_row_of_a_threshold_with_float_drift():
    curve = holdout_curve([0.1, 0.1 + 0.2, 0.4], [0.5, 0.92, 0.5])  # 0.30000000000000004
    c = with_holdout(loop_choice(0.3), curve, "h")
    assert c["precision"]["low"] == pytest.approx(0.92) and c["holdout_confirms"] is True


def test_holdout_leaves_a_choice_without_threshold_unchanged():
    declined = from_labels(labels_curve([0.1], [0.5]), 0.9, "loop")
    c = with_holdout(declined, holdout_curve([0.1], [0.99]), "h")
    assert c == declined and "holdout_confirms" not in c
    assert math.isclose(0.9, c["target"])

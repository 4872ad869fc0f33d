"""The calibration's one report (newsdedup.calibration.report)."""

from types import SimpleNamespace

import numpy as np
import pandas as pd

from newsdedup.calibration.report import (
    curve_columns,
    outcome_row,
    outcome_table,
    summary_lines,
)

NAN = float("nan")


def interval(value, low, high, basis="12 labelled pairs"):
    return {"value": value, "low": low, "high": high, "basis": basis}


def choice(**kw):
    base = {"method": "labels", "threshold": 0.3, "target": 0.9,
            "precision": interval(0.9412, 0.91, 0.97), "recall": interval(0.5, None, 0.61),
            "note": "Because.", "next": None, "more_labels": True}
    return base | kw


def curve(**extra):
    frame = pd.DataFrame({"threshold": [0.2, 0.1 + 0.2, 0.4], "items_left": [900, 1234, 4000],
                          "merged_pairs": [5000, 4321, 100]})
    return frame.assign(**extra)


def evidence(c=None, window_days=2.0, series_rule=True, series=True, window=True, decoys=True,
             frame=None):
    return SimpleNamespace(
        choice=c or choice(),
        config=SimpleNamespace(window_days=window_days, series=series_rule),
        series=(SimpleNamespace(table=pd.DataFrame({"x": [1, 2, 3]}),
                                member=lambda: np.array([True, False, True, True]))
                if series else None),
        curve=frame if frame is not None else curve(),
        population=SimpleNamespace(floor=0.05),
        window=SimpleNamespace(reason="learned from 40 pairs") if window else None,
        decoys=(SimpleNamespace(check={"passed": False, "reason": "too few"}) if decoys
                else None))


# --- summary_lines ------------------------------------------------------------------------

def test_the_head_line_names_method_threshold_target_window_and_series():
    lines = summary_lines(evidence(), 5000)
    assert lines[0] == ("method: labels; recommended threshold 0.30 (target precision 0.90); "
                        "date window 2 days; series rule on (3 series, 3 items)")


def test_the_threshold_row_is_found_despite_float_drift_and_printed_with_separators():
    lines = summary_lines(evidence(), 5000)
    assert lines[1] == "at 0.30: 1,234 of 5,000 items left, 4,321 pairs merged"


def test_precision_and_recall_lines_carry_interval_and_basis():
    lines = summary_lines(evidence(), 5000)
    assert "precision 0.941 [0.910, 0.970] (95% interval; over 12 labelled pairs)" in lines
    recall = next(x for x in lines if x.startswith("recall "))
    assert recall.startswith("recall 0.500 [?, 0.610] (95% interval; over 12 labelled pairs;")
    assert "scoring at least 0.05" in recall


def test_a_recall_interval_spanning_half_the_range_is_said_to_be_read_by_its_ends():
    # A planted Korean feed's stated recall 0.208 [0.006, 0.923] was read as "the dedupe
    # misses four in five", where it caught 0.87.
    wide = summary_lines(evidence(choice(recall=interval(0.208, 0.006, 0.923))), 5000)
    narrow = summary_lines(evidence(choice(recall=interval(0.5, 0.3, 0.79))), 5000)
    said = [x for x in wide if x.startswith("recall is barely measured")]
    assert said == ["recall is barely measured: its interval spans 0.92; read its ends, not "
                    "its value (more labels among the low-scoring pairs narrow it)"]
    assert wide.index(said[0]) == next(k for k, x in enumerate(wide) if x.startswith("recall ")) + 1
    assert not any(x.startswith("recall is barely") for x in narrow)


def test_window_decoys_note_and_next_in_order_at_the_end():
    lines = summary_lines(evidence(choice(next="label them")), 5000)
    assert lines[-4:] == ["window: learned from 40 pairs", "decoy check: failed (too few)",
                          "Because.", "next: label them"]


def test_a_declined_choice_has_no_threshold_row_and_no_figures():
    c = choice(method="declined", threshold=None, precision=interval(None, None, None),
               recall=interval(None, None, None))
    lines = summary_lines(evidence(c, window_days=None, series_rule=False, series=False,
                                   window=False, decoys=False), 10)
    assert lines[0] == ("method: declined; recommended threshold none (target precision 0.90); "
                        "date window none; series rule off (0 series, 0 items)")
    assert lines[1:] == ["Because."]


def test_simulated_recall_is_named_as_such_and_left_out_when_missing():
    frame = curve(recall_sim=[0.9, 0.8, 0.7], recall_sim_low=[0.5, 0.4, 0.3],
                  recall_sim_high=[1.0, 0.95, 0.9])
    lines = summary_lines(evidence(frame=frame), 5000)
    assert ("simulated rewrites caught at 0.30: 0.800 (range over word-retention levels "
            "0.400-0.950; not a recall of this corpus)") in lines
    missing = curve(recall_sim=[NAN] * 3, recall_sim_low=[NAN] * 3, recall_sim_high=[NAN] * 3)
    assert not any("simulated" in x for x in summary_lines(evidence(frame=missing), 5000))


def test_a_holdout_choice_adds_the_loops_own_estimate():
    c = choice(loop_precision=interval(0.97, 0.93, 0.99, "the loop"),
               loop_recall=interval(0.4, 0.3, 0.5, "the loop"))
    lines = summary_lines(evidence(c), 5000)
    loop = [x for x in lines if x.startswith("the loop's own estimate")]
    assert loop == ["the loop's own estimate at 0.30 (it chose the threshold, so it leans "
                    "optimistic): precision 0.970 [0.930, 0.990], recall 0.400 [0.300, 0.500] "
                    "(over the loop)"]
    assert not any(x.startswith("the loop's own") for x in summary_lines(evidence(), 5000))


# --- curve_columns ------------------------------------------------------------------------

def test_curve_columns_keep_the_shown_ones_present_in_their_order():
    frame = pd.DataFrame(columns=["recall_sim", "extra", "merged_pairs", "threshold",
                                  "precision_holdout", "decoy_precision_low"])
    assert curve_columns(frame) == ["threshold", "merged_pairs", "decoy_precision_low",
                                    "precision_holdout", "recall_sim"]
    assert curve_columns(pd.DataFrame()) == []


# --- outcome_row and outcome_table --------------------------------------------------------

def holdout_frame():
    return pd.DataFrame({"threshold": [0.2, 0.1 + 0.2], "precision_holdout": [0.8, 0.95],
                         "precision_holdout_low": [0.7, 0.9],
                         "precision_holdout_high": [0.9, 0.99]})


LABELLED = {"method": "labels", "recommended_threshold": 0.35,
            "estimated_precision": {"value": 0.93, "low": 0.9, "high": 0.96},
            "estimated_recall": {"value": 0.2, "low": 0.1, "high": 0.3},
            "labels": {"labelled": 200}, "holdout": {"labelled": 150, "confirms": True}}


def test_outcome_row_reads_the_holdout_at_the_unlabelled_choice():
    unlabelled = {"method": "decoys", "recommended_threshold": 0.3,
                  "estimated_precision": {"value": 0.95, "low": 0.92, "high": 1.0}}
    r = outcome_row("feed-a", LABELLED, unlabelled, holdout_frame())
    assert r == {"feed": "feed-a", "without_labels": "decoys 0.3",
                 "stated": "0.950 [0.920, 1.000]", "measured_there": "0.950 [0.900, 0.990]",
                 "with_labels": "labels 0.35", "precision": "0.930 [0.900, 0.960]",
                 "recall": "0.200 [0.100, 0.300]", "labels": "200 + 150 hold-out",
                 "holdout_confirms": True}


def test_outcome_row_of_a_bound_states_no_precision_and_measures_nothing():
    r = outcome_row("f", LABELLED, {"method": "bound", "recommended_threshold": 0.3},
                    holdout_frame())
    assert r["without_labels"] == "bound 0.3" and r["stated"] == "bound (no precision)"
    assert r["measured_there"] == "n/a"


def test_outcome_row_of_declines_and_missing_counts():
    unlabelled = {"method": "declined", "recommended_threshold": None,
                  "estimated_precision": None}
    labelled = {"method": "declined", "recommended_threshold": None}
    r = outcome_row("f", labelled, unlabelled, holdout_frame())
    assert r["without_labels"] == "declines" and r["with_labels"] == "declines"
    assert r["stated"] == r["measured_there"] == r["precision"] == "n/a"
    assert r["labels"] == "? + ? hold-out" and r["holdout_confirms"] is None


def test_outcome_row_without_holdout_columns_measures_nothing():
    unlabelled = {"method": "decoys", "recommended_threshold": 0.2,
                  "estimated_precision": {"value": 0.95, "low": 0.92, "high": 1.0}}
    r = outcome_row("f", LABELLED, unlabelled, holdout_frame()[["threshold"]])
    assert r["measured_there"] == "n/a"


def test_outcome_table_has_a_header_a_rule_and_one_line_per_row():
    rows = [outcome_row("f1", LABELLED, {"method": "bound", "recommended_threshold": 0.3},
                        holdout_frame()),
            outcome_row("f2", LABELLED | {"holdout": {"labelled": 9, "confirms": False}},
                        {"method": "declined", "recommended_threshold": None},
                        holdout_frame())]
    rows.append(rows[1] | {"feed": "f3", "holdout_confirms": None})
    lines = outcome_table(rows).splitlines()
    assert len(lines) == 5
    assert [len(x.split("|")) for x in lines] == [11] * 5  # nine cells between the bars
    assert lines[1] == "|---|---|---|---|---|---|---|---|---|"
    assert lines[2].startswith("| f1 | bound 0.3 | bound (no precision) | n/a | labels 0.35 |")
    assert [x.rsplit("|", 2)[1].strip() for x in lines[2:]] == ["yes", "no", "n/a"]


"""The tables of docs/calibration.md are the committed results' (never typed by hand)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from newsdedup.runs import doc_tables
from newsdedup.runs.doc_tables import (
    coverage_block,
    doors_block,
    feeds_block,
    model_block,
    planted_block,
    uci_block,
    updated,
)


def test_the_page_shows_the_committed_results():
    assert doc_tables.main(["--check"]) == 0


def test_a_stale_page_is_caught_and_rewritten(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("x\n<!-- feeds-table: begin -->\nold\n<!-- feeds-table: end -->\n"
                    "<!-- pair-model-table: begin -->\n<!-- pair-model-table: end -->\n"
                    "<!-- pair-model-uci-table: begin -->\n<!-- pair-model-uci-table: end -->\n"
                    "<!-- pair-model-planted-table: begin -->\n"
                    "<!-- pair-model-planted-table: end -->\n"
                    "<!-- coverage-table: begin -->\n<!-- coverage-table: end -->\n"
                    "<!-- doors-table: begin -->\n<!-- doors-table: end -->\n"
                    "<!-- doors-dedupe-table: begin -->\n<!-- doors-dedupe-table: end -->\n",
                    encoding="utf-8")
    assert doc_tables.main(["--check", "--page", str(page)]) == 1
    assert doc_tables.main(["--page", str(page)]) == 0
    assert doc_tables.main(["--check", "--page", str(page)]) == 0
    assert feeds_block() in page.read_text("utf-8")


def test_missing_markers_are_an_error():
    with pytest.raises(ValueError, match="feeds-table"):
        updated("no markers", {"feeds-table": "x"})


def test_the_coverage_rows_are_the_summary_files(tmp_path):
    folder = tmp_path / "calibration-coverage"
    folder.mkdir()
    pd.DataFrame({"estimate": ["holdout_precision"], "seeds": [10], "covered": [9],
                  "coverage": [0.9], "mean_width": [0.08]}).to_csv(folder / "summary_ko.csv",
                                                                    index=False)
    assert coverage_block(tmp_path).splitlines()[2] == \
        "| Korean | holdout precision | 10 | 9 (90%) | 0.080 |"


def test_the_feed_row_reads_the_holdout_at_the_unlabelled_choice(tmp_path, monkeypatch):
    for name, cal in (("f", {"method": "labels", "recommended_threshold": 0.4,
                             "estimated_precision": {"value": 0.93, "low": 0.9, "high": 0.96},
                             "estimated_recall": {"value": 0.2, "low": 0.1, "high": 0.3},
                             "labels": {"labelled": 200},
                             "holdout": {"labelled": 149, "confirms": True}}),
                      ("f-unlabelled", {"method": "decoys", "recommended_threshold": 0.3,
                                        "estimated_precision": {"value": 0.95, "low": 0.92,
                                                                "high": 0.97}})):
        (tmp_path / name / "calibrate").mkdir(parents=True)
        (tmp_path / name / "calibration.json").write_text(json.dumps(cal), encoding="utf-8")
    pd.DataFrame({"threshold": [0.3, 0.4], "precision_holdout": [0.81, 0.93],
                  "precision_holdout_low": [0.7, 0.9], "precision_holdout_high": [0.88, 0.96]}
                 ).to_csv(tmp_path / "f" / "calibrate" / "precision_recall.csv", index=False)
    monkeypatch.setattr(doc_tables, "FEEDS", ("f",))
    row = feeds_block(tmp_path).splitlines()[2]
    assert row == ("| f | decoys 0.3 | 0.950 [0.920, 0.970] | 0.810 [0.700, 0.880] | labels 0.4 | "
                   "0.930 [0.900, 0.960] | 0.200 [0.100, 0.300] | 200 + 149 hold-out | yes |")


def test_the_pair_model_row_is_the_calibration_s_record(tmp_path):
    folder = tmp_path / "knews-rss-big3"
    (folder / "calibrate").mkdir(parents=True)
    best = {"cut": 0.5, "precision": 0.91, "recall": 0.4, "recall_low": 0.2, "recall_high": 0.6}
    theirs = {"threshold": 0.2, "precision": 0.92, "recall": 0.25, "recall_low": 0.1,
              "recall_high": 0.5}
    record = {"fitted_on": "200 labelled pairs of sheet.csv (90 same)", "recommended_cut": 0.6,
              "precision": {"value": 0.93, "low": 0.8, "high": 0.99},
              "versus": {"model_dedupe": best, "calibrated_dedupe": theirs,
                         "dedupe_recall_ratio": 1.6, "model_pairs": None,
                         "character_pairs": theirs, "pairs_recall_ratio": None},
              "reliability": {"within": 1, "judged_bins": 2},
              "model_holdout": {"sheet": "m.csv", "labelled": 99},
              "curves": {"dedupe": "calibrate/pair_model.csv"}}
    (folder / "calibration.json").write_text(json.dumps({"pair_model": record}), "utf-8")
    pd.DataFrame({"cut": [0.5, 0.6], "largest_group": [7, 5]}).to_csv(
        folder / "calibrate" / "pair_model.csv", index=False)
    row = model_block(tmp_path).splitlines()[2]
    assert row == ("| knews-rss-big3 | 200 labelled pairs | 99 labelled pairs | 0.60 | "
                   "0.930 [0.800, 0.990] | "
                   "0.400 [0.200, 0.600] at 0.50 | 0.250 [0.100, 0.500] at 0.20 | 1.60x | "
                   "never reaches it | 0.250 [0.100, 0.500] at 0.20 | n/a | 1 of 2 | 7 |")


def _study(rows):
    cols = ["method", "at", "true_precision", "true_recall", "pairwise_precision",
            "pairwise_recall", "merged_pairs", "largest_group", "stated_precision",
            "stated_precision_low", "stated_precision_high", "stated_recall",
            "stated_recall_low", "stated_recall_high"]
    return pd.DataFrame([dict(zip(cols, r, strict=True)) for r in rows])


def test_the_uci_rows_are_the_ones_the_labels_choose(tmp_path):
    folder = tmp_path / "pair-model-study"
    folder.mkdir()
    base = [0.8, 0.3, 0.7, 0.2, 10, 5]
    rows = [("calibrated dedupe", 0.2, *base, 0.95, 0.9, 0.99, 0.1, 0.05, 0.2),
            ("model dedupe", 0.5, *base, 0.85, 0.7, 0.95, 0.6, 0.4, 0.8),
            ("model dedupe", 0.6, *base, 0.92, 0.8, 0.99, 0.4, 0.3, 0.6),
            ("model dedupe", 0.7, *base, 0.95, 0.85, 0.99, 0.3, 0.2, 0.5)]
    # No recommended cut: the hold-out's pick, 0.6 (the highest recall at >= 0.90),
    # never the cut the truth would favour.
    _study(rows).to_csv(folder / "uci-head.csv", index=False)
    lines = uci_block(tmp_path).splitlines()
    assert len(lines) == 4
    assert lines[3].startswith("| with the aggregator's timestamps | model, hold-out's pick | "
                               "0.60 | 0.920 [0.800, 0.990] |")
    assert lines[3].endswith("| 5 | n/a |")  # a table without the stories' counts
    rows[3] = ("model dedupe (recommended cut)", *rows[3][1:])
    stories = _study(rows).assign(largest_group_stories=[1, 1, 2, 3], groups_over_large=0,
                                  mixed_groups_over_large=0)
    stories.loc[3, ["groups_over_large", "mixed_groups_over_large"]] = [4, 1]
    stories.to_csv(folder / "uci-head-no-dates.csv", index=False)
    last = uci_block(tmp_path).splitlines()[-1]
    assert last.startswith("| dates blanked | model, recommended cut | 0.70 |")
    assert last.endswith("| 5 (3) | 4 (1) |")


def test_the_representative_link_rows_are_never_picked_and_follow_the_pick(tmp_path):
    folder = tmp_path / "pair-model-study"
    folder.mkdir()
    base = [0.8, 0.3, 0.7, 0.2, 10, 5]
    nan = float("nan")
    rows = [("calibrated dedupe", 0.2, *base, 0.95, 0.9, 0.99, 0.1, 0.05, 0.2),
            ("model dedupe", 0.5, *base, 0.92, 0.8, 0.99, 0.4, 0.3, 0.6),
            ("model dedupe", 0.6, *base, 0.95, 0.85, 0.99, 0.3, 0.2, 0.5),
            # Stated values a comparison row never has, to prove it is never picked.
            ("model dedupe", 0.5, 0.6, 0.5, 0.5, 0.4, 20, 40, 0.99, 0.9, 1.0, 0.9, 0.8, 1.0),
            ("model dedupe", 0.6, 0.7, 0.4, 0.6, 0.3, 15, 30, nan, nan, nan, nan, nan, nan)]
    study = _study(rows).assign(link=["representative", "average", "average",
                                      "representative", "representative"])
    study.to_csv(folder / "uci-head.csv", index=False)
    lines = uci_block(tmp_path).splitlines()
    assert len(lines) == 5
    assert lines[3].startswith("| with the aggregator's timestamps | model, hold-out's pick | "
                               "0.50 | 0.920 [0.800, 0.990] | 0.800 | 0.300 |")
    assert lines[4].startswith("| with the aggregator's timestamps | model, same cut, through "
                               "the representative alone | 0.50 | 0.990 [0.900, 1.000] | "
                               "0.600 | 0.500 |")


def test_the_planted_rows_count_seeds_and_coverage(tmp_path):
    folder = tmp_path / "pair-model-study"
    folder.mkdir()
    rows = [("ko", 0, "calibrated dedupe", True, True, 0.9, 0.3, 10),
            ("ko", 0, "model, hold-out's pick", True, False, 0.8, 0.5, 12),
            ("ko", 1, "calibrated dedupe", False, True, 0.95, 0.2, 7),
            ("ko", 2, "calibrated dedupe", True, True, 0.92, 0.25, 9),
            ("ko", 2, "model, recommended cut", True, True, 0.9, 0.6, 30)]
    pd.DataFrame(rows, columns=["language", "seed", "method", "precision_covered",
                                "recall_covered", "true_precision", "true_recall",
                                "largest_group"]).to_csv(folder / "planted.csv", index=False)
    lines = planted_block(tmp_path).splitlines()
    assert lines[2] == "| Korean | calibrated dedupe | 3 of 3 | 2 | 3 | 0.923 | 0.250 | 10 |"
    assert lines[3] == "| Korean | model | 2 of 3 | 2 | 1 | 0.850 | 0.550 | 30 |"


def test_the_doors_rows_are_the_study_files(tmp_path):
    folder = tmp_path / "knews-rss-big3" / "doors"
    folder.mkdir(parents=True)
    nan = float("nan")
    pd.DataFrame({"row": ["characters", "calibrated dedupe at 0.19"], "pairs": [76515, 1920],
                  "same_pairs": [7329.4, 1836.5], "same_pairs_low": [4389.7, 1764.0],
                  "same_pairs_high": [11755.3, 1891.0], "share": [0.8034, 0.2231],
                  "share_low": [0.643, 0.137], "share_high": [0.924, 0.336],
                  "missed_alone": [1768.2, nan], "missed_alone_low": [662.0, nan],
                  "missed_alone_high": [3266.0, nan], "recall_u": [nan, 0.2861],
                  "recall_u_low": [nan, 0.162], "recall_u_high": [nan, 0.454]}
                 ).to_csv(folder / "doors.csv", index=False)
    lines = doors_block(tmp_path).splitlines()
    assert len(lines) == 4  # header, rule, the two rows; the feed without a study is left out
    assert lines[2] == ("| knews-rss-big3 | character join (Jaccard >= floor) | 76,515 | "
                        "7,329 [4,390, 11,755] | 0.803 [0.643, 0.924] | 1,768 [662, 3,266] | "
                        "n/a |")
    assert lines[3].endswith("| n/a | 0.286 [0.162, 0.454] |")
    assert "make doors" in doors_block(tmp_path / "none")

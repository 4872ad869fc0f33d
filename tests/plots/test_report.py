"""The report's sections, page and font on synthetic run folders (fixture ``toy``)."""

from __future__ import annotations

import base64
import io
import json
import re
import warnings
from pathlib import Path

import pandas as pd
import pytest
from fontTools.ttLib import TTFont
from matplotlib.figure import Figure

from newsdedup.plots import fonts, report_figures
from newsdedup.plots.report import Absent, Facts, Plot, RunFolder, Table
from newsdedup.plots.report_page import html_page, markdown_page
from newsdedup.plots.report_sections import SECTIONS, build_report, calibration_section


def _texts(section) -> str:
    out = []
    for b in section.blocks:
        if isinstance(b, Facts):
            out += [f"{k}: {v}" for k, v in b.rows]
        elif isinstance(b, Table):
            out.append(b.caption)
        elif not isinstance(b, Plot):
            out.append(b.text)
    return "\n".join(out)


def test_run_folder_reads_absent_and_empty_files_as_none(tmp_path: Path) -> None:
    run = RunFolder(tmp_path)
    (tmp_path / "empty.csv").write_text("\n")
    (tmp_path / "head.csv").write_text("a,b\n")
    (tmp_path / "rows.csv").write_text("a\n1\n2\n3")
    assert run.table("nothing.csv") is None and run.table("empty.csv") is None
    assert len(run.table("head.csv")) == 0 and run.rows("rows.csv") == 3
    assert run.json("nothing.json") is None
    (tmp_path / "bad.json").write_text("[1]")
    with pytest.raises(ValueError, match="bad.json: expected a JSON object"):
        run.json("bad.json")


def test_a_folder_with_measure_tables_only_gets_every_section_saying_what_is_absent(
        tmp_path: Path, toy) -> None:
    base = toy.write_tree(tmp_path)
    for rel in ("calibrate", "crosshost", "dedupe"):
        for f in (base / rel).iterdir():
            f.unlink()
    (base / "calibration.json").unlink()
    report = build_report(base)
    assert [s.key for s in report.sections] == list(SECTIONS)
    said = {s.key: _texts(s) for s in report.sections}
    assert "no corpus record in this run" in said["corpus"]
    assert "no calibration.json in this run" in said["calibration"]
    assert "no precision/recall curve in this run" in said["sweep"]
    assert "no series table in this run" in said["series"]
    assert "no cross-host study in this run" in said["crosshost"]
    assert "not run: calibrate, crosshost, dedupe, signals" in said["files"]
    md = markdown_page(report)
    assert md.count("\n## ") == len(SECTIONS)


def test_the_calibration_section_reads_the_fields_of_the_new_calibration(tmp_path: Path) -> None:
    # The fields issue 26 adds: method, a window, series settings, intervals with their basis.
    cal = {"method": "labels", "recommended_threshold": 0.31, "upper_bound": 1.0,
           "window": {"days": 2, "reason": "learned from the labels"},
           "series": {"rule": True, "found": 12, "items": 340, "table": "calibrate/series.csv"},
           "estimated_precision": {"value": 0.97, "low": 0.93, "high": 0.99,
                                   "basis": "212 labelled pairs, stratified"},
           "estimated_recall": {"value": 0.8, "low": 0.7, "high": 0.88,
                                "basis": "the same labels"},
           "parameters": {"scorer": "idf", "n": 3, "text": "title"}}
    (tmp_path / "calibration.json").write_text(json.dumps(cal), encoding="utf-8")
    rows = dict(calibration_section(RunFolder(tmp_path)).blocks[0].rows)
    assert rows["method"].startswith("labels: precision and recall measured")
    assert rows["recommended threshold"] == "0.31 (idf of character 3-grams of the title)"
    assert rows["date window"] == "2 days (learned from the labels)"
    assert rows["series"] == "rule on; 12 series, 340 items"
    assert rows["estimated precision"] == ("0.970 [0.930, 0.990], over 212 labelled pairs, "
                                           "stratified")
    assert rows["estimated recall"] == "0.800 [0.700, 0.880], over the same labels"


def test_the_crosshost_section_says_what_was_listed_and_why_the_floor_rose(
        tmp_path: Path) -> None:
    (tmp_path / "crosshost").mkdir()
    summary = {"cross_pairs": 99_998_704, "in_window": 21_973_199, "max_score": 1.0,
               "above_upper_bound": 0, "listed_pairs": 846_943, "list_floor": 0.5}
    path = tmp_path / "crosshost" / "crosshost.json"
    path.write_text(json.dumps({"params": {"hosts": ["a", "b"]}, "summary": summary}))
    key = "pairs listed (the highest score and the bound count only these)"
    rows = dict(SECTIONS["crosshost"](RunFolder(tmp_path)).blocks[0].rows)
    assert rows[key] == "846,943 at Jaccard >= 0.5"
    summary |= {"list_floor_requested": 0.2, "estimated_pairs_at_requested_floor": 50_779_342,
                "list_budget": 2_000_000}
    path.write_text(json.dumps({"params": {"hosts": ["a", "b"]}, "summary": summary}))
    rows = dict(SECTIONS["crosshost"](RunFolder(tmp_path)).blocks[0].rows)
    assert rows[key] == ("846,943 at Jaccard >= 0.5 (raised from 0.2: about 50,779,342 pairs "
                         "there, over the budget of 2,000,000)")
    del summary["list_floor"]  # every cross pair listed: no such row
    path.write_text(json.dumps({"params": {"hosts": ["a", "b"]}, "summary": summary}))
    assert key not in dict(SECTIONS["crosshost"](RunFolder(tmp_path)).blocks[0].rows)


def test_the_series_table_is_shown_when_the_run_has_one(tmp_path: Path, toy) -> None:
    base = toy.write_tree(tmp_path)
    pd.DataFrame({"kind": "daily", "source": "a", "template": ["[오늘의 날씨] # 월 # 일", "x *"],
                  "members": [30, 4], "days": [30, 4]}).to_csv(base / "calibrate" / "series.csv",
                                                             index=False)
    section = SECTIONS["series"](RunFolder(base))
    table = next(b for b in section.blocks if isinstance(b, Table))
    assert list(table.frame["template"]) == ["[오늘의 날씨] # 월 # 일", "x *"]
    assert "2 series found" in _texts(section)


def test_the_page_inlines_every_figure_and_embeds_the_font_for_hangul(tmp_path: Path,
                                                                      toy) -> None:
    base = toy.write_tree(tmp_path)
    (base / "report").mkdir()
    pd.DataFrame({"bin": ["at"], "score": [0.25], "id_i": ["a"], "id_j": ["b"],
                  "title_i": ["진천군 스마트 돌봄"], "title_j": ["진천군 스마트돌봄"]}).to_csv(
        base / "report" / "near_pairs.csv", index=False)
    report = build_report(base)
    images = {p.key: b"\x89PNG fake" for p in report.plots()}
    page = html_page(report, images)
    assert page.count('<img class="plot"') == len(images) >= 2
    assert "<script" not in page and "https://" not in page
    face = re.search(r"@font-face \{ font-family: 'NewsdedupHangul'.*?base64,([^)]+)\)", page)
    cmap = TTFont(io.BytesIO(base64.b64decode(face.group(1)))).getBestCmap()
    assert {ord(c) for c in "진천군스마트돌봄"} <= set(cmap)
    assert html_page(report, images) == page  # the same bytes again


def test_the_font_subset_is_small_and_stable_and_empty_without_hangul() -> None:
    css = fonts.font_face_css("가나다 abc")
    assert css == fonts.font_face_css("다나가")  # the characters, not their order or Latin text
    assert len(css) < 100_000 and fonts.font_face_css("only latin") == ""
    assert fonts.font_path().name == "NanumGothic.ttf"


def test_korean_text_draws_hangul_without_missing_glyphs() -> None:
    with fonts.korean_text(), warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warns "Glyph ... missing from font(s)"
        fig = Figure()
        fig.text(0.1, 0.5, "진천군 스마트 돌봄 ABC")
        fig.savefig(io.BytesIO(), format="png")


def test_sweep_curves_draw_each_estimate_the_table_has(toy) -> None:
    curve = toy.precision_recall()
    curve["precision_measured"] = curve["decoy_precision"] - 0.02
    curve["recall_measured"] = curve["recall_sim"] - 0.1
    fig = report_figures.sweep_curves(curve, toy.RECOMMENDED, 0.95, {"check": {"passed": True}})
    labels = {ax.get_title()[:3]: [ln.get_label() for ln in ax.lines] for ax in fig.axes[:3]}
    assert "measured (labels)" in labels["(b)"] and "decoys (lower bound)" in labels["(b)"]
    assert labels["(c)"][:2] == ["measured (labels)",
                                 "simulated rewrites (range over retention)"]
    (line,) = [ln for ln in fig.axes[1].lines if ln.get_label() == "measured (labels)"]
    assert list(line.get_ydata()) == list(curve.sort_values("threshold")["precision_measured"])
    failed = report_figures.sweep_curves(curve, None, None, {"check": {"passed": False}})
    assert "decoys (check failed: not used)" in [ln.get_label() for ln in failed.axes[1].lines]


def test_items_per_day_stacks_the_counts() -> None:
    fig = report_figures.items_per_day(["d1", "d2", "d3"], {"a": [1, 0, 2], "b": [3, 1, 0]})
    tops = [bar.get_y() + bar.get_height() for bar in fig.axes[0].containers[1]]
    assert tops == [4, 1, 2]


def test_absent_blocks_render_as_asides(tmp_path: Path) -> None:
    report = build_report(tmp_path, ["series"])
    assert isinstance(report.sections[0].blocks[0], Absent)
    assert '<p class="absent">no series table in this run' in html_page(report, {})
    assert "> no series table in this run" in markdown_page(report)


def test_an_empty_series_table_says_none_were_found(tmp_path: Path) -> None:
    (tmp_path / "calibrate").mkdir()
    (tmp_path / "calibrate" / "series.csv").write_text("template,source,members\n",
                                                       encoding="utf-8")
    report = build_report(tmp_path, ["series"])
    (block,) = report.sections[0].blocks
    assert isinstance(block, Absent) and block.text.startswith("no recurring series found")

"""The run report: written by ``run``, rendered by headless Chromium, honest about what is absent.

Three runs: the pinned archive (Korean, no duplicates, the bound decides),
a Korean feed (``knews-sample``: URLs, sources, nine days of dates; without
labels the calibration declines) and an English title list without URL or
source (``reuters-feed``: no host information; the decoys decide and the
dedupe runs). Each report is opened in
headless Chromium: the screenshot's plot areas are not blank, Hangul is drawn
from the embedded font where the corpus is Korean, the console stays empty
and nothing but the page's own file and data URLs is requested.
"""

from __future__ import annotations

import base64
import io
import json
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from fontTools.ttLib import TTFont
from PIL import Image

from newsdedup import cli, paths
from newsdedup.runs.report import run_report

from .conftest import REUTERS, knews_sample

PAGE_LIMIT = 5_000_000
HANGUL = re.compile("[\uac00-\ud7a3]")


@pytest.fixture(scope="module")
def pinned_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the committed pinned results, its report rewritten by ``newsdedup report``."""
    folder = tmp_path_factory.mktemp("pinned") / paths.PALDYN.name
    shutil.copytree(paths.results_dir(paths.PALDYN.name), folder)
    assert cli.main(["report", str(folder), "--quiet"]) == 0
    return folder


def _console_errors(events: list[dict]) -> list[str]:
    out = []
    for e in events:
        p = e.get("params", {})
        console = e["method"] == "Runtime.consoleAPICalled" and p.get("type") in (
            "error", "warning", "assert")
        if e["method"] == "Runtime.exceptionThrown" or console:
            out.append(str(p))
        elif e["method"] == "Log.entryAdded" and p["entry"]["level"] in ("error", "warning"):
            out.append(p["entry"]["text"])
    return out


def _open(browser, page: Path) -> None:
    for domain in ("Page", "Runtime", "Log", "Network", "DOM", "CSS"):
        browser.call(f"{domain}.enable")
    browser.call("Emulation.setDeviceMetricsOverride", width=1280, height=900,
                 deviceScaleFactor=1, mobile=False)
    browser.call("Page.navigate", url=page.as_uri())
    browser.wait_for("Page.loadEventFired")
    assert browser.evaluate("document.fonts.ready.then(() => document.readyState)") == "complete"


def _plot_boxes(browser) -> list[dict]:
    return browser.evaluate(
        "[...document.querySelectorAll('img.plot')].map(i => { const r = "
        "i.getBoundingClientRect(); return {x: r.x, y: r.y + window.scrollY, w: r.width, "
        "h: r.height, natural: i.naturalWidth, id: i.parentElement.id}; })")


def _screenshot(browser) -> Image.Image:
    height = int(browser.evaluate("document.documentElement.scrollHeight"))
    browser.call("Emulation.setDeviceMetricsOverride", width=1280, height=min(height, 16000),
                 deviceScaleFactor=1, mobile=False)
    shot = browser.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
    return Image.open(io.BytesIO(base64.b64decode(shot["data"]))).convert("RGB")


def _hangul_fonts(browser) -> tuple[str, list[dict]]:
    """The first table cell holding Hangul, and the fonts Chromium drew it with."""
    text = browser.evaluate(
        "(() => { for (const td of document.querySelectorAll('td')) { if (/[\\uac00-\\ud7a3]/"
        ".test(td.textContent)) { td.id = 'hangul-probe'; return td.textContent; } } "
        "return null; })()")
    if text is None:
        return "", []
    root = browser.call("DOM.getDocument")["root"]["nodeId"]
    node = browser.call("DOM.querySelector", nodeId=root, selector="#hangul-probe")["nodeId"]
    return text, browser.call("CSS.getPlatformFontsForNode", nodeId=node)["fonts"]


@pytest.mark.parametrize(("name", "korean"), [
    ("pinned", True), ("knews-sample", True), ("reuters-feed", False), ("uci-head", False),
    ("synthetic-100k", True)])
def test_the_report_renders_in_headless_chromium(name: str, korean: bool, request,
                                                 browser, tmp_path: Path):
    folders = {"pinned": "pinned_copy", "uci-head": "uci_run", "synthetic-100k": "synthetic_run"}
    if name in folders:
        folder = request.getfixturevalue(folders[name])
    else:
        folder = request.getfixturevalue("user_root") / name
    page = folder / "report" / "report.html"
    assert 0 < page.stat().st_size < PAGE_LIMIT
    html = page.read_text(encoding="utf-8")
    assert "<script" not in html and "http://" not in html.split("<body>")[0]
    _open(browser, page)
    shot = _screenshot(browser)
    shot.save(tmp_path / f"{name}.png")  # kept with the test's files for a look
    boxes = _plot_boxes(browser)
    assert len(boxes) == html.count('<img class="plot"') >= 2
    for box in boxes:
        assert box["natural"] > 0, box  # the data URL decoded
        crop = np.asarray(shot.crop((int(box["x"]), int(box["y"]), int(box["x"] + box["w"]),
                                     int(box["y"] + box["h"]))), dtype=np.int16)
        ink = (np.abs(crop - 255).sum(axis=2) > 60).mean()
        assert crop.shape[0] > 100 and 0.02 < ink < 0.9, (box, ink)
    text, fonts = _hangul_fonts(browser)
    if korean:
        assert HANGUL.search(text), text
        embedded = [f for f in fonts if f.get("isCustomFont")]
        assert embedded and embedded[0]["familyName"] == "NanumGothic", fonts
        assert sum(f["glyphCount"] for f in embedded) >= len(HANGUL.findall(text))
    else:
        assert not HANGUL.search(html)
    requested = [e["params"]["request"]["url"] for e in browser.events
                 if e["method"] == "Network.requestWillBeSent"]
    assert all(u.startswith(("file:", "data:")) for u in requested), requested
    assert _console_errors(browser.events) == []


def test_the_embedded_font_holds_every_hangul_character_of_the_page(user_root: Path):
    html = (user_root / "knews-sample" / "report" / "report.html").read_text(encoding="utf-8")
    data = re.search(r"data:font/ttf;base64,([A-Za-z0-9+/=]+)", html).group(1)
    font = TTFont(io.BytesIO(base64.b64decode(data)))
    shown = set(HANGUL.findall(re.sub(r"<style>.*?</style>", "", html, flags=re.S)))
    assert shown and {ord(c) for c in shown} <= set(font.getBestCmap())
    assert len(base64.b64decode(data)) < 2_000_000  # a subset, not the 4.7 MB font


def test_a_corpus_without_hosts_says_so_and_draws_no_cross_host_figure(user_root: Path):
    run = user_root / "reuters-feed"
    record = json.loads((run / "crosshost" / "crosshost.json").read_text(encoding="utf-8"))
    assert record["summary"]["note"].startswith("crosshost: no host information")
    assert record["params"]["hosts"] == []
    assert not (run / "crosshost" / "cross_pairs.csv").exists()
    for page in ("report.md", "report.html"):
        text = (run / "report" / page).read_text(encoding="utf-8")
        assert "no host information" in text
    series = pd.read_csv(run / "calibrate" / "series.csv")
    md = (run / "report" / "report.md").read_text(encoding="utf-8")
    assert len(series) and f"{len(series):,} series found" in md  # Reuters's own templates
    assert cli.main(["report", str(run), "--figures", "--quiet"]) == 0
    assert not (run / "figures" / "cross_host.png").exists()
    assert (run / "figures" / "score_distribution.png").is_file()


def test_a_feed_gets_its_own_hosts_and_the_corpus_counts_match_the_file(user_root: Path):
    run = user_root / "knews-sample"
    lines = [json.loads(x) for x in knews_sample(paths.shared_corpus_file(
        "knews-rss-big3", "knews-rss-big3.jsonl").read_text(encoding="utf-8").splitlines())]
    record = json.loads((run / "crosshost" / "crosshost.json").read_text(encoding="utf-8"))
    hosts = pd.Series([re.match(r"https?://([^/]+)", x["url"]).group(1) for x in lines])
    assert set(record["params"]["hosts"]) == set(hosts)
    assert "URL hosts" in record["params"]["hosts_from"]
    summary = json.loads((run / "report" / "corpus.json").read_text(encoding="utf-8"))
    assert summary["items"] == len(lines)
    sources = pd.Series([x["source"] for x in lines]).value_counts()
    assert summary["sources"]["top"] == [[k, int(v)] for k, v in sorted(
        sources.items(), key=lambda kv: (-kv[1], kv[0]))]
    days = pd.Series([datetime.fromisoformat(x["published_at"]).astimezone(UTC).date().isoformat()
                      for x in lines]).value_counts()
    period = summary["per_period"]
    per_day = np.sum([period["counts"][s] for s in period["counts"]], axis=0)
    assert dict(zip(period["dates"], per_day.tolist(), strict=True)) == {
        d: int(days.get(d, 0)) for d in period["dates"]}
    assert per_day.sum() == len(lines)


def _shingles(text: str, n: int) -> set[str]:
    return {text[k:k + n] for k in range(max(1, len(text) - n + 1))} if text else set()


def test_near_threshold_pairs_sit_in_their_bins_and_score_as_recomputed(user_root: Path):
    from newsdedup.text.normalize import normalize

    run = user_root / "reuters-feed"
    cal = json.loads((run / "calibration.json").read_text(encoding="utf-8"))
    t = cal["recommended_threshold"]
    assert t is not None, "the Reuters feed's decoys recommend a threshold"
    near = pd.read_csv(run / "report" / "near_pairs.csv", dtype={"id_i": str, "id_j": str})
    assert set(near["bin"]) <= {"below", "at", "above"} and len(near)
    lows = {"below": t - 0.05, "at": t, "above": t + 0.05}
    for row in near.itertuples(index=False):
        assert lows[row.bin] - 1e-9 <= row.score < lows[row.bin] + 0.05
    corpus = pd.read_csv(paths.shared_corpus_file(*REUTERS), dtype=str)
    titles = dict(zip(corpus["id"], corpus["title"], strict=True))
    params = cal["parameters"]
    for row in near.head(6).itertuples(index=False):
        # Titles only (title+summary is the title); the dedupe cuts a trailing " - outlet"
        # (Google-News style), which Reuters's "... - OFFICIAL" titles have too.
        texts = [normalize(titles[k].rsplit(" - ", 1)[0], params["normalization"])
                 for k in (row.id_i, row.id_j)]
        a, b = (_shingles(x, params["n"]) for x in texts)
        assert row.score == pytest.approx(len(a & b) / len(a | b), abs=1e-6)


def test_the_report_is_byte_identical_when_rewritten(user_root: Path, tmp_path: Path):
    run = tmp_path / "knews-sample"
    shutil.copytree(user_root / "knews-sample", run)
    written = {p.relative_to(run): p.read_bytes() for p in (run / "report").rglob("*")
               if p.is_file()}

    def rewrite() -> dict:
        run_report(run)
        return {p.relative_to(run): p.read_bytes() for p in (run / "report").rglob("*")
                if p.is_file()}

    first = rewrite()
    assert rewrite() == first
    # The figures `run` drew and those the report command draws are the same bytes (the
    # page differs only in saying that signals were run since).
    assert {k: v for k, v in first.items() if k.suffix == ".png"} == {
        k: v for k, v in written.items() if k.suffix == ".png"}


def test_the_report_tables_are_the_run_tables(user_root: Path):
    run = user_root / "reuters-feed"
    cal = json.loads((run / "calibration.json").read_text(encoding="utf-8"))
    md = (run / "report" / "report.md").read_text(encoding="utf-8")
    p = cal["estimated_precision"]
    assert f"{p['value']:.3f} [{p['low']:.3f}, {p['high']:.3f}]" in md
    assert f"recommended threshold | {cal['recommended_threshold']:.2f}" in md
    curve = pd.read_csv(run / "calibrate" / "precision_recall.csv")
    at = curve[np.isclose(curve["threshold"], cal["recommended_threshold"])].iloc[0]
    assert re.search(rf"\| {cal['recommended_threshold']:.2f} \| {int(at.items_left):,} \| "
                     rf"{int(at.merged_pairs):,} \|.*\| recommended \|", md)


def test_report_of_a_missing_folder_is_one_line(tmp_path: Path, capsys):
    assert cli.main(["report", str(tmp_path / "nothing")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is not a run folder" in err[0]

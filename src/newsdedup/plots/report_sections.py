"""The sections of the run report: each reads what the run folder holds, or says it is absent.

One function per section, each ``(run: RunFolder) -> Section``, registered in
:data:`SECTIONS` in reading order. A section never fails on a missing file:
it says plainly what the run does not hold and which command writes it. The
numbers are read from the run's tables and ``calibration.json`` as written;
nothing is recomputed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from newsdedup.plots.report import (
    Absent,
    Block,
    Facts,
    Plot,
    Report,
    RunFolder,
    Section,
    Table,
    Text,
    interval,
    number,
)
from newsdedup.plots.report_figures import items_per_day, score_panels, sweep_curves

METHODS = {
    "labels": "precision and recall measured on labelled pairs",
    "decoys": "precision estimated from decoys, pairs that cannot be one story",
    "bound": "the unrelated-pair bound: the highest score of any pair, which holds only for a "
             "corpus without duplicates",
    "declined": "the calibration declines to recommend a threshold",
}
"""What each calibration method means, in a reader's words."""

CORPUS_FILE = "report/corpus.json"
NEAR_FILE = "report/near_pairs.csv"


def _corpus_meta(run: RunFolder) -> dict | None:
    summary = run.json(CORPUS_FILE)
    if summary is not None:
        return summary
    for rel in ("calibration.json", "run.json"):
        data = run.json(rel)
        if data and isinstance(data.get("corpus"), dict):
            return data["corpus"]
    return None


def _top_rows(counts: dict | None, rel: str, run: RunFolder, column: str) -> tuple[str, str]:
    """``(distinct count, the largest)`` from corpus.json's counts, or the crosshost table."""
    if counts is not None:
        top = ", ".join(f"{k} ({v:,})" for k, v in counts["top"][:5])
        empty = f"; {counts['empty']:,} items without" if counts["empty"] else ""
        return f"{counts['distinct']:,}{empty}", top or "none"
    table = run.table(rel, nrows=5)
    if table is None:
        return "not recorded in this run", ""
    return f"{run.rows(rel):,} (crosshost/{rel.split('/')[-1]})", ", ".join(
        f"{k or '(empty)'} ({v:,})" for k, v in zip(table[column], table["count"], strict=True))


def corpus_section(run: RunFolder) -> Section:
    """The corpus at a glance: items, rejects, sources, hosts, the span of dates."""
    meta = _corpus_meta(run)
    if meta is None:
        return Section("corpus", "The corpus at a glance", (Absent(
            "no corpus record in this run (calibration.json, run.json or report/corpus.json; "
            "`newsdedup run FILE --name NAME` writes them)"),))
    summary = run.json(CORPUS_FILE)
    rejected = meta.get("rejected")
    n_rejected = len(rejected) if isinstance(rejected, list) else rejected
    sources, top_sources = _top_rows(summary and summary.get("sources"), "crosshost/sources.csv",
                                     run, "source")
    hosts, top_hosts = _top_rows(summary and summary.get("hosts"), "crosshost/hosts.csv", run,
                                 "host")
    rows = [("file", f"{meta.get('file')} (sha256 {str(meta.get('sha256'))[:12]}...)"),
            ("records read", number(meta.get("records"))), ("items", number(meta.get("items"))),
            ("records rejected", number(n_rejected)),
            ("sources", sources), ("largest sources", top_sources),
            ("hosts (from the URLs)", hosts), ("largest hosts", top_hosts)]
    blocks: list[Block] = []
    dates = (summary or {}).get("dates")
    if dates is not None:
        span = ("no dates" if dates["first"] is None else
                f"{dates['first']} to {dates['last']} ({dates['span_days']:g} days)")
        rows += [("published", span), ("items without a date", number(dates["undated"]))]
    else:
        rows.append(("published", "span not recorded in this run (report/corpus.json is "
                                  "written by `newsdedup run`)"))
    blocks.append(Facts(tuple(rows)))
    first = (summary or {}).get("rejected_first") or (rejected if isinstance(rejected, list)
                                                      else [])
    if first:
        blocks.append(Table(pd.DataFrame(first[:10]), "The first rejected records, with the "
                            "reason (every one is listed in each step's params.json)."))
    period = (summary or {}).get("per_period") or {}
    if period.get("dates"):
        blocks.append(Plot("items_per_day", items_per_day(period["dates"], period["counts"]),
                           f"Items per {period['unit']} (UTC), the largest sources apart "
                           f"(report/corpus.json)."))
    elif summary is not None:
        blocks.append(Absent("no publication dates in this corpus: no items-per-day figure"))
    return Section("corpus", "The corpus at a glance", tuple(blocks))


def _window(cal: dict) -> str:
    """The calibration's date window in words, whichever field the run has."""
    window = cal.get("window")
    if isinstance(window, dict) and window.get("days") is not None:
        return f"{window['days']:g} days" + (f" ({window['reason']})" if window.get("reason")
                                             else "")
    for days in (cal.get("window_days"), (cal.get("parameters") or {}).get("window_days")):
        if days is not None:
            return f"{days:g} days"
    return "none: this calibration has no date window"


def _series(cal: dict) -> str:
    series = cal.get("series")
    if not isinstance(series, dict):
        return "not part of this calibration"
    state = "on" if series.get("rule") else "off"
    return (f"rule {state}; {number(series.get('found'))} series, "
            f"{number(series.get('items'))} items")


def _estimate(cal: dict, key: str) -> str:
    """An estimate of ``calibration.json`` (``estimated_precision`` ...), interval and basis."""
    estimate = cal.get(key)
    if not estimate or estimate.get("value") is None:
        if cal.get("recommended_threshold") is None:
            return "none: no threshold recommended"
        basis = (estimate or {}).get("basis")
        return "none" + (f" ({basis})" if basis and basis != "none" else "")
    return f"{interval(estimate)}, over {estimate.get('basis') or 'an unstated basis'}"


def _labels(cal: dict) -> str:
    labels = cal.get("labels")
    if not isinstance(labels, dict):
        return "not part of this calibration"
    return (f"{number(labels.get('labelled'))} labelled of {number(labels.get('drawn'))} drawn "
            f"from {number(labels.get('candidate_pairs'))} candidate pairs scoring >= "
            f"{number(labels.get('floor'), 'g')} (sheet: {labels.get('sheet')})")


def _holdout(cal: dict) -> str:
    holdout = cal.get("holdout")
    if not isinstance(holdout, dict):
        return "none (`--holdout SHEET` measures the chosen threshold on pairs the loop never drew)"
    verdict = "confirms" if holdout.get("confirms") else "does not confirm"
    return (f"{number(holdout.get('labelled'))} labelled pairs; precision "
            f"{interval(holdout.get('precision'))}, recall {interval(holdout.get('recall'))}; "
            f"{verdict} the loop's precision {interval(holdout.get('loop_precision'))}")


def _decoys(cal: dict) -> str:
    decoys = cal.get("decoys")
    if not isinstance(decoys, dict):
        return "not part of this calibration"
    check = decoys.get("check") or {}
    state = ("check passed" if check.get("passed") else "check failed: not used"
             if check else "no check")
    return (f"{decoys.get('rule')}; {number(decoys.get('decoy_pairs'))} decoy pairs, "
            f"{number(decoys.get('compared_pairs'))} compared pairs; {state}"
            + (f" ({check['reason']})" if check.get("reason") else ""))


def calibration_section(run: RunFolder) -> Section:
    """The calibration: method, threshold, window, precision and recall with their bases."""
    cal = run.json("calibration.json")
    title = "The calibration"
    if cal is None:
        return Section("calibration", title, (Absent(
            "no calibration.json in this run (`newsdedup calibrate FILE --name NAME` writes "
            "it)"),))
    method = str(cal.get("method") or "bound")
    t = cal.get("recommended_threshold")
    params = cal.get("parameters") or {}
    setting = (f"{params.get('scorer', 'jaccard')} of character {params.get('n', '?')}-grams "
               f"of the {params.get('text', 'title')}")
    evidence = cal.get("evidence") or {}
    band = cal.get("band")
    rows = [("method", f"{method}: {METHODS.get(method, 'as calibration.json says')}"),
            ("recommended threshold", "none" if t is None else f"{t:.2f} ({setting})"),
            ("target precision", number(cal.get("target_precision"), ".2f")),
            ("date window", _window(cal)), ("series", _series(cal)),
            ("estimated precision", _estimate(cal, "estimated_precision")),
            ("estimated recall", _estimate(cal, "estimated_recall")),
            ("simulated recall", _estimate(cal, "simulated_recall")),
            ("labels", _labels(cal)), ("hold-out", _holdout(cal)), ("decoys", _decoys(cal)),
            ("unrelated-pair bound", number(cal.get("upper_bound"), ".3f")),
            ("band", "none" if not band else f"({band[0]:.3f}, {band[1]:.3f}]")]
    blocks: list[Block] = [Facts(tuple(rows))]
    note, rationale = evidence.get("note"), cal.get("rationale")
    for text in dict.fromkeys(t for t in (note, rationale) if t):  # once each, in order
        blocks.append(Text(str(text) if text == note else f"Rationale: {text}"))
    if evidence.get("next"):
        blocks.append(Text(f"Next step: {evidence['next']}"))
    return Section("calibration", title, tuple(blocks))


def _estimate_columns(curve: pd.DataFrame, decoys_used: bool) -> list[tuple[str, str]]:
    names = [("precision_measured", "precision (labels)"),
             ("precision_holdout", "precision (hold-out)"),
             ("decoy_precision", "precision (decoys, lower bound)"),
             ("recall_measured", "recall (labels)"), ("recall_holdout", "recall (hold-out)"),
             ("recall_sim", "recall (simulated)")]
    if not decoys_used:
        names = [n for n in names if n[0] != "decoy_precision"]
    return [(c, label) for c, label in names if c in curve and curve[c].notna().any()]


def _decoys_used(cal: dict) -> bool:
    """Whether the decoys' check passed (a failed check's estimate is not shown as one)."""
    return bool(((cal.get("decoys") or {}).get("check") or {}).get("passed", True))


def _sweep_rows(curve: pd.DataFrame, t: float | None, decoys_used: bool) -> pd.DataFrame:
    """Every 0.05 of the curve and the recommended threshold, estimates as ``v [lo, hi]``.

    The decoys bound precision from below only, so their upper end is 1
    (as ``calibration.json`` states it), whatever the table's column holds.
    """
    grid = curve["threshold"].to_numpy()
    on_step = (abs(grid * 20 - (grid * 20).round()) < 1e-6)
    chosen = on_step | (abs(grid - t) < 1e-9 if t is not None else False)
    rows = curve[chosen]
    out = pd.DataFrame({"threshold": rows["threshold"].map(lambda x: f"{x:.2f}"),
                        "items left": rows["items_left"].map(number)})
    if "merged_pairs" in rows:
        out["merged pairs"] = rows["merged_pairs"].map(number)
    for col, label in _estimate_columns(curve, decoys_used):
        low = rows.get(f"{col}_low", pd.Series(dtype=float))
        high = rows.get(f"{col}_high", pd.Series(dtype=float))
        out[label] = [interval({"value": v, "low": low.get(k),
                                "high": 1.0 if col == "decoy_precision" else high.get(k)})
                      for k, v in rows[col].items()]
    out[""] = ["recommended" if t is not None and abs(x - t) < 1e-9 else ""
               for x in rows["threshold"]]
    return out.reset_index(drop=True)


def sweep_section(run: RunFolder) -> Section:
    """Items left, merges, precision and recall per threshold, the recommended one marked."""
    title = "The threshold sweep"
    cal = run.json("calibration.json") or {}
    t = cal.get("recommended_threshold")
    curve = run.table("calibrate/precision_recall.csv")
    if curve is None:
        return Section("sweep", title, (Absent(
            "no precision/recall curve in this run (calibrate/precision_recall.csv: "
            "`newsdedup calibrate` writes it)"),))
    used = _decoys_used(cal)
    blocks: list[Block] = [
        Plot("sweep", sweep_curves(curve, t, cal.get("target_precision"), cal.get("decoys")),
             "Per threshold of the calibrated dedupe: (a) items left and merged pairs, (b) "
             "precision with its interval, (c) recall (calibrate/precision_recall.csv)."),
        Table(_sweep_rows(curve, t, used), "Every 0.05 of the sweep and the recommended "
              "threshold; estimates as value [low, high]"
              + ("" if used else "; the decoys' estimate is left out: their check failed")
              + "."),
    ]
    return Section("sweep", title, tuple(blocks))


def scores_section(run: RunFolder) -> Section:
    """The score distribution of all pairs, and the merges against the decoys."""
    cal = run.json("calibration.json") or {}
    params = cal.get("parameters") or {}
    histogram = run.table("measure/histogram.csv")
    curve = run.table("calibrate/precision_recall.csv")
    blocks: list[Block] = [Plot(
        "scores", score_panels(histogram, curve, cal.get("decoys"), params.get("n"),
                               cal.get("upper_bound"), cal.get("recommended_threshold")),
        "(a) Exact Jaccard of all pairs (measure/histogram.csv; a seeded sample of pairs on "
        "large corpora, as measure.md says); (b) per threshold, the pairs the dedupe merges "
        "against the unrelated ones the decoys predict among the pairs it compares "
        "(decoy rate times compared pairs; calibrate/precision_recall.csv).")]
    if histogram is None:
        blocks.append(Absent("no score histogram in this run (measure/histogram.csv: "
                             "`newsdedup measure --full` or `newsdedup run` writes it)"))
    if curve is None or "decoy_rate" not in curve:
        blocks.append(Absent("no decoys in this run (calibrate/precision_recall.csv has no "
                             "decoy_rate: no decoy rule applies)"))
    return Section("scores", "Score distributions: merges against decoys", tuple(blocks))


SERIES_COLUMNS = ("template", "source", "kind", "members", "count", "titles", "days", "first",
                  "last", "example")


def series_section(run: RunFolder) -> Section:
    """The series and templates the calibration found (``calibrate/series.csv``)."""
    title = "Series and templates"
    table = run.table("calibrate/series.csv", nrows=20)
    if table is None:
        return Section("series", title, (Absent(
            "no series table in this run (calibrate/series.csv: written by a calibration that "
            "looks for recurring templates)"),))
    total = run.rows("calibrate/series.csv")
    if not total:
        return Section("series", title, (Absent(
            "no recurring series found in this corpus (calibrate/series.csv is empty): no "
            "title was kept apart as a series member"),))
    shown = table[[c for c in SERIES_COLUMNS if c in table] or list(table.columns)]
    return Section("series", title, (
        Text(f"{number(total)} series found; the {len(shown)} largest:"),
        Table(shown, "Series (calibrate/series.csv): the fixed part of the title, * where a "
                     "slot varies, # for numbers.")))


def _group_members(run: RunFolder, ids: set[str]) -> pd.DataFrame | None:
    """The dedupe's rows of the groups holding ``ids``, read in chunks (bounded memory)."""
    rel = "dedupe/items.csv"
    if not run.has(rel):
        return None
    cols = ["id", "title", "source", "published_at", "group", "is_representative",
            "score_to_rep"]
    path = run.path / rel
    head = pd.read_csv(path, nrows=0).columns
    use = [c for c in cols if c in head]
    groups: set = set()
    for chunk in pd.read_csv(path, usecols=use, dtype={"id": str}, chunksize=200_000):
        groups |= set(chunk.loc[chunk["id"].isin(ids), "group"])
    parts = [chunk[chunk["group"].isin(groups)] for chunk in pd.read_csv(
        path, usecols=use, dtype={"id": str}, chunksize=200_000)]
    return pd.concat(parts, ignore_index=True) if parts else None


BIN_WORDS = {"below": "Just below the threshold: pairs a lower threshold would merge",
             "at": "At the threshold: the least certain merges",
             "above": "Just above the threshold"}


def groups_section(run: RunFolder) -> Section:
    """Sampled pairs and their merged groups just below, at and just above the threshold."""
    title = "Merged groups around the threshold"
    cal = run.json("calibration.json") or {}
    t = cal.get("recommended_threshold")
    near = run.table(NEAR_FILE, dtype={"id_i": str, "id_j": str})
    if t is None or near is None:
        why = ("the calibration recommends no threshold, so nothing was merged" if t is None
               else "no near-threshold sample in this run (report/near_pairs.csv: "
                    "`newsdedup run` writes it when the dedupe runs)")
        blocks: list[Block] = [Absent(why)]
        top = run.table("measure/top_pairs.csv", nrows=10, dtype={"id_i": str, "id_j": str})
        if top is not None:
            keep = [c for c in ("rank", "score", "title_i", "title_j") if c in top]
            blocks.append(Table(top[keep], "The highest-scoring pairs of the corpus, the first "
                                "a threshold would merge (measure/top_pairs.csv).",
                                {"score": ".3f"}))
        return Section("groups", title, tuple(blocks))
    members = _group_members(run, set(near["id_i"]) | set(near["id_j"]))
    group_of = {} if members is None else dict(zip(members["id"].astype(str), members["group"],
                                                   strict=True))
    blocks = [Text(f"Pairs the calibrated dedupe compares, sampled (seed 0) in score bins of "
                   f"width 0.05 around the threshold {t:.2f}; \"merged\" says whether the two "
                   f"items ended in one group (report/near_pairs.csv, dedupe/items.csv).")]
    for name, words in BIN_WORDS.items():
        rows = near[near["bin"] == name]
        if not len(rows):
            blocks.append(Absent(f"{words}: no pair in this bin"))
            continue
        same = [group_of.get(a) is not None and group_of.get(a) == group_of.get(b)
                for a, b in zip(rows["id_i"], rows["id_j"], strict=True)]
        shown = rows[["score", "title_i", "title_j"]].assign(merged=["yes" if s else "no"
                                                                     for s in same])
        blocks.append(Table(shown.reset_index(drop=True), words + ".", {"score": ".3f"}))
        if name != "below" and members is not None and any(same):
            first = rows[same].iloc[0]
            group = members[members["group"] == group_of[first["id_i"]]].head(8)
            keep = [c for c in ("title", "source", "published_at", "is_representative",
                                "score_to_rep") if c in group]
            blocks.append(Table(group[keep].reset_index(drop=True),
                                f"One merged group of this bin ({len(group)} items shown).",
                                {"score_to_rep": ".3f"}))
    return Section("groups", title, tuple(blocks))


def crosshost_section(run: RunFolder) -> Section:
    """The hosts studied, where they came from, and the cross-host pairs."""
    title = "Cross-host pairs"
    record = run.json("crosshost/crosshost.json")
    if record is None:
        return Section("crosshost", title, (Absent(
            "no cross-host study in this run (`newsdedup measure --crosshost` writes it)"),))
    params, summary = record.get("params") or {}, record.get("summary") or {}
    how = params.get("hosts_from") or "given (--hosts, or the pinned archive's published pair)"
    rows = [("hosts studied", ", ".join(map(str, params.get("hosts") or [])) or "none"),
            ("where they come from", how), ("date window", f"{params.get('window_days')} days")]
    if summary.get("note"):
        return Section("crosshost", title, (Facts(tuple(rows)), Absent(summary["note"])))
    rows += [("cross pairs", number(summary.get("cross_pairs"))),
             ("within the window", number(summary.get("in_window"))),
             ("highest cross score", number(summary.get("max_score"), ".3f")),
             ("above the unrelated-pair bound", number(summary.get("above_upper_bound")))]
    if summary.get("list_floor") is not None:  # too many to list: those above a floor
        listed = f"{number(summary.get('listed_pairs'))} at Jaccard >= {summary['list_floor']:g}"
        if summary.get("list_floor_requested") is not None:
            listed += (f" (raised from {summary['list_floor_requested']:g}: about "
                       f"{number(summary.get('estimated_pairs_at_requested_floor'))} pairs "
                       f"there, over the budget of {number(summary.get('list_budget'))})")
        rows.append(("pairs listed (the highest score and the bound count only these)",
                     listed))
    blocks: list[Block] = [Facts(tuple(rows))]
    top = run.table("crosshost/cross_pairs.csv", nrows=10)
    if top is not None and not len(top):
        blocks.append(Absent("no cross pairs: the hosts studied hold no two items on different "
                             "hosts"))
    elif top is not None:
        keep = [c for c in ("score", "days_apart", "host_i", "title_i", "host_j", "title_j")
                if c in top]
        blocks.append(Table(top[keep], "The best cross pairs (crosshost/cross_pairs.csv).",
                            {"score": ".3f", "days_apart": ".1f"}))
    return Section("crosshost", title, tuple(blocks))


def files_section(run: RunFolder) -> Section:
    """What the run holds and how to look further."""
    steps = {"measure": "measure/summary.csv", "calibrate": "calibrate/sweep.csv",
             "crosshost": "crosshost/crosshost.json", "dedupe": "dedupe/dedupe.json",
             "signals": "signals/params.json"}
    held = [k for k, rel in steps.items() if run.has(rel)]
    missing = [k for k in steps if k not in held]
    blocks: list[Block] = [Text(
        f"This run holds the tables of: {', '.join(held) or 'no step'}"
        + (f"; not run: {', '.join(missing)}." if missing else "."))]
    # The folder's name only: the page must not change with where the run was written.
    where = f"results/{run.name}"
    blocks.append(Text(f"Rewrite this page: `newsdedup report {where}` (this run's folder). The "
                       f"figures one by one: `newsdedup report {where} --figures`. The notebooks "
                       f"on this run: `python -m newsdedup.runs.notebooks --run-dir {where}`."))
    return Section("files", "This run's files", tuple(blocks))


def headline(run: RunFolder) -> str:
    """One line of key numbers: items, threshold, method, items left, precision."""
    meta = _corpus_meta(run) or {}
    cal = run.json("calibration.json") or {}
    t = cal.get("recommended_threshold")
    parts = [f"{number(meta.get('items'))} items"]
    if t is None:
        parts.append(f"no threshold recommended (method {cal.get('method', 'n/a')})")
        return "; ".join(parts)
    parts.append(f"threshold {t:.2f} (method {cal.get('method', 'n/a')})")
    dedupe = run.json("dedupe/dedupe.json") or {}
    if dedupe.get("kept") is not None:
        parts.append(f"{number(dedupe['kept'])} items kept, "
                     f"{number(dedupe.get('merged_groups'))} merged groups")
    parts.append(f"precision {interval(cal.get('estimated_precision'))}")
    return "; ".join(parts)


SECTIONS: dict[str, Callable[[RunFolder], Section]] = {
    "corpus": corpus_section,
    "calibration": calibration_section,
    "sweep": sweep_section,
    "scores": scores_section,
    "series": series_section,
    "groups": groups_section,
    "crosshost": crosshost_section,
    "files": files_section,
}
"""Section key -> the function building it, in reading order."""


def build_report(run_dir: Path, sections: Sequence[str] | None = None) -> Report:
    """Read a run folder into its report.

    Args:
        run_dir: The run folder (``<out>/<name>/``).
        sections: Keys of :data:`newsdedup.plots.report_sections.SECTIONS` to build;
            default all.

    Returns:
        The :class:`Report`.

    Raises:
        FileNotFoundError: ``run_dir`` is not a folder.
        ValueError: An unknown section key, or a JSON file of the run is unreadable.
    """
    run = RunFolder(Path(run_dir))
    if not run.path.is_dir():
        raise FileNotFoundError(f"{run.path} is not a run folder (newsdedup run FILE --name NAME "
                                "writes one under results/)")
    keys = list(SECTIONS) if sections is None else list(sections)
    unknown = [k for k in keys if k not in SECTIONS]
    if unknown:
        raise ValueError(f"unknown report sections {unknown}; sections: {', '.join(SECTIONS)}")
    return Report(name=run.name, headline=headline(run),
                  sections=tuple(SECTIONS[k](run) for k in keys))

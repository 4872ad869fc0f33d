"""The tables ``docs/calibration.md`` shows, written from the committed results.

Seven blocks between marker comments: the real feeds calibrated without and
with labels (``results/<feed>/``, ``results/<feed>-unlabelled/``), the pair model
those labelled runs fitted (``calibrate --model``: ``pair_model`` of their
``calibration.json``), the pair model on the UCI head scored against its story ids
and on planted corpora (``results/pair-model-study/``, ``newsdedup.runs.model_study``),
the two candidate doors on the feeds (``results/<feed>/doors/``,
``newsdedup.runs.door_study``), and the
coverage of the stated intervals on planted corpora
(``results/calibration-coverage/summary_<language>.csv``). ``make feeds`` and
``make coverage`` rewrite them; ``--check`` says whether the page is up to
date (the tests run it), so no number on the page is typed by hand.

Example::

    python -m newsdedup.runs.doc_tables          # rewrite the blocks
    python -m newsdedup.runs.doc_tables --check  # exit 1 when a block is stale
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import pandas as pd

from newsdedup import paths
from newsdedup.calibration.report import outcome_row, outcome_table
from newsdedup.runs.files import atomic_file
from newsdedup.runs.model_study import LARGE_GROUP, labels_pick

__all__ = ["FEEDS", "LANGUAGES", "STUDIES", "feeds_block", "model_block", "uci_block",
           "door_dedupe_block", "doors_block", "planted_block", "coverage_block", "updated", "main"]

FEEDS = ("knews-rss-big3", "reuters21578-titles")
"""The real feeds ``make feeds`` calibrates (their sheets are in ``data/gold/``)."""

LANGUAGES = {"ko": "Korean", "en": "English"}
"""Headline pools of the coverage study."""

PAGE = paths.PROJECT_ROOT / "docs" / "calibration.md"


def feeds_block(results: Path = paths.RESULTS_DIR) -> str:
    """The feeds table from the committed calibrations (a feed not run is left out)."""
    rows = []
    for feed in FEEDS:
        files = (results / feed / "calibration.json",
                 results / f"{feed}-unlabelled" / "calibration.json",
                 results / feed / "calibrate" / "precision_recall.csv")
        if not all(f.is_file() for f in files):
            continue
        labelled, unlabelled = (json.loads(f.read_text("utf-8")) for f in files[:2])
        rows.append(outcome_row(feed, labelled, unlabelled, pd.read_csv(files[2])))
    return outcome_table(rows) if rows else "(no feed calibrated yet: `make feeds`)"


def _recall(x: dict | None, key: str) -> str:
    if not x:
        return "never reaches it"
    return (f"{x['recall']:.3f} [{x['recall_low']:.3f}, {x['recall_high']:.3f}] "
            f"at {x[key]:.2f}")


def model_block(results: Path = paths.RESULTS_DIR) -> str:
    """The pair model's table from the committed calibrations run with ``--model``."""
    lines = ["| feed | fitted on | model hold-out | recommended cut | its hold-out precision | "
             "model dedupe: recall at precision >= target | calibrated dedupe | ratio | "
             "model pairs | character pairs | ratio | reliable bins | largest group |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for feed in FEEDS:
        path = results / feed / "calibration.json"
        if not path.is_file():
            continue
        rec = json.loads(path.read_text("utf-8")).get("pair_model")
        if not rec:
            continue
        vs, rel = rec["versus"], rec["reliability"]
        curve = pd.read_csv(results / feed / rec["curves"]["dedupe"])
        best = vs["model_dedupe"]
        largest = (int(curve.loc[(curve["cut"] - best["cut"]).abs() < 1e-9,
                                 "largest_group"].iloc[0]) if best else None)

        def ratio(x: float | None) -> str:
            return "n/a" if x is None else f"{x:.2f}x"

        cut, held = rec["recommended_cut"], rec["precision"]
        extra = rec.get("model_holdout") or {}
        where = (f"{extra['labelled']} labelled pairs" if extra.get("labelled") else "none")
        at_cut = ("n/a" if not held or held["value"] is None else
                  f"{held['value']:.3f} [{held['low']:.3f}, {held['high']:.3f}]")
        lines.append(
            f"| {feed} | {rec['fitted_on'].split(' of ')[0]} | {where} | "
            f"{'none' if cut is None else f'{cut:.2f}'} | {at_cut} | {_recall(best, 'cut')} | "
            f"{_recall(vs['calibrated_dedupe'], 'threshold')} | "
            f"{ratio(vs['dedupe_recall_ratio'])} | {_recall(vs['model_pairs'], 'cut')} | "
            f"{_recall(vs['character_pairs'], 'threshold')} | "
            f"{ratio(vs['pairs_recall_ratio'])} | {rel['within']} of {rel['judged_bins']} | "
            f"{'n/a' if largest is None else largest} |")
    return "\n".join(lines) if len(lines) > 2 else "(no feed calibrated with --model yet)"


STUDIES = {"uci-head": "with the aggregator's timestamps",
           "uci-head-no-dates": "dates blanked"}
"""The model study's runs (``newsdedup.runs.model_study``) and what sets them apart."""


def _stated(row: pd.Series, name: str) -> str:
    value = row[f"stated_{name}"]
    if pd.isna(value):
        return "n/a"
    return (f"{value:.3f} [{row[f'stated_{name}_low']:.3f}, "
            f"{row[f'stated_{name}_high']:.3f}]")


def uci_block(results: Path = paths.RESULTS_DIR) -> str:
    """The model study's table: each dedupe the labels choose, scored against the story ids.

    Rows: the calibrated dedupe at its threshold; the model at its recommended cut, or
    where none is, at the hold-out's pick (the highest hold-out recall among the cuts whose
    hold-out point precision reaches 0.90), then the same cut's groups formed through the
    representative alone (the rule before average link). Nothing here is chosen by the
    story ids.
    """
    lines = ["| run | dedupe | at | stated precision (hold-out) | true precision | "
             "true recall | pairwise precision | pairwise recall | largest group (stories) | "
             f"groups > {LARGE_GROUP} items (mixing stories) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name, what in STUDIES.items():
        path = results / "pair-model-study" / f"{name}.csv"
        if not path.is_file():
            continue
        table = pd.read_csv(path)
        label, pick = labels_pick(table)
        rows = [("calibrated dedupe", r) for _, r in
                table[table["method"] == "calibrated dedupe"].iterrows()]
        rows += [(label, pick)] if pick is not None else []
        if pick is not None and "link" in table:  # the same cut, the groups of the old rule
            alone = table[(table["link"] == "representative")
                          & table["method"].str.startswith("model")
                          & ((table["at"] - pick["at"]).abs() < 1e-9)]
            rows += [("model, same cut, through the representative alone", r)
                     for _, r in alone.iterrows()]
        for method, r in rows:
            lines.append(f"| {what} | {method} | {r['at']:.2f} | {_stated(r, 'precision')} | "
                         f"{r['true_precision']:.3f} | {r['true_recall']:.3f} | "
                         f"{r['pairwise_precision']:.3f} | {r['pairwise_recall']:.3f} | "
                         f"{_group_cells(r)} |")
    return "\n".join(lines) if len(lines) > 2 else "(not run yet: `make model-study`)"


def _group_cells(row: pd.Series) -> str:
    """The largest group with its stories, and the large groups with the mixed ones."""
    if pd.isna(row.get("largest_group_stories")):  # a table written before they were counted
        return f"{int(row['largest_group'])} | n/a"
    return (f"{int(row['largest_group'])} ({int(row['largest_group_stories'])}) | "
            f"{int(row['groups_over_large'])} ({int(row['mixed_groups_over_large'])})")


DOOR_ROWS = {"characters": "character join (Jaccard >= floor)",
             "embeddings": "embedding neighbours (k nearest in the window)",
             "both": "both doors", "either": "either door"}
"""How the doors table names the rows of ``doors.csv``."""


def _with_interval(r, key: str, digits: int) -> str:
    value = getattr(r, key)
    if pd.isna(value):
        return "n/a"
    lo, hi = getattr(r, f"{key}_low"), getattr(r, f"{key}_high")
    return f"{value:,.{digits}f} [{lo:,.{digits}f}, {hi:,.{digits}f}]"


def doors_block(results: Path = paths.RESULTS_DIR) -> str:
    """The two doors on the feeds (``results/<feed>/doors/``, ``newsdedup.runs.door_study``)."""
    lines = ["| feed | door | candidate pairs | same-event pairs | share of either door's "
             "| only the other door finds | recall over the character join |",
             "|---|---|---|---|---|---|---|"]
    for feed in FEEDS:
        path = results / feed / "doors" / "doors.csv"
        if not path.is_file():
            continue
        for r in pd.read_csv(path).itertuples(index=False):
            lines.append(f"| {feed} | {DOOR_ROWS.get(r.row, r.row)} | {r.pairs:,} | "
                         f"{_with_interval(r, 'same_pairs', 0)} | "
                         f"{_with_interval(r, 'share', 3)} | "
                         f"{_with_interval(r, 'missed_alone', 0)} | "
                         f"{_with_interval(r, 'recall_u', 3)} |")
    return "\n".join(lines) if len(lines) > 2 else "(not run yet: `make doors`)"


def door_dedupe_block(results: Path = paths.RESULTS_DIR) -> str:
    """Each dedupe's highest recall over both doors at the target precision (``doors.json``)."""
    lines = ["| feed | dedupe | candidates | at | precision | recall over both doors | "
             "ratio to the calibrated dedupe |", "|---|---|---|---|---|---|---|"]
    for feed in FEEDS:
        path = results / feed / "doors" / "doors.json"
        if not path.is_file():
            continue
        rows = json.loads(path.read_text("utf-8")).get("best_at_target") or []
        base = next((r["recall"] for r in rows
                     if r["dedupe"] == "calibrated dedupe" and r["at"] is not None), None)
        for r in rows:
            if r["at"] is None:
                lines.append(f"| {feed} | {r['dedupe']} | {r['candidates'] or 'characters'} | "
                             "never reaches it | | | |")
                continue
            ratio = f"{r['recall'] / base:.2f}x" if base else "n/a"
            lines.append(
                f"| {feed} | {r['dedupe']} | {r['candidates'] or 'characters'} | "
                f"{r['at']:.2f} | {r['precision']:.3f} [{r['precision_low']:.3f}, "
                f"{r['precision_high']:.3f}] | {r['recall']:.3f} [{r['recall_low']:.3f}, "
                f"{r['recall_high']:.3f}] | {ratio} |")
    return "\n".join(lines) if len(lines) > 2 else "(not run yet: `make doors`)"


def planted_block(results: Path = paths.RESULTS_DIR) -> str:
    """The model's stated intervals on planted corpora: how often they hold the truth."""
    path = results / "pair-model-study" / "planted.csv"
    if not path.is_file():
        return "(not run yet: `make model-study`)"
    rows = pd.read_csv(path)
    lines = ["| pool | dedupe | seeds | precision interval holds | recall interval holds | "
             "mean true precision | mean true recall | largest group (max) |",
             "|---|---|---|---|---|---|---|---|"]
    for code, language in LANGUAGES.items():
        for kind, chosen in (("calibrated dedupe", rows["method"] == "calibrated dedupe"),
                             ("model", rows["method"].str.startswith("model"))):
            r = rows[(rows["language"] == code) & chosen]
            if not len(r):
                continue
            seeds = rows.loc[rows["language"] == code, "seed"].nunique()
            lines.append(
                f"| {language} | {kind} | {len(r)} of {seeds} | "
                f"{int(r['precision_covered'].sum())} | "
                f"{int(r['recall_covered'].sum())} | {r['true_precision'].mean():.3f} | "
                f"{r['true_recall'].mean():.3f} | {int(r['largest_group'].max())} |")
    return "\n".join(lines)


def coverage_block(results: Path = paths.RESULTS_DIR) -> str:
    """The coverage table: per language and estimate, seeds covered of seeds run."""
    lines = ["| pool | estimate | seeds | interval holds the truth | mean width |",
             "|---|---|---|---|---|"]
    for code, language in LANGUAGES.items():
        path = results / "calibration-coverage" / f"summary_{code}.csv"
        if not path.is_file():
            continue
        for r in pd.read_csv(path).itertuples(index=False):
            lines.append(f"| {language} | {r.estimate.replace('_', ' ')} | {r.seeds} | "
                         f"{r.covered} ({r.coverage:.0%}) | {r.mean_width:.3f} |")
    return "\n".join(lines) if len(lines) > 2 else "(not run yet: `make coverage`)"


def updated(page: str, blocks: dict[str, str]) -> str:
    r"""``page`` with each ``<!-- NAME: begin -->`` … ``<!-- NAME: end -->`` block replaced.

    Raises:
        ValueError: A block's markers are missing.

    Examples:
        >>> updated("a\n<!-- t: begin -->\nold\n<!-- t: end -->\nb", {"t": "new"})
        'a\n<!-- t: begin -->\nnew\n<!-- t: end -->\nb'
    """
    for name, body in blocks.items():
        pattern = re.compile(rf"(<!-- {name}: begin -->\n).*?(<!-- {name}: end -->)", re.S)
        if not pattern.search(page):
            raise ValueError(f"no '<!-- {name}: begin -->' … '<!-- {name}: end -->' block")
        page = pattern.sub(_between(body), page)
    return page


def _between(body: str):
    def replace(m: re.Match) -> str:
        return m.group(1) + body + "\n" + m.group(2)
    return replace


def main(argv: list[str] | None = None) -> int:
    """Rewrite (or with ``--check``, compare) the tables of ``docs/calibration.md``."""
    parser = argparse.ArgumentParser(
        prog="python -m newsdedup.runs.doc_tables",
        description="Write the feeds and coverage tables of docs/calibration.md from the "
                    "committed results (results/<feed>/, results/calibration-coverage/).",
        epilog="example: python -m newsdedup.runs.doc_tables --check")
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 when the page differs from the results")
    parser.add_argument("--page", type=Path, default=PAGE, help="the page (default %(default)s)")
    args = parser.parse_args(argv)
    page = args.page.read_text("utf-8")
    new = updated(page, {"feeds-table": feeds_block(), "pair-model-table": model_block(),
                         "pair-model-uci-table": uci_block(),
                         "pair-model-planted-table": planted_block(),
                         "coverage-table": coverage_block(), "doors-table": doors_block(),
                         "doors-dedupe-table": door_dedupe_block()})
    if args.check:
        if new != page:
            print(f"{args.page}: its tables differ from the committed results; run "
                  "`python -m newsdedup.runs.doc_tables`", file=sys.stderr)
            return 1
        return 0
    if new != page:
        with atomic_file(args.page) as fh:
            fh.write(new)
        print(f"wrote {args.page}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

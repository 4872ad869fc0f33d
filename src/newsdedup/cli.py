"""Command line: argument parsing only; each command calls its run module.

``newsdedup measure | calibrate | crosshost | run | dedupe | join |
evaluate-pairs | evaluate-clusters | signals | candidates | evaluate-gold |
story-signals | fetch``. Each ``_cmd_*`` turns the parsed arguments into the
options of one module of :mod:`newsdedup.runs` and calls its ``run_*``; the
corpus commands read one corpus (the pinned archive when no path is given) and
write under ``results/<corpus-name>/``. The scripts in ``measure/`` and
``calibrate/`` are thin wrappers around :func:`main`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from newsdedup import paths
from newsdedup.corpus.load import CorpusError, LoadResult
from newsdedup.runs.calibrate import CalibrateOptions, EvidenceOptions, run_calibrate
from newsdedup.runs.crosshost import CrossHostOptions, run_crosshost
from newsdedup.runs.load import load_named
from newsdedup.runs.measure import run_measure_step
from newsdedup.runs.pipeline import run_all
from newsdedup.score.minhash import MinHashParams
from newsdedup.score.scorers import SCORERS
from newsdedup.studies.decoys import DEFAULT_DECOY_DAYS, DEFAULT_PRECISION
from newsdedup.studies.measure import ERROR_PERMS, PUBLISHED_THRESHOLDS, MeasureConfig

UCI_FILE = ("uci-news-aggregator-head", "uci-news-aggregator.head.csv")
"""Default corpus of ``evaluate-clusters``: (folder under shared/corpora, file)."""


def _floats(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(x) for x in text.split(",") if x.strip())
    except ValueError:
        msg = f"expected comma-separated numbers, got {text!r}"
        raise argparse.ArgumentTypeError(msg) from None


def _ints(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        msg = f"expected comma-separated integers, got {text!r}"
        raise argparse.ArgumentTypeError(msg) from None


def _words(text: str) -> tuple[str, ...]:
    return tuple(w.strip() for w in text.split(",") if w.strip())


def _mapping(text: str) -> dict[str, str]:
    out = {}
    for part in text.split(","):
        if "=" not in part:
            raise argparse.ArgumentTypeError(f"expected canonical=field pairs, got {part!r}")
        key, value = part.split("=", 1)
        out[key.strip()] = value.strip()
    return out


def _progress(msg: str) -> None:
    print(f"[newsdedup] {msg}", file=sys.stderr, flush=True)


# --- argument groups and the options they become ---------------------------------


def _add_corpus_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("corpus")
    g.add_argument("corpus", nargs="?", type=Path,
                   help="corpus file (.ts, .jsonl, .csv, .tsv, .parquet); default: the pinned "
                        f"{paths.PALDYN.name} archive, read with the seed dialect")
    g.add_argument("--format", dest="fmt", choices=["ts", "jsonl", "csv", "parquet"],
                   help="file format (default: from the extension)")
    g.add_argument("--dialect", choices=["standard", "seed"],
                   help="TypeScript string reading: 'standard' JS decoding, or 'seed' to "
                        "reproduce the published parser (default: seed for the pinned corpus, "
                        "standard otherwise)")
    g.add_argument("--columns", type=_mapping, default=None,
                   help="field names for canonical columns, e.g. id=ID,title=TITLE,url=URL,"
                        "source=PUBLISHER,published_at=TIMESTAMP")
    g.add_argument("--name", help="results folder name (default: corpus folder or file stem)")
    g.add_argument("--strict", action="store_true",
                   help="fail on the first unusable record instead of reporting and skipping it")
    g.add_argument("--delimiter", type=_delimiter, default=None,
                   help="CSV/TSV field separator, one character ('\\t' or 'tab' for a tab; "
                        "default: ',' and tab for .tsv)")
    g.add_argument("--encoding", default="utf-8",
                   help="text encoding of the corpus file, e.g. cp949 (default: %(default)s)")
    g.add_argument("--out", type=Path, default=paths.RESULTS_DIR,
                   help="results root (default: %(default)s)")


def _delimiter(text: str) -> str:
    named = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "pipe": "|"}
    value = named.get(text.lower(), text)
    if len(value) != 1:
        raise argparse.ArgumentTypeError(f"expected one character (or tab), got {text!r}")
    return value


def _load(args) -> tuple[LoadResult, str]:
    return load_named(args.corpus, args.fmt, args.dialect, args.columns, args.strict, args.name,
                      _progress, sep=args.delimiter, encoding=args.encoding)


def _add_measure_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("measure")
    g.add_argument("--ngrams", type=_ints, default=(3, 4, 5), help="n-gram sizes (default 3,4,5)")
    g.add_argument("--thresholds", type=_floats, default=PUBLISHED_THRESHOLDS,
                   help="thresholds of the table (default 0.7,0.5,0.4,0.3,0.2)")
    g.add_argument("--top-k", type=int, default=12, help="top exact pairs listed (default 12)")
    g.add_argument("--top-ngram", type=int, default=4, help="n of the top-pairs list (default 4)")
    g.add_argument("--num-perm", type=int, default=128, help="MinHash permutations (default 128)")
    g.add_argument("--minhash-seed", type=int, default=42,
                   help="seed of the published hash family's permutations (default 42)")
    g.add_argument("--error-perms", type=_ints, default=ERROR_PERMS,
                   help="permutation counts of the error study (default 16,...,1024)")
    g.add_argument("--no-lsh", action="store_true", help="skip the LSH banding table")
    g.add_argument("--scheme", default="hangul-alnum", help="normalization scheme")


def _measure_config(args) -> MeasureConfig:
    return MeasureConfig(
        ngrams=args.ngrams,
        thresholds=args.thresholds,
        top_k=args.top_k,
        top_ngram=args.top_ngram,
        scheme=args.scheme,
        minhash=MinHashParams(num_perm=args.num_perm, seed=args.minhash_seed),
        error_perms=args.error_perms,
        lsh=not args.no_lsh,
    )


def _add_calibrate_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("calibrate")
    g.add_argument("--n", type=int, default=4, help="n-gram size of the simulation (default 4)")
    g.add_argument("--fractions", type=_floats, default=(0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3),
                   help="word-retention levels f (default 0.9,...,0.3)")
    g.add_argument("--trials", type=int, default=20, help="trials per item (default 20)")
    g.add_argument("--sim-seed", type=int, default=7, help="simulation seed (default 7)")
    g.add_argument("--min-words", type=int, default=8, help="skip items with fewer words")
    g.add_argument("--method", choices=["exact", "fast", "reference"], default="exact",
                   help="exact: the published draw order, vectorized (default); fast: own "
                        "generator; reference: plain Python, slow")
    g = p.add_argument_group("evidence (estimated precision and recall per threshold)")
    g.add_argument("--decoy-field", metavar="NAME",
                   help="column whose differing values mark pairs that cannot be one story "
                        "(e.g. a section or category column)")
    g.add_argument("--decoy-days", type=float, default=DEFAULT_DECOY_DAYS, metavar="D",
                   help="pairs published at least D days apart are decoys (default %(default)g)")
    g.add_argument("--decoy-pairs", type=Path, metavar="FILE",
                   help="CSV of known-distinct pairs (columns id_i, id_j; ids as in the corpus)")
    g.add_argument("--precision", type=float, default=DEFAULT_PRECISION, metavar="P",
                   help="target precision of the recommended threshold (default %(default)g)")
    g.add_argument("--gold", type=Path, metavar="FILE",
                   help="labelled pairs (data/gold format, e.g. from `newsdedup label-sheet`): "
                        "measured precision and recall, which beat the estimates")
    g.add_argument("--story-column", metavar="COL",
                   help="story id column (equal ids: one story): measured precision and recall")


def _calibrate_options(args) -> CalibrateOptions:
    evidence = EvidenceOptions(decoy_field=args.decoy_field, decoy_days=args.decoy_days,
                               decoy_pairs=args.decoy_pairs, precision=args.precision,
                               gold=args.gold, story_column=args.story_column)
    return CalibrateOptions(n=args.n, fractions=args.fractions, trials=args.trials,
                            seed=args.sim_seed, min_words=args.min_words, method=args.method,
                            evidence=evidence)


def _add_crosshost_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("cross-host")
    g.add_argument("--hosts", type=_words,
                   default=("deepmind.google", "blog.google"),
                   help="host set whose cross pairs are studied (default deepmind.google,"
                        "blog.google)")
    g.add_argument("--window-days", type=int, default=3, help="date window, days (default 3)")
    g.add_argument("--cross-n", type=int, default=4, help="n-gram size (default 4)")


def _crosshost_options(args) -> CrossHostOptions:
    return CrossHostOptions(hosts=args.hosts, window_days=args.window_days, n=args.cross_n)


def _add_signal_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("signals and detector")
    g.add_argument("--relations", default=("same-org",),
                   type=_words,
                   help="host relations the host rule keeps: same-host, same-org, cross-org "
                        "(default same-org: different hosts of one organisation)")
    g.add_argument("--max-days", type=float, default=1.0,
                   help="date window of the date rule, days (default 1)")
    g.add_argument("--min-shared", type=int, default=1,
                   help="shared non-brand entities the entity rule needs (default 1)")
    for rule in ("host", "date", "entity", "version"):
        g.add_argument(f"--no-{rule}", action="store_true", help=f"switch the {rule} rule off")
    g.add_argument("--host-orgs", type=_mapping, default=None,
                   help="extra host=organisation pairs, e.g. blog.example=example")
    g.add_argument("--entity-unit", choices=["run", "token"], default="run",
                   help="run: a run of capitalized tokens is one name (default); token: each "
                        "capitalized token is one (English title-case headlines)")
    g.add_argument("--no-korean", action="store_true",
                   help="skip Korean proper nouns (kiwipiepy)")
    g.add_argument("--signal-n", type=int, default=4, help="n-gram size of the surface scores")


def _signal_options(args):
    from newsdedup.runs.signals import SignalOptions
    from newsdedup.signals.detector import DetectorConfig
    from newsdedup.signals.entities import EntityConfig
    from newsdedup.signals.pairs import HOST_ORGS, SignalConfig

    signals = SignalConfig(n=args.signal_n, host_orgs=HOST_ORGS | dict(args.host_orgs or {}),
                           entities=EntityConfig(unit=args.entity_unit,
                                                 korean=not args.no_korean))
    detector = DetectorConfig(host=not args.no_host, relations=args.relations,
                              date=not args.no_date, max_days=args.max_days,
                              entity=not args.no_entity, min_shared=args.min_shared,
                              version=not args.no_version)
    return SignalOptions(signals=signals, detector=detector)


# --- commands: each calls one run module ------------------------------------------


def _cmd_measure(args) -> None:
    corpus, name = _load(args)
    run_measure_step(corpus, name, args.out, _measure_config(args), _progress)


def _cmd_calibrate(args) -> None:
    corpus, name = _load(args)
    run_calibrate(corpus, name, args.out, _calibrate_options(args), _progress)


def _cmd_label_sheet(args) -> None:
    from newsdedup.cluster.dedupe import DedupeConfig
    from newsdedup.runs.label_sheet import run_label_sheet

    corpus, name = _load(args)
    calibration = args.calibration or args.out / name / "calibration.json"
    if not Path(calibration).is_file():
        raise ValueError(f"{calibration} not found: run `newsdedup calibrate` first (or pass "
                         "--calibration)")
    config = DedupeConfig.from_calibration(calibration)
    run_label_sheet(corpus, name, args.out, config, args.halfwidth, args.bin_width, args.seed,
                    args.output, _progress)


def _cmd_crosshost(args) -> None:
    corpus, name = _load(args)
    run_crosshost(corpus, name, args.out, _crosshost_options(args), _progress)


def _cmd_run(args) -> None:
    corpus, name = _load(args)
    run_all(corpus, name, args.out, _measure_config(args), _calibrate_options(args),
            _crosshost_options(args), _progress)
    _progress(f"all results under {args.out / name}")


def _cmd_dedupe(args) -> None:
    from newsdedup.runs.dedupe import dedupe_config, load_reference, run_dedupe

    corpus, name = _load(args)
    fields = {k: v for k, v in {
        "n": args.dedupe_n, "scorer": args.scorer, "text": args.text, "gate": args.gate,
        "syndicators": args.syndicators, "opaque_hosts": args.opaque_hosts,
        "num_perm": args.num_perm, "minhash_family": args.minhash_family,
        "minhash_seed": args.minhash_seed}.items() if v is not None}
    config = dedupe_config(fields, args.calibration, args.threshold)
    reference = None if args.reference is None else load_reference(
        args.reference, args.reference_columns, args.dialect or "standard", _progress)
    run_dedupe(corpus, name, args.out, config, _progress, reference=reference, sweep=args.sweep)


def _cmd_join(args) -> None:
    from newsdedup.runs.join import JoinOptions, run_join

    corpus, name = _load(args)
    options = JoinOptions(threshold=args.threshold, n=args.join_n, text=args.text,
                          scheme=args.scheme, top_k=args.top_k, scheduler=args.scheduler,
                          lsh_threshold=args.lsh_threshold, lsh_recall=args.lsh_recall,
                          num_perm=args.num_perm, minhash_family=args.minhash_family)
    run_join(corpus, name, args.out, options, _progress)


def _cmd_evaluate_pairs(args) -> None:
    from newsdedup.runs.evaluate_pairs import PairStudyOptions, run_pair_study

    options = PairStudyOptions(select=args.select, test=args.test, n_resamples=args.resamples,
                               seed=args.seed)
    run_pair_study(args.corpora, args.out, options, _progress, ngrams=args.ngrams)


def _cmd_evaluate_clusters(args) -> None:
    from newsdedup.runs.evaluate_clusters import ClusterStudyOptions, run_cluster_study

    if args.corpus is None:
        args.corpus = paths.shared_corpus_file(*UCI_FILE)
        args.columns = args.columns or dict(paths.UCI_COLUMNS)
    corpus, name = _load(args)
    if args.name is None:
        name = f"{name}-sample{args.stories}" if args.stories else name
    options = ClusterStudyOptions(story_col=args.story_col, stories=args.stories,
                                  sample_seed=args.sample_seed, n=args.cluster_n,
                                  thresholds=args.cluster_thresholds,
                                  examples_at=args.examples_at,
                                  reference_corpora=args.reference)
    run_cluster_study(corpus, name, args.out, options, _progress, pairs_n=args.pairs_n)


def _cmd_signals(args) -> None:
    from newsdedup.runs.signals import run_signals

    corpus, name = _load(args)
    run_signals(corpus, name, args.out, _signal_options(args), _progress)


def _cmd_candidates(args) -> None:
    from newsdedup.runs.signals import run_candidates

    corpus, name = _load(args)
    run_candidates(corpus, name, args.out, args.quota, _signal_options(args), args.output,
                   _progress)


def _cmd_evaluate_gold(args) -> None:
    from newsdedup.runs.signals import run_evaluate_gold

    corpus, name = _load(args)
    gold = args.gold or paths.DATA_DIR / "gold" / f"{name}.csv"
    if not gold.is_file():
        raise ValueError(f"gold file {gold} not found; write one with `newsdedup candidates` "
                         "and label it, or pass --gold")
    run_evaluate_gold(corpus, name, args.out, gold, _signal_options(args), _progress)


def _cmd_story_signals(args) -> None:
    from newsdedup.runs.signals import run_story_signals

    corpus, name = _load(args)
    run_story_signals(corpus, name, args.out, args.story_col, options=_signal_options(args),
                      progress=_progress)


def _cmd_figures(args) -> None:
    import matplotlib

    from newsdedup.plots.write import write_all

    # A headless backend: the command runs in make and CI, where no display exists.
    # Set here, not at import, so importing a plot module in a notebook leaves its backend alone.
    matplotlib.use("Agg")
    for path in write_all(args.name, args.root, which=args.only):
        print(path)


def _cmd_fetch(args) -> None:
    from newsdedup.runs.fetch import fetch_pinned

    fetch_pinned(_progress)


# --- the parser: one function per command group ---------------------------------


def _add_figures_command(sub) -> None:
    from newsdedup.plots.write import KINDS

    p = sub.add_parser("figures", help="draw the figures from the result tables already written",
                       description="Draw PNG (and SVG) figures from the tables under the "
                                   "results root; nothing is recomputed. A missing table is "
                                   "named with the command that writes it.")
    p.add_argument("name", nargs="?", default=None,
                   help=f"corpus name, the folder under the results root "
                        f"(default: {paths.PALDYN.name})")
    p.add_argument("--root", type=Path, default=None,
                   help=f"results root (default: {paths.RESULTS_DIR})")
    p.add_argument("--only", type=_words, default=KINDS, metavar="KINDS",
                   help=f"comma-separated figure kinds out of {','.join(KINDS)} "
                        f"(default: all): corpus = results/<name>/figures/, eval = "
                        f"results/<dataset>/eval/figures/, signals = results/<name>/signals/")
    p.set_defaults(func=_cmd_figures)


def _add_fetch_command(sub) -> None:
    p = sub.add_parser("fetch", help="download the pinned corpus into data/external (network)",
                       description="Download the pinned archive by commit and verify its sha256.")
    p.set_defaults(func=_cmd_fetch)


def _add_published_commands(sub) -> None:
    """measure, calibrate, crosshost and run: the published blocks of one corpus."""
    p = sub.add_parser("measure", help="exact Jaccard vs MinHash tables (published block 1)",
                       description="Exact all-pairs Jaccard against MinHash for n = 3, 4, 5: "
                                   "errors, threshold table, LSH, top pairs, error vs k.")
    _add_corpus_args(p)
    _add_measure_args(p)
    p.set_defaults(func=_cmd_measure)
    p = sub.add_parser("calibrate", help="sensitivity simulation, sweeps, calibration.json "
                                         "(published block 2)",
                       description="Word-retention sensitivity simulation, threshold sweep and "
                                   "calibrated threshold band with its evidence.")
    _add_corpus_args(p)
    _add_calibrate_args(p)
    p.set_defaults(func=_cmd_calibrate)
    p = sub.add_parser("label-sheet", help="stratified labeling sheet around the calibrated "
                                           "threshold (the labeling loop)",
                       description="Sample the pairs the calibrated dedupe compares in two score "
                                   "bins, just below and at/above the recommended threshold, so "
                                   "that ~200 labels give each bin's precision within +-0.1 "
                                   "(95%%). Fill in 'label', then `newsdedup calibrate --gold "
                                   "SHEET`. Writes results/<name>/calibrate/to_label.csv.")
    _add_corpus_args(p)
    p.add_argument("--calibration", type=Path,
                   help="calibration.json (default results/<name>/calibration.json)")
    p.add_argument("--halfwidth", type=float, default=0.1,
                   help="wanted half-width of each bin's 95%% interval (default 0.1)")
    p.add_argument("--bin-width", type=float, default=0.05,
                   help="width of the bin below the threshold (default 0.05)")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    p.add_argument("--output", type=Path, help="sheet path")
    p.set_defaults(func=_cmd_label_sheet)
    p = sub.add_parser("crosshost", help="cross-host pairs (published block 3)",
                       description="Hosts from URLs, cross pairs of a host set, date window.")
    _add_corpus_args(p)
    _add_crosshost_args(p)
    p.set_defaults(func=_cmd_crosshost)
    p = sub.add_parser("run", help="measure + calibrate + crosshost (+ dedupe) on one corpus",
                       description="Everything for one corpus, written to results/<name>/: "
                                   "measure, calibrate, cross-host, and a dedupe with the "
                                   "calibrated threshold when calibration recommends one.")
    _add_corpus_args(p)
    _add_measure_args(p)
    _add_calibrate_args(p)
    _add_crosshost_args(p)
    p.set_defaults(func=_cmd_run)


def _add_dedupe_command(sub) -> None:
    p = sub.add_parser("dedupe", help="dedupe a corpus (seed-000 pipeline) and list its groups",
                       description="Exact pass, then near-duplicate pass (IDF or plain Jaccard, "
                                   "subject gate, greedy clustering against representatives). "
                                   "Default: the seed-000 settings, threshold 0.30.")
    _add_corpus_args(p)
    g = p.add_argument_group("dedupe")
    src = g.add_mutually_exclusive_group()
    src.add_argument("--calibration", type=Path,
                     help="calibration.json to take the threshold (and its scorer, n, text) from")
    src.add_argument("--threshold", type=float, help="near-duplicate threshold in [0, 1]")
    g.add_argument("--scorer", choices=list(SCORERS),
                   help="score of the near pass (default idf)")
    g.add_argument("--n", dest="dedupe_n", type=int, help="character n-gram size (default 3)")
    g.add_argument("--text", choices=["title", "title+summary"], help="what is compared")
    g.add_argument("--gate", action=argparse.BooleanOptionalAction, default=None,
                   help="subject gate on the headline's leading token (default on)")
    g.add_argument("--reference", type=Path,
                   help="reference corpus whose document frequencies weigh the idf scorer "
                        "(default: the batch itself)")
    g.add_argument("--reference-columns", type=_mapping, default=None,
                   help="field names of the reference corpus, as --columns")
    g.add_argument("--syndicators", type=_words,
                   help="comma-separated syndicator hosts (default v.daum.net,news.naver.com,"
                        "news.nate.com)")
    g.add_argument("--opaque-hosts", type=_words,
                   help="comma-separated redirect hosts (default news.google.com)")
    g.add_argument("--num-perm", type=int, help="MinHash signature length (scorer minhash)")
    g.add_argument("--minhash-family", choices=["crc32-mersenne61", "datasketch"],
                   help="MinHash hash family (scorer minhash)")
    g.add_argument("--minhash-seed", type=int, help="MinHash seed (scorer minhash)")
    g.add_argument("--sweep", type=_floats, default=None, metavar="T1,T2,...",
                   help="also sweep these thresholds for every scorer, gate on and off, "
                        "and write dedupe/sweep.csv (items left per threshold)")
    p.set_defaults(func=_cmd_dedupe)


def _add_join_command(sub) -> None:
    p = sub.add_parser("join", help="exact all-pairs Jaccard join at a threshold (scales to 1M)",
                       description="Every pair with exact character n-gram Jaccard >= the "
                                   "threshold, without the N x N matrix (prefix-filtered sparse "
                                   "join, exact verification); top-K neighbours, the score "
                                   "histogram and, optionally, MinHash LSH recall per bin. "
                                   "Writes results/<name>/join/.")
    _add_corpus_args(p)
    g = p.add_argument_group("join")
    g.add_argument("--threshold", type=float, default=0.5, help="Jaccard threshold (default 0.5)")
    g.add_argument("--n", dest="join_n", type=int, default=3, help="n-gram size (default 3)")
    g.add_argument("--text", choices=["title", "title+summary"], default="title",
                   help="what is compared (default title)")
    g.add_argument("--scheme", default="hangul-alnum", help="normalization (default hangul-alnum)")
    g.add_argument("--top-k", type=int, default=0, help="write the k best neighbours per item")
    g.add_argument("--scheduler", help="run on Dask: a scheduler address, or 'local' for a "
                                       "local cluster")
    g.add_argument("--lsh-threshold", type=float,
                   help="also measure MinHash LSH recall per bin, banding chosen for this J")
    g.add_argument("--lsh-recall", type=float, default=None,
                   help="recall wanted at --lsh-threshold (default: datasketch's optimiser)")
    g.add_argument("--num-perm", type=int, default=128, help="MinHash permutations (default 128)")
    g.add_argument("--minhash-family", choices=["crc32-mersenne61", "datasketch"],
                   default="crc32-mersenne61", help="MinHash family (default crc32-mersenne61)")
    p.set_defaults(func=_cmd_join)


def _add_evaluate_commands(sub) -> None:
    """evaluate-pairs and evaluate-clusters: the labelled data."""
    p = sub.add_parser("evaluate-pairs", help="every scorer on labelled headline pairs, "
                                              "Korean against English (results/<corpus>/eval)",
                       description="KorSTS and STS-B news-headline pairs: plain, batch-IDF and "
                                   "reference-IDF Jaccard (n = 2..5) and MinHash (n = 3, k = "
                                   "16..256), subject gate off and on; thresholds chosen on one "
                                   "split, AUC / AP / P / R / F1 with bootstrap intervals on the "
                                   "other; the aligned Korean and English pairs compared.")
    p.add_argument("--corpora", type=Path, default=paths.CORPORA_DIR,
                   help="folder holding korsts/ and stsb-en/ (default: %(default)s)")
    p.add_argument("--select", default="train", help="split where thresholds are chosen "
                                                     "(default train)")
    p.add_argument("--test", default="dev", help="split where they are measured (default dev)")
    p.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (1000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--ngrams", type=_ints, default=(), metavar="N1,N2,...",
                   help="also write the per-n tables without intervals (plain Jaccard at these "
                        "n, test split) to results/sts-headlines-<test>/evaluate/ (2,3,4: "
                        "the tables of the retired evaluate-sts)")
    p.add_argument("--out", type=Path, default=paths.RESULTS_DIR, help="results root")
    p.set_defaults(func=_cmd_evaluate_pairs)
    p = sub.add_parser("evaluate-clusters", help="the dedupe module against story ids (UCI)",
                       description="Runs the dedupe per scorer, gate and threshold on a corpus "
                                   "with story ids (default: the UCI aggregator sample) and "
                                   "writes pairwise and B-cubed precision / recall, items "
                                   "left, worst false merges, most similar missed pairs and "
                                   "label noise to results/<name>/eval/.")
    _add_corpus_args(p)
    p.add_argument("--story-col", default="STORY", help="story id column (default STORY)")
    p.add_argument("--stories", type=int, default=0,
                   help="evaluate a seeded sample of this many whole stories (default 0: all)")
    p.add_argument("--sample-seed", type=int, default=0, help="seed of the story sample")
    p.add_argument("--n", dest="cluster_n", type=int, default=3, help="n-gram size (default 3)")
    p.add_argument("--thresholds", dest="cluster_thresholds", type=_floats,
                   default=(0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
                   help="dedupe thresholds (default 0.2,...,0.9)")
    p.add_argument("--examples-at", type=float, default=0.3,
                   help="threshold (one of --thresholds) of the false-merge and missed-pair "
                        "lists (default 0.3)")
    p.add_argument("--reference", type=Path, default=paths.CORPORA_DIR,
                   help="folder with stsb-en/ whose news sentences give reference IDF for the "
                        "extra 'idf-ref' runs (default: %(default)s)")
    p.add_argument("--pairs-n", type=int, default=None, metavar="N",
                   help="also score every pair at this n against the story ids, without a "
                        "dedupe (precision, bound; results/<name>/evaluate/stories_*; 4: the "
                        "tables of the retired evaluate-stories)")
    p.set_defaults(func=_cmd_evaluate_clusters)


def _add_signal_commands(sub) -> None:
    p = sub.add_parser("signals", help="pair signals (host, date gap, entities), detector funnel "
                                       "and candidates",
                       description="Surface scores, host relation, date gap and shared entities "
                                   "of every pair; the rule-based detector's funnel (all pairs -> "
                                   "host -> date -> entity -> version) and every pair it proposes. "
                                   "Writes results/<name>/signals/.")
    _add_corpus_args(p)
    _add_signal_args(p)
    p.set_defaults(func=_cmd_signals)
    p = sub.add_parser("candidates", help="write a labeling sheet of candidate pairs",
                       description="The top pairs of every surface scorer (a quota each) and the "
                                   "detector's candidates, texts side by side, with empty label "
                                   "and reason columns (default results/<name>/signals/"
                                   "to_label.csv).")
    _add_corpus_args(p)
    _add_signal_args(p)
    p.add_argument("--quota", type=int, default=10, help="pairs per scorer (default 10)")
    p.add_argument("--output", type=Path, help="sheet path (default results/<name>/signals/"
                                                "to_label.csv)")
    p.set_defaults(func=_cmd_candidates)
    p = sub.add_parser("evaluate-gold", help="precision and recall of scorers and detector on "
                                             "a gold file",
                       description="Read a labelled sheet (id_i, id_j, label, reason; labels "
                                   "same / followup / related / different) and report every "
                                   "scorer's and the detector's precision and recall on it.")
    _add_corpus_args(p)
    _add_signal_args(p)
    p.add_argument("--gold", type=Path, help="gold CSV (default data/gold/<name>.csv)")
    p.set_defaults(func=_cmd_evaluate_gold)
    p = sub.add_parser("story-signals", help="each pair signal against story ids (e.g. UCI)",
                       description="Precision and recall of surface thresholds, host, "
                                   "timestamp window and shared entities, alone and combined, "
                                   "against a story-id column; all pairs, in blocks.")
    _add_corpus_args(p)
    _add_signal_args(p)
    p.add_argument("--story-col", default="STORY", help="story id column (default STORY)")
    p.set_defaults(func=_cmd_story_signals)


def build_parser() -> argparse.ArgumentParser:
    """The ``newsdedup`` argument parser with every command.

    Returns:
        The parser; each command sets ``func``, the ``_cmd_*`` that runs it.
    """
    parser = argparse.ArgumentParser(
        prog="newsdedup",
        description="Measure and calibrate near-duplicate detection of news items. Without a "
                    "corpus path every command works on the pinned archive behind the "
                    "published tables.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    _add_published_commands(sub)
    _add_dedupe_command(sub)
    _add_join_command(sub)
    _add_evaluate_commands(sub)
    _add_signal_commands(sub)
    _add_figures_command(sub)
    _add_fetch_command(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one ``newsdedup`` command.

    Args:
        argv: Arguments without the program name; None for ``sys.argv[1:]``.

    Returns:
        0 on success, 2 when the command failed with a readable error (printed).
    """
    args = build_parser().parse_args(argv)
    start = time.perf_counter()
    try:
        args.func(args)
    except (CorpusError, paths.CorpusNotFound, ValueError, OSError) as exc:
        print(f"newsdedup: error: {exc}", file=sys.stderr)
        return 2
    _progress(f"done in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

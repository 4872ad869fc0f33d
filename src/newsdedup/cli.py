"""Command line: ``newsdedup measure | calibrate | crosshost | run | fetch``.

Every command reads one corpus (the pinned archive when no path is given),
computes, prints the tables and writes them under ``results/<corpus-name>/``.
The scripts in ``measure/`` and ``calibrate/`` are thin wrappers around this.
"""

from __future__ import annotations

import argparse
import sys
import time
import urllib.request
import warnings
from pathlib import Path

from newsdedup import paths
from newsdedup.corpus.load import CorpusError, CorpusWarning, LoadResult, load_corpus
from newsdedup.runs.pipeline import (
    CalibrateOptions,
    CrossHostOptions,
    run_all,
    run_calibrate,
    run_crosshost,
    run_dedupe,
    run_evaluate_stories,
    run_evaluate_sts,
    run_measure_step,
)
from newsdedup.score.minhash import MinHashParams
from newsdedup.score.scorers import SCORERS
from newsdedup.studies.measure import ERROR_PERMS, PUBLISHED_THRESHOLDS, MeasureConfig


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
    g.add_argument("--out", type=Path, default=paths.RESULTS_DIR,
                   help="results root (default: %(default)s)")


def _load(args) -> tuple[LoadResult, str]:
    if args.corpus is None:
        path = paths.locate_pinned()
        dialect = args.dialect or "seed"
        name = args.name or paths.PALDYN.name
    else:
        path = args.corpus
        dialect = args.dialect or "standard"
        name = args.name or (path.parent.name if path.parent.name not in ("", ".") else path.stem)
    _progress(f"loading {path} ({dialect} dialect)")
    with warnings.catch_warnings():
        # Rejected records are printed one per line below; the summary warning would repeat them.
        warnings.simplefilter("ignore", CorpusWarning)
        corpus = load_corpus(path, args.fmt, columns=args.columns, strict=args.strict,
                             dialect=dialect)
    for rej in corpus.rejected:
        where = f"line {rej.line}" if rej.line is not None else f"record {rej.record}"
        _progress(f"rejected {path.name} {where}: {rej.reason}")
    return corpus, name


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


def _add_crosshost_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("cross-host")
    g.add_argument("--hosts", type=lambda s: tuple(x.strip() for x in s.split(",") if x.strip()),
                   default=("deepmind.google", "blog.google"),
                   help="host set whose cross pairs are studied (default deepmind.google,"
                        "blog.google)")
    g.add_argument("--window-days", type=int, default=3, help="date window, days (default 3)")
    g.add_argument("--cross-n", type=int, default=4, help="n-gram size (default 4)")


def _cmd_measure(args) -> None:
    corpus, name = _load(args)
    run_measure_step(corpus, name, args.out, _measure_config(args), _progress)


def _calibrate_options(args) -> CalibrateOptions:
    return CalibrateOptions(n=args.n, fractions=args.fractions, trials=args.trials,
                            seed=args.sim_seed, min_words=args.min_words, method=args.method)


def _crosshost_options(args) -> CrossHostOptions:
    return CrossHostOptions(hosts=args.hosts, window_days=args.window_days, n=args.cross_n)


def _cmd_calibrate(args) -> None:
    corpus, name = _load(args)
    run_calibrate(corpus, name, args.out, _calibrate_options(args), _progress)


def _cmd_crosshost(args) -> None:
    corpus, name = _load(args)
    run_crosshost(corpus, name, args.out, _crosshost_options(args), _progress)


def _cmd_run(args) -> None:
    corpus, name = _load(args)
    run_all(corpus, name, args.out, _measure_config(args), _calibrate_options(args),
            _crosshost_options(args), _progress)
    _progress(f"all results under {args.out / name}")


def _cmd_dedupe(args) -> None:
    from newsdedup.cluster.dedupe import DedupeConfig

    corpus, name = _load(args)
    fields = {k: v for k, v in {
        "n": args.dedupe_n, "scorer": args.scorer, "text": args.text, "gate": args.gate,
        "syndicators": args.syndicators, "opaque_hosts": args.opaque_hosts,
        "num_perm": args.num_perm, "minhash_family": args.minhash_family,
        "minhash_seed": args.minhash_seed}.items() if v is not None}
    if args.calibration is not None:
        cfg = DedupeConfig.from_calibration(args.calibration, **fields)
    elif args.threshold is not None:
        cfg = DedupeConfig(threshold=args.threshold, threshold_source="command line",
                           rationale="given on the command line", **fields)
    else:
        cfg = DedupeConfig(**fields)
    reference = None
    if args.reference is not None:
        _progress(f"loading reference corpus {args.reference}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CorpusWarning)
            reference = load_corpus(args.reference, columns=args.reference_columns,
                                    dialect=args.dialect or "standard")
    run_dedupe(corpus, name, args.out, cfg, _progress, reference=reference,
               sweep=args.sweep)


def _words(text: str) -> tuple[str, ...]:
    return tuple(w.strip() for w in text.split(",") if w.strip())


def _cmd_join(args) -> None:
    from newsdedup.score.join import write_join
    from newsdedup.score.lsh import choose_bands
    from newsdedup.text.normalize import get_scheme, item_text
    from newsdedup.text.shingle import shingle_matrix

    corpus, name = _load(args)
    items = corpus.items
    norm = get_scheme(args.scheme)
    raw = (items.title.fillna("") if args.text == "title" else
           [item_text(t, s) for t, s in zip(items.title.fillna(""), items.summary.fillna(""),
                                            strict=True)])
    _progress(f"shingling {len(items)} items (n={args.join_n}, {args.scheme})")
    shingled = shingle_matrix([norm(t) for t in raw], args.join_n)
    lsh = None
    if args.lsh_threshold is not None:
        mh = (MinHashParams.published(args.num_perm) if args.minhash_family == "crc32-mersenne61"
              else MinHashParams.datasketch(args.num_perm))
        lsh = (mh, choose_bands(args.lsh_threshold, args.num_perm, args.lsh_recall))
    params = {"corpus": name, "n": args.join_n, "scheme": args.scheme, "text": args.text,
              "rejected_records": len(corpus.rejected)}
    client = None
    if args.scheduler:
        from distributed import Client, LocalCluster

        client = Client(LocalCluster(dashboard_address=":0") if args.scheduler == "local"
                        else args.scheduler)
        params["scheduler"] = args.scheduler
    try:
        write_join(items["id"].astype(str).tolist(), shingled, args.threshold,
                   args.out / name / "join", params, k=args.top_k, lsh=lsh, client=client,
                   progress=_progress)
    finally:
        if client is not None:
            client.close()


def _cmd_evaluate_sts(args) -> None:
    run_evaluate_sts(args.korsts, args.stsb, args.name, args.out, args.ngrams, _progress)


def _cmd_evaluate_pairs(args) -> None:
    from newsdedup.runs.pipeline import PairStudyOptions, run_pair_study

    options = PairStudyOptions(select=args.select, test=args.test, n_resamples=args.resamples,
                               seed=args.seed)
    run_pair_study(args.corpora, args.out, options, _progress)


def _cmd_evaluate_clusters(args) -> None:
    from newsdedup.runs.pipeline import ClusterStudyOptions, run_cluster_study

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
    run_cluster_study(corpus, name, args.out, options, _progress)


UCI_FILE = ("uci-news-aggregator-head", "uci-news-aggregator.head.csv")


def _cmd_evaluate_stories(args) -> None:
    corpus, name = _load(args)
    run_evaluate_stories(corpus, name, args.out, args.story_col, args.story_n, _progress)


def _cmd_fetch(args) -> None:
    pinned = paths.PALDYN
    target = paths.EXTERNAL_DIR / pinned.name / pinned.filename
    if target.is_file() and paths.sha256_file(target) == pinned.sha256:
        _progress(f"{target} already present and verified")
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    _progress(f"downloading {pinned.url}")
    with urllib.request.urlopen(pinned.url, timeout=60) as resp:  # noqa: S310 (pinned https URL)
        data = resp.read()
    import hashlib

    got = hashlib.sha256(data).hexdigest()
    if got != pinned.sha256:
        raise SystemExit(f"download of {pinned.url} has sha256 {got}, expected {pinned.sha256}; "
                         "nothing written")
    target.write_bytes(data)
    _progress(f"wrote {target} ({len(data):,} bytes, sha256 verified)")


def _add_signal_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("signals and detector")
    g.add_argument("--relations", default=("same-org",),
                   type=lambda s: tuple(x.strip() for x in s.split(",") if x.strip()),
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
    parser = argparse.ArgumentParser(
        prog="newsdedup",
        description="Measure and calibrate near-duplicate detection of news items. Without a "
                    "corpus path every command works on the pinned archive behind the "
                    "published tables.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
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

    p = sub.add_parser("evaluate-sts", help="labelled headline pairs: KorSTS vs STS-B",
                       description="How well n-gram Jaccard separates same (grade >= 4) from "
                                   "different (<= 1) news-headline pairs, Korean and English.")
    split = paths.CORPORA_DIR
    p.add_argument("--korsts", type=Path, default=split / "korsts" / "sts-dev.tsv",
                   help="KorSTS file (default: %(default)s)")
    p.add_argument("--stsb", type=Path, default=split / "stsb-en" / "sts-dev.csv",
                   help="STS-B file with the same rows (default: %(default)s)")
    p.add_argument("--ngrams", type=_ints, default=(2, 3, 4), help="n-gram sizes (default 2,3,4)")
    p.add_argument("--name", default="sts-headlines-dev", help="results folder name")
    p.add_argument("--out", type=Path, default=paths.RESULTS_DIR, help="results root")
    p.set_defaults(func=_cmd_evaluate_sts)
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
    p.set_defaults(func=_cmd_evaluate_clusters)
    p = sub.add_parser("evaluate-stories", help="precision against story ids (e.g. UCI)",
                       description="All-pairs Jaccard against an event-cluster id column.")
    _add_corpus_args(p)
    p.add_argument("--story-col", default="STORY", help="story id column (default STORY)")
    p.add_argument("--n", dest="story_n", type=int, default=4, help="n-gram size (default 4)")
    p.set_defaults(func=_cmd_evaluate_stories)
    p = sub.add_parser("fetch", help="download the pinned corpus into data/external (network)",
                       description="Download the pinned archive by commit and verify its sha256.")
    p.set_defaults(func=_cmd_fetch)
    _add_signal_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
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

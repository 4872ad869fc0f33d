"""The commands: each turns parsed arguments into one run module's options and calls it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

from newsdedup import paths
from newsdedup.cli.options import (
    UCI_FILE,
    calibrate_options,
    cluster_study_config,
    crosshost_options,
    embed_cache,
    feed_scheme_of,
    join_config,
    load,
    measure_config,
    pair_study_config,
    progress,
    signal_options,
    warn_empty,
    warn_scripts,
    warn_unconfirmed,
)
from newsdedup.plots import KINDS as FIGURE_KINDS

# --- commands: each calls one run module ------------------------------------------
# Each imports its run module when it runs: a command loads only what it uses
# (`newsdedup measure --crosshost` never imports matplotlib, datasketch or the calibration).


def cmd_measure(args) -> None:
    """Run ``newsdedup measure`` with the parsed arguments (``--crosshost``: cross-host pairs)."""
    if args.crosshost:
        cmd_crosshost(args)
        return
    from newsdedup.runs.measure import run_measure_step

    corpus, name = load(args)
    run_measure_step(corpus, name, args.out, measure_config(args), progress)


def cmd_calibrate(args) -> None:
    """Run ``newsdedup calibrate`` with the parsed arguments."""
    from newsdedup.runs.calibrate import run_calibrate, shown_path

    corpus, name = load(args)
    options = calibrate_options(args)
    run_calibrate(corpus, name, args.out, options, progress,
                  rerun=rerun_command(), shown_root=shown_path(args.out))


def rerun_command() -> list[str]:
    """The command line as run, without a --labels/--gold it had (the next step adds one)."""
    argv, out, skip = sys.argv[1:], ["newsdedup"], False
    for a in argv:
        if skip:
            skip = False
            continue
        if a in ("--labels", "--gold"):
            skip = True
            continue
        if a.startswith(("--labels=", "--gold=")):
            continue
        out.append(a)
    return out


def cmd_label(args) -> None:
    """Run ``newsdedup label`` with the parsed arguments."""
    from newsdedup.calibration.label import label_sheet, strip_text

    if args.sheet is None:
        raise ValueError("label: name the sheet to label, e.g. newsdedup label "
                         "results/my-feed/calibrate/to_label.csv")

    if args.strip_text is not None:
        n = strip_text(args.sheet, args.strip_text)
        print(f"wrote {args.strip_text}: {n} labelled pairs, ids and labels only")
        return

    def typed() -> Iterator[str]:
        if not sys.stdin.isatty():
            yield from sys.stdin
            return
        while True:
            try:
                yield input("label> ")
            except EOFError:
                return

    label_sheet(args.sheet, typed(), print, args.width)


def cmd_crosshost(args) -> None:
    """Run ``newsdedup measure --crosshost`` with the parsed arguments."""
    from newsdedup.runs.crosshost import run_crosshost

    corpus, name = load(args)
    run_crosshost(corpus, name, args.out, crosshost_options(args), progress)


def cmd_run(args) -> None:
    """Run ``newsdedup run`` with the parsed arguments."""
    from newsdedup.runs.pipeline import run_all

    corpus, name = load(args)
    run_all(corpus, name, args.out, measure_config(args), calibrate_options(args),
            crosshost_options(args), progress, shown_root=args.out, rerun=rerun_command())
    progress(f"all results under {args.out / name}")


def cmd_dedupe(args) -> None:
    """Run ``newsdedup dedupe`` with the parsed arguments."""
    from newsdedup.runs.dedupe import dedupe_config, load_reference, run_dedupe

    corpus, name = load(args, None)
    # A calibration names the scheme it was made with; else the feed's (it names what it drops).
    chosen = args.scheme is None and args.calibration is None
    if chosen:
        args.scheme = feed_scheme_of(corpus)
    if args.calibration is not None and not args.no_model and _model_dedupe(args, corpus, name):
        return
    fields = {k: v for k, v in {
        "n": args.ngram, "scorer": args.scorer, "text": args.text, "gate": args.gate,
        "scheme": args.scheme,
        "syndicators": args.syndicators, "opaque_hosts": args.opaque_hosts,
        "num_perm": args.num_perm, "minhash_family": args.minhash_family,
        "minhash_seed": args.minhash_seed, "rerank": args.rerank}.items() if v is not None}
    if args.scorer == "embedding" or args.rerank is not None:
        if len(args.embeddings) != 1:
            raise ValueError("--embeddings: name one backend for the dedupe")
        cache = embed_cache(args, name)
        fields |= {"embedding": args.embeddings[0],
                   "embed_cache": None if cache is None else str(cache)}
    config = dedupe_config(fields, args.calibration, args.threshold)
    if args.calibration is not None and args.threshold is None:
        warn_unconfirmed(args.calibration)
    if not chosen:
        warn_scripts(corpus, config.scheme)
    else:
        warn_empty(corpus)
    reference = None if args.reference is None else load_reference(
        args.reference, args.reference_columns, args.dialect or "standard", progress)
    run_dedupe(corpus, name, args.out, config, progress, reference=reference, sweep=args.sweep)


MODEL_IGNORES = ("ngram", "scorer", "text", "gate", "scheme", "rerank", "reference", "sweep")
"""dedupe options that choose the character dedupe: refused beside a pair model."""


def _model_dedupe(args, corpus, name: str) -> bool:
    """Dedupe by the calibration's pair model when it holds one with a cut; False otherwise."""
    from newsdedup.cluster.modelled import read_model_spec
    from newsdedup.runs.dedupe import run_model_dedupe

    spec = read_model_spec(args.calibration)
    if spec is None:
        return False
    if spec.cut is None:
        print(f"newsdedup: note: {args.calibration} holds a pair model with no recommended "
              "cut (none reached the target precision by the loop's labels); deduping by its "
              "character threshold", file=sys.stderr)
        return False
    given = [f"--{k}" for k in MODEL_IGNORES if getattr(args, k, None) is not None]
    if given:
        raise ValueError(f"{', '.join(given)}: {args.calibration} holds a pair model, which "
                         "finds and scores its own candidates; add --no-model to dedupe by "
                         "the character threshold with these options")
    warn_unconfirmed(args.calibration, model=True)
    run_model_dedupe(corpus, name, args.out, spec, embed_cache(args, name), progress)
    return True


def cmd_join(args) -> None:
    """Run ``newsdedup join`` with the parsed arguments."""
    from newsdedup.runs.join import run_join

    corpus, name = load(args)
    run_join(corpus, name, args.out, join_config(args), progress)


def cmd_evaluate_pairs(args) -> None:
    """Run ``newsdedup evaluate pairs`` with the parsed arguments."""
    from newsdedup.corpus.pairfile import parse_pair_columns
    from newsdedup.runs.evaluate_pairs import run_pair_file, run_pair_study

    options = pair_study_config(args)
    if args.pairs is None:
        if args.columns or args.name:
            raise ValueError("--columns and --name go with --pairs FILE")
        cache = None if args.no_embed_cache else args.embed_cache
        run_pair_study(args.corpora, args.out, options, progress, ngrams=args.ngrams,
                       embed_cache=cache)
        return
    if not args.columns:
        raise ValueError("--pairs needs --columns a=COL,b=COL,score=COL")
    name = args.name or args.pairs.stem
    run_pair_file(args.pairs, parse_pair_columns(args.columns), name, args.out, options,
                  same_at=args.same_at, different_at=args.different_at,
                  split_seed=args.split_seed, progress=progress,
                  embed_cache=embed_cache(args, name))


def cmd_evaluate_clusters(args) -> None:
    """Run ``newsdedup evaluate clusters`` with the parsed arguments."""
    from newsdedup.runs.evaluate_clusters import run_cluster_study

    if args.corpus is None:
        args.corpus = paths.shared_corpus_file(*UCI_FILE)
        args.columns = args.columns or dict(paths.UCI_COLUMNS)
    corpus, name = load(args)
    if args.name is None:
        name = f"{name}-sample{args.stories}" if args.stories else name
    run_cluster_study(corpus, name, args.out, cluster_study_config(args), progress,
                      pairs_n=args.pairs_ngram, embed_cache=embed_cache(args, name))


def cmd_signals(args) -> None:
    """Run ``newsdedup signals`` with the parsed arguments (``--sheet``: a labeling sheet)."""
    if args.sheet or args.sheet_path is not None:
        cmd_candidates(args)
        return
    from newsdedup.runs.signals import run_signals

    corpus, name = load(args)
    run_signals(corpus, name, args.out, signal_options(args), progress)


def cmd_candidates(args) -> None:
    """Run ``newsdedup signals --sheet`` with the parsed arguments."""
    from newsdedup.runs.signals import run_candidates

    corpus, name = load(args)
    run_candidates(corpus, name, args.out, args.quota, signal_options(args),
                   args.sheet_path, progress)


def cmd_evaluate_gold(args) -> None:
    """Run ``newsdedup evaluate gold`` with the parsed arguments."""
    from newsdedup.runs.signals import run_evaluate_gold

    corpus, name = load(args)
    gold = args.labels or paths.DATA_DIR / "gold" / f"{name}.csv"
    if not gold.is_file():
        raise ValueError(f"labelled sheet {gold} not found; write one with `newsdedup signals "
                         "--sheet` and label it, or pass --labels")
    run_evaluate_gold(corpus, name, args.out, gold, signal_options(args), progress)


def cmd_story_signals(args) -> None:
    """Run ``newsdedup evaluate stories`` with the parsed arguments."""
    from newsdedup.evaluate.story_signals import COSINE_RULES, StoryRules
    from newsdedup.runs.signals import run_story_signals

    corpus, name = load(args)
    # With --cosine the frame has the embedding cosine: its rules join the table.
    rules = StoryRules(cosines=COSINE_RULES) if args.cosine else None
    run_story_signals(corpus, name, args.out, args.story_column, rules=rules,
                      options=signal_options(args), progress=progress)


def cmd_figures(args) -> None:
    """Run ``newsdedup report --figures`` with the parsed arguments."""
    import matplotlib

    from newsdedup.plots.write import write_all

    # A headless backend: the command runs in make and CI, where no display exists.
    # Set here, not at import, so importing a plot module in a notebook leaves its backend alone.
    matplotlib.use("Agg")
    root, name, which = args.out, args.run, args.figures
    if name is not None and Path(name).is_dir() and (root is None or "/" in name):
        # A run folder given by its path: its name and the root holding it.
        folder = Path(name).resolve()
        root, name = folder.parent, folder.name
    if name is not None:
        root = root or _root_of(name)
        paths.results_tree(root, name)
        signals = (Path(root) / name / "signals" / "params.json").is_file()
        if which is FIGURE_KINDS and name != paths.PALDYN.name:
            # Another run has no evaluation tables of its own, and signals only when run.
            which = ("corpus", "signals") if signals else ("corpus",)
    for path in write_all(name, root, which=which, progress=progress):
        print(path)


def _root_of(name: str) -> Path:
    """The results root of a run given by name: ./results, the pinned archive's the checkout's."""
    if name == paths.PALDYN.name and not (paths.OUT_DIR / name).is_dir():
        return paths.RESULTS_DIR
    return paths.OUT_DIR


def cmd_report(args) -> None:
    """Run ``newsdedup report`` with the parsed arguments (``--figures``: the figures only)."""
    from newsdedup.runs.report import run_report

    if args.figures is not None:
        cmd_figures(args)
        return
    run = args.run or paths.PALDYN.name
    folder = Path(run)
    if not folder.is_dir() and "/" not in run:  # a name under --out
        folder = Path(args.out or _root_of(run)) / run
    run_report(folder, progress)


def cmd_fetch(args) -> None:
    """Run ``newsdedup fetch`` with the parsed arguments."""
    from newsdedup.runs.fetch import fetch_pinned

    fetch_pinned(progress)



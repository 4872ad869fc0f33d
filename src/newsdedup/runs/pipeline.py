"""The three runs (measure, calibrate, cross-host): compute, print, write.

Each ``run_*`` function takes a loaded corpus and writes its files under
``<out>/<name>/``; the command line and the notebooks call these, nothing
else holds logic.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from newsdedup import paths
from newsdedup.cluster.dedupe import (
    DedupeConfig,
    dedupe,
    document_frequencies,
)
from newsdedup.cluster.greedy import greedy_clusters
from newsdedup.cluster.sweep import sweep_dedupe, sweep_items_left
from newsdedup.corpus.load import load_corpus
from newsdedup.paths import sha256_file
from newsdedup.runs.files import (
    calibration_console,
    corpus_meta,
    crosshost_console,
    environment,
    markdown_table,
    measure_console,
    sensitivity_console,
    write_crosshost,
    write_csv,
    write_json,
    write_markdown,
    write_measure,
)
from newsdedup.score.jaccard import PairScores, jaccard_matrix, upper_pairs, weighted_jaccard_matrix
from newsdedup.score.minhash import MinHashParams, estimate_matrix, signatures
from newsdedup.studies.calibration import (
    Calibration,
    calibrate,
    default_grid,
    sensitivity_quantiles,
    sweep,
)
from newsdedup.studies.crosshost import CrossHostReport, cross_host
from newsdedup.studies.measure import MeasureConfig, MeasureReport, normalized_texts, run_measure
from newsdedup.studies.sensitivity import SensitivityParams, simulate, texts_from_items
from newsdedup.text.normalize import DEFAULT_SCHEME
from newsdedup.text.shingle import shingle_matrix

Progress = Callable[[str], None]


def _quiet(_msg: str) -> None:
    return None


def exact_scores(items: pd.DataFrame, n: int, scheme: str = DEFAULT_SCHEME) -> PairScores:
    """Exact Jaccard of all pairs of a corpus at n-gram size ``n``."""
    return upper_pairs(jaccard_matrix(shingle_matrix(normalized_texts(items, scheme), n)))


def run_measure_step(corpus, name: str, out: Path, config: MeasureConfig | None = None,
                     progress: Progress = _quiet, echo: bool = True) -> MeasureReport:
    """Measure a corpus, print the published-layout tables, write ``<out>/<name>/measure/``."""
    report = run_measure(corpus.items, config, progress)
    if echo:
        print(measure_console(report, corpus), flush=True)
    files = write_measure(report, corpus, name, out / name / "measure")
    progress(f"measure: wrote {len(files)} files to {out / name / 'measure'}")
    return report


@dataclass(frozen=True)
class CalibrateOptions:
    """Options of the calibrate run (see :class:`newsdedup.studies.sensitivity.SensitivityParams`).

    Attributes:
        n: n-gram size of the simulation, the bound and the sweep.
        fractions: Word-retention levels ``f`` in ``(0, 1]``.
        trials: Simulated pairs per item and level.
        seed: Simulation seed (7 published).
        min_words: Items with fewer words are skipped (and counted).
        method: ``"exact"``, ``"fast"`` or ``"reference"``.
        sweep_lo: First threshold of the sweep.
        sweep_hi: Last threshold of the sweep.
        scheme: Normalization scheme.
    """

    n: int = 4
    fractions: tuple[float, ...] = (0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3)
    trials: int = 20
    seed: int = 7
    min_words: int = 8
    method: str = "exact"
    sweep_lo: float = 0.05
    sweep_hi: float = 0.60
    scheme: str = DEFAULT_SCHEME

    def sensitivity(self) -> SensitivityParams:
        return SensitivityParams(fractions=tuple(self.fractions), n=self.n, trials=self.trials,
                                 seed=self.seed, min_words=self.min_words, scheme=self.scheme,
                                 method=self.method)


def scorer_matrices(items: pd.DataFrame, n: int, scheme: str = DEFAULT_SCHEME,
                    minhash: MinHashParams | None = None) -> dict[str, np.ndarray]:
    """All-pairs score matrices of the three scorers: plain Jaccard, IDF-weighted, MinHash."""
    shingled = shingle_matrix(normalized_texts(items, scheme), n)
    params = minhash or MinHashParams.published()
    return {
        "jaccard": jaccard_matrix(shingled),
        "idf-jaccard": weighted_jaccard_matrix(shingled),
        "minhash": estimate_matrix(signatures(shingled, params), shingled.sizes == 0),
    }


def sweep_scorers(matrices: dict[str, np.ndarray], thresholds: np.ndarray,
                  pairs: dict[str, PairScores] | None = None) -> pd.DataFrame:
    """Threshold sweep of every scorer: pairs at or above, and items left after greedy clustering.

    Clustering is :func:`newsdedup.cluster.greedy.greedy_clusters` against group
    representatives (no chain merges) with no gate, so the count is what the
    score alone would leave. ``pairs`` may hold the condensed scores already
    computed for some scorers.
    """
    pairs = dict(pairs or {})
    frames = []
    first = None
    for scorer, m in matrices.items():
        if scorer not in pairs:
            pairs[scorer] = upper_pairs(m, like=first)
        if first is None:
            first = pairs[scorer]
        table = sweep(pairs[scorer], thresholds,
                      items_left=lambda t, m=m: greedy_clusters(m, t).n_groups)
        frames.append(table.assign(scorer=scorer))
    out = pd.concat(frames, ignore_index=True)
    return out[["scorer", "threshold", "pairs", "items_left"]]


SEED000 = "seed000-dedupe"
"""Sweep label of the seed-000 pipeline: headline 3-grams, IDF, subject gate, exact pass."""


def sweep_seed000(items: pd.DataFrame, thresholds: np.ndarray) -> pd.DataFrame:
    """Items left after the seed-000 dedupe (:func:`newsdedup.cluster.dedupe.dedupe`) per threshold.

    ``pairs`` counts the near-pass pairs the gate lets through at each threshold.
    """
    table = sweep_items_left(items, thresholds, DedupeConfig())
    return pd.DataFrame({"scorer": SEED000, "threshold": table["threshold"],
                         "pairs": table["pairs_at_or_above"],
                         "items_left": table["items_left"]})


def run_calibrate(corpus, name: str, out: Path, options: CalibrateOptions | None = None,
                  progress: Progress = _quiet, echo: bool = True) -> Calibration:
    """Sensitivity simulation, sweeps and the calibrated threshold of a corpus.

    Writes ``<out>/<name>/calibrate/`` (tables, Markdown, params) and
    ``<out>/<name>/calibration.json`` (threshold, rationale and evidence).
    """
    options = options or CalibrateOptions()
    items = corpus.items
    texts = texts_from_items(items)
    progress(f"calibrate: word-retention simulation ({options.method}), "
             f"{len(options.fractions)} levels x {options.trials} trials")
    sens = simulate(texts, options.sensitivity())
    progress(f"calibrate: score matrices (n={options.n}) and threshold sweep")
    matrices = scorer_matrices(items, options.n, options.scheme)
    exact = upper_pairs(matrices["jaccard"])
    grid = default_grid(options.sweep_lo, options.sweep_hi)
    sweeps = pd.concat([sweep_scorers(matrices, grid, {"jaccard": exact}),
                        sweep_seed000(items, grid)], ignore_index=True)
    cal = calibrate(exact, items, sens,
                    sweeps[sweeps["scorer"] == "jaccard"].drop(columns="scorer")
                    .reset_index(drop=True))
    if echo:
        print(sensitivity_console(sens, cal.upper_bound) + "\n" + calibration_console(cal),
              flush=True)

    out_dir = out / name / "calibrate"
    both, one = sens.both_table(), sens.one_table()
    params = {
        "corpus": corpus_meta(corpus, name),
        "sensitivity": asdict(options.sensitivity()) | {
            "items_used": sens.n_items_used, "items_skipped": sens.n_items_skipped},
        "sweep": {"scorers": [*matrices, SEED000], "thresholds": [float(x) for x in grid],
                  "clustering": "greedy against representatives; no gate except "
                                f"{SEED000} (DedupeConfig defaults)",
                  "minhash": MinHashParams.published().as_dict() | {"lsh": None}},
        "environment": environment(),
    }
    write_csv(both, out_dir / "both_sided.csv")
    write_csv(one, out_dir / "one_sided.csv")
    write_csv(cal.retention, out_dir / "retention.csv")
    write_csv(sweeps, out_dir / "sweep.csv")
    write_csv(sensitivity_quantiles(sens), out_dir / "quantiles.csv")
    write_json(params, out_dir / "params.json")
    sweep_wide = sweeps.pivot(index="threshold", columns="scorer", values=["pairs", "items_left"])
    sweep_wide.columns = [f"{a}:{b}" for a, b in sweep_wide.columns]
    write_markdown(
        [
            ("Corpus", corpus.summary_line()),
            ("Both sides reduced", markdown_table(both, ".3f", {"f": ".1f"})),
            ("One side reduced", markdown_table(one, ".3f", {"f": ".1f"})),
            ("Unrelated-pair upper bound", f"{cal.upper_bound:.3f}"),
            ("Retention levels against the bound", markdown_table(cal.retention, ".3f",
                                                                  {"f": ".1f"})),
            ("Threshold sweep (every 0.05)", markdown_table(
                sweep_wide.reset_index().iloc[::5], ".0f", {"threshold": ".2f"})),
            ("Recommendation", calibration_console(cal).strip()),
        ],
        out_dir / "calibrate.md",
        f"Calibration: {name}",
    )
    write_json(
        cal.as_dict() | {
            "corpus": corpus_meta(corpus, name),
            # Named as DedupeConfig names them, so DedupeConfig.from_calibration
            # reproduces the score the threshold was calibrated on.
            "parameters": {"n": options.n, "normalization": options.scheme,
                           "text": "title+summary", "scorer": "jaccard",
                           "sensitivity": asdict(options.sensitivity())},
        },
        out / name / "calibration.json",
    )
    progress(f"calibrate: wrote {out_dir} and {out / name / 'calibration.json'}")
    return cal


class RecalibrationError(ValueError):
    """The recorded calibration cannot be rerun (no record, or another corpus)."""


def recalibrate(name: str, corpus_path: Path | None = None, root: Path | None = None,
                columns: dict[str, str] | None = None, progress: Progress = _quiet
                ) -> Calibration:
    """Rerun the calibration of a results tree with the options it was run with.

    This is how a notebook writes ``calibration.json``: it reruns the same
    step, from the same corpus (checked by sha256) and the same options
    (read back from ``calibrate/params.json``), so the threshold it writes
    and the tables it plots are one computation. Rerunning with unchanged
    inputs rewrites identical files.

    Args:
        name: Corpus name (folder under the results root).
        corpus_path: The corpus file; None for the pinned archive.
        root: Results root; default :data:`newsdedup.paths.RESULTS_DIR`.
        columns: Field names of the corpus, as for :func:`newsdedup.corpus.load.load_corpus`.
        progress: Progress callback.

    Returns:
        The :class:`~newsdedup.studies.calibration.Calibration` (also written to disk).

    Raises:
        RecalibrationError: No ``calibrate/params.json`` for ``name``, or the
            corpus's checksum differs from the one calibrated.
    """
    root = Path(root) if root is not None else paths.RESULTS_DIR
    params_path = root / name / "calibrate" / "params.json"
    if not params_path.is_file():
        raise RecalibrationError(f"{params_path} not found: run `make calibrate NAME={name}` "
                                 "(or `newsdedup calibrate`) once first")
    params = json.loads(params_path.read_text(encoding="utf-8"))
    recorded = params["corpus"]
    path = paths.locate_pinned() if corpus_path is None else Path(corpus_path)
    digest = sha256_file(path)
    if digest != recorded["sha256"]:
        raise RecalibrationError(
            f"{path} (sha256 {digest[:12]}...) is not the corpus calibrated in "
            f"{params_path} ({recorded['file']}, sha256 {recorded['sha256'][:12]}...)")
    corpus = load_corpus(path, columns=columns, dialect=recorded.get("dialect") or "standard")
    sens = params["sensitivity"]
    grid = params["sweep"]["thresholds"]
    options = CalibrateOptions(n=sens["n"], fractions=tuple(sens["fractions"]),
                               trials=sens["trials"], seed=sens["seed"],
                               min_words=sens["min_words"], method=sens["method"],
                               sweep_lo=grid[0], sweep_hi=grid[-1], scheme=sens["scheme"])
    return run_calibrate(corpus, name, root, options, progress, echo=False)


@dataclass(frozen=True)
class CrossHostOptions:
    """Options of the cross-host run.

    Attributes:
        hosts: Host set whose cross pairs are studied.
        window_days: Publication-date window, days.
        n: n-gram size of the scores and of the upper bound.
        scheme: Normalization scheme.
    """

    hosts: tuple[str, ...] = ("deepmind.google", "blog.google")
    window_days: int = 3
    n: int = 4
    scheme: str = DEFAULT_SCHEME


def run_crosshost(corpus, name: str, out: Path, options: CrossHostOptions | None = None,
                  progress: Progress = _quiet, echo: bool = True) -> CrossHostReport:
    """Cross-host analysis of a corpus; writes ``<out>/<name>/crosshost/``."""
    options = options or CrossHostOptions()
    progress(f"crosshost: exact Jaccard (n={options.n}) for hosts {', '.join(options.hosts)}")
    scores = exact_scores(corpus.items, options.n, options.scheme)
    rep = cross_host(corpus.items, scores, options.hosts, options.window_days)
    if echo:
        print(crosshost_console(rep), flush=True)
    files = write_crosshost(rep, corpus, name, out / name / "crosshost", asdict(options))
    progress(f"crosshost: wrote {len(files)} files to {out / name / 'crosshost'}")
    return rep


DEDUPE_SWEEP: tuple[float, ...] = tuple(round(0.05 * k, 2) for k in range(1, 13))
"""Thresholds 0.05, 0.10, ..., 0.60 swept by ``run`` and ``make dedupe`` for every scorer."""

DEDUPE_COLUMNS = ("id", "title", "source", "url", "published_at", "group", "is_representative",
                  "representative", "stage", "rule", "score_to_rep", "lead", "kept_because")
"""Columns of the ``dedupe/items.csv`` audit file (those the corpus has)."""


def run_dedupe(corpus, name: str, out: Path, config, progress: Progress = _quiet,
               echo: bool = True, reference=None, sweep: Sequence[float] | None = None):
    """Dedupe a corpus with a ``DedupeConfig``; writes ``<out>/<name>/dedupe/``.

    Every input row is written to ``items.csv`` (the audit file) with its
    group, whether it is kept, its representative, how it matched (exact /
    near / unique), the rule that decided, its score to the representative,
    its gate key and why the representative was preferred. ``groups.csv``
    lists the merged groups; ``dedupe.json`` records the configuration, the
    scorer's parameters (IDF source, MinHash family/seed/num_perm), the
    threshold's source and rationale. With ``sweep`` thresholds, ``sweep.csv``
    holds items left per threshold for every scorer, gate on and off.

    Args:
        corpus: A :class:`~newsdedup.corpus.load.LoadResult`.
        name: Results folder name.
        out: Results root.
        config: A :class:`~newsdedup.cluster.dedupe.DedupeConfig`.
        progress: Progress callback.
        echo: Print the groups.
        reference: A ``LoadResult`` whose document frequencies weigh the
            ``"idf"`` scorer; None for batch IDF.
        sweep: Thresholds to sweep, or None.
    """
    gate = "on" if config.gate else "off"
    df = None if reference is None else document_frequencies(reference.items, config)
    idf = "batch" if df is None else f"reference ({df.n_docs} documents)"
    progress(f"dedupe: threshold {config.threshold:.2f} ({config.threshold_source}), "
             f"{config.scorer} n={config.n} on {config.text}, gate {gate}, idf {idf}")
    result = dedupe(corpus.items, config, reference=df)
    rows = result.items
    groups = result.groups()
    merged = groups[groups["size"] > 1]
    if echo:
        print(f"{len(rows)} items -> {len(result.kept())} kept, {len(merged)} merged groups")
        for g in merged.itertuples(index=False):
            print(f"  [{g.size}] {g.title}  <- {', '.join(map(str, g.members))}")
    out_dir = out / name / "dedupe"
    write_csv(rows[[c for c in DEDUPE_COLUMNS if c in rows.columns]], out_dir / "items.csv")
    write_csv(merged.assign(members=[" ".join(map(str, m)) for m in merged["members"]]),
              out_dir / "groups.csv")
    meta = {"corpus": corpus_meta(corpus, name),
            "config": {k: v for k, v in asdict(config).items()},
            "scorer": result.scorer_params,
            "items": len(rows), "kept": len(result.kept()), "merged_groups": len(merged),
            "by_stage": {k: int(v) for k, v in rows["stage"].value_counts().sort_index().items()}}
    if sweep:
        table = sweep_dedupe(corpus.items, sweep, config=config, reference=df,
                             progress=progress)
        write_csv(table, out_dir / "sweep.csv")
        meta["sweep"] = {"thresholds": list(sweep), "minhash": config.minhash_params().as_dict()}
        if echo:
            print(sweep_console(table))
    write_json(meta | {"environment": environment()}, out_dir / "dedupe.json")
    progress(f"dedupe: wrote {out_dir}")
    return result


def sweep_console(table: pd.DataFrame) -> str:
    """Items left per threshold, one column per scorer and gate setting."""
    wide = table.assign(column=table["scorer"] + np.where(table["gate"], "+gate", ""))
    wide = wide.pivot(index="threshold", columns="column", values="items_left")
    return "items left per threshold\n" + wide.to_string()


def _write_tables(tables: dict[str, pd.DataFrame], out_dir: Path, prefix: str = "") -> list[str]:
    for key, table in tables.items():
        write_csv(table, out_dir / f"{prefix}{key}.csv")
    return [f"{prefix}{key}" for key in tables]


def run_evaluate_sts(korsts: Path, stsb: Path, name: str, out: Path,
                     ngrams: tuple[int, ...] = (2, 3, 4), progress: Progress = _quiet,
                     echo: bool = True) -> dict[str, dict[str, pd.DataFrame]]:
    """Same/different separation on the news-headline pairs of KorSTS and STS-B, side by side.

    The two files hold the same pairs (Korean and English) with the same
    grades, so the tables compare the languages on identical labels. Writes
    ``<out>/<name>/evaluate/{ko,en}_*.csv`` and ``evaluate.md``.
    """
    from newsdedup.corpus.sts import load_korsts, load_stsb
    from newsdedup.evaluate.pairs import evaluate_sts

    out_dir = out / name / "evaluate"
    result = {}
    sections = []
    for lang, path, loader in (("ko", korsts, load_korsts), ("en", stsb, load_stsb)):
        progress(f"evaluate: {path.name} ({lang}), n = {list(ngrams)}")
        tables = evaluate_sts(loader(path), ngrams=ngrams)
        result[lang] = tables
        _write_tables(tables, out_dir, f"{lang}_")
        sections.append((f"{lang}: best F1 per n (cut-offs same >= 4, different <= 1, and 3/2)",
                         markdown_table(tables["cutoffs"], ".3f")))
        sections.append((f"{lang}: score distribution", markdown_table(tables["distribution"],
                                                                        ".3f")))
    write_markdown(sections, out_dir / "evaluate.md", f"Labelled headline pairs: {name}")
    write_json({"files": {"ko": korsts.name, "en": stsb.name}, "ngrams": list(ngrams),
                "environment": environment()}, out_dir / "params.json")
    if echo:
        for heading, body in sections[::2]:
            print(f"{heading}\n{body}\n")
    progress(f"evaluate: wrote {out_dir}")
    return result


def run_evaluate_stories(corpus, name: str, out: Path, story_col: str = "STORY", n: int = 4,
                         progress: Progress = _quiet, echo: bool = True) -> dict:
    """Precision of n-gram Jaccard against story ids; writes ``<out>/<name>/evaluate/``."""
    from newsdedup.evaluate.stories import evaluate_stories

    if story_col not in corpus.items.columns:
        raise ValueError(f"{corpus.path}: no story column {story_col!r}; columns are "
                         f"{list(corpus.items.columns)}")
    progress(f"evaluate: all pairs against {story_col!r} (n={n})")
    tables = evaluate_stories(corpus.items, story_col=story_col, n=n)
    out_dir = out / name / "evaluate"
    _write_tables(tables, out_dir, "stories_")
    sections = [(key, markdown_table(tables[key], ".4f")) for key in tables]
    write_markdown(sections, out_dir / "stories.md", f"Story labels: {name}")
    write_json({"corpus": corpus_meta(corpus, name), "story_col": story_col, "n": n,
                "environment": environment()}, out_dir / "stories_params.json")
    if echo:
        for heading, body in sections:
            print(f"{heading}\n{body}\n")
    return tables


def run_all(corpus, name: str, out: Path, measure: MeasureConfig | None = None,
            calibrate_options: CalibrateOptions | None = None,
            crosshost_options: CrossHostOptions | None = None,
            progress: Progress = _quiet, echo: bool = True) -> None:
    """Measure, calibrate and cross-host, then dedupe with the calibrated threshold.

    The dedupe step is skipped (and says why) when calibration found no
    threshold band: a threshold is never invented.
    """

    run_measure_step(corpus, name, out, measure, progress, echo)
    cal = run_calibrate(corpus, name, out, calibrate_options, progress, echo)
    run_crosshost(corpus, name, out, crosshost_options, progress, echo)
    if cal.recommended is None:
        progress("dedupe: skipped, the calibration recommends no threshold (see calibration.json)")
        return
    config = DedupeConfig.from_calibration(out / name / "calibration.json")
    # Recorded relative to the results root, so the written files do not depend on
    # where the checkout (or a test's temporary folder) lives.
    config = replace(config, threshold_source=f"{name}/calibration.json")
    run_dedupe(corpus, name, out, config, progress, echo, sweep=DEDUPE_SWEEP)


# --- labelled evaluation: pair study, Korean against English -------------------------


@dataclass(frozen=True)
class PairStudyOptions:
    """Parameters of :func:`run_pair_study` (all written to ``params.json``)."""

    select: str = "train"
    test: str = "dev"
    n_resamples: int = 1000
    seed: int = 0
    grid_step: float = 0.01
    minhash_seed: int = 42


PAIR_DATASETS: tuple[tuple[str, str, str], ...] = (
    ("ko", "korsts", "tsv"),
    ("en", "stsb-en", "csv"),
)
"""(language, corpus folder under ``shared/corpora``, file extension) of the aligned pairs."""


def run_pair_study(corpora: Path, out: Path, options: PairStudyOptions | None = None,
                   progress: Progress = _quiet, echo: bool = True) -> dict[str, dict]:
    """Every scorer on the KorSTS and STS-B headline pairs; Korean against English.

    Thresholds are chosen on ``options.select`` and measured on ``options.test``. Writes
    ``<out>/korsts/eval/`` and ``<out>/stsb-en/eval/`` (``summary.csv``, ``thresholds.csv``,
    ``scores.csv``, ``gate.csv``, ``recommendation.json``, ``eval.md``, ``params.json``)
    and ``<out>/sts-ko-en/eval/`` (``compare.csv``, ``compare.md``, ``params.json``).
    """
    from newsdedup.corpus.sts import load_korsts, load_stsb
    from newsdedup.evaluate import pairs as ev

    options = options or PairStudyOptions()
    loaders = {"ko": load_korsts, "en": load_stsb}
    grid = default_grid(options.grid_step, 1.0 - options.grid_step, options.grid_step)
    scorers = ev.default_scorers()
    results: dict[str, dict] = {}
    for lang, folder, ext in PAIR_DATASETS:
        paths = {split: corpora / folder / f"sts-{split}.{ext}"
                 for split in (options.select, options.test)}
        frames = {split: loaders[lang](path) for split, path in paths.items()}
        reference = ev.reference_sentences(list(frames.values()))
        select = ev.headline_split(frames[options.select])
        test = ev.headline_split(frames[options.test])
        progress(f"eval {folder}: {len(select)} {options.select} / {len(test)} {options.test} "
                 f"headline pairs, {len(scorers)} scorers x gate off/on, reference IDF from "
                 f"{len(reference)} other news sentences")
        kw = {"scorers": scorers, "reference": reference, "minhash_seed": options.minhash_seed}
        sel_scored = ev.score_pairs(select, **kw)
        test_scored = ev.score_pairs(test, **kw)
        progress(f"eval {folder}: bootstrap ({options.n_resamples} resamples, seed "
                 f"{options.seed})")
        tables = ev.pair_study(select, test, sel_scored, test_scored, thresholds=grid,
                               n_resamples=options.n_resamples, seed=options.seed)
        # The per-threshold table is for reading: the coarse grid (plots use scores.csv).
        coarse = np.isin(np.round(tables["thresholds"]["threshold"], 10),
                         np.round(ev.metric_grid(), 10))
        tables["thresholds"] = tables["thresholds"][coarse].reset_index(drop=True)
        scores = pd.concat([test[["id", "score"]].rename(columns={"score": "grade"}),
                            test_scored], axis=1)
        recs = [ev.recommend(tables["summary"], sa, da) for sa, da in ev.PAIR_CUTOFFS]
        out_dir = out / folder / "eval"
        for key in ("summary", "thresholds", "gate"):
            write_csv(tables[key], out_dir / f"{key}.csv")
        write_csv(scores, out_dir / "scores.csv")
        write_json({"recommendations": recs}, out_dir / "recommendation.json")
        params = {
            "files": {split: {"file": p.name, "sha256": sha256_file(p)}
                      for split, p in paths.items()},
            "pairs": {"select": len(select), "test": len(test)},
            "reference": {"rows": "genre main-news, filename != headlines, both splits",
                          "sentences": len(reference)},
            "options": asdict(options),
            "cutoffs": [list(c) for c in ev.PAIR_CUTOFFS],
            "scorers": [s.name for s in scorers],
            "minhash": ev.minhash_record(scorers, options.minhash_seed),
            "bootstrap": {"method": "percentile", "confidence": 0.95,
                          "resamples": options.n_resamples, "seed": options.seed},
            "environment": environment(),
        }
        write_json(params, out_dir / "params.json")
        sections = _pair_sections(tables, recs, options)
        write_markdown(sections, out_dir / "eval.md", f"Labelled headline pairs: {folder}")
        if echo:
            print(f"{folder}\n{sections[0][1]}\n")
        results[lang] = {"pairs": test, "scored": test_scored, "tables": tables,
                         "recommendations": recs}
        progress(f"eval {folder}: wrote {out_dir}")

    compare = ev.compare_languages(results["ko"]["pairs"], results["ko"]["scored"],
                                   results["en"]["scored"], n_resamples=options.n_resamples,
                                   seed=options.seed)
    out_dir = out / "sts-ko-en" / "eval"
    write_csv(compare, out_dir / "compare.csv")
    keys = ["same_at", "different_at", "scorer", "gate", "auc_ko", "auc_en", "auc_diff",
            "auc_diff_lo", "auc_diff_hi", "ap_diff", "ap_diff_lo", "ap_diff_hi"]
    gate_cols = ["same_at", "different_at", "gate_same_ko", "gate_same_en",
                 "gate_different_ko", "gate_different_en"]
    write_markdown([
        ("Korean minus English, same pairs and grades (paired bootstrap, 95%)",
         markdown_table(compare[keys], ".3f")),
        ("Share of pairs the subject gate lets through",
         markdown_table(compare[gate_cols].drop_duplicates(), ".3f")),
    ], out_dir / "compare.md", "KorSTS against STS-B: the same headline pairs")
    write_json({"test": options.test, "options": asdict(options),
                "minhash": ev.minhash_record(scorers, options.minhash_seed),
                "bootstrap": {"method": "percentile", "paired": True, "confidence": 0.95,
                              "resamples": options.n_resamples, "seed": options.seed},
                "environment": environment()}, out_dir / "params.json")
    progress(f"eval sts-ko-en: wrote {out_dir}")
    results["compare"] = compare
    return results


def _pair_sections(tables: dict[str, pd.DataFrame], recs: list[dict],
                   options: PairStudyOptions) -> list[tuple[str, str]]:
    s = tables["summary"]
    cols = ["same_at", "different_at", "scorer", "gate", "select_auc", "threshold", "select_f1",
            "auc", "auc_lo", "auc_hi", "ap", "precision", "recall", "f1", "f1_lo", "f1_hi"]
    rec = pd.DataFrame(recs)[cols]
    return [
        (f"Recommended per cut-off (best F1 on {options.select}, measured on {options.test})",
         markdown_table(rec, ".3f", {"threshold": ".2f"})),
        (f"Every scorer: threshold chosen on {options.select}, AUC / AP / P / R / F1 on "
         f"{options.test} with 95% bootstrap intervals", markdown_table(s[cols], ".3f",
                                                                         {"threshold": ".2f"})),
        ("Share of pairs the subject gate lets through", markdown_table(tables["gate"], ".3f")),
    ]


@dataclass(frozen=True)
class ClusterStudyOptions:
    """Parameters of :func:`run_cluster_study` (all written to ``params.json``)."""

    story_col: str = "STORY"
    stories: int = 0  # 0: every story; otherwise a seeded sample of whole stories
    sample_seed: int = 0
    n: int = 3
    thresholds: tuple[float, ...] = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
    examples_at: float = 0.3
    top: int = 10
    reference_corpora: Path | None = None  # folder with stsb-en/: adds the "idf-ref" runs


def run_cluster_study(corpus, name: str, out: Path, options: ClusterStudyOptions | None = None,
                      progress: Progress = _quiet, echo: bool = True) -> dict[str, pd.DataFrame]:
    """The dedupe module against story ids; writes ``<out>/<name>/eval/``.

    Files: ``runs.csv`` (per scorer, gate and threshold: items left, pairwise and B-cubed
    precision / recall), ``false_merges.csv``, ``missed.csv``, ``noise.csv`` (identical
    normalized headlines under different stories), ``summary.csv``, ``clusters.md`` and
    ``params.json`` (corpus with its rejected records, options, the dedupe configs).
    """
    from newsdedup.evaluate.stories import cluster_study, sample_stories, study_scorers

    options = options or ClusterStudyOptions()
    items = corpus.items
    if options.story_col not in items.columns:
        raise ValueError(f"{corpus.path}: no story column {options.story_col!r}; columns are "
                         f"{list(items.columns)}")
    if options.stories:
        items = sample_stories(items, options.stories, options.sample_seed, options.story_col)
    scorers = study_scorers()
    progress(f"clusters: {len(items)} items of {items[options.story_col].nunique()} stories, "
             f"scorers {list(scorers)}, gate off/on, {len(options.thresholds)} thresholds")
    reference = None
    if options.reference_corpora is not None:
        # English news sentences of STS-B (MSRpar, deft-news): same language, other outlets.
        from newsdedup.corpus.sts import load_stsb
        from newsdedup.evaluate import pairs as ev

        folder = options.reference_corpora / "stsb-en"
        sentences = ev.reference_sentences([load_stsb(folder / f"sts-{s}.csv")
                                            for s in ("train", "dev")])
        reference = pd.DataFrame({"title": sentences})
        progress(f"clusters: reference IDF from {len(sentences)} STS-B news sentences")
    tables = cluster_study(items, options.story_col, options.thresholds, scorers, n=options.n,
                           examples_at=options.examples_at, top=options.top, progress=progress,
                           reference=reference)
    out_dir = out / name / "eval"
    for key, table in tables.items():
        write_csv(table, out_dir / f"{key}.csv")
    configs = [asdict(DedupeConfig(threshold=options.examples_at, scorer=s, n=options.n))
               for s in scorers]
    for cfg in configs:
        cfg.pop("rationale", None)
        cfg.pop("threshold", None)
    minhash = DedupeConfig(scorer="minhash", n=options.n).minhash_params().as_dict()
    opts = asdict(options)
    # Recorded relative to the checkout: written files must not depend on where it lives.
    opts["reference_corpora"] = None if reference is None else "stsb-en (MSRpar, deft-news)"
    write_json({"corpus": corpus_meta(corpus, name), "options": opts,
                "minhash": minhash if "minhash" in scorers else None,
                "reference": None if reference is None else {"sentences": len(reference)},
                "sampled_items": len(items),
                "dedupe": {"configs": configs, "gate": [False, True],
                           "thresholds": list(options.thresholds)},
                "environment": environment()}, out_dir / "params.json")
    runs = tables["runs"]
    show = ["scorer", "gate", "threshold", "items_left", "merged_pairs", "noise_merges",
            "pair_precision", "pair_precision_without_noise", "pair_recall", "bcubed_precision",
            "bcubed_recall"]
    sections = [
        ("Items", markdown_table(tables["summary"])),
        ("Dedupe runs against story ids (recall is bounded: a story is all coverage of "
         "an event, mostly rewrites)", markdown_table(runs[show], ".3f", {"threshold": ".2f"})),
        (f"Worst false merges at {options.examples_at:.2f}",
         markdown_table(tables["false_merges"], ".3f")),
        (f"Most similar missed same-story pairs at {options.examples_at:.2f}",
         markdown_table(tables["missed"], ".3f")),
        ("Label noise: identical normalized headlines under different story ids",
         markdown_table(tables["noise"], ".3f")),
    ]
    write_markdown(sections, out_dir / "clusters.md", f"Dedupe against story ids: {name}")
    if echo:
        print(f"{sections[1][0]}\n{sections[1][1]}\n")
    progress(f"clusters: wrote {out_dir}")
    return tables

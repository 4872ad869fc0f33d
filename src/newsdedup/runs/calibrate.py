"""``newsdedup calibrate``: sensitivity simulation, sweeps, calibrated threshold (block 2).

:func:`run_calibrate` simulates word retention, sweeps every scorer's
threshold, calibrates (:func:`newsdedup.studies.calibration.calibrate`) and
writes ``<out>/<name>/calibrate/`` (``both_sided.csv``, ``one_sided.csv``,
``retention.csv``, ``sweep.csv``, ``quantiles.csv``, ``calibrate.md``,
``params.json``) and ``<out>/<name>/calibration.json``. :func:`recalibrate`
reruns it from what ``params.json`` recorded (notebook 04 writes the
calibration this way).
"""

from __future__ import annotations

import csv
import json
import shlex
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from newsdedup import paths
from newsdedup.calibration.defaults import SIMULATION_ITEMS as SIMULATION_ITEMS
from newsdedup.calibration.defaults import SWEEP_PAIRS_PER_ITEM
from newsdedup.calibration.evidence import (
    Evidence,
    EvidenceConfig,
    calibration_evidence,
    candidate_grid,
)
from newsdedup.calibration.model import ModelEvidence, model_evidence
from newsdedup.calibration.model_report import (
    MODEL_FILE,
    model_lines,
    model_record,
    model_sections,
)
from newsdedup.calibration.model_sample import design_path
from newsdedup.calibration.report import curve_columns, summary_lines
from newsdedup.calibration.sheet import read_sheet
from newsdedup.calibration.sweep_floor import (
    FILTER_PAIRS_PER_ITEM,
    weighted_filter_work,
)
from newsdedup.calibration.sweep_pairs import (
    SWEEP_SCORERS,
    exact_max_pair,
    scorer_pairs,
    sweep_from_pairs,
)
from newsdedup.cluster.dedupe import DedupeConfig, corpus_series, series_inputs
from newsdedup.cluster.keep import text_column
from newsdedup.cluster.sweep import sweep_items_left
from newsdedup.corpus.load import load_corpus
from newsdedup.paths import sha256_file
from newsdedup.progress import rate_reporter
from newsdedup.runs.commit import commits
from newsdedup.runs.console import calibration_console, sensitivity_console
from newsdedup.runs.files import (
    Progress,
    corpus_meta,
    markdown_table,
    quiet,
    write_csv,
    write_json,
    write_markdown,
    write_params,
)
from newsdedup.score.jaccard import PairScores, idf_weights
from newsdedup.score.minhash import MinHashConfig
from newsdedup.studies.calibration import (
    Calibration,
    calibrate,
    sensitivity_quantiles,
)
from newsdedup.studies.cost import minhash_sweep_plan
from newsdedup.studies.sensitivity import SensitivityConfig, simulate, texts_from_items
from newsdedup.text.normalize import DEFAULT_SCHEME
from newsdedup.text.series import Series


@dataclass(frozen=True)
class ModelConfig:
    """The pair model's settings (:mod:`newsdedup.calibration.model`).

    Attributes:
        backend: Embedding backend of the cosine feature. USE by default: it encodes
            about three times as fast as multilingual-e5-small on two cores, and a
            feed's every item is embedded.
        cache_root: Embedding cache root (one folder per corpus), or None for none.
        holdout: A second hold-out drawn where the model merges
            (:mod:`~newsdedup.calibration.model_sample`): read when labelled, drawn to
            this path (with its design beside it) when absent; None: none.
    """

    backend: str = "use"
    cache_root: Path | None = None
    holdout: Path | None = None


@dataclass(frozen=True)
class CalibrateConfig:
    """Options of the calibrate run (see :class:`newsdedup.studies.sensitivity.SensitivityConfig`).

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
        evidence: Decoy rule, labels and target of the recommendation.
        simulation_items: Largest number of items the word-retention
            simulation runs on; a larger corpus is simulated on a seeded
            sample of this many items (its cost is per item).
        sweep_pairs_per_item: Pairs per item the sweep may list: above about
            1,400 items its lowest threshold rises from ``sweep_lo`` until the
            pairs fit (:func:`newsdedup.calibration.sweep_floor.choose_floor`).
        extra: Whether to run the sweeps beyond the calibrated score's: the
            IDF and MinHash scorers' and the gated dedupe's rows of
            ``sweep.csv``. ``newsdedup calibrate`` runs them with ``--full``,
            ``newsdedup run`` always. Without them the calibration is the
            same: the calibrated score's sweep, bound and evidence decide it.
            Recorded in ``params.json`` (``extra_studies``) only when off.
        model: Fit and measure the pair model too (``--model``), or None.
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
    evidence: EvidenceConfig = field(default_factory=lambda: EvidenceConfig())
    simulation_items: int = SIMULATION_ITEMS
    sweep_pairs_per_item: int = SWEEP_PAIRS_PER_ITEM
    extra: bool = True
    model: ModelConfig | None = None

    def sensitivity(self) -> SensitivityConfig:
        """The simulation's parameters (:func:`newsdedup.studies.sensitivity.simulate`)."""
        return SensitivityConfig(fractions=tuple(self.fractions), n=self.n, trials=self.trials,
                                 seed=self.seed, min_words=self.min_words, scheme=self.scheme,
                                 method=self.method)


def calibration_order(items: pd.DataFrame, dialect: str) -> pd.DataFrame:
    """The items in the order the calibration visits them: by id (the file's for the published run).

    The simulation gives each item the next draws of one generator, and the sweep's
    greedy clustering visits items in order, so the order decides figures. The
    published protocol went in the file's order, and the published reading
    (``--dialect seed``, the pinned archive) reproduces it; any other corpus is
    visited in the order of its ids, so that shuffling the records changes no figure.

    Examples:
        >>> items = pd.DataFrame({"id": ["b", "a"], "title": ["B", "A"], "summary": ""})
        >>> calibration_order(items, "standard")["id"].tolist()
        ['a', 'b']
        >>> calibration_order(items, "seed")["id"].tolist()
        ['b', 'a']
    """
    if dialect == "seed" or "id" not in items.columns:
        return items
    order = np.argsort(text_column(items, "id"), kind="stable")
    return items.iloc[order].reset_index(drop=True)


def simulation_texts(texts: list[str], options: CalibrateConfig
                     ) -> tuple[list[str], dict | None]:
    """The texts the simulation runs on: all, or a seeded sample when there are too many.

    Returns:
        ``(texts, sample)``: ``sample`` is None when every item is simulated,
        else ``{"items", "sampled", "seed"}`` (recorded in ``params.json``).

    Examples:
        >>> opts = CalibrateConfig(simulation_items=2)
        >>> texts, sample = simulation_texts(["a", "b", "c"], opts)
        >>> len(texts), sample["sampled"]
        (2, 2)
    """
    if len(texts) <= options.simulation_items:
        return texts, None
    rng = np.random.default_rng(options.seed)
    rows = np.sort(rng.choice(len(texts), size=options.simulation_items, replace=False))
    return ([texts[r] for r in rows.tolist()],
            {"items": len(texts), "sampled": int(options.simulation_items),
             "seed": options.seed})


def sweep_scorer_pairs(shingled, lowest: float, progress: Progress = quiet,
                       scorers: Sequence[str] = SWEEP_SCORERS, work: dict | None = None,
                       seed: int = 0) -> tuple[dict[str, PairScores], list[str]]:
    """Every swept scorer's pairs scoring at least ``lowest``, without ``N x N``.

    Plain and IDF-weighted Jaccard come from exact filters; MinHash is
    streamed over all pairs while that is estimated to fit
    :data:`~newsdedup.studies.cost.MINHASH_SWEEP_BUDGET` seconds
    (:func:`~newsdedup.studies.cost.minhash_sweep_plan`) and left out
    otherwise (the second value names what was left out). Given a
    ``work`` dict, IDF-weighted Jaccard is left out too when its prefix
    filter would list more pairs than
    :data:`~newsdedup.calibration.sweep_floor.FILTER_PAIRS_PER_ITEM` per item
    (estimated from a pair sample of ``seed``; ``work`` receives the estimate).
    """
    n = shingled.matrix.shape[0]
    pairs: dict[str, PairScores] = {}
    skipped = []
    for scorer in scorers:
        if scorer == "minhash":
            plan = minhash_sweep_plan(n, MinHashConfig.published().num_perm)
            if plan["choice"] != "streamed":
                progress(f"calibrate: minhash left out of the sweep: streaming every pair is "
                         f"estimated at {plan['estimated_seconds']:,.0f} s, over its "
                         f"{plan['budget_seconds']:g} s budget")
                skipped.append(scorer)
                continue
        if scorer == "idf-jaccard" and work is not None:
            work.update(weighted_filter_work(shingled, idf_weights(shingled), lowest, seed=seed))
            if work["listed_high"] > work["budget_listed"]:
                progress(f"calibrate: {scorer} left out of the sweep: its prefix filter would "
                         f"list about {work['listed']:,.0f} pairs at {lowest:.2f}, over "
                         f"{work['budget_listed']:,} ({FILTER_PAIRS_PER_ITEM} per item)")
                skipped.append(scorer)
                continue
        progress(f"calibrate: {scorer} pairs >= {lowest:.2f} ({n:,} items)")
        tell = rate_reporter(progress, f"calibrate: {scorer} pairs")
        pairs[scorer] = scorer_pairs(shingled, scorer, lowest, progress=tell)
    return pairs, skipped


GATED_DEDUPE = "gated-dedupe"
"""Sweep label of the production dedupe (seed 000's pipeline): headline 3-grams, IDF, subject
gate, exact pass."""


def sweep_gated_dedupe(items: pd.DataFrame, thresholds: Sequence[float],
                       series: Series | None = None) -> pd.DataFrame:
    """Items left after the seed-000 dedupe (:func:`newsdedup.cluster.dedupe.dedupe`) per threshold.

    ``pairs`` counts the near-pass pairs the gate lets through at each threshold;
    ``series`` is the corpus's, when already learned with the default inputs.
    """
    table = sweep_items_left(items, thresholds, DedupeConfig(), series=series)
    return pd.DataFrame({"scorer": GATED_DEDUPE, "threshold": table["threshold"],
                         "pairs": table["pairs_at_or_above"],
                         "items_left": table["items_left"]})


def sheet_check(arguments: dict) -> None:
    """:func:`check_sheet_kept` on a run's arguments (``out``, ``name``, the options)."""
    options = arguments.get("options") or arguments.get("calibrate_options")
    labels = (options or CalibrateConfig()).evidence.labels
    check_sheet_kept(Path(arguments["out"]), arguments["name"], labels)


def named_sheets(arguments: dict) -> list[Path | None]:
    """The hold-out sheets a run's options name, written where the user said (maybe outside).

    ``--holdout`` and ``--model-holdout`` (whose design is written beside it).
    """
    options = arguments.get("options") or arguments.get("calibrate_options") or CalibrateConfig()
    sheets = [options.evidence.holdout, None if options.model is None else options.model.holdout]
    return [None if s is None else Path(s) for s in sheets]


@commits("calibrate", before=sheet_check, named=named_sheets)
def run_calibrate(corpus, name: str, out: Path, options: CalibrateConfig | None = None,
                  progress: Progress = quiet, echo: bool = True,
                  rerun: Sequence[str] | None = None, shown_root: Path | None = None
                  ) -> Calibration:
    """Sensitivity simulation, sweeps and the calibrated threshold of a corpus.

    Writes ``<out>/<name>/calibrate/`` (tables, the labeling sheet, Markdown,
    params) and ``<out>/<name>/calibration.json`` (method, threshold, window,
    precision and recall with what they are over, the next step).

    Args:
        corpus: A :class:`~newsdedup.corpus.load.LoadResult`.
        name: Results folder name.
        out: Results root.
        options: Simulation and sweep settings; the published ones by default.
        progress: Progress callback.
        echo: Print the tables and the recommendation.
        rerun: The command as run (the next step it prints adds ``--labels``).
        shown_root: The results root as the user named it, for the paths the
            next step names (the files are staged elsewhere first); the default
            results root when None.

    Returns:
        The :class:`~newsdedup.studies.calibration.Calibration`, its
        recommendation the calibration's (None when it declines).
    """
    options = options or CalibrateConfig()
    if options.model is not None and options.evidence.labels is None:
        raise ValueError("--model fits the pair model from labelled pairs: add --labels SHEET "
                         "(a sheet drawn by an earlier calibrate, labelled)")
    if options.model is not None and options.model.holdout is not None and (
            options.evidence.holdout is None):
        raise ValueError("--model-holdout is drawn beside a labelled hold-out: add --holdout "
                         "SHEET (drawn by calibrate --holdout, labelled)")
    _say_unlabelled(options.evidence.labels, progress)
    items = calibration_order(corpus.items, corpus.dialect)
    texts, sampled = simulation_texts(texts_from_items(items), options)
    progress(f"calibrate: word-retention simulation ({options.method}), "
             f"{len(options.fractions)} levels x {options.trials} trials on {len(texts):,} "
             f"items" + (f" (a seeded sample of {len(items):,})" if sampled else ""))
    sens = simulate(texts, options.sensitivity())
    # The pairs above the lowest threshold must stay O(N): the grid may start higher.
    candidates = candidate_grid(items, options.n, options.scheme, options.sweep_lo,
                                options.sweep_hi, options.seed, options.sweep_pairs_per_item,
                                progress)
    grid, shingled, floor = candidates.grid, candidates.shingled, candidates.floor
    # Without --full only plain Jaccard is swept: the calibration reads its sweep alone.
    work: dict = {}
    pairs, skipped = sweep_scorer_pairs(shingled, float(grid[0]), progress,
                                        SWEEP_SCORERS if options.extra else ("jaccard",),
                                        work, options.seed)
    progress(f"calibrate: threshold sweep ({len(grid)} thresholds, greedy clustering per "
             "threshold on the pair lists)")
    sweeps = sweep_from_pairs(len(items), pairs, grid.tolist(),
                              rate_reporter(progress, "calibrate: sweep clusterings"))
    # From here on only plain Jaccard's pairs are read: the other scorers' lists are let
    # go before the evidence builds its population.
    swept = [*pairs, GATED_DEDUPE] if options.extra else [*pairs]
    pairs = {"jaccard": pairs["jaccard"]}
    # The gated sweep and the calibrated dedupe read the same series when their inputs
    # agree: learned once (4 s of a 100,000-item calibrate, each time).
    series = (corpus_series(items, DedupeConfig()) if options.extra and series_inputs(
        base_config(options)) == series_inputs(DedupeConfig()) else None)
    if options.extra:
        progress(f"calibrate: {GATED_DEDUPE} sweep (gated, {len(grid)} thresholds)")
        sweeps = pd.concat([sweeps, sweep_gated_dedupe(items, grid.tolist(), series)],
                           ignore_index=True)
    exact = pairs["jaccard"]
    top = exact_max_pair(shingled) if not len(exact) else None
    if top is not None:  # no pair reaches the lowest threshold: the bound is below the grid
        exact = PairScores(np.array([top[0]]), np.array([top[1]]), np.array([top[2]]))
    n_items = len(items)
    cal = calibrate(exact, items, sens,
                    sweeps[sweeps["scorer"] == "jaccard"].drop(columns="scorer")
                    .reset_index(drop=True), n_pairs=n_items * (n_items - 1) // 2)
    # Inside the staging tree ``out`` is no place to name; without a root the user
    # named, the default results root (so a run into a temporary folder writes the
    # calibration.json a run from the checkout writes).
    sheet = shown_path(Path(shown_root if shown_root is not None else paths.RESULTS_DIR)
                       / name / "calibrate" / SHEET)
    evidence = calibration_evidence(items, options.evidence, base_config(options), grid.tolist(),
                                    pairs["jaccard"], shingled, sens, cal.recommended, sheet,
                                    rerun, progress, series)
    evidence = replace(evidence, choice=with_dedupe_step(
        evidence.choice, options.evidence.labels, options.evidence.holdout, rerun,
        corpus.path, sheet.parent.parent / CALIBRATION))
    model = None
    if options.model is not None and options.evidence.labels is not None:
        cache = (None if options.model.cache_root is None
                 else Path(options.model.cache_root) / name)
        model = model_evidence(items, evidence.population, options.evidence.labels,
                               options.evidence.holdout, base_config(options),
                               options.evidence.precision, options.model.backend, cache,
                               options.evidence.seed, grid.tolist(), evidence.curve, progress,
                               options.model.holdout, options.evidence.holdout_size,
                               evidence.merged_at, evidence.choice["threshold"])
    if echo:
        print(sensitivity_console(sens, cal.upper_bound) + "\n" + calibration_console(cal),
              flush=True)
    choice, bound_threshold = evidence.choice, cal.recommended
    if choice["method"] != "bound":
        # The published bound stays in the file (upper_bound, band); the choice is another's.
        cal = replace(cal, recommended=choice["threshold"], rationale=choice["note"])
    if echo:
        print("\n" + "\n".join(summary_lines(evidence, n_items)), flush=True)
        if model is not None:
            print("\n".join(model_lines(model)), flush=True)
    _write_calibration(corpus, name, out, options, sens, cal, sweeps, swept, grid,
                       evidence, {"minhash_sweep": minhash_sweep_plan(
                                      n_items, MinHashConfig.published().num_perm),
                                  "left_out": skipped, "simulation_sample": sampled,
                                  "floor": floor.record(),
                                  "idf_filter": work if "idf-jaccard" in skipped else None},
                       bound_threshold, model)
    progress(f"calibrate: wrote {out / name / 'calibrate'} and {out / name / 'calibration.json'}")
    return cal


SHEET = "to_label.csv"
"""The labeling sheet's name in ``<out>/<name>/calibrate/``."""

CALIBRATION = "calibration.json"
"""The calibration's file in ``<out>/<name>/``, which ``dedupe --calibration`` reads."""

CORPUS_OPTIONS = ("--format", "--dialect", "--columns", "--delimiter", "--encoding", "--name",
                  "--out")
"""Options (each with a value) that say how a corpus is read and where its results go."""


def corpus_arguments(corpus_file: Path | None, command: Sequence[str]) -> list[str]:
    """The corpus file and the options reading it, from a command line as run.

    Another command on the same feed (``dedupe`` after ``calibrate``) needs them to
    read the same records into the same results folder.

    Examples:
        >>> corpus_arguments(Path("feed.csv"), ["newsdedup", "calibrate", "feed.csv",
        ...                  "--precision", "0.8", "--columns", "id=ID", "--strict", "--out=res"])
        ['feed.csv', '--columns', 'id=ID', '--strict', '--out=res']
    """
    kept = [] if corpus_file is None else [str(shown_path(Path(corpus_file)))]
    tokens = iter(command[2:])
    for token in tokens:
        if token in CORPUS_OPTIONS:
            kept += [token, next(tokens, "")]
        elif token.startswith(tuple(f"{o}=" for o in CORPUS_OPTIONS)) or token == "--strict":
            kept.append(token)
    return kept


def with_dedupe_step(choice: dict, labels: Path | None, holdout: Path | None,
                     rerun: Sequence[str] | None, corpus_file: Path | None,
                     calibration: Path) -> dict:
    """The next step once a threshold is recommended: check it, or dedupe with it.

    More labels always narrow the intervals, so the loop keeps drawing; a user who
    followed only that step would label for ever. Once a threshold is recommended,
    the step first named is the one that ends the calibration: a threshold the
    loop's labels chose is first measured on a hold-out its labels did not choose;
    one the hold-out confirms (or the decoys or the bound recommend) is applied
    with ``dedupe --calibration``. ``run`` dedupes with it itself, and a hold-out
    that does not confirm it is said by the note.

    Args:
        choice: The calibration's choice.
        labels: The labelled sheet read, if any.
        holdout: The hold-out sheet asked for, if any.
        rerun: The command as run (``newsdedup calibrate FILE ...``, without ``--labels``).
        corpus_file: The corpus read (None: none named).
        calibration: Where ``calibration.json`` is written, as the user names it.

    Returns:
        The choice, its ``next`` step extended.
    """
    t = choice["threshold"]
    if t is None or rerun is None or len(rerun) < 2 or rerun[1] != "calibrate":
        return choice
    if holdout is not None and not choice.get("holdout_confirms"):
        return choice
    dedupe = ["newsdedup", "dedupe", *corpus_arguments(corpus_file, rerun),
              "--calibration", str(calibration)]
    step = f"dedupe with {t:.2f}: `{shlex.join(dedupe)}`"
    if choice["method"] == "labels" and holdout is None and labels is not None:
        drawn = Path(labels).with_name(f"{Path(labels).stem}.holdout.csv")
        check = [*rerun, "--labels", str(labels), "--holdout", str(drawn)]
        step = (f"measure {t:.2f} on pairs that did not choose it: `{shlex.join(check)}` draws "
                f"a hold-out sheet to {drawn}; label it and run the same command again, then "
                + step)
    more = choice.get("next")
    return choice | {"next": step if not more else f"{step}; or, to narrow the intervals, {more}"}


def _say_unlabelled(labels: Path | None, progress: Progress) -> None:
    """Warn (even under ``--quiet``) when ``--labels`` names a sheet with no answer in it.

    The calibration then goes on as without labels (decoys, the bound), which is right
    for a sheet just drawn, but a user who passed it expected labels to be read.
    """
    if labels is None or not Path(labels).is_file():
        return
    sheet = read_sheet(labels)
    if not sheet.labelled:
        progress(f"warning: {labels} holds no answer yet ({len(sheet.rows)} pairs, every label "
                 "blank or skip), so this calibration reads no labels; label the pairs "
                 f"(newsdedup label {labels}) and run again")


class LabelledSheetInTheWay(ValueError):
    """A run would overwrite a sheet that holds labels it does not read."""


def check_sheet_kept(out: Path, name: str, labels: Path | None) -> None:
    """Refuse to run when the sheet calibrate writes holds labels the run would not read.

    Calibrate rewrites ``<out>/<name>/calibrate/to_label.csv`` with the pairs to
    label next; a person's labels in that file are kept only when the run reads
    them (``--labels`` names it). Any row with a non-blank ``label`` counts,
    whatever the file's other columns.

    Raises:
        LabelledSheetInTheWay: Naming the file, its labels and the two ways on.
    """
    sheet = paths.results_tree(out, name) / "calibrate" / SHEET
    if not sheet.is_file() or (labels is not None
                               and Path(labels).resolve() == sheet.resolve()):
        return
    held = _labelled_rows(sheet)
    # The rewritten sheet keeps every row of the sheet the run reads: labels that
    # are there too (a copy of this sheet, say) are not lost.
    kept = _labelled_rows(Path(labels)) if labels is not None and Path(labels).is_file() else set()
    lost = held - kept
    if lost:
        raise LabelledSheetInTheWay(
            f"{sheet} holds {len(lost)} labels this run would overwrite: pass --labels {sheet} "
            "to use them, or move the file away")


def _labelled_rows(path: Path) -> set[tuple[str, str, str]]:
    """``(id_i, id_j, label)`` of every row of a CSV with a non-blank label."""
    with open(path, encoding="utf-8", newline="") as fh:
        return {(row.get("id_i") or "", row.get("id_j") or "", (row.get("label") or "").strip())
                for row in csv.DictReader(fh) if (row.get("label") or "").strip()}
def shown_path(path: Path) -> Path:
    """``path`` as the next step names it: relative to the working directory when inside it.

    ``calibration.json`` names the labeling sheet; relative, the committed file does not
    depend on where the checkout lives.

    Examples:
        >>> shown_path(Path.cwd() / "results" / "x.csv").as_posix()
        'results/x.csv'
        >>> shown_path(Path("/elsewhere/x.csv")).as_posix()
        '/elsewhere/x.csv'
    """
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path


def base_config(options: CalibrateConfig) -> DedupeConfig:
    """The dedupe being calibrated: the calibrated score, subject gate on (window learned later)."""
    return DedupeConfig(n=options.n, scorer="jaccard", text="title+summary", scheme=options.scheme)


def calibration_parameters(options: CalibrateConfig, config: DedupeConfig) -> dict:
    """``calibration.json``'s ``parameters``: the dedupe the threshold is calibrated for.

    Named as :class:`~newsdedup.cluster.dedupe.DedupeConfig` names them, so
    ``DedupeConfig.from_calibration`` builds that very dedupe: the score (n-gram
    size, text, normalization, scorer), the gate, the date window and the series rule.
    """
    return {"n": config.n, "normalization": config.scheme, "text": config.text,
            "scorer": config.scorer, "gate": config.gate, "window_days": config.window_days,
            "series": config.series, "series_config": asdict(config.series_config),
            "sensitivity": asdict(options.sensitivity())}


def _write_calibration(corpus, name: str, out: Path, options: CalibrateConfig, sens,
                       cal: Calibration, sweeps: pd.DataFrame, scorers: Sequence[str],
                       grid: np.ndarray, evidence: Evidence, scale: dict,
                       bound_threshold: float | None, model: ModelEvidence | None = None
                       ) -> None:
    """Write ``<out>/<name>/calibrate/`` and ``<out>/<name>/calibration.json``."""
    out_dir = out / name / "calibrate"
    both, one = sens.both_table(), sens.one_table()
    params = {
        "corpus": corpus_meta(corpus, name),
        "sensitivity": asdict(options.sensitivity()) | {
            "items_used": sens.n_items_used, "items_skipped": sens.n_items_skipped,
            "order": "file" if corpus.dialect == "seed" else "ids"} | (
            {"sample": scale["simulation_sample"]} if scale["simulation_sample"] else {}),
        "sweep": {"scorers": list(scorers), "thresholds": [float(x) for x in grid],
                  "clustering": "greedy against representatives; no gate except "
                                f"{GATED_DEDUPE} (DedupeConfig defaults)",
                  "minhash": MinHashConfig.published().as_dict() | {"lsh": None}} | (
                      {"left_out": scale["left_out"],
                       "minhash_sweep": scale["minhash_sweep"]}
                      if scale["left_out"] else {}) | (
                          {"floor": scale["floor"]} if scale["floor"] else {}) | (
                          {"idf_filter_left_out": scale["idf_filter"]}
                          if scale["idf_filter"] else {}),
        "evidence": options.evidence.record(),
    } | ({} if options.extra else {"extra_studies": False})
    write_csv(both, out_dir / "both_sided.csv")
    write_csv(one, out_dir / "one_sided.csv")
    write_csv(cal.retention, out_dir / "retention.csv")
    write_csv(sweeps, out_dir / "sweep.csv")
    write_csv(sensitivity_quantiles(sens), out_dir / "quantiles.csv")
    write_csv(evidence.curve, out_dir / "precision_recall.csv")
    write_csv(evidence.strata, out_dir / "strata.csv")
    if evidence.series is not None:
        write_csv(evidence.series.csv_table().drop(columns="series"), out_dir / "series.csv")
    if len(evidence.sheet):
        write_csv(evidence.sheet, out_dir / SHEET)
    if len(evidence.holdout) and options.evidence.holdout is not None:
        # Drawn now: written where --holdout names it (outside the results tree, so it
        # is not part of the run's commit; the write itself is atomic).
        write_csv(evidence.holdout, Path(options.evidence.holdout))
    if model is not None:
        write_json(model.model.record(), out_dir / MODEL_FILE)
        write_csv(model.curve, out_dir / "pair_model.csv")
        write_csv(model.pairs, out_dir / "pair_model_pairs.csv")
        write_csv(model.character, out_dir / "pair_model_character.csv")
        write_csv(model.reliability, out_dir / "pair_model_reliability.csv")
        sheet = options.model.holdout if options.model is not None else None
        params["model"] = {"backend": model.backend, "features": list(model.model.features)
                           } | ({} if sheet is None else {"holdout": str(sheet)})
        if len(model.model_sheet) and model.design is not None and sheet is not None:
            # Drawn now, beside the hold-out (outside the results tree). The design first:
            # a sheet is never left without the bands it was drawn in.
            write_json(model.design.record(), design_path(sheet))
            write_csv(model.model_sheet, Path(sheet))
    write_params(params, out_dir / "params.json")
    sweep_wide = sweeps.pivot(index="threshold", columns="scorer", values=["pairs", "items_left"])
    sweep_wide.columns = [f"{a}:{b}" for a, b in sweep_wide.columns]
    summary = summary_lines(evidence, len(corpus.items))
    write_markdown(
        [
            ("Corpus", corpus.summary_line()),
            ("Calibration", "\n\n".join(summary)),
            ("Precision and recall of the calibrated dedupe (every 0.05)", markdown_table(
                evidence.curve.iloc[::5][curve_columns(evidence.curve)], ".3f",
                {"threshold": ".2f", "items_left": ".0f", "merged_pairs": ".0f"})),
            ("Both sides reduced", markdown_table(both, ".3f", {"f": ".1f"})),
            ("One side reduced", markdown_table(one, ".3f", {"f": ".1f"})),
            ("Unrelated-pair upper bound", f"{cal.upper_bound:.3f}"),
            ("Retention levels against the bound", markdown_table(cal.retention, ".3f",
                                                                  {"f": ".1f"})),
            ("Threshold sweep (every 0.05)", markdown_table(
                sweep_wide.reset_index().iloc[::5], ".0f", {"threshold": ".2f"})),
            *(model_sections(model) if model is not None else []),
            *([("Sweep floor", f"The sweep starts at {scale['floor']['lowest']:.2f}: "
                                f"{scale['floor']['reason']} (params.json: sweep.floor).")]
              if scale["floor"] and scale["floor"]["lowest"] > scale["floor"]["requested"]
              else []),
        ],
        out_dir / "calibrate.md",
        f"Calibration: {name}",
    )
    record = calibration_record(corpus, name, options, cal, evidence, bound_threshold)
    if model is not None:
        record["pair_model"] = model_record(model, f"calibrate/{MODEL_FILE}")
    write_json(record, out / name / CALIBRATION)


def calibration_record(corpus, name: str, options: CalibrateConfig, cal: Calibration,
                       evidence: Evidence, bound_threshold: float | None) -> dict:
    """``calibration.json``: the published bound's fields, then the calibration's choice."""
    choice = evidence.choice
    t = choice["threshold"]
    row = (evidence.curve[(evidence.curve["threshold"] - t).abs() < 1e-9] if t is not None
           else evidence.curve.iloc[:0])
    sim = (None if not len(row) else
           {"value": _plain(row["recall_sim"].iloc[0]),
            "low": _plain(row["recall_sim_low"].iloc[0]),
            "high": _plain(row["recall_sim_high"].iloc[0]),
            "basis": "simulated rewrites (each item's words kept with probability f, twice; "
                     "range over the retention levels): not a recall of this corpus"})
    pop = evidence.population
    return cal.as_dict() | {
        "corpus": corpus_meta(corpus, name),
        "parameters": calibration_parameters(options, evidence.config),
        "method": choice["method"],
        "target_precision": choice["target"],
        "estimated_precision": choice["precision"],
        "estimated_recall": choice["recall"],
        "simulated_recall": sim,
        "window": (evidence.window.record() if evidence.window is not None
                   else {"days": evidence.config.window_days, "reason": "given"}),
        "series": {"rule": evidence.config.series,
                   "found": 0 if evidence.series is None else len(evidence.series.table),
                   "items": 0 if evidence.series is None
                   else int(evidence.series.member().sum()),
                   "table": "calibrate/series.csv" if evidence.series is not None else None},
        "labels": {"basis": evidence.labels, "labelled": evidence.labelled,
                   "drawn": len(evidence.sheet),
                   "sheet": f"calibrate/{SHEET}" if len(evidence.sheet) else None,
                   "candidate_pairs": len(pop), "floor": pop.floor,
                   "strata": "calibrate/strata.csv", "population": pop.fingerprint()},
        "decoys": None if evidence.decoys is None else {
            "rule": evidence.decoys.describe, "check": evidence.decoys.check,
            "decoy_pairs": evidence.decoys.decoys, "compared_pairs": evidence.decoys.compared},
        "holdout": _holdout_record(evidence, t, options.evidence.holdout),
        "evidence": {"note": choice["note"], "next": choice["next"],
                     "curves": "calibrate/precision_recall.csv",
                     "bound_threshold": bound_threshold},
    }


def _holdout_record(evidence: Evidence, t: float | None, path: Path | None) -> dict | None:
    """The hold-out's measurement at the recommended threshold (or the sheet drawn)."""
    if evidence.holdout_labels is None:
        return ({"drawn": len(evidence.holdout), "sheet": str(path)}
                if len(evidence.holdout) else None)
    row = (evidence.curve[(evidence.curve["threshold"] - t).abs() < 1e-9] if t is not None
           else evidence.curve.iloc[:0])

    def measured(name: str) -> dict | None:
        if not len(row):
            return None
        return {"value": _plain(row[name].iloc[0]), "low": _plain(row[f"{name}_low"].iloc[0]),
                "high": _plain(row[f"{name}_high"].iloc[0]), "basis": evidence.holdout_labels}

    # estimated_precision/recall are the hold-out's now; the loop's own stay here.
    return {"basis": evidence.holdout_labels, "labelled": evidence.holdout_labelled,
            "precision": measured("precision_holdout"),
            "recall": measured("recall_holdout"),
            "confirms": evidence.choice.get("holdout_confirms"),
            "loop_precision": evidence.choice.get("loop_precision"),
            "loop_recall": evidence.choice.get("loop_recall")}


def _plain(x) -> float | None:
    x = float(x)
    return x if np.isfinite(x) else None


class RecalibrationError(ValueError):
    """The recorded calibration cannot be rerun (no record, or another corpus)."""


def recalibrate(name: str, corpus_path: Path | None = None, root: Path | None = None,
                columns: dict[str, str] | None = None, progress: Progress = quiet
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
    dialect = recorded.get("dialect") or "standard"
    # A file is checked before it is read (another corpus may not read with these options);
    # a folder's checksum is over the files its load takes, so it is loaded first.
    corpus = load_corpus(path, columns=columns, dialect=dialect) if path.is_dir() else None
    digest = corpus.sha256 if corpus is not None else sha256_file(path)
    if digest != recorded["sha256"]:
        raise RecalibrationError(
            f"{path} (sha256 {digest[:12]}...) is not the corpus calibrated in "
            f"{params_path} ({recorded['file']}, sha256 {recorded['sha256'][:12]}...)")
    if corpus is None:
        corpus = load_corpus(path, columns=columns, dialect=dialect)
    sens = params["sensitivity"]
    grid = params["sweep"]["thresholds"]
    options = CalibrateConfig(n=sens["n"], fractions=tuple(sens["fractions"]),
                               trials=sens["trials"], seed=sens["seed"],
                               min_words=sens["min_words"], method=sens["method"],
                               # A raised floor records the threshold that was asked for.
                               sweep_lo=(params["sweep"].get("floor") or {}).get(
                                   "requested", grid[0]),
                               sweep_hi=grid[-1], scheme=sens["scheme"],
                               evidence=recorded_evidence(params.get("evidence") or {}),
                               # No sample recorded: every item was simulated.
                               simulation_items=int((sens.get("sample") or {}).get(
                                   "sampled", max(len(corpus.items), SIMULATION_ITEMS))),
                               # Nothing sampled for the floor: every pair fit, any budget does.
                               sweep_pairs_per_item=int((params["sweep"].get("floor") or {}).get(
                                   "pairs_per_item") or SWEEP_PAIRS_PER_ITEM),
                               extra=params.get("extra_studies", True))
    return run_calibrate(corpus, name, root, options, progress, echo=False, shown_root=root)


def recorded_evidence(record: dict) -> EvidenceConfig:
    """:class:`EvidenceConfig` from ``params.json``'s ``evidence`` block (defaults if absent).

    Examples:
        >>> recorded_evidence({"decoy_field": "CATEGORY"}).decoy_field
        'CATEGORY'
    """
    def path(key: str) -> Path | None:
        return None if record.get(key) is None else Path(record[key])

    defaults = EvidenceConfig()
    return EvidenceConfig(
        decoy_field=record.get("decoy_field"),
        decoy_days=float(record.get("decoy_days", defaults.decoy_days)),
        decoy_pairs=path("decoy_pairs"),
        precision=float(record.get("precision", defaults.precision)),
        labels=path("labels") or path("gold"), story_column=record.get("story_column"),
        seed=int(record.get("seed", defaults.seed)),
        window_days=record.get("window_days"), series=bool(record.get("series", True)))

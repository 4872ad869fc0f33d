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

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from newsdedup import paths
from newsdedup.cluster.dedupe import DedupeConfig
from newsdedup.cluster.sweep import sweep_items_left
from newsdedup.corpus.load import load_corpus
from newsdedup.paths import sha256_file
from newsdedup.progress import rate_reporter
from newsdedup.runs.commit import commits
from newsdedup.runs.console import calibration_console, sensitivity_console
from newsdedup.runs.evidence import Evidence, calibration_evidence
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
from newsdedup.score.minhash import MinHashParams
from newsdedup.studies.calibration import (
    Calibration,
    calibrate,
    default_grid,
    sensitivity_quantiles,
)
from newsdedup.studies.cost import minhash_sweep_plan
from newsdedup.studies.defaults import DEFAULT_DECOY_DAYS, DEFAULT_PRECISION, SWEEP_PAIRS_PER_ITEM
from newsdedup.studies.defaults import SIMULATION_ITEMS as SIMULATION_ITEMS
from newsdedup.studies.measure import normalized_texts
from newsdedup.studies.sensitivity import SensitivityParams, simulate, texts_from_items
from newsdedup.studies.sweep_floor import (
    FILTER_PAIRS_PER_ITEM,
    choose_floor,
    weighted_filter_work,
)
from newsdedup.studies.sweep_pairs import (
    SWEEP_SCORERS,
    exact_max_pair,
    scorer_pairs,
    sweep_from_pairs,
)
from newsdedup.text.normalize import DEFAULT_SCHEME
from newsdedup.text.shingle import shingle_matrix


@dataclass(frozen=True)
class EvidenceOptions:
    """What the recommendation is estimated from (``newsdedup calibrate`` options).

    Attributes:
        decoy_field: Column whose differing values make a decoy pair, or None.
        decoy_days: Pairs published at least this many days apart are decoys.
        decoy_pairs: CSV of known-distinct pairs (``id_i``, ``id_j``), or None.
        precision: Target precision of the recommended threshold.
        gold: Gold file of labelled pairs, or None.
        story_column: Column of story ids (labels for every pair), or None.
        seed: Of the bootstraps.
    """

    decoy_field: str | None = None
    decoy_days: float = DEFAULT_DECOY_DAYS
    decoy_pairs: Path | None = None
    precision: float = DEFAULT_PRECISION
    gold: Path | None = None
    story_column: str | None = None
    seed: int = 0

    def record(self) -> dict:
        """The options as written to ``params.json`` (paths as given)."""
        return {"decoy_field": self.decoy_field, "decoy_days": self.decoy_days,
                "decoy_pairs": None if self.decoy_pairs is None else str(self.decoy_pairs),
                "precision": self.precision, "gold": None if self.gold is None else str(self.gold),
                "story_column": self.story_column, "seed": self.seed}


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
        evidence: Decoy rule, labels and target of the recommendation.
        simulation_items: Largest number of items the word-retention
            simulation runs on; a larger corpus is simulated on a seeded
            sample of this many items (its cost is per item).
        sweep_pairs_per_item: Pairs per item the sweep may list: above about
            1,400 items its lowest threshold rises from ``sweep_lo`` until the
            pairs fit (:func:`newsdedup.studies.sweep_floor.choose_floor`).
        extra: Whether to run the studies beyond published block 2 and the
            calibration: the sweeps of the IDF and MinHash scorers and of the
            seed-000 dedupe, the all-pairs decoy curves (``decoy_pairs.csv``)
            and the evidence of every dedupe scorer
            (``precision_recall_scorers.csv``). ``newsdedup calibrate`` runs
            them with ``--full``, ``newsdedup run`` always. Without them the
            calibration is the same: plain Jaccard's sweep, bound and
            evidence decide it. Recorded in ``params.json``
            (``extra_studies``) only when off.
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
    evidence: EvidenceOptions = field(default_factory=lambda: EvidenceOptions())
    simulation_items: int = SIMULATION_ITEMS
    sweep_pairs_per_item: int = SWEEP_PAIRS_PER_ITEM
    extra: bool = True

    def sensitivity(self) -> SensitivityParams:
        """The simulation's parameters (:func:`newsdedup.studies.sensitivity.simulate`)."""
        return SensitivityParams(fractions=tuple(self.fractions), n=self.n, trials=self.trials,
                                 seed=self.seed, min_words=self.min_words, scheme=self.scheme,
                                 method=self.method)


def simulation_texts(texts: list[str], options: CalibrateOptions
                     ) -> tuple[list[str], dict | None]:
    """The texts the simulation runs on: all, or a seeded sample when there are too many.

    Returns:
        ``(texts, sample)``: ``sample`` is None when every item is simulated,
        else ``{"items", "sampled", "seed"}`` (recorded in ``params.json``).

    Examples:
        >>> opts = CalibrateOptions(simulation_items=2)
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
    :data:`~newsdedup.studies.sweep_floor.FILTER_PAIRS_PER_ITEM` per item
    (estimated from a pair sample of ``seed``; ``work`` receives the estimate).
    """
    n = shingled.matrix.shape[0]
    pairs: dict[str, PairScores] = {}
    skipped = []
    for scorer in scorers:
        if scorer == "minhash":
            plan = minhash_sweep_plan(n, MinHashParams.published().num_perm)
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


SEED000 = "seed000-dedupe"
"""Sweep label of the seed-000 pipeline: headline 3-grams, IDF, subject gate, exact pass."""


def sweep_seed000(items: pd.DataFrame, thresholds: Sequence[float]) -> pd.DataFrame:
    """Items left after the seed-000 dedupe (:func:`newsdedup.cluster.dedupe.dedupe`) per threshold.

    ``pairs`` counts the near-pass pairs the gate lets through at each threshold.
    """
    table = sweep_items_left(items, thresholds, DedupeConfig())
    return pd.DataFrame({"scorer": SEED000, "threshold": table["threshold"],
                         "pairs": table["pairs_at_or_above"],
                         "items_left": table["items_left"]})


@commits("calibrate")
def run_calibrate(corpus, name: str, out: Path, options: CalibrateOptions | None = None,
                  progress: Progress = quiet, echo: bool = True) -> Calibration:
    """Sensitivity simulation, sweeps and the calibrated threshold of a corpus.

    Writes ``<out>/<name>/calibrate/`` (tables, Markdown, params) and
    ``<out>/<name>/calibration.json`` (threshold, rationale and evidence).

    Args:
        corpus: A :class:`~newsdedup.corpus.load.LoadResult`.
        name: Results folder name.
        out: Results root.
        options: Simulation and sweep settings; the published ones by default.
        progress: Progress callback.
        echo: Print the tables and the recommendation.

    Returns:
        The :class:`~newsdedup.studies.calibration.Calibration`.
    """
    options = options or CalibrateOptions()
    items = corpus.items
    texts, sampled = simulation_texts(texts_from_items(items), options)
    progress(f"calibrate: word-retention simulation ({options.method}), "
             f"{len(options.fractions)} levels x {options.trials} trials on {len(texts):,} "
             f"items" + (f" (a seeded sample of {len(items):,})" if sampled else ""))
    sens = simulate(texts, options.sensitivity())
    grid = default_grid(options.sweep_lo, options.sweep_hi)
    shingled = shingle_matrix(normalized_texts(items, options.scheme), options.n)
    # The pairs above the lowest threshold must stay O(N): English letter n-grams put a fixed
    # share of all N^2 pairs above 0.05, so the sweep starts higher there (and says so).
    floor = choose_floor(shingled, grid.tolist(), seed=options.seed,
                         per_item=options.sweep_pairs_per_item)
    if floor.raised:
        progress(f"calibrate: sweep starts at {floor.lowest:.2f}, not {floor.requested:.2f}: "
                 f"{floor.reason}")
        grid = grid[grid >= floor.lowest]
    # Without --full only plain Jaccard is swept: the calibration reads its sweep alone.
    work: dict = {}
    pairs, skipped = sweep_scorer_pairs(shingled, float(grid[0]), progress,
                                        SWEEP_SCORERS if options.extra else ("jaccard",),
                                        work, options.seed)
    progress(f"calibrate: threshold sweep ({len(grid)} thresholds, greedy clustering per "
             "threshold on the pair lists)")
    sweeps = sweep_from_pairs(len(items), pairs, grid.tolist(),
                              rate_reporter(progress, "calibrate: sweep clusterings"))
    if options.extra:
        progress(f"calibrate: {SEED000} sweep (gated, {len(grid)} thresholds)")
        sweeps = pd.concat([sweeps, sweep_seed000(items, grid.tolist())], ignore_index=True)
    exact = pairs["jaccard"]
    top = exact_max_pair(shingled) if not len(exact) else None
    if top is not None:  # no pair reaches the lowest threshold: the bound is below the grid
        exact = PairScores(np.array([top[0]]), np.array([top[1]]), np.array([top[2]]))
    n_items = len(items)
    cal = calibrate(exact, items, sens,
                    sweeps[sweeps["scorer"] == "jaccard"].drop(columns="scorer")
                    .reset_index(drop=True), n_pairs=n_items * (n_items - 1) // 2)
    parameters = calibration_parameters(options)
    evidence = calibration_evidence(items, options.evidence, sens, pairs, grid.tolist(),
                                    parameters, cal.recommended, progress, extra=options.extra)
    if echo:
        print(sensitivity_console(sens, cal.upper_bound) + "\n" + calibration_console(cal),
              flush=True)
    choice = evidence.choice
    if choice["method"] != "bound":
        # The bound's reasoning stays in the text: it says why it could not decide.
        cal = replace(cal, recommended=choice["threshold"],
                      rationale=f"{choice['note']} {cal.rationale}")
    if echo:
        print(evidence_console(evidence), flush=True)
    swept = [*pairs, SEED000] if options.extra else [*pairs]
    _write_calibration(corpus, name, out, options, sens, cal, sweeps, swept, grid,
                       evidence, parameters, {"minhash_sweep": minhash_sweep_plan(
                                          n_items, MinHashParams.published().num_perm),
                                          "left_out": skipped, "simulation_sample": sampled,
                                          "floor": floor.record(),
                                          "idf_filter": work if "idf-jaccard" in skipped
                                          else None})
    progress(f"calibrate: wrote {out / name / 'calibrate'} and {out / name / 'calibration.json'}")
    return cal


def calibration_parameters(options: CalibrateOptions) -> dict:
    """``calibration.json``'s ``parameters``: the score the threshold is calibrated on.

    Named as :class:`~newsdedup.cluster.dedupe.DedupeConfig` names them, so
    ``DedupeConfig.from_calibration`` reproduces that score (and the evidence
    step estimates the very dedupe it builds).
    """
    return {"n": options.n, "normalization": options.scheme, "text": "title+summary",
            "scorer": "jaccard", "sensitivity": asdict(options.sensitivity())}


def evidence_console(evidence: Evidence) -> str:
    """The recommendation's method, precision and recall, as printed.

    Examples:
        >>> ev = Evidence(pd.DataFrame(), pd.DataFrame(), {"method": "bound", "threshold": None,
        ...     "estimated_precision": None, "estimated_recall": None, "note": "n"}, "d", None)
        >>> evidence_console(ev).splitlines()[1]
        'evidence: bound; recommended none'
    """
    c = evidence.choice

    def interval(x: dict | None) -> str:
        if not x or x["value"] is None:
            return "n/a"
        return f"{x['value']:.3f} [{x['low']:.3f}, {x['high']:.3f}]"

    rec = "none" if c["threshold"] is None else f"{c['threshold']:.2f}"
    return "\n".join(["", f"evidence: {c['method']}; recommended {rec}",
                      f"estimated precision {interval(c['estimated_precision'])}; "
                      f"estimated recall {interval(c['estimated_recall'])}", c["note"]])


def _write_calibration(corpus, name: str, out: Path, options: CalibrateOptions, sens,
                       cal: Calibration, sweeps: pd.DataFrame, scorers: Sequence[str],
                       grid: np.ndarray, evidence: Evidence, parameters: dict,
                       scale: dict) -> None:
    """Write ``<out>/<name>/calibrate/`` and ``<out>/<name>/calibration.json``."""
    out_dir = out / name / "calibrate"
    both, one = sens.both_table(), sens.one_table()
    params = {
        "corpus": corpus_meta(corpus, name),
        "sensitivity": asdict(options.sensitivity()) | {
            "items_used": sens.n_items_used, "items_skipped": sens.n_items_skipped} | (
            {"sample": scale["simulation_sample"]} if scale["simulation_sample"] else {}),
        "sweep": {"scorers": list(scorers), "thresholds": [float(x) for x in grid],
                  "clustering": "greedy against representatives; no gate except "
                                f"{SEED000} (DedupeConfig defaults)",
                  "minhash": MinHashParams.published().as_dict() | {"lsh": None}} | (
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
    if len(evidence.scorers):
        write_csv(evidence.scorers, out_dir / "precision_recall_scorers.csv")
    if len(evidence.decoy_pairs):
        write_csv(evidence.decoy_pairs, out_dir / "decoy_pairs.csv")
    write_params(params, out_dir / "params.json")
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
            *([("Sweep floor", f"The sweep starts at {scale['floor']['lowest']:.2f}: "
                                f"{scale['floor']['reason']} (params.json: sweep.floor).")]
              if scale["floor"] and scale["floor"]["lowest"] > scale["floor"]["requested"]
              else []),
            ("Recommendation", calibration_console(cal).strip()),
            ("Estimated precision and recall of the dedupe (every 0.05)", markdown_table(
                evidence.curve.iloc[::5][[c for c in evidence.curve.columns
                                          if c not in ("method", "gate_pairs")]],
                ".3f", {"threshold": ".2f", "items_left": ".0f", "merged_pairs": ".0f",
                        "decoys": ".0f"})),
            ("Evidence", evidence_console(evidence).strip()),
        ],
        out_dir / "calibrate.md",
        f"Calibration: {name}",
    )
    choice = evidence.choice
    write_json(
        cal.as_dict() | {
            "corpus": corpus_meta(corpus, name),
            "parameters": parameters,
            "method": choice["method"],
            "estimated_precision": choice["estimated_precision"],
            "estimated_recall": choice["estimated_recall"],
            "evidence": {"note": choice["note"], "target_precision": options.evidence.precision,
                         "decoys": evidence.decoys, "labels": evidence.labels,
                         "curves": "calibrate/precision_recall.csv",
                         "scorer_curves": ("calibrate/precision_recall_scorers.csv"
                                           if len(evidence.scorers) else None),
                         "all_pairs_decoy_curves": ("calibrate/decoy_pairs.csv"
                                                    if len(evidence.decoy_pairs) else None)},
        },
        out / name / "calibration.json",
    )


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
    return run_calibrate(corpus, name, root, options, progress, echo=False)


def recorded_evidence(record: dict) -> EvidenceOptions:
    """:class:`EvidenceOptions` from ``params.json``'s ``evidence`` block (defaults if absent).

    Examples:
        >>> recorded_evidence({"decoy_field": "CATEGORY"}).decoy_field
        'CATEGORY'
    """
    def path(key: str) -> Path | None:
        return None if record.get(key) is None else Path(record[key])

    defaults = EvidenceOptions()
    return EvidenceOptions(
        decoy_field=record.get("decoy_field"),
        decoy_days=float(record.get("decoy_days", defaults.decoy_days)),
        decoy_pairs=path("decoy_pairs"),
        precision=float(record.get("precision", defaults.precision)),
        gold=path("gold"), story_column=record.get("story_column"),
        seed=int(record.get("seed", defaults.seed)))

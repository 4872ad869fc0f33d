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
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from newsdedup import paths
from newsdedup.cluster.dedupe import DedupeConfig
from newsdedup.cluster.greedy import greedy_clusters
from newsdedup.cluster.sweep import sweep_items_left
from newsdedup.corpus.load import load_corpus
from newsdedup.paths import sha256_file
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
from newsdedup.score.jaccard import PairScores, jaccard_matrix, upper_pairs, weighted_jaccard_matrix
from newsdedup.score.minhash import MinHashParams, estimate_matrix, signatures
from newsdedup.studies.calibration import (
    Calibration,
    calibrate,
    default_grid,
    sensitivity_quantiles,
    sweep,
)
from newsdedup.studies.measure import normalized_texts
from newsdedup.studies.sensitivity import SensitivityParams, simulate, texts_from_items
from newsdedup.text.normalize import DEFAULT_SCHEME
from newsdedup.text.shingle import shingle_matrix


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
        """The simulation's parameters (:func:`newsdedup.studies.sensitivity.simulate`)."""
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


def sweep_scorers(matrices: dict[str, np.ndarray], thresholds: Sequence[float],
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
        table = sweep(pairs[scorer], thresholds, items_left=partial(_items_left, m))
        frames.append(table.assign(scorer=scorer))
    out = pd.concat(frames, ignore_index=True)
    return out[["scorer", "threshold", "pairs", "items_left"]]


def _items_left(matrix: np.ndarray, threshold: float) -> int:
    """Groups left by greedy clustering of a score matrix at ``threshold``."""
    return greedy_clusters(matrix, threshold).n_groups


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
    texts = texts_from_items(items)
    progress(f"calibrate: word-retention simulation ({options.method}), "
             f"{len(options.fractions)} levels x {options.trials} trials")
    sens = simulate(texts, options.sensitivity())
    progress(f"calibrate: score matrices (n={options.n}) and threshold sweep")
    matrices = scorer_matrices(items, options.n, options.scheme)
    exact = upper_pairs(matrices["jaccard"])
    grid = default_grid(options.sweep_lo, options.sweep_hi)
    sweeps = pd.concat([sweep_scorers(matrices, grid.tolist(), {"jaccard": exact}),
                        sweep_seed000(items, grid.tolist())], ignore_index=True)
    cal = calibrate(exact, items, sens,
                    sweeps[sweeps["scorer"] == "jaccard"].drop(columns="scorer")
                    .reset_index(drop=True))
    if echo:
        print(sensitivity_console(sens, cal.upper_bound) + "\n" + calibration_console(cal),
              flush=True)
    _write_calibration(corpus, name, out, options, sens, cal, sweeps, [*matrices, SEED000], grid)
    progress(f"calibrate: wrote {out / name / 'calibrate'} and {out / name / 'calibration.json'}")
    return cal


def _write_calibration(corpus, name: str, out: Path, options: CalibrateOptions, sens,
                       cal: Calibration, sweeps: pd.DataFrame, scorers: Sequence[str],
                       grid: np.ndarray) -> None:
    """Write ``<out>/<name>/calibrate/`` and ``<out>/<name>/calibration.json``."""
    out_dir = out / name / "calibrate"
    both, one = sens.both_table(), sens.one_table()
    params = {
        "corpus": corpus_meta(corpus, name),
        "sensitivity": asdict(options.sensitivity()) | {
            "items_used": sens.n_items_used, "items_skipped": sens.n_items_skipped},
        "sweep": {"scorers": list(scorers), "thresholds": [float(x) for x in grid],
                  "clustering": "greedy against representatives; no gate except "
                                f"{SEED000} (DedupeConfig defaults)",
                  "minhash": MinHashParams.published().as_dict() | {"lsh": None}},
    }
    write_csv(both, out_dir / "both_sided.csv")
    write_csv(one, out_dir / "one_sided.csv")
    write_csv(cal.retention, out_dir / "retention.csv")
    write_csv(sweeps, out_dir / "sweep.csv")
    write_csv(sensitivity_quantiles(sens), out_dir / "quantiles.csv")
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
                               sweep_lo=grid[0], sweep_hi=grid[-1], scheme=sens["scheme"])
    return run_calibrate(corpus, name, root, options, progress, echo=False)

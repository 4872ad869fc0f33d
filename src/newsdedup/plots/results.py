"""The one loader of the plots: a run's result tables, read by corpus name and results root.

The analysis steps write CSV and JSON under ``<root>/<name>/`` (``results/``
by default, or ``$NEWSDEDUP_RESULTS``); the figures only read those files.
Three kinds of run write there, and each has its loader, all with the one
signature ``(name, root=None)``; :func:`load_run` and :func:`load_eval_run` take a
run folder's path instead (what the notebooks' ``RUN_DIR`` names):

* :func:`load_results`: the corpus steps (``newsdedup measure | calibrate |
  crosshost | dedupe``) -> :class:`Results`;
* :func:`load_eval`: the labelled evaluation (``newsdedup evaluate pairs |
  evaluate-clusters``) -> :class:`EvalResults`;
* :func:`load_signals`: the pair signals (``newsdedup signals``) -> :class:`SignalResults`.

A missing table raises :class:`FileNotFoundError` naming the file and the
command that writes it (:func:`missing_file` words every such message); an
empty file (a step with nothing to list) counts as missing. Tables are read
when first used, so a figure reads only its own tables, whatever the size of
the others.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from newsdedup import paths
from newsdedup.calibration.file import check_figure_fields, read_json_object

DEFAULT_NAME = paths.PALDYN.name
"""Corpus whose results are drawn when no name is given."""


def run_folder(name: str, root: Path | None = None) -> Path:
    """The folder of one name's results: ``<root>/<name>/``.

    Args:
        name: Corpus (or dataset) name.
        root: Results root; default :data:`newsdedup.paths.RESULTS_DIR`.

    Returns:
        The folder (it need not exist).

    Examples:
        >>> run_folder("toy", Path("/tmp/results")).as_posix()
        '/tmp/results/toy'
    """
    return (Path(root) if root is not None else paths.RESULTS_DIR) / name


def missing_file(path: Path, how: str) -> FileNotFoundError:
    """The error for a missing result file: its path, then how to write it.

    Args:
        path: The file that is missing.
        how: One or more sentences naming the command that writes it.

    Returns:
        The error (to raise).

    Examples:
        >>> missing_file(Path("/r/x.csv"), "Run `make x`.")
        FileNotFoundError('/r/x.csv not found. Run `make x`.')
    """
    return FileNotFoundError(f"{path} not found. {how}")


# --- the corpus steps ------------------------------------------------------------

# Which make target writes each input file: the error message of a missing file
# must tell the reader how to get it, not only that it is absent.
_FILES: dict[str, tuple[str, str]] = {
    "histogram": ("measure/histogram.csv", "measure"),
    "errors": ("measure/error_vs_perm.csv", "measure"),
    "thresholds": ("measure/thresholds.csv", "measure"),
    "summary": ("measure/summary.csv", "measure"),
    "top_pairs": ("measure/top_pairs.csv", "measure"),
    "lsh": ("measure/lsh.csv", "measure"),
    "both_sided": ("calibrate/both_sided.csv", "calibrate"),
    "one_sided": ("calibrate/one_sided.csv", "calibrate"),
    "retention": ("calibrate/retention.csv", "calibrate"),
    "sweep": ("calibrate/sweep.csv", "calibrate"),
    "quantiles": ("calibrate/quantiles.csv", "calibrate"),
    "cross_pairs": ("crosshost/cross_pairs.csv", "crosshost"),
    "score_days": ("crosshost/score_days.csv", "crosshost"),
    "ngram_sweep": ("measure/ngram_sweep.csv", "measure"),
    "ngram_tracks": ("measure/ngram_tracks.csv", "measure"),
    "dedupe_sweep": ("dedupe/sweep.csv", "dedupe"),
    "precision_recall": ("calibrate/precision_recall.csv", "calibrate"),
    "gold_pairs": ("signals/gold_pairs.csv", "signals"),
}
CALIBRATION_FILE = "calibration.json"

# Written only under some options (LSH can be switched off; quantiles are an
# optional extra table): reading them gives None instead of an error.
# The n-gram sweep and the dedupe sweep are newer steps: an older results tree
# without them still draws the other figures.
_OPTIONAL = frozenset({"lsh", "quantiles", "ngram_sweep", "ngram_tracks", "dedupe_sweep",
                       "gold_pairs", "precision_recall", "score_days"})

LISTED_ROWS = 100_000
"""Most rows of ``cross_pairs.csv`` read (it is sorted best first; ``crosshost`` writes no more)."""


def _usable(path: Path) -> bool:
    """A table file with at least a header (a step with nothing to list may write one byte)."""
    return path.is_file() and path.stat().st_size > 1


def _missing(path: Path, target: str, name: str) -> FileNotFoundError:
    return missing_file(
        path, f"It is written by `make {target}` (or `make reproduce`, which runs "
        f"every step for the pinned corpus); for another corpus run "
        f"`make {target} CORPUS=path/to/file NAME={name}`.")


class _Table:
    """A table attribute of :class:`Results`: the frame, or the missing-file error on access."""

    def __init__(self, doc: str) -> None:
        self.__doc__ = doc

    def __set_name__(self, owner: type, name: str) -> None:
        self.key = name

    def __get__(self, obj: Results | None, objtype: type | None = None):
        if obj is None:
            return self
        return obj.table(self.key)


@dataclass(frozen=True)
class Results:
    """The tables of one corpus's results tree, as written by the ``newsdedup`` steps.

    :func:`load_results` notes which tables exist; each is read when first
    used. A table whose file is missing (or empty) raises
    :class:`FileNotFoundError` (naming the file and the ``make`` target that
    writes it) when it is *used*, so a notebook that needs only the measure
    tables works after ``make measure`` alone.

    Attributes:
        name: Corpus name (the folder under the results root).
        path: The folder ``<root>/<name>/``.
        frames: The tables read so far, keyed by attribute name (``histogram``, ``sweep``, ...).
        calibration_data: ``calibration.json`` as a dict, or None if absent.
    """

    name: str
    path: Path
    frames: dict[str, pd.DataFrame]
    calibration_data: dict | None = None

    histogram = _Table("``measure/histogram.csv``: n, bin_lo, bin_hi, exact, estimate.")
    errors = _Table("``measure/error_vs_perm.csv``: family, scheme, seed, num_perm, err_mean, "
                    "err_max, rmse, theory_rmse, theory_se_max.")
    thresholds = _Table("``measure/thresholds.csv``: n, threshold, real, candidates, matches, "
                        "recall.")
    summary = _Table("``measure/summary.csv``: one row per n-gram size.")
    top_pairs = _Table("``measure/top_pairs.csv``: the highest exact pairs.")
    lsh = _Table("``measure/lsh.csv``, or None when LSH was switched off.")
    both_sided = _Table("``calibrate/both_sided.csv``: f, pairs, mean, std, p5, min.")
    one_sided = _Table("``calibrate/one_sided.csv``: f, pairs, mean, std, min.")
    retention = _Table("``calibrate/retention.csv``: both-sided table plus above_bound (and "
                       "caught_at_recommended when a threshold was recommended).")
    sweep = _Table("``calibrate/sweep.csv``: scorer, threshold, pairs, items_left.")
    quantiles = _Table("``calibrate/quantiles.csv`` (side, f, q, value), or None.")
    cross_pairs = _Table("``crosshost/cross_pairs.csv``: the cross-host pairs, best first (at "
                         "most :data:`LISTED_ROWS`).")
    score_days = _Table("``crosshost/score_days.csv``: cross pairs per score and days-apart "
                        "bin; or None (written by newer runs).")
    ngram_sweep = _Table("``measure/ngram_sweep.csv``: n, pairs, mean_shingles, mean, p50, p90, "
                         "p99, p999, max, pairs_ge_*; or None.")
    ngram_tracks = _Table("``measure/ngram_tracks.csv``: rank, i, j, n, score; or None.")
    gold_pairs = _Table("``signals/gold_pairs.csv``: labelled pairs with their signals "
                        "(``newsdedup evaluate gold``); or None.")
    dedupe_sweep = _Table("``dedupe/sweep.csv``: scorer, gate, threshold, pairs_at_or_above, "
                          "items_left, merged; or None.")
    precision_recall = _Table("``calibrate/precision_recall.csv``: per threshold, the calibrated "
                              "dedupe's merges, estimated precision and recall; or None.")


    def table(self, key: str) -> pd.DataFrame | None:
        """One table by attribute name; None for an absent optional table.

        Raises:
            KeyError: ``key`` is not a table of the results tree.
            FileNotFoundError: The table's file is missing; the message names the
                file and the ``make`` target that writes it.
        """
        if key not in _FILES:
            raise KeyError(f"unknown table {key!r}; tables: {', '.join(_FILES)}")
        if key in self.frames:
            return self.frames[key]
        rel, target = _FILES[key]
        if _usable(self.path / rel):
            nrows = LISTED_ROWS if key == "cross_pairs" else None
            self.frames[key] = pd.read_csv(self.path / rel, nrows=nrows)
            return self.frames[key]
        if key in _OPTIONAL:
            return None
        raise _missing(self.path / rel, target, self.name)

    def has(self, key: str) -> bool:
        """Whether the table ``key`` exists (and is not empty), without reading it."""
        return _usable(self.path / _FILES[key][0])

    @property
    def crosshost_note(self) -> str | None:
        """Why the run has no cross-host pairs (``crosshost.json``), or None when it has some."""
        path = self.path / "crosshost" / "crosshost.json"
        if not path.is_file():
            return None
        return json.loads(path.read_text(encoding="utf-8")).get("summary", {}).get("note")

    def scale_note(self, table: str) -> str | None:
        """Why ``measure`` left ``table`` out on this corpus (``measure/params.json``), or None.

        On large corpora ``measure`` takes a sampled or streamed path that skips
        some studies and says so under ``scale.figures``.
        """
        path = self.path / "measure" / "params.json"
        if not path.is_file():
            return None
        scale = json.loads(path.read_text(encoding="utf-8")).get("scale") or {}
        note = (scale.get("figures") or {}).get(table)
        if not note or not str(note).startswith("not computed"):
            return None
        return (f"{note}: measure took its {scale.get('path', 'large-corpus')} path on this "
                f"corpus (measure/params.json, scale)")

    @property
    def calibration(self) -> dict:
        """``calibration.json``: recommended_threshold, rationale, band, upper_bound, ..."""
        if self.calibration_data is None:
            raise _missing(self.path / CALIBRATION_FILE, "calibrate", self.name)
        return self.calibration_data

    @property
    def upper_bound(self) -> float:
        """The unrelated-pair upper bound: max exact Jaccard over all pairs."""
        return float(self.calibration["upper_bound"])

    @property
    def recommended(self) -> float | None:
        """The recommended threshold, or None when the calibration found no band."""
        value = self.calibration.get("recommended_threshold")
        return None if value is None else float(value)

    @property
    def band(self) -> tuple[float, float] | None:
        """``(low, high]`` of the threshold band, or None."""
        band = self.calibration.get("band")
        return None if band is None else (float(band[0]), float(band[1]))

    @property
    def gold_n(self) -> int | None:
        """n-gram size of the labelled pairs' scores (``signals/gold_params.json``), or None."""
        path = self.path / "signals" / "gold_params.json"
        if not path.is_file():
            return None
        return int(json.loads(path.read_text(encoding="utf-8"))["options"]["signals"]["n"])

    @property
    def dedupe_threshold(self) -> float | None:
        """The threshold of the last dedupe run (``dedupe/dedupe.json``), or None."""
        path = self.path / "dedupe" / "dedupe.json"
        if not path.is_file():
            return None
        return float(json.loads(path.read_text(encoding="utf-8"))["config"]["threshold"])

    @property
    def target_precision(self) -> float | None:
        """The calibration's target precision (``calibration.json``), or None."""
        value = self.calibration.get("target_precision")
        return None if value is None else float(value)

    @property
    def decoys(self) -> dict | None:
        """The decoys of ``calibration.json`` (rule, check, compared pairs), or None."""
        value = self.calibration.get("decoys")
        return value if isinstance(value, dict) else None

    @property
    def calibration_n(self) -> int | None:
        """n-gram size the bound was measured at (None if the JSON does not say)."""
        n = self.calibration.get("parameters", {}).get("n")
        return None if n is None else int(n)


def load_results(name: str = DEFAULT_NAME, root: Path | None = None) -> Results:
    """Read the results tree of one corpus.

    Args:
        name: Corpus name, the folder under the results root.
        root: Results root; default :data:`newsdedup.paths.RESULTS_DIR`
            (``results/``, or ``$NEWSDEDUP_RESULTS``).

    Returns:
        A :class:`Results` holding every table found. Using a table whose file
        is missing raises :class:`FileNotFoundError` naming the file and the
        ``make`` target that writes it.

    Raises:
        FileNotFoundError: No table of the tree exists at all (nothing was run for
            ``name``); the message names the first expected file and the target.

    Examples:
        >>> load_results("no-such-corpus", Path("/nonexistent"))
        Traceback (most recent call last):
        ...
        FileNotFoundError: /nonexistent/no-such-corpus/measure/histogram.csv not found. ...
    """
    base = run_folder(name, root)
    cal_path = base / CALIBRATION_FILE
    calibration = (check_figure_fields(read_json_object(cal_path), cal_path)
                   if cal_path.is_file() else None)
    if calibration is None and not any(_usable(base / rel) for rel, _ in _FILES.values()):
        rel, target = _FILES["histogram"]
        raise _missing(base / rel, target, name)
    return Results(name=name, path=base, frames={}, calibration_data=calibration)


def load_run(run_dir: str | Path | None = None) -> Results:
    """Read the results of one run folder, by its path (a notebook's ``RUN_DIR``).

    Args:
        run_dir: The folder ``newsdedup run`` wrote (``<out>/<name>/``); None for the
            pinned archive's, ``<results root>/paldyn-ai-lab-news``.

    Returns:
        The :class:`Results` of that folder.

    Raises:
        FileNotFoundError: The folder holds no result at all.

    Examples:
        >>> load_run("/nonexistent/my-feed")
        Traceback (most recent call last):
        ...
        FileNotFoundError: /nonexistent/my-feed/measure/histogram.csv not found. ...
    """
    return load_results(DEFAULT_NAME) if run_dir is None else load_results(*split_run(run_dir))



def split_run(run_dir: str | Path) -> tuple[str, Path]:
    """A run folder's ``(name, root)``: its folder name and the folder holding it.

    Examples:
        >>> name, root = split_run("/tmp/results/my-feed")
        >>> name, root.as_posix()
        ('my-feed', '/tmp/results')
    """
    folder = Path(run_dir).expanduser().absolute()
    return folder.name, folder.parent


# --- the labelled evaluation -------------------------------------------------------

_EVAL_HOW = ("It is written by `make eval` (or `newsdedup evaluate pairs` / "
             "`evaluate-clusters`).")


@dataclass(frozen=True)
class EvalResults:
    """The tables of one ``results/<name>/eval/`` folder.

    Attributes:
        name: Dataset name (the folder under the results root).
        path: The ``eval`` folder.
        tables: Table name -> DataFrame (every CSV of the folder).
        recommendation: ``recommendation.json`` (pair studies), else None.
    """

    name: str
    path: Path
    tables: dict[str, pd.DataFrame]
    recommendation: dict | None

    def table(self, key: str) -> pd.DataFrame:
        """One table by name (the CSV's stem, e.g. ``"scores"``).

        Raises:
            FileNotFoundError: The folder has no ``<key>.csv``; the message names the file
                and the command that writes it.
        """
        if key not in self.tables:
            raise missing_file(self.path / f"{key}.csv", _EVAL_HOW)
        return self.tables[key]


def load_eval(name: str, root: Path | None = None) -> EvalResults:
    """Read every table of ``<root>/<name>/eval/``.

    Args:
        name: Dataset name, e.g. ``"korsts"`` or ``"uci-news-aggregator-head-sample12"``.
        root: Results root; :data:`newsdedup.paths.RESULTS_DIR` by default.

    Returns:
        The tables found (:meth:`EvalResults.table` names a missing one).

    Raises:
        FileNotFoundError: The folder holds no table at all; the message says which
            command writes them.

    Examples:
        >>> load_eval("no-such-dataset", Path("/nonexistent"))
        Traceback (most recent call last):
        ...
        FileNotFoundError: /nonexistent/no-such-dataset/eval/*.csv not found. ...make eval...
    """
    path = run_folder(name, root) / "eval"
    csvs = sorted(path.glob("*.csv")) if path.is_dir() else []
    if not csvs:
        raise missing_file(path / "*.csv", _EVAL_HOW)
    # Text columns stay text (ids such as "0001" must not become numbers).
    tables = {p.stem: pd.read_csv(p, dtype={"id": str, "id_i": str, "id_j": str,
                                            "rep_id": str}) for p in csvs}
    rec_path = path / "recommendation.json"
    rec = json.loads(rec_path.read_text("utf-8")) if rec_path.is_file() else None
    return EvalResults(name=name, path=path, tables=tables, recommendation=rec)


def load_eval_run(run_dir: str | Path | None, default: str = "korsts") -> EvalResults:
    """Read ``<run_dir>/eval/`` (a notebook's ``RUN_DIR``); None reads ``results/<default>``.

    Args:
        run_dir: The study's folder (``newsdedup evaluate pairs --pairs FILE --name NAME``
            writes ``results/NAME/``), or None.
        default: The committed study read when ``run_dir`` is None.

    Returns:
        The study's tables (:func:`load_eval`).
    """
    return load_eval(default) if run_dir is None else load_eval(*split_run(run_dir))


# --- the pair signals ----------------------------------------------------------------

_SIGNAL_FILES = {"host_pairs": "host_pairs.csv", "funnel": "funnel.csv",
                 "candidates": "candidates.csv", "top_host_pairs": "top_host_pairs.csv"}


@dataclass(frozen=True)
class SignalResults:
    """The tables of ``results/<name>/signals/``.

    Attributes:
        name: Corpus name.
        path: The ``signals`` folder read.
        host_pairs: Every pair the host rule keeps, with its signals and verdict.
        funnel: Pairs left after each rule.
        candidates: The detector's candidates.
        top_host_pairs: Best surface scores among the host pairs, with verdicts.
        upper_bound: Highest ``text_jaccard`` over all pairs (the unrelated-pair bound).
        max_days: The detector's date window in days (``params.json``), or None.
    """

    name: str
    path: Path
    host_pairs: pd.DataFrame
    funnel: pd.DataFrame
    candidates: pd.DataFrame
    top_host_pairs: pd.DataFrame
    upper_bound: float
    max_days: float | None = None


def load_signals(name: str = DEFAULT_NAME, root: Path | None = None) -> SignalResults:
    """Read the signal tables of one corpus.

    Args:
        name: Corpus name, the folder under the results root.
        root: Results root; :data:`newsdedup.paths.RESULTS_DIR` by default.

    Returns:
        The tables, the bound and the date window of ``<root>/<name>/signals/``.

    Raises:
        FileNotFoundError: A table is missing; the message names it and the command
            that writes it.

    Examples:
        >>> load_signals("no-such-corpus", Path("/nonexistent"))
        Traceback (most recent call last):
        ...
        FileNotFoundError: /nonexistent/no-such-corpus/signals/host_pairs.csv not found. ...
    """
    base = run_folder(name, root) / "signals"
    tables: dict[str, Any] = {}
    for key, file in {**_SIGNAL_FILES, "params": "params.json"}.items():
        if not (base / file).is_file():
            raise missing_file(
                base / file, f"Run `newsdedup signals` for this corpus (or `make signals`; "
                f"for another corpus `newsdedup signals path/to/file --name {name}`).")
        if key != "params":
            tables[key] = pd.read_csv(base / file, keep_default_na=False,
                                      na_values={"days_apart": [""]})
    params = json.loads((base / "params.json").read_text(encoding="utf-8"))
    bound = float(params["upper_bound_text_jaccard"])
    days = params.get("options", {}).get("detector", {}).get("max_days")
    return SignalResults(name=name, path=base, upper_bound=bound,
                         max_days=None if days is None else float(days), **tables)


def load_signals_run(run_dir: str | Path | None = None) -> SignalResults:
    """Read ``<run_dir>/signals/`` (a notebook's ``RUN_DIR``); None: the pinned archive's.

    Returns:
        The signal tables (:func:`load_signals`).
    """
    return load_signals() if run_dir is None else load_signals(*split_run(run_dir))

"""A labeling loop: export candidate pairs for a person, read the labels back, score everything.

1. :func:`export_candidates` writes the top pairs of a corpus to a sheet --
   a per-scorer quota of each surface scorer's favourites *and* the signal
   detector's candidates, so neither side's blind spots hide the other's
   finds -- with the two texts side by side and empty ``label`` / ``reason``
   columns.
2. A person fills in ``label`` with one of :data:`LABELS` and a one-line
   ``reason``. Only ``same`` (one announcement, posted twice) is a
   duplicate by default; ``followup`` (a later report on the same event),
   ``related`` (same product line or topic, different news) and
   ``different`` are not.
3. :func:`read_gold` reads the sheet back with validation (every problem
   named by file and line), and :func:`evaluate_gold` reports precision and
   recall of every scorer and detector on the labelled pairs.

Labels are judgments on one corpus: the numbers say how the scorers do on
the pairs someone looked at, which are not a random sample of all pairs.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from newsdedup.corpus.cells import unescape_cell
from newsdedup.evaluate.metrics import best_threshold, separation_auc, threshold_metrics
from newsdedup.signals.detector import DetectorConfig, detect
from newsdedup.signals.pairs import SURFACE, Prepared, describe, pair_signals

LABELS: tuple[str, ...] = ("same", "followup", "related", "different")
"""Allowed labels, from most to least alike."""

POSITIVE: tuple[str, ...] = ("same",)
"""Labels that count as a duplicate by default."""

SCORERS: tuple[str, ...] = (*SURFACE, "entity_weight", "entity_jaccard")
"""Score columns exported and evaluated by default."""

GOLD_COLUMNS: tuple[str, ...] = ("id_i", "id_j", "label", "reason")
"""Columns a gold file must have (others are kept for the reader and ignored)."""

SHEET_SIGNALS: tuple[str, ...] = ("host_relation", "days_apart", *SCORERS, "shared_entities",
                                  "version_conflict")


class GoldError(ValueError):
    """A gold file that cannot be read; the message names the file and line."""

    def __init__(self, path: Path, line: int, reason: str) -> None:
        """Keep the file, line and reason; the message is ``<path>:<line>: <reason>``."""
        super().__init__(f"{path}:{line}: {reason}")
        self.path, self.line, self.reason = path, line, reason


def rank_pairs(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    """Rows of a signal frame best ``column`` first; ties by larger ``i``, then larger ``j``.

    The tie-break is :meth:`newsdedup.score.jaccard.PairScores.top`'s, so lists agree.

    Examples:
        >>> f = pd.DataFrame({"i": [0, 0, 1], "j": [1, 2, 2], "s": [0.5, 0.9, 0.5]})
        >>> rank_pairs(f, "s")[["i", "j"]].values.tolist()
        [[0, 2], [1, 2], [0, 1]]
    """
    order = np.lexsort((frame["j"].to_numpy(), frame["i"].to_numpy(),
                        frame[column].to_numpy()))[::-1]
    return frame.iloc[order]


def _top(frame: pd.DataFrame, column: str, k: int) -> pd.DataFrame:
    """The ``k`` rows with the highest positive ``column`` (see :func:`rank_pairs`)."""
    return rank_pairs(frame[frame[column] > 0], column).head(k)


def export_candidates(prep: Prepared, frame: pd.DataFrame | None = None,
                      scorers: Sequence[str] = SCORERS, quota: int = 10,
                      detectors: Mapping[str, DetectorConfig] | None = None,
                      detector_quota: int | None = None) -> pd.DataFrame:
    """A labeling sheet: each scorer's and each detector's favourite pairs, texts side by side.

    Args:
        prep: The prepared corpus (:func:`newsdedup.signals.pairs.prepare`).
        frame: Its signal frame; computed over all pairs when omitted.
        scorers: Score columns whose top pairs are listed.
        quota: Pairs taken from each scorer (its ``quota`` highest, score > 0).
        detectors: Name -> detector settings; default ``{"detector": DetectorConfig()}``.
        detector_quota: Candidates taken from each detector (best ``text_jaccard``
            first); ``None`` takes them all.

    Returns:
        One row per distinct pair, in order of first proposal (scorers in the
        given order, then detectors): ``id_i, id_j``, empty ``label`` and
        ``reason``, ``proposed_by`` (every scorer or detector that listed it,
        ``"+"``-joined), per detector its verdict (``candidate`` or the rule
        that rejected the pair), the signals, shared names, version
        conflicts, dates, titles and summaries.
    """
    if quota < 0:
        raise ValueError(f"quota must be >= 0, got {quota}")
    frame = pair_signals(prep) if frame is None else frame
    detectors = {"detector": DetectorConfig()} if detectors is None else dict(detectors)
    unknown = [s for s in scorers if s not in frame.columns]
    if unknown:
        raise ValueError(f"unknown scorer column(s) {unknown}; the signal frame has "
                         f"{[c for c in frame.columns if frame[c].dtype.kind == 'f']}")
    picks = [(s, _top(frame, s, quota)) for s in scorers]
    verdicts = {}
    for name, cfg in detectors.items():
        d = detect(frame, cfg)
        verdicts[name] = np.where(d["candidate"], "candidate", d["rejected_by"])
        cands = d[d["candidate"]]
        picks.append((name, _top(cands, "text_jaccard", len(cands) if detector_quota is None
                                 else detector_quota)))
    rows: list = []
    sources: dict = {}
    for name, sub in picks:
        for pos in sub.index:
            if pos not in sources:
                rows.append(pos)
                sources[pos] = []
            sources[pos].append(name)
    sheet = frame.loc[rows].copy()
    for name, v in verdicts.items():
        sheet[name] = v[rows] if len(frame) else v
    sheet["proposed_by"] = ["+".join(sources[p]) for p in rows]
    sheet["label"] = ""
    sheet["reason"] = ""
    sheet = describe(prep, sheet)
    lead = ["id_i", "id_j", "label", "reason", "proposed_by", *verdicts, "title_i", "title_j"]
    rest = [*SHEET_SIGNALS, "shared_names", "conflict", "host_i", "host_j", "published_at_i",
            "published_at_j", "summary_i", "summary_j"]
    return sheet[lead + rest].reset_index(drop=True)


@dataclass(frozen=True)
class Gold:
    """A read gold file.

    Attributes:
        labeled: Rows with a label: ``id_i, id_j, label, reason, line``.
        unlabeled: Rows whose ``label`` is empty (exported but not judged yet), same columns.
        path: The file.
    """

    labeled: pd.DataFrame
    unlabeled: pd.DataFrame
    path: Path


def read_gold(path: str | Path, ids: Sequence[str] | None = None) -> Gold:
    r"""Read and validate a gold file (CSV with at least :data:`GOLD_COLUMNS`).

    Args:
        path: The CSV (UTF-8, header row; other columns are ignored).
        ids: The corpus's item ids; when given, every id must be one of them.

    Returns:
        The labelled and the not-yet-labelled rows; every data row is in one of them.

    Raises:
        GoldError: A missing column, an unknown label, an id not in the corpus,
            an item paired with itself or a pair listed twice (in either
            order); the message names the file and line.

    Examples:
        >>> import tempfile
        >>> p = Path(tempfile.mkdtemp()) / "g.csv"
        >>> _ = p.write_text("id_i,id_j,label,reason\na,b,same,one post\na,c,,\n")
        >>> g = read_gold(p)
        >>> g.labeled[["id_i", "label", "line"]].values.tolist(), len(g.unlabeled)
        ([['a', 'same', 2]], 1)
        >>> _ = p.write_text("id_i,id_j,label,reason\na,b,dupe,x\n")
        >>> read_gold(p)
        Traceback (most recent call last):
        ...
        newsdedup.evaluate.gold.GoldError: ...g.csv:2: label 'dupe' is not one of ('same', ...
    """
    path = Path(path)
    known = None if ids is None else set(map(str, ids))
    rows: list[dict] = []
    seen: dict[frozenset, int] = {}
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in GOLD_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise GoldError(path, 1, f"missing column(s) {missing}; the header is "
                                     f"{reader.fieldnames}")
        start = reader.line_num + 1
        for rec in reader:
            line, start = start, reader.line_num + 1
            # Sheets written by the workbench escape ids a spreadsheet would run ('=..., '-...).
            a, b = (unescape_cell((rec[c] or "").strip()) for c in ("id_i", "id_j"))
            label = (rec["label"] or "").strip().lower()
            if not a or not b:
                raise GoldError(path, line, "id_i and id_j must both be given")
            if a == b:
                raise GoldError(path, line, f"item {a!r} is paired with itself")
            if known is not None:
                absent = [x for x in (a, b) if x not in known]
                if absent:
                    raise GoldError(path, line, f"id(s) {absent} not in the corpus")
            if label and label not in LABELS:
                raise GoldError(path, line, f"label {label!r} is not one of {LABELS}")
            key = frozenset((a, b))
            if key in seen:
                raise GoldError(path, line, f"pair ({a}, {b}) already listed on line {seen[key]}")
            seen[key] = line
            rows.append({"id_i": a, "id_j": b, "label": label,
                         "reason": (rec["reason"] or "").strip(), "line": line})
    table = pd.DataFrame(rows, columns=[*GOLD_COLUMNS, "line"])
    has = table["label"] != ""
    return Gold(table[has].reset_index(drop=True), table[~has].reset_index(drop=True), path)


def gold_signals(prep: Prepared, gold: Gold) -> pd.DataFrame:
    """The signal frame of the labelled pairs, in gold-file order, with label and reason."""
    index = {str(v): k for k, v in enumerate(prep.items["id"])}
    try:
        a = np.asarray([index[x] for x in gold.labeled["id_i"]], dtype=np.int64)
        b = np.asarray([index[x] for x in gold.labeled["id_j"]], dtype=np.int64)
    except KeyError as exc:
        raise GoldError(gold.path, 0, f"id {exc.args[0]!r} not in the corpus") from None
    i, j = np.minimum(a, b), np.maximum(a, b)
    frame = pair_signals(prep, i, j)
    for col in ("label", "reason", "line"):
        frame[col] = gold.labeled[col].to_numpy()
    return frame


def evaluate_gold(prep: Prepared, gold: Gold, scorers: Sequence[str] = SCORERS,
                  detectors: Mapping[str, DetectorConfig] | None = None,
                  positive: Sequence[str] = POSITIVE) -> dict[str, pd.DataFrame]:
    """Precision and recall of every scorer and detector on the labelled pairs.

    A scorer has no threshold of its own, so each is reported twice, both
    chosen on the gold pairs themselves (in-sample; read them as the best a
    threshold could do here): at the lowest score of a positive pair
    (``full-recall``) and at the best F1 (``best-f1``, ties to the higher
    threshold), with its AUC. A detector is a yes/no rule and reported once.

    Args:
        prep: The prepared corpus.
        gold: From :func:`read_gold`.
        scorers: Score columns to evaluate.
        detectors: Name -> settings; default ``{"detector": DetectorConfig()}``.
        positive: Labels counted as duplicates.

    Returns:
        ``{"metrics": name, kind, rule, threshold, tp, fp, fn, precision,
        recall, f1, auc; "pairs": every gold pair with its label, reason,
        signals (``i``, ``j`` included), each detector's verdict; "summary": counts
        per label}``.
    """
    detectors = {"detector": DetectorConfig()} if detectors is None else dict(detectors)
    bad = [p for p in positive if p not in LABELS]
    if bad:
        raise ValueError(f"positive label(s) {bad} not in {LABELS}")
    frame = gold_signals(prep, gold)
    pos = frame["label"].isin(list(positive)).to_numpy()
    rows = []
    for s in scorers:
        score = frame[s].to_numpy(np.float64)
        auc = separation_auc(score, pos)
        full = float(score[pos].min()) if pos.any() else math.nan
        at_full = threshold_metrics(score, pos, [full]).iloc[0].to_dict()
        grid = np.unique(score)
        best = best_threshold(threshold_metrics(score, pos, grid)) if len(grid) else at_full
        for rule, m in (("full-recall", at_full), ("best-f1", best)):
            rows.append({"name": s, "kind": "scorer", "rule": rule, **m, "auc": auc})
    verdicts = {}
    for name, cfg in detectors.items():
        d = detect(frame, cfg)
        flag = d["candidate"].to_numpy(bool)
        verdicts[name] = np.where(flag, "candidate", d["rejected_by"])
        m = threshold_metrics(flag.astype(np.float64), pos, [1.0]).iloc[0].to_dict()
        rows.append({"name": name, "kind": "detector", "rule": " / ".join(
            cfg.describe()[r] for r in cfg.enabled()) or "none", **m,
            "auc": separation_auc(flag.astype(np.float64), pos)})
    metrics = pd.DataFrame(rows)
    for c in ("tp", "fp", "fn"):
        metrics[c] = metrics[c].astype(np.int64)
    pairs = frame.copy()
    for name, v in verdicts.items():
        pairs[name] = v
    lead = ["line", "id_i", "id_j", "label", "reason", *verdicts]
    pairs = pairs[lead + [c for c in pairs.columns if c not in lead]]
    summary = (frame["label"].value_counts().reindex(list(LABELS), fill_value=0)
               .rename_axis("label").reset_index(name="pairs"))
    summary["positive"] = summary["label"].isin(list(positive))
    return {"metrics": metrics, "pairs": pairs, "summary": summary}

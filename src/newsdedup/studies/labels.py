"""Measured precision and recall of a dedupe against labels, and the sample that gets labels.

Two kinds of labels are read:

* a **story column** (``--story-column``): items with equal values are one
  story, so every pair is labelled (UCI's ``STORY``). Precision is the
  share of merged pairs within one story, recall the share of same-story
  pairs merged (:func:`newsdedup.evaluate.metrics.pairwise_scores`).
* **gold pairs** (``data/gold/...``, :func:`newsdedup.evaluate.gold.read_gold`):
  a sample of pairs labelled by a person. Precision is the share of
  labelled merged pairs that are ``same``, recall the share of ``same``
  pairs merged. A stratified sheet (:func:`stratified_sample`) samples the
  score bins at fixed sizes, so its pairs are weighted by each bin's share
  of all pairs (:func:`gold_curve`) to estimate the precision of the merges
  rather than of the sheet.

Intervals are percentile bootstraps with a fixed seed: over dedupe groups
and stories for a story column (false merges come in blocks, so pairs are
not independent), over labelled pairs for gold pairs.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from newsdedup.corpus.cells import unescape_cell
from newsdedup.score.jaccard import PairScores
from newsdedup.studies.decoys import CONFIDENCE, Interval, clopper_pearson
from newsdedup.studies.quantiles import beta_ppf

BOOTSTRAP = 1000
"""Bootstrap resamples of the measured intervals."""


def _pairs_of(counts: np.ndarray) -> np.ndarray:
    return counts * (counts - 1) // 2


def _quantiles(draws: np.ndarray, confidence: float) -> tuple[float, float]:
    finite = draws[np.isfinite(draws)]
    if not len(finite):
        return math.nan, math.nan
    a = (1.0 - confidence) / 2
    lo, hi = np.quantile(finite, [a, 1 - a])
    return float(lo), float(hi)


def _ratio_boot(num: np.ndarray, den: np.ndarray, resamples: int, rng: np.random.Generator,
                confidence: float) -> Interval:
    """``sum(num) / sum(den)`` with a percentile bootstrap over the units."""
    total = den.sum()
    value = float(num.sum() / total) if total else math.nan
    if not len(den) or not resamples or not total:
        return Interval(value, value, value)
    w = rng.multinomial(len(den), np.full(len(den), 1.0 / len(den)), size=resamples)
    with np.errstate(invalid="ignore", divide="ignore"):
        draws = (w @ num) / (w @ den)
    lo, hi = _quantiles(draws, confidence)
    return Interval(value, lo, hi)


def story_scores(labels: Sequence[int] | np.ndarray, story: Sequence, resamples: int = BOOTSTRAP,
                 seed: int = 0, confidence: float = CONFIDENCE) -> dict:
    """Pairwise precision and recall of a partition against a story column, with intervals.

    Args:
        labels: Dedupe group per item.
        story: Story id per item (equal ids: one story).
        resamples: Bootstrap resamples (groups for precision, stories for recall).
        seed: Of the bootstrap.
        confidence: Of the intervals.

    Returns:
        ``{"merged_pairs", "true_pairs", "tp", "precision": Interval, "recall": Interval}``.

    Examples:
        >>> r = story_scores([1, 1, 2, 2, 2], ["a", "a", "a", "b", "b"], resamples=0)
        >>> r["tp"], r["precision"].value, r["recall"].value
        (2, 0.5, 0.5)
    """
    g = pd.factorize(pd.Series(list(labels)))[0]
    s = pd.factorize(pd.Series(list(story), dtype=object))[0]
    if len(g) != len(s):
        raise ValueError(f"{len(g)} group labels for {len(s)} story ids")
    cells = pd.DataFrame({"g": g, "s": s}).value_counts()
    tp_cell = _pairs_of(cells.to_numpy())
    gi, si = cells.index.get_level_values(0), cells.index.get_level_values(1)
    merged = _pairs_of(np.bincount(g)) if len(g) else np.zeros(0, np.int64)
    true = _pairs_of(np.bincount(s)) if len(s) else np.zeros(0, np.int64)
    tp_g = np.bincount(gi, weights=tp_cell, minlength=len(merged))
    tp_s = np.bincount(si, weights=tp_cell, minlength=len(true))
    rng = np.random.default_rng(seed)
    keep_g, keep_s = merged > 0, true > 0  # resample only units that carry pairs
    prec = _ratio_boot(tp_g[keep_g], merged[keep_g].astype(float), resamples, rng, confidence)
    rec = _ratio_boot(tp_s[keep_s], true[keep_s].astype(float), resamples, rng, confidence)
    return {"merged_pairs": int(merged.sum()), "true_pairs": int(true.sum()),
            "tp": int(tp_cell.sum()), "precision": prec, "recall": rec}


def gold_positions(ids: Sequence[str], gold: pd.DataFrame, positive: Sequence[str] = ("same",)
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row positions and truth of labelled gold pairs (``read_gold(...).labeled``).

    Returns:
        ``(i, j, is_positive)`` in gold order.

    Raises:
        ValueError: An id of the gold file is not in the corpus (naming the line).
    """
    index = {str(v): k for k, v in enumerate(ids)}
    out = []
    for col in ("id_i", "id_j"):
        pos = []
        for x, line in zip(gold[col], gold["line"], strict=True):
            if str(x) not in index:
                raise ValueError(f"gold line {line}: id {x!r} is not in the corpus")
            pos.append(index[str(x)])
        out.append(np.asarray(pos, dtype=np.int64))
    return out[0], out[1], gold["label"].isin(list(positive)).to_numpy()


def gold_scores(labels: np.ndarray, i: np.ndarray, j: np.ndarray, positive: np.ndarray,
                weights: np.ndarray | None = None, resamples: int = BOOTSTRAP, seed: int = 0,
                confidence: float = CONFIDENCE) -> dict:
    """Precision and recall of a partition on labelled pairs, bootstrapped over the pairs.

    Args:
        labels: Dedupe group per item.
        i: First item of each labelled pair.
        j: Second item.
        positive: Whether each pair is a duplicate.
        weights: Pairs of the corpus each labelled pair stands for (its
            stratum's pairs over its stratum's labels); None for 1 each.
        resamples: Bootstrap resamples.
        seed: Of the bootstrap.
        confidence: Of the intervals.

    Returns:
        ``{"labelled", "merged_labelled", "precision": Interval, "recall": Interval}``;
        each interval is the bootstrap's widened to contain the exact binomial
        interval of the labelled counts.

    Examples:
        >>> r = gold_scores(np.array([0, 0, 1]), np.array([0, 1]), np.array([1, 2]),
        ...                 np.array([True, True]), resamples=0)
        >>> r["precision"].value, r["recall"].value
        (1.0, 0.5)
    """
    lab = np.asarray(labels)
    merged = (lab[i] == lab[j]).astype(float)
    w = np.ones(len(i)) if weights is None else np.asarray(weights, dtype=float)
    pos = np.asarray(positive, dtype=float)
    rng = np.random.default_rng(seed)
    prec = _widen(_ratio_boot(w * merged * pos, w * merged, resamples, rng, confidence),
                  int((merged * pos).sum()), int(merged.sum()), confidence)
    rec = _widen(_ratio_boot(w * merged * pos, w * pos, resamples, rng, confidence),
                 int((merged * pos).sum()), int(pos.sum()), confidence)
    return {"labelled": len(i), "merged_labelled": int(merged.sum()), "precision": prec,
            "recall": rec}


def _widen(x: Interval, k: int, n: int, confidence: float) -> Interval:
    """The bootstrap interval widened to contain the exact binomial one of ``k / n``.

    A percentile bootstrap of a sample that is all ``same`` (or none) has no
    width; the exact interval of the labelled count says how little 30 labels
    prove. With weights the binomial interval is of the unweighted count, a
    floor on the width, not the weighted estimate's interval.
    """
    if not n:
        return x
    lo, hi = clopper_pearson(k, n, confidence)
    return Interval(x.value, min(x.low, lo), max(x.high, hi))


def bin_sample_size(halfwidth: float = 0.1, confidence: float = CONFIDENCE) -> int:
    """Labels per score bin so a precision's exact interval is at most ``±halfwidth``.

    The worst case of a binomial interval is a rate of one half; the size is
    the smallest ``n`` whose Clopper-Pearson interval at ``k = n / 2`` is no
    wider than ``2 * halfwidth`` (the normal approximation gives
    ``z^2 / (4 h^2)``, 97 at ``h = 0.1``; the exact interval needs a little more).

    Examples:
        >>> bin_sample_size(0.1)
        104
    """
    if not 0 < halfwidth < 0.5:
        raise ValueError(f"halfwidth must be in (0, 0.5), got {halfwidth}")
    a = (1.0 - confidence) / 2
    n = 2
    while True:
        k = n // 2
        lo = float(beta_ppf(a, k, n - k + 1))
        hi = float(beta_ppf(1 - a, k + 1, n - k))
        if hi - lo <= 2 * halfwidth:
            return n
        n += 1


def stratified_sample(scores: PairScores, edges: Sequence[float], per_bin: int, seed: int = 0
                      ) -> pd.DataFrame:
    """Pairs sampled at random within each score bin ``[edges[k], edges[k + 1])``.

    Args:
        scores: Candidate pairs with their scores (the last bin is closed at 1).
        edges: Increasing bin edges.
        per_bin: Pairs drawn per bin (all of them when the bin has fewer).
        seed: Of the draw.

    Returns:
        Columns i, j, score, bin (``"[lo, hi)"``), bin_pairs (pairs of the
        corpus in the bin) and weight (``bin_pairs / drawn``), sorted by bin
        then score, highest first.

    Examples:
        >>> ps = PairScores(np.arange(6), np.arange(1, 7), np.linspace(0.1, 0.6, 6))
        >>> stratified_sample(ps, [0.1, 0.35, 0.6], 2)["bin"].tolist()
        ['[0.35, 0.60]', '[0.35, 0.60]', '[0.10, 0.35)', '[0.10, 0.35)']
    """
    e = np.asarray(edges, dtype=np.float64)
    if len(e) < 2 or np.any(np.diff(e) <= 0):
        raise ValueError(f"bin edges must be increasing, got {list(e)}")
    rng = np.random.default_rng(seed)
    frames: list[pd.DataFrame] = []
    for k in range(len(e) - 1):
        last = k == len(e) - 2
        inside = (scores.score >= e[k]) & ((scores.score <= e[k + 1]) if last
                                           else (scores.score < e[k + 1]))
        pos = np.flatnonzero(inside)
        take = np.sort(rng.choice(pos, size=min(per_bin, len(pos)), replace=False))
        label = f"[{e[k]:.2f}, {e[k + 1]:.2f}{']' if last else ')'}"
        frames.append(pd.DataFrame({"i": scores.i[take], "j": scores.j[take],
                                    "score": scores.score[take], "bin": label,
                                    "bin_pairs": len(pos),
                                    "weight": len(pos) / max(len(take), 1)}))
    # Highest bin first, best score first within a bin: the sheet reads top down.
    sub = [f.sort_values("score", ascending=False, kind="stable") for f in reversed(frames)]
    return pd.concat(sub, ignore_index=True)


def sheet_weights(path: str | Path, labelled: pd.DataFrame) -> np.ndarray | None:
    """Weights of labelled pairs from the ``weight`` column of a stratified sheet, if present.

    Args:
        path: The gold file.
        labelled: ``read_gold(path).labeled``.

    Returns:
        Weight per labelled pair (in its order), or None when the sheet has no
        ``weight`` column (a hand-made gold file: every pair counts once).

    Raises:
        ValueError: A labelled pair's weight is missing or not a positive number.
    """
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        if "weight" not in (reader.fieldnames or []):
            return None
        weights = {frozenset(unescape_cell(r[c].strip()) for c in ("id_i", "id_j")): r["weight"]
                   for r in reader}
    out = []
    for a, b, line in zip(labelled["id_i"], labelled["id_j"], labelled["line"], strict=True):
        raw = weights.get(frozenset((a, b)), "")
        try:
            w = float(raw)
        except ValueError:
            w = math.nan
        if not w > 0:
            raise ValueError(f"{path}:{line}: weight {raw!r} is not a positive number")
        out.append(w)
    return np.asarray(out, dtype=np.float64)


def read_pair_ids(path: str | Path, ids: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Row positions of the pairs listed in a CSV with ``id_i`` and ``id_j`` columns.

    Args:
        path: The CSV (header row; other columns are ignored).
        ids: The corpus's item ids.

    Returns:
        ``(i, j)`` row positions, in file order.

    Raises:
        ValueError: A missing column or an id not in the corpus, naming file and line.
    """
    index = {str(v): k for k, v in enumerate(ids)}
    first, second = [], []
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in ("id_i", "id_j") if c not in (reader.fieldnames or [])]
        if missing:
            raise ValueError(f"{path}:1: missing column(s) {missing}; the header is "
                             f"{reader.fieldnames}")
        start = reader.line_num + 1
        for rec in reader:
            line, start = start, reader.line_num + 1
            pair = [unescape_cell((rec[c] or "").strip()) for c in ("id_i", "id_j")]
            absent = [x for x in pair if x not in index]
            if absent:
                raise ValueError(f"{path}:{line}: id(s) {absent} not in the corpus")
            first.append(index[pair[0]])
            second.append(index[pair[1]])
    return np.asarray(first, dtype=np.int64), np.asarray(second, dtype=np.int64)

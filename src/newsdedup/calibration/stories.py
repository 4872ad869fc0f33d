"""Labels for every pair from a story column, and pairs listed in a file.

A **story column** (``--story-column``, UCI's ``STORY``) labels every pair:
items with equal values report one story. Precision is the share of merged
pairs within one story, recall the share of same-story pairs merged
(:func:`story_scores`), with percentile-bootstrap intervals over dedupe groups
(precision) and stories (recall): false merges come in blocks, so pairs are
not independent.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from newsdedup.corpus.cells import unescape_cell

__all__ = ["Interval", "story_scores", "read_pair_ids"]

BOOTSTRAP = 1000
"""Bootstrap resamples of the story column's intervals."""


class Interval(NamedTuple):
    """An estimate with its interval."""

    value: float
    low: float
    high: float


def _pairs_of(counts: np.ndarray) -> np.ndarray:
    return counts * (counts - 1) // 2


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
    finite = draws[np.isfinite(draws)]
    if not finite.size:
        return Interval(value, math.nan, math.nan)
    a = (1.0 - confidence) / 2
    lo, hi = np.quantile(finite, [a, 1 - a])
    return Interval(value, float(lo), float(hi))


def story_scores(labels: Sequence[int] | np.ndarray, story: Sequence, resamples: int = BOOTSTRAP,
                 seed: int = 0, confidence: float = 0.95) -> dict:
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

"""The date window of the dedupe, learned from when high-scoring pairs were published.

Copies and rewrites of one event are published within hours of each other;
the same wording weeks apart is a recurring column, a template, or the next
development of a story. So the dedupe never merges two items published more
than ``W`` days apart (:class:`newsdedup.cluster.dedupe.DedupeConfig`'s
``window_days``), and ``W`` is read off the corpus (:func:`learn_window`):

* ``high`` pairs: pairs scoring at least ``high`` that do not share a
  recurring series (:mod:`newsdedup.text.series`), with both dates known;
  their date gaps mix duplicates (small gaps) and look-alikes of other
  events (gaps spread like those of any two items).
* the null: the gaps of random pairs of the corpus (a seeded sample), the
  shape the look-alikes follow;
* the background level: the high pairs farther apart than the null's median
  gap (at least ``far_days``), divided by the null's share beyond it, is how
  many high pairs the look-alikes contribute in all;
* the excess at gap ``g``: high pairs within ``g`` minus the background's
  share within ``g``. ``W`` is the smallest value of a fixed grid (1, 2, 3, 5,
  7, 14, 30 ... days) that holds ``share`` (95 %) of the whole excess.

When too few high pairs have dates, or their gaps show no excess near zero
(no time concentration to read), no window is learned and the choice says
why; the dedupe then compares across any gap, as before.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["WindowChoice", "learn_window", "WINDOW_GRID_DAYS"]

WINDOW_GRID_DAYS: tuple[float, ...] = (1, 2, 3, 5, 7, 14, 30, 60, 90, 180, 365)
"""Windows the learner chooses from, in days. One day is the least: print
editions and web versions of one story are often a day apart, and a window
of hours would split them."""

MIN_HIGH_PAIRS = 20
"""High-scoring dated pairs needed to read a window; fewer say nothing about time."""

NULL_PAIRS = 200_000
"""Random pairs sampled for the null gap distribution."""


@dataclass(frozen=True)
class WindowChoice:
    """A learned date window and the evidence behind it.

    Attributes:
        days: The window in days, or None when none could be learned.
        reason: One line saying how it was chosen, or why not.
        high_pairs: Dated high-scoring pairs read.
        high: Their lowest score.
        excess: Share of the excess within each grid value (grid value -> share).
        span_days: Days between the corpus's first and last dated item.
    """

    days: float | None
    reason: str
    high_pairs: int
    high: float
    excess: dict[float, float]
    span_days: float

    def record(self) -> dict:
        """The choice as ``calibration.json`` and ``params.json`` record it."""
        return {"days": self.days, "reason": self.reason, "high_pairs": self.high_pairs,
                "high_score": self.high, "span_days": round(self.span_days, 3),
                "excess_within": {f"{k:g}": round(v, 4) for k, v in self.excess.items()}}


def _span(days: np.ndarray) -> float:
    known = days[np.isfinite(days)]
    return float(known.max() - known.min()) if known.size else 0.0


def null_gaps(days: np.ndarray, pairs: int = NULL_PAIRS, seed: int = 0) -> np.ndarray:
    """Date gaps (days) of random pairs of dated items, sorted (a seeded sample).

    Examples:
        >>> null_gaps(np.array([0.0, 1.0, np.nan]), pairs=5).tolist()
        [1.0, 1.0, 1.0, 1.0, 1.0]
    """
    known = np.sort(days[np.isfinite(days)])
    if known.size < 2:
        return np.zeros(0)
    rng = np.random.default_rng(seed)
    a = rng.integers(0, known.size, size=pairs)
    # The second item is any other item: draw from n - 1 and skip the first's position.
    b = rng.integers(0, known.size - 1, size=pairs)
    b = b + (b >= a)
    return np.sort(np.abs(known[a] - known[b]))


def learn_window(times: np.ndarray, i: np.ndarray, j: np.ndarray, score: np.ndarray,
                 high: float, share: float = 0.95, far_days: float = 3.0,
                 grid: Sequence[float] = WINDOW_GRID_DAYS, seed: int = 0) -> WindowChoice:
    """The dedupe's date window from the date gaps of high-scoring pairs.

    Args:
        times: Publication time per item in seconds (NaN unknown).
        i: First item of each candidate pair (series pairs already left out).
        j: Second item of each pair.
        score: Score of each pair.
        high: Pairs scoring at least this are read.
        share: Share of the excess the window must hold.
        far_days: The background is read beyond the null's median gap, and at
            least this far apart.
        grid: The windows to choose from, days, ascending.
        seed: Of the null sample.

    Returns:
        The :class:`WindowChoice`.

    Examples:
        >>> rng = np.random.default_rng(0)
        >>> t = np.sort(rng.uniform(0, 30, 400)) * 86400.0
        >>> dup = np.arange(0, 398, 2)  # each even item duplicated by the next, hours later
        >>> t[dup + 1] = t[dup] + 3600.0
        >>> far = rng.integers(0, 400, size=(40, 2))  # look-alikes at any gap
        >>> i, j = np.r_[dup, far[:, 0]], np.r_[dup + 1, far[:, 1]]
        >>> learn_window(t, i, j, np.ones(len(i)), high=0.5).days
        1.0
    """
    days = np.asarray(times, dtype=np.float64) / 86400.0
    i, j = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
    keep = (np.asarray(score) >= high) & (i != j)
    gi, gj = i[keep], j[keep]
    gaps = np.abs(days[gi] - days[gj])
    gaps = np.sort(gaps[np.isfinite(gaps)])
    span = _span(days)
    if gaps.size < MIN_HIGH_PAIRS:
        return WindowChoice(None, f"no date window: {gaps.size} pairs scoring >= {high:g} have "
                            f"dates on both sides, fewer than {MIN_HIGH_PAIRS}",
                            int(gaps.size), high, {}, span)
    null = null_gaps(days, seed=seed)
    far = max(float(np.median(null)) if null.size else 0.0, far_days)
    beyond_null = float(np.mean(null > far)) if null.size else 0.0
    beyond = int(gaps.size - np.searchsorted(gaps, far, side="right"))
    background = beyond / beyond_null if beyond_null > 0 else 0.0
    total = gaps.size - background
    excess = {}
    for g in grid:
        # Strictly inside, as the dedupe's rule reads a window (gap < W): a date-only
        # corpus's next-day copies are exactly one day apart and a one-day window
        # would split them.
        within = float(np.searchsorted(gaps, g, side="left"))
        null_within = (float(np.searchsorted(null, g, side="left")) / null.size
                       if null.size else 1.0)
        excess[float(g)] = (within - background * null_within) / total if total > 0 else math.nan
    if not total > 0.05 * gaps.size:
        return WindowChoice(None, f"no date window: the {gaps.size} pairs scoring >= {high:g} "
                            "are spread over time like random pairs (no excess at small gaps)",
                            int(gaps.size), high, excess, span)
    chosen = next((g for g in grid if excess[float(g)] >= share), None)
    if chosen is None:
        return WindowChoice(None, f"no date window within {grid[-1]:g} days holds {share:.0%} "
                            f"of the excess of the {gaps.size} pairs scoring >= {high:g}",
                            int(gaps.size), high, excess, span)
    held = excess[float(chosen)]
    # The excess is an estimate (the pairs within, less the background's share): past
    # 100 % the window holds all of it, and the look-alikes far apart were more than
    # random gaps predict (the background, read from them, came out high).
    holds = (f"{held:.0%} of" if held <= 1.0 else
             f"all of (estimated at {held:.0%}: the look-alikes far apart outnumber what "
             "random gaps predict)")
    note = (f"window {chosen:g} days: it holds {holds} the excess of "
            f"the {gaps.size} dated pairs scoring >= {high:g} over random pairs' gaps "
            f"(background read beyond {far:.1f} days)")
    if chosen >= span:
        note += f"; the corpus spans {span:.1f} days, so it excludes no pair"
    return WindowChoice(float(chosen), note, int(gaps.size), high, excess, span)

"""Pairs the dedupe never merges, whatever they score: outside the date window, or one series.

Two rules sit beside the subject gate (:mod:`newsdedup.cluster.gate`):

* **Date window.** Two items published ``window_days`` or more apart are
  different events (:mod:`newsdedup.cluster.window` learns the window). An
  item without a date is compared with every other: the rule cannot tell.
* **Series.** Two items of one recurring series or template
  (:mod:`newsdedup.text.series`) merge only when their variable parts agree
  (the titles are equal) and so do their summaries: both summaries present
  and alike (character 4-gram Jaccard at least
  :attr:`~newsdedup.text.series.SeriesConfig.summary_agree`), or both absent
  and published within
  :attr:`~newsdedup.text.series.SeriesConfig.undated_repeat_hours` (a repeat
  of one wire item, not the next day's column). A re-issue of one article
  (same title and summary, another URL or day) still merges.

Both rules also hold in the exact pass: :func:`exact_codes` gives every
series member a group of its own (the near pass then applies the rule) and
splits a group of equal headlines whose members are further apart than the
window, each member joining the first group (in visiting order) whose
founder is within the window.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from newsdedup.score.jaccard import pair_jaccard
from newsdedup.text.normalize import normalize_many
from newsdedup.text.series import Series, SeriesConfig, series_pairs
from newsdedup.text.shingle import ShingleMatrix, shingle_matrix

__all__ = ["PairRules", "exact_codes", "no_rules", "summary_shingles"]

SUMMARY_NGRAM = 4
"""n-gram size of the summary agreement (the calibrated scorer's default)."""


@dataclass(frozen=True)
class PairRules:
    """The window and series rules over the rows of one dedupe.

    Attributes:
        times: Publication time per row, seconds (NaN unknown).
        window_days: The window, or None for none.
        series: The corpus's series, or None when the rule is off.
        summaries: Summary shingles per row (for the agreement of series members).
        config: The series settings (agreement thresholds).
    """

    times: np.ndarray
    window_days: float | None
    series: Series | None
    summaries: ShingleMatrix | None
    config: SeriesConfig

    @property
    def active(self) -> bool:
        """Whether any rule can block a pair."""
        return self.window_days is not None or (
            self.series is not None and bool(self.series.member().any()))

    def in_window(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Whether rows ``i[p]`` and ``j[p]`` are less than the window apart (unknown dates are).

        Strictly less: a daily item published at the same hour every day is exactly
        one day apart, and a one-day window must keep it from its next edition.
        """
        if self.window_days is None:
            return np.ones(len(i), dtype=bool)
        gap = np.abs(self.times[i] - self.times[j])
        return ~(gap >= self.window_days * 86400.0)  # NaN (unknown) compares False: kept

    def series_blocked(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Whether the series rule keeps rows ``i[p]`` and ``j[p]`` apart."""
        out = np.zeros(len(i), dtype=bool)
        if self.series is None or not len(i):
            return out
        shared = series_pairs(self.series, i, j)
        if not shared.any():
            return out
        a, b = i[shared], j[shared]
        titles = self.series.titles
        agree = titles[a] == titles[b]
        if self.summaries is not None:
            sizes = self.summaries.sizes
            both = (sizes[a] > 0) & (sizes[b] > 0)
            neither = (sizes[a] == 0) & (sizes[b] == 0)
            alike = np.zeros(len(a), dtype=bool)
            if both.any():
                alike[both] = (pair_jaccard(self.summaries, a[both], b[both])
                               >= self.config.summary_agree)
        else:
            neither, alike = np.ones(len(a), dtype=bool), np.zeros(len(a), dtype=bool)
        gap = np.abs(self.times[a] - self.times[b])
        soon = gap < self.config.undated_repeat_hours * 3600.0  # NaN: not soon
        agree &= alike | (neither & soon)
        out[shared] = ~agree
        return out

    def allowed(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Whether rows ``i[p]`` and ``j[p]`` may merge (both rules)."""
        i, j = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
        ok = self.in_window(i, j)
        if ok.any():
            ok[ok] = ~self.series_blocked(i[ok], j[ok])
        return ok


def exact_codes(codes: np.ndarray, heads: list[str], order: np.ndarray, rules: PairRules
                ) -> np.ndarray:
    """Exact-pass codes that respect the rules: series members alone, groups split in time.

    Args:
        codes: Equal codes for equal headlines, in code-point order
            (:func:`newsdedup.cluster.keep.text_codes`); the blank headline lowest.
        heads: The headlines (blank ones are never grouped and are left as they are).
        order: Visiting order of the rows.
        rules: The window and series rules.

    Returns:
        Codes with the same contract, equal only for rows that may share an exact group.

    Examples:
        >>> from newsdedup.text.series import SeriesConfig
        >>> r = PairRules(np.array([0.0, 86400.0 * 5, 3600.0]), 1.0, None, None, SeriesConfig())
        >>> exact_codes(np.array([1, 1, 1]), ["a", "a", "a"], np.arange(3), r).tolist()
        [0, 1, 0]
    """
    codes = np.asarray(codes, dtype=np.int64)
    n = codes.size
    sub = np.zeros(n, dtype=np.int64)
    own = np.full(n, -1, dtype=np.int64)
    blank = np.array([h == "" for h in heads], dtype=bool) if n else np.zeros(0, bool)
    if rules.series is not None:
        member = rules.series.member() & ~blank
        own[member] = np.flatnonzero(member)
    if rules.window_days is not None and n:
        sub = _time_split(codes, order, rules.times, rules.window_days * 86400.0,
                          (own < 0) & ~blank)
    # Dense rank of (headline, time slot, own row): blank rows keep the lowest code.
    rank = np.lexsort((own, sub, codes))
    key = np.stack([codes, sub, own])[:, rank]
    new = np.r_[True, np.any(key[:, 1:] != key[:, :-1], axis=0)] if n else np.zeros(0, bool)
    out = np.empty(n, dtype=np.int64)
    out[rank] = np.cumsum(new) - 1
    return out


def _time_split(codes: np.ndarray, order: np.ndarray, times: np.ndarray, window: float,
                grouped: np.ndarray) -> np.ndarray:
    """Time slot per row within its headline group, founders first in visiting order."""
    sub = np.zeros(codes.size, dtype=np.int64)
    visit = np.asarray(order, dtype=np.int64)
    visit = visit[grouped[visit]]
    known = np.isfinite(times)
    by_code: dict[int, list[tuple[float, int]]] = {}
    # Only headline groups whose dated members lie the window or more apart split
    # (in_window keeps pairs exactly the window apart apart too).
    lo = np.full(int(codes.max(initial=0)) + 1, np.inf)
    hi = np.full(int(codes.max(initial=0)) + 1, -np.inf)
    rows = visit[known[visit]]
    np.minimum.at(lo, codes[rows], times[rows])
    np.maximum.at(hi, codes[rows], times[rows])
    wide = hi - lo >= window
    for r in visit[wide[codes[visit]] & known[visit]].tolist():
        founders = by_code.setdefault(int(codes[r]), [])
        slot = next((k for k, (t, _) in enumerate(founders) if abs(times[r] - t) < window),
                    None)
        if slot is None:
            founders.append((float(times[r]), r))
            slot = len(founders) - 1
        sub[r] = slot
    return sub


def summary_shingles(summaries: list[str], scheme: str) -> ShingleMatrix:
    """Summary shingles for the agreement test (``SUMMARY_NGRAM``-grams of ``scheme``)."""
    return shingle_matrix(normalize_many(summaries, scheme), SUMMARY_NGRAM)


def no_rules(n: int) -> PairRules:
    """Rules that block nothing (the window and series rule off)."""
    return PairRules(np.full(n, np.nan), None, None, None, SeriesConfig())


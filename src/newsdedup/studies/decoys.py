"""Target-decoy estimation of false merges: calibration that holds on a feed with duplicates.

The published calibration (:mod:`newsdedup.studies.calibration`) takes the
highest score over all pairs as the unrelated-pair bound, which is only sound
when the corpus has no duplicates. On a real feed the highest pairs *are*
duplicates and the bound recommends nothing. Proteomics solves the same
problem with decoys: matches that cannot be true estimate how often false
matches score ``>= t``. Here a *decoy* is a pair that cannot be one event:

``"days"``
    published at least ``D`` days apart (:data:`DEFAULT_DECOY_DAYS`);
``"field"``
    different values of a user-named column (``decoy_field``, e.g. UCI's
    ``CATEGORY``); items with an empty value take part in no decoy;
``"pairs"``
    pairs listed by the user as known distinct.

With ``D(t)`` decoys among ``M_D`` decoy-eligible pairs scoring ``>= t`` and
``O(t)`` observed pairs ``>= t`` out of ``M`` pairs, the classic
(**pooled**) estimate of the false pairs is ``D(t) + D(t) / M_D * (M - M_D)``
-- the decoys themselves are false for certain, and the other pairs are
assumed to be unrelated at the decoys' rate. ``FDR(t) = false / O(t)`` and
precision is ``1 - FDR``. The counted decoys are false for certain; the
interval of the rest is a negative-binomial prediction interval (the exact
analogue of Clopper-Pearson for the realised count, see ``extrapolate``).

**Why "nearest" for fields.** The pooled estimate assumes that unrelated
pairs *within* one field value score like pairs *across* values. They do not:
two business headlines share more vocabulary ("stocks", "bankruptcy") than a
business and an entertainment one. On the UCI head (3-gram Jaccard, titles)
pairs of different STORY within one CATEGORY reach ``J >= 0.5`` about twice as
often per pair as cross-category pairs, and the rate differs fivefold between
categories (business/tech close, entertainment far). So for a field with
three or more values the default estimator is **nearest**: the within-value
unrelated rate of value ``a`` is taken from the decoys between ``a`` and its
*nearest* other value ``b`` -- the one whose decoy rate (lower confidence
bound, so a tiny value cannot win by noise) is highest. Topical closeness is
what raises the rate, and the closest other field is the best label-free
proxy for "the same field". With two values the nearest value is the only
other one; with dates or listed pairs there are no values and the pooled
estimator is used. The reported interval spans both estimators' intervals,
because the data cannot say which assumption holds (``"pooled"`` assumes no
affinity, ``"nearest"`` assumes the closest field's affinity).

Counting never builds an ``N x N`` matrix: eligible pairs come from value
counts, sorted timestamps or the list; observed pairs from the exact join
(:func:`newsdedup.score.join.threshold_join`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from newsdedup.score.jaccard import PairScores
from newsdedup.studies.defaults import DEFAULT_DECOY_DAYS as DEFAULT_DECOY_DAYS
from newsdedup.studies.defaults import DEFAULT_PRECISION as DEFAULT_PRECISION
from newsdedup.studies.quantiles import CONFIDENCE as CONFIDENCE
from newsdedup.studies.quantiles import clopper_pearson as clopper_pearson
from newsdedup.studies.quantiles import nbinom_ppf

_DAY = 86400.0


class NoDecoys(ValueError):
    """No decoy rule applies to a corpus; the caller falls back to the published bound."""


@dataclass(frozen=True)
class Interval:
    """An estimate with its interval.

    Attributes:
        value: Point estimate.
        low: Lower end.
        high: Upper end.
    """

    value: float
    low: float
    high: float

    def as_dict(self) -> dict:
        """``{"value", "low", "high"}`` as plain floats (for JSON)."""
        return {"value": float(self.value), "low": float(self.low), "high": float(self.high)}


@dataclass(frozen=True)
class DecoySpace:
    """Which pairs of a collection are decoys, with the counts needed to scale them.

    Build with :func:`field_decoys`, :func:`date_decoys`, :func:`pair_decoys`
    or :func:`decoy_space`.

    Attributes:
        kind: ``"field"``, ``"days"`` or ``"pairs"``.
        n_items: Items of the collection ``N``.
        describe: One line naming the rule (for the rationale).
        codes: ``"field"``: value code per item, ``-1`` for an empty value.
        times: ``"days"``: publication time per item in seconds (NaN unknown).
        days: ``"days"``: the gap ``D``.
        keys: ``"pairs"``: sorted ``i * N + j`` of the listed pairs (``i < j``).
    """

    kind: str
    n_items: int
    describe: str
    codes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    times: np.ndarray = field(default_factory=lambda: np.zeros(0))
    days: float = DEFAULT_DECOY_DAYS
    keys: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    @property
    def total_pairs(self) -> int:
        """All pairs ``N (N - 1) / 2``."""
        return self.n_items * (self.n_items - 1) // 2

    def n_levels(self) -> int:
        """Distinct non-empty field values (0 for the other rules)."""
        return int(self.codes.max(initial=-1) + 1) if self.kind == "field" else 0

    def eligible_pairs(self) -> int:
        """Decoy pairs of the whole collection, counted without listing them."""
        if self.kind == "field":
            counts = self.level_sizes()
            known = int(counts.sum())
            return int((known * known - int((counts * counts).sum())) // 2)
        if self.kind == "days":
            t = np.sort(self.times[np.isfinite(self.times)])
            # For each item, the later items at least D days after it.
            return int((len(t) - np.searchsorted(t, t + self.days * _DAY, side="left")).sum())
        return len(self.keys)

    def level_sizes(self) -> np.ndarray:
        """Items per field value (``"field"`` only)."""
        return np.bincount(self.codes[self.codes >= 0], minlength=self.n_levels()).astype(np.int64)

    def is_decoy(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Whether each pair ``(i[k], j[k])`` is a decoy.

        Examples:
            >>> s = field_decoys(["a", "b", "a", ""])
            >>> s.is_decoy(np.array([0, 0, 0]), np.array([1, 2, 3])).tolist()
            [True, False, False]
        """
        i, j = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
        if self.kind == "field":
            a, b = self.codes[i], self.codes[j]
            return (a >= 0) & (b >= 0) & (a != b)
        if self.kind == "days":
            with np.errstate(invalid="ignore"):
                return np.abs(self.times[i] - self.times[j]) >= self.days * _DAY
        lo, hi = np.minimum(i, j), np.maximum(i, j)
        return np.isin(lo * self.n_items + hi, self.keys) & (lo != hi)


def field_decoys(values: Sequence, name: str = "field") -> DecoySpace:
    """Decoys are pairs whose values differ (empty or missing values take part in none).

    Args:
        values: One value per item (e.g. a category column).
        name: Column name, for the description.

    Returns:
        A ``"field"`` :class:`DecoySpace`.

    Examples:
        >>> field_decoys(["b", "t", "b", None]).eligible_pairs()
        2
    """
    s = pd.Series(list(values), dtype=object)
    known = s.notna() & (s.astype(str).str.strip() != "")
    codes = np.full(len(s), -1, dtype=np.int64)
    codes[known.to_numpy()] = pd.factorize(s[known].astype(str), sort=True)[0]
    n_levels = int(codes.max(initial=-1) + 1)
    return DecoySpace("field", len(s), f"pairs with different {name} ({n_levels} values)",
                      codes=codes)


def date_decoys(seconds: Sequence[float] | np.ndarray,
                days: float = DEFAULT_DECOY_DAYS) -> DecoySpace:
    """Decoys are pairs published at least ``days`` apart (unknown dates take part in none).

    Args:
        seconds: Publication time per item in seconds (NaN where unknown).
        days: The gap ``D`` in days, ``> 0``.

    Returns:
        A ``"days"`` :class:`DecoySpace`.

    Examples:
        >>> date_decoys([0.0, 86400.0 * 8, float("nan"), 86400.0 * 9], days=7).eligible_pairs()
        2
    """
    if not days > 0:
        raise ValueError(f"decoy days must be > 0, got {days!r}")
    t = np.asarray(seconds, dtype=np.float64)
    return DecoySpace("days", len(t), f"pairs published >= {days:g} days apart",
                      times=t, days=float(days))


def pair_decoys(n_items: int, i: Sequence[int] | np.ndarray,
                j: Sequence[int] | np.ndarray) -> DecoySpace:
    """Decoys are the listed known-distinct pairs (order and repeats do not matter).

    Args:
        n_items: Items of the collection.
        i: First item (row position) of each listed pair.
        j: Second item of each listed pair; pairs with ``i == j`` are ignored.

    Returns:
        A ``"pairs"`` :class:`DecoySpace`.

    Raises:
        ValueError: An index outside ``[0, n_items)``.
    """
    a, b = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
    if len(a) != len(b):
        raise ValueError(f"{len(a)} first items for {len(b)} second items")
    if len(a) and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= n_items):
        raise ValueError(f"pair index out of range for {n_items} items")
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    keys = np.unique(lo[lo != hi] * n_items + hi[lo != hi])
    return DecoySpace("pairs", n_items, f"{len(keys)} listed known-distinct pairs", keys=keys)


def published_seconds(values: Sequence) -> np.ndarray:
    """Publication times as UTC seconds; NaN where missing or unparsable.

    All-digit values of 11 or more digits are epoch milliseconds (UCI).

    Examples:
        >>> published_seconds(["1394470370698", "2014-03-11T00:00:00Z", ""]).tolist()
        [1394470370.698, 1394496000.0, nan]
    """
    raw = pd.Series(["" if v is None else str(v) for v in values], dtype=object)
    out = np.full(len(raw), np.nan)
    ms = raw.str.fullmatch(r"\d{11,}").to_numpy(dtype=bool)
    out[ms] = raw[ms].astype(np.int64).to_numpy() / 1000.0
    rest = ~ms & (raw.str.strip() != "").to_numpy(dtype=bool)
    if rest.any():
        parsed = pd.to_datetime(raw[rest], utc=True, errors="coerce", format="mixed")
        out[rest] = (parsed - pd.Timestamp(0, tz="UTC")).dt.total_seconds().to_numpy()
    return out


def decoy_space(
    items: pd.DataFrame,
    *,
    decoy_field: str | None = None,
    decoy_days: float = DEFAULT_DECOY_DAYS,
    decoy_pairs: tuple[Sequence[int] | np.ndarray, Sequence[int] | np.ndarray] | None = None,
) -> DecoySpace:
    """The decoy rule for a corpus: listed pairs, else a field, else dates.

    One rule is used, the most specific one given: the user's known-distinct
    pairs, then ``decoy_field``, then the date gap (always tried).

    Args:
        items: The corpus (``published_at`` for the date rule).
        decoy_field: Column whose differing values make a decoy, or None.
        decoy_days: Gap ``D`` of the date rule.
        decoy_pairs: ``(i, j)`` row positions of known-distinct pairs, or None.

    Returns:
        The :class:`DecoySpace`.

    Raises:
        NoDecoys: No rule yields a decoy pair; the message says why.
        ValueError: ``decoy_field`` is not a column.
    """
    n = len(items)
    if decoy_pairs is not None:
        space = pair_decoys(n, *decoy_pairs)
    elif decoy_field is not None:
        if decoy_field not in items.columns:
            raise ValueError(f"decoy field {decoy_field!r} is not a column of the corpus")
        space = field_decoys(items[decoy_field].tolist(), decoy_field)
    else:
        times = published_seconds(items["published_at"].tolist() if "published_at" in items
                                  else [None] * n)
        space = date_decoys(times, decoy_days)
        if not space.eligible_pairs():
            known = times[np.isfinite(times)]
            span = (known.max() - known.min()) / _DAY if len(known) else 0.0
            raise NoDecoys(f"no decoy rule applies: no decoy field or pairs given, and the "
                           f"dates span {span:.1f} days (< {decoy_days:g}) or are missing")
    if not space.eligible_pairs():
        raise NoDecoys(f"no decoy rule applies: {space.describe} gives no decoy pair")
    return space


# -- estimation ------------------------------------------------------------------------


def _field_rates(space: DecoySpace, pair_a: np.ndarray, pair_b: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Decoy counts and eligible pairs per unordered value pair ``(a < b)``, as ``L x L``."""
    levels = space.n_levels()
    lo, hi = np.minimum(pair_a, pair_b), np.maximum(pair_a, pair_b)
    counts = np.zeros((levels, levels), dtype=np.int64)
    np.add.at(counts, (lo, hi), 1)
    sizes = space.level_sizes()
    eligible = np.outer(sizes, sizes)
    return counts + counts.T, eligible


def _nearest(counts: np.ndarray, eligible: np.ndarray, confidence: float
             ) -> list[tuple[int, int]]:
    """Per value: ``(decoys, eligible)`` with its nearest other value (highest lower bound)."""
    k_all, m_all = np.asarray(counts, dtype=np.int64), np.asarray(eligible, dtype=np.int64)
    # Clopper-Pearson lower ends of every value pair in one call (a bootstrap asks often).
    lows = clopper_pearson(k_all, m_all, confidence)[0]
    out = []
    for a in range(len(counts)):
        best: tuple[float, float, int] | None = None
        pick = (0, 0)
        for b in range(len(counts)):
            if b == a or not eligible[a, b]:
                continue
            k, m = int(k_all[a, b]), int(m_all[a, b])
            key = (float(lows[a, b]), k / m, m)
            if best is None or key > best:
                best, pick = key, (k, m)
        out.append(pick)
    return out


def extrapolate(k: int, m: int, targets: int, confidence: float) -> tuple[float, float, float]:
    """False pairs among ``targets`` predicted from ``k`` decoys in ``m`` eligible pairs.

    The truth to be covered is the *realised* number of false target pairs,
    not the rate: it is itself a binomial draw. With the false pairs of both
    sets split at random, ``k`` of them landing among the decoys with
    probability ``pi = m / (m + targets)``, the target count given ``k`` is
    negative binomial (the predictive of a flat prior on the total); the
    ends use ``k`` and ``k + 1`` successes, as Clopper-Pearson does.
    """
    if not targets:
        return 0.0, 0.0, 0.0
    if not m:  # no rate to borrow: anything from none to all of them may be false
        return 0.0, 0.0, float(targets)
    pi = m / (m + targets)
    a = (1.0 - confidence) / 2
    low = 0.0 if k == 0 else float(nbinom_ppf(a, k, pi))
    high = float(nbinom_ppf(1 - a, k + 1, pi))
    return targets * k / m, min(low, targets), min(high, float(targets))


def estimate_false(space: DecoySpace, i: np.ndarray, j: np.ndarray, method: str = "auto",
                   confidence: float = CONFIDENCE) -> dict:
    """Expected false pairs in a set of pairs (e.g. all pairs ``>= t``, or a dedupe's merges).

    Args:
        space: The decoy rule.
        i: First item of each pair of the set.
        j: Second item of each pair (no pair twice).
        method: ``"pooled"``, ``"nearest"`` (field rule only) or ``"auto"``
            (nearest for a field with >= 3 values, else pooled).
        confidence: Of the Clopper-Pearson intervals.

    Returns:
        ``{"pairs", "decoys", "method", "false": Interval, "pooled": Interval,
        "nearest": Interval or None}``; ``false`` is the chosen method's point
        with the interval spanning both methods.
    """
    i, j = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
    dec = space.is_decoy(i, j)
    d, m_d, m = int(dec.sum()), space.eligible_pairs(), space.total_pairs
    pv, plo, phi = extrapolate(d, m_d, m - m_d, confidence)
    pooled = Interval(d + pv, d + plo, d + phi)
    nearest = None
    if space.kind == "field" and space.n_levels() >= 2:
        counts, eligible = _field_rates(space, space.codes[i[dec]], space.codes[j[dec]])
        sizes = space.level_sizes()
        within = sizes * (sizes - 1) // 2
        parts = [extrapolate(k, mm, int(w), confidence)
                 for (k, mm), w in zip(_nearest(counts, eligible, confidence), within,
                                       strict=True)]
        # Pairs with an empty value are neither decoys nor within one value: pooled rate.
        rest = m - m_d - int(within.sum())
        parts.append(extrapolate(d, m_d, rest, confidence))
        v, lo, hi = (d + sum(p[q] for p in parts) for q in range(3))
        nearest = Interval(v, lo, hi)
    if method == "auto":
        method = "nearest" if nearest is not None and space.n_levels() >= 3 else "pooled"
    if method not in ("pooled", "nearest") or (method == "nearest" and nearest is None):
        raise ValueError(f"method {method!r} does not apply to a {space.kind!r} decoy rule")
    chosen = nearest if method == "nearest" and nearest is not None else pooled
    both = [x for x in (pooled, nearest) if x is not None]
    span = Interval(chosen.value, min(x.low for x in both), max(x.high for x in both))
    return {"pairs": len(i), "decoys": d, "method": method, "false": span, "pooled": pooled,
            "nearest": nearest}


def point_false(space: DecoySpace, decoys: int, counts: np.ndarray | None,
                method: str) -> float:
    """The point estimate of :func:`estimate_false` from decoy counts alone (for bootstraps).

    Args:
        space: The decoy rule.
        decoys: Decoy pairs in the set.
        counts: ``"nearest"``: symmetric ``L x L`` decoy counts per value pair
            (both orders counted); None for ``"pooled"``.
        method: ``"pooled"`` or ``"nearest"`` (as resolved by :func:`estimate_false`).

    Returns:
        Expected false pairs (``false.value`` of :func:`estimate_false`).

    Examples:
        >>> s = field_decoys(["a", "b", "a", "b"])
        >>> point_false(s, 1, None, "pooled")
        1.5
    """
    m_d, m = space.eligible_pairs(), space.total_pairs

    def scaled(k: int, mm: int, targets: int) -> float:
        return targets * k / mm if targets and mm else 0.0

    if method == "pooled" or counts is None:
        return decoys + scaled(decoys, m_d, m - m_d)
    sizes = space.level_sizes()
    within = sizes * (sizes - 1) // 2
    picks = _nearest(counts, np.outer(sizes, sizes), CONFIDENCE)
    rest = m - m_d - int(within.sum())
    return (decoys + sum(scaled(k, mm, int(w)) for (k, mm), w in zip(picks, within, strict=True))
            + scaled(decoys, m_d, rest))


def precision_interval(false: Interval, pairs: int) -> Interval:
    """Precision ``1 - false / pairs`` of a false-pair estimate, clipped to ``[0, 1]``.

    Args:
        false: Estimated false pairs with its interval.
        pairs: Pairs of the set (0 gives NaN).

    Returns:
        The precision interval (the high false end gives the low precision end).

    Examples:
        >>> precision_interval(Interval(1.0, 0.0, 2.0), 10).as_dict()
        {'value': 0.9, 'low': 0.8, 'high': 1.0}
    """
    if not pairs:
        return Interval(math.nan, math.nan, math.nan)

    def clip(x: float) -> float:
        return min(1.0, max(0.0, 1.0 - x / pairs))

    return Interval(clip(false.value), clip(false.high), clip(false.low))


def decoy_curve(scores: PairScores, space: DecoySpace, thresholds: Sequence[float],
                method: str = "auto", confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Estimated false pairs, FDR and precision of "merge every pair ``>= t``", per threshold.

    Args:
        scores: Every pair scoring at least ``min(thresholds)`` (e.g. the exact
            join at that threshold); pairs below it need not be listed.
        space: The decoy rule.
        thresholds: Thresholds to evaluate.
        method: See :func:`estimate_false`.
        confidence: Of the intervals.

    Returns:
        One row per threshold: threshold, observed, decoys, method, false,
        false_low, false_high, fdr, precision, precision_low, precision_high,
        true_pairs (observed minus expected false).
    """
    rows = []
    for t in np.asarray(thresholds, dtype=np.float64):
        keep = scores.score >= t
        est = estimate_false(space, scores.i[keep], scores.j[keep], method, confidence)
        prec = precision_interval(est["false"], est["pairs"])
        f = est["false"]
        rows.append({"threshold": float(t), "observed": est["pairs"], "decoys": est["decoys"],
                     "method": est["method"], "false": f.value, "false_low": f.low,
                     "false_high": f.high, "fdr": 1.0 - prec.value, "precision": prec.value,
                     "precision_low": prec.low, "precision_high": prec.high,
                     "true_pairs": est["pairs"] - f.value})
    return pd.DataFrame(rows)


def recommend(curve: pd.DataFrame, precision: float = DEFAULT_PRECISION) -> dict:
    """The lowest threshold whose estimated precision reaches ``precision``.

    The curve need not be monotone (on a feed whose labels split events, the
    highest-scoring false pairs are copies filed twice), so the lowest
    qualifying threshold is taken as is: it is the one that merges the most
    pairs at the target precision.

    Args:
        curve: Output of :func:`decoy_curve`.
        precision: Target precision.

    Returns:
        ``{"threshold", "conservative_threshold", "target_precision",
        "estimated_precision", "reason"}``: ``threshold`` is the lowest grid value
        with observed pairs whose point estimate reaches the target (None if
        none does), ``conservative_threshold`` the same for the interval's low
        end, ``estimated_precision`` ``{value, low, high}`` at ``threshold``;
        ``reason`` explains a None.

    Examples:
        >>> c = pd.DataFrame({"threshold": [0.3, 0.4], "observed": [10, 5],
        ...                   "precision": [0.9, 0.96], "precision_low": [0.8, 0.9],
        ...                   "precision_high": [0.95, 1.0]})
        >>> recommend(c)["threshold"], recommend(c)["conservative_threshold"]
        (0.4, None)
    """
    ordered = curve[curve["observed"] > 0].sort_values("threshold")

    def lowest(column: str) -> float | None:
        ok = ordered[ordered[column] >= precision]
        return float(ok["threshold"].iloc[0]) if len(ok) else None

    t = lowest("precision")
    out: dict = {"threshold": t, "conservative_threshold": lowest("precision_low"),
                 "target_precision": precision, "estimated_precision": None, "reason": ""}
    if t is None:
        out["reason"] = (f"no threshold of the grid reaches an estimated precision of "
                         f"{precision:.2f}")
        return out
    row = ordered.loc[ordered["threshold"] == t].iloc[0]
    out["estimated_precision"] = Interval(row["precision"], row["precision_low"],
                                          row["precision_high"]).as_dict()
    return out

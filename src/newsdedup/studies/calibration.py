"""Threshold sweeps and a calibrated threshold with its evidence.

A threshold is only as good as the two distributions it separates. This
module puts them side by side for one corpus:

* the *unrelated-pair upper bound* ``U``: the highest exact Jaccard over all
  pairs of the corpus. In an archive with no cross-posted duplicates (the
  published 387 items: none found by eye in the top 12) every pair is
  unrelated, so any threshold above ``U`` makes no false merge *on this corpus*;
* the *sensitivity curves*: the Jaccard of simulated rewrites that keep each
  word with probability ``f`` (:mod:`newsdedup.studies.sensitivity`). Where a curve's
  5th percentile is above ``U``, at least 95% of rewrites at that retention
  are still caught by a threshold just above ``U``.

The implied band is ``(U, p5(f*)]`` with ``f*`` the lowest retention whose
5th percentile clears ``U``. The recommended threshold is the first value
on a 0.01 grid strictly above ``U``, provided it stays in the band; when no
retention level clears ``U`` there is no band, and the report says so
instead of inventing a number. Everything that went into the choice is
written to ``calibration.json`` so that the dedupe module can load the value
together with its rationale.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from newsdedup.score.jaccard import PairScores

GRID = 0.01


def sweep(
    scores: PairScores,
    thresholds: Sequence[float],
    items_left: Callable[[float], int] | None = None,
) -> pd.DataFrame:
    """Pairs at or above each threshold and, given a clustering, items left after dedupe.

    Args:
        scores: Scores of all pairs (any scorer: Jaccard, IDF-weighted, MinHash).
        thresholds: Thresholds in ``[0, 1]``.
        items_left: ``threshold -> number of groups`` after clustering, or None.

    Returns:
        DataFrame with columns threshold, pairs and (with ``items_left``) items_left.

    Examples:
        >>> ps = PairScores(np.array([0, 0, 1]), np.array([1, 2, 2]), np.array([.5, .2, .3]))
        >>> sweep(ps, [0.2, 0.4]).values.tolist()
        [[0.2, 3.0], [0.4, 1.0]]
    """
    t = np.asarray(thresholds, dtype=np.float64)
    out = pd.DataFrame({"threshold": t, "pairs": scores.count_at_or_above(t)})
    if items_left is not None:
        out["items_left"] = [int(items_left(float(x))) for x in t]
    return out


QUANTILES = (0.05, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95)


def order_quantiles(values: np.ndarray, qs: Sequence[float] = QUANTILES) -> np.ndarray:
    """Lower order statistics ``sorted(values)[floor(len * q)]``.

    The same definition as the published 5th percentile (``vals[len(vals)//20]``),
    so p5 here equals p5 in the sensitivity tables.

    Examples:
        >>> order_quantiles(np.arange(40.0), [0.05, 0.5]).tolist()
        [2.0, 20.0]
    """
    ordered = np.sort(np.asarray(values, dtype=np.float64))
    if not len(ordered):
        return np.full(len(qs), np.nan)
    idx = np.minimum((len(ordered) * np.asarray(qs)).astype(np.int64), len(ordered) - 1)
    return ordered[idx]


def sensitivity_quantiles(sensitivity, qs: Sequence[float] = QUANTILES) -> pd.DataFrame:
    """Quantiles of the simulated Jaccard per side and retention level (for the curves plot).

    Returns:
        Long table with columns side ("both" or "one"), f, q, value.
    """
    rows = []
    for side, values in (("both", sensitivity.both), ("one", sensitivity.one)):
        for f, v in values.items():
            for q, x in zip(qs, order_quantiles(v, qs), strict=True):
                rows.append({"side": side, "f": float(f), "q": float(q), "value": float(x)})
    return pd.DataFrame(rows)


def default_grid(lo: float = 0.05, hi: float = 0.60, step: float = GRID) -> np.ndarray:
    """Thresholds ``lo, lo+step, ..., hi``, rounded so 0.3 is 0.3, not 0.30000000000000004."""
    count = int(round((hi - lo) / step)) + 1
    return np.round(lo + step * np.arange(count), 10)


@dataclass(frozen=True)
class Calibration:
    """A calibrated threshold and the evidence behind it.

    Attributes:
        upper_bound: Max exact Jaccard over all pairs (the unrelated-pair bound), ``[0, 1]``.
        upper_pair: ids and titles of the pair that sets the bound.
        retention: Per word-retention ``f``: mean, std, p5, min of the both-sided
            simulation, the share of simulated pairs above the bound, and the
            share caught at the recommended threshold.
        band: ``(low, high)`` of the implied threshold band, or None.
        caught95_f: Lowest ``f`` whose 5th percentile clears the bound, or None.
        caught_all_f: Lowest ``f`` whose minimum clears the bound, or None.
        recommended: The recommended threshold, or None when no band exists.
        sweep: The threshold sweep table.
        rationale: Plain-language reason, generated from the numbers above.
    """

    upper_bound: float
    upper_pair: dict
    retention: pd.DataFrame
    band: tuple[float, float] | None
    caught95_f: float | None
    caught_all_f: float | None
    recommended: float | None
    sweep: pd.DataFrame
    rationale: str

    def as_dict(self) -> dict:
        """The recommendation and its evidence as a plain dict (for ``calibration.json``)."""
        return {
            "recommended_threshold": self.recommended,
            "rationale": self.rationale,
            "band": list(self.band) if self.band else None,
            "upper_bound": self.upper_bound,
            "upper_bound_pair": self.upper_pair,
            "retention_caught_95pct": self.caught95_f,
            "retention_caught_all": self.caught_all_f,
            "retention": self.retention.to_dict(orient="records"),
            "sweep": self.sweep.to_dict(orient="records"),
        }


def _lowest(fractions: pd.Series, ok: pd.Series) -> float | None:
    """Lowest retention f such that ``ok`` holds for it and for every higher f."""
    best = None
    for f, good in sorted(zip(fractions, ok, strict=True), reverse=True):
        if not good:
            break
        best = float(f)
    return best


def calibrate(
    scores: PairScores,
    items: pd.DataFrame,
    sensitivity,
    sweep_table: pd.DataFrame,
    n_pairs: int | None = None,
) -> Calibration:
    """Derive the threshold band and a recommendation for one corpus.

    Args:
        scores: Exact Jaccard of all pairs (same n as the sensitivity run), or
            only the highest ones (those at or above the sweep's lowest
            threshold, from the exact join): the bound is their maximum.
        items: The corpus frame (for the ids and titles of the bound pair).
        sensitivity: A :class:`newsdedup.studies.sensitivity.SensitivityResult`.
        sweep_table: Output of :func:`sweep` on ``scores``.
        n_pairs: Pairs of the corpus, ``N(N-1)/2``; ``len(scores)`` when None
            (``scores`` holds every pair).

    Returns:
        A :class:`Calibration`.
    """
    bound = scores.max()
    if len(scores):
        top = scores.top(1)[0]
        i, j = int(scores.i[top]), int(scores.j[top])
        upper_pair = {"score": bound, "id_i": items["id"].iloc[i], "id_j": items["id"].iloc[j],
                      "title_i": items["title"].iloc[i], "title_j": items["title"].iloc[j]}
    else:
        upper_pair = {}
    table = sensitivity.both_table().copy()
    # Share strictly above the bound: a rewrite scoring exactly U would tie the worst
    # unrelated pair, so it is not counted as separable.
    # NaN, not a warning, for a fraction without values: no title had enough words.
    table["above_bound"] = [float(np.count_nonzero(v > bound) / v.size) if v.size else math.nan
                            for v in (sensitivity.both[f] for f in table["f"])]
    caught95 = _lowest(table["f"], table["p5"] > bound)
    caught_all = _lowest(table["f"], table["min"] > bound)
    band = None
    recommended = None
    if caught95 is not None:
        high = float(table.loc[table["f"] == caught95, "p5"].iloc[0])
        band = (bound, high)
        candidate = round(math.floor(bound / GRID + 1e-9) * GRID + GRID, 10)
        if candidate <= high:
            recommended = candidate
    if recommended is not None:
        table["caught_at_recommended"] = sensitivity.caught_fraction(recommended).loc[
            table["f"]].to_numpy()
    rationale = _rationale(bound, upper_pair, table, caught95, caught_all, band, recommended,
                           len(scores) if n_pairs is None else n_pairs, sensitivity.params)
    return Calibration(
        upper_bound=bound,
        upper_pair=upper_pair,
        retention=table,
        band=band,
        caught95_f=caught95,
        caught_all_f=caught_all,
        recommended=recommended,
        sweep=sweep_table,
        rationale=rationale,
    )


def _rationale(bound, pair, table, caught95, caught_all, band, recommended, n_pairs, params) -> str:
    parts = [
        f"Over all {n_pairs:,} pairs the highest exact Jaccard (n={params.n}) is {bound:.3f}"
        + (f" ({pair['id_i']} / {pair['id_j']})" if pair else "")
        + "; a threshold above it merges no pair of this corpus. That bound treats every "
        "pair as unrelated, which holds only if the corpus has no duplicates: read the top "
        "pairs (measure.md) before trusting it.",
    ]
    if caught95 is None:
        parts.append(
            "No simulated word-retention level keeps its 5th percentile above that bound, so "
            "no threshold separates rewrites from unrelated pairs here: do not use shingle "
            "Jaccard alone on this corpus (add a gate, a date window or another signal)."
        )
        return " ".join(parts)
    row = table.loc[table["f"] == caught95].iloc[0]
    parts.append(
        f"Rewrites that keep {caught95:.0%} of the words have a 5th percentile of "
        f"{row['p5']:.3f}, so the band ({band[0]:.3f}, {band[1]:.3f}] catches at least 95% "
        f"of them" + (f"; every rewrite at {caught_all:.0%} retention scores above the bound"
                      if caught_all else "")
        + "."
    )
    below = table.loc[table["f"] < caught95]
    if len(below):
        nxt = below.iloc[0]
        parts.append(
            f"At {nxt['f']:.0%} retention the 5th percentile falls to {nxt['p5']:.3f}, below "
            f"the bound: independent rewrites are not separable by this score."
        )
    if recommended is not None:
        at = table.set_index("f")["caught_at_recommended"]
        shares = ", ".join(f"{at[f]:.2%} at {f:.0%}" for f in sorted(at.index, reverse=True)
                           if f >= caught95)
        parts.append(
            f"Recommended: {recommended:.2f}, the first 0.01 step above the bound; it catches "
            f"{shares} retention. Raise it if "
            f"the corpus grows (the bound is a sample maximum and only rises); lower it only "
            f"with a gate that carries the precision."
        )
    else:
        parts.append("The band is narrower than one 0.01 step; no grid value fits inside it.")
    return " ".join(parts)

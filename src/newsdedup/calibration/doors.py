"""How many same-event pairs each candidate door finds, and how many only the other one finds.

The calibration's population ``U`` is every pair whose character Jaccard reaches the
floor: the *character door*. Its recall is recall among those pairs only; a rewrite
sharing almost no character n-gram with its twin is outside it, so "recall 0.28" says
nothing about the same-event pairs the door never proposes. A second door, each item's
nearest neighbours by sentence embedding within the date window
(:func:`newsdedup.score.neighbours.window_neighbours`), proposes pairs by meaning. This
module measures both doors on one footing:

* ``E``, the embedding door's pairs, splits into ``E ∩ U`` (also character candidates)
  and ``D``, ``E`` without ``U``: the pairs only the embedding door proposes.
* ``D`` is a population of its own, stratified by cosine (quantiles of ``D``'s
  cosines, so the strata follow the corpus), labelled by its own stratified sample
  (the same sheet, drawing and estimator as ``U``'s: :mod:`newsdedup.calibration.sheet`,
  :mod:`newsdedup.calibration.estimate`).
* ``U``'s existing labels, split by "the embedding door proposes it too", estimate how
  many of ``U``'s same-event pairs the embedding door alone would miss.

Every count is a posterior draw; ratios are taken draw by draw (joint draws within one
population's sample, independent draws across the two samples, which are independent),
so each figure has an interval.

The door keeps a neighbour only above a cosine learned from the corpus: the
``background_quantile`` of the cosines of random pairs within the window (pairs that,
almost all, report different events). Below it a "nearest" neighbour is no nearer than
chance, and labelling those would spend labels on pairs no dedupe would merge.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from newsdedup.calibration.design import draw_batch, first_allocation
from newsdedup.calibration.estimate import LabelSample, draw_interval, same_pair_draws
from newsdedup.calibration.population import Population
from newsdedup.calibration.sheet import new_rows, with_design
from newsdedup.cluster.modelled import DoorSpec, door_rows

__all__ = ["DOOR_KIND", "DoorConfig", "EmbeddingDoor", "background_cosine", "door_estimates",
           "door_sheet", "embedding_door"]

DOOR_KIND = "embedding"
"""The ``kind`` of the second door's strata (``U``'s are ``"scored"`` and ``"grouped"``)."""

DOOR_BATCH = 1
"""The batch number of the door's sheet (one batch: the sample is drawn once)."""


@dataclass(frozen=True)
class DoorConfig:
    """The embedding door and its sample.

    Attributes:
        k: Neighbours proposed per item.
        background_pairs: Random pairs drawn to learn the cosine a neighbour must reach.
        background_quantile: That cosine: this quantile of the random pairs' cosines
            (rounded down to two decimals, so that it does not move with BLAS rounding).
        strata: Cosine strata of the pairs only this door proposes.
        labels: Pairs the door's sheet draws (``sqrt(N_h)``-allocated, one per stratum
            first, as the calibration's first batch).
        seed: Of the background draw and the sheet's draw.
        draws: Posterior draws of the estimates.
        confidence: Of the intervals.
    """

    k: int = 10
    background_pairs: int = 20_000
    background_quantile: float = 0.99
    strata: int = 3
    labels: int = 60
    seed: int = 0
    draws: int = 4000
    confidence: float = 0.95

    def __post_init__(self) -> None:
        """Refuse settings that cannot be run."""
        if self.k < 1 or self.strata < 1 or self.labels < 1 or self.background_pairs < 1:
            raise ValueError("k, strata, labels and background_pairs must be at least 1")
        if not 0.0 < self.background_quantile < 1.0:
            raise ValueError(f"background_quantile must lie in (0, 1), got "
                             f"{self.background_quantile}")


@dataclass(frozen=True)
class EmbeddingDoor:
    """The embedding door's pairs beside the character population ``U``.

    Attributes:
        i: First row of each pair the door proposes (``i < j``, sorted).
        j: Second row.
        cosine: Their cosine.
        in_u: Position of each pair in ``U``, ``-1`` when only this door proposes it.
        only: ``D``, the pairs only this door proposes, as a population with cosine strata.
        min_cosine: The learned cosine a neighbour had to reach.
        background: How it was learned (pairs drawn, within the window, quantile).
    """

    i: np.ndarray
    j: np.ndarray
    cosine: np.ndarray
    in_u: np.ndarray
    only: Population
    min_cosine: float
    background: dict

    def in_population(self, pop: Population) -> np.ndarray:
        """Per pair of ``U``: whether this door proposes it too."""
        flag = np.zeros(len(pop), dtype=bool)
        flag[self.in_u[self.in_u >= 0]] = True
        return flag


def background_cosine(vectors: np.ndarray, seconds: np.ndarray, window_seconds: float | None,
                      pairs: int, quantile: float, seed: int) -> tuple[float, dict]:
    """The ``quantile`` of the cosines of random pairs of distinct items within the window.

    Returns:
        ``(cosine, record)``: the quantile rounded down to two decimals, and what it
        was computed from. With fewer than 100 random pairs in the window (a tiny or
        very spread corpus) the cosine is 0.0 and the record says why.

    Examples:
        >>> v = np.eye(4, dtype=np.float32)
        >>> background_cosine(v, np.zeros(4), None, 500, 0.99, 0)[0]
        0.0
    """
    n = len(vectors)
    rng = np.random.default_rng([seed, 17])
    a = rng.integers(0, n, size=pairs) if n > 1 else np.zeros(0, np.int64)
    b = rng.integers(0, n, size=pairs) if n > 1 else np.zeros(0, np.int64)
    keep = a != b
    if window_seconds is not None:
        t = np.asarray(seconds, dtype=np.float64)
        gap = np.abs(t[a] - t[b])
        keep &= ~(gap >= window_seconds)  # unknown gaps are kept, as the door keeps them
    a, b = a[keep], b[keep]
    record = {"pairs_drawn": pairs, "pairs_in_window": int(len(a)), "quantile": quantile}
    if len(a) < 100:
        return 0.0, record | {"note": "fewer than 100 random pairs within the window"}
    x = np.asarray(vectors, dtype=np.float32)
    cos = np.einsum("ij,ij->i", x[a], x[b]).astype(np.float64)
    value = float(np.floor(np.quantile(cos, quantile) * 100.0) / 100.0)
    return value, record | {"cosine": value}


def _strata_edges(cosine: np.ndarray, strata: int, lowest: float) -> np.ndarray:
    """Cosine edges of ``D``'s strata: ``lowest``, ``D``'s quantiles (two decimals), 1.

    Examples:
        >>> _strata_edges(np.linspace(0.4, 0.9, 101), 3, 0.4).tolist()
        [0.4, 0.57, 0.73, 1.0000001]
    """
    if not len(cosine) or strata <= 1:
        return np.array([lowest, 1.0000001])
    inner = np.round(np.quantile(cosine, np.arange(1, strata) / strata), 2)
    inner = np.unique(inner[(inner > lowest) & (inner < 1.0)])
    return np.concatenate([[lowest], inner, [1.0000001]])


def embedding_door(pop: Population, vectors: np.ndarray, seconds: np.ndarray,
                   sources: np.ndarray, window_days: float | None, config: DoorConfig,
                   progress: Callable[[int, int], None] | None = None) -> EmbeddingDoor:
    """The embedding door's pairs, and ``D`` (those outside ``U``) with its strata.

    Args:
        pop: The character population ``U`` (its rows are the items' rows here).
        vectors: L2-normalized embeddings, one per row.
        seconds: Publication time per row (NaN unknown).
        sources: Source code per row (``-1`` unknown).
        window_days: The calibrated dedupe's window in days, or None.
        config: The door's settings.
        progress: Told the neighbour search's rows done.
    """
    min_cos, record = background_cosine(
        vectors, seconds, None if window_days is None else window_days * 86400.0,
        config.background_pairs, config.background_quantile, config.seed)
    # The door the model's candidates open (cluster.modelled.door_rows), so what is
    # measured here is what a dedupe with the door would propose.
    i, j, cos = door_rows(vectors, seconds, DoorSpec(config.k, min_cos, window_days),
                          progress=progress)
    in_u = pop.find(i, j)
    out = in_u < 0
    di, dj, dcos = i[out], j[out], cos[out]
    edges = _strata_edges(dcos, config.strata, float(min_cos))
    stratum = np.clip(np.searchsorted(edges, dcos, side="right") - 1, 0, len(edges) - 2)
    sizes = np.bincount(stratum, minlength=len(edges) - 1)
    strata = pd.DataFrame({"stratum": np.arange(len(edges) - 1), "kind": DOOR_KIND,
                           "score_lo": edges[:-1], "score_hi": edges[1:], "size": sizes})
    src = np.asarray(sources, dtype=np.int64)
    t = np.asarray(seconds, dtype=np.float64)
    only = Population(di, dj, dcos, (src[di] == src[dj]) & (src[di] >= 0),
                      np.abs(t[di] - t[dj]) / 86400.0, stratum.astype(np.int64), strata,
                      list(pop.ids), float(min_cos))
    return EmbeddingDoor(i, j, cos, in_u, only, float(min_cos), record)


def door_sheet(door: EmbeddingDoor, items: pd.DataFrame, config: DoorConfig) -> pd.DataFrame:
    """A labelling sheet of ``D``: a stratified random sample, items side by side.

    The sheet has the calibration sheet's columns (``newsdedup label`` reads it), one
    batch, no score shown.
    """
    pop = door.only
    allocation = first_allocation(pop.strata["size"].to_numpy(), config.labels)
    positions = draw_batch(pop, allocation, np.zeros(0, np.int64), config.seed, DOOR_BATCH)
    return with_design(new_rows(pop, positions, DOOR_BATCH, items), pop, positions)


def door_estimates(pop: Population, u_sample: LabelSample, door: EmbeddingDoor,
                   d_sample: LabelSample, config: DoorConfig,
                   dedupes: dict[str, tuple[np.ndarray, np.ndarray]] | None = None
                   ) -> pd.DataFrame:
    """Same-event pairs each door proposes, and each dedupe's precision and recall over both.

    Args:
        pop: ``U``.
        u_sample: ``U``'s labelled pairs (a hold-out with the loop's pairs known, or
            the loop's).
        door: The embedding door.
        d_sample: ``D``'s labelled pairs (the door's sheet).
        config: Draws and confidence.
        dedupes: Name -> which pairs of ``U`` and which of ``D`` a dedupe merges.

    Returns:
        One row per door (``characters``, ``embeddings``, ``both``, ``either``), then one
        per dedupe: ``row``, ``pairs`` (candidate pairs; a dedupe's merged pairs in ``U``
        and ``D``), ``same_pairs`` and its interval (``_low``, ``_high``), ``share`` (of
        the same-event pairs either door proposes; a dedupe's recall over both doors)
        and its interval, ``missed_alone`` (same-event pairs only the other door
        proposes), ``precision`` (a dedupe's, over its merged pairs in ``U`` and ``D``)
        and ``recall_u`` (its recall over ``U`` alone, what the calibration states), each
        with its interval.
    """
    in_e = door.in_population(pop)
    both_same, u_same = same_pair_draws(pop, in_e, u_sample, config.draws, [config.seed, 0])
    _, d_same = same_pair_draws(door.only, np.ones(len(door.only), bool), d_sample,
                                config.draws, [config.seed, 1])
    either = u_same + d_same
    Draws = np.ndarray | None
    rows: list[tuple[str, int, np.ndarray, np.ndarray, Draws, Draws, Draws]]
    with np.errstate(invalid="ignore", divide="ignore"):
        rows = [("characters", len(pop), u_same, u_same / either, d_same, None, None),
                ("embeddings", len(door.i), both_same + d_same, (both_same + d_same) / either,
                 u_same - both_same, None, None),
                ("both", int(in_e.sum()), both_same, both_same / either, None, None, None),
                ("either", len(pop) + len(door.only), either, either / either, None, None,
                 None)]
        for k, (name, (in_u, in_d)) in enumerate((dedupes or {}).items()):
            tp_u, same_u = same_pair_draws(pop, in_u, u_sample, config.draws,
                                           [config.seed, 2, k])
            tp_d, same_d = same_pair_draws(door.only, in_d, d_sample, config.draws,
                                           [config.seed, 3, k])
            merged = int(np.count_nonzero(in_u)) + int(np.count_nonzero(in_d))
            rows.append((name, merged, tp_u + tp_d, (tp_u + tp_d) / (same_u + same_d), None,
                         (tp_u + tp_d) / merged if merged else np.full(config.draws, np.nan),
                         tp_u / same_u))
    out = []
    for name, pairs, same, share, missed, precision, recall_u in rows:
        record: dict = {"row": name, "pairs": pairs}
        for key, values in (("same_pairs", same), ("share", share), ("missed_alone", missed),
                            ("precision", precision), ("recall_u", recall_u)):
            value, lo, hi = (draw_interval(values, config.confidence) if values is not None
                             else (float("nan"),) * 3)
            record |= {key: value, f"{key}_low": lo, f"{key}_high": hi}
        out.append(record)
    return pd.DataFrame(out)

"""Threshold sweeps of the dedupe: items left per threshold, per scorer and gate.

The threshold-free work of a dedupe (normalization, exact pass, scores) is done once by
:func:`newsdedup.cluster.dedupe.prepare`; only the greedy clustering is rerun per
threshold.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from newsdedup.cluster.dedupe import DedupeConfig, near_pairs, prepare
from newsdedup.cluster.greedy import COMPILED_MIN, greedy_pairs, greedy_walk, pair_csr
from newsdedup.score.jaccard import DocumentFrequency
from newsdedup.score.scorers import SURFACE_SCORERS
from newsdedup.text.series import Series


def sparse_partition(n: int, i: np.ndarray, j: np.ndarray, score: np.ndarray, threshold: float,
                     rank: np.ndarray | None = None) -> np.ndarray:
    """The partition of :func:`~newsdedup.cluster.greedy.greedy_pairs` at ``threshold``, fast.

    Items with no pair at or above the threshold found their own group and
    touch no other, so greedy clustering runs only on the items that have
    one (in the same relative visiting order, index order); the others get
    groups of their own. The partition is the same; the group numbers differ.
    What a threshold sweep needs, at a cost that grows with the pairs at
    or above the threshold rather than with ``N``, threshold after threshold.

    Args:
        n: Number of items.
        i: First item of each pair.
        j: Second item of each pair.
        score: Score of each pair.
        threshold: Join when ``score >= threshold``.
        rank: Representative preference per item, as for ``greedy_pairs``.

    Returns:
        ``int64`` group per item; the number of groups is ``labels.max() + 1``.

    Examples:
        >>> sparse_partition(4, np.array([0, 2]), np.array([3, 3]), np.array([.5, .2]), .4)
        array([0, 1, 2, 0])
    """
    i, j = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
    score = np.asarray(score, dtype=np.float64)
    hit = (score >= threshold) & (i != j)
    involved = np.unique(np.concatenate([i[hit], j[hit]]))
    inner = greedy_pairs(len(involved), np.searchsorted(involved, i[hit]),
                         np.searchsorted(involved, j[hit]), score[hit], threshold,
                         rank=None if rank is None else np.asarray(rank)[involved])
    labels = np.empty(n, dtype=np.int64)
    alone = np.ones(n, dtype=bool)
    alone[involved] = False
    labels[alone] = inner.n_groups + np.arange(int(alone.sum()))
    labels[involved] = inner.labels
    return labels


class PartitionSweep:
    """:func:`sparse_partition` at many thresholds of one pair list, its lists built once.

    The pairs are turned into adjacency lists (:func:`~newsdedup.cluster.greedy.pair_csr`)
    once, at the lowest threshold; each threshold then runs the compiled greedy walk
    (:func:`~newsdedup.cluster.greedy.greedy_walk`), which skips the items with no pair
    at or above it: ``O(N + pairs)`` per threshold, with no per-threshold sorting.
    Small inputs (below :data:`~newsdedup.cluster.greedy.COMPILED_MIN`) run
    :func:`sparse_partition` per threshold instead, without importing numba.

    Examples:
        >>> sweep = PartitionSweep(4, np.array([0, 2]), np.array([3, 3]), np.array([.5, .2]), .1)
        >>> sweep.labels(.4).tolist(), sweep.labels(.1).tolist()
        ([0, 1, 2, 0], [0, 2, 1, 0])
    """

    def __init__(self, n: int, i: np.ndarray, j: np.ndarray, score: np.ndarray,
                 lowest: float, rank: np.ndarray | None = None,
                 compiled: bool | None = None) -> None:
        """Adjacency lists of the pairs scoring at least ``lowest``.

        Args:
            n: Number of items.
            i: First item of each pair.
            j: Second item of each pair.
            score: Score of each pair.
            lowest: The lowest threshold that will be asked for.
            rank: Representative preference per item, as for ``greedy_pairs``.
            compiled: Build the lists and walk them compiled (numba); None: from
                :data:`~newsdedup.cluster.greedy.COMPILED_MIN` items plus pairs on.
                Otherwise each threshold is :func:`sparse_partition` (same labels).
        """
        self.lowest = float(lowest)
        self._n, self._rank = int(n), rank
        self._compiled = n + len(i) >= COMPILED_MIN if compiled is None else bool(compiled)
        if not self._compiled:  # small: the pairs as given, one sparse_partition per threshold
            self._pairs = (np.asarray(i), np.asarray(j), np.asarray(score, dtype=np.float64))
            return
        self._csr = pair_csr(n, i, j, score, self.lowest)
        self._visit = np.arange(n, dtype=np.int64)
        if rank is None:
            self._prefs, self._use = np.zeros(0, dtype=np.int64), False
        else:
            self._prefs, self._use = np.ascontiguousarray(rank), True
            if self._prefs.shape != (n,):
                raise ValueError(f"rank must have one value per item, got {self._prefs.shape}")

    def labels(self, threshold: float) -> np.ndarray:
        """``int64`` group per item at ``threshold`` (numbered as :func:`sparse_partition`).

        Raises:
            ValueError: ``threshold`` is below the lowest the lists were built for.
        """
        if not threshold >= self.lowest:
            raise ValueError(f"threshold {threshold} is below the sweep's lowest {self.lowest}")
        if not self._compiled:
            return sparse_partition(self._n, *self._pairs, float(threshold), self._rank)
        return greedy_walk(self._visit, *self._csr, float(threshold), self._prefs, self._use,
                           True)[0]


def sweep_items_left(
    items: pd.DataFrame, thresholds: Sequence[float], config: DedupeConfig | None = None, *,
    reference: DocumentFrequency | None = None, series: Series | None = None,
) -> pd.DataFrame:
    """Items left after dedupe at each threshold (seed 000's calibration table).

    Normalization, the exact pass and the scores are computed once, at the
    lowest threshold; only the greedy clustering is rerun per threshold.

    Args:
        items: As for :func:`dedupe`.
        thresholds: Thresholds to try (``config.threshold`` is ignored).
        config: Everything else (scorer, gate, n, ...); defaults when None.
        reference: As for :func:`dedupe`.
        series: As for :func:`dedupe`: the corpus's series when already learned
            (:func:`~newsdedup.cluster.dedupe.corpus_series`), else learned here.

    Returns:
        Columns ``threshold``; ``pairs_at_or_above`` (near-pass pairs, i.e.
        between exact-pass survivors of one bucket -- the whole batch when the
        gate is off -- with ``score >= threshold``); ``items_left`` (groups
        after dedupe).

    Examples:
        >>> df = pd.DataFrame({"title": ["진천군, 스마트 돌봄 구축 착수",
        ...                              "진천군 스마트돌봄 구축 본격화", "화성시 화재감지"]})
        >>> sweep_items_left(df, [0.9, 0.3], DedupeConfig(scorer="jaccard"))
           threshold  pairs_at_or_above  items_left
        0        0.9                  0           3
        1        0.3                  1           2
    """
    config = config or DedupeConfig()
    prep = prepare(items, config, reference, series)
    t = np.asarray(thresholds, dtype=np.float64)
    if t.size == 0:
        return pd.DataFrame({"threshold": t, "pairs_at_or_above": np.zeros(0, np.int64),
                             "items_left": np.zeros(0, np.int64)})
    pairs = near_pairs(prep, float(np.nanmin(t)))
    ordered = np.sort(pairs[2])
    sweep = PartitionSweep(prep.survivors.size, *pairs, float(np.nanmin(t)),
                           prep.rank[prep.survivors])
    at_or_above = ordered.size - np.searchsorted(ordered, t, side="left")
    return pd.DataFrame({
        "threshold": t,
        "pairs_at_or_above": at_or_above.astype(np.int64),
        "items_left": np.array([int(sweep.labels(float(x)).max(initial=-1)) + 1 for x in t],
                               dtype=np.int64),
    })


def sweep_dedupe(
    items: pd.DataFrame,
    thresholds: Sequence[float],
    scorers: Sequence[str] = SURFACE_SCORERS,
    gates: Sequence[bool] = (True, False),
    config: DedupeConfig | None = None,
    *,
    reference: DocumentFrequency | None = None,
    progress: Callable[[str], None] | None = None,
) -> pd.DataFrame:
    """:func:`sweep_items_left` for every scorer, gate on and off: the threshold-choice table.

    Args:
        items: As for :func:`dedupe`.
        thresholds: Thresholds to try.
        scorers: Scorer names (:data:`newsdedup.score.scorers.SCORERS`); the surface ones
            by default (``"embedding"`` encodes every item: ask for it by name).
        gates: Gate settings to try.
        config: Everything else; defaults when None.
        reference: As for :func:`dedupe`.
        progress: Called with a message per (scorer, gate).

    Returns:
        Columns ``scorer``, ``gate`` (bool), ``threshold``,
        ``pairs_at_or_above``, ``items_left``, ``merged`` (items removed,
        ``N - items_left``), in the order scorers x gates x thresholds.
    """
    base = config or DedupeConfig()
    frames = []
    for name in scorers:
        for gate in gates:
            if progress:
                progress(f"sweep: {name}, gate {'on' if gate else 'off'}")
            cfg = replace(base, scorer=name, gate=gate)
            table = sweep_items_left(items, thresholds, cfg, reference=reference)
            frames.append(table.assign(scorer=name, gate=bool(gate)))
    out = pd.concat(frames, ignore_index=True)
    out["merged"] = len(items) - out["items_left"]
    return out[["scorer", "gate", "threshold", "pairs_at_or_above", "items_left", "merged"]]

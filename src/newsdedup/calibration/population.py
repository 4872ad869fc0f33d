"""The candidate pairs a calibration labels and estimates over, in strata.

Precision and recall of a dedupe are shares of *pairs*: of the merged pairs,
how many report one event; of the pairs that report one event, how many are
merged. Both need a population that the merged pairs belong to and that
holds the duplicates the dedupe misses. The population ``U`` is every pair
scoring at least the sweep's lowest threshold (the ``floor``) on the
calibrated score (character n-gram Jaccard of title and summary): the exact
join, whatever the pair's subject bucket, date gap or series, so the pairs
the gate, the window and the series rule keep apart are in it too.

Recall is therefore *recall among the same-event pairs scoring at least the
floor*: a rewrite that shares almost no character n-grams with its twin is
outside every character scorer's reach, and the report says so. A member
joined to a group through its representative may score below the floor
against another member; such merged pairs are outside ``U``, and the report
gives their share of all merged pairs (:func:`coverage`).

``U`` is split into strata by score bin (tenths of the score, the floor
up), by same or different source (when the corpus names several) and by
date gap (within :data:`GAP_DAYS` or not). The strata depend on the corpus,
the score and the floor only, never on the dedupe's settings (gate, window,
series rule, threshold) or on labels: a labelled sheet stays a probability
sample of ``U`` when those settings change, and the estimates of any
dedupe come from it by splitting each stratum into its merged and unmerged
pairs (:mod:`newsdedup.calibration.estimate`). A sheet drawn for another
corpus, score or floor is refused (:func:`newsdedup.calibration.sheet.sheet_sample`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from newsdedup.score.jaccard import PairScores

__all__ = ["GAP_DAYS", "MergedAt", "Population", "build_population", "coverage",
           "grouped_level", "score_bin_edges"]


def score_bin_edges(floor: float) -> np.ndarray:
    """Strata edges of the score: below the floor, then tenths from the floor up to 1.

    Examples:
        >>> score_bin_edges(0.05).tolist()
        [0.0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0000001]
    """
    tenths = np.round(np.arange(1, 10) / 10.0, 1)
    inner = tenths[tenths > floor + 1e-9]
    return np.concatenate(([0.0, float(floor)], inner, [1.0000001]))


@dataclass(frozen=True)
class Population:
    """The candidate pairs, their flags and strata.

    Attributes:
        i: First row of each pair (``i < j``), sorted by ``(i, j)``.
        j: Second row of each pair.
        score: The calibrated scorer's score (row texts).
        same_source: Whether both rows name the same source.
        gap_days: Date gap in days (NaN unknown).
        stratum: Stratum per pair (a row of :attr:`strata`).
        strata: One row per stratum: ``stratum``, ``kind`` (``"scored"`` or
            ``"grouped"``, :func:`build_population`), ``score_lo``, ``score_hi``,
            ``source`` (``"same"``, ``"different"``, or ``"any"`` when the corpus
            names fewer than two sources), ``within_day`` (date gap within
            :data:`GAP_DAYS`), ``size`` (pairs ``N_h``).
        ids: Item id per row (the sheet names pairs by ids).
        floor: Lowest score of the join part of ``U``.
    """

    i: np.ndarray
    j: np.ndarray
    score: np.ndarray
    same_source: np.ndarray
    gap_days: np.ndarray
    stratum: np.ndarray
    strata: pd.DataFrame
    ids: list[str]
    floor: float

    def __len__(self) -> int:
        """Pairs in the population."""
        return int(self.i.size)

    def keys(self) -> np.ndarray:
        """``i * N + j`` per pair (sorted, as the pairs are)."""
        return self.i * len(self.ids) + self.j

    def find(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Position of each pair ``(i, j)`` (either order) in the population, ``-1`` if absent."""
        a, b = np.minimum(i, j), np.maximum(i, j)
        key = a * len(self.ids) + b
        keys = self.keys()
        pos = np.searchsorted(keys, key)
        pos = np.minimum(pos, max(len(keys) - 1, 0))
        found = (len(keys) > 0) & (keys[pos] == key) if len(keys) else np.zeros(len(key), bool)
        return np.where(found, pos, -1)

    def by_ids(self, positions: np.ndarray) -> np.ndarray:
        """``positions`` ordered by their pairs' ids (the smaller id first, then the other).

        Row numbers follow the file's order; ids do not. A draw over pairs
        ordered by ids picks the same pairs whatever order the records came in.
        """
        pos = self._positions(positions)
        key = self._id_keys(pos, self._id_ranks())
        order = np.argsort(key)
        del key
        return pos[order]

    def at_id_ranks(self, positions: np.ndarray, ranks: np.ndarray) -> np.ndarray:
        """``by_ids(positions)[ranks]``, without ordering every position.

        A draw reads a few places of a stratum's id order, and a stratum can
        hold millions of the 28M pairs of 1M headlines: ordering them all held
        the key, its sort order and the ordered copy at once, the peak of a
        1M-item ``run``. Here the keys at those places are selected in place
        (``np.partition``, distinct pairs have distinct keys) and their pairs
        found again a part at a time: one key per position is all that is held.

        Examples:
            >>> pop = Population(np.array([0, 0, 1]), np.array([1, 2, 2]), np.ones(3),
            ...                  np.zeros(3, bool), np.zeros(3), np.zeros(3, np.int64),
            ...                  pd.DataFrame(), ["c", "b", "a"], 0.1)
            >>> pop.by_ids(np.arange(3)).tolist(), pop.at_id_ranks(np.arange(3), [2, 0]).tolist()
            ([2, 1, 0], [0, 2])
        """
        pos = self._positions(positions)
        ranks = np.asarray(ranks, dtype=np.int64)
        if not len(ranks):
            return pos[:0]
        id_ranks = self._id_ranks()
        places = np.unique(ranks)
        key = self._id_keys(pos, id_ranks)
        key.partition(places)
        wanted = key[places]  # the keys at those places of the order, ascending
        del key
        found = np.empty(len(places), dtype=pos.dtype)
        last = len(wanted) - 1
        for lo in range(0, len(pos), PART_PAIRS):
            part = self._id_keys(pos[lo:lo + PART_PAIRS], id_ranks)
            at = np.minimum(np.searchsorted(wanted, part), last)  # a bisection, not k passes
            hit = np.flatnonzero(wanted[at] == part)
            found[at[hit]] = pos[lo + hit]
        return found[np.searchsorted(places, ranks)]

    @staticmethod
    def _positions(positions: np.ndarray) -> np.ndarray:
        pos = np.asarray(positions)
        return pos if pos.dtype.kind in "iu" else pos.astype(np.int64)

    def _id_ranks(self) -> np.ndarray:
        """Each row's place in the order of the ids."""
        n = len(self.ids)
        index = np.int32 if n < 2**31 else np.int64
        rank = np.empty(n, dtype=index)
        rank[np.argsort(np.asarray(self.ids, dtype=object), kind="stable")] = np.arange(
            n, dtype=index)
        return rank

    def _id_keys(self, pos: np.ndarray, rank: np.ndarray) -> np.ndarray:
        """One key per pair, ``min * n + max`` of its rows' id ranks.

        The order of a lexsort by (min, max); distinct pairs have distinct keys. Built a
        part at a time into the int64 key (the ranks gathered as int32 where the rows fit).
        """
        n = len(rank)
        key = np.empty(len(pos), dtype=np.int64)
        for lo in range(0, len(pos), PART_PAIRS):
            part = pos[lo:lo + PART_PAIRS]
            a, b = rank[self.i[part]], rank[self.j[part]]
            out = key[lo:lo + PART_PAIRS]
            np.minimum(a, b, out=out)  # widened as written: no int32 temporary
            out *= n
            out += np.maximum(a, b)
        return key

    def merged(self, labels: np.ndarray) -> np.ndarray:
        """Whether each pair is in one group of a partition (labels per row)."""
        lab = np.asarray(labels)
        return lab[self.i] == lab[self.j]

    def fingerprint(self) -> str:
        """A short hash of the strata and their sizes (recorded beside a sheet)."""
        text = self.strata.to_csv(index=False, float_format="%.6g")
        return hashlib.sha256(text.encode()).hexdigest()[:16]


class MergedAt(Mapping[float, np.ndarray]):
    """Threshold -> whether each population pair is merged there, one bit per threshold.

    The calibration reads, for every threshold of its grid, which candidate
    pairs the dedupe merges. As one boolean array per threshold that is a
    byte per pair and threshold: 1.4 GB for the 28M candidate pairs of 1M
    headlines on a 50-threshold grid, the largest thing calibrate held. Here
    each pair keeps one bit per threshold (8 bytes per pair up to 64
    thresholds), and a threshold's array is unpacked when it is read.

    Args:
        pop: The population.
        partitions: Threshold -> group per row, in the order to iterate.

    Examples:
        >>> ps = PairScores(np.array([0, 0]), np.array([1, 2]), np.array([0.5, 0.1]))
        >>> pop = build_population(ps, None, np.zeros(3), list("abc"), 0.05)
        >>> m = MergedAt(pop, {0.1: np.array([0, 0, 0]), 0.3: np.array([0, 0, 1])})
        >>> list(m), m[0.3].tolist()
        ([0.1, 0.3], [True, False])
    """

    def __init__(self, pop: Population, partitions: Mapping[float, np.ndarray]) -> None:
        """Pack each partition's merged flags into its bit, a part of the pairs at a time."""
        self._at = {float(t): k for k, t in enumerate(partitions)}
        self._bits = np.zeros(((len(self._at) + 63) // 64, len(pop)), dtype=np.uint64)
        for lo in range(0, len(pop), PART_PAIRS):
            i, j = pop.i[lo:lo + PART_PAIRS], pop.j[lo:lo + PART_PAIRS]
            for k, labels in enumerate(partitions.values()):
                lab = np.asarray(labels)
                self._bits[k // 64, lo:lo + PART_PAIRS] |= (
                    (lab[i] == lab[j]).astype(np.uint64) << np.uint64(k % 64))

    def __getitem__(self, threshold: float) -> np.ndarray:
        """Whether each pair is merged at ``threshold`` (a new boolean array)."""
        k = self._at[float(threshold)]
        return ((self._bits[k // 64] >> np.uint64(k % 64)) & np.uint64(1)).astype(bool)

    def __iter__(self) -> Iterator[float]:
        """The thresholds, in the partitions' order."""
        return iter(self._at)

    def __len__(self) -> int:
        """How many thresholds."""
        return len(self._at)


PART_PAIRS = 1 << 22
"""Pairs whose temporaries the population's per-pair steps hold at once (a memory knob
only): about 4M, so a step over 28M pairs holds tens of MB beside its output."""

GAP_DAYS = 1.0
"""Pairs within this many days form strata of their own: copies and rewrites of one event
arrive within a day, so the many pairs further apart would otherwise dilute the strata where
the duplicates are. An unknown date counts as within."""


def build_population(pairs: PairScores, sources: Sequence[str] | None, times: np.ndarray,
                     ids: Sequence[str], floor: float, grouped: np.ndarray | None = None
                     ) -> Population:
    """The population ``U`` (see the module docstring).

    Args:
        pairs: Row pairs scoring at least ``floor`` (the sweep's exact join), sorted.
        sources: Source per row, or None.
        times: Publication time per row in seconds (NaN unknown).
        ids: Item id per row.
        floor: The join's lowest score.
        grouped: Per pair of ``pairs``, the highest threshold at which the
            reference dedupe puts both items in one group (NaN: never); None:
            no pair is grouped.

    Returns:
        The :class:`Population`.

    Examples:
        >>> ps = PairScores(np.array([0, 0, 1]), np.array([1, 2, 2]), np.array([0.9, 0.3, 0.35]))
        >>> pop = build_population(ps, ["a", "a", "b"], np.array([0.0, 3600.0, 9e5]), list("xyz"),
        ...                        0.05)
        >>> pop.strata[["kind", "score_lo", "source", "within_day", "size"]].values.tolist()
        [['scored', 0.3, 'different', False, 2], ['scored', 0.9, 'same', True, 1]]
        >>> pop = build_population(ps, None, np.zeros(3), list("xyz"), 0.05,
        ...                        grouped=np.array([0.42, np.nan, np.nan]))
        >>> pop.strata[["kind", "score_lo", "size"]].values.tolist()
        [['scored', 0.3, 2], ['grouped', 0.4, 1]]
    """
    n = len(ids)
    key = pairs.i.astype(np.int64, copy=False) * n + pairs.j
    # The sweep's pairs come sorted: then they are used as they are, not copied (28M pairs of
    # 1M headlines are 0.7 GB a copy).
    order = None if bool(np.all(key[1:] >= key[:-1])) else np.argsort(key, kind="stable")
    del key
    i, j, score = ((pairs.i, pairs.j, pairs.score) if order is None
                   else (pairs.i[order], pairs.j[order], pairs.score[order]))
    level = (np.full(len(i), np.nan) if grouped is None
             else np.asarray(grouped, dtype=np.float64) if order is None
             else np.asarray(grouped, dtype=np.float64)[order])
    # Sources as integer codes: comparing two gathered object arrays held 0.45 GB of
    # pointers for the 28M pairs of 1M headlines.
    src = (pd.factorize(pd.Series([str(s) for s in sources], dtype=object))[0]
           if sources is not None else None)
    same_source = (src[i] == src[j]) if src is not None else np.ones(len(i), dtype=bool)
    split_source = src is not None and len(np.unique(src)) > 1
    t = np.asarray(times, dtype=np.float64)
    gap = np.abs(t[i] - t[j]) / 86400.0
    edges = score_bin_edges(floor)
    # Each pair's stratum code, a part of the pairs at a time: the temporaries of all
    # 28M candidate pairs of 1M headlines at once were about 1 GB.
    code = np.empty(len(i), dtype=np.int64)
    for lo in range(0, len(i), PART_PAIRS):
        part = slice(lo, lo + PART_PAIRS)
        is_grouped = np.isfinite(level[part])
        # A grouped pair's day does not split it: the window already decided its grouping.
        within = ~(gap[part] > GAP_DAYS) | is_grouped  # NaN (unknown) counts as within
        # Scored pairs are binned by their score, grouped ones by the threshold up to which
        # the reference dedupe keeps them in one group.
        value = np.where(is_grouped, level[part], score[part])
        bin_of = np.clip(np.searchsorted(edges, value, side="right") - 1, 0, len(edges) - 2)
        # Source: 0 different, 1 same, 2 not split (fewer than two sources named).
        src_code = (same_source[part].astype(np.int64) if split_source
                    else np.full(len(value), 2))
        code[part] = (((is_grouped.astype(np.int64) * len(edges) + bin_of) * 3 + src_code) * 2
                      + within)
    # Fewer than 200 codes: a table from code to stratum instead of np.unique's sort of
    # every pair (the same numbering: codes ascending).
    present = np.flatnonzero(np.bincount(code))
    lookup = np.zeros(int(present[-1]) + 1 if present.size else 0, dtype=np.int64)
    lookup[present] = np.arange(present.size)
    stratum = lookup[code]
    rest, gap_code = np.divmod(present, 2)
    rest, s_code = np.divmod(rest, 3)
    kind, b = np.divmod(rest, len(edges))
    strata = pd.DataFrame({
        "stratum": np.arange(present.size, dtype=np.int64),
        "kind": np.array(["scored", "grouped"], dtype=object)[kind],
        "score_lo": edges[b], "score_hi": np.minimum(edges[b + 1], 1.0),
        "source": np.array(["different", "same", "any"], dtype=object)[s_code],
        "within_day": gap_code.astype(bool),
        "size": np.bincount(stratum, minlength=present.size).astype(np.int64)})
    return Population(i=i.astype(np.int64, copy=False), j=j.astype(np.int64, copy=False),
                      score=score, same_source=same_source, gap_days=gap,
                      stratum=stratum, strata=strata,
                      ids=[str(x) for x in ids], floor=float(floor))


def grouped_level(pairs: PairScores, partitions: dict[float, np.ndarray]) -> np.ndarray:
    """Per pair, the highest threshold at which a partition puts both items in one group.

    Args:
        pairs: The pairs.
        partitions: Threshold -> group per row.

    Returns:
        The threshold per pair; NaN where no partition groups the pair.

    Examples:
        >>> ps = PairScores(np.array([0, 0]), np.array([1, 2]), np.array([0.5, 0.1]))
        >>> grouped_level(ps, {0.1: np.array([0, 0, 0]), 0.3: np.array([0, 0, 1])}).tolist()
        [0.3, 0.1]
    """
    level = np.full(len(pairs), np.nan)
    for t in sorted(partitions):
        lab = partitions[t]
        level[lab[pairs.i] == lab[pairs.j]] = t
    return level


def coverage(pop: Population, labels: np.ndarray) -> tuple[int, int]:
    """Merged pairs of a partition in ``U``, and in all (``U`` misses those below the floor).

    Examples:
        >>> ps = PairScores(np.array([0]), np.array([1]), np.array([0.5]))
        >>> pop = build_population(ps, None, np.zeros(3), list("abc"), 0.1)
        >>> coverage(pop, np.array([0, 0, 0]))
        (1, 3)
    """
    lab = np.asarray(labels)
    sizes = np.bincount(pd.factorize(lab)[0]) if lab.size else np.zeros(0, np.int64)
    return int(pop.merged(lab).sum()), int((sizes * (sizes - 1) // 2).sum())

"""Grouping items from a precomputed score matrix: greedy against representatives.

Similarity is not transitive. If A resembles B and B resembles C, A and C can
be different stories; merging transitively (connected components of the
``score >= threshold`` graph) lets one group grow along such chains until it
swallows unrelated items, the "giant cluster" pitfall.
:func:`connected_components` is kept for contrast only.

:func:`greedy_clusters` is seed 000's rule: every item is compared only with
the *current representative* of each existing group. It joins the best one at
or above the threshold, otherwise it founds a new group. Members are never
compared with each other, so no chain can form.

With ``link="average"`` (:func:`greedy_pairs`) a newcomer must also reach the
threshold on average over the group's members, not only with the
representative: a representative with generic wording (a topic's usual
words) otherwise draws in items of neighbouring stories that resemble it and
nothing else in the group. The pair model's dedupe groups this way.

The trade-off is deliberate: greedy clustering over-splits. Seed 000 kept a
"진천군 스마트돌봄" group and a "진천군 내년까지 어린이집 16곳" group apart
although both report the same project, because their representatives scored
below the threshold. A wrong merge makes the reader lose an article; a split
only leaves one duplicate visible, so over-splitting is the preferred error.

Results depend on the visiting order (as any greedy rule does); pass ``order``
to make it explicit.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True)
class Clustering:
    """A partition of ``N`` items into groups, each with one representative.

    Attributes:
        labels: ``int64`` group id per item. Groups are numbered ``0..G-1`` in
            the order they were created, which is the order of their first
            member in the visiting order (index order by default).
        representatives: ``int64`` item index of each group's representative,
            indexed by group id.
        join_scores: ``float64`` per item: the score against the representative
            it was compared with when it joined; NaN for the item that founded
            its group. None when the method has no such notion.
        joined_to: ``int64`` per item: the representative at join time, ``-1``
            for founders. None when the method has no such notion.

    Examples:
        >>> c = Clustering(np.array([0, 1, 0]), np.array([0, 1]))
        >>> c.n_groups, c.sizes().tolist(), [g.tolist() for g in c.groups()]
        (2, [2, 1], [[0, 2], [1]])
    """

    labels: np.ndarray
    representatives: np.ndarray
    join_scores: np.ndarray | None = None
    joined_to: np.ndarray | None = None

    @property
    def n_groups(self) -> int:
        """Number of groups."""
        return int(self.representatives.shape[0])

    @property
    def n_items(self) -> int:
        """Number of items."""
        return int(self.labels.shape[0])

    def sizes(self) -> np.ndarray:
        """Members per group, ``int64`` indexed by group id."""
        return np.bincount(self.labels, minlength=self.n_groups).astype(np.int64)

    def groups(self) -> list[np.ndarray]:
        """Member indices of each group, ascending, indexed by group id."""
        # One stable sort instead of a scan per group.
        order = np.argsort(self.labels, kind="stable")
        bounds = np.cumsum(self.sizes())[:-1]
        return np.split(order.astype(np.int64), bounds) if self.n_groups else []

    def is_representative(self) -> np.ndarray:
        """``bool`` per item: True for the representative of its group."""
        out = np.zeros(self.n_items, dtype=bool)
        out[self.representatives] = True
        return out


def _check_square(scores: np.ndarray, allowed: np.ndarray | None) -> tuple[np.ndarray, int]:
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 2 or s.shape[0] != s.shape[1]:
        raise ValueError(f"scores must be a square matrix, got shape {s.shape}")
    if allowed is not None and np.shape(allowed) != s.shape:
        raise ValueError(f"allowed has shape {np.shape(allowed)}, scores {s.shape}")
    return s, s.shape[0]


def _visit_and_rank(n: int, order: Sequence[int] | None, rank: np.ndarray | None
                    ) -> tuple[np.ndarray, np.ndarray | None]:
    visit = np.arange(n) if order is None else np.asarray(order, dtype=np.int64)
    if visit.shape != (n,) or not np.array_equal(np.sort(visit), np.arange(n)):
        raise ValueError("order must be a permutation of range(N)")
    pref = None if rank is None else np.asarray(rank)
    if pref is not None and pref.shape != (n,):
        raise ValueError(f"rank must have one value per item, got shape {pref.shape}")
    return visit, pref


def greedy_clusters(
    scores: np.ndarray,
    threshold: float,
    *,
    allowed: np.ndarray | None = None,
    order: Sequence[int] | None = None,
    rank: np.ndarray | None = None,
) -> Clustering:
    """Greedy clustering against group representatives (no chain merges).

    Items are visited in ``order``. Each is scored against the current
    representative of every existing group that the gate allows
    (``allowed[item, rep]``), in one vectorized lookup per item. If the best
    score is ``>= threshold`` the item joins that group (ties go to the
    earliest group); if moreover ``rank[item] > rank[rep]`` the newcomer
    becomes the representative, and later items are compared with it. With
    no group reaching the threshold the item founds a new group.

    Because a replaced representative is not re-checked against earlier
    members, a member's score with the *final* representative can be below
    the threshold; ``join_scores`` records what it matched when it joined.

    Args:
        scores: ``N x N`` similarity matrix; only ``scores[item, rep]`` is read,
            so it need not be symmetric. NaN never reaches a threshold.
        threshold: Join when ``score >= threshold``.
        allowed: ``N x N`` boolean gate, None to allow every pair.
        order: Visiting order, a permutation of ``range(N)``; index order by default.
        rank: Representative preference per item, higher is better. Equal
            ranks keep the earlier representative. None: the founder stays.

    Returns:
        The :class:`Clustering`.

    Examples:
        A ~ B and B ~ C but A !~ C: B joins A, C is compared with A only.

        >>> s = np.array([[1, .5, .1], [.5, 1, .5], [.1, .5, 1]])
        >>> greedy_clusters(s, 0.4).labels.tolist()
        [0, 0, 1]

        If B ranks higher it replaces A, and C is then compared with B and joins:

        >>> c = greedy_clusters(s, 0.4, rank=np.array([0, 1, 0]))
        >>> c.labels.tolist(), c.representatives.tolist(), c.joined_to.tolist()
        ([0, 0, 0], [1], [-1, 0, 1])
    """
    s, n = _check_square(scores, allowed)
    gate = None if allowed is None else np.asarray(allowed, dtype=bool)
    visit, pref = _visit_and_rank(n, order, rank)

    labels = np.full(n, -1, dtype=np.int64)
    reps = np.empty(n, dtype=np.int64)  # reps[:g] are the current representatives
    join_scores = np.full(n, np.nan)
    joined_to = np.full(n, -1, dtype=np.int64)
    g = 0
    for item in visit:
        if g:
            cand = s[item, reps[:g]]
            ok = ~np.isnan(cand) & (cand >= threshold)
            if gate is not None:
                ok &= gate[item, reps[:g]]
            if ok.any():
                # argmax returns the first maximum: ties go to the earliest group.
                best = int(np.argmax(np.where(ok, cand, -np.inf)))
                rep = int(reps[best])
                labels[item] = best
                join_scores[item] = cand[best]
                joined_to[item] = rep
                if pref is not None and pref[item] > pref[rep]:
                    reps[best] = item
                continue
        labels[item] = g
        reps[g] = item
        g += 1
    return Clustering(labels=labels, representatives=reps[:g].copy(),
                      join_scores=join_scores, joined_to=joined_to)


def greedy_pairs(
    n: int,
    i: np.ndarray,
    j: np.ndarray,
    score: np.ndarray,
    threshold: float,
    *,
    order: Sequence[int] | None = None,
    rank: np.ndarray | None = None,
    compiled: bool | None = None,
    link: str = "representative",
) -> Clustering:
    """:func:`greedy_clusters` from a sparse list of scored pairs instead of a matrix.

    The same rule and the same result (tested against the matrix version):
    items visited in ``order`` join the best-scoring current representative
    at or above ``threshold`` (ties to the earliest group), a better-ranked
    newcomer replaces the representative, otherwise an item founds a group.
    Pairs not listed count as below the threshold, so a gate or buckets are
    expressed by simply not listing the pairs they forbid; memory and time
    are ``O(N + pairs)``, which is what makes bucketed dedupe near-linear.

    Args:
        n: Number of items.
        i: First item of each pair.
        j: Second item of each pair (pairs are symmetric; either order).
        score: Score of each pair; NaN never reaches the threshold.
        threshold: Join when ``score >= threshold``.
        order: Visiting order, a permutation of ``range(n)``; index order by default.
        rank: Representative preference per item, higher is better; None: founders stay.
        compiled: Run the numba walk (:func:`greedy_walk`); None: from
            :data:`COMPILED_MIN` items plus pairs on (a sixteenth of it once numba is
            imported). Both give the same clustering.
        link: ``"representative"``: join the best representative at or above the
            threshold. ``"average"``: join it only if the mean score over that
            group's members (pairs not listed count as 0) also reaches the threshold;
            otherwise found a group (a second-best group is not tried: the item is
            closest to the one that refused it).

    Returns:
        The :class:`Clustering`.

    Raises:
        ValueError: ``link`` is neither.

    Examples:
        >>> c = greedy_pairs(3, np.array([0, 1]), np.array([1, 2]), np.array([.5, .5]), 0.4)
        >>> c.labels.tolist(), c.joined_to.tolist()
        ([0, 0, 1], [-1, 0, -1])

        Item 2 matches the representative 0 (0.9) but not member 1 (unlisted: 0), a
        mean of 0.45; by average link it founds its own group:

        >>> i, j, p = np.array([0, 0]), np.array([1, 2]), np.array([.8, .9])
        >>> greedy_pairs(3, i, j, p, 0.5).labels.tolist()
        [0, 0, 0]
        >>> greedy_pairs(3, i, j, p, 0.5, link="average").labels.tolist()
        [0, 0, 1]
    """
    if link not in LINKS:
        raise ValueError(f"link must be one of {LINKS}, got {link!r}")
    average = link == "average"
    visit, pref = _visit_and_rank(n, order, rank)
    if compiled is None:
        # Once numba is imported (a large dedupe scored its buckets compiled) only the
        # compiled walk's own load is left to repay.
        compiled = n + len(i) >= (COMPILED_MIN >> 4 if "numba" in sys.modules else COMPILED_MIN)
    if not compiled:
        return _greedy_python(n, i, j, score, threshold, visit, pref, average)
    # The average reads every listed pair of a newcomer, those below the threshold too.
    labels, reps, join_scores, joined_to = greedy_walk(
        visit, *pair_csr(n, i, j, score, -np.inf if average else threshold), threshold,
        *_prefs(pref), False, average)
    return Clustering(labels=labels, representatives=reps, join_scores=join_scores,
                      joined_to=joined_to)


def _greedy_python(n: int, i: np.ndarray, j: np.ndarray, score: np.ndarray, threshold: float,
                   visit: np.ndarray, pref: np.ndarray | None, average: bool = False
                   ) -> Clustering:
    """:func:`greedy_pairs` as a Python loop over lists (small inputs: no numba import)."""
    i, j = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
    score = np.asarray(score, dtype=np.float64)
    hit = ~np.isnan(score) & (i != j) & ((score >= threshold) | average)
    src = np.concatenate([i[hit], j[hit]])
    dst = np.concatenate([j[hit], i[hit]])
    val = np.concatenate([score[hit], score[hit]])
    by_src = np.argsort(src, kind="stable")
    ptr = np.searchsorted(src[by_src], np.arange(n + 1)).tolist()
    nbr, nval = dst[by_src].tolist(), val[by_src].tolist()
    prefs = pref.tolist() if pref is not None else None

    labels = [-1] * n
    rep_group = [-1] * n  # group id while an item is a current representative
    reps: list[int] = []
    size: list[int] = []  # members per group
    join_scores = np.full(n, np.nan)
    joined_to = np.full(n, -1, dtype=np.int64)
    # A loop over items (not pairs): each visits only its listed neighbours.
    for item in visit.tolist():
        best_g, best_s = -1, -1.0
        total: dict[int, float] = {}  # the item's summed scores per group (average link)
        if average:
            for k in range(ptr[item], ptr[item + 1]):
                if labels[nbr[k]] >= 0:
                    total[labels[nbr[k]]] = total.get(labels[nbr[k]], 0.0) + nval[k]
        for k in range(ptr[item], ptr[item + 1]):
            g = rep_group[nbr[k]]
            if (g >= 0 and nval[k] >= threshold
                    and (nval[k] > best_s or (nval[k] == best_s and g < best_g))):
                best_g, best_s = g, nval[k]
        if average and best_g >= 0 and total[best_g] / size[best_g] < threshold:
            best_g = -1  # the closest group is not close on average: found a new one
        if best_g < 0:
            labels[item] = len(reps)
            rep_group[item] = len(reps)
            reps.append(item)
            size.append(1)
            continue
        rep = reps[best_g]
        labels[item] = best_g
        size[best_g] += 1
        join_scores[item] = best_s
        joined_to[item] = rep
        if prefs is not None and prefs[item] > prefs[rep]:
            rep_group[rep] = -1
            rep_group[item] = best_g
            reps[best_g] = item
    return Clustering(labels=np.asarray(labels, dtype=np.int64),
                      representatives=np.asarray(reps, dtype=np.int64),
                      join_scores=join_scores, joined_to=joined_to)


LINKS = ("representative", "average")
"""How a newcomer is compared with a group (:func:`greedy_pairs`'s ``link``)."""


COMPILED_MIN = 1 << 17
"""Items plus pairs from which greedy clustering runs compiled (numba). Below it the
Python loop is fast enough, and the block commands on small corpora skip numba's
import (about half a second)."""


@cache
def _kernels():
    """The numba-compiled :func:`_adjacency` and :func:`_walk`, compiled on first use."""
    from newsdedup.paths import configure_numba_cache

    configure_numba_cache()  # before numba's import: it reads NUMBA_CACHE_DIR once
    from numba import njit

    return (njit(cache=True, nogil=True)(_adjacency), njit(cache=True, nogil=True)(_walk))


def pair_csr(n: int, i: np.ndarray, j: np.ndarray, score: np.ndarray, lowest: float = -np.inf
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Scored pairs as symmetric adjacency lists, with each item's best score.

    Built once (a counting sort, ``O(N + pairs)``), the lists serve every
    threshold ``>= lowest``: :func:`greedy_walk` skips an item whose best score
    is below its threshold and reads only the scores at or above it. Which
    neighbour an item joins does not depend on the list order (best score,
    ties to the earliest group), so the lists keep the pairs' order. Pairs
    ``i == j``, NaN scores and scores below ``lowest`` are dropped.

    Returns:
        ``(ptr, nbr, val, top)``: item ``x``'s neighbours are ``nbr[ptr[x]:ptr[x + 1]]``
        with scores ``val[...]``; ``top[x]`` is its highest score (``-inf`` without pairs).

    Examples:
        >>> ptr, nbr, val, top = pair_csr(3, np.array([0, 0]), np.array([1, 2]),
        ...                               np.array([.2, .7]))
        >>> ptr.tolist(), nbr.tolist(), val.tolist(), top.tolist()
        ([0, 2, 3, 4], [1, 2, 0, 0], [0.2, 0.7, 0.2, 0.7], [0.7, 0.2, 0.7])
    """
    i, j = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
    score = np.asarray(score, dtype=np.float64)
    hit = ~np.isnan(score) & (score >= lowest) & (i != j)
    return _kernels()[0](int(n), i[hit], j[hit], score[hit])


def _adjacency(n: int, i: np.ndarray, j: np.ndarray, score: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    ptr = np.zeros(n + 1, dtype=np.int64)
    for k in range(i.shape[0]):
        ptr[i[k] + 1] += 1
        ptr[j[k] + 1] += 1
    for x in range(n):
        ptr[x + 1] += ptr[x]
    fill = ptr[:-1].copy()
    nbr = np.empty(2 * i.shape[0], dtype=np.int64)
    val = np.empty(2 * i.shape[0], dtype=np.float64)
    top = np.full(n, -np.inf)
    for k in range(i.shape[0]):
        a, b, s = i[k], j[k], score[k]
        nbr[fill[a]], val[fill[a]] = b, s
        nbr[fill[b]], val[fill[b]] = a, s
        fill[a] += 1
        fill[b] += 1
        top[a] = max(top[a], s)
        top[b] = max(top[b], s)
    return ptr, nbr, val, top


def _prefs(pref: np.ndarray | None) -> tuple[np.ndarray, bool]:
    """:func:`greedy_walk`'s ``(prefs, use_prefs)`` for a rank or None."""
    if pref is None:
        return np.zeros(0, dtype=np.int64), False
    return np.ascontiguousarray(pref), True


def greedy_walk(visit: np.ndarray, ptr: np.ndarray, nbr: np.ndarray, val: np.ndarray,
                top: np.ndarray, threshold: float, prefs: np.ndarray, use_prefs: bool,
                alone_last: bool, average: bool = False
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The greedy rule of :func:`greedy_pairs` over :func:`pair_csr` lists, compiled.

    Items are visited in ``visit``; only neighbours scoring ``>= threshold``
    count, and an item whose ``top`` score is below it founds a group without
    reading its list. With ``alone_last``, items with no such neighbour touch no
    other item and are numbered after every other group, in index order
    (:func:`newsdedup.cluster.sweep.sparse_partition`'s numbering). With
    ``average``, the best group is joined only when the mean of the item's listed
    scores over its members also reaches the threshold, else the item founds one
    (``link="average"``; the lists must then hold the scores below the threshold too).

    Returns:
        ``(labels, representatives, join_scores, joined_to)`` as in :class:`Clustering`.
    """
    return _kernels()[1](visit, ptr, nbr, val, top, threshold, prefs, use_prefs, alone_last,
                         average)


def _walk(visit: np.ndarray, ptr: np.ndarray, nbr: np.ndarray, val: np.ndarray,
          top: np.ndarray, threshold: float, prefs: np.ndarray, use_prefs: bool,
          alone_last: bool, average: bool
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    n = ptr.shape[0] - 1
    labels = np.full(n, -1, dtype=np.int64)
    rep_group = np.full(n, -1, dtype=np.int64)  # group id while an item is a representative
    reps = np.empty(n, dtype=np.int64)
    size = np.zeros(n if average else 0, dtype=np.int64)  # members per group
    total = np.zeros(n if average else 0)  # the visited item's summed scores per group
    join_scores = np.full(n, np.nan)
    joined_to = np.full(n, -1, dtype=np.int64)
    groups = 0
    # A loop over items (not pairs): each visits only its above-threshold neighbours.
    for v in range(visit.shape[0]):
        item = visit[v]
        if top[item] < threshold:  # no pair at or above the threshold: founds its group
            if alone_last:
                continue
            labels[item] = groups
            rep_group[item] = groups
            reps[groups] = item
            groups += 1
            continue
        best_g, best_s = -1, -1.0
        if average:  # the item's sum over each group it has listed pairs in
            for k in range(ptr[item], ptr[item + 1]):
                if labels[nbr[k]] >= 0:
                    total[labels[nbr[k]]] += val[k]
        for k in range(ptr[item], ptr[item + 1]):
            if val[k] < threshold:
                continue
            g = rep_group[nbr[k]]
            if g >= 0 and (val[k] > best_s or (val[k] == best_s and g < best_g)):
                best_g, best_s = g, val[k]
        if average:
            if best_g >= 0 and total[best_g] / size[best_g] < threshold:
                best_g = -1  # the closest group is not close on average: found a new one
            for k in range(ptr[item], ptr[item + 1]):
                if labels[nbr[k]] >= 0:
                    total[labels[nbr[k]]] = 0.0
        if best_g < 0:
            labels[item] = groups
            rep_group[item] = groups
            reps[groups] = item
            if average:
                size[groups] = 1
            groups += 1
            continue
        rep = reps[best_g]
        labels[item] = best_g
        if average:
            size[best_g] += 1
        join_scores[item] = best_s
        joined_to[item] = rep
        if use_prefs and prefs[item] > prefs[rep]:
            rep_group[rep] = -1
            rep_group[item] = best_g
            reps[best_g] = item
    if alone_last:
        for item in range(n):
            if labels[item] < 0:
                labels[item] = groups
                reps[groups] = item
                groups += 1
    return labels, reps[:groups].copy(), join_scores, joined_to


def connected_components(
    scores: np.ndarray, threshold: float, allowed: np.ndarray | None = None
) -> Clustering:
    """Transitive closure of ``score >= threshold`` (and the gate): for contrast only.

    Every chain A ~ B ~ C ends in one group even when A and C are unrelated;
    on a real batch this tends to produce one giant group. Groups are numbered
    by their smallest member, which is also their representative.

    Args:
        scores: ``N x N`` similarity matrix (symmetrized: an edge in either
            direction links the pair).
        threshold: Link when ``score >= threshold``.
        allowed: ``N x N`` boolean gate, None to allow every pair.

    Returns:
        The :class:`Clustering` (``join_scores`` and ``joined_to`` are None).

    Examples:
        >>> s = np.array([[1, .5, .1], [.5, 1, .5], [.1, .5, 1]])
        >>> connected_components(s, 0.4).labels.tolist()
        [0, 0, 0]
    """
    s, n = _check_square(scores, allowed)
    if n == 0:
        return Clustering(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    edges = s >= threshold  # NaN compares False: no edge
    if allowed is not None:
        edges &= np.asarray(allowed, dtype=bool)
    # Imported here: scipy.sparse.csgraph pulls in scipy.linalg (a few tenths of a second),
    # which the greedy clustering every command runs does not need.
    from scipy.sparse.csgraph import connected_components as components

    _, raw = components(sp.csr_matrix(edges), directed=False)
    # Renumber so group ids follow the first member, as in greedy_clusters.
    _, first, inverse = np.unique(raw, return_index=True, return_inverse=True)
    by_first = np.argsort(first, kind="stable")
    new_id = np.empty_like(by_first)
    new_id[by_first] = np.arange(by_first.size)
    labels = new_id[inverse.reshape(-1)].astype(np.int64)
    return Clustering(labels=labels, representatives=np.sort(first).astype(np.int64))

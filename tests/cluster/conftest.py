"""Shared helpers of the clustering tests."""

from __future__ import annotations

import math

import numpy as np


def average_link_reference(n: int, i: np.ndarray, j: np.ndarray, score: np.ndarray,
                           threshold: float, order=None, rank=None) -> np.ndarray:
    """Greedy average-link groups, written plainly over a dense matrix (the test's oracle).

    Each item, in ``order``, finds the group whose current representative it scores
    highest with at or above ``threshold`` (ties to the earliest group); it joins if its
    mean score over that group's members (unlisted pairs 0) also reaches the threshold,
    and founds a group otherwise. A better-ranked newcomer becomes the representative.
    Sums are exact (``math.fsum``), so the oracle does not depend on summation order.
    """
    dense = np.zeros((n, n))
    listed = np.zeros((n, n), dtype=bool)
    for a, b, s in zip(i.tolist(), j.tolist(), score.tolist(), strict=True):
        if a != b and not math.isnan(s):
            dense[a, b] = dense[b, a] = s
            listed[a, b] = listed[b, a] = True
    labels = np.full(n, -1, dtype=np.int64)
    members: list[list[int]] = []
    reps: list[int] = []
    for item in (range(n) if order is None else order):
        best, best_s = -1, -math.inf
        for g, rep in enumerate(reps):
            if listed[item, rep] and dense[item, rep] >= threshold and dense[item, rep] > best_s:
                best, best_s = g, dense[item, rep]
        if best >= 0 and math.fsum(dense[item, m] for m in members[best]) / len(
                members[best]) < threshold:
            best = -1
        if best < 0:
            labels[item] = len(reps)
            reps.append(item)
            members.append([item])
            continue
        labels[item] = best
        members[best].append(item)
        if rank is not None and rank[item] > rank[reps[best]]:
            reps[best] = item
    return labels

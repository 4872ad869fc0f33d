"""Greedy clustering of a crowded bucket without listing its pairs: members against founders.

The dedupe's greedy rule compares an item with the current representative of
each group, and in the dedupe a group's representative is its founder (the
survivors are visited best first, so no later member outranks it). The pairs
that decide anything are therefore each member's pairs with the founders
visited before it -- not all the pairs above the threshold, which
:func:`newsdedup.cluster.dedupe.near_pairs` lists and the greedy walk then
reads. In a bucket of near-identical titles (a wire story copied 20,000 times,
not a series the rules keep apart) those are nearly all of its ``m^2 / 2``
pairs: 200M at 20,000 titles, 17.9 GB under plain Jaccard.

:func:`founder_pairs` walks such a bucket in visiting order, a block of
members at a time, scoring each block against the founders so far and
against itself, and returns one pair per member that joins (the member, its
founder, the score). Fed to :func:`newsdedup.cluster.greedy.greedy_pairs`
with the other buckets' pairs they give the same clustering, bit for bit
(tested): the same scores (the scorer's ``block``, which its pair paths
match), the same rules, the same tie order. The cost is ``O(m F)`` scores for
``F`` founders and memory ``O(block x F)``: linear in a bucket of copies,
quadratic in a bucket of distinct titles, which is why a bucket whose founders
pass :data:`WALK_MAX_FOUNDERS` is handed back to the pair path (its prefix
filter lists few pairs there).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["WALK_CELLS", "WALK_MAX_FOUNDERS", "WALK_MIN_MEMBERS", "founder_pairs"]

WALK_MIN_MEMBERS = 2_896
"""Members from which a bucket is walked: ``m (m - 1) / 2`` passes 4M pairs, the size of one
group of buckets the pair path scores at a time (:mod:`newsdedup.cluster.listed`)."""

WALK_MAX_FOUNDERS = 4_096
"""Founders at which a walk stops and the bucket goes back to the pair path.

Past it the bucket is mostly distinct titles: its pairs above the threshold are
few and the prefix filter finds them faster than ``m x F`` scores. In such a
bucket nearly every member founds, so the walk stops after about 4,096 members
(8M scores); a bucket that stays under the cap costs at most ``m x 4,096``
scores. Measured: 20,000 copies of one story whose series rule keeps 2,829
founders apart walk in 3.9 s, where listing their pairs took 17.9 GB."""

WALK_CELLS = 1 << 22
"""Scores one block of the walk holds: block rows x (founders + block rows)."""

Block = Callable[[np.ndarray, np.ndarray], np.ndarray]
Allowed = Callable[[np.ndarray, np.ndarray], np.ndarray]


def founder_pairs(block: Block, members: np.ndarray, threshold: float,
                  allowed: Allowed | None = None,
                  max_founders: int | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Each member's join in a greedy walk of one bucket against its founders.

    Args:
        block: ``block(rows, cols)`` -> dense scores (the prepared scorer's ``block``).
        members: The bucket's items in visiting order (increasing survivor positions).
        threshold: Join when ``score >= threshold`` (NaN never does).
        allowed: ``allowed(i, j)`` -> whether each pair may merge (the window and
            series rules), None to allow every pair.
        max_founders: Stop (return None) once the founders exceed it;
            :data:`WALK_MAX_FOUNDERS` when None.

    Returns:
        ``(member, founder, score)`` for every member that joins a group, in visiting
        order, or None when the founders passed ``max_founders``.

    Examples:
        A ~ B, B ~ C, A !~ C: B joins A; C is compared with the founder A only.

        >>> s = np.array([[1, .5, .1], [.5, 1, .5], [.1, .5, 1]])
        >>> i, j, score = founder_pairs(lambda r, c: s[np.ix_(r, c)], np.arange(3), 0.4)
        >>> i.tolist(), j.tolist(), score.tolist()
        ([1], [0], [0.5])
    """
    cap = WALK_MAX_FOUNDERS if max_founders is None else max_founders
    members = np.asarray(members, dtype=np.int64)
    founders = np.zeros(0, dtype=np.int64)
    out_i, out_j, out_s = [], [], []
    lo = 0
    while lo < len(members):
        rows = int(np.clip(WALK_CELLS // (len(founders) + 256), 16, 256))
        part = members[lo:lo + rows]
        ok, scores = _candidates(block, part, founders, threshold, allowed)
        own = block(part, part)
        new: list[int] = []  # positions in part of the founders this block adds
        for k, item in enumerate(part.tolist()):
            best_s, best_f = -np.inf, -1
            if ok[k].any():  # argmax: the first maximum, the earliest founder (group)
                c = int(np.argmax(np.where(ok[k], scores[k], -np.inf)))
                best_s, best_f = float(scores[k, c]), int(founders[c])
            if new:
                idx = np.asarray(new, dtype=np.int64)
                s = own[k, idx]
                hit = s >= threshold
                if allowed is not None and hit.any():
                    hit[hit] = allowed(np.full(int(hit.sum()), item), part[idx[hit]])
                # Earlier founders win ties: a founder of this block beats them only when higher.
                if hit.any() and s[hit].max() > best_s:
                    c = int(np.argmax(np.where(hit, s, -np.inf)))
                    best_s, best_f = float(s[c]), int(part[idx[c]])
            if best_f < 0:
                new.append(k)
            else:
                out_i.append(item)
                out_j.append(best_f)
                out_s.append(best_s)
        founders = np.concatenate([founders, part[np.asarray(new, dtype=np.int64)]])
        if len(founders) > cap:
            return None
        lo += len(part)
    return (np.asarray(out_i, dtype=np.int64), np.asarray(out_j, dtype=np.int64),
            np.asarray(out_s, dtype=np.float64))


def _candidates(block: Block, part: np.ndarray, founders: np.ndarray, threshold: float,
                allowed: Allowed | None) -> tuple[np.ndarray, np.ndarray]:
    """Which founders each member of ``part`` may join (score and rules), and the scores."""
    if not len(founders):
        empty = np.zeros((len(part), 0))
        return empty.astype(bool), empty
    scores = block(part, founders)
    ok = scores >= threshold
    if allowed is not None and ok.any():
        r, c = np.nonzero(ok)
        ok[r, c] = allowed(part[r], founders[c])
    return ok, scores

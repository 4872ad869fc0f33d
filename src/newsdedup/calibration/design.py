"""The sampling design of the labeling loop: which pairs to label next, and how many per stratum.

Labels are drawn in batches, each a stratified random sample without
replacement of the population's pairs not drawn yet
(:mod:`newsdedup.calibration.population`). Within a stratum every undrawn
pair is equally likely, so after all batches a pair of stratum ``h`` was
drawn with probability ``n_h / N_h`` (``n_h`` pairs drawn there in all):
the inclusion probability the estimates weight by
(:mod:`newsdedup.calibration.estimate`).

**How many per stratum.** The first batch, with nothing labelled, spreads
over every stratum in proportion to the square root of its size (at least
one pair each while the batch lasts): between proportional allocation,
which would spend nearly all labels on the many low-scoring pairs, and
equal allocation, which would ignore them. Every later batch goes where the
labels shrink the intervals most *at the threshold the calibration is
about to recommend* (as OASIS does for entity resolution, Marchant and
Rubinstein 2017): one pair at a time to the stratum whose next label most
reduces the posterior variance of precision plus that of recall there
(:func:`next_allocation`). The strata and sizes never depend on labels;
only the allocation does.

Which pairs within a stratum is decided by a generator seeded with the
calibration seed and the batch number, over the stratum's undrawn pairs in
the order of their ids: the same labels give the same next batch, whatever
order the corpus's records are in.
"""

from __future__ import annotations

import numpy as np

from newsdedup.calibration.estimate import PRIOR, LabelSample, cell_counts
from newsdedup.calibration.population import Population

__all__ = ["first_allocation", "next_allocation", "draw_batch", "inclusion"]


def first_allocation(sizes: np.ndarray, n: int) -> np.ndarray:
    """Pairs per stratum of the first batch: ``sqrt(N_h)``-proportional, one each first.

    Args:
        sizes: Pairs left to draw per stratum.
        n: Batch size.

    Returns:
        Pairs to draw per stratum (never more than it has; ``sum <= n``).

    Examples:
        >>> first_allocation(np.array([10000, 100, 1, 0]), 20).tolist()
        [17, 2, 1, 0]
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    out = np.zeros(sizes.size, dtype=np.int64)
    n = int(min(n, sizes.sum()))
    if n <= 0:
        return out
    # One pair per stratum first, the largest strata first when the batch is short.
    order = np.lexsort((np.arange(sizes.size), -sizes))
    order = order[sizes[order] > 0][:n]
    out[order] = 1
    left = n - int(out.sum())
    while left > 0:
        room = sizes - out
        weight = np.where(room > 0, np.sqrt(sizes.astype(np.float64)), 0.0)
        if not weight.any():
            break
        share = weight / weight.sum() * left
        add = np.minimum(np.floor(share).astype(np.int64), room)
        if not add.sum():  # the remainder: one each to the largest shares
            best = np.lexsort((np.arange(sizes.size), -share))
            best = best[room[best] > 0][:left]
            add = np.zeros_like(out)
            add[best] = 1
        out += add
        left = n - int(out.sum())
    return out


def _cell_variance(size: np.ndarray, n: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Posterior variance of a cell's same-event count with ``n`` labels (finite population)."""
    p = (k + PRIOR) / (n + 2 * PRIOR)
    rest = np.maximum(size - n, 0).astype(np.float64)
    # Unlabelled pairs: binomial given the share, plus the share's own posterior variance.
    var_p = p * (1 - p) / (n + 2 * PRIOR + 1)
    return rest * p * (1 - p) + rest * rest * var_p


def next_allocation(pop: Population, merged: np.ndarray, sample: LabelSample,
                    drawn: np.ndarray, n: int, recall: bool = True) -> np.ndarray:
    """Pairs per stratum of the next batch, where they shrink the intervals at one threshold most.

    Args:
        pop: The population.
        merged: Whether each pair is merged at the threshold of interest.
        sample: The labels so far.
        drawn: Pairs drawn per stratum so far (labelled or not).
        n: Batch size.
        recall: Shrink recall's interval too; False: precision's alone (while no
            threshold is recommended, precision decides whether one can be:
            recall's interval, over the many unmerged pairs, would take the labels).

    Returns:
        Pairs to draw per stratum.
    """
    cells = cell_counts(pop, merged, sample)
    size = cells["size"].to_numpy(np.float64)
    lab = cells["labelled"].to_numpy(np.float64)
    k = cells["same"].to_numpy(np.float64)
    is_merged = cells["merged"].to_numpy()
    p = (k + PRIOR) / (lab + 2 * PRIOR)
    tp = float((size * p)[is_merged].sum())
    missed = float((size * p)[~is_merged].sum())
    total = tp + missed
    m = float(size[is_merged].sum())
    # Delta method: precision = TP / M; recall = TP / (TP + missed).
    coef = np.where(is_merged, (1.0 / m) ** 2 if m else 0.0, 0.0)
    if total > 0 and recall:
        coef = coef + np.where(is_merged, (missed / total ** 2) ** 2, (tp / total ** 2) ** 2)
    strata = pop.strata.shape[0]
    room = pop.strata["size"].to_numpy(np.int64) - np.asarray(drawn, dtype=np.int64)
    share = (size / np.maximum(np.repeat(pop.strata["size"].to_numpy(np.float64), 2), 1.0))
    out = np.zeros(strata, dtype=np.int64)
    extra = np.zeros(2 * strata)
    for _ in range(int(min(n, max(room.sum(), 0)))):
        now = _cell_variance(size, lab + extra, k + p * extra)
        after = _cell_variance(size, lab + extra + share, k + p * (extra + share))
        gain = ((now - after) * coef).reshape(strata, 2).sum(axis=1)
        gain = np.where(room - out > 0, gain, -np.inf)
        h = int(np.argmax(gain))
        if not np.isfinite(gain[h]):
            break
        out[h] += 1
        extra[2 * h:2 * h + 2] += share[2 * h:2 * h + 2]
    return out


def draw_batch(pop: Population, allocation: np.ndarray, drawn_positions: np.ndarray,
               seed: int, batch: int) -> np.ndarray:
    """Positions of the pairs of one batch: per stratum, a random sample of its undrawn pairs.

    Args:
        pop: The population.
        allocation: Pairs per stratum.
        drawn_positions: Positions drawn by earlier batches (never drawn again).
        seed: The calibration seed.
        batch: The batch number (1 for the first).

    Returns:
        Positions, in a random order (the order a labeller sees them).

    Examples:
        >>> import pandas as pd
        >>> from newsdedup.calibration.population import Population
        >>> strata = pd.DataFrame({"stratum": [0, 1], "size": [3, 2]})
        >>> pop = Population(np.arange(5), np.arange(5) + 5, np.ones(5), np.ones(5, bool),
        ...     np.zeros(5), np.array([0, 0, 0, 1, 1]), strata, [str(k) for k in range(10)], 0.05)
        >>> sorted(draw_batch(pop, np.array([2, 1]), [0], seed=0, batch=2).tolist())[:2]
        [1, 2]
    """
    taken = np.zeros(len(pop), dtype=bool)
    taken[np.asarray(drawn_positions, dtype=np.int64)] = True
    rng = np.random.default_rng([seed, batch])
    chosen = []
    for h, count in enumerate(np.asarray(allocation, dtype=np.int64).tolist()):
        if count <= 0:
            continue
        # int32 positions where they fit: a stratum of a 1M-item feed holds millions.
        where = np.flatnonzero((pop.stratum == h) & ~taken)
        pool = where.astype(np.int32) if len(pop) < 2**31 else where
        del where
        # The places a draw from the pool in id order would take (rng.choice over an array
        # takes those of rng.choice over its length), read off without ordering the pool.
        places = rng.choice(len(pool), size=min(count, len(pool)), replace=False)
        chosen.append(pop.at_id_ranks(pool, places))
    out = np.concatenate(chosen) if chosen else np.zeros(0, np.int64)
    return rng.permutation(out.astype(np.int64))


def inclusion(pop: Population, drawn_positions: np.ndarray,
              excluded: np.ndarray | None = None) -> np.ndarray:
    """Inclusion probability ``n_h / N_h`` of each drawn pair (in the order given).

    ``excluded`` pairs (a hold-out is drawn from the pairs the loop did not
    draw) leave the stratum sizes: ``n_h / (N_h - excluded_h)``.

    Examples:
        >>> import pandas as pd
        >>> from newsdedup.calibration.population import Population
        >>> strata = pd.DataFrame({"stratum": [0, 1], "size": [3, 2]})
        >>> pop = Population(np.arange(5), np.arange(5) + 5, np.ones(5), np.ones(5, bool),
        ...     np.zeros(5), np.array([0, 0, 0, 1, 1]), strata, [str(k) for k in range(10)], 0.05)
        >>> inclusion(pop, np.array([0, 3, 4])).tolist()
        [0.3333333333333333, 1.0, 1.0]
    """
    pos = np.asarray(drawn_positions, dtype=np.int64)
    strata = pop.strata.shape[0]
    drawn = np.bincount(pop.stratum[pos], minlength=strata)
    sizes = pop.strata["size"].to_numpy(np.float64)
    if excluded is not None and len(excluded):
        sizes = sizes - drawn_per_stratum(pop, excluded)
    return drawn[pop.stratum[pos]] / sizes[pop.stratum[pos]]


def drawn_per_stratum(pop: Population, drawn_positions: np.ndarray) -> np.ndarray:
    """Pairs drawn so far per stratum."""
    pos = np.asarray(drawn_positions, dtype=np.int64)
    return np.bincount(pop.stratum[pos], minlength=pop.strata.shape[0])


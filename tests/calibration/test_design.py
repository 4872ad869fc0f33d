"""The sampling design of the labeling loop (newsdedup.calibration.design)."""

import itertools

import numpy as np
import pytest

from newsdedup.calibration.design import (
    draw_batch,
    drawn_per_stratum,
    first_allocation,
    inclusion,
    next_allocation,
)
from newsdedup.calibration.estimate import LabelSample
from newsdedup.calibration.population import build_population
from newsdedup.score.jaccard import PairScores

from .conftest import population

# --- first_allocation -------------------------------------------------------------------

@pytest.mark.parametrize(("sizes", "n", "expected"), [
    ([10000, 100, 1, 0], 20, [17, 2, 1, 0]),  # the docstring's case
    ([400, 100, 25, 0], 73, [41, 21, 11, 0]),  # one each, then 70 * (20, 10, 5) / 35
    ([5, 5, 5, 5], 2, [1, 1, 0, 0]),  # a short batch: one each to the first strata
    ([3, 8, 1], 2, [1, 1, 0]),  # ... the largest first
    ([10000, 2], 100, [98, 2]),  # a small stratum gives what it has; the rest goes on
    ([3, 2], 10, [3, 2]),  # a batch larger than the population
    ([3, 2], 0, [0, 0]),
    ([0, 0], 5, [0, 0]),
])
def test_first_allocation_matches_hand_computed_cases(sizes, n, expected):
    assert first_allocation(np.array(sizes), n).tolist() == expected


@pytest.mark.parametrize("seed", range(30))
def test_first_allocation_is_one_each_then_sqrt_proportional(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 5000, int(rng.integers(2, 12)))
    sizes[rng.random(sizes.size) < 0.2] = int(rng.integers(0, 3))
    n = int(rng.integers(0, 400))
    out = first_allocation(sizes, n)
    assert out.sum() == min(n, sizes.sum())
    assert np.all((out >= 0) & (out <= sizes))
    nonzero = sizes > 0
    if n >= nonzero.sum():
        assert np.all(out[nonzero] >= 1)
    # Where no stratum is exhausted, stratum h's exact share is one pair plus
    # (n - H) sqrt(N_h) / sum sqrt(N). The rounding takes less than one pair from any
    # stratum (the remainder goes to the largest strata, so a large one may gain a few).
    if n >= nonzero.sum() and np.all(out[nonzero] < sizes[nonzero]):
        root = np.sqrt(sizes[nonzero].astype(float))
        ideal = 1 + (n - nonzero.sum()) * root / root.sum()
        assert np.all(out[nonzero] - ideal > -1.0)


# --- next_allocation ----------------------------------------------------------------------

def labelled(pop, per_stratum, rate, rng):
    """The first pairs of each stratum labelled, same with probability `rate`."""
    pos = np.concatenate([np.flatnonzero(pop.stratum == h)[:k]
                          for h, k in enumerate(per_stratum)])
    return LabelSample(pos, rng.random(pos.size) < rate), drawn_per_stratum(pop, pos)


def test_next_allocation_without_recall_goes_to_strata_with_merged_pairs():
    pop = population([200, 300, 100])
    merged = np.zeros(len(pop), bool)
    merged[:200] = True  # stratum 0 merged in full, stratum 1 not at all, stratum 2 half
    merged[500:550] = True
    sample, drawn = labelled(pop, [5, 5, 6], 0.5, np.random.default_rng(0))
    out = next_allocation(pop, merged, sample, drawn, 20, recall=False)
    assert out.sum() == 20
    assert out[1] == 0
    assert out[0] > 0
    # With recall, the unmerged stratum holds missed duplicates worth labelling too.
    with_recall = next_allocation(pop, merged, sample, drawn, 20, recall=True)
    assert with_recall.sum() == 20 and with_recall[1] > 0


def test_next_allocation_is_about_proportional_to_size_for_equal_rates():
    # Precision's variance over merged strata of equal rate: the labels should end up in
    # proportion to the strata's sizes (Neyman allocation with equal variances). Stated
    # tolerance: the labelled shares n_h / N_h agree within a factor of 1.5.
    pop = population([400, 100])
    merged = np.ones(len(pop), bool)
    pos = np.r_[0:6, 400:406]
    sample = LabelSample(pos, np.tile([True, True, True, False, False, False], 2))
    drawn = drawn_per_stratum(pop, pos)
    for n in (50, 100):
        out = next_allocation(pop, merged, sample, drawn, n, recall=False)
        assert out.sum() == n
        share = (drawn + out) / np.array([400, 100])
        assert 1 / 1.5 <= share[0] / share[1] <= 1.5, (n, out)


def test_next_allocation_never_exceeds_what_is_left():
    pop = population([10, 3, 50])
    merged = np.ones(len(pop), bool)
    pos = np.r_[0:8, 10:13]
    sample = LabelSample(pos, np.ones(pos.size, bool))
    drawn = drawn_per_stratum(pop, pos)
    out = next_allocation(pop, merged, sample, drawn, 100, recall=True)
    assert out.tolist()[:2] == [2, 0]
    assert out.sum() == min(100, 2 + 0 + 50)
    assert np.all(out <= np.array([10, 3, 50]) - drawn)


# --- draw_batch ------------------------------------------------------------------------------

def test_draw_batch_is_seeded_by_seed_and_batch():
    pop = population([40, 30, 5])
    alloc = np.array([5, 4, 2])
    first = draw_batch(pop, alloc, np.zeros(0, np.int64), seed=3, batch=1)
    assert np.array_equal(first, draw_batch(pop, alloc, np.zeros(0, np.int64), seed=3, batch=1))
    assert not np.array_equal(first, draw_batch(pop, alloc, np.zeros(0, np.int64), 3, 2))
    assert not np.array_equal(first, draw_batch(pop, alloc, np.zeros(0, np.int64), 4, 1))


def test_draw_batch_takes_the_allocation_per_stratum_and_never_redraws():
    pop = population([40, 30, 5])
    drawn = np.r_[0:10, 40:45, 70:74]  # stratum 2 has one pair left
    out = draw_batch(pop, np.array([6, 4, 3]), drawn, seed=0, batch=2)
    assert np.unique(out).size == out.size
    assert not np.isin(out, drawn).any()
    assert np.bincount(pop.stratum[out], minlength=3).tolist() == [6, 4, 1]
    assert out[pop.stratum[out] == 2].tolist() == [74]


@pytest.mark.parametrize("seed", range(4))
def test_draw_batch_draws_what_a_draw_from_the_whole_id_order_draws(seed):
    # The draw reads places of each stratum's id order (Population.at_id_ranks); it must
    # take the pairs rng.choice takes from the stratum ordered whole (Population.by_ids).
    rng = np.random.default_rng(seed)
    n = 40
    names = [f"z{k:03d}" for k in rng.permutation(n)]
    i, j = np.triu_indices(n, k=1)
    pop = build_population(PairScores(i, j, rng.uniform(0.05, 1, len(i))), None, np.zeros(n),
                           names, 0.05)
    sizes = pop.strata["size"].to_numpy()
    alloc = np.minimum(rng.integers(0, 30, len(sizes)), sizes + 3)  # some above what is left
    drawn = rng.choice(len(pop), size=len(pop) // 5, replace=False)
    taken = np.zeros(len(pop), bool)
    taken[drawn] = True
    old = np.random.default_rng([seed, 2])
    chosen = []
    for h, count in enumerate(alloc.tolist()):
        if count <= 0:
            continue
        pool = pop.by_ids(np.flatnonzero((pop.stratum == h) & ~taken).astype(np.int32))
        chosen.append(old.choice(pool, size=min(count, pool.size), replace=False))
    expected = old.permutation(np.concatenate(chosen).astype(np.int64))
    assert draw_batch(pop, alloc, drawn, seed=seed, batch=2).tolist() == expected.tolist()


def test_draw_batch_with_nothing_allocated_is_empty():
    pop = population([4, 4])
    assert draw_batch(pop, np.array([0, 0]), np.zeros(0, np.int64), 0, 1).size == 0


def test_draw_batch_does_not_depend_on_the_order_of_the_records():
    rng = np.random.default_rng(8)
    n = 30
    ids = [f"item{k:02d}" for k in range(n)]
    triples = [(a, b, float(rng.uniform(0.05, 1))) for a, b in itertools.combinations(range(n), 2)
               if rng.random() < 0.4]
    perm = rng.permutation(n)  # record k of the shuffled file is record perm[k]
    where = np.empty(n, np.int64)
    where[perm] = np.arange(n)

    def pop_of(rows, order):
        i, j, s = zip(*rows, strict=True)
        return build_population(PairScores(np.array(i), np.array(j), np.array(s)), None,
                                np.zeros(n), order, 0.05)

    pop = pop_of(triples, ids)
    moved = [(min(where[a], where[b]), max(where[a], where[b]), s) for a, b, s in triples]
    shuffled = pop_of(sorted(moved), [ids[p] for p in perm])
    assert shuffled.fingerprint() == pop.fingerprint()
    alloc = first_allocation(pop.strata["size"].to_numpy(), 25)

    def named(p, positions):
        return [frozenset((p.ids[p.i[k]], p.ids[p.j[k]])) for k in positions]

    a = named(pop, draw_batch(pop, alloc, np.zeros(0, np.int64), seed=5, batch=1))
    b = named(shuffled, draw_batch(shuffled, alloc, np.zeros(0, np.int64), seed=5, batch=1))
    assert a == b and len(a) == 25


def test_every_pair_of_a_stratum_is_drawn_with_probability_n_over_N():
    # Over 3000 seeds; the standard error of a frequency near 0.3 is 0.0084, the stated
    # tolerance 0.04 (about 4.5 standard errors, for 15 pairs).
    pop = population([10, 4, 1])
    alloc = np.array([3, 2, 1])
    seeds = 3000
    counts = np.zeros(len(pop))
    joint = np.zeros((10, 10))
    for seed in range(seeds):
        out = draw_batch(pop, alloc, np.zeros(0, np.int64), seed=seed, batch=1)
        counts[out] += 1
        first = np.sort(out[pop.stratum[out] == 0])
        for a, b in itertools.combinations(first, 2):
            joint[a, b] += 1
    expected = np.r_[np.full(10, 3 / 10), np.full(4, 2 / 4), [1.0]]
    assert np.max(np.abs(counts / seeds - expected)) < 0.04
    # A simple random sample: every two pairs together with n(n-1) / (N(N-1)) = 1/15
    # (standard error 0.0046; tolerance 0.02 for 45 pairs).
    together = joint[np.triu_indices(10, 1)] / seeds
    assert np.max(np.abs(together - 3 * 2 / (10 * 9))) < 0.02


def test_two_batches_draw_each_pair_with_probability_total_n_over_N():
    pop = population([10, 4])
    seeds = 2000
    counts = np.zeros(len(pop))
    for seed in range(seeds):
        one = draw_batch(pop, np.array([2, 1]), np.zeros(0, np.int64), seed=seed, batch=1)
        two = draw_batch(pop, np.array([2, 2]), one, seed=seed, batch=2)
        assert not np.isin(two, one).any()
        counts[np.r_[one, two]] += 1
    # Standard errors 0.011 (0.4) and 0.0084 (0.75 of 4); tolerance 0.05.
    expected = np.r_[np.full(10, 4 / 10), np.full(4, 3 / 4)]
    assert np.max(np.abs(counts / seeds - expected)) < 0.05


# --- inclusion -------------------------------------------------------------------------------

def test_inclusion_is_drawn_over_size_per_stratum():
    pop = population([10, 4, 6])
    drawn = np.array([0, 1, 2, 10, 15, 16, 17])
    assert inclusion(pop, drawn).tolist() == pytest.approx(
        [3 / 10, 3 / 10, 3 / 10, 1 / 4, 3 / 6, 3 / 6, 3 / 6], abs=1e-15)
    assert drawn_per_stratum(pop, drawn).tolist() == [3, 1, 3]


def test_inclusion_leaves_excluded_pairs_out_of_the_stratum_sizes():
    pop = population([10, 4, 6])
    drawn = np.array([5, 11, 19])
    excluded = np.array([0, 1, 2, 3, 10, 14])  # 4 of stratum 0, 1 of 1, 1 of 2
    assert inclusion(pop, drawn, excluded).tolist() == pytest.approx(
        [1 / (10 - 4), 1 / (4 - 1), 1 / (6 - 1)], abs=1e-15)
    assert inclusion(pop, drawn, np.zeros(0, np.int64)).tolist() == pytest.approx(
        [1 / 10, 1 / 4, 1 / 6], abs=1e-15)

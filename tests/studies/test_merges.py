"""The decoy estimate of a dedupe's merges: counts by brute force, and coverage of a known truth."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from newsdedup.cluster.dedupe import DedupeConfig
from newsdedup.paths import CorpusNotFound
from newsdedup.studies.decoys import date_decoys, field_decoys, pair_decoys
from newsdedup.studies.merges import (
    Compared,
    compared_decoys,
    merge_curve,
    merge_estimate,
    rows_of_pairs,
)


def _spaces(rng: np.random.Generator, n: int):
    times = rng.uniform(0, 30 * 86400, n)
    times[rng.random(n) < 0.1] = np.nan
    values = rng.choice(["a", "b", "c", ""], n).tolist()
    i, j = rng.integers(0, n, 40), rng.integers(0, n, 40)
    return [field_decoys(values), date_decoys(times, 7), pair_decoys(n, i, j)]


@pytest.mark.parametrize("seed", range(5))
def test_compared_decoys_equal_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = 60
    blocks = rng.integers(0, 6, n)
    for space in _spaces(rng, n):
        want = sum(bool(space.is_decoy(np.array([i]), np.array([j]))[0])
                   for i, j in itertools.combinations(range(n), 2) if blocks[i] == blocks[j])
        assert compared_decoys(space, blocks) == want, space.kind


def test_rows_of_pairs_expand_exact_groups():
    exact = np.array([0, 1, 0, 2, 1])
    i, j = rows_of_pairs(exact, np.array([0, 1]), np.array([1, 2]))
    got = sorted(zip(i.tolist(), j.tolist(), strict=True))
    assert got == [(0, 1), (0, 4), (1, 3), (2, 1), (2, 4), (4, 3)]


def test_merge_estimate_scales_the_compared_decoy_rate():
    space = field_decoys(list("aabbab"))
    compared = Compared(pairs=10, decoys=4, lam=0.1, above=4, above_decoys=1)
    labels = np.array([0, 0, 1, 1, 1, 2])  # merged: (0,1) target; (2,3),(2,4),(3,4): 2 decoys
    est = merge_estimate(labels, space, compared, resamples=0)
    pi0 = compared.null_share()
    assert est["merged_pairs"] == 4 and est["decoys"] == 2
    assert est["false"].value == pytest.approx(2 + 2 * (6 / 4) * pi0)
    assert est["false"].high >= 2 + 2 * (6 / 4)  # the conventional reading, pi0 = 1
    p = est["precision"]
    assert 0.0 <= p.low <= p.value <= p.high <= 1.0


# -- a known truth: a real pool, planted rewrites and planted unrelated pairs ---------------


def _planted(pool: list[str], seed: int, n_base: int = 500, n_rewrites: int = 200,
             n_unrelated: int = 150, days: float = 60.0):
    """Real headlines, rewrites of them (same event, within a day) and unrelated look-alikes.

    A look-alike keeps a headline's subject (its first word, so the gate
    compares it with its source) and a share of its words, but is another
    event published on an independent day: the false merges a gate cannot stop.
    """
    rng = np.random.default_rng(seed)
    base = [pool[k] for k in rng.choice(len(pool), n_base, replace=False)]
    words = " ".join(base).split()

    def rewrite(ws: list[str], keep: float) -> list[str]:
        return [w if rng.random() < keep else words[rng.integers(len(words))] for w in ws]

    texts, event, day = list(base), list(range(n_base)), list(rng.uniform(0, days, n_base))
    for s in rng.integers(0, n_base, n_rewrites):
        texts.append(" ".join(rewrite(base[s].split(), float(rng.choice([0.9, 0.8, 0.7, 0.6])))))
        event.append(int(s))
        day.append(day[s] + rng.uniform(-0.5, 0.5))
    for k, s in enumerate(rng.integers(0, n_base, n_unrelated)):
        ws = base[s].split()
        texts.append(" ".join(ws[:1] + rewrite(ws[1:], float(rng.choice([0.6, 0.5, 0.4, 0.3])))))
        event.append(n_base + k)
        day.append(rng.uniform(0, days))
    items = pd.DataFrame({"id": [f"x{k}" for k in range(len(texts))], "title": texts})
    return items, np.asarray(event), np.asarray(day)


SEEDS = 30
GRID = [0.2, 0.3, 0.4]


@pytest.mark.parametrize("kind", ["days", "field"])
def test_merge_interval_covers_the_true_precision_in_90_percent_of_seeds(kind):
    """30 seeds x 3 thresholds; decoys by a 7-day gap, or by a section drawn per event."""
    from newsdedup.studies.synthetic import headline_pool

    try:
        pool = [t for t in headline_pool("ko") if len(t.split()) >= 5]
    except CorpusNotFound:
        pytest.skip("shared corpora not available")
    covered, errors, cases = 0, [], 0
    for seed in range(SEEDS):
        items, event, day = _planted(pool, seed)
        rng = np.random.default_rng(seed + 1000)
        space = (date_decoys(day * 86400.0, 7) if kind == "days" else
                 field_decoys(rng.choice(list("abcd"), event.max() + 1)[event].tolist()))
        curve, parts = merge_curve(items, DedupeConfig(n=3, scorer="jaccard"), space, GRID,
                                   resamples=200, seed=seed)
        for row in curve.itertuples():
            lab = parts[row.threshold]
            same = lab[:, None] == lab[None, :]
            i, j = np.nonzero(np.triu(same, 1))
            truth = float(np.mean(event[i] == event[j]))
            cases += 1
            covered += bool(row.precision_low <= truth <= row.precision_high)
            errors.append(abs(row.precision - truth))
    assert covered >= 0.9 * cases, f"covered {covered} of {cases}"
    assert float(np.median(errors)) <= 0.05  # and the point is informative

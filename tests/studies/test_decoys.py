"""Tests of target-decoy estimation: brute-force counts, invariants, a synthetic truth."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.paths import CorpusNotFound
from newsdedup.score.jaccard import PairScores
from newsdedup.score.join import threshold_join
from newsdedup.studies.decoys import (
    NoDecoys,
    clopper_pearson,
    date_decoys,
    decoy_curve,
    decoy_space,
    estimate_false,
    field_decoys,
    pair_decoys,
    recommend,
)
from newsdedup.studies.merges import merge_precision
from newsdedup.text.shingle import shingle_matrix


def _brute_eligible(space, n):
    i, j = zip(*itertools.combinations(range(n), 2), strict=True) if n > 1 else ((), ())
    return int(space.is_decoy(np.array(i, dtype=np.int64), np.array(j, dtype=np.int64)).sum())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "", None]), min_size=0, max_size=30))
def test_field_eligible_pairs_equal_brute_force(values):
    space = field_decoys(values)
    brute = sum(1 for x, y in itertools.combinations(values, 2)
                if x not in ("", None) and y not in ("", None) and x != y)
    assert space.eligible_pairs() == brute == _brute_eligible(space, len(values))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.floats(0, 30 * 86400.0), st.just(float("nan"))), max_size=30),
       st.floats(0.5, 10))
def test_date_eligible_pairs_equal_brute_force(times, days):
    space = date_decoys(times, days)
    brute = sum(1 for x, y in itertools.combinations(times, 2) if abs(x - y) >= days * 86400)
    assert space.eligible_pairs() == brute == _brute_eligible(space, len(times))


def test_pair_decoys_ignore_order_repeats_and_self_pairs():
    space = pair_decoys(5, [0, 2, 1, 3], [1, 0, 0, 3])
    assert space.eligible_pairs() == 2
    assert space.is_decoy(np.array([1, 0, 0, 2]), np.array([0, 2, 3, 2])).tolist() == [
        True, True, False, False]
    with pytest.raises(ValueError, match="out of range"):
        pair_decoys(2, [0], [2])


def test_clopper_pearson_matches_known_values():
    # Reference values: R binom.test(3, 20)$conf.int.
    lo, hi = clopper_pearson(3, 20)
    assert lo == pytest.approx(0.03207094, abs=1e-7)
    assert hi == pytest.approx(0.37892683, abs=1e-7)
    assert clopper_pearson(5, 5)[1] == 1.0


def test_pooled_estimate_is_decoy_rate_times_all_pairs():
    # 4 values a,a,b,b: eligible 4 of 6 pairs; pairs >= t: (0,1) same value, (0,2) decoy.
    space = field_decoys(["a", "a", "b", "b"])
    est = estimate_false(space, np.array([0, 0]), np.array([1, 2]), method="pooled")
    assert est["decoys"] == 1
    assert est["pooled"].value == pytest.approx(1 * 6 / 4)
    assert est["pooled"].low <= est["pooled"].value <= est["pooled"].high


def test_nearest_borrows_the_closest_value_rate():
    # Values x (3 items), y (3), z (3). Decoys: 2 of the 9 x-y pairs, none with z.
    space = field_decoys(list("xxxyyyzzz"))
    i, j = np.array([0, 1]), np.array([3, 4])
    est = estimate_false(space, i, j, method="nearest")
    # x and y borrow 2/9 for their 3 within pairs each; z borrows 0 (its best is 0/9).
    assert est["nearest"].value == pytest.approx(2 + 2 * 3 * 2 / 9)
    assert est["method"] == "nearest"
    assert estimate_false(space, i, j)["method"] == "nearest"  # auto with 3 values


def test_merge_precision_counts_within_cluster_pairs_by_brute_force():
    rng = np.random.default_rng(3)
    values = rng.choice(["a", "b", "c"], 40).tolist()
    labels = rng.integers(0, 8, 40)
    space = field_decoys(values)
    got = merge_precision(labels, space, resamples=50)
    pairs = [(i, j) for i, j in itertools.combinations(range(40), 2) if labels[i] == labels[j]]
    assert got["merged_pairs"] == len(pairs)
    assert got["decoys"] == sum(values[i] != values[j] for i, j in pairs)
    p = got["precision"]
    assert 0.0 <= p.low <= p.value <= p.high <= 1.0


def test_decoy_space_says_why_no_rule_applies():
    items = pd.DataFrame({"title": ["a", "b"], "published_at": ["1394470370698",
                                                                "1394470371207"]})
    with pytest.raises(NoDecoys, match="dates span 0.0 days"):
        decoy_space(items)
    with pytest.raises(NoDecoys, match="no decoy pair"):
        decoy_space(items.assign(cat=["x", "x"]), decoy_field="cat")
    assert decoy_space(items.assign(cat=["x", "y"]), decoy_field="cat").kind == "field"


def test_curve_and_recommendation():
    space = field_decoys(list("aabb"))
    scores = PairScores(np.array([0, 0, 2]), np.array([1, 2, 3]), np.array([0.9, 0.5, 0.8]))
    curve = decoy_curve(scores, space, [0.4, 0.7], method="pooled")
    assert curve["observed"].tolist() == [3, 2]
    assert curve["decoys"].tolist() == [1, 0]
    assert curve["precision"].tolist() == pytest.approx([1 - 1.5 / 3, 1.0])
    rec = recommend(curve, 0.95)
    assert rec["threshold"] == 0.7 and rec["conservative_threshold"] is None
    assert recommend(curve, 1.01)["reason"]


# -- synthetic truth -------------------------------------------------------------------


def _rewrite(words, pool_words, rng, keep=0.8):
    out = [w if rng.random() < keep else pool_words[rng.integers(len(pool_words))]
           for w in words]
    return " ".join(out)


def _synthetic(pool, seed, n_base=600, n_rewrites=150):
    """Real unrelated headlines, planted rewrites; the decoy field is random per event."""
    rng = np.random.default_rng(seed)
    base = [pool[k] for k in rng.choice(len(pool), n_base, replace=False)]
    words = " ".join(base).split()
    src = rng.integers(0, n_base, n_rewrites)
    texts = base + [_rewrite(base[s].split(), words, rng) for s in src]
    event = np.concatenate([np.arange(n_base), src])
    field = rng.choice(list("abcd"), n_base)[event]  # one value per event
    return texts, event, field


def test_synthetic_interval_covers_true_precision_in_90_percent_of_seeds():
    from newsdedup.studies.synthetic import headline_pool

    try:
        pool = [t for t in headline_pool("ko") if len(t.split()) >= 4]
    except CorpusNotFound:
        pytest.skip("shared corpora not available")
    covered, seeds = 0, 50
    for seed in range(seeds):
        texts, event, field = _synthetic(pool, seed)
        sm = shingle_matrix([t.replace(" ", "") for t in texts], 3)
        pairs = threshold_join(sm, 0.2).pairs
        space = field_decoys(field.tolist())
        row = decoy_curve(pairs, space, [0.2]).iloc[0]
        truth = float(np.mean(event[pairs.i] == event[pairs.j]))
        covered += row["precision_low"] <= truth <= row["precision_high"]
    assert covered >= 0.9 * seeds


@pytest.mark.parametrize("kind", ["field", "days"])
def test_cluster_bootstrap_equals_repeating_the_drawn_pairs(kind):
    from newsdedup.studies import merges

    rng = np.random.default_rng(11)
    n = 200
    space = (field_decoys(rng.choice(list("abcde"), n).tolist()) if kind == "field"
             else date_decoys(rng.uniform(0, 40 * 86400, n), 7))
    lab = rng.integers(0, 40, n)
    i, j = merges._within_pairs(lab)  # test of the module's own helper
    method = estimate_false(space, i, j)["method"]
    got = merges._cluster_bootstrap(space, lab, i, j, method, 25, 3)
    groups = np.unique(lab[i])
    g = np.searchsorted(groups, lab[i])
    draws = np.random.default_rng(3).multinomial(len(groups), np.full(len(groups),
                                                 1 / len(groups)), size=25)
    want = []
    for w in draws:
        k = w[g] > 0
        want.append(estimate_false(space, np.repeat(i[k], w[g][k]), np.repeat(j[k], w[g][k]),
                                   method)["false"].value)
    assert np.allclose(got, want)

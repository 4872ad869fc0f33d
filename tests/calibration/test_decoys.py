"""Matched decoys and their check (newsdedup.calibration.decoys)."""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.stats import beta

from newsdedup.calibration.decoys import (
    LIKENESS,
    MIN_DECOYS,
    DecoyRule,
    check_decoys,
    decoy_estimates,
    worst_false_pairs,
)
from newsdedup.calibration.population import Population, build_population
from newsdedup.score.jaccard import PairScores

DAY = 86400.0
START = pd.Timestamp("2024-05-01T00:00:00Z")


def corpus(rng, n):
    hours = rng.uniform(0, 240, n)
    published = [(START + pd.Timedelta(hours=h)).strftime("%Y-%m-%dT%H:%M:%SZ")
                 if rng.random() > 0.1 else "" for h in hours]
    return pd.DataFrame({"id": [f"d{k}" for k in range(n)],
                         "title": [f"t{k}" for k in range(n)], "summary": "",
                         "source": rng.choice(["a", "b"], n), "published_at": published,
                         "section": rng.choice(["sports", "money"], n),
                         "bucket": rng.integers(0, 3, n)})


def seconds(frame):
    return np.array([pd.Timestamp(p).timestamp() if p else np.nan
                     for p in frame["published_at"]], dtype=np.float64)


def clopper_pearson(k, n, confidence=0.95):
    a = (1 - confidence) / 2
    low = beta.ppf(a, k, n - k + 1) if k > 0 else 0.0
    high = beta.ppf(1 - a, k + 1, n - k) if k < n else 1.0
    return low, high


def setting(seed, n=40, floor=0.05):
    """A corpus, its population (random pairs above the floor), series flags and codes."""
    rng = np.random.default_rng(seed)
    items = corpus(rng, n)
    all_pairs = list(itertools.combinations(range(n), 2))
    score = rng.uniform(0, 1, len(all_pairs)) ** 2
    keep = score >= floor
    i, j = (np.array(x, np.int64) for x in zip(*all_pairs, strict=True))
    ps = PairScores(i[keep], j[keep], score[keep])
    times = seconds(items)
    pop = build_population(ps, items["source"], times, items["id"], floor)
    series = rng.random(len(pop)) < 0.1
    field = pd.factorize(items["section"])[0].astype(np.int64)
    return items, pop, series, field, times, all_pairs


def brute(items, pop, series, field, times, all_pairs, gap_days, window, listed_pairs=()):
    """Decoys and compared pairs counted pair by pair (all item pairs, any score).

    The union of the date decoys (one bucket and field, any sources) and the listed
    pairs; series pairs are left out of the population's decoys (the callers give no
    series pair among the date decoys of the corpus outside the population, see the
    tests below). Returns the population's decoy flags, and the decoys and compared
    pairs of the corpus counted per relation: ``[one source, two sources]``.
    """
    bucket, source = items["bucket"].to_numpy(), items["source"].to_numpy()

    def matched(a, b):
        return bucket[a] == bucket[b] and field[a] == field[b]

    def apart(a, b, days):
        return bool(np.isfinite(times[a]) and np.isfinite(times[b])
                    and abs(times[a] - times[b]) > days * DAY)

    def relation(a, b):
        return 0 if source[a] == source[b] else 1

    in_pop = {(int(a), int(b)): k for k, (a, b) in enumerate(zip(pop.i, pop.j, strict=True))}
    date_decoys = {(a, b) for a, b in all_pairs if matched(a, b) and apart(a, b, gap_days)
                   and not (series[in_pop[(a, b)]] if (a, b) in in_pop else False)}
    decoys = date_decoys | set(listed_pairs)
    is_decoy = np.zeros(len(pop), bool)
    for pair in decoys:
        if pair in in_pop:
            is_decoy[in_pop[pair]] = True
    decoys_by = [sum(1 for p in decoys if relation(*p) == k) for k in (0, 1)]
    compared_by = [sum(1 for a, b in all_pairs  # the dedupe compares pairs < window apart
                       if bucket[a] == bucket[b] and relation(a, b) == k
                       and not (np.isfinite(times[a]) and np.isfinite(times[b])
                                and abs(times[a] - times[b]) >= window * DAY))
                   for k in (0, 1)]
    return is_decoy, decoys_by, compared_by


@pytest.mark.parametrize("seed", range(6))
def test_decoy_estimates_match_a_pair_by_pair_count(seed):
    items, pop, series, field, times, all_pairs = setting(seed)
    window, gap_days = 2.0, 2.0
    series[:] = False  # series pairs: test_series_pairs_are_left_out_of_the_decoys_above
    # Listed pairs: some in the population, some below the floor (none a date decoy there).
    in_pop = {(int(a), int(b)) for a, b in zip(pop.i, pop.j, strict=True)}
    listed_pairs = ([(int(pop.i[k]), int(pop.j[k])) for k in (0, 7, 20)]
                    + [p for p in all_pairs if p not in in_pop
                       and items["bucket"][p[0]] != items["bucket"][p[1]]][:2]
                    ) if seed % 2 else []
    n = len(pop.ids)
    listed = np.sort(np.array([a * n + b for a, b in listed_pairs], np.int64))
    rule = DecoyRule(gap_days, field, listed, "matched")
    bucket = items["bucket"].to_numpy()
    gap = np.abs(times[pop.i] - times[pop.j])
    compared = (bucket[pop.i] == bucket[pop.j]) & ~(gap >= window * DAY) & ~series
    merged_pairs = {0.2: 40, 0.5: 12, 0.9: 3}
    est = decoy_estimates(pop, compared, series, bucket, items["source"].tolist(), times, rule,
                          merged_pairs, window)
    is_decoy, decoys_by, compared_by = brute(items, pop, series, field, times, all_pairs,
                                             gap_days, window, listed_pairs)
    assert is_decoy.sum() > 0 and min(decoys_by) > 0 and min(compared_by) > 0
    assert est.decoys == sum(decoys_by)
    assert est.compared == sum(compared_by)
    assert est.describe == "matched"
    curve = est.curve.set_index("threshold")
    assert curve.index.tolist() == [0.2, 0.5, 0.9]
    source = items["source"].to_numpy()
    one = source[pop.i] == source[pop.j]
    for t, merged in merged_pairs.items():
        # Each relation's rate bounds its own compared pairs, at 97.5 % each (two in all).
        false = np.zeros(3)
        for k, flags in enumerate((one, ~one)):
            at = int(np.sum(is_decoy & flags & (pop.score >= t)))
            low, high = clopper_pearson(at, decoys_by[k], 0.975)
            false += compared_by[k] * np.array([at / decoys_by[k], low, high])
        row = curve.loc[t]
        assert row["decoys_at"] == int(np.sum(is_decoy & (pop.score >= t)))
        for column, value in zip(("decoy_rate", "decoy_rate_low", "decoy_rate_high"),
                                 false / sum(compared_by), strict=True):
            assert row[column] == pytest.approx(value, abs=1e-6)
        for column, value in zip(("precision", "precision_low"), false[[0, 2]], strict=True):
            assert row[column] == pytest.approx(max(0.0, 1 - value / merged), abs=1e-6)
        assert row["precision_high"] == 1.0  # a lower bound only
    # The check reads the same decoys: recompute its likeness (what each relation's
    # decoys predict for its compared pairs).
    scored = pop.score >= pop.floor
    above = int((is_decoy & scored).sum())
    assert est.check["decoys_above_floor"] == above
    if above >= MIN_DECOYS:
        expected = sum(compared_by[k] * int((is_decoy & scored & flags).sum()) / decoys_by[k]
                       for k, flags in enumerate((one, ~one)))
        likeness = (compared & ~is_decoy & scored).sum() / expected
        assert est.check["likeness"] == pytest.approx(likeness, rel=1e-12)
        assert est.check["passed"] == (1 / LIKENESS <= likeness <= LIKENESS)


@pytest.mark.parametrize("seed", range(3))
def test_pairs_within_reach_the_series_rule_keeps_apart_are_no_compared_pairs(seed):
    # Never merged, as series pairs are no decoys: counted as compared pairs they
    # lowered the compared pairs' share at or above the floor against the decoys'.
    items, pop, series, field, times, all_pairs = setting(seed)
    series[:] = False
    window = 2.0
    bucket = items["bucket"].to_numpy()
    gap = np.abs(times[pop.i] - times[pop.j])
    reach = (bucket[pop.i] == bucket[pop.j]) & ~(gap >= window * DAY)
    held = reach & (np.random.default_rng(seed).random(len(pop)) < 0.3)
    assert held.any()
    rule = DecoyRule(2.0, field, np.zeros(0, np.int64), "r")
    args = (bucket, items["source"].tolist(), times, rule, {0.5: 10}, window)
    every = decoy_estimates(pop, reach, series, *args)
    kept = decoy_estimates(pop, reach & ~held, series, *args)
    _, _, compared_by = brute(items, pop, series, field, times, all_pairs, 2.0, window)
    assert every.compared == sum(compared_by)
    assert kept.compared == sum(compared_by) - int(held.sum())


def test_one_source_alone_is_the_single_rate_of_before():
    # Every item of one outlet: one relation, its rate at 95 % applied to every compared pair.
    items, pop, series, field, times, all_pairs = setting(4)
    items = items.assign(source="x")
    series[:] = False
    rule = DecoyRule(2.0, field, np.zeros(0, np.int64), "r")
    bucket = items["bucket"].to_numpy()
    est = decoy_estimates(pop, np.ones(len(pop), bool), series, bucket,
                          items["source"].tolist(), times, rule, {0.5: 20}, 2.0)
    is_decoy, decoys_by, compared_by = brute(items, pop, series, field, times, all_pairs,
                                             2.0, 2.0)
    assert decoys_by[1] == compared_by[1] == 0
    at = int(np.sum(is_decoy & (pop.score >= 0.5)))
    low, high = clopper_pearson(at, decoys_by[0])
    row = est.curve.iloc[0]
    assert row["decoy_rate_high"] == pytest.approx(high, abs=1e-6)
    assert row["precision_low"] == pytest.approx(max(0.0, 1 - high * compared_by[0] / 20),
                                                 abs=1e-6)


def test_wrong_joins_into_larger_groups_bound_the_wrong_pairs_they_make():
    # Groups built by joins to a representative: every way of making F joins wrong (each
    # wrong member of an event of its own) makes at most worst_false_pairs(F, sizes)
    # pairs of two events, and the worst way reaches it.
    sizes = [4, 3, 2, 2]
    links = [(g, m) for g, s in enumerate(sizes) for m in range(1, s)]
    for false_links in range(len(links) + 1):
        most = 0
        for wrong in itertools.combinations(links, false_links):
            pairs = 0
            for g, s in enumerate(sizes):
                event = [0] + [1 + m if (g, m) in wrong else 0 for m in range(1, s)]
                pairs += sum(1 for a, b in itertools.combinations(event, 2) if a != b)
            most = max(most, pairs)
        assert worst_false_pairs(false_links, np.array(sizes)) == most


def test_series_pairs_are_left_out_of_the_decoys_above():
    items, pop, series, field, times, all_pairs = setting(2)
    rule = DecoyRule(2.0, field, np.zeros(0, np.int64), "r")
    bucket = items["bucket"].to_numpy()
    none = np.zeros(len(pop), bool)

    def at(flags):
        est = decoy_estimates(pop, ~none, flags, bucket, items["source"].tolist(), times, rule,
                              {0.1: 5, 0.4: 5}, 2.0)
        return est.curve["decoys_at"].to_numpy()

    is_decoy = brute(items, pop, none, field, times, all_pairs, 2.0, 2.0)[0]
    flagged = is_decoy & series
    assert flagged.any()
    expected = [int(np.sum(flagged & (pop.score >= t))) for t in (0.1, 0.4)]
    assert (at(none) - at(series)).tolist() == expected


def test_decoys_need_same_bucket_same_field_and_a_gap_beyond_the_window():
    items = pd.DataFrame({"id": list("abcdefg"), "source": list("xxxxxxy"),
                          "bucket": [0, 0, 0, 1, 0, 0, 0], "field": [0, 0, 0, 0, 1, 0, 0],
                          "day": [0.0, 3.0, 1.5, 3.0, 3.0, 2.0, 3.0]})
    times = items["day"].to_numpy() * DAY
    # Every pair with row 0, all above the floor.
    ps = PairScores(np.zeros(6, np.int64), np.arange(1, 7), np.full(6, 0.5))
    pop = build_population(ps, items["source"], times, items["id"], 0.1)
    rule = DecoyRule(2.0, items["field"].to_numpy(), np.zeros(0, np.int64), "r")
    series = np.array([False, False, False, False, True, False])
    est = decoy_estimates(pop, np.zeros(6, bool), series, items["bucket"].to_numpy(),
                          items["source"].tolist(), times, rule, {0.3: 1}, None)
    # (0,1): a decoy. (0,2): 1.5 days. (0,3): another bucket. (0,4): another field.
    # (0,5): in one series (and exactly 2.0 days: not beyond). (0,6): another source, a
    # decoy of two sources (for the compared pairs of two sources).
    assert est.curve["decoys_at"].tolist() == [2]


def test_without_a_gap_rule_only_listed_pairs_are_decoys():
    items, pop, series, field, times, all_pairs = setting(1)
    n = len(pop.ids)
    listed_pairs = [(int(pop.i[k]), int(pop.j[k])) for k in (0, 5, 9)]
    below = next(p for p in all_pairs if pop.find(np.array([p[0]]), np.array([p[1]]))[0] < 0)
    listed_pairs.append(below)  # a listed pair scoring below the floor counts in all
    listed = np.sort(np.array([a * n + b for a, b in listed_pairs], np.int64))
    rule = DecoyRule(None, None, listed, "listed")
    est = decoy_estimates(pop, np.ones(len(pop), bool), series, items["bucket"].to_numpy(),
                          None, times, rule, {0.0: 10}, None)
    assert est.decoys == 4
    assert est.curve["decoys_at"].tolist() == [3]
    bucket = items["bucket"].to_numpy()
    assert est.compared == sum(1 for a, b in all_pairs if bucket[a] == bucket[b])


# --- check_decoys --------------------------------------------------------------------------

def check_population(decoys_above, compared_above, below=10, floor=0.1):
    """A population: decoys, compared pairs above the floor, and pairs below it."""
    score = np.r_[np.full(decoys_above, 0.5), np.full(compared_above, 0.5),
                  np.full(below, floor / 2)]
    n = score.size
    strata = pd.DataFrame({"stratum": [0], "size": [n]})
    pop = Population(np.arange(n), np.arange(n) + n, score, np.ones(n, bool), np.zeros(n),
                     np.zeros(n, np.int64), strata, [str(k) for k in range(2 * n)], floor)
    is_decoy = np.r_[np.ones(decoys_above, bool), np.zeros(compared_above, bool),
                     np.ones(below, bool)]  # decoys below the floor do not count
    compared = np.r_[np.zeros(decoys_above, bool), np.ones(compared_above, bool),
                     np.zeros(below, bool)]
    return pop, is_decoy, compared


@pytest.mark.parametrize(("compared_above", "passed", "likeness", "words"), [
    (20, True, 2.0, "within 2x either way"),  # 0.2 against 0.1: at the bound
    (21, False, 2.1, "understate the false merges"),
    (5, True, 0.5, "look like the unrelated pairs"),
    (4, False, 0.4, "not like the pairs the dedupe compares"),
    (10, True, 1.0, "1.00 times as often"),
])
def test_check_passes_within_a_factor_two_either_way(compared_above, passed, likeness, words):
    # 30 decoys above the floor of 300 decoys: a rate of 0.1; compared pairs of 100.
    pop, is_decoy, compared = check_population(30, compared_above)
    check = check_decoys(pop, is_decoy, compared, np.array([300, 0]), np.array([100, 0]))
    assert check["passed"] is passed
    assert check["likeness"] == pytest.approx(likeness, abs=1e-12)
    assert check["decoys_above_floor"] == 30
    assert words in check["reason"]


def test_check_needs_min_decoys_above_the_floor():
    assert MIN_DECOYS == 30 and LIKENESS == 2.0
    pop, is_decoy, compared = check_population(MIN_DECOYS - 1, 10, below=50)
    check = check_decoys(pop, is_decoy, compared, np.array([290, 0]), np.array([100, 0]))
    assert check == {"passed": False, "likeness": None, "decoys_above_floor": MIN_DECOYS - 1,
                     "reason": f"too few decoys: {MIN_DECOYS - 1} score at or above the floor "
                               f"(0.1), fewer than {MIN_DECOYS}"}
    pop, is_decoy, compared = check_population(MIN_DECOYS, 10, below=50)
    check = check_decoys(pop, is_decoy, compared, np.array([300, 0]), np.array([100, 0]))
    assert check["likeness"] is not None


def test_check_fails_without_decoys_or_compared_pairs_in_all():
    pop, is_decoy, compared = check_population(40, 10)
    assert check_decoys(pop, is_decoy, compared, np.array([0, 0]),
                        np.array([100, 0]))["passed"] is False
    assert check_decoys(pop, is_decoy, compared, np.array([400, 0]),
                        np.array([0, 0]))["passed"] is False
    # Compared pairs of two sources without a decoy of two sources: no rate bounds them.
    check = check_decoys(pop, is_decoy, compared, np.array([400, 0]), np.array([100, 50]))
    assert check["passed"] is False and "no decoy of two sources" in check["reason"]


def test_check_fails_when_no_compared_pair_scores_above_the_floor():
    pop, is_decoy, compared = check_population(40, 0)
    check = check_decoys(pop, is_decoy, compared, np.array([400, 0]), np.array([100, 0]))
    assert check["passed"] is False and check["likeness"] == 0.0


# --- fixed defects -------------------------------------------------------------------------

def series_column():
    """A daily column of one outlet (one bucket): every decoy candidate is a series pair."""
    n = 6
    items = pd.DataFrame({"id": [f"s{k}" for k in range(n)], "source": ["x"] * n,
                          "bucket": [0] * n})
    times = np.arange(n) * 3 * DAY
    i, j = (np.array(x, np.int64) for x in zip(*itertools.combinations(range(n), 2),
                                               strict=True))
    pop = build_population(PairScores(i, j, np.full(i.size, 0.9)), items["source"], times,
                           items["id"], 0.1)
    return items, times, pop


def test_series_pairs_are_not_counted_among_all_decoys():
    items, times, pop = series_column()
    rule = DecoyRule(2.0, None, np.zeros(0, np.int64), "r")
    est = decoy_estimates(pop, np.zeros(len(pop), bool), np.ones(len(pop), bool),
                          items["bucket"].to_numpy(), items["source"].tolist(), times, rule,
                          {0.5: 1}, 2.0)
    assert est.curve["decoys_at"].tolist() == [0]
    assert est.decoys == 0


def test_a_listed_pair_that_is_also_a_date_decoy_counts_once():
    items = pd.DataFrame({"id": ["a", "b", "c"], "source": ["x"] * 3, "bucket": [0] * 3})
    times = np.array([0.0, 10.0, 0.5]) * DAY
    # Only (0, 2) is above the floor; (0, 1) is 10 days apart, below the floor, and listed.
    pop = build_population(PairScores(np.array([0]), np.array([2]), np.array([0.4])),
                           items["source"], times, items["id"], 0.1)
    rule = DecoyRule(2.0, None, np.array([0 * 3 + 1]), "r")
    est = decoy_estimates(pop, np.ones(1, bool), np.zeros(1, bool), items["bucket"].to_numpy(),
                          items["source"].tolist(), times, rule, {0.5: 1}, 2.0)
    # Decoy pairs of the corpus: (0, 1) and (1, 2), 10 and 9.5 days apart.
    assert est.decoys == 2


def test_a_pair_exactly_the_window_apart_is_not_compared():
    items = pd.DataFrame({"id": ["a", "b"], "source": ["x", "x"], "bucket": [0, 0]})
    times = np.array([0.0, 2.0]) * DAY
    pop = build_population(PairScores(np.array([0]), np.array([1]), np.array([0.4])),
                           items["source"], times, items["id"], 0.1)
    rule = DecoyRule(2.0, None, np.zeros(0, np.int64), "r")
    est = decoy_estimates(pop, np.zeros(1, bool), np.zeros(1, bool), items["bucket"].to_numpy(),
                          items["source"].tolist(), times, rule, {0.5: 1}, 2.0)
    assert est.compared == 0

"""The date window learned from high-scoring pairs (newsdedup.cluster.window)."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from newsdedup.cluster.rules import PairRules
from newsdedup.cluster.window import (
    MIN_HIGH_PAIRS,
    WINDOW_GRID_DAYS,
    WindowChoice,
    learn_window,
    null_gaps,
)
from newsdedup.text.series import SeriesConfig

DAY = 86400.0
HOUR = 3600.0
ORIGIN = pd.Timestamp("2024-03-01T00:00:00Z")


def items_at(days):
    """A corpus with one item per publication time (days after ORIGIN; NaN: no date)."""
    published = ["" if not np.isfinite(d) else
                 (ORIGIN + pd.Timedelta(seconds=round(d * DAY))).strftime("%Y-%m-%dT%H:%M:%SZ")
                 for d in days]
    return pd.DataFrame({"id": [f"w{k}" for k in range(len(days))],
                         "title": [f"title {k}" for k in range(len(days))], "summary": "",
                         "source": "a", "published_at": published})


def seconds(items):
    return np.array([pd.Timestamp(p).timestamp() if p else np.nan
                     for p in items["published_at"]], dtype=np.float64)


def planted(seed, n=300, span=60.0, dups=100, background=60, gap_hours=(0.0, 6.0)):
    """Same-event pairs (2k, 2k+1) published ``gap_hours`` apart; background pairs at random."""
    rng = np.random.default_rng(seed)
    days = np.sort(rng.uniform(0, span, n))
    first = np.arange(0, 2 * dups, 2)
    days[first + 1] = days[first] + rng.uniform(*gap_hours, size=dups) / 24.0
    other = rng.integers(0, n, size=(background, 2))
    other = other[other[:, 0] != other[:, 1]]
    i, j = np.r_[first, other[:, 0]], np.r_[first + 1, other[:, 1]]
    score = np.r_[rng.uniform(0.7, 1.0, dups), rng.uniform(0.6, 1.0, len(other))]
    return seconds(items_at(days)), i, j, score


def test_planted_duplicates_within_hours_give_a_one_day_window():
    times, i, j, score = planted(seed=1)
    choice = learn_window(times, i, j, score, high=0.6)
    assert choice.days == 1.0
    assert choice.high_pairs == len(i)
    assert choice.high == 0.6
    assert choice.reason.startswith("window 1 days")
    known = times / DAY
    assert choice.span_days == pytest.approx(known.max() - known.min(), abs=1e-9)
    assert choice.excess[1.0] >= 0.95
    assert set(choice.excess) == {float(g) for g in WINDOW_GRID_DAYS}


def test_window_follows_the_gap_of_the_planted_duplicates():
    # Print and web editions a day and a half apart: one day holds almost none of them.
    times, i, j, score = planted(seed=2, gap_hours=(36.0, 44.0))
    choice = learn_window(times, i, j, score, high=0.6)
    assert choice.days == 2.0
    assert choice.excess[1.0] < 0.2


def exact_excess(times, i, j, score, high, far_days=3.0, grid=WINDOW_GRID_DAYS):
    """The excess per grid value with the null taken over every pair of dated items."""
    days = times / DAY
    keep = (score >= high) & (i != j)
    gaps = np.abs(days[i[keep]] - days[j[keep]])
    gaps = gaps[np.isfinite(gaps)]
    known = days[np.isfinite(days)]
    a, b = np.triu_indices(known.size, 1)
    null = np.abs(known[a] - known[b])
    far = max(float(np.median(null)), far_days)
    background = np.sum(gaps > far) / np.mean(null > far)
    total = gaps.size - background
    return {float(g): (np.sum(gaps <= g) - background * np.mean(null <= g)) / total
            for g in grid}


@pytest.mark.parametrize("seed", [3, 4])
def test_excess_matches_a_reimplementation_with_the_exact_null(seed):
    times, i, j, score = planted(seed=seed, background=120)
    choice = learn_window(times, i, j, score, high=0.6)
    expected = exact_excess(times, i, j, score, 0.6)
    # The learner samples 200,000 random pairs for the null: its shares are within about
    # 0.002 of the exact ones; the background count may move by a pair at the median.
    for g, value in expected.items():
        assert choice.excess[g] == pytest.approx(value, abs=0.02), g


def test_learned_window_is_deterministic_under_a_fixed_seed():
    times, i, j, score = planted(seed=5)
    first = learn_window(times, i, j, score, high=0.6, seed=7)
    again = learn_window(times, i, j, score, high=0.6, seed=7)
    assert first == again  # every field, the excess floats included
    other = learn_window(times, i, j, score, high=0.6, seed=8)
    assert other.days == first.days


def test_low_scoring_pairs_and_self_pairs_are_not_read():
    times, i, j, score = planted(seed=6)
    base = learn_window(times, i, j, score, high=0.6)
    rng = np.random.default_rng(0)
    far_i = rng.integers(0, 50, 500)
    far_j = rng.integers(250, 300, 500)
    more_i = np.r_[i, far_i, np.arange(40)]
    more_j = np.r_[j, far_j, np.arange(40)]  # the last 40 pair an item with itself
    more_score = np.r_[score, np.full(500, 0.59), np.ones(40)]
    assert learn_window(times, more_i, more_j, more_score, high=0.6) == base


def test_pairs_with_an_undated_side_are_not_read():
    times, i, j, score = planted(seed=6)
    base = learn_window(times, i, j, score, high=0.6)
    undated = times.copy()
    undated[[0, 2, 4]] = np.nan  # first items of three planted pairs
    choice = learn_window(undated, i, j, score, high=0.6)
    expected = int(np.sum(np.isfinite(undated[i]) & np.isfinite(undated[j])))
    assert choice.high_pairs == expected == base.high_pairs - 3 - int(
        np.sum(np.isin(i[100:], [0, 2, 4]) | np.isin(j[100:], [0, 2, 4])))


def test_no_dates_gives_no_window_and_says_why():
    times = seconds(items_at(np.full(50, np.nan)))
    i, j = np.arange(0, 48, 2), np.arange(1, 49, 2)
    choice = learn_window(times, i, j, np.ones(len(i)), high=0.5)
    assert choice.days is None
    assert choice.high_pairs == 0 and choice.span_days == 0.0 and choice.excess == {}
    assert choice.reason == (f"no date window: 0 pairs scoring >= 0.5 have dates on both "
                             f"sides, fewer than {MIN_HIGH_PAIRS}")


def test_too_few_high_pairs_give_no_window_and_enough_give_one():
    times, i, j, score = planted(seed=8, dups=100, background=0)
    score = np.ones(len(i))
    few = learn_window(times, i[:MIN_HIGH_PAIRS - 1], j[:MIN_HIGH_PAIRS - 1],
                       score[:MIN_HIGH_PAIRS - 1], high=0.5)
    assert few.days is None and few.high_pairs == MIN_HIGH_PAIRS - 1
    assert f"fewer than {MIN_HIGH_PAIRS}" in few.reason
    enough = learn_window(times, i[:MIN_HIGH_PAIRS], j[:MIN_HIGH_PAIRS],
                          score[:MIN_HIGH_PAIRS], high=0.5)
    assert enough.days == 1.0 and enough.high_pairs == MIN_HIGH_PAIRS
    # Scores below `high` do not count towards the minimum.
    low = score.copy()
    low[:MIN_HIGH_PAIRS] = 0.4
    assert learn_window(times, i[:MIN_HIGH_PAIRS], j[:MIN_HIGH_PAIRS],
                        low[:MIN_HIGH_PAIRS], high=0.5).days is None


def test_high_pairs_far_apart_show_no_excess_and_give_no_window():
    rng = np.random.default_rng(9)
    days = np.sort(rng.uniform(0, 60, 200))
    times = seconds(items_at(days))
    # Every high pair lies more than 40 days apart: beyond the null's median (about 18
    # days) and nothing near zero, so the background exceeds the pairs themselves.
    i, j = np.arange(0, 40), np.arange(160, 200)
    assert np.all(np.abs(days[i] - days[j]) > 40)
    choice = learn_window(times, i, j, np.ones(40), high=0.5)
    assert choice.days is None
    assert "spread over time like random pairs" in choice.reason
    assert all(math.isnan(v) for v in choice.excess.values())


def test_no_grid_value_holding_the_share_gives_no_window():
    times, i, j, score = planted(seed=10, gap_hours=(72.0, 96.0))
    choice = learn_window(times, i, j, score, high=0.6, grid=(1.0, 2.0))
    assert choice.days is None
    assert choice.reason.startswith("no date window within 2 days holds 95%")
    assert choice.excess[2.0] < 0.95
    # The default grid reaches 5 days, which holds them.
    assert learn_window(times, i, j, score, high=0.6).days == 5.0


def test_window_longer_than_the_corpus_says_it_excludes_no_pair():
    rng = np.random.default_rng(11)
    days = rng.uniform(0, 0.5, 60)  # twelve hours of items
    i, j = np.arange(0, 60, 2), np.arange(1, 60, 2)
    choice = learn_window(seconds(items_at(days)), i, j, np.ones(30), high=0.5)
    assert choice.days == 1.0
    assert choice.reason.endswith("so it excludes no pair")


def test_record_rounds_and_names_grid_values():
    choice = WindowChoice(2.0, "why", 25, 0.6, {1.0: 0.123456, 2.0: 0.987654, 0.5: 0.1},
                          12.345678)
    assert choice.record() == {"days": 2.0, "reason": "why", "high_pairs": 25,
                               "high_score": 0.6, "span_days": 12.346,
                               "excess_within": {"1": 0.1235, "2": 0.9877, "0.5": 0.1}}


def test_record_of_a_learned_choice_is_json():
    times, i, j, score = planted(seed=12)
    record = learn_window(times, i, j, score, high=0.6).record()
    back = json.loads(json.dumps(record, allow_nan=False))
    assert back["days"] == 1.0 and back["high_pairs"] == len(i)
    assert list(back["excess_within"]) == [f"{g:g}" for g in WINDOW_GRID_DAYS]


def test_null_gaps_follow_the_gaps_of_all_pairs():
    rng = np.random.default_rng(13)
    days = np.r_[rng.uniform(0, 30, 40), np.nan, np.nan]
    null = null_gaps(days, seed=3)
    assert null.size == 200_000 and np.all(np.diff(null) >= 0)
    known = days[np.isfinite(days)]
    a, b = np.triu_indices(known.size, 1)
    exact = np.sort(np.abs(known[a] - known[b]))
    # Kolmogorov distance of the sample from the exact distribution: the 99.9 % critical
    # value for 200,000 draws is 1.95 / sqrt(200000) = 0.0044.
    grid = np.linspace(0, 30, 301)
    sampled = np.searchsorted(null, grid, side="right") / null.size
    truth = np.searchsorted(exact, grid, side="right") / exact.size
    assert np.max(np.abs(sampled - truth)) < 0.0044
    assert null.min() > 0  # no item is paired with itself (all times distinct)
    assert np.array_equal(null, null_gaps(days, seed=3))


def test_null_gaps_need_two_dated_items():
    assert null_gaps(np.array([1.0, np.nan])).size == 0
    assert null_gaps(np.array([0.0, 2.5]), pairs=4).tolist() == [2.5] * 4


def test_learned_window_holds_next_day_duplicates_of_a_date_only_corpus_under_the_rule():
    rng = np.random.default_rng(1)
    days = np.sort(rng.integers(0, 60, 300)).astype(np.float64)  # dates only
    first = np.arange(0, 200, 2)
    days[first + 1] = days[first] + rng.integers(0, 2, first.size)  # same day or next
    other = rng.integers(0, 300, size=(60, 2))
    other = other[other[:, 0] != other[:, 1]]
    i, j = np.r_[first, other[:, 0]], np.r_[first + 1, other[:, 1]]
    times = seconds(items_at(days))
    choice = learn_window(times, i, j, np.ones(len(i)), high=0.5)
    rules = PairRules(times, choice.days, None, None, SeriesConfig())
    assert rules.in_window(first, first + 1).mean() >= 0.95


def test_an_excess_estimated_past_the_whole_is_said_to_be_all_of_it():
    # Copies an hour apart, and look-alikes only 20 days or more apart: the background
    # read from those is higher than random gaps predict, and the estimate passes 100 %.
    rng = np.random.default_rng(0)
    t = np.sort(rng.uniform(0, 30, 400)) * 86400.0
    dup = np.arange(0, 398, 2)
    t[dup + 1] = t[dup] + 3600.0
    i, j = np.r_[dup, np.arange(100)], np.r_[dup + 1, np.arange(300, 400)]
    choice = learn_window(t, i, j, np.ones(len(i)), high=0.5)
    assert choice.days == 1.0 and choice.excess[1.0] > 1.0
    assert choice.reason.startswith(f"window 1 days: it holds all of (estimated at "
                                    f"{choice.excess[1.0]:.0%}: the look-alikes far apart")
    assert "%" not in choice.reason.split("(estimated")[0]

"""The window and series rules of the dedupe (newsdedup.cluster.rules)."""

import itertools

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from newsdedup.cluster.rules import PairRules, exact_codes, no_rules, summary_shingles
from newsdedup.text.series import Series, SeriesConfig, learn_series

DAY = 86400.0
HOUR = 3600.0
START = pd.Timestamp("2024-07-27T06:00:00Z")
SCHEME = "hangul-alnum"


def corpus(rows):
    """(title, summary, source, hours after START or None) -> the corpus columns."""
    return pd.DataFrame({
        "id": [f"r{k}" for k in range(len(rows))],
        "title": [r[0] for r in rows], "summary": [r[1] for r in rows],
        "source": [r[2] for r in rows],
        "published_at": ["" if r[3] is None else
                         (START + pd.Timedelta(hours=r[3])).strftime("%Y-%m-%dT%H:%M:%SZ")
                         for r in rows]})


def seconds(items):
    return np.array([pd.Timestamp(p).timestamp() if p else np.nan
                     for p in items["published_at"]], dtype=np.float64)


def rules_of(items, window_days=None, config=None, with_summaries=True):
    config = config or SeriesConfig()
    times = seconds(items)
    series = learn_series(items["title"].tolist(), items["source"].tolist(), times,
                          items["summary"].tolist(), config)
    summaries = (summary_shingles(items["summary"].tolist(), SCHEME) if with_summaries
                 else None)
    return PairRules(times, window_days, series, summaries, config)


def pairs(*ps):
    return np.array([p[0] for p in ps], np.int64), np.array([p[1] for p in ps], np.int64)


# --- the window -------------------------------------------------------------------------

def test_window_is_strict_and_unknown_dates_are_in_it():
    times = np.array([0.0, DAY - 1.0, DAY, 2 * DAY, np.nan])
    rules = PairRules(times, 1.0, None, None, SeriesConfig())
    i, j = pairs((0, 1), (0, 2), (1, 2), (0, 3), (0, 4), (4, 3))
    assert rules.in_window(i, j).tolist() == [True, False, True, False, True, True]
    assert rules.allowed(i, j).tolist() == [True, False, True, False, True, True]
    half = PairRules(times, 0.5, None, None, SeriesConfig())
    assert half.in_window(i, j).tolist() == [False, False, True, False, True, True]


def test_no_window_keeps_every_pair():
    times = np.array([0.0, 400 * DAY])
    rules = PairRules(times, None, None, None, SeriesConfig())
    assert rules.in_window(np.array([0]), np.array([1])).tolist() == [True]
    assert not rules.active


def test_active_when_a_rule_can_block():
    times = np.zeros(3)
    none = sp.csr_matrix((3, 0), dtype=np.int8)
    empty = Series(none, pd.DataFrame(), np.arange(3), none, np.arange(3))
    column = sp.csr_matrix(np.array([[1], [1], [0]], dtype=np.int8))
    one = Series(column, pd.DataFrame(), np.arange(3), column, np.arange(3))
    assert not PairRules(times, None, empty, None, SeriesConfig()).active
    assert PairRules(times, None, one, None, SeriesConfig()).active
    assert PairRules(times, 3.0, None, None, SeriesConfig()).active


# --- the series rule --------------------------------------------------------------------

FORTUNE = "띠별 운세 쥐띠 건강 조심 소띠 금전운 상승"
OTHER = "오늘의 날씨 맑고 더움 자외선 강함 주의"


def column():
    """A daily column of one outlet (a series) and one item outside it."""
    return corpus([
        ("[운세] 7월 27일", FORTUNE, "a", 0.0),  # 0
        ("[운세] 7월 27일", FORTUNE + " 끝", "a", 2.0),  # 1: re-issue, summary alike
        ("[운세] 7월 27일", OTHER, "a", 3.0),  # 2: same title, another summary
        ("[운세] 7월 28일", FORTUNE, "a", 24.0),  # 3: another day's title
        ("[운세] 7월 29일", "", "a", 48.0),  # 4: no summary
        ("[운세] 7월 29일", "", "a", 59.9),  # 5: no summary, 11.9 hours after 4
        ("[운세] 7월 29일", "", "a", 60.0),  # 6: no summary, 12 hours after 4
        ("[운세] 7월 29일", FORTUNE, "a", 49.0),  # 7: a summary where 4 has none
        ("서울 아파트값 3주째 상승", FORTUNE, "a", 1.0),  # 8: not in the series
        ("[운세] 7월 29일", "", "a", None),  # 9: no summary, no date
    ])


def test_the_column_is_one_series_and_the_other_item_is_outside():
    rules = rules_of(column())
    assert rules.series.member().tolist() == [True] * 8 + [False, True]
    assert len(rules.series.table) == 1


@pytest.mark.parametrize(("a", "b", "blocked", "why"), [
    (0, 1, False, "equal titles, summaries alike: a re-issue"),
    (0, 2, True, "equal titles, summaries differ"),
    (0, 3, True, "titles differ (another day's column)"),
    (4, 5, False, "equal titles, no summaries, 11.9 hours apart"),
    (4, 6, True, "equal titles, no summaries, 12 hours apart (strict)"),
    (4, 7, True, "one summary present, one absent"),
    (4, 9, True, "no summaries and an unknown date: not soon"),
    (0, 8, False, "one item outside the series: the rule does not apply"),
    (3, 8, False, "one item outside the series, titles differ"),
])
def test_series_members_merge_only_when_titles_and_summaries_agree(a, b, blocked, why):
    rules = rules_of(column())
    got = rules.series_blocked(np.array([a]), np.array([b]))
    assert got.tolist() == [blocked], why
    assert rules.allowed(np.array([b]), np.array([a])).tolist() == [not blocked], why


def test_series_rule_checked_for_many_pairs_at_once_matches_one_by_one():
    rules = rules_of(column())
    i, j = (np.array(x, np.int64) for x in zip(*itertools.combinations(range(10), 2),
                                               strict=True))
    together = rules.series_blocked(i, j)
    alone = [rules.series_blocked(np.array([a]), np.array([b]))[0]
             for a, b in zip(i, j, strict=True)]
    assert together.tolist() == alone
    assert together.any() and not together.all()


def test_without_summary_shingles_members_merge_only_within_undated_repeat_hours():
    rules = rules_of(column(), with_summaries=False)
    i, j = pairs((0, 1), (0, 2), (4, 5), (4, 6), (0, 3))
    # Summaries unknown: every member pair reads as "no summaries", so time decides.
    assert rules.series_blocked(i, j).tolist() == [False, False, False, True, True]
    strict = rules_of(column(), config=SeriesConfig(undated_repeat_hours=1.0),
                      with_summaries=False)
    assert strict.series_blocked(i, j).tolist() == [True, True, True, True, True]


@pytest.mark.parametrize(("left", "right", "agree"), [
    ("abcdefg", "abcdefh", True),  # 3 of 5 4-grams shared: 0.6
    ("abcdef", "abcdeg", True),  # 2 of 4: exactly 0.5
    ("abcde", "abcdf", False),  # 1 of 3
])
def test_summary_agreement_is_a_4gram_jaccard_of_at_least_summary_agree(left, right, agree):
    titles = ["[운세] 7월 27일", "[운세] 7월 27일", "[운세] 7월 28일", "[운세] 7월 29일"]
    times = np.array([0.0, 1.0, 2.0, 3.0]) * DAY
    series = learn_series(titles, None, times)
    assert series.member().all()
    shingles = summary_shingles([left, right, "x", "y"], SCHEME)
    rules = PairRules(times, None, series, shingles, SeriesConfig(summary_agree=0.5))
    assert rules.series_blocked(np.array([0]), np.array([1])).tolist() == [not agree]


def test_summary_shingles_are_4grams_of_the_normalized_summaries():
    m = summary_shingles(["AB CD EF", "", "가나다라마"], SCHEME)
    assert m.n == 4
    assert m.sizes.tolist() == [3, 0, 2]
    assert m.row(0) == {"abcd", "bcde", "cdef"}
    assert m.row(2) == {"가나다라", "나다라마"}


def test_allowed_applies_the_window_and_the_series_rule_together():
    rules = rules_of(column(), window_days=1.0)
    i, j = pairs((0, 1), (0, 2), (0, 8), (0, 4), (4, 5), (8, 3))
    # (0, 4) is two days apart; (8, 3) 23 hours apart and outside the series.
    assert rules.allowed(i, j).tolist() == [True, False, True, False, True, True]


# --- no_rules -----------------------------------------------------------------------------

def test_no_rules_blocks_nothing():
    rules = no_rules(4)
    assert not rules.active
    i, j = (np.array(x, np.int64) for x in zip(*itertools.combinations(range(4), 2),
                                               strict=True))
    assert rules.allowed(i, j).all()
    assert rules.times.shape == (4,) and np.isnan(rules.times).all()
    assert exact_codes(np.array([5, 5, 2, 0]), ["b", "b", "a", ""], np.arange(4),
                       rules).tolist() == [2, 2, 1, 0]


# --- exact_codes --------------------------------------------------------------------------

def membership(member):
    cols = np.flatnonzero(member)
    m = sp.csr_matrix((np.ones(cols.size, np.int8), (cols, np.zeros(cols.size, np.int64))),
                      shape=(len(member), 1))
    return Series(m, pd.DataFrame(), np.arange(len(member)), m, np.arange(len(member)))


def brute_exact(codes, heads, order, times, window, member):
    """(headline code, time slot, own row) per row, ranked densely."""
    n = len(codes)
    own = [r if member[r] and heads[r] != "" else -1 for r in range(n)]
    slot = [0] * n
    if window is not None:
        grouped = [own[r] < 0 and heads[r] != "" for r in range(n)]
        dated = [np.isfinite(times[r]) for r in range(n)]
        split = set()
        for c in set(codes):
            ts = [times[r] for r in range(n) if codes[r] == c and grouped[r] and dated[r]]
            # Two dated members at least the window apart: the group splits.
            if any(abs(a - b) >= window * DAY for a, b in itertools.combinations(ts, 2)):
                split.add(c)
        founders = {}
        for r in order:
            if grouped[r] and dated[r] and codes[r] in split:
                found = founders.setdefault(codes[r], [])
                k = next((k for k, t in enumerate(found) if abs(times[r] - t) < window * DAY),
                         None)
                if k is None:
                    found.append(times[r])
                    k = len(found) - 1
                slot[r] = k
    keys = [(codes[r], slot[r], own[r]) for r in range(n)]
    rank = {k: x for x, k in enumerate(sorted(set(keys)))}
    return [rank[k] for k in keys]


def test_exact_codes_docstring_case_by_hand():
    rules = PairRules(np.array([0.0, 5 * DAY, HOUR]), 1.0, None, None, SeriesConfig())
    assert exact_codes(np.array([1, 1, 1]), ["a", "a", "a"], np.arange(3),
                       rules).tolist() == [0, 1, 0]
    # Visiting the late item first makes it the first founder.
    assert exact_codes(np.array([1, 1, 1]), ["a", "a", "a"], np.array([1, 0, 2]),
                       rules).tolist() == [1, 0, 1]


def test_series_members_get_an_exact_group_of_their_own():
    times = np.array([0.0, HOUR, 2 * HOUR, 3 * HOUR])
    rules = PairRules(times, None, membership([True, True, False, False]), None, SeriesConfig())
    codes = exact_codes(np.array([1, 1, 1, 1]), ["a"] * 4, np.arange(4), rules)
    # Members 0 and 1 alone; the two others keep one group.
    assert codes[0] != codes[1] and codes[2] == codes[3]
    assert len({codes[0], codes[1], codes[2]}) == 3


def test_equal_headlines_of_series_members_split_and_others_split_in_time():
    times = np.array([0.0, 3 * DAY, 3 * DAY + HOUR, 0.5 * HOUR, 6 * DAY, np.nan])
    member = [True, True, False, False, False, False]
    rules = PairRules(times, 1.0, membership(member), None, SeriesConfig())
    codes = exact_codes(np.array([1] * 6), ["x"] * 6, np.arange(6), rules).tolist()
    # 0 and 1 are members: alone. Of the rest, 2 founds a slot, 3 is 3 days from it and
    # founds another, 4 founds a third; 5 has no date and stays with the first slot.
    assert codes == brute_exact([1] * 6, ["x"] * 6, list(range(6)), times, 1.0, member)
    assert codes[5] == codes[2]
    assert len(set(codes)) == 5


def test_blank_headlines_keep_the_lowest_code_and_are_never_split():
    times = np.array([0.0, 10 * DAY, 20 * DAY, 0.0])
    rules = PairRules(times, 1.0, membership([True, True, False, False]), None, SeriesConfig())
    codes = exact_codes(np.array([0, 0, 0, 1]), ["", "", "", "a"], np.arange(4), rules)
    assert codes.tolist() == [0, 0, 0, 1]


@pytest.mark.parametrize("seed", range(20))
def test_exact_codes_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = 30
    heads_of = ["", "a", "b", "c", "d"]
    codes = rng.integers(0, len(heads_of), n)
    heads = [heads_of[c] for c in codes]
    times = rng.uniform(0, 6, n) * DAY
    times[rng.random(n) < 0.15] = np.nan
    member = rng.random(n) < 0.2
    order = rng.permutation(n)
    window = [None, 1.0, 2.0][seed % 3]
    rules = PairRules(times, window, membership(member), None, SeriesConfig())
    got = exact_codes(codes, heads, order, rules)
    assert got.tolist() == brute_exact(codes.tolist(), heads, order.tolist(), times, window,
                                       member.tolist())


def test_exact_codes_keep_the_near_pass_contract():
    # Rows sharing an exact code must be allowed to merge by the rules themselves.
    rng = np.random.default_rng(99)
    n = 40
    codes = rng.integers(1, 4, n)
    times = rng.uniform(0, 5, n) * DAY
    member = rng.random(n) < 0.25
    rules = PairRules(times, 1.0, membership(member), None, SeriesConfig())
    out = exact_codes(codes, ["h"] * n, rng.permutation(n), rules)
    for a, b in itertools.combinations(range(n), 2):
        if out[a] == out[b]:
            assert codes[a] == codes[b]
            assert not member[a] and not member[b]
    assert len(set(out.tolist())) > len(set(codes.tolist()))


def test_equal_headlines_exactly_the_window_apart_get_different_exact_codes():
    rules = PairRules(np.array([0.0, DAY]), 1.0, None, None, SeriesConfig())
    assert rules.in_window(np.array([0]), np.array([1])).tolist() == [False]
    codes = exact_codes(np.array([1, 1]), ["a", "a"], np.arange(2), rules)
    assert codes[0] != codes[1]

"""Published block 3 of seed 004, recomputed."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.corpus.hosts import parse_dates
from newsdedup.runs.console import crosshost_console
from newsdedup.runs.crosshost import CrossHostConfig, cross_host_report, exact_scores
from newsdedup.score.jaccard import PairScores, jaccard_matrix, upper_pairs
from newsdedup.studies import crosshost
from newsdedup.studies.cost import join_budget
from newsdedup.studies.crosshost import (
    DEFAULT_HOSTS,
    MAX_ROWS,
    CrossTally,
    all_pairs_max,
    choose_hosts,
    cross_host,
    cross_pair_count,
    cross_pair_sample,
    host_groups,
    listing_floor,
    ordered_counts,
    score_day_bins,
    tally_report,
    window_pair_count,
)
from newsdedup.studies.measure import normalized_texts
from newsdedup.studies.synthetic import enlarge, headline_pool, templated_headlines
from newsdedup.text.normalize import DEFAULT_SCHEME
from newsdedup.text.shingle import shingle_matrix


@pytest.fixture(scope="module")
def rep(pinned):
    return cross_host(pinned.items, exact_scores(pinned.items, 4))


def test_counts(rep):
    assert (rep.n_items, rep.n_unique_ids, rep.n_id_duplicates) == (387, 387, 0)
    assert dict(zip(rep.hosts.host, rep.hosts["count"], strict=True)) == {
        "openai.com": 181, "blog.google": 95, "www.anthropic.com": 68, "deepmind.google": 43}
    assert rep.hosts.host.tolist() == ["openai.com", "blog.google", "www.anthropic.com",
                                       "deepmind.google"]
    assert dict(zip(rep.sources.source, rep.sources["count"], strict=True)) == {
        "OpenAI": 181, "Google DeepMind": 138, "Anthropic": 68}


def test_cross_pairs(rep):
    assert rep.n_cross == 4085
    assert f"{rep.max_score:.3f}" == "0.153"
    assert f"{rep.upper_bound:.3f}" == "0.234"
    assert rep.n_above_bound == 0


def test_top_three_in_order(rep):
    top = rep.pairs.head(3)
    got = [(f"{r.score:.3f}", r.id_i, r.host_i, r.published_at_i, r.id_j, r.host_j,
            r.published_at_j) for r in top.itertuples(index=False)]
    assert got == [
        ("0.153", "gemini-robotics-er-2", "blog.google", "2026-07-30",
         "gemini-robotics-er-1-6", "deepmind.google", "2026-04-13"),
        ("0.135", "gemini-robotics-er-2", "blog.google", "2026-07-30",
         "gemini-robotics-2", "deepmind.google", "2026-07-28"),
        ("0.129", "alphaevolve-updates", "blog.google", "2026-05-07",
         "alphaevolve-impact", "deepmind.google", "2026-05-06"),
    ]


def test_console_prints_summaries_cut_at_150(rep):
    text = crosshost_console(rep)
    assert "deepmind.google x blog.google cross pairs 4,085" in text
    assert "above the unrelated-pair upper bound 0.234: 0 pairs" in text


def test_date_window_keeps_the_alphaevolve_pair(rep):
    kept = rep.pairs[rep.pairs.in_window]
    assert 0 < rep.n_in_window < rep.n_cross
    assert ("alphaevolve-updates", "alphaevolve-impact") in set(zip(kept.id_i, kept.id_j,
                                                                    strict=True))
    assert (kept.days_apart <= 3).all()


def test_ordered_counts_ties_by_first_appearance():
    assert ordered_counts(["x", "y", "y", "x", "z"], "h").h.tolist() == ["x", "y", "z"]


# --- at scale: host-pair blocks, the join above a floor, exact counts ---------------------

def _synthetic(size: int, hosts: int, seed: int = 0) -> pd.DataFrame:
    frame = enlarge(headline_pool("ko"), size, seed=seed)
    rng = np.random.default_rng(seed)
    day = rng.integers(1, 20, size)
    return pd.DataFrame({
        "id": [f"x{k}" for k in range(size)], "title": frame.text, "summary": "",
        "host": [f"h{k}.example" for k in rng.integers(0, hosts, size)], "source": "",
        "published_at": [f"2026-01-{d:02d}" if d != 7 else "" for d in day]})


def test_block_path_equals_dense_on_pinned(pinned, rep):
    got = cross_host_report(pinned.items, CrossHostConfig(hosts=DEFAULT_HOSTS))
    assert got.listing is None
    pd.testing.assert_frame_equal(got.pairs, rep.pairs)
    assert got.summary() == rep.summary()


@pytest.mark.parametrize(("size", "hosts"), [(40, 2), (300, 3), (900, 5)])
def test_block_and_floor_paths_on_synthetic(size, hosts):
    items = _synthetic(size, hosts)
    focus = ("h0.example", "h1.example", "h2.example")
    # The report lists the best MAX_ROWS (the larger two sizes have more cross pairs).
    dense = cross_host(items, exact_scores(items, 4), focus, max_rows=MAX_ROWS)
    block = cross_host_report(items, CrossHostConfig(hosts=focus))
    pd.testing.assert_frame_equal(block.pairs, dense.pairs)
    assert block.summary() == dense.summary()
    floor = cross_host_report(items, CrossHostConfig(hosts=focus, max_listed=0, floor=0.2))
    s, d = floor.summary(), dense.summary()
    assert (s["cross_pairs"], s["in_window"], s["upper_bound"]) == (
        d["cross_pairs"], d["in_window"], d["upper_bound"])
    listed = dense.pairs[dense.pairs.score >= 0.2].reset_index(drop=True)
    cols = ["score", "i", "j", "days_apart", "in_window", "above_bound"]
    pd.testing.assert_frame_equal(floor.pairs[cols], listed[cols])
    assert s["listed_pairs"] == len(listed)
    assert "list_floor_requested" not in s  # varied headlines: the floor asked for fits


def test_cross_pair_sample_draws_every_cross_pair_alike():
    groups = [np.array([0, 4]), np.array([2]), np.array([1, 3, 5])]
    host = {int(k): h for h, g in enumerate(groups) for k in g}
    every = sorted((min(a, b), max(a, b)) for a in host for b in host
                   if a < b and host[a] != host[b])
    assert len(every) == cross_pair_count(groups) == 11
    i, j = cross_pair_sample(groups, 110_000, seed=3)
    drawn = pd.Series(list(zip(i.tolist(), j.tolist(), strict=True))).value_counts()
    assert sorted(drawn.index) == every
    # Each of the 11 pairs 10,000 times in expectation; binomial sd about 95.
    assert drawn.between(10_000 - 500, 10_000 + 500).all()
    again = cross_pair_sample(groups, 110_000, seed=3)
    assert np.array_equal(again[0], i) and np.array_equal(again[1], j)
    assert len(cross_pair_sample([np.array([0, 1])], 5)[0]) == 0  # one host: no cross pair


def _templated(size: int) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({
        "id": [f"t{k}" for k in range(size)], "title": templated_headlines("en", size),
        "summary": "", "host": [f"h{k}.example" for k in rng.integers(0, 2, size)],
        "source": "", "published_at": [f"2026-01-{d:02d}" for d in rng.integers(1, 20, size)]})


def test_a_template_feed_raises_the_listing_floor_to_what_the_budget_holds():
    items = _templated(3000)
    focus = ("h0.example", "h1.example")
    dense = cross_host(items, exact_scores(items, 4), focus, max_rows=None)
    score = dense.pairs["score"].to_numpy()
    groups = host_groups(items, focus)
    budget = join_budget(len(items))
    assert (score >= 0.2).sum() > budget  # the template: more pairs above 0.2 than the budget
    # The shingles exact_scores compares (the default scheme).
    chosen = listing_floor(shingle_matrix(normalized_texts(items, DEFAULT_SCHEME), 4), groups,
                           0.2)
    assert chosen.raised and not chosen.over_budget and chosen.budget == budget
    # The estimate against the exact count (100,000 sampled of 2.2M cross pairs).
    assert chosen.estimated_pairs == pytest.approx((score >= 0.2).sum(), rel=0.02)
    assert (score >= chosen.floor).sum() <= budget  # the floor listed fits
    got = cross_host_report(items, CrossHostConfig(hosts=focus, max_listed=0, floor=0.2,
                                                   max_rows=None))
    s = got.summary()
    assert s["list_floor"] == chosen.floor and s["list_floor_requested"] == 0.2
    assert s["estimated_pairs_at_requested_floor"] == chosen.estimated_pairs
    assert s["cross_pairs"] == len(score) and s["listed_pairs"] == (score >= chosen.floor).sum()
    listed = dense.pairs[dense.pairs.score >= chosen.floor].reset_index(drop=True)
    cols = ["score", "i", "j", "days_apart", "in_window", "above_bound"]
    pd.testing.assert_frame_equal(got.pairs[cols], listed[cols])
    assert f">= {chosen.floor:g}" in s["method"] and "requested floor 0.2" in s["method"]
    assert "over the budget" in crosshost_console(got)
    few = listing_floor(shingle_matrix(normalized_texts(items, DEFAULT_SCHEME), 4),
                        host_groups(items.head(1000), focus), 0.2)
    assert (few.floor, few.sampled, few.estimated_pairs) == (0.2, 0, cross_pair_count(
        host_groups(items.head(1000), focus)))  # under a million cross pairs: never raised


@settings(max_examples=40, deadline=None)
@given(texts=st.lists(st.text(alphabet="가나다ab", min_size=0, max_size=8), min_size=2,
                      max_size=30))
def test_all_pairs_max_equals_dense(texts):
    m = shingle_matrix(texts, 2)
    assert all_pairs_max(m) == upper_pairs(jaccard_matrix(m)).max()


@settings(max_examples=40, deadline=None)
@given(hosts=st.lists(st.integers(0, 3), min_size=0, max_size=25),
       days=st.lists(st.integers(0, 12) | st.none(), min_size=25, max_size=25),
       window=st.integers(0, 5))
def test_window_pair_count_equals_brute_force(hosts, days, window):
    n = len(hosts)
    items = pd.DataFrame({"host": [f"h{h}" for h in hosts],
                          "published_at": [f"2026-02-{d + 1:02d}" if d is not None else ""
                                           for d in days[:n]]})
    groups = host_groups(items, ("h0", "h1", "h2"))
    dates = parse_dates(items).to_numpy()
    focus = {int(k) for g in groups for k in g}
    brute = sum(1 for a in range(n) for b in range(a + 1, n)
                if a in focus and b in focus and hosts[a] != hosts[b]
                and not np.isnat(dates[a]) and not np.isnat(dates[b])
                and abs((dates[a] - dates[b]) / np.timedelta64(1, "D")) <= window)
    assert window_pair_count(items, groups, window) == brute
    assert cross_pair_count(groups) == sum(
        1 for a in range(n) for b in range(a + 1, n)
        if a in focus and b in focus and hosts[a] != hosts[b])


# --- the host set: given, the published pair, or the corpus's own ---------------------------

def test_the_pinned_archive_keeps_its_published_pair_and_others_their_own_hosts(pinned):
    assert choose_hosts(pinned.items, pinned=True).hosts == DEFAULT_HOSTS
    own = choose_hosts(pinned.items)
    # Every URL host of the archive, most items first (counted independently here).
    counts = pinned.items["host"].value_counts()
    assert set(own.hosts) == set(counts.index) and own.hosts[0] == counts.index[0]
    assert own.column == "host" and "URL hosts" in own.how
    assert choose_hosts(pinned.items, ("x.example",), pinned=True).hosts == ("x.example",)


def test_derived_hosts_are_capped_and_say_so():
    items = pd.DataFrame({"host": [f"h{k % 30}.example" for k in range(300)] + ["h0.example"],
                          "source": ""})
    got = choose_hosts(items, max_hosts=5)
    assert got.hosts[0] == "h0.example" and len(got.hosts) == 5
    assert got.how.endswith("the 5 with most items of 30")


def test_source_column_stands_in_for_missing_urls_and_nothing_means_no_hosts():
    items = pd.DataFrame({"host": ["", "", ""], "source": ["조선", "동아", "조선"]})
    got = choose_hosts(items)
    assert (got.hosts, got.column) == (("조선", "동아"), "source")
    none = choose_hosts(items.assign(source=" "))
    assert none.hosts == () and none.how.startswith("no host information")


def test_score_day_bins_count_every_pair_once():
    rng = np.random.default_rng(3)
    score = rng.random(500)
    days = np.where(rng.random(500) < 0.1, np.nan, rng.exponential(20, 500))
    window = days <= 3
    bins = score_day_bins(score, days, window)
    assert bins["pairs"].sum() == 500
    assert bins.loc[bins.in_window, "pairs"].sum() == int(window.sum())
    # Each pair lands in the bin whose edges hold it (checked pair by pair).
    for s, d in zip(score[:50], days[:50], strict=True):
        row = bins[(bins.score_lo <= s) & (s < bins.score_hi)]
        dated = (row.days_lo <= d) & (d < row.days_hi)
        row = row[row.days_lo.isna()] if np.isnan(d) else row[dated]
        assert len(row) >= 1


def test_max_rows_keeps_the_best_rows_and_every_count(pinned):
    full = cross_host(pinned.items, exact_scores(pinned.items, 4))
    cut = cross_host(pinned.items, exact_scores(pinned.items, 4), max_rows=10)
    assert len(cut.pairs) == 10
    pd.testing.assert_frame_equal(cut.pairs, full.pairs.head(10))
    assert cut.summary() == full.summary() | {"rows_written": 10}
    pd.testing.assert_frame_equal(cut.bins, full.bins)


@pytest.mark.parametrize(("max_rows", "seed", "pending"),
                         [(None, 0, None), (40, 1, None), (40, 4, 1), (1, 2, 1), (0, 3, None)])
def test_a_tally_fed_block_by_block_gives_the_whole_list_s_report(pinned, max_rows, seed,
                                                                   pending, monkeypatch):
    """The streamed floor path's tally: any split of the pairs, any order of the blocks.

    ``pending`` = 1 sorts the kept pairs after each block once enough are kept, so pairs
    below the entry score are turned away (the path of a large feed).
    """
    if pending is not None:
        monkeypatch.setattr(crosshost, "_MIN_PENDING", pending)
    scores = exact_scores(pinned.items, 4)
    whole = cross_host(pinned.items, scores, DEFAULT_HOSTS)
    bound = whole.upper_bound
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(scores))
    cuts = np.sort(rng.choice(np.arange(1, len(scores)), size=30, replace=False))
    tally = CrossTally(pinned.items, DEFAULT_HOSTS, whole.window_days, bound, max_rows)
    for part in np.split(order, cuts):
        tally.add(PairScores(scores.i[part], scores.j[part], scores.score[part]))
    got = tally_report(pinned.items, tally)
    rows = len(whole.pairs) if max_rows is None else max_rows
    # An empty listing's text columns are object arrays, as every column built from no rows.
    pd.testing.assert_frame_equal(got.pairs, whole.pairs.head(rows), check_dtype=rows > 0)
    pd.testing.assert_frame_equal(got.bins, whole.bins)
    expected = whole.summary() | ({} if rows == whole.n_cross else {"rows_written": rows})
    assert got.summary() == expected

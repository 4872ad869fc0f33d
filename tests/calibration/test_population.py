"""The candidate pairs and their strata (newsdedup.calibration.population)."""

import itertools

import numpy as np
import pandas as pd
import pytest

from newsdedup.calibration.population import (
    GAP_DAYS,
    MergedAt,
    build_population,
    coverage,
    grouped_level,
    score_bin_edges,
)
from newsdedup.score.jaccard import PairScores

DAY = 86400.0
START = pd.Timestamp("2024-01-01T00:00:00Z")


def corpus(sources, hours):
    """A corpus whose rows have the given sources and times (hours after START, None)."""
    return pd.DataFrame({
        "id": [f"c{k:02d}" for k in range(len(sources))],
        "title": [f"title {k}" for k in range(len(sources))], "summary": "",
        "source": sources,
        "published_at": ["" if h is None else
                         (START + pd.Timedelta(hours=h)).strftime("%Y-%m-%dT%H:%M:%SZ")
                         for h in hours]})


def seconds(items):
    return np.array([pd.Timestamp(p).timestamp() if p else np.nan
                     for p in items["published_at"]], dtype=np.float64)


def scores(triples):
    i, j, s = zip(*triples, strict=True)
    return PairScores(np.array(i, np.int64), np.array(j, np.int64), np.array(s, np.float64))


# --- score_bin_edges ---------------------------------------------------------------------

@pytest.mark.parametrize(("floor", "edges"), [
    (0.05, [0.0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0000001]),
    (0.1, [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0000001]),
    (0.15, [0.0, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0000001]),
    (0.85, [0.0, 0.85, 0.9, 1.0000001]),
])
def test_score_bin_edges_are_the_floor_then_tenths(floor, edges):
    assert score_bin_edges(floor).tolist() == pytest.approx(edges, abs=1e-12)


# --- strata by hand -----------------------------------------------------------------------

def test_strata_of_a_small_corpus_match_a_hand_count():
    items = corpus(["a", "a", "b", "b", "a"], [0, 5, 30, 40, None])
    pairs = scores([(0, 1, 0.95), (0, 2, 0.3), (1, 2, 0.35), (2, 3, 0.3), (0, 4, 0.05),
                    (3, 4, 1.0), (1, 3, 0.29)])
    pop = build_population(pairs, items["source"], seconds(items), items["id"], 0.05)
    # (pair, bin from, source, within a day): gap 5 h, 30 h, 25 h, 10 h, unknown, unknown, 35 h
    expected = {(0, 1): (0.9, "same", True), (0, 2): (0.3, "different", False),
                (1, 2): (0.3, "different", False), (2, 3): (0.3, "same", True),
                (0, 4): (0.05, "same", True), (3, 4): (0.9, "different", True),
                (1, 3): (0.2, "different", False)}
    got = {}
    for k in range(len(pop)):
        row = pop.strata.iloc[pop.stratum[k]]
        assert row["stratum"] == pop.stratum[k]
        assert row["kind"] == "scored"
        got[(int(pop.i[k]), int(pop.j[k]))] = (round(row["score_lo"], 6), row["source"],
                                               bool(row["within_day"]))
    assert got == expected
    sizes = dict(zip(zip(pop.strata["score_lo"].round(6), pop.strata["source"],
                         pop.strata["within_day"], strict=True), pop.strata["size"],
                     strict=True))
    assert sizes == {(0.05, "same", True): 1, (0.2, "different", False): 1,
                     (0.3, "different", False): 2, (0.3, "same", True): 1,
                     (0.9, "different", True): 1, (0.9, "same", True): 1}
    top = pop.strata.set_index(["score_lo"]).loc[0.9]
    assert top["score_hi"].tolist() == [1.0, 1.0]
    assert pop.gap_days[pop.find(np.array([0]), np.array([2]))[0]] == pytest.approx(30 / 24)
    assert np.isnan(pop.gap_days[pop.find(np.array([3]), np.array([4]))[0]])
    assert pop.same_source.tolist() == [
        items["source"][a] == items["source"][b] for a, b in zip(pop.i, pop.j, strict=True)]
    assert pop.floor == 0.05 and pop.ids == items["id"].tolist()


def test_gap_of_exactly_gap_days_is_within_and_more_is_not():
    assert GAP_DAYS == 1.0
    items = corpus(["a", "a", "a"], [0, 24, 24.01])
    pop = build_population(scores([(0, 1, 0.5), (0, 2, 0.5)]), items["source"],
                           seconds(items), items["id"], 0.1)
    within = pop.strata["within_day"].to_numpy()[pop.stratum]
    assert within.tolist() == [True, False]


def test_one_source_or_none_gives_source_any_and_same_source_true():
    items = corpus(["a", "a", "a"], [0, 1, 2])
    ps = scores([(0, 1, 0.5), (1, 2, 0.7)])
    for sources in (items["source"], None):
        pop = build_population(ps, sources, seconds(items), items["id"], 0.1)
        assert pop.strata["source"].tolist() == ["any", "any"]
        assert pop.same_source.tolist() == [True, True]


def test_grouped_pairs_form_their_own_strata_by_level_whatever_the_gap():
    items = corpus(["a", "b", "a", "b"], [0, 100, 200, 1])
    ps = scores([(0, 1, 0.2), (0, 2, 0.8), (1, 3, 0.33), (2, 3, 0.8)])
    level = np.array([0.45, np.nan, 0.3, np.nan])
    pop = build_population(ps, items["source"], seconds(items), items["id"], 0.1,
                           grouped=level)
    rows = {(int(a), int(b)): pop.strata.iloc[s] for a, b, s in
            zip(pop.i, pop.j, pop.stratum, strict=True)}
    assert rows[(0, 1)][["kind", "source", "within_day"]].tolist() == [
        "grouped", "different", True]  # 100 hours apart, grouped: within
    assert rows[(0, 1)]["score_lo"] == pytest.approx(0.4)  # binned by its level, not score
    assert rows[(1, 3)]["kind"] == "grouped" and rows[(1, 3)]["score_lo"] == pytest.approx(0.3)
    assert rows[(0, 2)][["kind", "within_day"]].tolist() == ["scored", False]
    assert rows[(0, 2)]["score_lo"] == pytest.approx(0.8)
    assert rows[(2, 3)][["kind", "source", "within_day"]].tolist() == [
        "scored", "different", False]
    # Scored strata come before grouped ones.
    assert pop.strata["kind"].tolist() == sorted(pop.strata["kind"], key=["scored",
                                                                         "grouped"].index)


def brute_strata(ps, sources, hours, floor, level):
    """Stratum key per pair, from the rules of the module docstring."""
    edges = [0.0, floor] + [t / 10 for t in range(1, 10) if t / 10 > floor + 1e-9] + [1.0000001]
    several = sources is not None and len(set(sources)) > 1
    keys = []
    for a, b, s, lev in zip(ps.i, ps.j, ps.score, level, strict=True):
        grouped = np.isfinite(lev)
        value = lev if grouped else s
        k = max(m for m in range(len(edges) - 1) if edges[m] <= value + 1e-12) \
            if value >= 0 else 0
        source = (("same" if sources[a] == sources[b] else "different") if several else "any")
        gap = abs(hours[a] - hours[b]) / 24 if hours[a] is not None and hours[b] is not None \
            else None
        within = grouped or gap is None or gap <= 1.0
        keys.append(("grouped" if grouped else "scored", round(edges[k], 6),
                     round(min(edges[k + 1], 1.0), 6), source, bool(within)))
    return keys


@pytest.mark.parametrize("part", [1 << 22, 7])
@pytest.mark.parametrize("seed", range(8))
def test_strata_match_brute_force(seed, part, monkeypatch):
    import newsdedup.calibration.population as population

    monkeypatch.setattr(population, "PART_PAIRS", part)  # one part, or many small ones
    rng = np.random.default_rng(seed)
    n = 25
    sources = [["a", "b", "c"][k] for k in rng.integers(0, 3 if seed % 4 else 1, n)]
    hours = [None if rng.random() < 0.15 else float(rng.uniform(0, 96)) for _ in range(n)]
    items = corpus(sources, hours)
    all_pairs = list(itertools.combinations(range(n), 2))
    chosen = sorted(rng.choice(len(all_pairs), 120, replace=False))
    floor = [0.05, 0.1, 0.15][seed % 3]
    score = np.round(rng.uniform(floor, 1.0, len(chosen)), 2)  # ties on bin edges too
    ps = scores([(*all_pairs[c], s) for c, s in zip(chosen, score, strict=True)])
    level = np.where(rng.random(len(chosen)) < 0.3,
                     rng.choice([0.1, 0.2, 0.35, 0.5], len(chosen)), np.nan)
    pop = build_population(ps, sources, seconds(items), items["id"], floor,
                           grouped=level if seed % 2 else None)
    keys = brute_strata(ps, sources, [None if h is None else round(h * 3600) / 3600
                                      for h in hours], floor,
                        level if seed % 2 else np.full(len(chosen), np.nan))
    # Pairs keep their input order here (the input is sorted); the population sorts too.
    assert pop.i.tolist() == ps.i.tolist() and pop.j.tolist() == ps.j.tolist()
    table = pop.strata
    got = [(table["kind"][s], round(table["score_lo"][s], 6), round(table["score_hi"][s], 6),
            table["source"][s], bool(table["within_day"][s])) for s in pop.stratum]
    assert got == keys
    # One row per distinct key, numbered in order, with its size.
    assert table["stratum"].tolist() == list(range(len(table)))
    assert len(table) == len(set(keys))
    counts = pd.Series(keys).value_counts()
    assert [counts[k] for k in table[["kind", "score_lo", "score_hi", "source",
                                      "within_day"]].round(6).itertuples(index=False,
                                                                         name=None)] == \
        table["size"].tolist()
    assert table["size"].sum() == len(pop)


def test_strata_are_numbered_in_order_of_kind_bin_source_and_day():
    rng = np.random.default_rng(1)
    n = 30
    sources = [["a", "b"][k] for k in rng.integers(0, 2, n)]
    hours = rng.uniform(0, 72, n).tolist()
    items = corpus(sources, hours)
    all_pairs = list(itertools.combinations(range(n), 2))
    ps = scores([(a, b, float(rng.uniform(0.05, 1))) for a, b in all_pairs])
    level = np.where(rng.random(len(all_pairs)) < 0.2, 0.5, np.nan)
    pop = build_population(ps, sources, seconds(items), items["id"], 0.05, grouped=level)
    order = list(zip(pop.strata["kind"].map({"scored": 0, "grouped": 1}), pop.strata["score_lo"],
                     pop.strata["source"].map({"different": 0, "same": 1, "any": 2}),
                     pop.strata["within_day"], strict=True))
    assert order == sorted(order) and len(set(order)) == len(order)


# --- the Population's methods ---------------------------------------------------------------

def test_pairs_are_sorted_whatever_the_input_order():
    items = corpus(["a"] * 5, [0] * 5)
    triples = [(3, 4, 0.5), (0, 2, 0.6), (1, 4, 0.7), (0, 1, 0.8)]
    pop = build_population(scores(triples), None, seconds(items), items["id"], 0.1)
    assert list(zip(pop.i.tolist(), pop.j.tolist(), pop.score.tolist(), strict=True)) == [
        (0, 1, 0.8), (0, 2, 0.6), (1, 4, 0.7), (3, 4, 0.5)]
    assert pop.keys().tolist() == [1, 2, 9, 19]
    shuffled = build_population(scores(triples[::-1]), None, seconds(items), items["id"], 0.1)
    assert shuffled.fingerprint() == pop.fingerprint()
    assert shuffled.stratum.tolist() == pop.stratum.tolist()


def test_find_gives_positions_in_either_order_and_minus_one_when_absent():
    items = corpus(["a"] * 5, [0] * 5)
    pop = build_population(scores([(0, 1, 0.5), (0, 3, 0.6), (2, 4, 0.7)]), None,
                           seconds(items), items["id"], 0.1)
    got = pop.find(np.array([0, 3, 4, 1, 4, 0]), np.array([1, 0, 2, 2, 4, 4]))
    assert got.tolist() == [0, 1, 2, -1, -1, -1]
    empty = build_population(PairScores(np.zeros(0, np.int64), np.zeros(0, np.int64),
                                        np.zeros(0)), None, np.zeros(3), ["a", "b", "c"], 0.1)
    assert len(empty) == 0 and empty.strata.empty
    assert empty.find(np.array([0]), np.array([1])).tolist() == [-1]


def _every_pair(n: int, rng: np.random.Generator):
    """A population of every pair of ``n`` items whose ids come in no particular order."""
    names = [f"x{k:03d}" for k in rng.permutation(n)]
    i, j = np.triu_indices(n, k=1)
    return build_population(PairScores(i, j, np.full(len(i), 0.5)), None, np.zeros(n), names,
                            0.1), names


def test_by_ids_orders_positions_by_the_pairs_ids():
    items = corpus(["a"] * 4, [0] * 4)
    ids = ["d", "b", "a", "c"]  # rows 0..3; by id: row 2 < row 1 < row 3 < row 0
    pop = build_population(scores([(0, 1, 0.5), (0, 2, 0.5), (1, 2, 0.5), (1, 3, 0.5),
                                   (2, 3, 0.5)]), None, seconds(items), ids, 0.1)
    by_ids = [tuple(sorted((ids[pop.i[p]], ids[pop.j[p]]))) for p in pop.by_ids(np.arange(5))]
    assert by_ids == [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d")]
    assert pop.by_ids(np.array([4, 0])).tolist() == sorted(
        [4, 0], key=lambda p: tuple(sorted((ids[pop.i[p]], ids[pop.j[p]]))))
    # Many pairs, ids in no particular order: the order of their sorted id pairs.
    rng = np.random.default_rng(4)
    big, names = _every_pair(60, rng)
    pos = rng.permutation(len(big))[:700]
    assert big.by_ids(pos).tolist() == sorted(
        pos.tolist(), key=lambda p: tuple(sorted((names[big.i[p]], names[big.j[p]]))))


@pytest.mark.parametrize("part", [7, 1 << 22])
def test_at_id_ranks_reads_the_places_of_the_id_order(monkeypatch, part):
    import newsdedup.calibration.population as population

    monkeypatch.setattr(population, "PART_PAIRS", part)  # several parts, and one
    pop, _ = _every_pair(50, np.random.default_rng(11))
    rng = np.random.default_rng(12)
    for size in (1, 40, 600):
        pos = rng.permutation(len(pop))[:size].astype(np.int32)
        ordered = pop.by_ids(pos)
        places = rng.choice(size, size=min(size, 25), replace=False)
        got = pop.at_id_ranks(pos, places)
        assert got.dtype == pos.dtype and got.tolist() == ordered[places].tolist()
    assert pop.at_id_ranks(pos, np.zeros(0, np.int64)).size == 0
    assert pop.at_id_ranks(pos, [3, 3, 0]).tolist() == ordered[[3, 3, 0]].tolist()


def test_merged_says_whether_both_rows_share_a_group():
    items = corpus(["a"] * 5, [0] * 5)
    pop = build_population(scores([(0, 1, 0.5), (0, 4, 0.5), (2, 3, 0.5), (3, 4, 0.5)]), None,
                           seconds(items), items["id"], 0.1)
    labels = np.array([7, 7, 1, 1, 2])
    assert pop.merged(labels).tolist() == [True, False, True, False]


@pytest.mark.parametrize("part", [1 << 22, 97])
def test_merged_at_unpacks_what_merged_says_at_every_threshold(part, monkeypatch):
    import newsdedup.calibration.population as population

    monkeypatch.setattr(population, "PART_PAIRS", part)  # one part, or many small ones
    # 70 thresholds: the bits of the first 64 share one word, the rest spill into a second.
    rng = np.random.default_rng(2)
    n = 40
    i, j = np.triu_indices(n, k=1)
    pop = build_population(PairScores(i, j, rng.random(len(i))), None, np.zeros(n),
                           [str(k) for k in range(n)], 0.0)
    partitions = {round(0.3 + k / 100, 2): rng.integers(0, 6, n) for k in range(70)}
    packed = MergedAt(pop, partitions)
    assert list(packed) == list(partitions) and len(packed) == 70
    for t, labels in partitions.items():
        assert packed[t].dtype == bool
        assert packed[t].tolist() == pop.merged(labels).tolist()
    with pytest.raises(KeyError):
        packed[0.01]


def test_fingerprint_names_the_strata_and_their_sizes():
    items = corpus(["a", "b", "a", "b"], [0, 1, 2, 3])
    ps = scores([(0, 1, 0.5), (0, 2, 0.5), (1, 3, 0.9)])
    pop = build_population(ps, items["source"], seconds(items), items["id"], 0.1)
    fp = pop.fingerprint()
    assert len(fp) == 16 and int(fp, 16) >= 0
    assert build_population(ps, items["source"], seconds(items), items["id"], 0.1
                            ).fingerprint() == fp
    # Another size, another bin edge, another split by source: another fingerprint.
    bigger = scores([(0, 1, 0.5), (0, 2, 0.5), (1, 3, 0.9), (2, 3, 0.55)])
    assert build_population(bigger, items["source"], seconds(items), items["id"],
                            0.1).fingerprint() != fp
    low = scores([(0, 1, 0.5), (0, 2, 0.16), (1, 3, 0.9)])  # in [0.15, 0.2) or [0.1, 0.2)
    assert build_population(low, items["source"], seconds(items), items["id"],
                            0.15).fingerprint() != build_population(
        low, items["source"], seconds(items), items["id"], 0.1).fingerprint()
    assert build_population(ps, None, seconds(items), items["id"], 0.1).fingerprint() != fp


# --- grouped_level and coverage ----------------------------------------------------------

def test_grouped_level_is_the_highest_threshold_grouping_the_pair():
    rng = np.random.default_rng(4)
    n = 12
    all_pairs = list(itertools.combinations(range(n), 2))
    ps = scores([(a, b, 0.5) for a, b in all_pairs])
    partitions = {t: rng.integers(0, 3 + int(10 * t), n) for t in (0.1, 0.25, 0.4, 0.6)}
    got = grouped_level(ps, partitions)
    for (a, b), value in zip(all_pairs, got, strict=True):
        levels = [t for t, lab in partitions.items() if lab[a] == lab[b]]
        if levels:
            assert value == max(levels)
        else:
            assert np.isnan(value)
    assert np.isnan(got).any() and np.isfinite(got).any()


def test_coverage_counts_merged_pairs_inside_the_population_and_in_all():
    items = corpus(["a"] * 6, [0] * 6)
    pop = build_population(scores([(0, 1, 0.5), (0, 4, 0.5), (3, 4, 0.5), (2, 5, 0.5)]), None,
                           seconds(items), items["id"], 0.1)
    labels = np.array(["x", "x", "x", "y", "y", "z"])
    # Groups {0,1,2}: 3 pairs, {3,4}: 1 pair; in the population: (0,1) and (3,4).
    assert coverage(pop, labels) == (2, 4)
    assert coverage(pop, np.arange(6)) == (0, 0)

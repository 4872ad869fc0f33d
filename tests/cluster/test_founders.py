"""A crowded bucket walked against its founders clusters as its listed pairs do."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from newsdedup.cluster import founders
from newsdedup.cluster.dedupe import DedupeConfig, dedupe, prepare
from newsdedup.cluster.greedy import greedy_pairs

WORDS = ("정부", "경제", "시장", "발표", "확대", "지원", "계획", "추진", "강화", "정책", "협력",
         "논의", "검토", "개선", "점검", "대응")


def _feed(seed: int, size: int = 240) -> pd.DataFrame:
    """One lead token for most rows: copies of a few stories, a numbered column, strays."""
    rng = np.random.default_rng(seed)
    stories = [" ".join(rng.choice(WORDS, 6)) for _ in range(6)]
    rows = []
    for k in range(size):
        kind = rng.random()
        if kind < 0.6:  # a copy of a story with a word or two changed
            words = stories[int(rng.integers(len(stories)))].split()
            for _ in range(int(rng.integers(0, 3))):
                words[int(rng.integers(len(words)))] = str(rng.choice(WORDS))
            title = "삼성전자 " + " ".join(words)
        elif kind < 0.8:  # a recurring column: same words, another number (a series)
            title = f"삼성전자 오늘의 주가 시세 정보 {int(rng.integers(1, 400))}"
        else:  # another subject, or a stray under the crowded one
            lead = "삼성전자" if rng.random() < 0.5 else str(rng.choice(["LG", "현대차"]))
            title = lead + " " + " ".join(rng.choice(WORDS, 5))
        rows.append({"id": f"r{k}", "title": title, "source": f"s{k % 3}",
                     "published_at": f"2026-01-{1 + int(rng.integers(0, 20)):02d}"})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("scorer", ["jaccard", "idf", "minhash"])
@pytest.mark.parametrize(("window_days", "seed"), [(None, 0), (3.0, 1), (None, 2)])
def test_walking_crowded_buckets_gives_the_listed_pairs_clustering(scorer, window_days, seed,
                                                                    monkeypatch):
    items = _feed(seed)
    config = DedupeConfig(scorer=scorer, window_days=window_days)
    monkeypatch.setattr(founders, "WALK_MIN_MEMBERS", 10**9)  # every bucket's pairs listed
    listed = dedupe(items, config)
    monkeypatch.setattr(founders, "WALK_MIN_MEMBERS", 2)  # every bucket of two walked
    walked = dedupe(items, config)
    pd.testing.assert_frame_equal(walked.items, listed.items)
    for name in ("labels", "representatives", "join_scores", "joined_to"):
        np.testing.assert_array_equal(getattr(walked.clustering, name),
                                      getattr(listed.clustering, name))
    assert walked.clustering.n_groups < len(items)  # the feed has merges to get right


@pytest.mark.parametrize("cap", [0, 3, 40])
def test_a_walk_with_too_many_founders_hands_the_bucket_back(cap, monkeypatch):
    items = _feed(3)
    config = DedupeConfig(scorer="jaccard")
    listed = dedupe(items, config)
    monkeypatch.setattr(founders, "WALK_MIN_MEMBERS", 2)
    monkeypatch.setattr(founders, "WALK_MAX_FOUNDERS", cap)
    handed_back = dedupe(items, config)
    pd.testing.assert_frame_equal(handed_back.items, listed.items)


def test_the_walk_keeps_one_pair_per_joining_member_and_they_decide_the_greedy():
    items = _feed(4, 400)
    prep = prepare(items, DedupeConfig(scorer="jaccard"))
    members = np.arange(len(prep.survivors))
    rules = prep.rules
    allowed = lambda i, j: rules.allowed(prep.survivors[i], prep.survivors[j])  # noqa: E731
    i, j, score = founders.founder_pairs(prep.scorer.block, members, 0.3, allowed,
                                         max_founders=10**9)
    assert len(np.unique(i)) == len(i) and (j < i).all() and (score >= 0.3).all()
    # All pairs of the one pool, listed and filtered by the rules, then walked greedily.
    a, b, s = _all_pairs(prep, 0.3)
    full = greedy_pairs(len(members), a, b, s, 0.3, rank=prep.rank[prep.survivors])
    walked = greedy_pairs(len(members), i, j, score, 0.3, rank=prep.rank[prep.survivors])
    np.testing.assert_array_equal(walked.labels, full.labels)
    np.testing.assert_array_equal(walked.join_scores, full.join_scores)
    # One pair per joining member against every allowed pair above the threshold.
    assert len(i) == int((full.joined_to >= 0).sum()) < len(a)


def _all_pairs(prep, threshold: float):
    """Every allowed pair of all survivors at or above ``threshold``, from dense scores."""
    n = len(prep.survivors)
    scores = prep.scorer.block(np.arange(n), np.arange(n))
    a, b = np.triu_indices(n, k=1)
    s = scores[a, b]
    hit = s >= threshold
    a, b, s = a[hit], b[hit], s[hit]
    ok = prep.rules.allowed(prep.survivors[a], prep.survivors[b])
    return a[ok], b[ok], s[ok]

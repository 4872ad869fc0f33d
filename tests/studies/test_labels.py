"""Measured precision/recall against labels, stratified sampling, bin sizes: brute-force checks."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from newsdedup.evaluate.metrics import pairwise_scores
from newsdedup.score.jaccard import PairScores
from newsdedup.studies.decoys import clopper_pearson
from newsdedup.studies.labels import (
    bin_sample_size,
    gold_scores,
    read_pair_ids,
    sheet_weights,
    story_scores,
    stratified_sample,
)


def test_story_scores_equal_pairwise_scores_and_interval_holds_the_value():
    rng = np.random.default_rng(3)
    labels, story = rng.integers(0, 15, 120), rng.integers(0, 25, 120)
    got = story_scores(labels, story, resamples=300, seed=1)
    want = pairwise_scores(labels, story)
    assert got["tp"] == want["tp"] and got["merged_pairs"] == want["merged_pairs"]
    assert got["precision"].value == pytest.approx(want["precision"])
    assert got["recall"].value == pytest.approx(want["recall"])
    for x in (got["precision"], got["recall"]):
        assert x.low <= x.value <= x.high
    assert story_scores(labels, story, resamples=300, seed=1) == got  # seeded


def test_gold_scores_count_labelled_pairs_by_brute_force():
    rng = np.random.default_rng(5)
    labels = rng.integers(0, 6, 40)
    pairs = list(itertools.combinations(range(40), 2))[::7]
    i = np.array([p[0] for p in pairs])
    j = np.array([p[1] for p in pairs])
    pos = rng.random(len(pairs)) < 0.5
    w = rng.integers(1, 5, len(pairs)).astype(float)
    got = gold_scores(labels, i, j, pos, w, resamples=0)
    merged = labels[i] == labels[j]
    assert got["precision"].value == pytest.approx((w * merged * pos).sum() / (w * merged).sum())
    assert got["recall"].value == pytest.approx((w * merged * pos).sum() / (w * pos).sum())


@pytest.mark.parametrize("h", [0.1, 0.15])
def test_bin_sample_size_is_the_smallest_n_within_the_halfwidth(h):
    n = bin_sample_size(h)

    def width(m):
        lo, hi = clopper_pearson(m // 2, m)
        return hi - lo

    assert width(n) <= 2 * h < width(n - 1)


def test_stratified_sample_draws_per_bin_and_weights_to_bin_sizes():
    rng = np.random.default_rng(0)
    score = rng.random(500)
    ps = PairScores(np.arange(500), np.arange(1, 501), score)
    edges = [0.2, 0.5, 1.0]
    s = stratified_sample(ps, edges, 30, seed=4)
    for lo, hi, closed in ((0.2, 0.5, False), (0.5, 1.0, True)):
        inside = (score >= lo) & ((score <= hi) if closed else (score < hi))
        sub = s[(s["score"] >= lo) & ((s["score"] <= hi) if closed else (s["score"] < hi))]
        assert len(sub) == 30 and sub["bin_pairs"].iloc[0] == inside.sum()
        assert sub["weight"].iloc[0] * 30 == pytest.approx(inside.sum())
    assert len({(a, b) for a, b in zip(s["i"], s["j"], strict=True)}) == len(s)
    assert s.equals(stratified_sample(ps, edges, 30, seed=4))
    small = stratified_sample(ps, [0.999, 1.0], 30)
    assert len(small) == (score >= 0.999).sum()


def test_pair_files_name_the_bad_line(tmp_path):
    p = tmp_path / "distinct.csv"
    p.write_text("id_i,id_j\na,b\nc,zz\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"distinct.csv:3: id\(s\) \['zz'\]"):
        read_pair_ids(p, ["a", "b", "c"])
    p.write_text("id_i,id_j\nb,a\n", encoding="utf-8")
    assert [x.tolist() for x in read_pair_ids(p, ["a", "b"])] == [[1], [0]]


def test_sheet_weights_follow_the_pairs_and_reject_bad_values(tmp_path):
    import pandas as pd

    p = tmp_path / "g.csv"
    p.write_text("id_i,id_j,label,reason,weight\na,b,same,x,2.5\nb,c,different,y,4\n",
                 encoding="utf-8")
    labelled = pd.DataFrame({"id_i": ["c", "a"], "id_j": ["b", "b"], "line": [3, 2]})
    assert sheet_weights(p, labelled).tolist() == [4.0, 2.5]
    p.write_text("id_i,id_j,label,reason,weight\na,b,same,x,\n", encoding="utf-8")
    with pytest.raises(ValueError, match="g.csv:2: weight"):
        sheet_weights(p, labelled.iloc[[1]])
    p.write_text("id_i,id_j,label,reason\na,b,same,x\n", encoding="utf-8")
    assert sheet_weights(p, labelled) is None

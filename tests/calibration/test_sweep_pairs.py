"""The calibrate sweep from sparse pair lists equals the dense matrices' sweep exactly."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.calibration.sweep_pairs import (
    exact_max_pair,
    scorer_pairs,
    sweep_from_pairs,
)
from newsdedup.cluster.greedy import greedy_clusters
from newsdedup.score.jaccard import jaccard_matrix, upper_pairs, weighted_jaccard_matrix
from newsdedup.score.minhash import MinHashConfig, estimate_matrix, signatures
from newsdedup.studies.calibration import default_grid
from newsdedup.studies.measure import normalized_texts
from newsdedup.studies.synthetic import enlarge, headline_pool
from newsdedup.text.shingle import shingle_matrix

PARAMS = MinHashConfig.published()


def _dense(shingled) -> dict[str, np.ndarray]:
    return {"jaccard": jaccard_matrix(shingled),
            "idf-jaccard": weighted_jaccard_matrix(shingled),
            "minhash": estimate_matrix(signatures(shingled, PARAMS), shingled.sizes == 0)}


def _check(texts: list[str], n: int, grid: list[float]) -> None:
    shingled = shingle_matrix(texts, n)
    dense = _dense(shingled)
    pairs = {s: scorer_pairs(shingled, s, grid[0]) for s in dense}
    for scorer, m in dense.items():
        full = upper_pairs(m)
        keep = full.score >= grid[0]
        got = pairs[scorer]
        assert got.i.tolist() == full.i[keep].tolist(), scorer
        assert got.j.tolist() == full.j[keep].tolist(), scorer
        assert got.score.tolist() == full.score[keep].tolist(), scorer  # bit for bit
    table = sweep_from_pairs(len(texts), pairs, grid)
    for scorer, m in dense.items():
        rows = table[table["scorer"] == scorer]
        full = upper_pairs(m)
        assert rows["pairs"].tolist() == full.count_at_or_above(grid).tolist()
        assert rows["items_left"].tolist() == [greedy_clusters(m, t).n_groups for t in grid]
    full = upper_pairs(dense["jaccard"])
    top = exact_max_pair(shingled)
    if len(full):
        pos = full.top(1)[0]
        assert top == (int(full.i[pos]), int(full.j[pos]), float(full.score[pos]))
    else:
        assert top is None


@pytest.mark.parametrize("size", [2, 60, 400, 1500])
def test_sparse_sweep_equals_dense_on_synthetic_korean(size):
    df = enlarge(headline_pool("ko"), size, seed=size)
    texts = normalized_texts(pd.DataFrame({"title": df["text"], "summary": ""}))
    _check(texts, 4, default_grid(0.05, 0.60).tolist())


@settings(max_examples=40, deadline=None)
@given(texts=st.lists(st.text(alphabet="abcde ", min_size=0, max_size=12), min_size=2,
                      max_size=25),
       n=st.integers(2, 4), lo=st.sampled_from([0.05, 0.2, 0.5, 1.0]))
def test_sparse_sweep_equals_dense_on_any_texts(texts, n, lo):
    _check(texts, n, sorted({lo, min(1.0, lo + 0.1), 1.0}))


def test_exact_max_pair_ties_take_the_last_pair_as_the_dense_top_does():
    shingled = shingle_matrix(["abcd", "abcd", "xyzw", "xyzw"], 3)
    assert exact_max_pair(shingled, cells=1) == (2, 3, 1.0)
    assert exact_max_pair(shingle_matrix(["abcd"], 3)) is None


def test_unknown_scorer_and_bad_threshold_are_refused():
    shingled = shingle_matrix(["abcd", "abce"], 3)
    with pytest.raises(ValueError, match="unknown sweep scorer"):
        scorer_pairs(shingled, "idf", 0.1)
    with pytest.raises(ValueError, match="lowest sweep threshold"):
        scorer_pairs(shingled, "jaccard", 0.0)

"""Tests for newsdedup.cluster.sweep (the seed-batch sweeps, checked against dedupe, are in
test_dedupe, which holds that batch)."""

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.cluster.dedupe import DedupeConfig, dedupe
from newsdedup.cluster.sweep import sweep_dedupe, sweep_items_left

TITLES = ["진천군, 스마트 돌봄 구축 착수", "진천군 스마트돌봄 구축 본격화", "화성시 화재감지 도입",
          "화성시 AI 화재감지 시범 도입", "포항시 제조 AI 실증"]


def test_no_thresholds_give_an_empty_typed_table():
    table = sweep_items_left(pd.DataFrame({"title": TITLES}), [])
    assert table.columns.tolist() == ["threshold", "pairs_at_or_above", "items_left"]
    assert len(table) == 0 and table["items_left"].dtype == "int64"


def test_sweep_order_is_scorers_then_gates_then_thresholds():
    items = pd.DataFrame({"title": TITLES})
    table = sweep_dedupe(items, [0.2, 0.6], scorers=("jaccard", "idf"), gates=(True, False))
    keys = list(zip(table["scorer"], table["gate"], table["threshold"], strict=True))
    expected = [(s, g, t) for s in ("jaccard", "idf") for g in (True, False) for t in (0.2, 0.6)]
    assert keys == expected
    for row in table.itertuples(index=False):
        cfg = DedupeConfig(scorer=row.scorer, gate=row.gate, threshold=row.threshold)
        assert row.items_left == dedupe(items, cfg).clustering.n_groups
        assert row.merged == len(TITLES) - row.items_left


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 30), data=st.data())
def test_sparse_partition_is_greedy_pairs_partition(n, data):
    import numpy as np

    from newsdedup.cluster.greedy import greedy_pairs
    from newsdedup.cluster.sweep import sparse_partition

    k = data.draw(st.integers(0, 60))
    i = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k)), dtype=int)
    j = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k)), dtype=int)
    score = np.array(data.draw(st.lists(st.sampled_from([0.1, 0.3, 0.5, 0.7, 1.0]),
                                        min_size=k, max_size=k)))
    rank = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    for t in (0.2, 0.5):
        want = greedy_pairs(n, i, j, score, t, rank=rank).labels
        got = sparse_partition(n, i, j, score, t, rank)
        # The same partition: equal labels exactly where the reference has them.
        assert np.array_equal(want[:, None] == want[None, :], got[:, None] == got[None, :])
        assert got.max(initial=-1) + 1 == want.max(initial=-1) + 1


def _involved_greedy(n, i, j, score, t, rank):
    """sparse_partition as it was first written: greedy_pairs on the items with a pair >= t."""
    import numpy as np

    from newsdedup.cluster.greedy import greedy_pairs

    hit = (score >= t) & (i != j)
    involved = np.unique(np.concatenate([i[hit], j[hit]]))
    inner = greedy_pairs(len(involved), np.searchsorted(involved, i[hit]),
                         np.searchsorted(involved, j[hit]), score[hit], t, rank=rank[involved],
                         compiled=False)
    labels = np.empty(n, dtype=np.int64)
    alone = np.ones(n, dtype=bool)
    alone[involved] = False
    labels[alone] = inner.n_groups + np.arange(int(alone.sum()))
    labels[involved] = inner.labels
    return labels


@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 30), data=st.data())
def test_partition_sweep_equals_sparse_partition_at_every_threshold(n, data):
    import numpy as np

    from newsdedup.cluster.sweep import PartitionSweep

    k = data.draw(st.integers(0, 80))
    i = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k)), dtype=int)
    j = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k)), dtype=int)
    # Few distinct scores: ties between groups, and repeated pairs with other scores.
    score = np.array(data.draw(st.lists(st.sampled_from([0.1, 0.3, 0.5, 0.7, 1.0, np.nan]),
                                        min_size=k, max_size=k)))
    rank = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    grid = [0.1, 0.2, 0.3, 0.5, 0.7, 1.0]
    for r in (rank, None):
        for compiled in (True, False):
            sweep = PartitionSweep(n, i, j, score, grid[0], r, compiled=compiled)
            for t in grid:
                want = _involved_greedy(n, i, j, score, t,
                                        rank if r is not None else np.zeros(n))
                assert np.array_equal(sweep.labels(t), want)  # the same numbers, not only groups


def test_partition_sweep_refuses_a_threshold_below_its_lists():
    import numpy as np
    import pytest

    from newsdedup.cluster.sweep import PartitionSweep

    for compiled in (True, False):
        sweep = PartitionSweep(3, np.array([0]), np.array([1]), np.array([0.5]), 0.3,
                               compiled=compiled)
        assert sweep.labels(0.5).tolist() == [0, 0, 1]
        assert sweep.labels(0.6).tolist() == [0, 1, 2]
        with pytest.raises(ValueError, match="below the sweep's lowest"):
            sweep.labels(0.2)

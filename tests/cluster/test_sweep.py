"""Tests for newsdedup.cluster.sweep (the seed-batch sweeps, checked against dedupe, are in
test_dedupe, which holds that batch)."""

import pandas as pd

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

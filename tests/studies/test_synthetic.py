"""Enlarging a pool by word-retention rewrites: determinism, provenance, the rewrite model."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.studies.synthetic import enlarge, headline_pool

pool_st = st.lists(st.lists(st.sampled_from(["가", "나", "다", "ab", "cd", "ef", "뉴스", "속보"]),
                            min_size=1, max_size=9).map(" ".join), min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(pool_st, st.integers(1, 80), st.integers(0, 3))
def test_provenance_and_rewrite_model(pool, size, seed):
    df = enlarge(pool, size, seed=seed, fractions=(1.0, 0.5))
    assert len(df) == size and df.equals(enlarge(pool, size, seed=seed, fractions=(1.0, 0.5)))
    real = df.parent.to_numpy() < 0
    # Real items: each pool entry at most once, unchanged, at even positions first.
    assert df.text[real].isin(pool).all() and real.sum() == min(len(pool), (size + 1) // 2)
    in_pool = pd.Series(pool).value_counts()
    assert (df.text[real].value_counts().reindex(in_pool.index, fill_value=0) <= in_pool).all()
    assert (df.retention[real] == 1.0).all() and (df.depth[real] == 0).all()
    rows = np.flatnonzero(~real)
    assert (df.parent.to_numpy()[rows] < rows).all()  # a rewrite's source is earlier
    words = {w for t in pool for w in t.split()}
    for k in rows:
        mine, src = df.text[k].split(), df.text[df.parent[k]].split()
        assert len(mine) == len(src) and set(mine) <= words  # substitutes come from the pool
        assert df.depth[k] == df.depth[df.parent[k]] + 1
        if df.retention[k] == 1.0:
            assert mine == src  # f = 1 keeps every word


def test_retention_controls_how_many_words_survive():
    pool = [" ".join(f"w{i}_{j}" for j in range(20)) for i in range(50)]
    df = enlarge(pool, 2000, seed=5, fractions=(0.3, 0.9))
    kept = {0.3: [], 0.9: []}
    for k in np.flatnonzero(df.parent >= 0):
        src = df.text[df.parent[k]].split()
        same = np.mean([a == b for a, b in zip(df.text[k].split(), src, strict=True)])
        kept[df.retention[k]].append(same)
    # Kept share ~ f (plus the odd substitute that equals the dropped word).
    assert abs(np.mean(kept[0.3]) - 0.3) < 0.03 and abs(np.mean(kept[0.9]) - 0.9) < 0.03


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="size"):
        enlarge(["a b"], 0)
    with pytest.raises(ValueError, match="fractions"):
        enlarge(["a b"], 3, fractions=(0.0,))
    with pytest.raises(ValueError, match="empty"):
        enlarge([], 3)
    with pytest.raises(ValueError, match="no words"):
        enlarge(["  "], 3)
    with pytest.raises(TypeError, match="str"):
        enlarge(["a", None], 3)
    with pytest.raises(ValueError, match="language"):
        headline_pool("fr")


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("language", ["ko", "en"])
def test_headline_pools_are_real_and_distinct(language):
    pool = headline_pool(language)
    assert len(pool) == len(set(pool)) > 5000 and all(p == p.strip() and p for p in pool)

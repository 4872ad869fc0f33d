"""Tests for newsdedup.cluster.keep: which item represents a group."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.cluster.keep import canonical_order, keep_rank, kept_because


def test_keep_rank_priorities():
    df = pd.DataFrame({
        "url": ["https://v.daum.net/v/1", "https://m.news.naver.com/a", "https://news.google.com/x",
                "https://www.nbnnews.co.kr/1", "https://www.nbnnews.co.kr/2", ""],
        "published_at": ["2025-05-09", "2025-05-09", "2025-05-09", "2025-05-01", "2025-05-02",
                         "2025-05-09"],
    })
    rank = keep_rank(df)
    # Syndicators lowest (even when newest), then the opaque/no link, then direct by date.
    assert rank[0] == rank[1] < rank[2] == rank[5] < rank[3] < rank[4]


def test_keep_rank_reads_the_host_column_and_dates():
    df = pd.DataFrame({
        "host": ["v.daum.net", "inews365.com", "inews365.com", "inews365.com", "inews365.com"],
        "url": ["", "", "", "", ""],
        # The same instant in two zones; an hour later in epoch milliseconds;
        # an unknown (empty) date ranks oldest.
        "published_at": ["2025-05-01T10:00:00Z", "2025-05-01T09:00:00+09:00",
                         "2025-05-01T00:00:00Z", "1746061200000", ""],
    })
    rank = keep_rank(df)
    assert rank[0] < rank[4] < rank[1] == rank[2] < rank[3]


def test_keep_rank_refuses_an_unparsable_date():
    # Ranking "not a date" as oldest would silently pick the representative by a typo.
    df = pd.DataFrame({"id": ["a", "b"], "url": ["", ""],
                       "published_at": ["2025-05-01", "not a date"]})
    with pytest.raises(ValueError, match="row 2 of the table .id 'b'.: 'not a date'"):
        keep_rank(df)


def test_canonical_order_breaks_rank_ties_by_content():
    order = canonical_order(np.array([1, 1, 2]), ["b", "a", "c"], ["x", "y", "z"])
    assert order.tolist() == [2, 1, 0]


def test_kept_because_names_the_first_rule_that_decides():
    syndicated = np.array([True, False, False, False, False])
    opaque = np.array([False, True, False, False, False])
    ts = np.array([5.0, 5.0, 1.0, 1.0, 1.0])
    rows = np.array([0, 1, 2, 3, 4])
    reps = np.array([4, 4, 4, 4, 4])
    # Row 0 loses as a syndicated copy although newer; row 1 by its opaque link;
    # row 2 ties the representative on every rule; row 4 is the representative.
    assert kept_because((syndicated, opaque, ts), rows, reps).tolist() == [
        "original-over-syndicator", "direct-over-redirect", "tie-break", "tie-break", ""]
    newer = kept_because((syndicated, opaque, np.array([0, 0, 0, 0, 9.0])), rows[2:4], reps[2:4])
    assert newer.tolist() == ["newer", "newer"]


def _full_order(rank, heads, ids):
    """The order as first written: every id ranked, whatever the ties."""
    from newsdedup.cluster.keep import text_codes

    return np.lexsort((np.arange(len(rank)), text_codes(ids), text_codes(heads),
                       -np.asarray(rank))).astype(np.int64)


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(0, 2), st.sampled_from(["", "a", "b", "가", "ab"]),
                               st.sampled_from(["1", "2", "10", "x", ""])), max_size=40),
       given_codes=st.booleans())
def test_canonical_order_ranks_ids_of_ties_only_same_order(rows, given_codes):
    from newsdedup.cluster.keep import text_codes

    rank = np.array([r for r, _, _ in rows], dtype=np.int64)
    heads, ids = [h for _, h, _ in rows], [i for _, _, i in rows]
    codes = text_codes(heads) if given_codes else None
    got = canonical_order(rank, heads, ids, codes)
    assert got.dtype == np.int64
    assert got.tolist() == _full_order(rank, heads, ids).tolist()


@pytest.mark.parametrize("present", [(), ("host",), ("url",), ("published_at",),
                                     ("host", "url", "published_at")])
def test_absent_columns_read_as_empty_ones(present):
    from newsdedup.cluster.keep import OPAQUE_HOSTS, SYNDICATORS, keep_criteria

    full = pd.DataFrame({"id": ["a", "b", "c"], "title": ["x", "y", "z"], "host": ["", "", ""],
                         "url": ["", "", ""], "published_at": ["", "", ""]})
    part = full.drop(columns=[c for c in ("host", "url", "published_at") if c not in present])
    want = keep_criteria(full, SYNDICATORS, OPAQUE_HOSTS)
    got = keep_criteria(part, SYNDICATORS, OPAQUE_HOSTS)
    for a, b in zip(want, got, strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert got[1].all() and not got[0].any() and np.isneginf(got[2]).all()

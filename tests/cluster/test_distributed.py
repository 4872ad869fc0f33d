"""The Dask paths give exactly the single-machine pairs and groups (local cluster)."""

import distributed
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.cluster.dedupe import DedupeConfig, dedupe, headlines
from newsdedup.cluster.distributed import (
    dask_dedupe,
    dask_threshold_join,
    dedupe_partitions,
)
from newsdedup.score.join import threshold_join
from newsdedup.studies.synthetic import enlarge, headline_pool
from newsdedup.text.normalize import hangul_alnum, item_text
from newsdedup.text.shingle import shingle_matrix


@pytest.fixture(scope="module")
def client():
    # Worker processes, so every task argument really crosses a pickle boundary.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        yield c


def _same_join(a, b):
    np.testing.assert_array_equal(a.pairs.i, b.pairs.i)
    np.testing.assert_array_equal(a.pairs.j, b.pairs.j)
    np.testing.assert_array_equal(a.pairs.score, b.pairs.score)
    assert (a.candidates, a.verified) == (b.candidates, b.verified)


def test_dask_join_equals_single_machine(client, pinned):
    items = pinned.items
    texts = [hangul_alnum(item_text(t, s)) for t, s in zip(items.title, items.summary,
                                                            strict=True)]
    synthetic = [hangul_alnum(t) for t in enlarge(headline_pool("ko"), 3000, seed=3).text]
    for corpus, thresholds in ((texts, (0.1, 0.2)), (synthetic, (0.3, 0.5))):
        shingled = shingle_matrix(corpus, 3)
        for t in thresholds:
            want = threshold_join(shingled, t)
            assert len(want.pairs) > 0
            _same_join(dask_threshold_join(shingled, t, client, block=97), want)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.text(alphabet="abc가나 ", max_size=12), min_size=1, max_size=30),
       st.sampled_from((0.2, 0.5, 1.0)), st.integers(1, 8))
def test_dask_join_on_random_inputs(client, texts, t, block):
    shingled = shingle_matrix(texts, 2)
    _same_join(dask_threshold_join(shingled, t, client, block=block), threshold_join(shingled, t))


def _feed(size: int) -> pd.DataFrame:
    """A synthetic feed with wire copies (same headline, other host) and outlet suffixes."""
    frame = enlarge(headline_pool("ko"), size, seed=11)
    rng = np.random.default_rng(5)
    hosts = np.array(["news.example", "wire.example", "a.example", "b.example"])
    items = pd.DataFrame({"id": [f"k{k}" for k in range(size)], "title": frame.text,
                          "host": hosts[rng.integers(0, 4, size)],
                          "published_at": pd.Timestamp("2026-01-01")
                          + pd.to_timedelta(rng.integers(0, 10**6, size), unit="s")})
    copies = items.sample(size // 10, random_state=1).assign(
        id=lambda d: d.id + "c", title=lambda d: d.title + " - 연합뉴스")
    return pd.concat([items, copies], ignore_index=True).sample(frac=1.0, random_state=2)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("config", [DedupeConfig(), DedupeConfig(scorer="jaccard"),
                                    DedupeConfig(threshold=0.5, scorer="minhash"),
                                    DedupeConfig(exact_pass=False, threshold=0.4),
                                    DedupeConfig(gate=False)])
def test_dask_dedupe_equals_single_machine(client, config):
    items = _feed(1500 if config.gate else 400)
    want = dedupe(items, config).items
    got = dask_dedupe(items, config, client, n_partitions=5)
    pd.testing.assert_frame_equal(got, want)
    assert (want.stage == "near").any()  # the comparison is not vacuous
    assert (want.stage == "exact").any() or not config.exact_pass


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_dask_dedupe_splits_a_crowded_lead_token_as_one_machine(client):
    # More than 4,096 rows open with one agency name: its rows take their next token
    # (gate.split_common_leads), by a row count each partition sees whole.
    plain = _feed(4200)
    items = plain.assign(title=lambda d: "연합뉴스 " + d.title)
    want = dedupe(items, DedupeConfig()).items
    assert (want.lead == dedupe(plain, DedupeConfig()).items.lead).mean() > 0.9  # split
    pd.testing.assert_frame_equal(dask_dedupe(items, DedupeConfig(), client, n_partitions=5),
                                  want)


def test_dask_dedupe_on_the_pinned_corpus(client, pinned):
    want = dedupe(pinned.items, DedupeConfig()).items
    pd.testing.assert_frame_equal(dask_dedupe(pinned.items, DedupeConfig(), client), want)


words = st.sampled_from(["삼성", "삼성전자", "전자", "LG", "실적", "발표", "-", "KT"])


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(words, min_size=1, max_size=4).map(" ".join), min_size=1,
                max_size=40), st.integers(1, 6), st.booleans())
def test_partitions_keep_buckets_and_exact_groups_whole(titles, n_parts, exact):
    items = pd.DataFrame({"title": titles})
    config = DedupeConfig(exact_pass=exact)
    part = dedupe_partitions(items, config, n_parts)
    assert part.shape == (len(titles),) and ((part >= 0) & (part < n_parts)).all()
    h = headlines(items, config)
    heads, keys = h.heads, h.leads
    for a in range(len(titles)):
        for b in range(a):
            if keys[a] == keys[b] or (exact and heads[a] and heads[a] == heads[b]):
                assert part[a] == part[b]


def test_bad_arguments_are_named(client):
    items = pd.DataFrame({"title": ["a"], "summary": ["b"]})
    with pytest.raises(ValueError, match="text='title'"):
        dask_dedupe(items, DedupeConfig(text="title+summary"), client)
    with pytest.raises(ValueError, match="n_partitions"):
        dedupe_partitions(items, DedupeConfig(), 0)

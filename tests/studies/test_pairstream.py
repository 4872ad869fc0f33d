"""The streamed all-pairs statistics equal the dense measurement's figures exactly."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.score.minhash import signatures
from newsdedup.studies.measure import MeasureConfig, measure_ngram
from newsdedup.studies.pairstream import ExactSum, pair_blocks, stream_pair_stats
from newsdedup.studies.synthetic import enlarge, headline_pool
from newsdedup.text.normalize import hangul_alnum

EDGES = np.linspace(0.0, 1.0, 101)
CONFIG = MeasureConfig(ngrams=(3,), top_ngram=3, lsh=False)


def _check(texts, n, cells, top_k=12):
    dense = measure_ngram(texts, n, CONFIG)
    sigs = signatures(dense.shingled, CONFIG.minhash)
    got = stream_pair_stats(dense.shingled, sigs, CONFIG.thresholds, EDGES, top_k, cells=cells)
    table = dense.thresholds
    assert got.pairs == len(dense.exact)
    assert got.real.tolist() == table.real.tolist()
    assert got.candidates.tolist() == table.candidates.tolist()
    assert got.matches.tolist() == table.matches.tolist()
    assert got.exact_hist.tolist() == np.histogram(dense.exact.score, bins=EDGES)[0].tolist()
    assert got.estimate_hist.tolist() == np.histogram(dense.estimate.score, bins=EDGES)[0].tolist()
    if len(dense.exact):
        assert got.err_mean == dense.err_mean  # bit for bit, not approximately
        assert got.err_max == dense.err_max
    else:
        assert math.isnan(got.err_mean) and math.isnan(dense.err_mean)
    assert got.exact_max == dense.exact.max()
    pos = dense.exact.top(top_k)
    assert got.top_i.tolist() == dense.exact.i[pos].tolist()
    assert got.top_j.tolist() == dense.exact.j[pos].tolist()
    assert got.top_score.tolist() == dense.exact.score[pos].tolist()


@pytest.mark.parametrize(("size", "cells"), [(2, 1), (50, 7), (400, 1000), (1500, 40_000)])
def test_streamed_equals_dense_on_korean_headlines(size, cells):
    texts = [hangul_alnum(t) for t in enlarge(headline_pool("ko"), size, seed=1).text]
    _check(texts, 3, cells)


@settings(max_examples=40, deadline=None)
@given(texts=st.lists(st.text(alphabet="가나다ab", min_size=0, max_size=9), min_size=1,
                      max_size=30),
       cells=st.integers(1, 200), top_k=st.integers(1, 20))
def test_streamed_equals_dense_hypothesis(texts, cells, top_k):
    _check(texts, 2, cells, top_k)


def test_pair_blocks_cover_every_pair_once():
    for n, cells in [(1, 5), (7, 1), (30, 11), (100, 10**6)]:
        rows = [r for lo, hi in pair_blocks(n, cells) for r in range(lo, hi)]
        assert rows == list(range(n))


@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False) | st.floats(0, 1e-300), max_size=60),
       st.integers(1, 7))
def test_exact_sum_equals_fsum_in_any_split(values, parts):
    s = ExactSum()
    for chunk in np.array_split(np.asarray(values, dtype=np.float64), parts):
        s.add(chunk)
    assert s.value() == math.fsum(values)


@pytest.mark.parametrize("size", [30, 700])
def test_streamed_report_equals_dense_report(size):
    import pandas as pd

    from newsdedup.studies.measure import normalized_texts, run_measure
    from newsdedup.studies.measure_streamed import run_streamed

    frame = enlarge(headline_pool("ko"), size, seed=2)
    items = pd.DataFrame({"id": [f"s{k}" for k in range(size)], "title": frame.text,
                          "summary": ""})
    config = MeasureConfig(error_perms=(16, 128), error_max_pairs=5000, sweep_ngrams=(3,))
    dense = run_measure(items, config)
    streamed = run_streamed(items, normalized_texts(items, config.scheme), config,
                            lambda _m: None)
    pd.testing.assert_frame_equal(streamed.summary(), dense.summary())
    pd.testing.assert_frame_equal(streamed.thresholds(), dense.thresholds())
    pd.testing.assert_frame_equal(streamed.histogram(), dense.histogram())
    pd.testing.assert_frame_equal(streamed.top, dense.top)
    # 700 items have 244,650 pairs: the error study samples 5,000 of them on both paths.
    pd.testing.assert_frame_equal(streamed.errors, dense.errors)

"""Order independence: shuffling the records changes no figure of measure, cross-host or dedupe.

The guarantee docs/reliability.md lists (issue 28; item 18, the calibration's simulated
recall, is held by the calibration's own tests). Tables are compared as numbers after
sorting by their keys: the order in which equal counts are listed (first appearance) is
presentation, not a figure.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from newsdedup.cluster.dedupe import DedupeConfig, dedupe
from newsdedup.runs.crosshost import CrossHostConfig, exact_scores
from newsdedup.studies.crosshost import cross_host
from newsdedup.studies.measure import MeasureConfig, run_measure

TIMING = ["sig_seconds", "exact_seconds", "seconds"]


@pytest.fixture(scope="module")
def shuffled(pinned):
    order = np.random.default_rng(28).permutation(len(pinned.items))
    return replace(pinned, items=pinned.items.iloc[order].reset_index(drop=True))


def numbers(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    frame = frame.drop(columns=[c for c in TIMING if c in frame.columns])
    return frame.sort_values(keys).reset_index(drop=True)


def test_measure_figures_do_not_depend_on_record_order(pinned, shuffled):
    config = MeasureConfig(ngrams=(3, 4), error_perms=(16, 64))
    a, b = run_measure(pinned.items, config), run_measure(shuffled.items, config)
    pd.testing.assert_frame_equal(numbers(a.summary(), ["n"]), numbers(b.summary(), ["n"]))
    pd.testing.assert_frame_equal(numbers(a.thresholds(), ["n", "threshold"]),
                                  numbers(b.thresholds(), ["n", "threshold"]))
    pd.testing.assert_frame_equal(a.histogram(), b.histogram())


def test_crosshost_figures_do_not_depend_on_record_order(pinned, shuffled):
    options = CrossHostConfig(hosts=("deepmind.google", "blog.google"))  # the pinned pair
    reports = [cross_host(c.items, exact_scores(c.items, options.n), options.hosts,
                          options.window_days) for c in (pinned, shuffled)]
    a, b = reports
    assert (a.n_cross, a.max_score, a.n_above_bound, a.n_in_window) == (
        b.n_cross, b.max_score, b.n_above_bound, b.n_in_window)
    assert dict(zip(a.hosts["host"], a.hosts["count"], strict=True)) == dict(
        zip(b.hosts["host"], b.hosts["count"], strict=True))


@pytest.mark.parametrize("scheme", ["hangul-alnum", "unicode-alnum"])
def test_dedupe_groups_do_not_depend_on_record_order(pinned, shuffled, scheme):
    config = DedupeConfig(scheme=scheme)
    a = dedupe(pinned.items, config).items.set_index("id")
    b = dedupe(shuffled.items, config).items.set_index("id").loc[a.index]
    for column in ("representative", "stage", "score_to_rep", "rule"):
        assert (a[column] == b[column]).all(), column

"""Tests for newsdedup.score.bins: the bins of the join histograms and the LSH recall table."""

from __future__ import annotations

import numpy as np
import pytest

from newsdedup.score.bins import bin_of, check_edges


def test_bin_of_agrees_with_the_interval_definition() -> None:
    rng = np.random.default_rng(0)
    edges = check_edges([0.0, 0.3, 0.55, 0.8, 1.0])
    scores = np.concatenate([rng.random(500), edges])  # the edges themselves included
    got = bin_of(scores, edges)
    for s, b in zip(scores, got, strict=True):
        if s == 1.0:
            assert b == len(edges) - 2  # the last bin is closed on the right
        else:
            assert edges[b] <= s < edges[b + 1]


@pytest.mark.parametrize(
    ("edges", "message"),
    [
        ([0.5], ">= 2 strictly increasing"),
        ([0.0, 0.5, 0.5, 1.0], ">= 2 strictly increasing"),
        ([-0.1, 1.0], "start at >= 0"),
        ([0.0, 0.9], "end at >= 1.0"),
    ],
)
def test_check_edges_refuses_bad_edges(edges: list[float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_edges(edges)

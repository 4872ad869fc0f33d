"""Tests for newsdedup.studies.sensitivity_words: the random stream and the range helper."""

from __future__ import annotations

import random

import numpy as np
import pytest

from newsdedup.studies.sensitivity_words import python_mt_generator, ranges


@pytest.mark.parametrize("seed", [0, 7, 42, 2**40 + 3])
def test_numpy_mt_stream_equals_python_random(seed: int) -> None:
    gen = python_mt_generator(seed)
    rnd = random.Random(seed)
    # Several calls: the engine draws in chunks and relies on continuity.
    for k in (1, 1000, 7, 25_000):
        assert gen.random(k).tolist() == [rnd.random() for _ in range(k)]


@pytest.mark.parametrize(
    "starts, lengths",
    [([], []), ([5], [0]), ([3, 10, 0], [2, 0, 3]), ([7, 7, 2], [1, 4, 1]), ([0], [6])],
)
def test_ranges(starts: list[int], lengths: list[int]) -> None:
    got = ranges(np.array(starts, dtype=np.int64), np.array(lengths, dtype=np.int64))
    expected = [i for s, n in zip(starts, lengths, strict=True) for i in range(s, s + n)]
    assert got.dtype == np.int64
    assert got.tolist() == expected

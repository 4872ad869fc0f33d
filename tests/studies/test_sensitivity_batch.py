"""Tests for newsdedup.studies.sensitivity_batch: which engine a batch runs.

The values of both engines are checked against the reference in test_sensitivity.
"""

from __future__ import annotations

import numpy as np
import pytest

from newsdedup.corpus.load import LoadResult
from newsdedup.studies.sensitivity import SensitivityConfig, split_items, texts_from_items
from newsdedup.studies.sensitivity_batch import Batch
from newsdedup.studies.sensitivity_words import Packing, WordPieces


@pytest.fixture(scope="module")
def pinned_texts(pinned: LoadResult) -> list[str]:
    # A missing pinned corpus raises in the `pinned` fixture: the test fails, never skips.
    return texts_from_items(pinned.items)


def test_published_run_takes_the_packed_path(pinned_texts: list[str]) -> None:
    # The fast path silently falling back to the character engine would keep
    # every value right but lose the speed: guard it.
    params = SensitivityConfig()
    used, _ = split_items(pinned_texts, params.min_words)
    corpus = WordPieces(used, params.scheme)
    packing = Packing.build(corpus, params.n)
    assert packing is not None
    items = np.arange(len(used))
    for side in ("both", "one"):
        batch = Batch(corpus, items, params.trials, side, params.n, packing)
        assert batch.packing is packing

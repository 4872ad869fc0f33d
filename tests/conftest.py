"""Shared fixtures. The pinned corpus must be present: its tests fail, never skip."""

from __future__ import annotations

import pytest

from newsdedup.corpus.load import LoadResult, load_corpus
from newsdedup.paths import locate_pinned


@pytest.fixture(scope="session")
def pinned() -> LoadResult:
    """The 387-item archive read as the published run read it (seed dialect)."""
    return load_corpus(locate_pinned(), dialect="seed")


@pytest.fixture(scope="session")
def pinned_standard() -> LoadResult:
    """The same archive with correct TypeScript string decoding."""
    return load_corpus(locate_pinned(), dialect="standard")

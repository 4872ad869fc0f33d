"""The scorer registry's names: light enough for the command line's parser (no numpy).

:mod:`newsdedup.score.scorers` builds the scorers; their names, kinds and the
lists derived from them are defined here once (and re-exported there), so that
``newsdedup --help`` and every command's parser can offer them without
importing numpy, scipy or datasketch.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScorerKind:
    """One entry of the scorer registry.

    Attributes:
        kind: Its name in the evaluation tables (``"idf-ref"``).
        scorer: The :func:`make_scorer` name it is built with (``"idf"``).
        idf: For ``scorer == "idf"``: where the IDF comes from, ``"batch"`` or
            ``"reference"``; None for the others.
        description: One line for tables and help texts.
    """

    kind: str
    scorer: str
    idf: str | None
    description: str

    @property
    def estimate(self) -> bool:
        """Whether the score is a MinHash estimate (it then needs signatures)."""
        return self.scorer == "minhash"

    @property
    def surface(self) -> bool:
        """Whether the score reads character n-grams (every kind but ``"embedding"``)."""
        return self.scorer != "embedding"


KINDS: dict[str, ScorerKind] = {k.kind: k for k in (
    ScorerKind("jaccard", "jaccard", None, "plain character n-gram Jaccard"),
    ScorerKind("idf-batch", "idf", "batch", "IDF-weighted Jaccard, IDF from the scored batch"),
    ScorerKind("idf-ref", "idf", "reference",
               "IDF-weighted Jaccard, IDF from a reference corpus"),
    ScorerKind("minhash", "minhash", None, "MinHash estimate of plain Jaccard"),
    ScorerKind("embedding", "embedding", None, "cosine similarity of sentence embeddings"),
)}
"""The registry: kind name -> :class:`ScorerKind`, in the order of the seed's history
(plain, IDF, then sketches), then sentence embeddings."""

SCORER_KINDS: tuple[str, ...] = tuple(KINDS)
"""Kind names: ``("jaccard", "idf-batch", "idf-ref", "minhash", "embedding")``."""

SCORERS: tuple[str, ...] = tuple(dict.fromkeys(k.scorer for k in KINDS.values()))
"""Names :func:`make_scorer` builds: ``("jaccard", "idf", "minhash", "embedding")``."""

SURFACE_SCORERS: tuple[str, ...] = tuple(dict.fromkeys(k.scorer for k in KINDS.values()
                                                       if k.surface))
"""The :data:`SCORERS` that need only shingles (no encoder pass): what sweeps default to."""

IDF_SOURCES: tuple[str, ...] = tuple(k.idf for k in KINDS.values() if k.idf is not None)
"""Where IDF weights can come from: ``("batch", "reference")``."""

"""Signals of a candidate pair, side by side: surface scores, host, date gap, entities.

Seed 004's cross-host finding: two Google sites posting the same
announcement in their own words (the AlphaEvolve pair) score 0.129, below
the 0.234 of the most similar *unrelated* pair, so no threshold on the
surface string separates them. Its three proposals are the columns of
:func:`pair_signals` beside the surface scores:

- **host relation** from the URL (``source`` is a brand and merges sites):
  ``same-host``, ``same-org`` (different hosts of one organisation, from the
  configurable :data:`HOST_ORGS`), ``cross-org``, or ``unknown`` (a URL
  missing);
- **date gap** in days (``NaN`` when a date is missing);
- **entities** (:mod:`newsdedup.signals.entities`): how many non-brand names the two
  items share, their Jaccard, and whether they version one product line
  differently (a version conflict).

Surface scores are per field: character n-gram Jaccard of the titles, of
the summaries and of title + summary (the published score), each plain and
IDF-weighted (IDF per field over the corpus): the registry's ``"jaccard"``
and ``"idf-batch"`` kinds (:mod:`newsdedup.score.scorers`). Scores are computed for the
requested pairs only (sparse row products), so a 6,000-item corpus can be
processed in blocks without any ``N x N`` matrix.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp

from newsdedup.corpus.hosts import parse_dates
from newsdedup.score.scorers import PairScorer, make_pair_scorer, scorer_kind
from newsdedup.signals.entities import (
    BRANDS,
    Entity,
    EntityConfig,
    EntityMatrix,
    brand_mask,
    entity_matrix,
    extract_all,
    version_conflicts,
)
from newsdedup.text.normalize import DEFAULT_SCHEME, get_scheme, item_texts
from newsdedup.text.shingle import ShingleMatrix, shingle_matrix

HOST_ORGS: dict[str, str] = {
    "blog.google": "google",
    "deepmind.google": "google",
    "www.anthropic.com": "anthropic",
    "platform.claude.com": "anthropic",
    "claude.com": "anthropic",
    "openai.com": "openai",
    "platform.openai.com": "openai",
}
"""Host -> organisation. A host not listed is its own organisation (``www.`` dropped)."""

RELATIONS: tuple[str, ...] = ("same-host", "same-org", "cross-org", "unknown")
"""Host relations of a pair, codes 0..3 in this order."""

FIELDS: tuple[str, ...] = ("title", "summary", "text")
"""Fields with surface scores: the title, the summary, and title + summary."""

SURFACE_KINDS: tuple[str, ...] = ("jaccard", "idf-batch")
"""Registry kinds (:data:`newsdedup.score.scorers.KINDS`) every field is scored with."""


def surface_column(field: str, kind: str) -> str:
    """The signal-frame column of one field scored with one kind: ``<field>_<scorer>``.

    Examples:
        >>> surface_column("title", "idf-batch")
        'title_idf'
    """
    return f"{field}_{scorer_kind(kind).scorer}"


SURFACE: tuple[str, ...] = tuple(surface_column(f, k) for f in FIELDS for k in SURFACE_KINDS)
"""Surface-score columns of the signal frame: ``title_jaccard``, ``title_idf``,
``summary_jaccard``, ..., ``text_idf``."""


def organisation(host: str, host_orgs: Mapping[str, str] = HOST_ORGS) -> str:
    """The organisation a host belongs to.

    Examples:
        >>> organisation("deepmind.google"), organisation("www.latimes.com"), organisation("")
        ('google', 'latimes.com', '')
    """
    if host in host_orgs:
        return host_orgs[host]
    return host.removeprefix("www.")


@dataclass(frozen=True)
class SignalConfig:
    """Parameters of the pair signals.

    Attributes:
        n: Character n-gram size of every surface score.
        scheme: Normalization scheme (:mod:`newsdedup.text.normalize`).
        host_orgs: Host -> organisation map.
        brands: Organisation -> brand names dropped from shared entities.
        entities: Entity extraction settings.
    """

    n: int = 4
    scheme: str = DEFAULT_SCHEME
    host_orgs: Mapping[str, str] = field(default_factory=lambda: dict(HOST_ORGS))
    brands: Mapping[str, frozenset[str]] = field(default_factory=lambda: dict(BRANDS))
    entities: EntityConfig = field(default_factory=EntityConfig)

    def as_dict(self) -> dict:
        """The settings as plain JSON values (sorted maps), for ``params.json``."""
        return {"n": self.n, "scheme": self.scheme,
                "host_orgs": dict(sorted(self.host_orgs.items())),
                "brands": {k: sorted(v) for k, v in sorted(self.brands.items())},
                "entity_unit": self.entities.unit, "korean_entities": self.entities.korean,
                "script_map": dict(sorted(self.entities.script_map.items()))}


@dataclass(frozen=True)
class Prepared:
    """Everything per item the pair signals need, computed once per corpus.

    Attributes:
        items: The corpus table (RangeIndex).
        config: The settings used.
        orgs: Organisation per item.
        days: Publication time per item in days since the epoch (``NaN`` if missing).
        shingles: Field name -> shingle matrix (``title``, ``summary``, ``text``).
        surface: :data:`SURFACE` column -> its scorer (IDF per field over the corpus).
        entities: Entities per item (all of them, brands included).
        matrix: Entity incidence matrices.
        own: ``items x name`` 0/1 matrix of each item's entities minus its
            publisher's brands: what can be shared.
    """

    items: pd.DataFrame
    config: SignalConfig
    orgs: np.ndarray
    days: np.ndarray
    shingles: dict[str, ShingleMatrix]
    surface: dict[str, PairScorer]
    entities: list[list[Entity]]
    matrix: EntityMatrix
    own: sp.csr_matrix

    @property
    def n_items(self) -> int:
        """Number of items."""
        return len(self.items)


def prepare(items: pd.DataFrame, config: SignalConfig | None = None) -> Prepared:
    """Shingle every field, parse dates, extract entities: the per-item half of the signals.

    Args:
        items: Corpus table with ``title`` and optionally ``summary``, ``host``,
            ``published_at`` (missing columns count as empty).
        config: Settings; defaults to :class:`SignalConfig`.

    Returns:
        A :class:`Prepared` for :func:`pair_signals`.
    """
    config = config or SignalConfig()
    items = items.reset_index(drop=True)
    for col in ("summary", "host", "published_at"):
        if col not in items:
            items = items.assign(**{col: ""})
    # item_texts has no summary-only text: the summary alone, with its rule for missing values.
    summaries = items["summary"].fillna("").astype(str)
    texts = {"title": item_texts(items, "title", config.scheme),
             "summary": [get_scheme(config.scheme)(t) for t in summaries],
             "text": item_texts(items, "title+summary", config.scheme)}
    shingles = {k: shingle_matrix(v, config.n) for k, v in texts.items()}
    surface = {surface_column(f, k): make_pair_scorer(shingles[f], k)
               for f in FIELDS for k in SURFACE_KINDS}
    dates = parse_dates(items).to_numpy()
    days = (dates - np.datetime64("1970-01-01")) / np.timedelta64(1, "D")
    orgs = np.asarray([organisation(h, config.host_orgs) for h in items["host"].astype(str)],
                      dtype=object)
    ents = extract_all(item_texts(items, "title+summary", None), config.entities)
    em = entity_matrix(ents)
    uniq, org_code = np.unique(orgs.astype(str), return_inverse=True)
    brands = brand_mask(list(uniq), em.name_vocab, config.brands)[org_code]
    own = (em.names - em.names.multiply(brands)).tocsr()
    own.eliminate_zeros()
    return Prepared(items, config, orgs, days.astype(np.float64), shingles, surface, ents, em, own)


def host_relation(prep: Prepared, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Host relation code per pair (index into :data:`RELATIONS`)."""
    hosts = prep.items["host"].astype(str).to_numpy(dtype=object)
    hi, hj = hosts[i], hosts[j]
    code = np.where(hi == hj, 0, np.where(prep.orgs[i] == prep.orgs[j], 1, 2))
    return np.where((hi == "") | (hj == ""), 3, code).astype(np.int8)


def upper_indices(n: int) -> tuple[np.ndarray, np.ndarray]:
    """All pairs ``i < j`` of ``n`` items in combinations order."""
    i, j = np.triu_indices(n, k=1)
    return i.astype(np.int64), j.astype(np.int64)


def upper_blocks(n: int, block: int = 256) -> Iterator[tuple[int, int, np.ndarray, np.ndarray]]:
    """All pairs ``i < j`` of ``n`` items, ``block`` first items at a time.

    Concatenated, the blocks are :func:`upper_indices` (combinations order); each holds
    the pairs whose first item is in ``lo .. hi - 1``, so memory is one block's pairs.

    Yields:
        ``(lo, hi, i, j)``.

    Examples:
        >>> [(lo, hi, i.tolist(), j.tolist()) for lo, hi, i, j in upper_blocks(4, 2)]
        [(0, 2, [0, 0, 0, 1, 1], [1, 2, 3, 2, 3]), (2, 3, [2], [3])]
    """
    for lo in range(0, max(n - 1, 0), block):
        hi = min(lo + block, n - 1)
        rows = np.arange(lo, hi, dtype=np.int64)
        counts = n - 1 - rows
        i = np.repeat(rows, counts)
        # j runs from i + 1 to n - 1 for each i: offsets within each row's run.
        start = np.repeat(np.cumsum(counts) - counts, counts)
        yield lo, hi, i, i + 1 + (np.arange(len(i), dtype=np.int64) - start)


def pair_signals(prep: Prepared, i: np.ndarray | None = None, j: np.ndarray | None = None,
                 labels: bool = True, fields: tuple[str, ...] = FIELDS) -> pd.DataFrame:
    """The signal frame: one row per pair, every signal in its own column.

    Args:
        prep: Output of :func:`prepare`.
        i: First item per pair; with ``j`` ``None``, all pairs ``i < j``.
        j: Second item per pair.
        labels: Add ``id_i``, ``id_j``, ``host_i``, ``host_j`` (skip them for
            millions of pairs evaluated in blocks).
        fields: Which of :data:`FIELDS` get surface scores (title-only
            corpora need only ``("title",)``).

    Returns:
        Columns ``i, j`` (and the labels), ``host_relation`` (a category of
        :data:`RELATIONS`), ``days_apart`` (float days, ``NaN`` if a date is
        missing), the :data:`SURFACE` scores in ``[0, 1]``, ``entities_i`` and
        ``entities_j`` (non-brand names per side), ``shared_entities`` (count),
        ``entity_jaccard`` in ``[0, 1]`` (0.0 when neither side has a name)
        and ``version_conflict`` (bool).
    """
    if i is None or j is None:
        i, j = upper_indices(prep.n_items)
    i, j = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
    out = {"i": i, "j": j}
    if labels:
        for col in ("id", "host"):
            values = prep.items[col].to_numpy(dtype=object)
            out[f"{col}_i"], out[f"{col}_j"] = values[i], values[j]
    out["host_relation"] = pd.Categorical.from_codes(host_relation(prep, i, j), RELATIONS)
    out["days_apart"] = np.abs(prep.days[i] - prep.days[j])
    for f in fields:
        for kind in SURFACE_KINDS:
            out[surface_column(f, kind)] = prep.surface[surface_column(f, kind)].pairs(i, j)
    sizes = np.diff(prep.own.indptr).astype(np.int64)
    shared = np.asarray(prep.own[i].multiply(prep.own[j]).sum(axis=1), dtype=np.int64).ravel()
    union = sizes[i] + sizes[j] - shared
    ejac = np.zeros(len(i), dtype=np.float64)
    np.divide(shared, union, out=ejac, where=union > 0)
    out |= {"entities_i": sizes[i], "entities_j": sizes[j], "shared_entities": shared,
            "entity_jaccard": ejac}
    conflicts = version_conflicts(prep.matrix, i, j)
    out["version_conflict"] = np.diff(conflicts.indptr) > 0
    return pd.DataFrame(out)


def _names(rows: sp.csr_matrix, vocab: list[str]) -> list[str]:
    """Per row of a 0/1 name matrix: its names, ``"; "``-joined in column order."""
    return ["; ".join(vocab[c] for c in rows.indices[rows.indptr[k]:rows.indptr[k + 1]])
            for k in range(rows.shape[0])]


def describe(prep: Prepared, frame: pd.DataFrame) -> pd.DataFrame:
    """Add what a reader needs to judge a few pairs: shared names, conflicts, texts.

    Meant for listed pairs (candidates, a labeling sheet), not millions of rows.

    Returns:
        ``frame`` with ``shared_names`` (non-brand names both mention, sorted,
        ``"; "``-joined), ``conflict`` (per conflicting name, the versions of
        each side, e.g. ``"gemini robotics er 2 | 1.6"``) and per side
        ``published_at``, ``title``, ``summary``.
    """
    i, j = frame["i"].to_numpy(np.int64), frame["j"].to_numpy(np.int64)
    vocab = prep.matrix.name_vocab
    shared = prep.own[i].multiply(prep.own[j]).tocsr()
    shared.sort_indices()
    conflicts = version_conflicts(prep.matrix, i, j)
    conflicts.sort_indices()
    versions: dict[tuple[int, str], list[str]] = {}
    for k, row in enumerate(prep.entities):
        for e in row:
            if e.version:
                lst = versions.setdefault((k, e.name), [])
                if e.version not in lst:
                    lst.append(e.version)
    text = []
    for r in range(conflicts.shape[0]):
        cols = conflicts.indices[conflicts.indptr[r]:conflicts.indptr[r + 1]]
        text.append("; ".join(
            f"{vocab[c]} {'/'.join(versions[(int(i[r]), vocab[c])])} | "
            f"{'/'.join(versions[(int(j[r]), vocab[c])])}" for c in cols))
    out = frame.copy()
    out["shared_names"] = _names(shared, vocab)
    out["conflict"] = text
    for side, idx in (("i", i), ("j", j)):
        for col in ("published_at", "title", "summary"):
            out[f"{col}_{side}"] = prep.items[col].to_numpy(dtype=object)[idx]
    return out

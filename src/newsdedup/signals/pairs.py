"""Signals of a candidate pair, side by side: surface scores, host, date gap, entities.

Seed 004's cross-host finding: two Google sites posting the same
announcement in their own words (the AlphaEvolve pair) score 0.129, below
the 0.234 of the most similar *unrelated* pair, so no threshold on the
surface string separates them. Its three proposals are the columns of
:func:`pair_signals` beside the surface scores:

- **host relation** from the URL (``source`` is a brand and merges sites):
  ``same-host``, ``same-org`` (different hosts of one organisation, from the
  ``[hosts]`` map of the signal config file, :mod:`newsdedup.signals.settings`),
  ``cross-org``, or ``unknown`` (a URL missing);
- **date gap** in days (``NaN`` when a date is missing);
- **entities** (:mod:`newsdedup.signals.entities`): how many product lines
  and names the two items share that are neither a brand of their publisher
  nor a word every item uses (weights learned from the corpus,
  :mod:`newsdedup.signals.lexicon`), the shared weight, a weighted Jaccard,
  and whether they version one shared line differently (a version conflict);
- **cosine** of the two items' sentence embeddings when an embedding
  function is given to :func:`prepare` (``NaN`` otherwise).

Surface scores are per field: character n-gram Jaccard of the titles, of
the summaries and of title + summary (the published score), each plain and
IDF-weighted (IDF per field over the corpus): the registry's ``"jaccard"``
and ``"idf-batch"`` kinds (:mod:`newsdedup.score.scorers`). Scores are computed for the
requested pairs only (sparse row products), so a 6,000-item corpus can be
processed in blocks without any ``N x N`` matrix.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from newsdedup.corpus.hosts import parse_dates
from newsdedup.score.scorers import PairScorer, make_pair_scorer, scorer_kind
from newsdedup.signals.entities import (
    Entity,
    EntityConfig,
    EntityMatrix,
    entity_matrix,
    extract_all,
    shared_lines,
    version_conflicts,
)
from newsdedup.signals.lexicon import (
    AliasRule,
    NameWeights,
    WeightRule,
    capitalized_share,
    learn_aliases,
    learn_weights,
    strip_brands,
)
from newsdedup.signals.settings import load_settings
from newsdedup.text.normalize import DEFAULT_SCHEME, get_scheme, item_texts
from newsdedup.text.shingle import ShingleMatrix, shingle_matrix

Embed = Callable[[Sequence[str]], np.ndarray]
"""Texts -> ``texts x dim`` L2-normalized float32 matrix (e.g. ``newsdedup.score.embed``)."""

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


def organisation(host: str, host_orgs: Mapping[str, str] | None = None) -> str:
    """The organisation a host belongs to (``host_orgs``: the config file's ``[hosts]``).

    Examples:
        >>> organisation("deepmind.google"), organisation("www.latimes.com"), organisation("")
        ('google', 'latimes.com', '')
    """
    host_orgs = load_settings().hosts if host_orgs is None else host_orgs
    if host in host_orgs:
        return host_orgs[host]
    return host.removeprefix("www.")


@dataclass(frozen=True)
class SignalConfig:
    """Parameters of the pair signals.

    Defaults come from the signal config file (:mod:`newsdedup.signals.settings`).

    Attributes:
        n: Character n-gram size of every surface score.
        scheme: Normalization scheme (:mod:`newsdedup.text.normalize`).
        host_orgs: Host -> organisation map.
        weights: How name weights are learned from document frequency.
        learn_aliases: Learn Hangul spellings of Latin names from the corpus.
        alias_rule: Thresholds of the learned spellings.
        extra_aliases: Spellings given by hand (applied with the learned ones).
        entities: Entity extraction settings (its ``aliases`` are filled in by
            :func:`prepare`).
        config_file: The config file the defaults came from (recorded).
    """

    n: int = 4
    scheme: str = DEFAULT_SCHEME
    host_orgs: Mapping[str, str] = field(default_factory=lambda: dict(load_settings().hosts))
    weights: WeightRule = field(default_factory=lambda: load_settings().weights)
    learn_aliases: bool = field(default_factory=lambda: load_settings().learn_aliases)
    alias_rule: AliasRule = field(default_factory=lambda: load_settings().alias_rule)
    extra_aliases: Mapping[str, str] = field(
        default_factory=lambda: dict(load_settings().extra_aliases))
    entities: EntityConfig = field(default_factory=EntityConfig)
    config_file: str = field(default_factory=lambda: load_settings().path)

    @classmethod
    def from_file(cls, path, **overrides) -> SignalConfig:
        """Settings from a signal config file, with keyword overrides."""
        s = load_settings(path)
        base: dict[str, Any] = {"host_orgs": dict(s.hosts), "weights": s.weights,
                                "learn_aliases": s.learn_aliases, "alias_rule": s.alias_rule,
                                "extra_aliases": dict(s.extra_aliases), "config_file": s.path}
        return cls(**(base | overrides))

    def as_dict(self) -> dict:
        """The settings as plain JSON values (sorted maps), for ``params.json``."""
        return {"n": self.n, "scheme": self.scheme, "config_file": Path(self.config_file).name,
                "host_orgs": dict(sorted(self.host_orgs.items())),
                "weights": asdict(self.weights), "learn_aliases": self.learn_aliases,
                "alias_rule": asdict(self.alias_rule),
                "extra_aliases": dict(sorted(self.extra_aliases.items())),
                "entity_unit": self.entities.unit, "korean_entities": self.entities.korean}


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
        matrix: Entity incidence matrices (names and lines).
        aliases: Spellings applied before extraction (learned + given), as
            written -> Latin name.
        weights: Learned name weights.
        own_names: ``items x name`` 0/1: the item's names that weigh more than 0.
        own_lines: ``items x name`` weights of the item's lines that weigh more
            than 0 (its publisher's brands and corpus-wide words dropped).
        embeddings: ``items x dim`` L2-normalized sentence embeddings of title +
            summary, or ``None`` when no embedding function was given.
    """

    items: pd.DataFrame
    config: SignalConfig
    orgs: np.ndarray
    days: np.ndarray
    shingles: dict[str, ShingleMatrix]
    surface: dict[str, PairScorer]
    entities: list[list[Entity]]
    matrix: EntityMatrix
    aliases: dict[str, str]
    weights: NameWeights
    own_names: sp.csr_matrix
    own_lines: sp.csr_matrix
    embeddings: np.ndarray | None = None

    @property
    def n_items(self) -> int:
        """Number of items."""
        return len(self.items)


def _embeddings(embed: Embed, texts: Sequence[str]) -> np.ndarray:
    """Call ``embed`` and check its contract: one L2-normalized float row per text."""
    out = np.asarray(embed(list(texts)), dtype=np.float32)
    if out.ndim != 2 or out.shape[0] != len(texts):
        raise ValueError(f"embed returned shape {out.shape} for {len(texts)} texts; expected "
                         f"({len(texts)}, dim)")
    norms = np.linalg.norm(out, axis=1)
    if len(out) and not np.allclose(norms, 1.0, atol=1e-3):
        raise ValueError("embed must return L2-normalized rows (norms from "
                         f"{norms.min():.3f} to {norms.max():.3f})")
    return out


def prepare(items: pd.DataFrame, config: SignalConfig | None = None,
            embed: Embed | None = None) -> Prepared:
    """Shingle every field, parse dates, extract entities: the per-item half of the signals.

    Entities: the Hangul spellings of Latin names are learned from the
    corpus (when Korean entities are on and ``learn_aliases`` is set), joined
    with the hand-given ones and applied; then names are extracted and
    weighted by document frequency per organisation and corpus-wide (and by
    how often a one-word name is written in lower case); names that start
    with a zero-weight name are also read without it and the weights learned
    again (:func:`newsdedup.signals.lexicon.strip_brands`).

    Args:
        items: Corpus table with ``title`` and optionally ``summary``, ``host``,
            ``published_at`` (missing columns count as empty).
        config: Settings; defaults to :class:`SignalConfig`.
        embed: Sentence-embedding function for the ``cosine`` signal
            (:data:`Embed`); ``None`` leaves ``cosine`` at ``NaN``.

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
    raw = item_texts(items, "title+summary", None)
    learned = (learn_aliases(raw, config.alias_rule, config.entities.unit)
               if config.learn_aliases and config.entities.korean else {})
    aliases = learned | dict(config.extra_aliases)  # a hand-given spelling wins
    ents = extract_all(raw, replace(config.entities, aliases=aliases))
    org_list = [str(o) for o in orgs]
    caps = capitalized_share(raw)
    em = entity_matrix(ents)
    weights = learn_weights(em, org_list, config.weights, caps)
    # Second pass: a name that starts with a zero-weight name is also read without it
    # ("Google DeepMind" -> "deepmind"), then the weights are learned again.
    zero = weights.item.copy()
    zero.data = (zero.data == 0).astype(np.int8)
    zero.eliminate_zeros()
    vocab = em.name_vocab
    ents = strip_brands(ents, [{vocab[c] for c in zero.indices[zero.indptr[k]:zero.indptr[k + 1]]}
                               for k in range(len(ents))])
    em = entity_matrix(ents)
    weights = learn_weights(em, org_list, config.weights, caps)
    own_lines = weights.item.copy()
    own_lines.eliminate_zeros()
    own_names = em.names.multiply(own_lines > 0).tocsr().astype(np.int32)
    vectors = _embeddings(embed, raw) if embed is not None else None
    return Prepared(items, config, orgs, days.astype(np.float64), shingles, surface, ents, em,
                    aliases, weights, own_names, own_lines.tocsr(), vectors)


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
        ``entities_j`` (names per side that weigh more than 0),
        ``shared_entities`` (shared lines that weigh more than 0),
        ``entity_weight`` (their summed weight), ``entity_jaccard`` in
        ``[0, 1]`` (:func:`entity_signals`), ``version_conflict`` (bool) and
        ``cosine`` (``NaN`` without embeddings).
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
    out |= entity_signals(prep, i, j)
    conflicts = version_conflicts(prep.matrix, i, j)
    out["version_conflict"] = np.diff(conflicts.indptr) > 0
    out["cosine"] = cosine(prep, i, j)
    return pd.DataFrame(out)


def entity_signals(prep: Prepared, i: np.ndarray, j: np.ndarray) -> dict[str, np.ndarray]:
    """Per pair: own names per side, shared lines, their weight, and a weighted Jaccard.

    A shared line (:func:`newsdedup.signals.entities.shared_lines`) counts
    when it weighs more than 0 for both items' publishers; its weight for the
    pair is the smaller of the two. The Jaccard is the shared weight over the
    weight of the union of both items' lines (0.0 when neither has one).
    """
    shared = shared_lines(prep.own_names, prep.own_lines, i, j)
    wi, wj = prep.own_lines[i], prep.own_lines[j]
    a, b = wi.multiply(wj > 0).tocsr(), wj.multiply(wi > 0).tocsr()
    a.sort_indices()
    b.sort_indices()
    if np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices):
        wmin = sp.csr_matrix((np.minimum(a.data, b.data), a.indices, a.indptr), shape=a.shape)
    else:  # not expected (same pattern by construction); the general path
        wmin = wi.minimum(wj).tocsr()
    weight = np.asarray(shared.multiply(wmin).sum(axis=1), dtype=np.float64).ravel()
    line_sum = np.asarray(prep.own_lines.sum(axis=1), dtype=np.float64).ravel()
    union = line_sum[i] + line_sum[j] - np.asarray(wmin.sum(axis=1), dtype=np.float64).ravel()
    ejac = np.zeros(len(i), dtype=np.float64)
    np.divide(weight, union, out=ejac, where=union > 0)
    sizes = np.diff(prep.own_names.indptr).astype(np.int64)
    return {"entities_i": sizes[i], "entities_j": sizes[j],
            "shared_entities": np.diff(shared.indptr).astype(np.int64),
            "entity_weight": weight, "entity_jaccard": np.clip(ejac, 0.0, 1.0)}


def cosine(prep: Prepared, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Cosine of the pairs' embeddings (row dot products), ``NaN`` without embeddings."""
    if prep.embeddings is None:
        return np.full(len(i), np.nan)
    e = prep.embeddings
    return np.einsum("ij,ij->i", e[i], e[j], dtype=np.float64).clip(-1.0, 1.0)


def _names(rows: sp.csr_matrix, vocab: list[str]) -> list[str]:
    """Per row of a 0/1 name matrix: its names, ``"; "``-joined in column order."""
    return ["; ".join(vocab[c] for c in rows.indices[rows.indptr[k]:rows.indptr[k + 1]])
            for k in range(rows.shape[0])]


def describe(prep: Prepared, frame: pd.DataFrame) -> pd.DataFrame:
    """Add what a reader needs to judge a few pairs: shared names, conflicts, texts.

    Meant for listed pairs (candidates, a labeling sheet), not millions of rows.

    Returns:
        ``frame`` with ``shared_names`` (shared lines that weigh more than 0,
        sorted, ``"; "``-joined), ``conflict`` (per conflicting name, the versions of
        each side, e.g. ``"gemini robotics er 2 | 1.6"``) and per side
        ``published_at``, ``title``, ``summary``.
    """
    i, j = frame["i"].to_numpy(np.int64), frame["j"].to_numpy(np.int64)
    vocab = prep.matrix.name_vocab
    shared = shared_lines(prep.own_names, prep.own_lines, i, j)
    shared.sort_indices()
    conflicts = version_conflicts(prep.matrix, i, j)
    conflicts.sort_indices()
    versions: dict[tuple[int, str], list[str]] = {}
    lv = prep.matrix.line_versions.tocsr()
    lv.sort_indices()
    for k in np.unique(np.concatenate([i, j])):
        for c in lv.indices[lv.indptr[k]:lv.indptr[k + 1]]:
            name, version = prep.matrix.nv_vocab[c]
            versions.setdefault((int(k), name), []).append(version)
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

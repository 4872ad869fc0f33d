"""The dedupe by a pair model: candidates by characters, merges by ``P(same event)``.

The steps, each the character dedupe's own except the score:

1. **No exact pass**: a copy is a candidate of Jaccard 1 like any other, because one
   title is not one event: a daily column, a market table or a template repeats its
   title over days (the character dedupe keeps those apart by its series rule and date
   window; here the model weighs their date gap and series as the labels taught).
2. **Candidates**: every pair whose character n-gram Jaccard of title and
   summary reaches the calibration's floor, whatever its subject, day or series
   (:func:`newsdedup.cluster.dedupe.near_pairs` without the gate: the exact join, in
   ``O(items + candidates)`` memory). The texts are the calibration population's (no
   outlet suffix stripped), so a candidate's Jaccard is the one the model was fitted on.
   Each block of pairs the join scores is scored by the model at once, and the pairs
   below :data:`UNLIKELY` are dropped there: at so low a floor most pairs only share
   common words, and holding them all took more memory than anything else.
3. **Score**: the pair model's probability from the candidate's features
   (:mod:`newsdedup.score.pair_model`); the date gap, the subject, the series and the
   numbers are features here, not rules, so the model weighs them as the labels taught.
4. **Groups**: greedy against representatives at ``P >= cut``, by average link
   (:data:`MODEL_LINK`): a newcomer joins the group of its best representative only
   if its mean probability over the group's members also reaches the cut (pairs that
   are no candidate count as 0). Through the representative alone, a representative
   with a topic's usual wording drew in items of neighbouring stories: on the UCI head
   without dates, 37 of the 45 groups over 30 items at cut 0.5 mixed stories, and 12
   of 28 by average link (``make model-study``: both rules at every cut in
   ``results/pair-model-study/uci-head-no-dates.csv``).

``newsdedup calibrate --model`` measures exactly this function at every cut, and
``newsdedup dedupe --calibration`` runs it at the recommended cut.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from newsdedup.calibration.file import CalibrationFileError, read_json_object
from newsdedup.cluster.dedupe import (
    DedupeConfig,
    DedupeResult,
    Prepared,
    assemble,
    corpus_series,
    headlines,
    near_pairs,
    near_pass,
    prepare,
)
from newsdedup.cluster.greedy import LINKS, Clustering
from newsdedup.cluster.keep import keep_criteria, text_column
from newsdedup.cluster.listed import PairFilter
from newsdedup.progress import rate_reporter
from newsdedup.score.embed import Quantized, embed
from newsdedup.score.jaccard import pair_intersections
from newsdedup.score.neighbours import window_neighbours
from newsdedup.score.pair_model import ItemSignals, PairModel, number_codes, pair_features
from newsdedup.text.normalize import item_text

__all__ = ["BY_CHARACTERS", "BY_EMBEDDINGS", "MODEL_LINK", "UNLIKELY", "DoorSpec", "ModelSpec",
           "ScoredCandidates", "door_rows", "item_signals", "model_config", "model_dedupe",
           "read_model_spec", "score_candidates"]

UNLIKELY = 0.01
"""Candidates whose probability is below this are dropped as the join scores them.

At the floor of a calibration (Jaccard 0.05 of character 4-grams) nearly every pair of
headlines sharing a few common words is a candidate: 34.8 million of them in a 100,000-item
English feed, where the pair model gave 843,888 a probability of 0.01 or more. Held
together with their features they took 12.9 GB. Such a pair is never merged (the lowest
cut measured is 0.05) and weighs less than 0.01 in an average-link mean, so it is
dropped block by block and counts as no candidate (0); the calibration's curve is
measured on the same candidates the dedupe holds."""


MODEL_LINK = "average"
"""How the pair model's dedupe groups (step 4): by average link, which ``calibrate --model``
measures and writes to ``calibration.json`` (``pair_model.link``)."""

BY_CHARACTERS = 1
"""Door flag of a candidate the character join found (Jaccard at least the floor)."""

BY_EMBEDDINGS = 2
"""Door flag of a candidate the embedding door found (a flag may hold both)."""


@dataclass(frozen=True)
class DoorSpec:
    """The second candidate door: each item's nearest neighbours by embedding cosine.

    Attributes:
        k: Neighbours per item.
        min_cosine: Lowest cosine of a neighbour (the corpus's background, learned).
        window_days: Only items published less than this apart; None: no window.
    """

    k: int
    min_cosine: float
    window_days: float | None


def door_rows(vectors: np.ndarray | Quantized, seconds: np.ndarray, door: DoorSpec,
              progress: Callable[[int, int], None] | None = None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The door's pairs over the corpus rows: ``(i, j, cosine)``, ``i < j``, cosine >= its floor.

    Args:
        vectors: L2-normalized embeddings, one per row.
        seconds: Publication time per row (NaN unknown).
        door: The door.
        progress: Told the neighbour search's rows done.

    See :func:`newsdedup.score.neighbours.window_neighbours`.
    """
    window = None if door.window_days is None else door.window_days * 86400.0
    i, j, cos = window_neighbours(np.asarray(vectors, dtype=np.float32), seconds, door.k,
                                  window, progress=progress)
    keep = cos >= door.min_cosine
    return i[keep], j[keep], cos[keep]


@dataclass(frozen=True)
class ModelSpec:
    """A pair model and how its candidates are found (``pair_model`` of calibration.json).

    Attributes:
        model: The fitted model.
        cut: Merge at ``P >= cut``; None when the calibration recommended none.
        floor: Lowest character Jaccard of a candidate.
        n: Character n-gram size of that Jaccard.
        scheme: Its normalization scheme.
        backend: Embedding backend of the cosine feature.
        source: Where the spec was read (provenance).
        link: How its groups were formed when the cut was measured (``link`` of
            :func:`~newsdedup.cluster.greedy.greedy_pairs`).
    """

    model: PairModel
    cut: float | None
    floor: float
    n: int
    scheme: str
    backend: str
    source: str = ""
    link: str = "representative"


def model_config(n: int, scheme: str) -> DedupeConfig:
    """The dedupe settings the candidates are found with (module docstring, step 2)."""
    return DedupeConfig(n=n, scorer="jaccard", text="title+summary", scheme=scheme, gate=False,
                        exact_pass=False, strip_outlet=False, series=False, window_days=None)


def item_signals(items: pd.DataFrame, config: DedupeConfig, backend: str,
                 cache_dir: Path | None, series: bool = True,
                 progress: Callable[[str], None] | None = None) -> ItemSignals:
    """The per-item signals the features read (every item embedded once, through the cache).

    Args:
        items: The corpus.
        config: Dates, sources and subject keys are read as this dedupe reads them (its
            series are learned with ``series_config`` when ``series``).
        backend: Embedding backend.
        cache_dir: This corpus's embedding cache folder, or None.
        series: Learn the recurring series (the ``same_series`` feature).
        progress: Told the encoder's progress.
    """
    titles = text_column(items, "title")
    summaries = (text_column(items, "summary") if "summary" in items.columns
                 else [""] * len(items))
    texts = [item_text(t, s).strip() for t, s in zip(titles, summaries, strict=True)]
    vectors = embed(texts, backend=backend, cache_dir=cache_dir, progress=progress)
    times = keep_criteria(items, config.syndicators, config.opaque_hosts)[2]
    sources = (pd.factorize(pd.Series(text_column(items, "source")).replace("", None))[0]
               if "source" in items.columns else np.full(len(items), -1))
    leads = pd.factorize(pd.Series(headlines(items, config).subjects, dtype=object))[0]
    return ItemSignals(vectors=vectors, times=np.asarray(times, dtype=np.float64),
                       sources=np.asarray(sources, dtype=np.int64),
                       lengths=np.array([len(t) for t in titles], dtype=np.int64),
                       numbers=number_codes(titles), leads=np.asarray(leads, dtype=np.int64),
                       series=corpus_series(items, config).templates.tocsr() if series
                       else None)


@dataclass(frozen=True)
class ScoredCandidates:
    """Steps 1-3: the survivors' candidate pairs and their probabilities.

    Attributes:
        config: The candidates' settings (:func:`model_config`).
        prep: The items (every one a survivor: no exact pass).
        i: First survivor position of each candidate (survivors are the items in
            visiting order).
        j: Second survivor position.
        probability: ``P(same event)`` per candidate.
        found_by: Which door proposed each candidate (:data:`BY_CHARACTERS`,
            :data:`BY_EMBEDDINGS`, or both bits).
        link: How step 4 compares a newcomer with a group (:data:`MODEL_LINK`).
    """

    config: DedupeConfig
    prep: Prepared
    i: np.ndarray
    j: np.ndarray
    probability: np.ndarray
    found_by: np.ndarray
    link: str = MODEL_LINK

    def clustering(self, cut: float) -> Clustering:
        """Step 4 over the survivors."""
        return near_pass(self.prep, (self.i, self.j, self.probability), cut, self.link)

    def labels(self, cut: float) -> np.ndarray:
        """Group per row at ``cut`` (rows of the corpus)."""
        return self.clustering(cut).labels[self.prep.exact_id]


def score_candidates(items: pd.DataFrame, model: PairModel, floor: float, n: int, scheme: str,
                     signals: ItemSignals, door: DoorSpec | None = None,
                     link: str = MODEL_LINK,
                     progress: Callable[[int, int], None] | None = None) -> ScoredCandidates:
    """Steps 1-3 (module docstring); with ``door``, its pairs are candidates too.

    A pair only the door proposes scores below the floor in character Jaccard; its
    Jaccard (a feature of the model) is computed for it alone. ``link`` is step 4's;
    ``progress`` is told ``(items, items in all)`` as the join goes.
    """
    config = model_config(n, scheme)
    prep = prepare(items, config)
    # Rounded once here, not by each cosine of the join's blocks and the features below.
    rounded = (signals if isinstance(signals.vectors, Quantized)
               else replace(signals, vectors=Quantized.of(signals.vectors)))
    i, j, jaccard = near_pairs(prep, floor, progress=progress,
                               keep=_likely(prep, rounded, model))
    found = np.full(len(i), BY_CHARACTERS, dtype=np.int8)
    if door is not None:
        i, j, jaccard, found = _with_door(prep, signals, door, i, j, jaccard, found)
    rows_i, rows_j = prep.survivors[i], prep.survivors[j]
    features = pair_features(rounded, rows_i, rows_j, jaccard)
    return ScoredCandidates(config, prep, i, j, model.probability(model.columns(features)),
                            found, link)


def _likely(prep: Prepared, signals: ItemSignals, model: PairModel) -> PairFilter:
    """The candidates worth holding: probability at least :data:`UNLIKELY` (survivor positions).

    Asked about each block of pairs as the character join scores it, with their
    Jaccard (the join's score, the model's first feature).
    """
    def likely(a: np.ndarray, b: np.ndarray, jaccard: np.ndarray) -> np.ndarray:
        features = pair_features(signals, prep.survivors[a], prep.survivors[b], jaccard)
        return model.probability(model.columns(features)) >= UNLIKELY
    return likely


def _pair_jaccard(x: sp.csr_matrix, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Character Jaccard of survivor pairs from their shingle rows, as the join scores it."""
    inter = pair_intersections(x, a, b).astype(np.float64)
    sizes = np.diff(x.indptr).astype(np.float64)
    union = sizes[a] + sizes[b] - inter
    return np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)


def _with_door(prep: Prepared, signals: ItemSignals, door: DoorSpec, i: np.ndarray,
               j: np.ndarray, jaccard: np.ndarray, found: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The character candidates with the door's pairs added (survivor positions)."""
    m = len(prep.survivors)
    if m != len(prep.exact_id):
        raise ValueError("the door's pairs are over rows: every row must be a survivor "
                         "(the model's candidates have no exact pass)")
    position = np.empty(m, dtype=np.int64)
    position[prep.survivors] = np.arange(m)
    ri, rj, _ = door_rows(signals.vectors, signals.times, door)
    a, b = np.minimum(position[ri], position[rj]), np.maximum(position[ri], position[rj])
    have = np.minimum(i, j).astype(np.int64) * m + np.maximum(i, j)
    order = np.argsort(have, kind="stable")
    at = np.minimum(np.searchsorted(have[order], a * m + b), max(len(have) - 1, 0))
    shared = (have[order][at] == a * m + b) if len(have) else np.zeros(len(a), bool)
    found[order[at[shared]]] |= BY_EMBEDDINGS
    a, b = a[~shared], b[~shared]
    x = prep.shingles
    if x is None:
        raise ValueError("the model's candidates need the survivors' shingle matrix")
    extra = _pair_jaccard(x, a, b)
    return (np.concatenate([i, a]), np.concatenate([j, b]), np.concatenate([jaccard, extra]),
            np.concatenate([found, np.full(len(a), BY_EMBEDDINGS, dtype=np.int8)]))


def model_dedupe(items: pd.DataFrame, spec: ModelSpec, cache_dir: Path | None = None,
                 cut: float | None = None,
                 progress: Callable[[str], None] | None = None) -> DedupeResult:
    """Dedupe ``items`` by the pair model of ``spec`` (module docstring: the steps).

    Args:
        items: One row per item (``title``; ``summary``, ``published_at``, ``source``
            when there).
        spec: The model, its cut and its candidates' settings.
        cache_dir: This corpus's embedding cache folder, or None.
        cut: Merge at ``P >= cut``; None takes ``spec.cut``.
        progress: Told the encoder's and the candidates' progress.

    Returns:
        The :class:`~newsdedup.cluster.dedupe.DedupeResult`; ``score_to_rep`` holds each
        member's probability against its representative.

    Raises:
        ValueError: No cut given and none recommended.
    """
    cut = spec.cut if cut is None else cut
    if cut is None:
        raise ValueError(f"{spec.source}: the pair model has no recommended cut (no cut "
                         "reached the target precision by the loop's labels); label more "
                         "pairs and calibrate again, or dedupe by the character threshold")
    config = model_config(spec.n, spec.scheme)
    signals = item_signals(items, config, spec.backend, cache_dir, progress=progress)
    scored = score_candidates(items, spec.model, spec.floor, spec.n, spec.scheme, signals,
                              link=spec.link, progress=rate_reporter(
                                  progress, "dedupe: candidates", unit=" items"))
    return assemble(items, config, scored.prep, scored.clustering(cut))


def read_model_spec(path: str | Path) -> ModelSpec | None:
    """The pair model a calibration file names, or None when it holds none.

    Raises:
        CalibrationFileError: The ``pair_model`` part or its model file is unusable (one
            line naming the file and the field).
    """
    p = Path(path)
    data = read_json_object(p)
    rec = data.get("pair_model")
    if rec is None:
        return None
    where = f"{p}: pair_model"
    if not isinstance(rec, dict):
        raise CalibrationFileError(f"{where}: expected an object")
    for key in ("file", "floor", "ngram", "scheme", "embedding"):
        if key not in rec:
            raise CalibrationFileError(f"{where}: {key!r} is missing")
    cut = rec.get("recommended_cut")
    if cut is not None and not (isinstance(cut, int | float) and 0 <= cut <= 1):
        raise CalibrationFileError(f"{where}: 'recommended_cut' must be a number in [0, 1] "
                                   f"or null, got {cut!r}")
    # A file written before groups were formed by average link was measured through the
    # representative alone: its cut holds for that grouping.
    link = rec.get("link", "representative")
    if link not in LINKS:
        raise CalibrationFileError(f"{where}: 'link' must be one of {LINKS}, got {link!r}")
    model_path = p.parent / str(rec["file"])
    if not model_path.is_file():
        raise CalibrationFileError(f"{where}: its model file {model_path} does not exist")
    model = PairModel.from_record(read_json_object(model_path), str(model_path))
    return ModelSpec(model=model, cut=None if cut is None else float(cut),
                     floor=float(rec["floor"]), n=int(rec["ngram"]), scheme=str(rec["scheme"]),
                     backend=str(rec["embedding"]), source=str(p), link=link)

"""A second hold-out, drawn where the pair model merges: its merges measured, not bounded.

The loop's sheet and the hold-out are stratified by the character score
(:mod:`~newsdedup.calibration.population`). The pair model merges pairs of low
character score: a few among the many pairs of their strata, where those
samples' labels rarely fall. The estimator then bounds those merges by the
labels above them, and cannot say whether they are right
(:mod:`~newsdedup.calibration.estimate`, cells below every label of their
run): on the UCI head the model's merges at every cut were right (above 0.99
by the story ids) and were stated about 0.74, from below 0.35 to 1. This
sample looks where the model merges.

**Its design.** Each stratum of ``U`` is split into *bands* of a design
model's probability (:data:`MODEL_EDGES`). The sheet is a stratified random
sample of the bands at or above the first edge, among the pairs neither the
loop's sheet nor the hold-out drew: half spread over those bands
(``sqrt(N_h)``, as every first batch), half where a label most narrows the
precision of the model's dedupe at :data:`FOCUS_CUT` (the rule of the loop's
later batches, :func:`~newsdedup.calibration.design.next_allocation`). The
design model is the model fitted when the sheet is drawn, written beside it
(``<sheet>.design.json``, plain parameters): the bands do not move when more
loop labels later refit the model.

**Why the estimate stays honest.** Within one band of one stratum, the
hold-out's pairs are a random sample of the band's pairs the loop did not
draw (a random sample of the stratum, of those that fell in the band), and
this sheet's are a random sample of the band's pairs that neither drew; the
two together are one random sample of the band. Both sheets are therefore one
stratified sample of the *banded* strata, and the estimator reads them as any
(:func:`~newsdedup.calibration.estimate.label_estimates`), the loop's pairs
counted as labelled. Neither sheet fitted the model or chose its cut. The
bands also enter the estimator's pooling: a cell borrows its prior from cells
of the same band only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from newsdedup.calibration.defaults import HOLDOUT_BATCH
from newsdedup.calibration.design import (
    draw_batch,
    drawn_per_stratum,
    first_allocation,
    next_allocation,
)
from newsdedup.calibration.estimate import LabelSample
from newsdedup.calibration.population import Population
from newsdedup.calibration.sheet import (
    Sheet,
    SheetError,
    new_rows,
    read_sheet,
    sheet_sample,
    with_design,
)
from newsdedup.score.pair_model import PairModel

__all__ = ["MODEL_EDGES", "FOCUS_CUT", "Design", "banded", "design_path",
           "draw_model_sheet", "read_design", "model_sheet_sample", "read_model_holdout"]

MODEL_EDGES: tuple[float, ...] = (0.25, 0.5, 0.75)
"""Edges of the bands of the design model's probability.

The model's probabilities are recalibrated to the candidate pairs (of pairs at 0.6,
about six in ten report one event), so the edges mean the same on every corpus. Below
the first the model calls a pair another event at least three times in four: it merges
such pairs at its lowest cuts only, and the sheet spends no label there (the hold-out
covers them, as it covers every stratum). The three bands above part the pairs merged
at every cut from those merged at the lower cuts only.
"""

FOCUS_CUT = 0.5
"""The cut whose precision the sheet's second half narrows: where the model calls a pair as
likely the same event as not, the middle of the cuts measured."""

SEED_OFFSET = 2
"""Added to the calibration seed for this sheet's draw (the hold-out's uses the seed)."""


@dataclass(frozen=True)
class Design:
    """The model whose probability bands a model hold-out was drawn in.

    Attributes:
        model: The design model.
        edges: Band edges of its probability.
        backend: The embedding backend of its cosine feature.
    """

    model: PairModel
    edges: tuple[float, ...] = MODEL_EDGES
    backend: str = "use"

    def record(self) -> dict:
        """Plain JSON values (what :func:`read_design` reads back)."""
        return {"about": "the pair model and probability bands a model hold-out sheet was "
                         "drawn in (newsdedup calibrate --model-holdout); keep it beside "
                         "the sheet",
                "edges": list(self.edges), "embedding": self.backend,
                "model": self.model.record()}


def design_path(sheet: str | Path) -> Path:
    """The design file beside a model hold-out sheet.

    Examples:
        >>> design_path("data/gold/feed.model.csv").as_posix()
        'data/gold/feed.model.design.json'
    """
    sheet = Path(sheet)
    return sheet.with_name(f"{sheet.stem}.design.json")


def read_design(path: Path) -> Design:
    """Read a design file; a fault raises one line naming the file.

    Raises:
        ValueError: Not JSON, or not a design (its model's fault named).
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the model hold-out's design: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a design file holds an object")
    edges = data.get("edges")
    if (not isinstance(edges, list) or not edges
            or not all(isinstance(e, int | float) and 0 < e < 1 for e in edges)
            or sorted(edges) != edges):
        raise ValueError(f"{path}: 'edges' must be ascending probabilities in (0, 1)")
    model = PairModel.from_record(data.get("model", {}), f"{path}: model")
    return Design(model, tuple(float(e) for e in edges), str(data.get("embedding", "")))


def banded(pop: Population, probability: np.ndarray, edges: tuple[float, ...]) -> Population:
    """The population with each stratum split into bands of ``probability``.

    The pairs and their order are the same; ``stratum`` and ``strata`` are the
    banded ones (``strata`` gains ``model_lo`` and ``model_hi``; empty bands are
    left out, numbered by stratum, then band).

    Examples:
        >>> strata = pd.DataFrame({"stratum": [0, 1], "score_lo": [0.1, 0.5], "size": [3, 1]})
        >>> pop = Population(np.arange(4), np.arange(4) + 4, np.ones(4), np.ones(4, bool),
        ...                  np.zeros(4), np.array([0, 0, 0, 1]), strata,
        ...                  [str(k) for k in range(8)], 0.1)
        >>> b = banded(pop, np.array([0.1, 0.9, 0.8, 0.9]), (0.5,))
        >>> b.stratum.tolist(), b.strata[["score_lo", "model_lo", "size"]].values.tolist()
        ([0, 1, 1, 2], [[0.1, 0.0, 1.0], [0.1, 0.5, 2.0], [0.5, 0.5, 1.0]])
    """
    bounds = np.concatenate(([0.0], np.asarray(edges, dtype=np.float64), [1.0]))
    band = np.clip(np.searchsorted(bounds, np.asarray(probability), side="right") - 1,
                   0, len(bounds) - 2)
    code = pop.stratum.astype(np.int64) * (len(bounds) - 1) + band
    present = np.flatnonzero(np.bincount(code, minlength=1))
    lookup = np.zeros(int(present[-1]) + 1 if present.size else 0, dtype=np.int64)
    lookup[present] = np.arange(present.size)
    stratum = lookup[code]
    coarse, b = np.divmod(present, len(bounds) - 1)
    strata = pop.strata.iloc[coarse].reset_index(drop=True).assign(
        stratum=np.arange(present.size, dtype=np.int64), model_lo=bounds[b],
        model_hi=bounds[b + 1],
        size=np.bincount(stratum, minlength=present.size).astype(np.int64))
    return Population(pop.i, pop.j, pop.score, pop.same_source, pop.gap_days, stratum,
                      strata, pop.ids, pop.floor)


def draw_model_sheet(pop: Population, merged_focus: np.ndarray, taken: np.ndarray,
                     size: int, seed: int, items: pd.DataFrame, known: LabelSample
                     ) -> pd.DataFrame:
    """The model hold-out's rows (empty labels), drawn as the module docstring says.

    Args:
        pop: The banded population (:func:`banded`, ``model_lo`` per stratum).
        merged_focus: Whether the model's dedupe merges each pair at :data:`FOCUS_CUT`.
        taken: Positions the loop's sheet and the hold-out drew (never drawn again).
        size: Pairs to draw.
        seed: The calibration seed.
        items: The corpus (the rows show both items).
        known: The labels so far (the loop's and the hold-out's, as known pairs): where
            they already narrow the precision, no label is spent.

    Returns:
        The sheet's rows, with the design columns of the banded strata.
    """
    eligible = pop.strata["model_lo"].to_numpy() > 0.0  # every band but the lowest
    room = np.where(eligible, pop.strata["size"].to_numpy() - drawn_per_stratum(pop, taken), 0)
    spread = size // 2
    allocation = first_allocation(room, spread)
    # next_allocation spends only where room is left: the bands below the first edge
    # count as drawn in full.
    full = pop.strata["size"].to_numpy() - room + allocation
    allocation += next_allocation(pop, merged_focus, known, full, size - int(allocation.sum()),
                                  recall=False)
    positions = draw_batch(pop, allocation, taken, seed + SEED_OFFSET, HOLDOUT_BATCH)
    return with_design(new_rows(pop, positions, HOLDOUT_BATCH, items), pop, positions, taken)


def model_sheet_sample(sheet: Sheet, pop: Population, others: dict[str, np.ndarray]
                       ) -> tuple[np.ndarray, LabelSample]:
    """A model hold-out's pairs (positions) and labels, in the banded population.

    Args:
        sheet: The model hold-out sheet.
        pop: The banded population of its design.
        others: Sheet name -> positions of the pairs it drew (the loop's, the hold-out's):
            a pair on one of them is refused.

    Raises:
        SheetError: A pair not in the banded strata it was drawn in, or also on another sheet.
    """
    drawn, sample = sheet_sample(sheet, pop)
    for name, positions in others.items():
        clash = np.isin(drawn, positions)
        if clash.any():
            line = int(sheet.rows["line"].iloc[int(np.argmax(clash))])
            raise SheetError(sheet.path, line, f"this pair is on {name} too: the model's "
                                               "hold-out holds pairs no other sheet drew")
    return drawn, sample


def read_model_holdout(path: Path, pop: Population, features: np.ndarray, backend: str,
                       held: LabelSample, others: dict[str, np.ndarray]
                       ) -> tuple[Population, LabelSample, int]:
    """Both hold-outs as one sample of the strata banded by the model hold-out's design.

    Args:
        path: The model hold-out sheet (its design beside it, :func:`design_path`).
        pop: The population.
        features: :func:`~newsdedup.score.pair_model.pair_features` of its pairs.
        backend: The embedding backend of ``features``' cosine.
        held: The hold-out's labels (the loop's as known pairs).
        others: Sheet name -> positions it drew (a pair on two sheets is refused).

    Returns:
        ``(population, sample, labelled)``: the banded population and both hold-outs'
        labels (``pop`` and ``held`` as given while the sheet has no label), and the
        model hold-out's labelled pairs.

    Raises:
        ValueError: No design beside the sheet, or one drawn with other embeddings.
        SheetError: A pair that does not fit the design, or is on another sheet.
    """
    where = design_path(path)
    if not where.is_file():
        raise ValueError(f"{where}: missing: the model hold-out {path} is read in the "
                         "probability bands of the model it was drawn with, written beside "
                         "it when drawn; draw the sheet again (remove it)")
    design = read_design(where)
    if design.backend != backend:
        raise ValueError(f"{where}: the model hold-out was drawn with {design.backend} "
                         f"embeddings, this run embeds with {backend}: run with "
                         f"--model-embeddings {design.backend}")
    bands = banded(pop, design.model.probability(features), design.edges)
    _, sample = model_sheet_sample(read_sheet(path), bands, others)
    if not len(sample.position):  # drawn, not labelled yet
        return pop, held, 0
    both = LabelSample(np.concatenate([held.position, sample.position]),
                       np.concatenate([held.same, sample.same]), held.known)
    return bands, both, len(sample.position)

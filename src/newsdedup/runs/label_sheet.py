"""``newsdedup label-sheet``: a stratified labeling sheet around the calibrated threshold.

The labeling loop of a new corpus (README, "Your own corpus"):

1. ``newsdedup calibrate`` recommends a threshold ``t`` (from decoys, or the bound);
2. ``newsdedup label-sheet --calibration results/<name>/calibration.json``
   samples the pairs the calibrated dedupe compares (exact-pass survivors
   in one gate bucket, scored as the dedupe scores them) in two score bins,
   ``[t - w, t)`` and ``[t, 1]``, with :func:`newsdedup.studies.labels.bin_sample_size`
   pairs each (104 for a 95 % interval no wider than ±0.1: about 200 labels);
3. a person fills in ``label`` (``same`` / ``followup`` / ``related`` /
   ``different``) and ``reason``;
4. ``newsdedup calibrate --gold <sheet>`` measures precision and recall per
   threshold from the labels (weighted by each bin's share of pairs) and
   recommends from them.

Sampling whole bins, not the top pairs, is what lets the labels estimate the
precision *at* a threshold: the top pairs are the easy ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from newsdedup.cluster.dedupe import DedupeConfig, near_pairs, prepare
from newsdedup.runs.commit import commits
from newsdedup.runs.files import Progress, quiet, write_csv
from newsdedup.score.jaccard import PairScores
from newsdedup.studies.labels import bin_sample_size, stratified_sample

BIN_WIDTH = 0.05
"""Width of the bin below the threshold: five grid steps, the span a recommendation moves."""


def compared_pairs(items: pd.DataFrame, config: DedupeConfig, lowest: float) -> PairScores:
    """Pairs the dedupe compares (survivors in one bucket) scoring ``>= lowest``, as row positions.

    Args:
        items: The corpus.
        config: The dedupe settings.
        lowest: Lowest score kept.

    Returns:
        Row positions ``i < j`` and the dedupe's score of each pair.
    """
    prep = prepare(items, config)
    a, b, score = near_pairs(prep, lowest)
    ra, rb = prep.survivors[np.asarray(a, dtype=np.int64)], prep.survivors[np.asarray(b, np.int64)]
    return PairScores(np.minimum(ra, rb), np.maximum(ra, rb), np.asarray(score, np.float64))


def label_sheet(items: pd.DataFrame, config: DedupeConfig, edges: list[float],
                per_bin: int, seed: int = 0) -> pd.DataFrame:
    """The stratified sheet in the gold format (``id_i, id_j, label, reason`` first).

    Args:
        items: The corpus.
        config: The dedupe whose pairs are sampled.
        edges: Score bin edges, increasing.
        per_bin: Pairs per bin.
        seed: Of the draw.

    Returns:
        ``id_i, id_j, label, reason, score, bin, bin_pairs, weight`` and the
        two titles and dates; ``weight`` is read back by ``calibrate --gold``.
    """
    sample = stratified_sample(compared_pairs(items, config, edges[0]), edges, per_bin, seed)
    ids = items["id"].astype(str).to_numpy()
    i, j = sample["i"].to_numpy(), sample["j"].to_numpy()

    def col(name: str, rows: np.ndarray) -> list:
        return items[name].iloc[rows].tolist() if name in items.columns else [""] * len(rows)

    return pd.DataFrame({
        "id_i": ids[i], "id_j": ids[j], "label": "", "reason": "",
        "score": sample["score"], "bin": sample["bin"], "bin_pairs": sample["bin_pairs"],
        "weight": sample["weight"], "title_i": col("title", i), "title_j": col("title", j),
        "published_at_i": col("published_at", i), "published_at_j": col("published_at", j)})


def sheet_edges(thresholds: Sequence[float], width: float = BIN_WIDTH) -> list[float]:
    """Score bin edges around candidate thresholds: ``[t - width, t)`` below each, up to 1.

    Examples:
        >>> sheet_edges([0.2])
        [0.15, 0.2, 1.0]
        >>> sheet_edges([0.2, 0.3], 0.1)
        [0.1, 0.2, 0.3, 1.0]
    """
    if not thresholds:
        raise ValueError("need at least one candidate threshold")
    edges = {1.0}
    for t in thresholds:
        if not 0.0 < float(t) <= 1.0:
            raise ValueError(f"candidate thresholds must lie in (0, 1], got {t!r}")
        edges |= {round(max(float(t) - width, 0.0), 10), round(float(t), 10)}
    return sorted(edges)


@commits("label-sheet")
def run_label_sheet(corpus, name: str, out: Path, config: DedupeConfig,
                    halfwidth: float = 0.1, width: float = BIN_WIDTH, seed: int = 0,
                    output: Path | None = None, progress: Progress = quiet,
                    thresholds: Sequence[float] | None = None, folder: str = "calibrate"
                    ) -> Path:
    """Write the stratified sheet around the candidate thresholds; return its path.

    ``newsdedup label-sheet`` and ``newsdedup candidates --stratified`` both
    write it (one sampler: :func:`newsdedup.studies.labels.stratified_sample`).

    Args:
        corpus: A :class:`~newsdedup.corpus.load.LoadResult`.
        name: Results folder name.
        out: Results root.
        config: The calibrated dedupe (``DedupeConfig.from_calibration``).
        halfwidth: Wanted half-width of each bin's 95 % precision interval.
        width: Width of the bin below the threshold.
        seed: Of the draw.
        output: Sheet path; default ``<out>/<name>/<folder>/to_label.csv``.
        progress: Progress callback.
        thresholds: Candidate thresholds (bins ``[t - width, t)`` and above);
            default ``[config.threshold]``.
        folder: Folder of the default sheet path under ``<out>/<name>/``
            (``candidates --stratified`` writes ``signals/``, as ``candidates`` does).

    Returns:
        The written sheet.
    """
    t = float(config.threshold)
    edges = (sheet_edges(thresholds, width) if thresholds else
             [max(t - width, 0.0), t, 1.0] if t > 0 else [0.0, 1.0])
    per_bin = bin_sample_size(halfwidth)
    sheet = label_sheet(corpus.items, config, edges, per_bin, seed)
    path = output or out / name / folder / "to_label.csv"
    write_csv(sheet, path)
    progress(f"label-sheet: {len(sheet)} pairs ({per_bin} per bin, bins "
             f"{sorted(set(sheet['bin']))}) -> {path}; fill in 'label' and run "
             f"`newsdedup calibrate --gold {path}`")
    return path

"""Graded sentence pairs at fixed cut-offs: how well n-gram Jaccard separates the grades.

:mod:`newsdedup.studies.calibration` sets a threshold from unlabelled data: the highest score
over all pairs of a corpus is taken as the unrelated-pair bound, which holds only if the corpus
has no duplicates. With labels the two distributions can be measured directly. Here the labels
are graded sentence pairs (KorSTS and the English STS Benchmark it was translated from, news
headlines part): each pair is scored on its own (:func:`sentence_pair_jaccard`) and the 0-5
grade is cut into ``"same"`` / ``"different"`` at stated cut-offs, the middle left out
(:func:`evaluate_sts`). The grades are semantic similarity, not a same-event flag, so results
are reported for more than one pair of cut-offs.

The study of every scorer with thresholds chosen on one split and bootstrap intervals is
:mod:`newsdedup.evaluate.pairs`; the metrics live in :mod:`newsdedup.evaluate.metrics`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from newsdedup.corpus.sts import label_pairs
from newsdedup.evaluate.metrics import (
    DISTRIBUTION_STATS,
    METRIC_COLUMNS,
    best_threshold,
    metric_grid,
    score_distribution,
    separation_auc,
    threshold_metrics,
)
from newsdedup.score.scorers import make_pair_scorer
from newsdedup.text.normalize import DEFAULT_SCHEME, get_scheme
from newsdedup.text.shingle import shingle_matrix

CUTOFFS: tuple[tuple[float, float], ...] = ((4.0, 1.0), (3.0, 2.0))
"""Default ``(same_at, different_at)`` cut-off pairs reported by :func:`evaluate_sts`.

(4, 1) keeps only clear cases; (3, 2) splits the graded scale nearly in the middle, so it
tests the score on harder pairs. The KorSTS SOURCE.md asks for more than one.
"""


# --------------------------------------------------------------------------------------
# Scores of given pairs
# --------------------------------------------------------------------------------------


def sentence_pair_jaccard(
    s1: Sequence[str],
    s2: Sequence[str],
    n: int,
    scheme: str = DEFAULT_SCHEME,
    weighted: bool = False,
) -> np.ndarray:
    """Row-wise Jaccard of the character n-gram sets of ``(s1[k], s2[k])``.

    Both sides go into one shingle matrix so they share a vocabulary; the intersection of
    every pair is then the row sum of an element-wise product, with no loop over pairs.
    Texts shorter than ``n`` after normalization have no shingles; a pair whose union is
    empty scores 0.0 (the convention of :mod:`newsdedup.text.shingle`).

    Args:
        s1: First sentence of each pair (raw text; normalized here).
        s2: Second sentence of each pair, same length as ``s1``.
        n: n-gram size, ``n >= 1``.
        scheme: Normalization scheme name (:data:`newsdedup.text.normalize.SCHEMES`).
        weighted: Weigh each shingle by its IDF (:func:`newsdedup.score.jaccard.idf_weights`)
            computed over all ``2K`` sentences, instead of counting it once.

    Returns:
        ``float64`` array of shape ``(K,)`` with values in ``[0, 1]``.

    Raises:
        ValueError: ``s1`` and ``s2`` differ in length, or ``n < 1``.

    Examples:
        >>> sentence_pair_jaccard(["abcd", "xy", "같은 제목"], ["bcde", "xy", "같은제목!"], 3)
        array([0.33333333, 0.        , 1.        ])
        >>> w = sentence_pair_jaccard(["abcd", "abcd"], ["abcx", "abcd"], 2, weighted=True)
        >>> bool(0 < w[0] < 1), float(w[1])
        (True, 1.0)
    """
    if len(s1) != len(s2):
        raise ValueError(f"s1 and s2 must have the same length, got {len(s1)} and {len(s2)}")
    norm = get_scheme(scheme)
    shingled = shingle_matrix([norm(t) for t in s1] + [norm(t) for t in s2], n)
    return make_pair_scorer(shingled, "idf-batch" if weighted else "jaccard").halves()


# --------------------------------------------------------------------------------------
# Graded sentence pairs (KorSTS / STS-B)
# --------------------------------------------------------------------------------------


def evaluate_sts(
    df: pd.DataFrame,
    ngrams: Sequence[int] = (2, 3, 4),
    same_at: float = 4.0,
    different_at: float = 1.0,
    schemes: Sequence[str] = (DEFAULT_SCHEME,),
    thresholds: Sequence[float] | None = None,
    filename: str | None = "headlines",
    cutoffs: Sequence[tuple[float, float]] = CUTOFFS,
    weighted: bool = False,
) -> dict[str, pd.DataFrame]:
    """Separation of "same" from "different" graded pairs by n-gram Jaccard.

    Pairs are labelled with :func:`newsdedup.corpus.sts.label_pairs`: ``score >= same_at`` is
    same, ``score <= different_at`` different; the pairs in between are left out of every
    metric and only counted (``n_between``). The STS grade is semantic similarity, not a
    same-event flag: a grade-4 pair may be two headlines about one event in other words, so
    recall here is recall of paraphrase, harder than recall of near-duplicates.

    Args:
        df: Pairs as loaded by :func:`newsdedup.corpus.sts.load_korsts` or
            :func:`~newsdedup.corpus.sts.load_stsb` (``filename``, ``score``, ``sentence1``,
            ``sentence2``).
        ngrams: n-gram sizes to evaluate.
        same_at: Main cut-off for "same".
        different_at: Main cut-off for "different"; below ``same_at``.
        schemes: Normalization schemes to evaluate.
        thresholds: Threshold grid; :func:`metric_grid` (0.05..0.95 step 0.05) by default.
        filename: Keep only rows of this ``filename`` (``"headlines"``, the news headlines
            part); None keeps all rows.
        cutoffs: Further ``(same_at, different_at)`` pairs for the ``"cutoffs"`` table; the
            main pair is always included first.
        weighted: Score with IDF-weighted Jaccard instead of exact Jaccard.

    Returns:
        ``{"distribution": per n, scheme and label (same, different):``
        :data:`DISTRIBUTION_STATS` ``; "metrics": per n, scheme and threshold:``
        :data:`METRIC_COLUMNS` ``; "best": per n and scheme, the best-F1 row with the class
        counts, class means and the AUC; "cutoffs": the "best" table for every cut-off
        pair}``, all at the main cut-offs except "cutoffs".

    Raises:
        ValueError: No rows of ``filename``, or a cut-off leaves a class empty.

    Examples:
        >>> df = pd.DataFrame({
        ...     "filename": ["headlines"] * 4,
        ...     "score": [5.0, 4.2, 0.4, 2.5],
        ...     "sentence1": ["비트코인 급락", "북한 미사일 발사", "유가 상승", "환율 하락"],
        ...     "sentence2": ["비트코인 급락세", "북 미사일 발사", "야구 개막", "환율 급락"],
        ... })
        >>> out = evaluate_sts(df, ngrams=(2,), cutoffs=())
        >>> out["best"][["n", "n_same", "n_different", "n_between", "threshold", "f1"]]
           n  n_same  n_different  n_between  threshold   f1
        0  2       2            1          1       0.55  1.0
    """
    part = df if filename is None else df[df["filename"] == filename]
    if not len(part):
        raise ValueError(f"no rows with filename {filename!r}")
    grid = metric_grid() if thresholds is None else np.asarray(thresholds, dtype=np.float64)
    # Score once per (n, scheme); the cut-offs only relabel.
    s1, s2 = part["sentence1"].tolist(), part["sentence2"].tolist()
    scored = {(n, scheme): sentence_pair_jaccard(s1, s2, n, scheme, weighted)
              for scheme in schemes for n in ngrams}
    pairs = [(float(same_at), float(different_at))]
    pairs += [(float(a), float(b)) for a, b in cutoffs if (float(a), float(b)) not in pairs]
    dist: list[pd.DataFrame] = []
    metrics: list[pd.DataFrame] = []
    best = {cut: _sts_cutoff(part, cut, scored, grid, (dist, metrics) if cut == pairs[0] else None)
            for cut in pairs}
    main = best[pairs[0]].drop(columns=["same_at", "different_at"])
    return {
        "distribution": pd.concat(dist, ignore_index=True),
        "metrics": pd.concat(metrics, ignore_index=True),
        "best": main,
        "cutoffs": pd.concat(best.values(), ignore_index=True),
    }


def _sts_cutoff(part: pd.DataFrame, cut: tuple[float, float],
                scored: dict[tuple[int, str], np.ndarray], grid: np.ndarray,
                tables: tuple[list, list] | None) -> pd.DataFrame:
    """The best-F1 row of every ``(n, scheme)`` at one cut-off pair.

    With ``tables`` (the main cut-off), the score distribution and the per-threshold
    metrics of every ``(n, scheme)`` are appended to its two lists.
    """
    sa, da = cut
    labels = label_pairs(part, sa, da).to_numpy()
    keep = labels != "between"
    counts = {f"n_{c}": int((labels == c).sum()) for c in ("same", "different", "between")}
    if not counts["n_same"] or not counts["n_different"]:
        raise ValueError(f"cut-offs ({sa}, {da}) leave a class empty: {counts}")
    positive = labels[keep] == "same"
    rows = []
    for (n, scheme), score in scored.items():
        s = score[keep]
        head = {"n": n, "scheme": scheme}
        table = threshold_metrics(s, positive, grid)
        rows.append({
            "same_at": sa,
            "different_at": da,
            **head,
            **counts,
            "mean_same": float(s[positive].mean()),
            "mean_different": float(s[~positive].mean()),
            "auc": separation_auc(s, positive),
            **best_threshold(table),
        })
        if tables is not None:
            dist, metrics = tables
            # Fixed row order (same, then different), whichever comes first in the file.
            d = score_distribution(s, labels[keep]).set_index("label")
            d = d.reindex(["same", "different"]).reset_index()
            dist.append(d.assign(**head)[["n", "scheme", "label", *DISTRIBUTION_STATS]])
            metrics.append(table.assign(**head)[["n", "scheme", *METRIC_COLUMNS]])
    return pd.DataFrame(rows)

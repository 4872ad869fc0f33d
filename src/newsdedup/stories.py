"""Items with a story (event cluster) id: the UCI News Aggregator study.

A story groups all coverage of one event, so same-story pairs are mostly independent
rewrites, not near-duplicates (the UCI SOURCE.md says so). Two studies use the ids:

* :func:`evaluate_stories`: every pair scored, positive when both items share a story;
  precision per threshold and the labelled bound (how high different-story pairs score).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from newsdedup.calibration import GRID, order_quantiles
from newsdedup.metrics import (
    DISTRIBUTION_STATS,
    METRIC_COLUMNS,
    auc_sorted,
    metric_grid,
    py_scalar,
    sorted_stats,
    threshold_metrics,
)
from newsdedup.normalize import DEFAULT_SCHEME, get_scheme, item_text
from newsdedup.shingle import shingle_matrix
from newsdedup.similarity import jaccard_matrix, upper_pairs


def same_label_pairs(labels: Sequence, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Whether items ``i[k]`` and ``j[k]`` carry the same label, for every pair at once.

    Labels are factorized to integer codes once, so the comparison is on integers. A missing
    label (``None`` / NaN) matches nothing, not even another missing one: an item without a
    story is not known to share an event with anything.

    Args:
        labels: One label per item (list, array or Series; read by position).
        i: First item index per pair.
        j: Second item index per pair.

    Returns:
        Boolean array shaped like ``i``.

    Examples:
        >>> same_label_pairs(["a", "b", "a", None, None], [0, 0, 1, 3], [2, 1, 2, 4]).tolist()
        [True, False, False, False]
    """
    codes, _ = pd.factorize(pd.Series(labels), use_na_sentinel=True)
    i = np.asarray(i, dtype=np.int64)
    j = np.asarray(j, dtype=np.int64)
    return (codes[i] == codes[j]) & (codes[i] >= 0)



def labelled_bound(scores: np.ndarray, negative: np.ndarray, q: float = 0.999) -> dict:
    """The highest scores of pairs known to be different: the labelled counterpart of ``U``.

    :mod:`newsdedup.calibration` must assume every pair of a corpus is unrelated; with labels
    only the negatives count. The maximum is one pair and moves with every new item, so a
    high quantile is reported beside it.

    Args:
        scores: Score per pair.
        negative: Boolean mask of the pairs labelled different.
        q: Quantile in ``[0, 1]`` (lower order statistic ``sorted[floor(count * q)]``).

    Returns:
        ``{"count": number of negatives, "max": highest negative score, "q": q,
        "quantile": the q-quantile}``; ``max`` and ``quantile`` are NaN without negatives.

    Examples:
        >>> labelled_bound(np.array([0.1, 0.9, 0.3, 0.5]), np.array([1, 0, 1, 1], bool), 0.5)
        {'count': 3, 'max': 0.5, 'q': 0.5, 'quantile': 0.3}
    """
    neg = np.asarray(scores, dtype=np.float64)[np.asarray(negative, dtype=bool)]
    if not len(neg):
        return {"count": 0, "max": math.nan, "q": float(q), "quantile": math.nan}
    return {
        "count": int(len(neg)),
        "max": float(neg.max()),
        "q": float(q),
        "quantile": float(order_quantiles(neg, [q])[0]),
    }


def grid_above(bound: float, step: float = GRID) -> float:
    """First value of the ``step`` grid strictly above ``bound`` (as in calibration).

    Examples:
        >>> grid_above(0.4545), grid_above(0.5), grid_above(1.0)
        (0.46, 0.51, 1.01)
    """
    return round(math.floor(bound / step + 1e-9) * step + step, 10)


# --------------------------------------------------------------------------------------
# Corpora with story ids (UCI News Aggregator)
# --------------------------------------------------------------------------------------


def evaluate_stories(
    items: pd.DataFrame,
    story_col: str = "STORY",
    n: int = 4,
    scheme: str = DEFAULT_SCHEME,
    thresholds: Sequence[float] | None = None,
    q: float = 0.999,
) -> dict[str, pd.DataFrame]:
    """Exact Jaccard of all pairs of a corpus against its story (event cluster) ids.

    A pair is positive when both items carry the same story id. Caveat: a story groups all
    coverage of one event, and most same-story pairs are independent rewrites, not
    near-duplicates (the UCI SOURCE.md says so). Low recall here is therefore expected and
    says little about near-duplicate recall; what this measures well is *precision*: how
    often a pair above a threshold really is the same event, and how high different-story
    pairs score (the labelled bound).

    The texts are ``title + " " + summary`` normalized with ``scheme``, as everywhere in the
    package. Memory is ``O(N^2)`` (the dense Jaccard matrix plus the pair arrays): about
    1 GB at 6,400 items.

    Args:
        items: A corpus table (:func:`newsdedup.corpus.load_corpus`) with ``title``,
            optionally ``summary``, and ``story_col``.
        story_col: Column with the story id; a missing id matches nothing.
        n: n-gram size.
        scheme: Normalization scheme.
        thresholds: Threshold grid; :func:`metric_grid` by default.
        q: Quantile of the different-story scores reported beside their maximum.

    Returns:
        ``{"summary": one row: items, stories, pairs, positives, negatives, AUC;
        "distribution": per class (same_story, different_story):``
        :data:`DISTRIBUTION_STATS` ``; "metrics": per threshold:`` :data:`METRIC_COLUMNS`
        ``; "bound": the maximum and the q-quantile of the different-story scores, each with
        the first 0.01 grid value strictly above it and the tp / fp / precision / recall of
        that threshold}``.

    Examples:
        >>> items = pd.DataFrame({
        ...     "title": ["Fed holds rates", "Fed holds rates steady", "Apple sues Samsung",
        ...               "Apple sues Samsung again"],
        ...     "STORY": ["fed", "fed", "apple", "apple"]})
        >>> out = evaluate_stories(items, n=3)
        >>> out["summary"][["pairs", "positives", "negatives"]].values.tolist()
        [[6, 2, 4]]
        >>> out["bound"][["bound", "value", "threshold", "recall"]].round(3).values.tolist()
        [['max', 0.033, 0.04, 1.0], ['q0.999', 0.033, 0.04, 1.0]]
    """
    norm = get_scheme(scheme)
    summaries = items["summary"] if "summary" in items else pd.Series("", index=items.index)
    texts = [norm(item_text(t, s)) for t, s in zip(items["title"], summaries, strict=True)]
    scores = upper_pairs(jaccard_matrix(shingle_matrix(texts, n)))
    positive = same_label_pairs(items[story_col], scores.i, scores.j)
    grid = metric_grid() if thresholds is None else np.asarray(thresholds, dtype=np.float64)
    head = {"n": n, "scheme": scheme}

    metrics = threshold_metrics(scores.score, positive, grid)
    # Sorted once per class and summarised directly: a per-pair label column would cost
    # gigabytes at 20 million pairs.
    pos_sorted = np.sort(scores.score[positive])
    neg_sorted = np.sort(scores.score[~positive])
    dist = pd.DataFrame(
        [
            {"label": "same_story", **sorted_stats(pos_sorted)},
            {"label": "different_story", **sorted_stats(neg_sorted)},
        ]
    )

    bound = labelled_bound(scores.score, ~positive, q)
    rows = []
    for name, value in (("max", bound["max"]), (f"q{q:g}", bound["quantile"])):
        t = grid_above(value) if not math.isnan(value) else math.nan
        at = threshold_metrics(scores.score, positive, [t])
        rows.append(
            {
                "bound": name,
                "value": value,
                "threshold": t,
                **{k: py_scalar(at[k].iloc[0]) for k in ("tp", "fp", "precision", "recall")},
            }
        )

    n_pos = int(positive.sum())
    summary = pd.DataFrame(
        [
            {
                **head,
                "items": len(items),
                "stories": int(items[story_col].nunique()),
                "pairs": len(scores),
                "positives": n_pos,
                "negatives": len(scores) - n_pos,
                "auc": auc_sorted(pos_sorted, neg_sorted),
            }
        ]
    )
    return {
        "summary": summary,
        "distribution": dist.assign(**head)[["n", "scheme", "label", *DISTRIBUTION_STATS]],
        "metrics": metrics.assign(**head)[["n", "scheme", *METRIC_COLUMNS]],
        "bound": pd.DataFrame(rows).assign(**head, negatives=bound["count"]),
    }

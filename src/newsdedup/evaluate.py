"""How well character n-gram Jaccard separates "same event" from "different" on labelled data.

:mod:`newsdedup.calibration` sets a threshold from unlabelled data: the highest score over all
pairs of a corpus is taken as the unrelated-pair bound, which holds only if the corpus has no
duplicates. With labels the two distributions can be measured directly. This module does that
for two kinds of labelled data:

* graded sentence pairs (KorSTS and the English STS Benchmark it was translated from, news
  headlines part): each pair is scored on its own (:func:`sentence_pair_jaccard`) and the 0-5
  grade is cut into ``"same"`` / ``"different"`` at stated cut-offs, the middle left out
  (:func:`evaluate_sts`). The grades are semantic similarity, not a same-event flag, so
  results are reported for more than one pair of cut-offs;
* a corpus whose items carry a story (event cluster) id, such as the UCI News Aggregator:
  every pair is scored and is positive when both items belong to the same story
  (:func:`evaluate_stories`).

Both come down to the same tables: score distributions per class, precision / recall / F1 per
threshold (:func:`threshold_metrics`, vectorized by sorting, no loop over pairs), the best-F1
threshold (:func:`best_threshold`) and the labelled bound, i.e. the maximum and a high
quantile of the scores of pairs known to be different (:func:`labelled_bound`).

Quantiles (p5, p50, p95 and the bound's quantile) are lower order statistics
(:func:`newsdedup.calibration.order_quantiles`), the definition of the published tables.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from newsdedup.calibration import GRID, default_grid, order_quantiles
from newsdedup.normalize import DEFAULT_SCHEME, get_scheme, item_text
from newsdedup.pairs import label_pairs
from newsdedup.shingle import shingle_matrix
from newsdedup.similarity import idf_weights, jaccard_matrix, upper_pairs

METRIC_COLUMNS: tuple[str, ...] = ("threshold", "tp", "fp", "fn", "precision", "recall", "f1")
"""Columns of :func:`threshold_metrics`, in order."""

DISTRIBUTION_STATS: tuple[str, ...] = ("count", "mean", "p5", "p50", "p95", "max")
"""Per-class statistics of a score distribution, in order."""

CUTOFFS: tuple[tuple[float, float], ...] = ((4.0, 1.0), (3.0, 2.0))
"""Default ``(same_at, different_at)`` cut-off pairs reported by :func:`evaluate_sts`.

(4, 1) keeps only clear cases; (3, 2) splits the graded scale nearly in the middle, so it
tests the score on harder pairs. The KorSTS SOURCE.md asks for more than one.
"""


def metric_grid() -> np.ndarray:
    """The default thresholds ``0.05, 0.10, ..., 0.95`` (rounded, so 0.3 is exactly 0.3).

    Examples:
        >>> g = metric_grid()
        >>> len(g), g[:3].tolist(), bool(g[5] == 0.3), float(g[-1])
        (19, [0.05, 0.1, 0.15], True, 0.95)
    """
    return default_grid(0.05, 0.95, 0.05)


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
    empty scores 0.0 (the convention of :mod:`newsdedup.shingle`).

    Args:
        s1: First sentence of each pair (raw text; normalized here).
        s2: Second sentence of each pair, same length as ``s1``.
        n: n-gram size, ``n >= 1``.
        scheme: Normalization scheme name (:data:`newsdedup.normalize.SCHEMES`).
        weighted: Weigh each shingle by its IDF (:func:`newsdedup.similarity.idf_weights`)
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
    k = len(s1)
    shingled = shingle_matrix([norm(t) for t in s1] + [norm(t) for t in s2], n)
    x = shingled.matrix
    x1, x2 = x[:k], x[k:]
    if weighted:
        w = idf_weights(shingled)
        inter = np.asarray(x1.multiply(x2) @ w, dtype=np.float64).ravel()
        mass = np.asarray(x @ w, dtype=np.float64).ravel()
    else:
        # Integer counts keep the score bit-identical to len(a & b) / len(a | b).
        inter = np.asarray(x1.multiply(x2).sum(axis=1), dtype=np.int64).ravel()
        mass = shingled.sizes
    union = mass[:k] + mass[k:] - inter
    out = np.zeros(k, dtype=np.float64)
    np.divide(inter, union, out=out, where=union > 0)
    # Weighted sums can round a hair past 1 for identical sets; the score lives in [0, 1].
    return np.clip(out, 0.0, 1.0)


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


# --------------------------------------------------------------------------------------
# Threshold metrics
# --------------------------------------------------------------------------------------


def threshold_metrics(
    scores: np.ndarray, positive: np.ndarray, thresholds: Sequence[float]
) -> pd.DataFrame:
    """Precision, recall and F1 of the rule ``score >= threshold`` at every threshold.

    Every pair passed in is labelled: ``positive`` true is "same", false is "different"
    (drop unlabelled pairs before calling). The counts come from sorting each class once and
    a binary search per threshold, so the cost is ``O(P log P)`` whatever the grid.

    Args:
        scores: Score per pair.
        positive: Boolean label per pair, same shape as ``scores``.
        thresholds: Thresholds to evaluate.

    Returns:
        One row per threshold with :data:`METRIC_COLUMNS`: counts ``tp`` (positives flagged),
        ``fp`` (negatives flagged), ``fn`` (positives missed) as ``int64``; ``precision`` is
        NaN when nothing is flagged, ``recall`` NaN when there are no positives, and
        ``f1 = 2tp / (2tp + fp + fn)``, which is 0.0 when positives exist but none is flagged
        and NaN only when there is neither a positive nor a flagged pair.

    Raises:
        ValueError: ``scores`` and ``positive`` differ in shape.

    Examples:
        >>> s = np.array([0.9, 0.6, 0.4, 0.7, 0.2])
        >>> pos = np.array([True, True, True, False, False])
        >>> m = threshold_metrics(s, pos, [0.5, 0.8, 0.95])
        >>> m[["tp", "fp", "fn"]].values.tolist()
        [[2, 1, 1], [1, 0, 2], [0, 0, 3]]
        >>> m["precision"].round(3).tolist(), m["f1"].round(3).tolist()
        ([0.667, 1.0, nan], [0.667, 0.5, 0.0])
    """
    s = np.asarray(scores, dtype=np.float64)
    pos = np.asarray(positive, dtype=bool)
    if s.shape != pos.shape:
        raise ValueError(f"scores {s.shape} and positive {pos.shape} must have the same shape")
    t = np.asarray(thresholds, dtype=np.float64)
    pos_sorted = np.sort(s[pos])
    neg_sorted = np.sort(s[~pos])
    n_pos, n_neg = len(pos_sorted), len(neg_sorted)
    # side="left": a score equal to the threshold is flagged (score >= threshold).
    tp = (n_pos - np.searchsorted(pos_sorted, t, side="left")).astype(np.int64)
    fp = (n_neg - np.searchsorted(neg_sorted, t, side="left")).astype(np.int64)
    fn = n_pos - tp
    return pd.DataFrame(
        {
            "threshold": t,
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "precision": _ratio(tp, tp + fp),
            "recall": _ratio(tp, np.full_like(tp, n_pos)),
            "f1": _ratio(2 * tp, 2 * tp + fp + fn),
        }
    )


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` as float, NaN where ``den`` is 0 (the ratio is undefined, not zero)."""
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def best_threshold(metrics: pd.DataFrame) -> dict:
    """The row of a metrics table with the highest F1; ties go to the higher threshold.

    A higher threshold at equal F1 flags fewer pairs, and for dedupe a false merge (an
    article lost) costs more than a missed one.

    Args:
        metrics: A table with at least ``threshold`` and ``f1`` (e.g. from
            :func:`threshold_metrics`, possibly with extra columns).

    Returns:
        That row as a plain ``dict`` (Python scalars).

    Raises:
        ValueError: The table is empty or no row has a defined F1.

    Examples:
        >>> m = pd.DataFrame({"threshold": [0.1, 0.2, 0.3], "f1": [0.5, 0.8, 0.8]})
        >>> best_threshold(m)
        {'threshold': 0.3, 'f1': 0.8}
    """
    f1 = metrics["f1"].to_numpy(dtype=np.float64)
    defined = ~np.isnan(f1)
    if not defined.any():
        raise ValueError("no threshold has a defined F1 (no positives and nothing flagged)")
    thr = metrics["threshold"].to_numpy(dtype=np.float64)
    top = defined & (f1 == f1[defined].max())
    pick = int(np.flatnonzero(top)[np.argmax(thr[top])])
    # Column by column: a row Series of a mixed table would turn the int counts into floats.
    return {c: _py(metrics[c].iloc[pick]) for c in metrics.columns}


def _py(value):
    """A numpy scalar as the matching Python scalar (for dicts that go to JSON or reports)."""
    return value.item() if isinstance(value, np.generic) else value


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


def score_distribution(scores: np.ndarray, classes: np.ndarray) -> pd.DataFrame:
    """:data:`DISTRIBUTION_STATS` of the scores of each class, in order of first appearance.

    Args:
        scores: Score per pair.
        classes: Class label per pair (e.g. ``"same"`` / ``"different"``).

    Returns:
        One row per class: ``label`` then :data:`DISTRIBUTION_STATS`.

    Examples:
        >>> d = score_distribution(np.array([0.2, 0.8, 0.6]), np.array(["d", "s", "s"]))
        >>> d[["label", "count", "mean", "max"]].values.tolist()
        [['d', 1, 0.2, 0.2], ['s', 2, 0.7, 0.8]]
    """
    s = np.asarray(scores, dtype=np.float64)
    codes, names = pd.factorize(pd.Series(classes))
    # A handful of classes, not pairs.
    rows = [{"label": name, **_stats(np.sort(s[codes == c]))} for c, name in enumerate(names)]
    return pd.DataFrame(rows, columns=["label", *DISTRIBUTION_STATS])


def _stats(ordered: np.ndarray) -> dict:
    """:data:`DISTRIBUTION_STATS` of already sorted scores (NaN statistics when empty)."""
    if not len(ordered):
        return {"count": 0, **dict.fromkeys(DISTRIBUTION_STATS[1:], math.nan)}
    # Lower order statistics, as order_quantiles, without sorting again.
    p5, p50, p95 = ordered[(len(ordered) * np.array([0.05, 0.50, 0.95])).astype(np.int64)]
    return {
        "count": int(len(ordered)),
        "mean": float(ordered.mean()),
        "p5": float(p5),
        "p50": float(p50),
        "p95": float(p95),
        "max": float(ordered[-1]),
    }


def separation_auc(scores: np.ndarray, positive: np.ndarray) -> float:
    """Probability that a random positive outscores a random negative (ties count half).

    The threshold-free summary of separation (ROC AUC, the Mann-Whitney U over ``P * N``):
    the negatives are sorted once and every positive is placed among them by binary search.

    Examples:
        >>> separation_auc(np.array([0.9, 0.5, 0.5, 0.1]), np.array([1, 1, 0, 0], bool))
        0.875
    """
    s = np.asarray(scores, dtype=np.float64)
    pos = np.asarray(positive, dtype=bool)
    return _auc_sorted(s[pos], np.sort(s[~pos]))


def _auc_sorted(pos: np.ndarray, neg_sorted: np.ndarray) -> float:
    if not len(pos) or not len(neg_sorted):
        return math.nan
    below = np.searchsorted(neg_sorted, pos, side="left").sum(dtype=np.float64)
    upto = np.searchsorted(neg_sorted, pos, side="right").sum(dtype=np.float64)
    # below + (upto - below) / 2: negatives strictly lower, plus half of the ties.
    return float((below + upto) / 2 / (len(pos) * len(neg_sorted)))


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

    Pairs are labelled with :func:`newsdedup.pairs.label_pairs`: ``score >= same_at`` is
    same, ``score <= different_at`` different; the pairs in between are left out of every
    metric and only counted (``n_between``). The STS grade is semantic similarity, not a
    same-event flag: a grade-4 pair may be two headlines about one event in other words, so
    recall here is recall of paraphrase, harder than recall of near-duplicates.

    Args:
        df: Pairs as loaded by :func:`newsdedup.pairs.load_korsts` or
            :func:`~newsdedup.pairs.load_stsb` (``filename``, ``score``, ``sentence1``,
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
    scored = {
        (n, scheme): sentence_pair_jaccard(
            part["sentence1"].tolist(), part["sentence2"].tolist(), n, scheme, weighted
        )
        for scheme in schemes
        for n in ngrams
    }
    pairs = [(float(same_at), float(different_at))]
    pairs += [(float(a), float(b)) for a, b in cutoffs if (float(a), float(b)) not in pairs]

    dist, metrics, best = [], [], {}
    for sa, da in pairs:
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
            row = {
                "same_at": sa,
                "different_at": da,
                **head,
                **counts,
                "mean_same": float(s[positive].mean()),
                "mean_different": float(s[~positive].mean()),
                "auc": separation_auc(s, positive),
                **best_threshold(table),
            }
            rows.append(row)
            if (sa, da) == pairs[0]:
                # Fixed row order (same, then different), whichever comes first in the file.
                d = score_distribution(s, labels[keep]).set_index("label")
                d = d.reindex(["same", "different"]).reset_index()
                dist.append(d.assign(**head)[["n", "scheme", "label", *DISTRIBUTION_STATS]])
                metrics.append(table.assign(**head)[["n", "scheme", *METRIC_COLUMNS]])
        best[(sa, da)] = pd.DataFrame(rows)

    main = best[pairs[0]].drop(columns=["same_at", "different_at"])
    return {
        "distribution": pd.concat(dist, ignore_index=True),
        "metrics": pd.concat(metrics, ignore_index=True),
        "best": main,
        "cutoffs": pd.concat(best.values(), ignore_index=True),
    }


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
            {"label": "same_story", **_stats(pos_sorted)},
            {"label": "different_story", **_stats(neg_sorted)},
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
                **{k: _py(at[k].iloc[0]) for k in ("tp", "fp", "precision", "recall")},
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
                "auc": _auc_sorted(pos_sorted, neg_sorted),
            }
        ]
    )
    return {
        "summary": summary,
        "distribution": dist.assign(**head)[["n", "scheme", "label", *DISTRIBUTION_STATS]],
        "metrics": metrics.assign(**head)[["n", "scheme", *METRIC_COLUMNS]],
        "bound": pd.DataFrame(rows).assign(**head, negatives=bound["count"]),
    }

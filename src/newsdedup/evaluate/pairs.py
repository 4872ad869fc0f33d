"""Labelled sentence pairs: how well each scorer separates "same" from "different".

:mod:`newsdedup.studies.calibration` sets a threshold from unlabelled data: the highest score
over all
pairs of a corpus is taken as the unrelated-pair bound, which holds only if the corpus has no
duplicates. With labels the two distributions can be measured directly. Here the labels are
graded sentence pairs (KorSTS and the English STS Benchmark it was translated from, news
headlines part): each pair is scored on its own (:func:`sentence_pair_jaccard`) and the 0-5
grade is cut into ``"same"`` / ``"different"`` at stated cut-offs, the middle left out
(:func:`evaluate_sts`). The grades are semantic similarity, not a same-event flag, so results
are reported for more than one pair of cut-offs.

The metrics themselves live in :mod:`newsdedup.evaluate.metrics`; corpora with story ids (UCI) in
:mod:`newsdedup.evaluate.stories`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from newsdedup.cluster.gate import bucket_ids, lead_token
from newsdedup.corpus.sts import label_pairs
from newsdedup.evaluate.metrics import (
    DISTRIBUTION_STATS,
    METRIC_COLUMNS,
    average_precision_rows,
    best_threshold,
    bootstrap_indices,
    metric_grid,
    percentile_interval,
    prf_rows,
    py_scalar,
    roc_auc_rows,
    score_distribution,
    separation_auc,
    threshold_metrics,
)
from newsdedup.score.jaccard import DocumentFrequency, idf_weights, pair_jaccard
from newsdedup.score.minhash import MinHashParams, estimate_pairs, signatures
from newsdedup.text.normalize import DEFAULT_SCHEME, get_scheme
from newsdedup.text.shingle import ShingleMatrix, shingle_matrix

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
    return _rowwise_jaccard(shingled, idf_weights(shingled) if weighted else None)


def _rowwise_jaccard(shingled: ShingleMatrix, weights: np.ndarray | None) -> np.ndarray:
    """Jaccard of rows ``k`` and ``K + k`` of a ``2K``-row shingle matrix, for every ``k``."""
    k = shingled.n_items // 2
    first = np.arange(k, dtype=np.int64)
    return pair_jaccard(shingled, first, first + k, weights)


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
# Every scorer, gate on and off, with bootstrap intervals (the labelled pair study)
# --------------------------------------------------------------------------------------

SCORER_KINDS: tuple[str, ...] = ("jaccard", "idf-batch", "idf-ref", "minhash")
"""Scorers of the pair study: plain Jaccard, IDF-weighted Jaccard with IDF from the scored
batch or from a reference corpus, and the MinHash estimate of plain Jaccard."""

PAIR_CUTOFFS: tuple[tuple[float, float], ...] = ((4.0, 1.0), (3.5, 3.5))
"""``(same_at, different_at)`` of the pair study: clear cases (>= 4 vs <= 1), and the
scale split in two (>= 3.5 vs < 3.5, see :func:`newsdedup.corpus.sts.label_pairs`)."""

MINHASH_SEED = 42
"""Seed of the published MinHash family used by the ``minhash`` scorers."""


@dataclass(frozen=True)
class Scorer:
    """One way of scoring a pair of headlines.

    Attributes:
        kind: One of :data:`SCORER_KINDS`.
        n: Character n-gram size.
        num_perm: MinHash permutations (``kind == "minhash"`` only, else 0).

    Examples:
        >>> Scorer("minhash", 3, 64).name, Scorer("idf-ref", 4).name
        ('minhash-n3-k64', 'idf-ref-n4')
    """

    kind: str
    n: int
    num_perm: int = 0

    def __post_init__(self) -> None:
        if self.kind not in SCORER_KINDS:
            raise ValueError(f"unknown scorer {self.kind!r}; choose one of {list(SCORER_KINDS)}")
        if self.n < 1:
            raise ValueError(f"n-gram size must be >= 1, got {self.n}")
        if (self.kind == "minhash") != (self.num_perm > 0):
            raise ValueError("num_perm > 0 is required for minhash and only for minhash")

    @property
    def name(self) -> str:
        base = f"{self.kind}-n{self.n}"
        return f"{base}-k{self.num_perm}" if self.kind == "minhash" else base


def default_scorers(
    ngrams: Sequence[int] = (2, 3, 4, 5),
    minhash_n: int = 3,
    num_perms: Sequence[int] = (16, 32, 64, 128, 256),
) -> tuple[Scorer, ...]:
    """Plain, batch-IDF and reference-IDF Jaccard for every n; MinHash at every k for one n.

    n = 3 for MinHash is the production n-gram size (seed 000), so the MinHash rows show
    what estimating that score costs at each signature length.

    Examples:
        >>> [s.name for s in default_scorers((3,), 3, (64,))]
        ['jaccard-n3', 'idf-batch-n3', 'idf-ref-n3', 'minhash-n3-k64']
    """
    out = [Scorer(kind, n) for kind in ("jaccard", "idf-batch", "idf-ref") for n in ngrams]
    out += [Scorer("minhash", minhash_n, k) for k in num_perms]
    # Grouped by kind for the tables: jaccard n2..n5, idf-batch n2..n5, ...
    return tuple(sorted(out, key=lambda s: (SCORER_KINDS.index(s.kind), s.n, s.num_perm)))


def gate_pairs(s1: Sequence[str], s2: Sequence[str]) -> np.ndarray:
    """Whether the subject gate lets each pair ``(s1[k], s2[k])`` merge.

    Lead tokens are read once per sentence (:func:`newsdedup.cluster.gate.lead_token`); a pair may
    merge when both sides fall in one bucket (:func:`newsdedup.cluster.gate.bucket_ids`), which is
    the rule of :func:`newsdedup.cluster.gate.gate_allows` applied to whole arrays.

    Examples:
        >>> gate_pairs(["진천군, 돌봄", "Fed holds", "…"], ["진천군 돌봄", "US Fed", "x"]).tolist()
        [True, False, False]
    """
    k = len(s1)
    ids = bucket_ids([lead_token(t) for t in list(s1) + list(s2)])
    return ids[:k] == ids[k:]


def score_pairs(
    pairs: pd.DataFrame,
    scorers: Sequence[Scorer] | None = None,
    reference: Sequence[str] | None = None,
    scheme: str = DEFAULT_SCHEME,
    minhash_seed: int = MINHASH_SEED,
) -> pd.DataFrame:
    """Score every pair with every scorer, gate off and gate on.

    Args:
        pairs: Pairs with ``sentence1``, ``sentence2``
            (e.g. :func:`newsdedup.corpus.sts.load_korsts`).
        scorers: Scorers; :func:`default_scorers` when None.
        reference: Raw texts of the reference corpus for the ``idf-ref`` scorers (normalized
            here with ``scheme``); required when such a scorer is asked for.
        scheme: Normalization scheme.
        minhash_seed: Seed of the ``crc32-mersenne61`` permutations. One signature of the
            largest ``k`` is computed; a smaller ``k`` uses its first columns, which is what
            drawing ``k`` permutations gives (the draws extend, see :mod:`newsdedup.score.minhash`).

    Returns:
        One row per pair, in input order (index reset): ``gate`` (the gate allows the pair)
        and, per scorer, ``<name>`` (the score, in ``[0, 1]``) and ``<name>+gate`` (the
        score, 0.0 where the gate blocks: the rule "flag if allowed and score >= t").

    Raises:
        ValueError: An ``idf-ref`` scorer without ``reference``.

    Examples:
        >>> df = pd.DataFrame({"sentence1": ["abc def", "xyz"], "sentence2": ["abc deg", "qrs"]})
        >>> out = score_pairs(df, [Scorer("jaccard", 2)])
        >>> out.columns.tolist(), out["jaccard-n2"].round(3).tolist()
        (['gate', 'jaccard-n2', 'jaccard-n2+gate'], [0.667, 0.0])
        >>> out["jaccard-n2+gate"].round(3).tolist()
        [0.667, 0.0]
    """
    scorers = default_scorers() if scorers is None else tuple(scorers)
    if reference is None and any(s.kind == "idf-ref" for s in scorers):
        raise ValueError("idf-ref scorers need a reference corpus")
    norm = get_scheme(scheme)
    s1 = pairs["sentence1"].tolist()
    s2 = pairs["sentence2"].tolist()
    texts = [norm(t) for t in s1] + [norm(t) for t in s2]
    ref_texts = [norm(t) for t in reference] if reference is not None else []
    allowed = gate_pairs(s1, s2)
    k = len(s1)
    columns: dict[str, np.ndarray] = {"gate": allowed}
    for n in sorted({s.n for s in scorers}):
        shingled = shingle_matrix(texts, n)
        of_n = [s for s in scorers if s.n == n]
        perms = max((s.num_perm for s in of_n), default=0)
        sigs = signatures(shingled, MinHashParams(num_perm=perms, seed=minhash_seed)) \
            if perms else None
        for s in of_n:
            if s.kind == "jaccard":
                score = _rowwise_jaccard(shingled, None)
            elif s.kind == "idf-batch":
                score = _rowwise_jaccard(shingled, idf_weights(shingled))
            elif s.kind == "idf-ref":
                ref = DocumentFrequency.from_shingles(shingle_matrix(ref_texts, n))
                score = _rowwise_jaccard(shingled, ref.weights(shingled.vocab))
            else:
                empty = shingled.sizes == 0
                first = np.arange(k, dtype=np.int64)
                score = estimate_pairs(sigs[:, : s.num_perm], empty, first, first + k)
            columns[s.name] = score
            columns[f"{s.name}+gate"] = np.where(allowed, score, 0.0)
    return pd.DataFrame(columns)


def score_columns(scored: pd.DataFrame) -> list[str]:
    """The score columns of a :func:`score_pairs` table, in order (everything but ``gate``)."""
    return [c for c in scored.columns if c != "gate"]


def minhash_record(scorers: Sequence[Scorer], seed: int = MINHASH_SEED) -> dict:
    """What a table with MinHash scores must record: family, scheme, seed and every k."""
    base = MinHashParams(seed=seed).as_dict()
    base.pop("num_perm")
    return {**base, "num_perms": sorted({s.num_perm for s in scorers if s.kind == "minhash"}),
            "lsh": None}


SUMMARY_STATS: tuple[str, ...] = ("auc", "ap", "precision", "recall", "f1")
"""Statistics of the pair study that get a bootstrap interval (``<stat>_lo``, ``<stat>_hi``)."""


def _labelled(grades: np.ndarray, same_at: float, different_at: float):
    labels = label_pairs(pd.DataFrame({"score": grades}), same_at, different_at).to_numpy()
    keep = labels != "between"
    return keep, labels[keep] == "same", labels


def pair_study(
    select: pd.DataFrame,
    test: pd.DataFrame,
    select_scored: pd.DataFrame,
    test_scored: pd.DataFrame,
    cutoffs: Sequence[tuple[float, float]] = PAIR_CUTOFFS,
    thresholds: Sequence[float] | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
) -> dict[str, pd.DataFrame]:
    """AUC, AP and P/R/F1 of every score column, threshold chosen on one split, tested on another.

    For every cut-off and score column (scorer, gate off and on): the threshold with the best
    F1 on ``select`` (:func:`newsdedup.evaluate.metrics.best_threshold`, ties to the higher one) is
    applied to ``test``; AUC, average precision and P/R/F1 at that threshold on ``test`` come
    with percentile bootstrap intervals (pairs resampled with replacement; one index matrix
    per cut-off, shared by every column, so columns are compared on the same resamples).
    Choosing on one split and measuring on the other keeps the reported F1 honest.

    Args:
        select: Pairs with their grade (``score``) where thresholds are chosen.
        test: Pairs where everything is measured.
        select_scored: :func:`score_pairs` of ``select``.
        test_scored: :func:`score_pairs` of ``test`` (same columns).
        cutoffs: ``(same_at, different_at)`` pairs.
        thresholds: Grid of candidate thresholds; :func:`newsdedup.evaluate.metrics.metric_grid`.
        n_resamples: Bootstrap resamples.
        seed: Seed of the resampling.

    Returns:
        ``{"summary": one row per cut-off and column: class counts, select AUC/AP/best
        threshold/F1, test AUC/AP/P/R/F1 at that threshold with ``_lo``/``_hi``, and the
        test's own best threshold and F1 (in-sample, for reference); "thresholds": per cut-off,
        column and grid threshold on test: :data:`METRIC_COLUMNS` and ``fpr``; "gate": per
        split, cut-off and class: pairs and the share the gate lets through}``.

    Raises:
        ValueError: The score columns differ, or a cut-off leaves a class empty.
    """
    cols = score_columns(test_scored)
    if cols != score_columns(select_scored):
        raise ValueError("select and test were scored with different scorers")
    grid = metric_grid() if thresholds is None else np.asarray(thresholds, dtype=np.float64)
    g_sel = select["score"].to_numpy(dtype=np.float64)
    g_test = test["score"].to_numpy(dtype=np.float64)
    summary, per_threshold, gate = [], [], []
    for sa, da in cutoffs:
        cut = {"same_at": float(sa), "different_at": float(da)}
        keep_s, pos_s, labels_s = _labelled(g_sel, sa, da)
        keep_t, pos_t, labels_t = _labelled(g_test, sa, da)
        for split, pos in (("select", pos_s), ("test", pos_t)):
            if pos.all() or not pos.any():
                raise ValueError(f"cut-offs ({sa}, {da}) leave a class empty on {split}")
        for split, labels, scored in (("select", labels_s, select_scored),
                                      ("test", labels_t, test_scored)):
            allowed = scored["gate"].to_numpy(dtype=bool)
            for label in ("same", "different"):
                mask = labels == label
                gate.append({"split": split, **cut, "label": label, "pairs": int(mask.sum()),
                             "gate_allows": float(allowed[mask].mean())})
        idx = bootstrap_indices(int(keep_t.sum()), n_resamples, seed)
        boot_pos = pos_t[idx]
        for col in cols:
            s_sel = select_scored[col].to_numpy(dtype=np.float64)[keep_s]
            s_test = test_scored[col].to_numpy(dtype=np.float64)[keep_t]
            chosen = best_threshold(threshold_metrics(s_sel, pos_s, grid))
            table = threshold_metrics(s_test, pos_t, grid)
            n_neg = int((~pos_t).sum())
            table["fpr"] = table["fp"] / n_neg
            per_threshold.append(table.assign(**cut, column=col))
            own = best_threshold(table)
            boot = {"auc": roc_auc_rows(s_test[idx], boot_pos),
                    "ap": average_precision_rows(s_test[idx], boot_pos),
                    **prf_rows(s_test[idx], boot_pos, chosen["threshold"])}
            point = {"auc": separation_auc(s_test, pos_t),
                     "ap": float(average_precision_rows(s_test, pos_t)),
                     **{k: float(v) for k, v in prf_rows(s_test, pos_t,
                                                          chosen["threshold"]).items()}}
            row = {**cut, "column": col, "n_same": int(pos_t.sum()), "n_different": n_neg,
                   "select_auc": separation_auc(s_sel, pos_s),
                   "select_ap": float(average_precision_rows(s_sel, pos_s)),
                   "threshold": chosen["threshold"], "select_f1": chosen["f1"]}
            for stat in SUMMARY_STATS:
                lo, hi = percentile_interval(boot[stat])
                row |= {stat: point[stat], f"{stat}_lo": lo, f"{stat}_hi": hi}
            row |= {"test_best_threshold": own["threshold"], "test_best_f1": own["f1"]}
            summary.append(row)
    thresholds_table = pd.concat(per_threshold, ignore_index=True)
    front = ["same_at", "different_at", "column"]
    return {
        "summary": _with_scorer_columns(pd.DataFrame(summary)),
        "thresholds": _with_scorer_columns(
            thresholds_table[front + [c for c in thresholds_table.columns if c not in front]]),
        "gate": pd.DataFrame(gate),
    }


def _with_scorer_columns(df: pd.DataFrame) -> pd.DataFrame:
    """Split ``column`` (``minhash-n3-k64+gate``) into scorer, kind, n, k and gate."""
    name = df["column"].str.removesuffix("+gate")
    parts = name.str.extract(r"^(?P<kind>[a-z-]+)-n(?P<n>\d+)(?:-k(?P<k>\d+))?$")
    out = df.drop(columns=["column"]).copy()
    pos = out.columns.get_loc("different_at") + 1
    for offset, (key, values) in enumerate((
        ("scorer", name.astype(object)),
        ("kind", parts["kind"].astype(object)),
        ("n", parts["n"].astype(np.int64)),
        ("k", pd.to_numeric(parts["k"]).fillna(0).astype(np.int64)),
        ("gate", df["column"].str.endswith("+gate").astype(bool)),
    )):
        out.insert(pos + offset, key, values.to_numpy())
    return out


def recommend(summary: pd.DataFrame, same_at: float, different_at: float) -> dict:
    """The scorer the evidence favours at one cut-off: highest F1 on the select split.

    Chosen on the select split only (ties: higher select AP, then the earlier row, i.e. the
    simpler scorer); its test figures are then an honest estimate. A row of ``summary``.

    Examples:
        >>> s = pd.DataFrame({"same_at": [4.0, 4.0], "different_at": [1.0, 1.0],
        ...                   "scorer": ["a", "b"], "select_f1": [0.8, 0.9],
        ...                   "select_ap": [0.9, 0.9]})
        >>> recommend(s, 4.0, 1.0)["scorer"]
        'b'
    """
    part = summary[(summary["same_at"] == same_at) & (summary["different_at"] == different_at)]
    if not len(part):
        raise ValueError(f"no rows for cut-offs ({same_at}, {different_at})")
    order = np.lexsort((np.arange(len(part)), -part["select_ap"].to_numpy(),
                        -part["select_f1"].to_numpy()))
    return {c: py_scalar(part[c].iloc[order[0]]) for c in part.columns}


def compare_languages(
    a_test: pd.DataFrame,
    a_scored: pd.DataFrame,
    b_scored: pd.DataFrame,
    cutoffs: Sequence[tuple[float, float]] = PAIR_CUTOFFS,
    n_resamples: int = 1000,
    seed: int = 0,
    names: tuple[str, str] = ("ko", "en"),
) -> pd.DataFrame:
    """AUC and AP of each score column in two languages on the same aligned pairs.

    KorSTS rows are STS-B rows translated, with the same grades, so one bootstrap index
    matrix resamples both sides together and the interval of the difference is paired.

    Args:
        a_test: The pairs (their ``score`` grades serve both languages).
        a_scored: :func:`score_pairs` of the first language.
        b_scored: :func:`score_pairs` of the second language, same rows and columns.
        cutoffs: ``(same_at, different_at)`` pairs.
        n_resamples: Bootstrap resamples.
        seed: Seed of the resampling.
        names: Suffixes of the two languages' columns.

    Returns:
        One row per cut-off and column: ``auc_<a>``, ``auc_<b>``, ``auc_diff`` (a - b) with
        ``auc_diff_lo`` / ``auc_diff_hi``, the same for ``ap``, and the share of same and of
        different pairs the gate lets through in each language.

    Raises:
        ValueError: The two tables differ in rows or columns.
    """
    cols = score_columns(a_scored)
    if cols != score_columns(b_scored) or len(a_scored) != len(b_scored):
        raise ValueError("the two languages must be scored on the same pairs with the same scorers")
    x, y = names
    grades = a_test["score"].to_numpy(dtype=np.float64)
    rows = []
    for sa, da in cutoffs:
        keep, pos, _ = _labelled(grades, sa, da)
        idx = bootstrap_indices(int(keep.sum()), n_resamples, seed)
        gates = {lang: scored["gate"].to_numpy(dtype=bool)[keep]
                 for lang, scored in ((x, a_scored), (y, b_scored))}
        for col in cols:
            sx = a_scored[col].to_numpy(dtype=np.float64)[keep]
            sy = b_scored[col].to_numpy(dtype=np.float64)[keep]
            row = {"same_at": float(sa), "different_at": float(da), "column": col}
            for stat, fn in (("auc", roc_auc_rows), ("ap", average_precision_rows)):
                vx, vy = float(fn(sx, pos)), float(fn(sy, pos))
                lo, hi = percentile_interval(fn(sx[idx], pos[idx]) - fn(sy[idx], pos[idx]))
                row |= {f"{stat}_{x}": vx, f"{stat}_{y}": vy, f"{stat}_diff": vx - vy,
                        f"{stat}_diff_lo": lo, f"{stat}_diff_hi": hi}
            for lang in names:
                row[f"gate_same_{lang}"] = float(gates[lang][pos].mean())
                row[f"gate_different_{lang}"] = float(gates[lang][~pos].mean())
            rows.append(row)
    return _with_scorer_columns(pd.DataFrame(rows))


def headline_split(pairs: pd.DataFrame, filename: str = "headlines") -> pd.DataFrame:
    """The rows of one ``filename`` (the news-headline pairs), index reset.

    Raises:
        ValueError: No such rows.
    """
    part = pairs[pairs["filename"] == filename].reset_index(drop=True)
    if not len(part):
        raise ValueError(f"no rows with filename {filename!r}")
    return part


def reference_sentences(splits: Sequence[pd.DataFrame], genre: str = "main-news",
                        exclude: str = "headlines") -> list[str]:
    """Sentences for reference IDF: both sides of every ``genre`` row not in ``exclude``.

    For KorSTS / STS-B that is the MSRpar and deft-news news sentences of all splits given:
    same language and domain as the headlines, and disjoint from the evaluated pairs, so
    the IDF is not measured on the pairs it scores.

    Examples:
        >>> df = pd.DataFrame({"genre": ["main-news"] * 3,
        ...                    "filename": ["MSRpar", "headlines", "deft-news"],
        ...                    "sentence1": ["a", "b", "c"], "sentence2": list("xyz")})
        >>> reference_sentences([df])
        ['a', 'c', 'x', 'z']
    """
    rows = pd.concat([s[(s["genre"] == genre) & (s["filename"] != exclude)] for s in splits])
    if not len(rows):
        raise ValueError(f"no {genre!r} rows outside {exclude!r} for a reference corpus")
    return rows["sentence1"].tolist() + rows["sentence2"].tolist()

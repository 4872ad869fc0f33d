"""``newsdedup evaluate pairs``: every scorer on labelled headline pairs, Korean against English.

:func:`run_pair_study` scores the KorSTS and STS-B news-headline pairs with
every scorer (:func:`newsdedup.evaluate.pairs.default_scorers`, the sentence
embeddings included), gate off and on, chooses thresholds on one split and
measures them on the other, and compares the aligned languages. With ``ngrams``
it also writes the per-n tables without intervals (:func:`write_ngram_tables`,
what the retired ``evaluate-sts`` wrote). :func:`run_pair_file` does the same
study on any labelled pair file (:mod:`newsdedup.corpus.pairfile`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from newsdedup.corpus.pairfile import is_binary, load_pair_file
from newsdedup.corpus.sts import label_pairs, load_korsts, load_stsb
from newsdedup.evaluate import pairs as ev
from newsdedup.paths import sha256_file
from newsdedup.runs.commit import commits
from newsdedup.runs.files import (
    Progress,
    markdown_table,
    quiet,
    write_csv,
    write_json,
    write_markdown,
    write_params,
    write_tables,
)
from newsdedup.studies.calibration import default_grid


@dataclass(frozen=True)
class PairStudyConfig:
    """Parameters of :func:`run_pair_study` (all written to ``params.json``).

    Attributes:
        select: Split where thresholds are chosen.
        test: Split where they are measured.
        n_resamples: Bootstrap resamples.
        seed: Bootstrap seed.
        grid_step: Step of the threshold grid.
        minhash_seed: Seed of the MinHash scorers.
        embeddings: Embedding backends scored beside the surface scorers
            (:data:`newsdedup.evaluate.pairs.EMBEDDING_BACKENDS`; empty for none).
    """

    select: str = "train"
    test: str = "dev"
    n_resamples: int = 1000
    seed: int = 0
    grid_step: float = 0.01
    minhash_seed: int = 42
    embeddings: tuple[str, ...] = ev.EMBEDDING_BACKENDS


PAIR_DATASETS: tuple[tuple[str, str, str], ...] = (
    ("ko", "korsts", "tsv"),
    ("en", "stsb-en", "csv"),
)
"""(language, corpus folder under ``shared/corpora``, file extension) of the aligned pairs."""


LOADERS: dict[str, Callable[[Path], pd.DataFrame]] = {"ko": load_korsts, "en": load_stsb}
"""Reader of each language's pair file."""


def run_pair_study(corpora: Path, out: Path, options: PairStudyConfig | None = None,
                   progress: Progress = quiet, echo: bool = True,
                   ngrams: Sequence[int] = (), embed_cache: Path | None = None
                   ) -> dict[str, dict]:
    """Every scorer on the KorSTS and STS-B headline pairs; Korean against English.

    Thresholds are chosen on ``options.select`` and measured on ``options.test``. Writes
    ``<out>/korsts/eval/`` and ``<out>/stsb-en/eval/`` (``summary.csv``, ``thresholds.csv``,
    ``scores.csv``, ``gate.csv``, ``recommendation.json``, ``eval.md``, ``params.json``)
    and ``<out>/sts-ko-en/eval/`` (``compare.csv``, ``compare.md``, ``params.json``).

    Args:
        corpora: Folder holding ``korsts/`` and ``stsb-en/``.
        out: Results root.
        options: Splits, bootstrap and grid; the published ones by default.
        progress: Progress callback.
        echo: Print the recommendations.
        ngrams: When given, also :func:`write_ngram_tables` for these n-gram sizes on
            the ``options.test`` split, into ``<out>/sts-headlines-<test>/evaluate/``.
        embed_cache: Root of the embedding caches (one folder per corpus below it), or
            None to encode without a cache.

    Returns:
        ``{"ko": ..., "en": ...}`` (pairs, scores, tables, recommendations per language)
        and ``"compare"``, the Korean-minus-English table.
    """
    options = options or PairStudyConfig()
    scorers = ev.default_scorers(embeddings=options.embeddings)
    results: dict[str, dict] = {}
    files = {}
    for lang, folder, ext in PAIR_DATASETS:
        files[lang] = {split: corpora / folder / f"sts-{split}.{ext}"
                       for split in (options.select, options.test)}
        cache = embed_cache / folder if embed_cache is not None else None
        results[lang] = _pair_study_language(lang, folder, files[lang], out, options, scorers,
                                             progress, echo, cache)
    results["compare"] = _compare_languages(results, out, options, scorers, progress)
    if ngrams:
        write_ngram_tables(files["ko"][options.test], files["en"][options.test],
                           f"sts-headlines-{options.test}", out, ngrams, progress, echo)
    return results


def _pair_study_language(lang: str, folder: str, files: dict[str, Path], out: Path,
                         options: PairStudyConfig, scorers: Sequence[ev.Scorer],
                         progress: Progress,
                         echo: bool, embed_cache: Path | None) -> dict:
    """The pair study of one language; writes ``<out>/<folder>/eval/``."""
    frames = {split: LOADERS[lang](path) for split, path in files.items()}
    reference = ev.reference_sentences(list(frames.values()))
    select = ev.headline_split(frames[options.select])
    test = ev.headline_split(frames[options.test])
    progress(f"eval {folder}: {len(select)} {options.select} / {len(test)} {options.test} "
             f"headline pairs, {len(scorers)} scorers x gate off/on, reference IDF from "
             f"{len(reference)} other news sentences")
    record = {
        "files": {split: {"file": p.name, "sha256": sha256_file(p)}
                  for split, p in files.items()},
        "pairs": {"select": len(select), "test": len(test)},
        "reference": {"rows": "genre main-news, filename != headlines, both splits",
                      "sentences": len(reference)},
    }
    return _study_and_write(select, test, reference, out / folder / "eval", folder, record,
                            options, scorers, ev.PAIR_CUTOFFS, progress, echo, embed_cache)


def _study_and_write(select: pd.DataFrame, test: pd.DataFrame, reference: list[str],
                     out_dir: Path, name: str, record: dict, options: PairStudyConfig,
                     scorers: Sequence[ev.Scorer], cutoffs: Sequence[tuple[float, float]],
                     progress: Progress, echo: bool, embed_cache: Path | None) -> dict:
    """Score both splits, choose on one, measure on the other; write ``out_dir``."""
    grid = default_grid(options.grid_step, 1.0 - options.grid_step, options.grid_step)
    sel_scored, test_scored = (
        ev.score_pairs(split, scorers, reference, minhash_seed=options.minhash_seed,
                       embed_cache=embed_cache, progress=progress)
        for split in (select, test))
    progress(f"eval {name}: bootstrap ({options.n_resamples} resamples, seed "
             f"{options.seed})")
    tables = ev.pair_study(select, test, sel_scored, test_scored, cutoffs=cutoffs,
                           thresholds=grid.tolist(), n_resamples=options.n_resamples,
                           seed=options.seed)
    # The per-threshold table is for reading: the coarse grid (plots use scores.csv).
    coarse = np.isin(np.round(tables["thresholds"]["threshold"], 10),
                     np.round(ev.metric_grid(), 10))
    tables["thresholds"] = tables["thresholds"][coarse].reset_index(drop=True)
    scores = pd.concat([test[["id", "score"]].rename(columns={"score": "grade"}),
                        test_scored], axis=1)
    recs = [ev.recommend(tables["summary"], sa, da) for sa, da in cutoffs]
    tables["versus"] = ev.versus_character(test, test_scored, tables["summary"], cutoffs,
                                           options.n_resamples, options.seed)
    write_tables({key: tables[key] for key in ("summary", "thresholds", "gate", "versus")
                  if len(tables[key])}, out_dir)
    write_csv(scores, out_dir / "scores.csv")
    write_json({"recommendations": recs}, out_dir / "recommendation.json")
    write_params({
        **record,
        "options": asdict(options),
        "cutoffs": [list(c) for c in cutoffs],
        "scorers": [s.name for s in scorers],
        "minhash": ev.minhash_record(scorers, options.minhash_seed),
        "embedding": ev.embedding_record(scorers),
        "bootstrap": {"method": "percentile", "confidence": 0.95,
                      "resamples": options.n_resamples, "seed": options.seed},
    }, out_dir / "params.json")
    sections = _pair_sections(tables, recs, options)
    write_markdown(sections, out_dir / "eval.md", f"Labelled headline pairs: {name}")
    if echo:
        print(f"{name}\n{sections[0][1]}\n")
    progress(f"eval {name}: wrote {out_dir}")
    return {"pairs": test, "scored": test_scored, "tables": tables, "recommendations": recs}


def split_halves(pairs: pd.DataFrame, labels: pd.Series, seed: int = 0
                 ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A seeded half of the pairs to choose thresholds on, the other half to measure on.

    Stratified: each label (``same``, ``different``, ``between``) is shuffled with the
    seed and split in two, the odd pair out going to the select half, so both halves see
    both classes whenever a class has two pairs. Each half keeps file order.

    Examples:
        >>> df = pd.DataFrame({"score": [1, 1, 0, 0, 1, 0]})
        >>> a, b = split_halves(df, pd.Series(["same", "same", "different", "different",
        ...                                    "same", "different"]))
        >>> len(a), len(b), sorted(a.index.tolist() + b.index.tolist())
        (4, 2, [0, 1, 2, 3, 4, 5])
    """
    rng = np.random.default_rng(seed)
    chosen = np.zeros(len(pairs), dtype=bool)
    values = labels.to_numpy()
    for label in sorted(set(values.tolist())):
        rows = np.flatnonzero(values == label)
        picked = rng.permutation(rows)[: (len(rows) + 1) // 2]
        chosen[picked] = True
    return pairs[chosen], pairs[~chosen]


@commits("evaluate-pairs")
def run_pair_file(path: Path, columns: dict[str, str], name: str, out: Path,
                  options: PairStudyConfig | None = None, *, same_at: float | None = None,
                  different_at: float | None = None, split_seed: int = 0,
                  progress: Progress = quiet, echo: bool = True,
                  embed_cache: Path | None = None) -> dict:
    """The pair study on any labelled pair file; writes ``<out>/<name>/eval/``.

    The same tables as :func:`run_pair_study` (``summary.csv`` with ``scorer``, ``kind``,
    ``gate``, ``same_at``, ``auc`` ..., ``thresholds.csv``, ``scores.csv``, ``gate.csv``,
    ``recommendation.json``, ``eval.md``, ``params.json``), for one cut-off.

    Args:
        path: The file (:func:`newsdedup.corpus.pairfile.load_pair_file`).
        columns: ``{role: column}``; with ``split`` the rows of ``options.select`` choose
            the thresholds and those of ``options.test`` measure them; without it a
            seeded, label-stratified half does each (:func:`split_halves`).
        name: Results folder name.
        out: Results root.
        options: Bootstrap, grid and embedding backends (``select``/``test`` name split
            values).
        same_at: Scores at or above are "same"; default 1 for a 0/1 label, else 4 (STS's
            0-5 scale).
        different_at: Scores at or below are "different"; default 0 for a 0/1 label,
            else 1.
        split_seed: Seed of the halves when the file has no split column.
        progress: Progress callback.
        echo: Print the recommendation.
        embed_cache: The file's embedding cache folder, or None.

    Returns:
        As one language of :func:`run_pair_study`.

    Raises:
        CorpusError: A bad row (file and line named).
        ValueError: A split value with no rows, or a cut-off leaving a class empty.
    """
    options = options or PairStudyConfig()
    pairs = load_pair_file(path, columns)
    pairs.insert(0, "id", pairs["line"])
    binary = is_binary(pairs["score"])
    cut = (1.0 if same_at is None and binary else 4.0 if same_at is None else float(same_at),
           0.0 if different_at is None and binary else 1.0 if different_at is None
           else float(different_at))
    if "split" in columns:
        parts = [pairs[pairs["split"] == v].reset_index(drop=True)
                 for v in (options.select, options.test)]
        for value, part in zip((options.select, options.test), parts, strict=True):
            if not len(part):
                raise ValueError(f"{path}: no rows with {columns['split']} == {value!r} (values: "
                                 f"{sorted(set(pairs['split']))})")
        split_record: dict = {"column": columns["split"], "select": options.select,
                              "test": options.test}
    else:
        halves = split_halves(pairs, label_pairs(pairs, *cut), split_seed)
        parts = [h.reset_index(drop=True) for h in halves]
        split_record = {"column": None, "halves": "seeded, stratified by label",
                        "seed": split_seed}
    select, test = parts
    for split, part in (("select", select), ("test", test)):
        found = set(label_pairs(part, *cut))
        if not {"same", "different"} <= found:
            raise ValueError(f"{path}: the {split} pairs need both 'same' (score >= {cut[0]:g}) "
                             f"and 'different' (<= {cut[1]:g}) rows; they have "
                             f"{sorted(found)} ({len(part)} pairs)")
    reference = select["sentence1"].tolist() + select["sentence2"].tolist()
    scorers = ev.default_scorers(embeddings=options.embeddings)
    progress(f"eval {name}: {len(select)} select / {len(test)} test pairs of {path.name} "
             f"({'0/1 label' if binary else 'graded'}, same >= {cut[0]:g}, different <= "
             f"{cut[1]:g}), {len(scorers)} scorers x gate off/on")
    record = {
        "files": {"pairs": {"file": path.name, "sha256": sha256_file(path)}},
        "columns": dict(columns),
        "labels": "0/1" if binary else "graded",
        "split": split_record,
        "pairs": {"select": len(select), "test": len(test)},
        "reference": {"rows": "both sides of the select pairs", "sentences": len(reference)},
    }
    return _study_and_write(select, test, reference, out / name / "eval", name, record,
                            options, scorers, [cut], progress, echo, embed_cache)


def _compare_languages(results: dict[str, dict], out: Path, options: PairStudyConfig,
                       scorers: Sequence[ev.Scorer], progress: Progress) -> pd.DataFrame:
    """Korean against English on the same pairs; writes ``<out>/sts-ko-en/eval/``."""
    compare = ev.compare_languages(results["ko"]["pairs"], results["ko"]["scored"],
                                   results["en"]["scored"], n_resamples=options.n_resamples,
                                   seed=options.seed)
    out_dir = out / "sts-ko-en" / "eval"
    write_csv(compare, out_dir / "compare.csv")
    keys = ["same_at", "different_at", "scorer", "gate", "auc_ko", "auc_en", "auc_diff",
            "auc_diff_lo", "auc_diff_hi", "ap_diff", "ap_diff_lo", "ap_diff_hi"]
    gate_cols = ["same_at", "different_at", "gate_same_ko", "gate_same_en",
                 "gate_different_ko", "gate_different_en"]
    write_markdown([
        ("Korean minus English, same pairs and grades (paired bootstrap, 95%)",
         markdown_table(compare[keys], ".3f")),
        ("Share of pairs the subject gate lets through",
         markdown_table(compare[gate_cols].drop_duplicates(), ".3f")),
    ], out_dir / "compare.md", "KorSTS against STS-B: the same headline pairs")
    write_params({"test": options.test, "options": asdict(options),
                  "minhash": ev.minhash_record(scorers, options.minhash_seed),
                  "embedding": ev.embedding_record(scorers),
                  "bootstrap": {"method": "percentile", "paired": True, "confidence": 0.95,
                                "resamples": options.n_resamples, "seed": options.seed}},
                 out_dir / "params.json")
    progress(f"eval sts-ko-en: wrote {out_dir}")
    return compare


def _pair_sections(tables: dict[str, pd.DataFrame], recs: list[dict],
                   options: PairStudyConfig) -> list[tuple[str, str]]:
    """Sections of ``eval.md``: recommendations, every scorer, the gate's share."""
    s = tables["summary"]
    cols = ["same_at", "different_at", "scorer", "gate", "select_auc", "threshold", "select_f1",
            "auc", "auc_lo", "auc_hi", "ap", "precision", "recall", "f1", "f1_lo", "f1_hi"]
    rec = pd.DataFrame(recs)[cols]
    return [
        (f"Recommended per cut-off (best F1 on {options.select}, measured on {options.test})",
         markdown_table(rec, ".3f", {"threshold": ".2f"})),
        (f"Every scorer: threshold chosen on {options.select}, AUC / AP / P / R / F1 on "
         f"{options.test} with 95% bootstrap intervals", markdown_table(s[cols], ".3f",
                                                                         {"threshold": ".2f"})),
        ("Share of pairs the subject gate lets through", markdown_table(tables["gate"], ".3f")),
    ] + ([(f"Sentence embeddings against the recommended character scorer (paired: AUC and F1 "
           f"on {options.test}, each at its {options.select} threshold; 95% intervals of the "
           f"differences)", markdown_table(tables["versus"], ".3f"))]
         if len(tables.get("versus", ())) else [])


def write_ngram_tables(korsts: Path, stsb: Path, name: str, out: Path,
                       ngrams: Sequence[int] = (2, 3, 4), progress: Progress = quiet,
                       echo: bool = True) -> dict[str, dict[str, pd.DataFrame]]:
    """Same/different separation per n-gram size, KorSTS and STS-B side by side.

    The per-n tables without intervals of :func:`newsdedup.evaluate.pairs.evaluate_sts`.
    The two files hold the same pairs (Korean and English) with the same grades, so the
    tables compare the languages on identical labels. Writes
    ``<out>/<name>/evaluate/{ko,en}_*.csv``, ``evaluate.md`` and ``params.json``.

    Args:
        korsts: The KorSTS file.
        stsb: The STS-B file with the same rows.
        name: Results folder name.
        out: Results root.
        ngrams: n-gram sizes.
        progress: Progress callback.
        echo: Print the best-F1 tables.

    Returns:
        ``{"ko": tables, "en": tables}``.
    """
    out_dir = out / name / "evaluate"
    result = {}
    sections = []
    for lang, path in (("ko", korsts), ("en", stsb)):
        progress(f"evaluate: {path.name} ({lang}), n = {list(ngrams)}")
        tables = ev.evaluate_sts(LOADERS[lang](path), ngrams=ngrams)
        result[lang] = tables
        write_tables(tables, out_dir, f"{lang}_")
        sections.append((f"{lang}: best F1 per n (cut-offs same >= 4, different <= 1, and 3/2)",
                         markdown_table(tables["cutoffs"], ".3f")))
        sections.append((f"{lang}: score distribution", markdown_table(tables["distribution"],
                                                                        ".3f")))
    write_markdown(sections, out_dir / "evaluate.md", f"Labelled headline pairs: {name}")
    write_params({"files": {"ko": korsts.name, "en": stsb.name}, "ngrams": list(ngrams)},
                 out_dir / "params.json")
    if echo:
        for heading, body in sections[::2]:
            print(f"{heading}\n{body}\n")
    progress(f"evaluate: wrote {out_dir}")
    return result

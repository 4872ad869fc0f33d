"""``newsdedup dedupe``: dedupe a corpus and write the audit of every decision.

:func:`dedupe_config` builds the configuration from a calibration file, a
threshold or the seed-000 defaults; :func:`run_dedupe` runs
:func:`newsdedup.cluster.dedupe.dedupe` and writes ``<out>/<name>/dedupe/``
(``items.csv``, ``groups.csv``, ``dedupe.json`` and, with a sweep, ``sweep.csv``);
:func:`run_model_dedupe` writes the same files for the dedupe by a calibration's pair
model (:mod:`newsdedup.cluster.modelled`).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from newsdedup.cluster.dedupe import (
    DedupeConfig,
    DedupeResult,
    dedupe,
    document_frequencies,
)
from newsdedup.cluster.modelled import ModelSpec, model_config, model_dedupe
from newsdedup.cluster.sweep import sweep_dedupe
from newsdedup.corpus.load import CorpusWarning, LoadResult, load_corpus
from newsdedup.progress import rate_reporter
from newsdedup.runs.commit import commits
from newsdedup.runs.console import sweep_console
from newsdedup.runs.files import Progress, corpus_meta, quiet, write_csv, write_params
from newsdedup.score.embed import backend_identity


def dedupe_config(fields: Mapping[str, Any], calibration: Path | None = None,
                  threshold: float | None = None) -> DedupeConfig:
    """The configuration of a dedupe run: from a calibration, a threshold, or the defaults.

    Args:
        fields: :class:`~newsdedup.cluster.dedupe.DedupeConfig` fields given
            explicitly (they override the calibration's).
        calibration: A ``calibration.json`` to take the threshold (and its
            scorer, n, text) from.
        threshold: A threshold given on the command line (when no calibration).

    Returns:
        The :class:`~newsdedup.cluster.dedupe.DedupeConfig`.
    """
    if calibration is not None:
        return DedupeConfig.from_calibration(calibration, **fields)
    if threshold is not None:
        return DedupeConfig(threshold=threshold, threshold_source="command line",
                            rationale="given on the command line", **fields)
    return DedupeConfig(**fields)


def load_reference(path: Path, columns: dict[str, str] | None = None, dialect: str = "standard",
                   progress: Progress = quiet) -> LoadResult:
    """Read a reference corpus whose document frequencies weigh the ``idf`` scorer."""
    progress(f"loading reference corpus {path}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CorpusWarning)
        return load_corpus(path, columns=columns, dialect=dialect)


DEDUPE_SWEEP: tuple[float, ...] = tuple(round(0.05 * k, 2) for k in range(1, 13))
"""Thresholds 0.05, 0.10, ..., 0.60 swept by ``run`` and ``make dedupe`` for every scorer."""

DEDUPE_COLUMNS = ("id", "title", "source", "url", "published_at", "group", "is_representative",
                  "representative", "stage", "rule", "score_to_rep", "lead", "kept_because")
"""Columns of the ``dedupe/items.csv`` audit file (those the corpus has)."""


def _config_record(config: DedupeConfig) -> dict:
    """The config as ``dedupe.json`` records it: the embedding fields only when used.

    The cache folder is never written (a machine's path); the backend's identity is.
    """
    record = asdict(config)
    record.pop("embed_cache", None)
    if config.scorer == "embedding" or config.rerank is not None:
        record["embedding"] = backend_identity(config.embedding) | {"role": "query"}
    else:
        record.pop("embedding", None)
        record.pop("rerank", None)
    return record


def _write_result(corpus, name: str, out_dir: Path, result: DedupeResult, echo: bool) -> dict:
    """Write ``items.csv`` and ``groups.csv``; the counts ``dedupe.json`` records."""
    rows = result.items
    groups = result.groups()
    merged = groups[groups["size"] > 1]
    if echo:
        print(f"{len(rows)} items -> {len(result.kept())} kept, {len(merged)} merged groups")
        for g in merged.itertuples(index=False):
            print(f"  [{g.size}] {g.title}  <- {', '.join(map(str, g.members))}")
    write_csv(rows[[c for c in DEDUPE_COLUMNS if c in rows.columns]], out_dir / "items.csv")
    # Members as a JSON array: ids may hold spaces, commas or quotes, and a joined string of
    # them could not be split back (json.loads gives the list).
    write_csv(merged.assign(members=[json.dumps([str(v) for v in m], ensure_ascii=False)
                                     for m in merged["members"]]), out_dir / "groups.csv")
    return {"corpus": corpus_meta(corpus, name),
            "items": len(rows), "kept": len(result.kept()), "merged_groups": len(merged),
            "largest_group": int(groups["size"].max()) if len(groups) else 0,
            "by_stage": {k: int(v) for k, v in rows["stage"].value_counts().sort_index().items()}}


@commits("dedupe")
def run_model_dedupe(corpus, name: str, out: Path, spec: ModelSpec,
                     cache_dir: Path | None = None, progress: Progress = quiet,
                     echo: bool = True) -> DedupeResult:
    """Dedupe a corpus by the pair model of a calibration; writes ``<out>/<name>/dedupe/``.

    The same files as :func:`run_dedupe`; ``score_to_rep`` is each member's probability
    against its representative, and ``dedupe.json`` names the model, its cut and its
    candidates (:mod:`newsdedup.cluster.modelled`).

    Args:
        corpus: A :class:`~newsdedup.corpus.load.LoadResult`.
        name: Results folder name.
        out: Results root.
        spec: The model (:func:`~newsdedup.cluster.modelled.read_model_spec`).
        cache_dir: This corpus's embedding cache folder, or None.
        progress: Progress callback.
        echo: Print the groups.

    Returns:
        The :class:`~newsdedup.cluster.dedupe.DedupeResult`.
    """
    progress(f"dedupe: pair model of {spec.source}, merge at P >= {spec.cut:.2f} by "
             f"{spec.link} link; candidates scoring >= {spec.floor:g} (character "
             f"{spec.n}-grams of title and summary); cosine of {spec.backend} embeddings")
    result = model_dedupe(corpus.items, spec, cache_dir, progress=progress)
    out_dir = out / name / "dedupe"
    meta = _write_result(corpus, name, out_dir, result, echo) | {
        "pair_model": {"calibration": spec.source, "cut": spec.cut, "link": spec.link,
                       "floor": spec.floor,
                       "ngram": spec.n, "scheme": spec.scheme,
                       "embedding": backend_identity(spec.backend),
                       "features": list(spec.model.features),
                       "fitted_on": spec.model.fitted_on},
        "config": _config_record(model_config(spec.n, spec.scheme))}
    write_params(meta, out_dir / "dedupe.json")
    progress(f"dedupe: wrote {out_dir}")
    return result


@commits("dedupe")
def run_dedupe(corpus, name: str, out: Path, config: DedupeConfig, progress: Progress = quiet,
               echo: bool = True, reference=None, sweep: Sequence[float] | None = None
               ) -> DedupeResult:
    """Dedupe a corpus with a ``DedupeConfig``; writes ``<out>/<name>/dedupe/``.

    Every input row is written to ``items.csv`` (the audit file) with its
    group, whether it is kept, its representative, how it matched (exact /
    near / unique), the rule that decided, its score to the representative,
    its gate key and why the representative was preferred. ``groups.csv``
    lists the merged groups (``members``: a JSON array of ids); ``dedupe.json``
    records the configuration, the scorer's parameters (IDF source, MinHash
    family/seed/num_perm), the threshold's source and rationale. With
    ``sweep`` thresholds, ``sweep.csv`` holds items left per threshold for
    every scorer, gate on and off.

    Args:
        corpus: A :class:`~newsdedup.corpus.load.LoadResult`.
        name: Results folder name.
        out: Results root.
        config: A :class:`~newsdedup.cluster.dedupe.DedupeConfig`.
        progress: Progress callback.
        echo: Print the groups.
        reference: A ``LoadResult`` whose document frequencies weigh the
            ``"idf"`` scorer; None for batch IDF.
        sweep: Thresholds to sweep, or None.

    Returns:
        The :class:`~newsdedup.cluster.dedupe.DedupeResult`.
    """
    gate = "on" if config.gate else "off"
    df = None if reference is None else document_frequencies(reference.items, config)
    idf = "batch" if df is None else f"reference ({df.n_docs} documents)"
    progress(f"dedupe: threshold {config.threshold:.2f} ({config.threshold_source}), "
             f"{config.scorer} n={config.n} on {config.text}, gate {gate}, idf {idf}")
    result = dedupe(corpus.items, config, reference=df,
                    progress=rate_reporter(progress, "dedupe: near pass", unit=" items"))
    out_dir = out / name / "dedupe"
    meta = _write_result(corpus, name, out_dir, result, echo) | {
        "config": _config_record(config), "scorer": result.scorer_params}
    if sweep:
        table = sweep_dedupe(corpus.items, sweep, config=config, reference=df,
                             progress=progress)
        write_csv(table, out_dir / "sweep.csv")
        meta["sweep"] = {"thresholds": list(sweep), "minhash": config.minhash_params().as_dict()}
        if echo:
            print(sweep_console(table))
    write_params(meta, out_dir / "dedupe.json")
    progress(f"dedupe: wrote {out_dir}")
    return result

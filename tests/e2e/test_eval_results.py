"""A fresh ``make eval`` rewrites the committed labelled-evaluation tables.

The tables under ``results/{korsts,stsb-en,sts-ko-en,uci-news-aggregator-head-sample12}/eval/``
are what the README's "Labelled data" section quotes. This test recomputes them from the
shared corpora into a temporary folder (pair study with its 1,000 seeded bootstrap resamples,
clustering study on the seeded 12-story sample) and compares every committed file: CSV and
Markdown as text whose decimal numbers may differ by
:data:`~newsdedup.runs.compare.EMBEDDING_TOLERANCE` (the sentence embeddings come from
float32 products whose last digits OpenBLAS decides per CPU: OPENBLAS_CORETYPE=Prescott
moved them by 7e-6), integers exactly; JSON the same after dropping the ``environment``
block (library versions).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from newsdedup import paths
from newsdedup.corpus.load import CorpusWarning, load_corpus
from newsdedup.runs.compare import EMBEDDING_TOLERANCE, committed_files, result_difference
from newsdedup.runs.evaluate_clusters import ClusterStudyConfig, run_cluster_study
from newsdedup.runs.evaluate_pairs import run_pair_study

DATASETS = ("korsts", "stsb-en", "sts-ko-en", "uci-news-aggregator-head-sample12")
COMMITTED = paths.RESULTS_DIR


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("results")
    # Sentence embeddings through the project's cache (data/cache/embeddings, git-ignored):
    # a fresh clone encodes them once (~8,500 sentences, a few minutes on 2 cores), a
    # rerun reads them back; cached and encoded vectors are equal (tests/score/test_embed.py).
    run_pair_study(paths.CORPORA_DIR, out, echo=False, embed_cache=paths.EMBED_CACHE_DIR)
    path = paths.shared_corpus_file("uci-news-aggregator-head", "uci-news-aggregator.head.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CorpusWarning)  # the truncated last row, reported
        corpus = load_corpus(path, columns=paths.UCI_COLUMNS)
    options = ClusterStudyConfig(stories=12, reference_corpora=paths.CORPORA_DIR)
    run_cluster_study(corpus, DATASETS[-1], out, options, echo=False,
                      embed_cache=paths.EMBED_CACHE_DIR / DATASETS[-1])
    return out


def _committed() -> list[str]:
    files = sorted(p.relative_to(COMMITTED).as_posix() for d in DATASETS
                   for p in committed_files(COMMITTED / d / "eval") if p.parent.name == "eval")
    return files or ["<missing>"]


@pytest.mark.parametrize("rel", _committed())
def test_committed_eval_file_is_reproduced(fresh: Path, rel: str) -> None:
    old, new = COMMITTED / rel, fresh / rel
    assert old.is_file(), "no committed eval tables: run `make eval` and commit results/*/eval"
    assert result_difference(old, new, EMBEDDING_TOLERANCE) is None, rel


def test_every_fresh_eval_table_is_committed(fresh: Path) -> None:
    made = {p.relative_to(fresh).as_posix() for d in DATASETS
            for p in (fresh / d / "eval").glob("*") if p.is_file()}
    assert made <= set(_committed()), f"not committed: {sorted(made - set(_committed()))}"

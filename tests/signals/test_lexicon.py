"""Learned entity weights and spellings: formulas against hand counts, the pinned archive's
brands and spellings found without any list, and a property of the weights."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.signals.entities import Entity, entity_matrix, version_conflicts
from newsdedup.signals.lexicon import (
    AliasRule,
    WeightRule,
    capitalized_share,
    idf_weight,
    korean_phrases,
    learn_aliases,
    learn_weights,
    romanize,
    similarity,
    skeleton,
    strip_brands,
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
    w = learn_weights(em, ["p"] * len(rows), WeightRule(brand, 0.5, generic, 1))
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


def test_title_case_function_words_weigh_nothing_names_keep_their_weight():
    texts = ["Fed To Hold Rates", "Plosser says Fed to hold", "Apple to buy Beats",
             "Snowden Speaks To SXSW", "Apple Watch to ship late"]
    from newsdedup.signals.entities import latin_entities

    em = entity_matrix([latin_entities(t, "token") for t in texts])
    w = learn_weights(em, ["p"] * len(texts), WeightRule(1.0, 1.0, 1.0, 1000, 0.5),
                      capitalized_share(texts))
    got = dict(zip(em.name_vocab, w.corpus.tolist(), strict=True))
    assert got["to"] == 0.0  # capitalized in 2 of its 5 uses
    assert got["snowden"] > 0 and got["apple"] > 0


def test_a_brand_is_its_own_publishers_not_news_many_cover():
    # "bachelor" fills half of site s's items but also most of the others': not s's brand.
    rows = [[Entity("bachelor")]] * 5 + [[Entity("s")]] * 5 + [[Entity("bachelor")]] * 8 \
        + [[Entity("y")]] * 12
    orgs = ["s"] * 10 + ["o"] * 20
    em = entity_matrix(rows)
    w = learn_weights(em, orgs, WeightRule(0.3, 0.5, 1.0, 5))
    common = w.common(em.name_vocab)
    assert common["s"] == ["s"] and "bachelor" not in common["s"]
    assert learn_weights(em, orgs, WeightRule(0.3, 0.3, 1.0, 5)).common(em.name_vocab)["s"] == [
        "bachelor", "s"]


def test_a_leading_brand_is_read_off_the_name():
    rows = strip_brands([[Entity("claude opus", "4.7")], [Entity("opus", "4.8")]],
                        [{"claude"}, set()])
    em = entity_matrix(rows)
    assert version_conflicts(em, np.array([0]), np.array([1])).nnz == 1  # Opus 4.7 vs 4.8
    assert rows[1][0].lines == ["opus"]

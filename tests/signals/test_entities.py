"""Entity extraction, script and brand maps, version conflicts: small fixtures and invariants."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.signals.entities import (
    BRANDS,
    Entity,
    EntityConfig,
    apply_script_map,
    brand_mask,
    entity_matrix,
    extract,
    korean_entities,
    latin_entities,
    version_conflicts,
)


def _strs(entities):
    return [str(e) for e in entities]


def test_a_run_of_capitalized_tokens_is_one_name_with_its_version():
    got = latin_entities("Gemini 3.1 Flash Live, Gemini API에 프리뷰 공개")
    assert got == [Entity("gemini flash live", "3.1"), Entity("gemini api", "")]
    assert got[0].surface == "Gemini 3.1 Flash Live"


def test_hyphens_split_names_and_versions_so_spellings_agree():
    a = latin_entities("로봇 모델 Gemini Robotics-ER 1.6 공개")
    b = latin_entities("임베디드 추론 모델 Gemini Robotics ER 2 공개")
    assert _strs(a) == ["gemini robotics er 1.6"] and _strs(b) == ["gemini robotics er 2"]
    assert _strs(latin_entities("GPT-5.5 Instant")) == ["gpt instant 5.5"]


def test_lower_case_words_punctuation_and_leading_numbers_end_a_run():
    assert _strs(latin_entities("Veo 3.1 Ingredients to Video")) == [
        "veo ingredients 3.1", "video"]
    assert _strs(latin_entities("2,000 Public First Action")) == ["public first action"]
    assert latin_entities("only lower case words 42") == []


def test_generic_and_one_letter_names_are_dropped():
    assert latin_entities("AI 기반 API와 S-1 제출") == []


def test_token_unit_splits_title_case_headlines_and_drops_possessives():
    got = latin_entities("Fed's Plosser: Nasty Weather Has Curbed Job Growth", "token")
    assert _strs(got) == ["fed", "plosser", "nasty", "weather", "has", "curbed", "job", "growth"]


def test_unknown_unit_is_rejected():
    with pytest.raises(ValueError, match="unit"):
        EntityConfig(unit="word")


def test_script_map_makes_korean_and_latin_spellings_one_name():
    ko = extract("구글이 제미나이 앱을 개편했다")
    en = extract("Google updates the Gemini app")
    assert {e.name for e in ko} >= {"google", "gemini"}
    assert {"google", "gemini"} <= {e.name for e in en}
    # Longest key first: "구글 딥마인드" is one run, not "google" then "deepmind".
    assert apply_script_map("구글 딥마인드가") == "Google DeepMind가"
    assert _strs(extract("구글 딥마인드가 공개")) == ["google deepmind"]


def test_korean_proper_nouns_come_from_kiwipiepy_minus_generic_loanwords():
    got = _strs(korean_entities("캄보디아 사기 조직과 에핑엄 지역의 벤치마크"))
    assert "캄보디아" in got and "에핑엄" in got and "벤치마크" not in got
    assert korean_entities("no hangul here") == []


def test_brand_mask_marks_each_organisations_own_names():
    m = brand_mask(["google", "openai", "acme"], ["alphaevolve", "chatgpt", "gemini"], BRANDS)
    assert m.toarray().tolist() == [[0, 0, 1], [0, 1, 0], [0, 0, 0]]


def _conflict_reference(a: list[Entity], b: list[Entity]) -> bool:
    """Brute force: a name both version, with no version in common."""
    va = {(e.name, e.version) for e in a if e.version}
    vb = {(e.name, e.version) for e in b if e.version}
    for name in {n for n, _ in va} & {n for n, _ in vb}:
        if not {v for n, v in va if n == name} & {v for n, v in vb if n == name}:
            return True
    return False


def test_version_conflict_on_the_published_false_pair_and_not_on_a_shared_version():
    er2 = extract("임베디드 추론 모델 Gemini Robotics ER 2 공개")
    er16 = extract("로봇 모델 Gemini Robotics-ER 1.6 공개")
    both = extract("Gemini Robotics ER 2는 Gemini Robotics-ER 1.6의 후속")
    em = entity_matrix([er2, er16, both])
    got = version_conflicts(em, np.array([0, 0, 1]), np.array([1, 2, 2]))
    assert (np.diff(got.indptr) > 0).tolist() == [True, False, False]


versions = st.sampled_from(["", "1", "1.6", "2", "5.5"])
names = st.sampled_from(["gpt", "gemini robotics er", "lyria", "veo"])
entity_lists = st.lists(st.builds(Entity, names, versions), max_size=5)


@settings(max_examples=60, deadline=None)
@given(st.lists(entity_lists, min_size=2, max_size=6))
def test_version_conflicts_match_brute_force(rows):
    em = entity_matrix(rows)
    pairs = list(itertools.combinations(range(len(rows)), 2))
    i = np.array([p[0] for p in pairs])
    j = np.array([p[1] for p in pairs])
    got = np.diff(version_conflicts(em, i, j).indptr) > 0
    assert got.tolist() == [_conflict_reference(rows[a], rows[b]) for a, b in pairs]


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="AbGz 0.9-가나,", max_size=40))
def test_latin_names_are_lower_case_nonempty_and_versions_numeric(text):
    for e in latin_entities(text):
        assert e.name and e.name == e.name.lower() and e.name not in {"ai", "api"}
        assert e.version == "" or all(p.isdigit() for p in e.version.split("."))

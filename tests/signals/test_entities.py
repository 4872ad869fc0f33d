"""Entity extraction, aliases, product lines, version conflicts: small fixtures and invariants."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.signals.entities import (
    Entity,
    EntityConfig,
    apply_aliases,
    entity_matrix,
    extract,
    korean_entities,
    latin_entities,
    shared_lines,
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


def test_one_letter_and_lower_case_pieces_are_not_names():
    assert _strs(latin_entities("AI 기반 API와 S-1 제출")) == ["ai", "api"]


def test_token_unit_splits_title_case_headlines_and_drops_possessives():
    got = latin_entities("Fed's Plosser: Nasty Weather Has Curbed Job Growth", "token")
    assert _strs(got) == ["fed", "plosser", "nasty", "weather", "has", "curbed", "job", "growth"]


def test_unknown_unit_is_rejected():
    with pytest.raises(ValueError, match="unit"):
        EntityConfig(unit="word")


def test_aliases_make_korean_and_latin_spellings_one_name():
    aliases = {"구글": "Google", "제미나이": "Gemini", "구글 딥마인드": "Google DeepMind"}
    ko = extract("구글이 제미나이 앱을 개편했다", EntityConfig(aliases=aliases))
    en = extract("Google updates the Gemini app")
    assert {e.name for e in ko} >= {"google", "gemini"}
    assert {"google", "gemini"} <= {e.name for e in en}
    # Longest spelling first: "구글 딥마인드" is one run, not "google" then "deepmind".
    assert apply_aliases("구글 딥마인드가", aliases) == "Google DeepMind가"
    assert _strs(extract("구글 딥마인드가 공개", EntityConfig(aliases=aliases))) == [
        "google deepmind"]
    # Only at the start of a word.
    assert apply_aliases("빅구글", aliases) == "빅구글"


def test_no_list_in_code_drops_a_name():
    got = _strs(korean_entities("캄보디아 사기 조직과 에핑엄 지역"))
    assert "캄보디아" in got and "에핑엄" in got
    assert korean_entities("no hangul here") == []
    import newsdedup.signals.entities as mod
    assert not any(hasattr(mod, n) for n in ("SCRIPT_MAP", "BRANDS", "GENERIC"))


def test_a_name_plus_a_variant_suffix_shares_the_line():
    em = entity_matrix([extract("Lyria 3, Gemini API에 공개"), extract("음악 모델 Lyria 3 Pro"),
                        extract("Lyria 3 Clip"), extract("Gemini 3.1 Flash Live"),
                        extract("Gemini 3.1 Flash-Lite")])
    s = shared_lines(em.names, em.lines, np.array([0, 1, 3]), np.array([1, 2, 4]))
    got = [[em.name_vocab[c] for c in s.indices[s.indptr[r]:s.indptr[r + 1]]] for r in range(3)]
    # Lyria 3 / Lyria 3 Pro share "lyria"; two variants (Pro, Clip) or (Live, Lite) share nothing.
    assert got == [["lyria"], [], []]
    # A name before the version is part of the line: Robotics ER 2 is not a Robotics 2 variant.
    er2, r2 = extract("Gemini Robotics ER 2 공개"), extract("Gemini Robotics 2 공개")
    assert er2[0].lines == ["gemini robotics er"] and r2[0].lines == ["gemini robotics"]
    assert extract("Lyria 3 Pro")[0].lines == ["lyria pro", "lyria"]


def test_different_versions_of_one_line_still_conflict():
    em = entity_matrix([extract(t) for t in ("Lyria 3 Pro 공개", "Lyria 3 공개", "Lyria 3.5 출시")])
    got = version_conflicts(em, np.array([0, 0, 1]), np.array([1, 2, 2]))
    assert (np.diff(got.indptr) > 0).tolist() == [False, True, True]


def _conflict_reference(a: list[Entity], b: list[Entity]) -> bool:
    """Brute force: a line one item names and the other names or extends, both
    versioned (on the line or a variant of it), with no version in common."""
    def lines(xs):
        return {p for e in xs for p in e.lines}

    def versions(xs, line):
        return {e.version for e in xs if e.version and line in e.lines}

    shared = ({e.name for e in a} & lines(b)) | (lines(a) & {e.name for e in b})
    for line in shared:
        va, vb = versions(a, line), versions(b, line)
        if va and vb and not va & vb:
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
names = st.sampled_from([("gpt", ""), ("gpt instant", "gpt"), ("gemini robotics er", ""),
                         ("gemini robotics", ""), ("lyria", ""), ("lyria pro", "lyria"),
                         ("veo", "")])
entity_lists = st.lists(st.builds(lambda nl, v: Entity(nl[0], v, "", nl[1] if v else ""),
                                  names, versions), max_size=5)


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
        assert e.name and e.name == e.name.lower() and len(e.name) > 1
        assert e.version == "" or all(p.isdigit() for p in e.version.split("."))

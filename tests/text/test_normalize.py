import pytest
from hypothesis import given
from hypothesis import strategies as st

from newsdedup.text.normalize import SCHEMES, get_scheme, hangul_alnum, item_text, normalize


def test_published_scheme_keeps_only_hangul_digits_latin():
    assert hangul_alnum("Gemini 3.1 Flash·Live, 공개!") == "gemini31flashlive공개"
    # Compatibility jamo and CJK are outside 가-힣 and are dropped by the published scheme.
    assert hangul_alnum("ㄱ漢字가") == "가"


def test_spacing_variants_normalize_alike():
    assert normalize("스마트 돌봄") == normalize("스마트돌봄")


def test_nfkc_scheme_folds_full_width():
    assert normalize("ＡＩ 기반", "nfkc-hangul-alnum") == "ai기반"
    assert normalize("ＡＩ 기반") == "기반"


def test_item_text_joins_with_one_space():
    assert item_text("a", "b") == "a b"


def test_unknown_scheme_lists_valid_names():
    with pytest.raises(ValueError, match="hangul-alnum"):
        get_scheme("nope")


@given(st.text())
def test_every_scheme_is_idempotent(text):
    for fn in SCHEMES.values():
        assert fn(fn(text)) == fn(text)


@given(st.text())
def test_published_scheme_output_alphabet(text):
    out = hangul_alnum(text)
    assert all(c.isdigit() and c.isascii() or "a" <= c <= "z" or "가" <= c <= "힣" for c in out)

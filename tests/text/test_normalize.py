import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.text.normalize import (
    SCHEMES,
    get_scheme,
    hangul_alnum,
    item_text,
    normalize,
    normalize_many,
)


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


# Characters whose case mapping, composition or width could make a batched pass differ:
# dotted capital I (lowers to two characters), final sigma, conjoining jamo, combining
# accents, ligatures, NUL (the batch separator), full-width letters.
_TRICKY = "aAİΣσς가힣\u1100\u1161\u11a8\u0301é0 9Z\x00ß\ufb01ǅＡ.,-·"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=_TRICKY, max_size=10), min_size=0, max_size=150),
       st.sampled_from(sorted(SCHEMES)))
def test_normalize_many_equals_one_by_one(texts, scheme):
    assert normalize_many(texts, scheme) == [normalize(t, scheme) for t in texts]


def test_normalize_many_on_headlines():
    from newsdedup.studies.synthetic import enlarge, headline_pool

    for lang in ("ko", "en"):
        texts = enlarge(headline_pool(lang), 3000, seed=2).text.tolist()
        assert normalize_many(texts) == [hangul_alnum(t) for t in texts]

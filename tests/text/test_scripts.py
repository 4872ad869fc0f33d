"""Characters that carry meaning (issue 28, items 5 and 14).

Item 5: the exact pass merged headlines that differ only in a Hanja abbreviation (與/野,
北/日, 美/中) and CJK or Cyrillic headlines that share only their digits: the published
scheme drops those characters. Item 14: Japanese, Chinese and Russian near-copies were
never grouped, and nothing said so. The exact-pass key now keeps every script; the
``unicode-alnum`` scheme compares every script; and the commands warn when the scheme in
use drops most of a title.
"""

from __future__ import annotations

import json
import unicodedata
from collections import Counter

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup import text as text_package
from newsdedup.cli import main
from newsdedup.cluster.dedupe import DedupeConfig, dedupe
from newsdedup.text.normalize import (
    DROPPED_LETTERS,
    SCHEMES,
    dropped_letters,
    dropped_scripts,
    exact_key,
    feed_scheme,
    hangul_alnum,
    normalize_many,
    unicode_alnum,
)

PAIRS = [  # differ in one meaning-bearing character the published scheme drops
    ("與, 예산안 단독 처리", "野, 예산안 단독 처리"),
    ("北, 미사일 발사", "日, 미사일 발사"),
    ("美 관세 인상 2배", "中 관세 인상 2배"),
    ("東京 2024", "大阪 2024"),
    ("Москва 2024", "Берлин 2024"),
]


def frame(titles: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"id": [f"r{k}" for k in range(len(titles))], "title": titles})


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_the_exact_pass_keeps_apart_what_differs_in_meaning(a, b):
    assert hangul_alnum(a) == hangul_alnum(b)  # the published scheme cannot tell them apart
    result = dedupe(frame([a, b]), DedupeConfig(threshold=1.0))
    assert (result.items["stage"] == "exact").sum() == 0
    assert result.items["group"].nunique() == 2


@pytest.mark.parametrize(("a", "b"), PAIRS[:3])
def test_the_published_exact_key_still_merges_them(a, b):
    result = dedupe(frame([a, b]), DedupeConfig(threshold=1.0, exact_key="scheme"))
    assert (result.items["stage"] == "exact").all()
    assert result.items["group"].nunique() == 1


def test_an_unknown_exact_key_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown exact key 'unicode'"):
        DedupeConfig(exact_key="unicode")


def test_exact_copies_in_any_script_are_still_one_exact_group():
    titles = ["東京で震度5強の地震", "東京で震度5強の地震!", "Путин заявил", "ПУТИН ЗАЯВИЛ",
              "與, 예산안 처리", "與 예산안 처리"]
    result = dedupe(frame(titles), DedupeConfig(threshold=1.0, gate=False))
    assert result.items["group"].tolist() == [0, 0, 1, 1, 2, 2]
    assert set(result.items["stage"]) == {"exact"}


def test_unicode_alnum_groups_near_copies_the_published_scheme_cannot_compare():
    titles = ["北京发布暴雨红色预警 多条线路停运", "北京发布暴雨红色预警，多条线路暂时停运",
              "Путин заявил о новых мерах поддержки экономики",
              "Путин заявил о новых мерах поддержки российской экономики"]
    published = dedupe(frame(titles), DedupeConfig(threshold=0.3))
    compared = dedupe(frame(titles), DedupeConfig(threshold=0.3, scheme="unicode-alnum"))
    assert published.items["group"].nunique() == 4
    assert compared.items["group"].tolist() == [0, 0, 1, 1]


def test_the_scheme_names_of_the_parser_are_the_schemes():
    assert tuple(SCHEMES) == text_package.SCHEME_NAMES


def test_unicode_alnum_equals_the_published_scheme_on_hangul_and_ascii():
    # The published texts are Korean with ASCII: the key adds nothing there.
    for title in ["GPT-5.5 Instant 시스템 카드 공개", "진천군, 온디바이스 AI 기반 스마트 돌봄",
                  "[속보] 삼성전자 3Q 실적: 영업익 10조"]:
        assert unicode_alnum(title) == hangul_alnum(title)


SCRIPT_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)


@settings(max_examples=400)
@given(st.lists(SCRIPT_TEXT, max_size=8))
def test_exact_key_is_per_text_idempotent_and_keeps_every_letter(texts):
    # The neighbourhood: any Unicode, NUL and combining marks included.
    keys = exact_key(texts)
    assert keys == [unicode_alnum(t) for t in texts]  # the joined pass, text by text
    assert exact_key(keys) == keys  # a key is its own key
    for t, k in zip(texts, keys, strict=True):
        folded = unicodedata.normalize("NFKC", t).casefold()
        kept = sum(c.isalnum() or unicodedata.category(c)[0] == "M" for c in folded)
        assert (kept > 0) == (k != "")  # a text with a letter, digit or mark has a key
        assert all(c.isalnum() or unicodedata.category(c)[0] == "M" for c in k)


@settings(max_examples=400)
@given(st.lists(SCRIPT_TEXT.map(lambda t: t.replace("\0", "")), max_size=8),
       st.sampled_from(["NFC", "NFKC"]))
def test_normalizing_part_by_part_equals_normalizing_the_joined_text(texts, form):
    # exact_key normalizes its NUL-joined texts one part at a time (fast for ASCII parts);
    # the premise is that NUL is a boundary no normalization crosses.
    from newsdedup.text.normalize import _each

    joined = "\0".join(texts)
    assert _each(form, joined) == unicodedata.normalize(form, joined)
    assert _each(form, joined.casefold()) == unicodedata.normalize(form, joined.casefold())


@settings(max_examples=200)
@given(st.text(st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF), min_size=1,
               max_size=3),
       st.text(st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF), min_size=1,
               max_size=3), st.sampled_from(["예산안 처리", "2024 관세", ""]))
def test_headlines_differing_in_hanja_never_share_an_exact_group(a, b, rest):
    titles = [f"{a}, {rest}", f"{b}, {rest}"]
    result = dedupe(frame(titles), DedupeConfig(threshold=1.0, gate=False))
    # The near pass may still join them (the scheme sees one text); the exact pass never.
    assert (result.items["stage"] == "exact").all() == (a == b)


def test_dropped_scripts_names_what_the_scheme_cannot_compare():
    titles = ["東京で大きな地震", "Путин заявил", "진천군 AI 돌봄", "與野 합의", "ＡＩ 뉴스",
              "北京发布暴雨红色预警"]
    assert dropped_scripts(titles) == {"CJK": 2, "CYRILLIC": 1}
    assert dropped_scripts(titles, "unicode-alnum") == {}
    # A Korean headline with a Hanja abbreviation keeps most of its text: not reported.
    assert dropped_scripts(["與, 예산안 단독 처리"]) == {}
    assert normalize_many(titles, "unicode-alnum") == exact_key(titles)


def _feed(tmp_path, rows):
    path = tmp_path / "f.jsonl"
    path.write_text("".join(json.dumps({"id": i, "title": t}, ensure_ascii=False) + "\n"
                            for i, t in rows), encoding="utf-8")
    return path


def test_the_command_warns_once_on_stderr_even_when_quiet(tmp_path, capsys):
    path = _feed(tmp_path, [("j1", "東京で震度5強の地震　けが人の情報なし"),
                            ("k1", "진천군 스마트 돌봄 구축"), ("k2", "진천군 스마트돌봄 본격화"),
                            ("r1", "Путин заявил о мерах"), ("e1", "Nota and AMD agree")])
    assert main(["dedupe", str(path), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("[newsdedup] warning: 2 of 5 titles of f.jsonl are mostly in scripts "
                           "the 'hangul-alnum' scheme drops (CJK 1, CYRILLIC 1)")
    assert "--scheme unicode-alnum" in line
    assert main(["dedupe", str(path), "--out", str(tmp_path / "out"), "--quiet",
                 "--scheme", "unicode-alnum"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("command", ["dedupe", "measure"])
def test_a_feed_mostly_in_other_scripts_is_compared_in_every_script(tmp_path, capsys, command):
    # Three of four titles would be compared on their digits under the published scheme.
    path = _feed(tmp_path, [("j1", "東京で震度5強の地震　けが人の情報なし"),
                            ("j2", "東京で震度5強の地震、けが人なし"),
                            ("k1", "진천군 스마트 돌봄 구축"), ("r1", "Путин заявил о мерах")])
    out = tmp_path / "out"
    assert main([command, str(path), "--out", str(out), "--name", "f", "--quiet"]) == 0
    [line] = capsys.readouterr().err.splitlines()
    assert line == ("[newsdedup] warning: comparing with --scheme unicode-alnum: 3 of 4 titles "
                    "of f.jsonl are mostly in scripts the default 'hangul-alnum' drops (CJK 2, "
                    "CYRILLIC 1), so their near-copies would not be grouped; pass --scheme "
                    "hangul-alnum to keep it")
    if command == "dedupe":
        groups = pd.read_csv(out / "f" / "dedupe" / "items.csv").set_index("id")["group"]
        assert groups["j1"] == groups["j2"] and groups.nunique() == 3
    else:
        params = json.loads((out / "f" / "measure" / "params.json").read_text("utf-8"))
        assert params["config"]["normalization"] == "unicode-alnum"
    # Named on the command line, the published scheme is kept (and the titles it drops said).
    assert main([command, str(path), "--out", str(tmp_path / "o2"), "--quiet", "--scheme",
                 "hangul-alnum"]) == 0
    assert "3 of 4 titles of f.jsonl are mostly in scripts the 'hangul-alnum' scheme drops" in (
        capsys.readouterr().err)


def test_the_feed_scheme_switches_only_when_most_titles_would_be_dropped():
    korean, japanese = "진천군 스마트 돌봄 구축", "東京で震度5強の地震"
    assert feed_scheme([korean, japanese]) == ("hangul-alnum", {"CJK": 1})  # half: not most
    assert feed_scheme([korean, japanese, japanese]) == ("unicode-alnum", {"CJK": 2})
    assert feed_scheme([]) == ("hangul-alnum", {})
    # English and Korean with a Hanja abbreviation keep what they are written in.
    assert feed_scheme(["Nota and AMD agree", "與, 예산안 단독 처리"]) == ("hangul-alnum", {})


def test_a_feed_losing_a_letter_in_ten_to_the_default_is_compared_in_every_letter(
        tmp_path, capsys):
    # Vietnamese keeps every title mostly in a-z, and loses its accented letters: under
    # the default "Bộ Y tế" and "Bộ Tài chính" both begin "by t".
    titles = [("v1", "Bộ Y tế điều chỉnh giá xăng dầu"), ("v2", "Bộ Y tế điều chỉnh giá xăng"),
              ("v3", "Bộ Tài chính phát hành trái phiếu"), ("v4", "Hà Nội cảnh báo mưa lớn")]
    share, chars = dropped_letters([t for _, t in titles])
    # Counted apart: the letters NFKC keeps (the exact key) that a-z and Hangul do not.
    key = [c for _, t in titles for c in unicodedata.normalize("NFKC", t).lower() if c.isalnum()]
    lost = [c for c in key if not ("a" <= c <= "z" or c.isdigit())]
    assert share == pytest.approx(len(lost) / len(key)) and share > DROPPED_LETTERS
    assert chars[0] == Counter(lost).most_common(1)[0][0]
    assert feed_scheme([t for _, t in titles])[0] == "unicode-alnum"
    path = _feed(tmp_path, titles)
    assert main(["dedupe", str(path), "--out", str(tmp_path / "out"), "--name", "f",
                 "--quiet"]) == 0
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"[newsdedup] warning: comparing with --scheme unicode-alnum: the "
                           f"default 'hangul-alnum' drops {share:.0%} of the letters of the "
                           "titles of f.jsonl (most often ")
    # A Korean or English feed loses a few Hanja or accents at most: it keeps the default.
    assert dropped_letters(["與, 예산안 단독 처리", "Café owners protest"])[0] < DROPPED_LETTERS


@pytest.mark.parametrize("command", ["dedupe", "measure"])
def test_titles_of_emoji_or_punctuation_alone_are_said_never_grouped(tmp_path, capsys, command):
    path = _feed(tmp_path, [("a", "😀🔥🔥"), ("b", "😀🔥🔥"), ("c", "!!!???"),
                            ("k1", "진천군 스마트 돌봄 구축"), ("k2", "진천군 스마트 돌봄 구축")])
    out = tmp_path / "out"
    assert main([command, str(path), "--out", str(out), "--name", "f", "--quiet"]) == 0
    [line] = [s for s in capsys.readouterr().err.splitlines() if "warning" in s]
    assert line == ("[newsdedup] warning: 3 of 5 titles of f.jsonl hold no letter or digit "
                    "(first: id 'a': '😀🔥🔥'): they are never grouped, exact copies among them "
                    "included")
    if command == "dedupe":  # what the warning says
        groups = pd.read_csv(out / "f" / "dedupe" / "items.csv").set_index("id")["group"]
        assert groups["a"] != groups["b"] and groups["k1"] == groups["k2"]

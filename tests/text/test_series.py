"""Recurring series and templates (newsdedup.text.series).

Hand-made corpora check the cases the module docstring names; a brute-force
reimplementation of the template keys (tuples of tokens instead of hashes, one
Python loop per key) checks membership and the series relation on random corpora.
"""

import itertools
import re
import unicodedata
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest

from newsdedup.text.series import (
    _CALENDAR,
    MAX_SLOT_TOKENS,
    Series,
    SeriesConfig,
    learn_series,
    series_pairs,
    title_tokens,
)

DAY = 86400.0
HOUR = 3600.0


def corpus(rows):
    """Items as the corpus readers give them: id, title, summary, source, published_at."""
    frame = pd.DataFrame(rows, columns=["title", "summary", "source", "published_at"])
    frame.insert(0, "id", [f"n{k}" for k in range(len(frame))])
    return frame


def seconds(published):
    """Seconds since the epoch of ISO strings (NaN for an empty one), computed per item."""
    out = []
    for text in published:
        if not text:
            out.append(np.nan)
        else:
            out.append(pd.Timestamp(text).tz_convert("UTC").timestamp())
    return np.array(out, dtype=np.float64)


def iso(t):
    return pd.Timestamp(t, unit="s", tz="UTC").strftime("%Y-%m-%dT%H:%M:%SZ")


START = pd.Timestamp("2024-07-27T06:00:00Z").timestamp()


def learn(items, config=None):
    return learn_series(items["title"].tolist(), items["source"].tolist(),
                        seconds(items["published_at"]), items["summary"].tolist(), config)


def same_series(series, n):
    """The relation 'share a series' over all pairs of n items, as a set of pairs."""
    i, j = (np.array(x, dtype=np.int64) for x in zip(*itertools.combinations(range(n), 2),
                                                       strict=True))
    shared = series_pairs(series, i, j)
    return {(int(a), int(b)) for a, b, s in zip(i, j, shared, strict=True) if s}


# --- title_tokens ---------------------------------------------------------------------

@pytest.mark.parametrize(("title", "tokens"), [
    ("ＡＢＣ　Ｄｅｆ", ["abc", "def"]),  # NFKC: full-width letters and space
    ("Sales UP 1,234.5 pct", ["sales", "up", "#", "pct"]),  # one digit run, separators inside
    ("How the Dow fared Tuesday", ["how", "the", "dow", "fared", "@"]),
    ("Mondays and SUNDAY", ["mondays", "and", "@"]),  # word-bounded: "mondays" is a word
    ("May 3 trade", ["@", "#", "trade"]),
    ("화요일 화재 (화) 발생", ["@", "화재", "(@)", "발생"]),  # "화재" is no weekday
    ("7월 26일(화) 시황", ["#월", "#일(@)", "시황"]),
    ("U.K. money: rates | up / down", ["u.k.", "money", "rates", "up", "down"]),
    ("하나…둘...셋·넷", ["하나", "둘", "셋", "넷"]),
    ("A，B、C：D", ["a", "b", "c", "d"]),  # full-width comma, ideographic comma, colon
    # Written without spaces (Han or kana, no Hangul): a number is a token of its own.
    ("【今日の運勢】3月13日の星占い", ["【今日の運勢】", "#", "月", "#", "日の星占い"]),
    ("上证指数收涨0.5%", ["上证指数收涨", "#", "%"]),
    ("청년 1만명에 年120만원", ["청년", "#만명에", "年#만원"]),  # Korean keeps its words
    ("   ", []),
])
def test_title_tokens_normalize_mask_and_split(title, tokens):
    assert title_tokens(title) == tokens


def _tokens_by_split(title):
    """One title's tokens as the definition reads them: mask, then split at separators."""
    text = unicodedata.normalize("NFKC", title).casefold()
    text = re.sub(r"\d+(?:[.,]\d+)*", "#", text)
    text = _CALENDAR.sub("@", text)
    return [t for t in re.split(r"[\s,，、:：|/·・･‧∙…]+|\.{3,}", text) if t]


def test_batch_tokens_equal_each_title_split_alone():
    """The titles are tokenized joined by NUL, weekdays masked in the distinct tokens;
    every title must still come out as its own split, on random titles built from the
    pieces where a batch could differ (separators, dots, digits with commas, weekdays at
    a title's edge, brackets, combining marks, folding)."""
    from newsdedup.text.normalize import nfkc_folded
    from newsdedup.text.series import _title_codes, _tokenize

    pieces = ["monday", "Mon", "MONDAYS", "may", "Sept", "dec", "화", "요일", "(", "（",
              ")", "）", "1", "2,5", "3.", "...", "..", "…", " ", "\u3000", ",", "x", "가",
              "\u0301", "-", "ß", "ﬁ", "#", "@", "월", "\t", "|", "·"]
    rng = np.random.default_rng(3)
    for _ in range(3000):
        titles = ["".join(rng.choice(pieces, size=rng.integers(0, 9)))
                  for _ in range(rng.integers(1, 6))]
        tok = _tokenize(titles)
        got = [[str(w) for w in tok.vocab[tok.ids[a:a + n]]]
               for a, n in zip(tok.start, tok.length, strict=True)]
        assert got == [_tokens_by_split(t) for t in titles], titles
        assert tok.chars.tolist() == [len(w) for words in got for w in words]
        # Equal codes for titles of the same words, numbers and weekdays as written.
        norm = [" ".join(w for w in re.split(r"[\s,，、:：|/·・･‧∙…]+|\.{3,}",
                                             unicodedata.normalize("NFKC", t).casefold()) if w)
                for t in titles]
        codes = _title_codes(nfkc_folded(titles))
        same = np.equal.outer(codes, codes)
        assert (same == np.equal.outer(np.array(norm, object), np.array(norm, object))).all()


def test_title_tokens_drop_nul_and_an_empty_batch_has_no_tokens():
    from newsdedup.text.series import _tokenize

    assert title_tokens("a\0b c") == ["ab", "c"]
    tok = _tokenize([])
    assert tok.ids.size == tok.length.size == tok.vocab.size == 0
    tok = _tokenize(["", " ... "])
    assert tok.length.tolist() == [0, 0] and tok.ids.size == 0


# --- SeriesConfig -----------------------------------------------------------------------

@pytest.mark.parametrize(("name", "value"), [
    ("min_members", 0), ("min_members", True), ("min_values", 1.5),
    ("min_values_undated", -1), ("max_tail_tokens", 0), ("min_fixed_tokens", 0),
    ("head_fixed_share", 1.2), ("fixed_share", -0.1), ("summary_agree", 2.0),
    ("min_span_hours", -1.0), ("min_span_hours", float("inf")),
    ("undated_repeat_hours", float("nan")),
])
def test_series_config_rejects_bad_setting_naming_it(name, value):
    with pytest.raises(ValueError, match=name):
        SeriesConfig(**{name: value})


def test_series_config_accepts_the_bounds():
    config = SeriesConfig(min_members=1, fixed_share=0.0, head_fixed_share=1.0,
                          min_span_hours=0.0, undated_repeat_hours=0.0)
    assert config.min_members == 1 and config.head_fixed_share == 1.0


# --- the cases the docstrings name -------------------------------------------------------

def test_daily_column_across_days_is_one_series_of_numbers():
    rows = [(f"[오늘의 운세] 7월 {27 + d}일", "", "daily", iso(START + d * DAY))
            for d in range(4)]
    rows.append(("전혀 다른 기사 제목입니다", "", "daily", iso(START)))
    s = learn(corpus(rows))
    assert s.member().tolist() == [True] * 4 + [False]
    assert len(s.table) == 1  # its head, tail and middle keys have the same members: one series
    row = s.table.iloc[0]
    assert row["kind"] == "numbers"
    assert row["template"] == "[오늘의 운세] #월 #일"
    assert (row["members"], row["titles"], row["days"]) == (4, 4, 4)
    assert row["first"] == "2024-07-27T06:00:00Z" and row["last"] == "2024-07-30T06:00:00Z"
    assert row["example"] == "[오늘의 운세] 7월 27일"  # the earliest member
    assert row["source"] == "daily"
    assert same_series(s, 5) == {(a, b) for a, b in itertools.combinations(range(4), 2)}


def test_a_column_written_without_spaces_is_a_series_of_its_numbers():
    # A Japanese feed's daily horoscope, one token per title before numbers stood apart:
    # no series was learned, and "3月13日" merged with "3月14日" (score 0.47).
    rows = [(f"【今日の運勢】3月{13 + d}日の星占い", "", "asahi", iso(START + d * DAY))
            for d in range(4)]
    rows.append(("日銀が金融政策決定会合で利上げを決定", "", "asahi", iso(START)))
    s = learn(corpus(rows))
    assert s.member().tolist() == [True] * 4 + [False]
    assert s.table.iloc[0]["kind"] == "numbers"
    assert same_series(s, 5) == {(a, b) for a, b in itertools.combinations(range(4), 2)}


def test_robot_template_with_varying_company_in_head_is_a_series():
    names = ["ACME", "BETA", "GAMMA", "DELTA", "OMEGA"]
    rows = [(f"<{name} LTD> YEAR NET", "", "wire", iso(START + d * 30 * HOUR))
            for d, name in enumerate(names)]
    s = learn(corpus(rows))
    assert s.member().all()
    assert len(s.table) == 1
    row = s.table.iloc[0]
    assert row["kind"] == "head"
    # The fixed tail is "year net" or "ltd> year net" (same members); the head is the slot.
    assert row["template"] in ("* year net", "* ltd> year net")
    assert (row["members"], row["titles"]) == (5, 5)


def test_template_head_too_long_for_its_fixed_tail_is_no_series():
    # "year net" (7 characters) against 20+ characters of company name: the fixed part
    # carries under 30 % of the title, so the varying head is the content, not a slot.
    names = ["ALPHAINDUSTRIES", "BETAHOLDINGSINTL", "GAMMAPETROLEUMS", "DELTAFINANCIALS"]
    rows = [(f"{name}CORPORATION YEAR NET", "", "wire", iso(START + d * DAY))
            for d, name in enumerate(names)]
    s = learn(corpus(rows))
    assert not s.member().any()
    # The same rule with a lower share finds it.
    assert learn(corpus(rows), SeriesConfig(head_fixed_share=0.1)).member().all()


REWRITES = ["삼성전자 2분기 영업이익 10조 돌파", "삼성전자 2분기 영업익 10조 돌파",
            "삼성전자 2분기 영업이익 10조 넘어", "삼성전자 2분기 영업이익 10조 달성",
            "삼성전자 2분기 영업이익 10조 육박"]


def test_rewrites_of_one_event_within_hours_are_no_series():
    rows = [(t, "", "press", iso(START + k * 2 * HOUR)) for k, t in enumerate(REWRITES)]
    s = learn(corpus(rows))
    assert not s.member().any()
    assert s.table.empty
    assert same_series(s, len(rows)) == set()


def test_same_titles_spread_over_days_are_a_series():
    # The control of the test above: the titles alone qualify once they recur over days.
    # Four share the head before a varying last word; the second differs from the first
    # only in a middle word, a key of two members.
    rows = [(t, "", "press", iso(START + k * DAY)) for k, t in enumerate(REWRITES)]
    assert learn(corpus(rows)).member().tolist() == [True, False, True, True, True]


def test_span_just_under_min_span_hours_is_no_series_and_at_it_is():
    def titles(span_hours):
        return corpus([(f"[시황] 코스피 마감 {k}", "", "s",
                        iso(START + k * span_hours / 2 * HOUR)) for k in range(3)])

    assert not learn(titles(19.9)).member().any()
    assert learn(titles(20.0)).member().all()


def test_weekday_names_are_masked_so_a_weekly_market_story_is_one_series():
    base = "How the Dow Jones industrial average fared"
    rows = [(f"{base} {day}", "", "ap", iso(START + k * DAY))
            for k, day in enumerate(["Tuesday", "Thursday", "Monday"])]
    s = learn(corpus(rows))
    assert s.member().all()
    assert s.table["kind"].tolist() == ["numbers"]
    assert s.table["template"].tolist() == [base.lower() + " @"]


def test_feed_sharing_one_lead_token_is_not_one_series():
    contents = ["서울 아파트값 3주째 상승", "국회 본회의 추경안 처리", "태풍 북상 남부 많은 비",
                "한국은행 기준금리 동결 결정", "프로야구 올스타전 개최", "반도체 수출 반등 조짐",
                "정부 전세사기 대책 발표", "코로나 신규 확진 감소세", "유가 급등 물가 우려",
                "대학 입시 제도 개편안"]
    rows = [(f"[속보] {c}", "", "wire", iso(START + k * 7 * HOUR))
            for k, c in enumerate(contents)]
    s = learn(corpus(rows))
    assert not s.member().any()
    assert same_series(s, len(rows)) == set()


def test_undated_template_needs_min_values_undated_distinct_titles():
    def rows(k):
        return corpus([(f"[TV 하이라이트] 오늘의 추천 프로그램 {name}", "", "tv", "")
                       for name in ["드라마", "예능", "다큐", "뉴스", "영화", "스포츠"][:k]])

    assert not learn(rows(4)).member().any()  # 4 < 5 distinct titles
    assert learn(rows(5)).member().all()
    assert learn(rows(4), SeriesConfig(min_values_undated=4)).member().all()


def test_undated_titles_repeated_verbatim_are_no_series():
    rows = corpus([("[TV 하이라이트] 오늘의 추천", "", "tv", "")] * 6)
    assert not learn(rows).member().any()


def test_series_are_learned_per_source():
    days = [START + d * DAY for d in range(4)]
    # Two outlets with two issues each: neither outlet's column recurs three times.
    two = corpus([(f"[날씨] 7월 {27 + k}일 전국 맑음", "", src, iso(days[k]))
                  for k, src in enumerate(["a", "b", "a", "b"])])
    assert not learn(two).member().any()
    # Without sources the four issues are one outlet's: a series.
    assert learn_series(two["title"].tolist(), None, seconds(two["published_at"])).member().all()
    # Three issues each: one series per outlet, of one template, which every pair shares.
    six = corpus([(f"[날씨] 7월 {27 + k}일 전국 맑음", "", src, iso(START + k * DAY))
                  for k, src in enumerate(["a", "b", "a", "b", "a", "b"])])
    s = learn(six)
    assert sorted(s.table["source"]) == ["a", "b"]
    assert s.templates.shape[1] == 1
    assert same_series(s, 6) == set(itertools.combinations(range(6), 2))


def test_a_template_one_outlet_repeats_holds_another_outlet_s_items_written_in_it():
    # A wire robot's template recurs at outlet a; outlet b carries it twice, for one
    # company each: b's items and a's share the template, and b's title of another
    # fixed part does not.
    rows = [(f"<{c}> SETS QUARTERLY DIVIDEND", "", "a", iso(START + k * DAY))
            for k, c in enumerate(["ILTO", "SMED", "DMD"])]
    rows += [("<MOTO> SETS QUARTERLY DIVIDEND", "", "b", iso(START)),
             ("<ILTO> sets quarterly dividend", "", "b", iso(START + HOUR)),
             ("<MOTO> YEAR NET", "", "b", iso(START))]
    s = learn(corpus(rows))
    assert s.table["source"].tolist() == ["a"] and s.table["members"].tolist() == [3]
    assert s.member().tolist() == [True] * 3 + [False] * 3
    assert s.written().tolist() == [True] * 5 + [False]
    assert same_series(s, 6) == set(itertools.combinations(range(5), 2))
    # The same company's line from either outlet has the same words.
    assert s.titles[0] == s.titles[4] != s.titles[3]
    # The strata's reference keeps the rule of before: a's members, titles as spelled.
    assert s.widened()
    before = s.of_members()
    assert same_series(before, 6) == {(0, 1), (0, 2), (1, 2)}
    assert not before.widened()


def test_a_rule_relating_only_one_source_s_members_is_not_widened():
    rows = [(f"[날씨] 7월 {27 + k}일 전국 맑음", "", "a", iso(START + k * DAY)) for k in range(3)]
    rows += [("다른 기사 하나", "", "b", iso(START))]
    s = learn(corpus(rows))
    assert s.member().tolist() == s.written().tolist() == [True] * 3 + [False]
    assert not s.widened()
    # Two titles of one series with the same words, spelled apart: widened.
    rows[1] = ("[날씨], 7월 27일 전국 맑음", "", "a", iso(START + DAY))
    assert learn(corpus(rows)).widened()


def test_verbatim_repeat_over_days_is_a_series_unless_the_summary_repeats_too():
    title = "[TV 하이라이트]"
    when = [iso(START + d * DAY) for d in range(3)]
    other = corpus([(title, f"오늘의 방송 {x}", "tv", w)
                    for x, w in zip("가나다", when, strict=True)])
    blank = corpus([(title, "", "tv", w) for w in when])
    reissue = corpus([(title, "같은 기사 본문", "tv", w) for w in when])
    s = learn(other)
    assert s.member().all() and s.table["kind"].tolist() == ["repeat"]
    assert s.table["titles"].tolist() == [1]
    assert learn(blank).table["kind"].tolist() == ["repeat"]
    assert not learn(reissue).member().any()
    # Summaries not given read as absent: a repeat.
    assert learn_series([title] * 3, ["tv"] * 3, seconds(when)).member().all()
    # Two members are not enough for a repeat either.
    assert not learn(blank.iloc[:2]).member().any()


def test_short_varying_tail_is_a_slot_and_a_long_one_is_not():
    head = "[두근두근 뇌 운동] 오늘의 문제"
    short = corpus([(f"{head} {t}", "", "s", iso(START + k * DAY))
                    for k, t in enumerate(["숫자 퍼즐", "그림 찾기", "낱말 잇기"])])
    s = learn(short)
    assert s.member().all() and s.table["kind"].tolist() == ["tail"]
    # The slot is the last two tokens, or the last three (the same members, one kind).
    assert s.table["template"].iloc[0] in ("[두근두근 뇌 운동] 오늘의 문제 *",
                                           "[두근두근 뇌 운동] 오늘의 *")
    # Five varying tokens after the head: longer than max_tail_tokens (4).
    long_tails = ["가 나 다 라 마", "바 사 아 자 차", "카 타 파 하 거"]
    long = corpus([(f"{head} {t}", "", "s", iso(START + k * DAY))
                   for k, t in enumerate(long_tails)])
    assert not learn(long).member().any()
    assert learn(long, SeriesConfig(max_tail_tokens=5)).member().all()


def test_series_pairs_of_members_of_different_series_are_false():
    rows = [(f"[운세] 7월 {27 + d}일", "", "a", iso(START + d * DAY)) for d in range(3)]
    rows += [(f"[날씨] 8월 {1 + d}일 맑음", "", "a", iso(START + d * DAY)) for d in range(3)]
    s = learn(corpus(rows))
    assert s.member().all() and len(s.table) == 2
    got = series_pairs(s, np.array([0, 0, 3, 2]), np.array([1, 3, 5, 4]))
    assert got.tolist() == [True, False, True, False]
    assert series_pairs(s, np.zeros(0, np.int64), np.zeros(0, np.int64)).size == 0


def test_empty_corpus_and_titles_without_tokens_give_no_series():
    s = learn_series([], None, None, None)
    assert s.n_items == 0 and s.table.empty and s.membership.shape == (0, 0)
    s = learn_series(["", "..."], None, None, None)
    assert s.n_items == 2 and not s.member().any()
    assert series_pairs(s, np.array([0]), np.array([1])).tolist() == [False]
    assert list(s.table.columns) == ["series", "kind", "source", "template", "members",
                                     "titles", "first", "last", "days", "example"]


def test_titles_codes_equal_for_equal_normalized_titles():
    s = learn_series(["Ａbc  Def", "abc def", "abc de", "abc, def", "abc·def 1", "abc def 2"],
                     None, None, None)
    assert s.titles[0] == s.titles[1] == s.titles[3] != s.titles[2]
    assert len({s.titles[0], s.titles[4], s.titles[5]}) == 3  # numbers as written


def test_subset_keeps_the_rows_series_and_csv_table_puts_largest_first():
    rows = [(f"[운세] 7월 {27 + d}일", "", "a", iso(START + d * DAY)) for d in range(3)]
    rows += [(f"[날씨] 8월 {1 + d}일 맑음", "", "a", iso(START + d * DAY)) for d in range(4)]
    s = learn(corpus(rows))
    sub = s.subset(np.array([6, 0, 2]))
    assert isinstance(sub, Series) and sub.n_items == 3
    assert sub.member().tolist() == [True, True, True]
    assert series_pairs(sub, np.array([1, 0]), np.array([2, 1])).tolist() == [True, False]
    assert sub.titles.tolist() == s.titles[[6, 0, 2]].tolist()
    table = s.csv_table()
    assert table["members"].tolist() == [4, 3]
    assert table["template"].tolist() == ["[날씨] #월 #일 맑음", "[운세] #월 #일"]


def test_learning_does_not_depend_on_the_order_of_the_records():
    rng = np.random.default_rng(3)
    items = random_corpus(rng, 40)
    s = learn(items)
    assert s.member().any()  # the check below compares something
    perm = rng.permutation(len(items))
    t = learn(items.iloc[perm].reset_index(drop=True))
    pd.testing.assert_frame_equal(s.table, t.table)
    back = np.empty_like(perm)
    back[perm] = np.arange(len(perm))
    assert same_series(t, len(items)) == {
        tuple(sorted((int(back[a]), int(back[b])))) for a, b in same_series(s, len(items))}


# --- brute force --------------------------------------------------------------------------

def brute_proposals(titles, sources, config):
    """Every template key each title proposes, {(kind, source, fixed, fixed): rows}.

    ``sources`` None: keys without a source (the templates, whoever fills them).
    """
    proposed = defaultdict(set)
    for r, title in enumerate(titles):
        tokens = title_tokens(title)
        size = len(tokens)
        total = sum(len(t) for t in tokens) or 1
        source = None if sources is None else sources[r]

        def propose(kind, a, b, share, r=r, total=total, source=source):
            fixed = len(a) + len(b)
            chars = sum(len(t) for t in a) + sum(len(t) for t in b)
            if fixed >= config.min_fixed_tokens and chars / total >= share:
                proposed[(kind, source, tuple(a), tuple(b))].add(r)

        if size:
            propose(0, tokens, [], 0.0)
        for k in range(1, size if size <= MAX_SLOT_TOKENS else 0):
            propose(1, tokens[k:], [], config.head_fixed_share)
            if k <= config.max_tail_tokens:
                propose(2, tokens[:size - k], [], config.fixed_share)
            if size - k >= 2:
                propose(3, tokens[:k], tokens[k + 1:], config.fixed_share)
    return proposed


def brute_words(title):
    """A title's words, numbers and weekdays as written (the "titles agree" test)."""
    text = re.sub(r"\.{3,}", "…", unicodedata.normalize("NFKC", title).casefold())
    return " ".join(w for w in re.split(r"[\s,，、:：|/·・･‧∙…]+", text) if w)


def brute_keys(titles, sources, hours, summaries, config):
    """Qualifying template keys as {(kind, source, fixed, fixed): (rows, kind name)}."""
    norm_titles = [" ".join(unicodedata.normalize("NFKC", t).casefold().split()) for t in titles]
    norm_summaries = [" ".join(str(s).split()) for s in summaries]
    proposed = brute_proposals(titles, sources, config)
    out = {}
    for key, rows in proposed.items():
        kind = key[0]
        dated = [hours[r] for r in rows if np.isfinite(hours[r])]
        n_titles = len({norm_titles[r] for r in rows})
        sums = {norm_summaries[r] for r in rows}
        if dated:
            recurring = max(dated) - min(dated) >= config.min_span_hours
        else:
            recurring = n_titles >= config.min_values_undated
        varied = n_titles >= (2 if kind == 0 else config.min_values)
        repeat = kind == 0 and n_titles == 1 and bool(dated) and (len(sums) > 1 or "" in sums)
        if recurring and len(rows) >= config.min_members and (varied or repeat):
            name = "repeat" if repeat else ("numbers", "head", "tail", "middle")[kind]
            out[key] = (frozenset(rows), name)
    return out


WORDS = ["alpha", "beta", "gamma", "delta", "monday", "friday", "급등", "net", "a1", "속보"]
PATTERNS = [
    "[운세] {d}월 {d}일",  # numbers
    "{w} {w} shares rise sharply today",  # a varying head
    "[뇌 운동] 오늘의 문제 {w}",  # a varying tail
    "market {w} closes higher on trade",  # a varying middle token
    "{w} {w} {w}",  # anything
]


def random_corpus(rng, n):
    """Titles from a few templates with random fills, sources, dates and summaries."""
    rows = []
    for _ in range(n):
        pattern = PATTERNS[int(rng.integers(len(PATTERNS)))]
        title = re.sub(r"\{(\w)\}", lambda m: (str(int(rng.integers(1, 4))) if m.group(1) == "d"
                                              else WORDS[int(rng.integers(len(WORDS)))]),
                       pattern)
        when = "" if rng.random() < 0.2 else iso(START + rng.uniform(0, 3) * DAY)
        summary = ["", "", "요약 하나", "요약 둘"][int(rng.integers(4))]
        source = ["a", "b"][int(rng.integers(2))]
        if rows and rng.random() < 0.3:  # a re-issue of an earlier item, another day
            title, summary, source = rows[int(rng.integers(len(rows)))][:3]
        rows.append((title, summary, source, when))
    return corpus(rows)


@pytest.mark.parametrize("seed", range(12))
def test_membership_and_pairs_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    items = random_corpus(rng, 40)
    config = SeriesConfig(min_values_undated=3) if seed % 2 else SeriesConfig()
    s = learn(items, config)
    hours = seconds(items["published_at"]) / HOUR
    keys = brute_keys(items["title"].tolist(), items["source"].tolist(), hours,
                      items["summary"].tolist(), config)
    # A series' template holds every item written in it, of its source or another.
    free = brute_proposals(items["title"].tolist(), None, config)
    written = [free[(kind, None, a, b)] for kind, _, a, b in keys]
    members = set().union(*(rows for rows, _ in keys.values())) if keys else set()
    assert s.member().tolist() == [r in members for r in range(len(items))]
    in_templates = set().union(*written) if written else set()
    assert s.written().tolist() == [r in in_templates for r in range(len(items))]
    expected_pairs = {pair for rows in written for pair in itertools.combinations(sorted(rows), 2)}
    assert same_series(s, len(items)) == expected_pairs
    # One table row per distinct member set, named by its most specific kind.
    priority = {"numbers": 0, "repeat": 0, "middle": 1, "tail": 2, "head": 3}
    sets = {}
    for rows, name in keys.values():
        if rows not in sets or priority[name] < priority[sets[rows]]:
            sets[rows] = name
    assert len(s.table) == len(sets)
    table_sets = {}
    for col in range(s.membership.shape[1]):
        rows = frozenset(s.membership[:, col].nonzero()[0].tolist())
        table_sets[rows] = s.table.loc[s.table["series"] == col].iloc[0]
    assert set(table_sets) == set(sets)
    for rows, row in table_sets.items():
        assert row["kind"] == sets[rows]
        assert row["members"] == len(rows)
        titles = {" ".join(unicodedata.normalize("NFKC", items["title"][r]).casefold().split())
                  for r in rows}
        assert row["titles"] == len(titles)
        dated = sorted(items["published_at"][r] for r in rows if items["published_at"][r])
        assert (row["first"], row["last"]) == ((dated[0], dated[-1]) if dated else ("", ""))
        day_set = {d[:10] for d in dated}
        assert row["days"] == len(day_set)
        assert items["source"][next(iter(rows))] == row["source"]


def test_brute_force_corpora_hold_series_of_several_kinds():
    # The random corpora above must exercise the rule, not only its "no series" answer.
    kinds = set()
    for seed in range(12):
        items = random_corpus(np.random.default_rng(seed), 40)
        config = SeriesConfig(min_values_undated=3) if seed % 2 else SeriesConfig()
        kinds |= set(learn(items, config).table["kind"])
    assert {"numbers", "head", "tail", "middle", "repeat"} <= kinds


def test_keys_proposed_once_are_dropped_before_qualifying_and_only_they():
    from newsdedup.text.series import _keys, _tokenize

    titles = [f"[오늘의 운세] 7월 {d}일" for d in range(1, 6)] + [
        "삼성전자 3분기 영업이익 9조", "삼성전자 4분기 영업이익 8조", "LG 신제품 공개",
        "LG 신제품 공개", "국회 예산안 처리"]
    tok = _tokenize(titles)
    source = np.zeros(len(titles), np.uint64)
    every = _keys(tok, source, SeriesConfig(min_members=1))  # no key dropped
    kept = _keys(tok, source, SeriesConfig(min_members=3))
    counts = every["key"].value_counts()
    want = every[every["key"].map(counts).to_numpy() >= 2].reset_index(drop=True)
    assert 0 < len(kept) < len(every)
    pd.testing.assert_frame_equal(kept, want)


def test_titles_longer_than_max_slot_tokens_propose_their_whole_text_only():
    # A column of long "titles" (a body mapped as the title) repeating daily: its whole
    # masked text is still a series, and the slots of so long a text are not looked at.
    body = " ".join(f"word{k}" for k in range(MAX_SLOT_TOKENS + 1))
    days = [START + d * DAY for d in range(3)]
    s = learn(corpus([(f"{body} {7 + d}일", "", "a", iso(t)) for d, t in enumerate(days)]))
    assert s.table["kind"].tolist() == ["numbers"] and s.member().all()
    heads = ["alpha", "beta", "gamma"]
    varied = corpus([(f"{h} {body}", "", "a", iso(t)) for h, t in zip(heads, days, strict=True)])
    assert not learn(varied).member().any()  # a varying head beyond the cap: no slot
    short = " ".join(body.split()[:MAX_SLOT_TOKENS - 1])
    assert learn(corpus([(f"{h} {short}", "", "a", iso(t))
                         for h, t in zip(heads, days, strict=True)])).member().all()

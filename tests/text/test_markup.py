"""HTML markup left in titles (newsdedup.text.markup) and the warning that names it."""

import html
import json

import pytest

from newsdedup.cli import main
from newsdedup.text.markup import has_markup


@pytest.mark.parametrize(("title", "marked"), [
    ("&quot;반도체&quot; 수출 증가", True),
    ("Beyonc&#233; Wants to Ban the Word", True),  # a decimal entity (UCI head)
    ("It&#x27;s here", True),
    ("Lindsay Lohan's Life Is Still Like <i>Mean Girls</i>", True),  # UCI head
    ("<b>삼성전자</b> 3분기 실적", True),  # a search API's highlight
    ("Line one<br/>line two", True),
    ("AT&T, R&D and S&P 500", False),  # a bare ampersand is text
    ("<BP> SETS 1987 CAPITAL BUDGET", False),  # Reuters: a company in angle brackets
    ("<X LTD> YEAR NET", False),
    ("&madeup; and &amp without its semicolon", False),  # nothing html.unescape decodes
    ("a < b > c", False),
    ("", False),
])
def test_markup_is_entities_that_decode_and_formatting_tags(title, marked):
    assert has_markup([title]).tolist() == [marked]


def test_every_flagged_entity_title_changes_when_decoded():
    titles = ["&quot;x&quot;", "&#233;t&#233;", "&lt;BP&gt; NET", "AT&T", "&copy 2024"]
    flagged = has_markup(titles)
    # Flagged titles change under html.unescape; a title html.unescape leaves alone is never
    # flagged (the last one does change: an entity without ';' is not taken as markup).
    assert flagged.tolist() == [True, True, True, False, False]
    assert all(html.unescape(t) != t for t, f in zip(titles, flagged, strict=True) if f)


def test_the_command_warns_once_with_the_count_and_the_first_title(tmp_path, capsys):
    rows = [("a", "&quot;반도체&quot; 수출 증가"), ("b", "반도체 수출 증가"),
            ("c", "<b>삼성전자</b> 3분기 실적"), ("d", "AT&T 실적 발표")]
    path = tmp_path / "f.jsonl"
    path.write_text("".join(json.dumps({"id": i, "title": t}, ensure_ascii=False) + "\n"
                            for i, t in rows), encoding="utf-8")
    assert main(["dedupe", str(path), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("[newsdedup] warning: 2 of 4 titles of f.jsonl carry HTML markup")
    assert "first: id 'a': '&quot;반도체&quot; 수출 증가'" in line
    assert "html.unescape" in line
    # Decoded as the warning says, the same feed loads without it.
    decoded = [(i, html.unescape(t).replace("<b>", "").replace("</b>", "")) for i, t in rows]
    path.write_text("".join(json.dumps({"id": i, "title": t}, ensure_ascii=False) + "\n"
                            for i, t in decoded), encoding="utf-8")
    assert main(["dedupe", str(path), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_summaries_with_block_markup_are_named_apart_from_the_titles(tmp_path, capsys):
    rows = [("a", "반도체 수출 증가", '<p>반도체 수출이 <a href="https://n.kr/1">늘었다</a></p>'),
            ("b", "반도체 수출 늘어", "반도체 수출이 늘었다"),
            ("c", "<b>삼성전자</b> 3분기 실적", "")]
    path = tmp_path / "f.jsonl"
    path.write_text("".join(json.dumps({"id": i, "title": t, "summary": s}, ensure_ascii=False)
                            + "\n" for i, t, s in rows), encoding="utf-8")
    assert main(["dedupe", str(path), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    titles, summaries = capsys.readouterr().err.splitlines()
    assert titles.startswith("[newsdedup] warning: 1 of 3 titles of f.jsonl carry HTML markup")
    assert summaries.startswith("[newsdedup] warning: 1 of 3 summaries of f.jsonl carry HTML "
                                "markup (entities such as &quot;, tags such as <p>, <a>; "
                                "first: id 'a'")
    # In a title an element counts when written as markup is (lower case, an attribute, a
    # closing tag); a name in capitals is a ticker (Reuters' <P>, <U>, <A>).
    assert has_markup(["<p>", "<P>", "<A HREF='x'>", "</P>"]).tolist() == [True, False, True, True]
    assert has_markup(["<p>"], blocks=True).tolist() == [True]


def test_a_link_closing_a_title_is_markup_and_a_ticker_named_like_a_tag_is_not():
    # A feed appending "<a href=…>기사 더보기</a>" to every title went unflagged, and its
    # titles merged through the link; Reuters' 14 titles naming <U> (USAir) were flagged.
    link = '<a href="https://news.example.com/view?id=1">기사 더보기</a>'
    titles = [f"김호중, 도밍고 앞 실수 자책 {link}",
              "TRANS WORLD AIRLINES <TWA> FILES ON USAIR <U>",
              "<B>BOLD</B> CLAIM", "UNITED TOTE INC <TOTE> 1ST QTR NET"]
    assert has_markup(titles).tolist() == [True, False, True, False]

"""RSS and Atom files load as the same records their JSON Lines twin would give."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from xml.sax.saxutils import escape

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.cli import main
from newsdedup.corpus.load import CorpusWarning, load_corpus
from newsdedup.corpus.records import CorpusError
from newsdedup.text.markup import html_text

RSS = """<?xml version="1.0" encoding="{encoding}"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel>
  <title>연합뉴스 최신기사</title>
  <image><title>logo</title><url>https://yna.co.kr/logo.png</url></image>
  <item>
    <title>진천군, 온디바이스 AI 기반 스마트 돌봄 구축 본격 착수</title>
    <link>https://www.yna.co.kr/view/AKR1</link>
    <guid isPermaLink="false">AKR1</guid>
    <description><![CDATA[<p>진천군이 <b>스마트</b> 돌봄을&nbsp;시작한다.</p>
      <img src="a.jpg">]]></description>
    <category>지역</category><category>IT</category>
    <pubDate>Wed, 01 May 2024 09:00:00 +0900</pubDate>
  </item>
  <item>
    <title>진천군 온디바이스 AI기반 스마트돌봄 본격화</title>
    <link>https://news.google.com/x</link>
    <source url="https://www.ccdn.co.kr">충청일보</source>
    <pubDate>Wed, 01 May 2024 10:00:00 GMT</pubDate>
  </item>
</channel>
</rss>
"""

ATOM = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>The Korea Herald</title>
  <link rel="self" href="https://koreaherald.com/atom"/>
  <entry>
    <title>Jincheon starts AI care</title>
    <link rel="self" href="https://koreaherald.com/api/1"/>
    <link rel="alternate" href="https://koreaherald.com/view/1"/>
    <id>tag:koreaherald.com,2024:1</id>
    <updated>2024-05-02T00:00:00Z</updated>
    <published>2024-05-01T09:00:00+09:00</published>
    <content type="html">&lt;p&gt;Jincheon &amp;amp; AI&lt;/p&gt;</content>
    <author><name>Kim</name></author>
  </entry>
  <entry>
    <title>Second</title>
    <link href="https://koreaherald.com/view/2"/>
    <id>tag:koreaherald.com,2024:2</id>
    <updated>2024-05-03T00:00:00Z</updated>
    <source><title>Yonhap</title><id>yna</id></source>
  </entry>
</feed>
"""

RDF = """<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
         xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel rdf:about="https://n.jp/"><title>日経</title></channel>
  <item rdf:about="https://n.jp/1">
    <title>日銀が追加利上げを決定</title>
    <link>https://n.jp/1</link>
    <dc:date>2024-05-01T09:00:00+09:00</dc:date>
  </item>
</rdf:RDF>
"""


def _write(tmp_path: Path, name: str, text: str, encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


@pytest.mark.parametrize("encoding", ["utf-8", "euc-kr"])
def test_rss_items_load_under_the_canonical_names(tmp_path, encoding):
    res = load_corpus(_write(tmp_path, "yna.rss", RSS.format(encoding=encoding), encoding))
    assert res.fmt == "xml" and not res.rejected
    items = res.items
    assert items["id"].tolist() == ["AKR1", "https://news.google.com/x"]  # guid, else link
    assert items["title"].tolist()[1] == "진천군 온디바이스 AI기반 스마트돌봄 본격화"
    assert items["summary"].tolist() == ["진천군이 스마트 돌봄을 시작한다.", ""]
    # The channel's title is the outlet, unless the item names its own (an aggregator's).
    assert items["source"].tolist() == ["연합뉴스 최신기사", "충청일보"]
    assert items["published_at"].tolist() == ["2024-05-01T09:00:00+09:00",
                                              "2024-05-01T10:00:00+00:00"]
    assert items["host"].tolist() == ["www.yna.co.kr", "news.google.com"]
    assert items["category"].tolist()[0] == "지역; IT"


@pytest.mark.parametrize("codec", ["utf-16", "utf-32"])
def test_a_byte_order_mark_decides_over_the_declaration(tmp_path, codec):
    # The declaration says UTF-8; the mark says how the bytes are written.
    plain = load_corpus(_write(tmp_path, "a.rss", RSS.format(encoding="utf-8")))
    marked = load_corpus(_write(tmp_path, "b.rss", RSS.format(encoding="utf-8"), codec))
    assert marked.items.drop(columns="line", errors="ignore").equals(
        plain.items.drop(columns="line", errors="ignore"))
    assert marked.items["title"].tolist()[1] == "진천군 온디바이스 AI기반 스마트돌봄 본격화"


MEDIA = """<?xml version="1.0"?>
<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"
     xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"
     xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel>
  <itunes:title>방송 제목</itunes:title>
  <title>뉴스 채널</title>
  <item>
    <media:title>삼성전자 실적 사진</media:title>
    <title>삼성전자 2분기 영업이익 14조 원 기록</title>
    <dc:title>삼성전자 2분기 영업이익 14조 원 기록</dc:title>
    <itunes:title>에피소드 12</itunes:title>
    <media:description>사진 설명</media:description>
    <guid>m4</guid><guid>m4-dup</guid>
    <dc:creator>김기자</dc:creator><dc:date>2024-05-01T09:00:00+09:00</dc:date>
    <dc:source>연합뉴스</dc:source><media:content url="https://n.kr/a.jpg"/>
  </item>
</channel>
</rss>
"""


def test_other_vocabularies_named_like_the_feeds_own_elements_stay_apart(tmp_path):
    # A photo's media:title or a podcast's itunes:title is no part of the headline; they
    # are kept under their prefixed names, and a second <guid> does not join the id.
    [item] = load_corpus(_write(tmp_path, "media.rss", MEDIA)).items.to_dict("records")
    assert item["title"] == "삼성전자 2분기 영업이익 14조 원 기록"
    assert item["id"] == "m4" and item["source"] == "연합뉴스"  # dc:source, as before
    assert item["summary"] == ""
    assert (item["media:title"], item["itunes:title"], item["dc:title"]) == (
        "삼성전자 실적 사진", "에피소드 12", "삼성전자 2분기 영업이익 14조 원 기록")
    assert item["media:description"] == "사진 설명"
    # dc's other elements keep their local names; dc:date is the date without a pubDate.
    assert item["creator"] == "김기자" and item["published_at"] == "2024-05-01T09:00:00+09:00"
    assert "media:content" not in item  # an empty element adds no field


def test_atom_entries_take_the_alternate_link_and_the_published_date(tmp_path):
    items = load_corpus(_write(tmp_path, "kh.atom", ATOM)).items
    assert items["id"].tolist() == ["tag:koreaherald.com,2024:1", "tag:koreaherald.com,2024:2"]
    assert items["url"].tolist() == ["https://koreaherald.com/view/1",
                                     "https://koreaherald.com/view/2"]
    assert items["published_at"].tolist() == ["2024-05-01T09:00:00+09:00",
                                              "2024-05-03T00:00:00Z"]
    assert items["summary"].tolist() == ["Jincheon & AI", ""]
    assert items["source"].tolist() == ["The Korea Herald", "Yonhap"]
    assert items["author"].tolist()[0] == "Kim"


def test_rss_1_items_sit_beside_the_channel(tmp_path):
    items = load_corpus(_write(tmp_path, "n.xml", RDF)).items
    assert items[["id", "title", "source", "published_at"]].values.tolist() == [
        ["https://n.jp/1", "日銀が追加利上げを決定", "日経", "2024-05-01T09:00:00+09:00"]]


@pytest.mark.parametrize(("text", "message"), [
    ('<?xml version="1.0"?>\n<rss><channel>\n<item><title>a</title></itm>', "n.xml:3: invalid XML: "
     "mismatched tag"),
    ("<html><body>not a feed</body></html>", "n.xml:1: not an RSS or Atom feed: its root element "
     "is <html>"),
    ('<?xml version="1.0"?>\n<!DOCTYPE rss [<!ENTITY a "aaaaaaaa">]>\n<rss/>', "n.xml:2: the "
     "document declares the entity 'a'; entity declarations are refused"),
    ('<?xml version="1.0" encoding="x-nope"?><rss/>', "n.xml:1: the XML declaration names an "
     "unknown encoding 'x-nope'"),
])
def test_a_broken_feed_is_one_error_naming_the_line(tmp_path, text, message):
    with pytest.raises(CorpusError) as caught:
        load_corpus(_write(tmp_path, "n.xml", text))
    assert str(caught.value).startswith(str(tmp_path / message))


def test_an_item_without_id_or_link_is_rejected_with_its_line(tmp_path):
    text = RSS.format(encoding="utf-8").replace(
        "<link>https://news.google.com/x</link>", "")
    with pytest.warns(CorpusWarning, match="rejected 1 of 2 records"):
        res = load_corpus(_write(tmp_path, "yna.rss", text))
    [rejected] = res.rejected
    assert rejected.line == 15 and "id" in rejected.reason
    assert res.items["id"].tolist() == ["AKR1"]


def test_html_text_reads_what_a_reader_sees():
    assert html_text("<p>a</p><p>b<br>c</p>") == "a b c"
    assert html_text("<div>a</div>b<style>p {}</style><script>var x;</script>") == "a b"
    assert html_text("&lt;X LTD&gt; 1987 NET") == "<X LTD> 1987 NET"
    assert html_text("") == ""


# Text an XML 1.0 document can carry (no C0 controls but tab and newlines, no surrogates),
# without leading or trailing blanks, which an element's text does not keep apart.
xml_text = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1,
                   max_size=40).map(str.strip).filter(bool)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(xml_text, st.integers(0, 10**9)), min_size=1, max_size=6,
                unique_by=lambda r: r[1]))
def test_an_rss_file_loads_as_its_json_lines_twin(tmp_path_factory, rows):
    tmp = tmp_path_factory.mktemp("twin")
    records = [{"id": f"n{k}", "title": title, "url": f"https://n.kr/{k}",
                "published_at": f"2024-05-01T00:00:{k % 60:02d}Z"} for title, k in rows]
    items = "".join(
        f"<item><title>{escape(r['title'])}</title><guid>{r['id']}</guid>"
        f"<link>{r['url']}</link><pubDate>{r['published_at']}</pubDate></item>\n"
        for r in records)
    xml = _write(tmp, "f.xml", f'<?xml version="1.0"?>\n<rss><channel><title>N</title>\n'
                               f"{items}</channel></rss>\n")
    jsonl = tmp / "f.jsonl"
    jsonl.write_text("".join(json.dumps(r | {"source": "N"}, ensure_ascii=False) + "\n"
                             for r in records), "utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CorpusWarning)  # a blank title: rejected by both
        from_xml, from_jsonl = load_corpus(xml), load_corpus(jsonl)
    columns = ["id", "title", "summary", "url", "host", "source", "published_at"]
    assert from_xml.items[columns].equals(from_jsonl.items[columns])
    assert [r.line for r in from_xml.rejected] == [r.line + 2 for r in from_jsonl.rejected]


def test_the_commands_read_a_feed_file(tmp_path, capsys):
    path = _write(tmp_path, "yna.rss", RSS.format(encoding="utf-8"))
    assert main(["dedupe", str(path), "--threshold", "0.3", "--out", str(tmp_path / "out"),
                 "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "2 items -> 1 kept, 1 merged groups" in out

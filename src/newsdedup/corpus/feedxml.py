"""RSS and Atom files: a feed as its publisher serves it, one record per item or entry.

People who run a feed have it as XML: RSS 2.0 (``<rss><channel><item>``), RSS 1.0
(``<rdf:RDF>`` with ``<item>`` elements) or Atom (``<feed><entry>``). Each item becomes
one record under the canonical names, so no ``--columns`` is needed:

========== ========================================= =====================================
canonical  RSS 2.0 / RSS 1.0                          Atom
========== ========================================= =====================================
id         ``guid``, else ``link``                   ``id``, else the link
title      ``title``                                  ``title``
summary    ``description`` (its HTML as text)         ``summary``, else ``content`` (idem)
url        ``link``                                   ``link`` ``href`` (``rel`` alternate)
published  ``pubDate``, else ``dc:date``              ``published``, else ``updated``
source     the item's ``source``, else the feed's     the entry's ``source`` title, else
           ``title`` (one feed is one outlet)         the feed's ``title``
========== ========================================= =====================================

The item's other child elements are kept as extra fields under their local names
(``category``, ``creator``; repeated ones joined by ``"; "``). An element of another
vocabulary that shares a name with one of the feed's own (``media:title``,
``itunes:title``, ``dc:title``, ``media:description``) is kept under its prefixed name
instead (when it holds text), so a photo caption or a podcast's episode title is never
read into the headline; ``dc:date``, ``dc:source`` and ``content:encoded`` are read as
before (the fallbacks above, and the item's source). A field read into
the canonical ones takes its first non-empty element (a second ``<guid>`` does not join
the id). RSS carries its
descriptions as HTML (the specification allows it), so a summary is read as the text
a reader sees: tags dropped, entities decoded, blanks collapsed. Titles are taken as
written (the markup warning of the commands names any HTML left in them).

The XML declaration's encoding is honoured (Korean feeds still serve ``EUC-KR``); without
one the ``encoding`` argument applies (UTF-8). Entity declarations are refused, so no
document can expand into gigabytes; every other XML fault is a :class:`CorpusError`
naming the line.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path
from xml.parsers import expat

from newsdedup.corpus.records import CorpusError, RawRecord, bom_encoding, decode_bytes
from newsdedup.text.markup import html_text

__all__ = ["read_feed_xml"]

_DECLARATION = re.compile(rb"^\s*<\?xml[^>]*?encoding\s*=\s*[\"']([A-Za-z0-9._-]+)[\"']")
_ENCODING_ATTR = re.compile(r"(^\s*<\?xml[^>]*?)\s+encoding\s*=\s*[\"'][A-Za-z0-9._-]+[\"']")
_BLANKS = re.compile(r"\s+")
_ROOTS = ("rss", "RDF", "feed")
_ITEMS = ("item", "entry")
_HTML_FIELDS = ("description", "summary", "content", "encoded")

# The namespaces of the feed's own elements: none (RSS 2.0), RSS 1.0 and 0.90, Atom.
_OWN_NAMESPACES = frozenset({"", "http://purl.org/rss/1.0/",
                             "http://my.netscape.com/rdf/simple/0.9/",
                             "http://www.w3.org/2005/Atom"})
# Names the canonical fields are read from, which only the feed's own elements may fill.
_OWN_NAMES = frozenset({"guid", "id", "link", "title", "description", "summary", "content",
                        "pubDate", "published", "updated"})
# Canonical fields of one value: their first non-empty element, not all of them joined.
_SINGLE = frozenset({"guid", "id", "link", "title", "pubDate", "published", "date",
                     "updated"})


def _local(name: str) -> str:
    """An element's name as records key it: its local name, prefixed when it is foreign.

    The parser writes ``"<namespace> <local> <prefix>"`` (or fewer parts). An element
    outside :data:`_OWN_NAMESPACES` named like one of :data:`_OWN_NAMES` keeps its prefix
    (``media:title``), so only the feed's own ``<title>`` is the headline.

    Examples:
        >>> _local("title"), _local("http://purl.org/dc/elements/1.1/ date dc")
        ('title', 'date')
        >>> _local("http://search.yahoo.com/mrss/ title media")
        'media:title'
    """
    parts = name.split(" ")
    namespace, local = (parts[0], parts[1]) if len(parts) > 1 else ("", parts[0])
    if namespace in _OWN_NAMESPACES or local not in _OWN_NAMES:
        return local
    return f"{parts[2] if len(parts) > 2 else 'ns'}:{local}"


class _Reader:
    """expat callbacks building one record per item, with the line it opens on."""

    def __init__(self, path: Path, parser) -> None:
        self.path, self.parser = path, parser
        self.stack: list[str] = []
        self.root: str | None = None
        self.feed_title: str | None = None
        self.raws: list[RawRecord] = []
        self.item: dict[str, list[str]] | None = None
        self.item_depth = 0
        self.item_line = 0
        self.text: list[str] | None = None
        self.link: str | None = None
        self.in_source = False

    def start(self, name: str, attrs: dict[str, str]) -> None:
        local = _local(name)
        if self.root is None:
            self.root = local
            if local not in _ROOTS:
                raise CorpusError(self.path, f"not an RSS or Atom feed: its root element is "
                                             f"<{local}>, not <rss>, <rdf:RDF> or <feed>",
                                  line=self.parser.CurrentLineNumber)
        self.stack.append(local)
        depth = len(self.stack)
        if self.item is None:
            if local in _ITEMS:
                self.item, self.item_depth = {}, depth
                self.item_line, self.link = self.parser.CurrentLineNumber, None
            elif (local == "title" and self.feed_title is None and depth > 1
                  and self.stack[-2] in ("channel", "feed")):
                self.text = []  # the channel's (or Atom feed's) own title
            return
        if depth == self.item_depth + 1:
            if local == "link" and "href" in attrs:  # Atom: the alternate link is the page
                if attrs.get("rel", "alternate") == "alternate" and self.link is None:
                    self.link = attrs["href"]
                return
            self.in_source = local == "source"
            self.text = []
        elif depth == self.item_depth + 2 and self.in_source and local == "title":
            self.text = []  # Atom: an entry's <source><title>

    def end(self, name: str) -> None:
        local = _local(name)
        depth = len(self.stack)
        self.stack.pop()
        if self.item is None:
            if self.text is not None and local == "title":
                self.feed_title, self.text = _BLANKS.sub(" ", "".join(self.text)).strip(), None
            return
        if depth == self.item_depth:
            self._close_item()
        elif self.text is not None and (depth == self.item_depth + 1 or
                                        (self.in_source and local == "title")):
            value = "".join(self.text).strip()
            if depth == self.item_depth + 2:
                local = "source"
            if value or local not in self.item:
                self.item.setdefault(local, []).append(value)
            self.text = None
            if depth == self.item_depth + 1:
                self.in_source = False

    def data(self, text: str) -> None:
        if self.text is not None:
            self.text.append(text)

    def _close_item(self) -> None:
        got = {k: (next((v for v in values if v), "") if k in _SINGLE
                   else "; ".join(v for v in values if v))
               for k, values in (self.item or {}).items()}
        link = self.link or got.pop("link", "")
        fields = {
            "id": got.pop("guid", "") or got.pop("id", "") or link,
            "title": got.pop("title", ""),
            "summary": html_text(next((got.pop(k) for k in _HTML_FIELDS if got.get(k)), "")),
            "url": link,
            "published_at": next((got.pop(k) for k in ("pubDate", "published", "date",
                                                        "updated") if got.get(k)), ""),
            "source": got.pop("source", "") or self.feed_title or "",
        }
        for key in _HTML_FIELDS:
            got.pop(key, None)
        # An empty element of another vocabulary (<media:content url=…/>) adds no field.
        fields |= {k: v for k, v in got.items() if k not in fields and (v or ":" not in k)}
        self.raws.append(RawRecord(len(self.raws) + 1, self.item_line, fields, None))
        self.item = None

    def refuse_entities(self, name: str, *_args) -> None:
        raise CorpusError(self.path, f"the document declares the entity {name!r}; entity "
                                     "declarations are refused (they can expand without bound)",
                          line=self.parser.CurrentLineNumber)


def read_feed_xml(path: Path, data: bytes, encoding: str = "utf-8") -> list[RawRecord]:
    r"""The items of an RSS or Atom file, one record each, under the canonical names.

    Args:
        path: The file, for error messages.
        data: Its bytes.
        encoding: The text encoding when the XML declaration names none.

    Returns:
        One record per ``<item>`` or ``<entry>``, numbered in file order, each with the
        line its element opens on.

    Raises:
        CorpusError: Not well-formed XML, not a feed, or an entity declaration.

    Examples:
        >>> rss = (b'<?xml version="1.0"?>\n<rss version="2.0"><channel><title>News 1</title>\n'
        ...        b'<item><title>A</title><link>https://n.kr/1</link>\n'
        ...        b'<pubDate>Wed, 01 May 2024 09:00:00 +0900</pubDate></item>\n'
        ...        b'</channel></rss>')
        >>> [r] = read_feed_xml(Path("n.xml"), rss)
        >>> r.line, r.fields["id"], r.fields["source"], r.fields["published_at"]
        (3, 'https://n.kr/1', 'News 1', 'Wed, 01 May 2024 09:00:00 +0900')
    """
    declared = _DECLARATION.match(data)
    # A UTF-16 or UTF-32 byte-order mark says it before any declaration (or option) can.
    if (marked := bom_encoding(data, "utf-8")) != "utf-8":
        encoding = marked
    elif declared:
        encoding = declared.group(1).decode("ascii")
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise CorpusError(path, f"the XML declaration names an unknown encoding "
                                    f"{encoding!r}", line=1) from None
    text = decode_bytes(path, data, encoding)
    # Parsed as text now: the declaration's encoding has done its work.
    text = _ENCODING_ATTR.sub(r"\1", text, count=1)
    parser = expat.ParserCreate(namespace_separator=" ")
    parser.namespace_prefixes = True  # "<namespace> <local> <prefix>": media:title by name
    reader = _Reader(path, parser)
    parser.StartElementHandler = reader.start
    parser.EndElementHandler = reader.end
    parser.CharacterDataHandler = reader.data
    parser.EntityDeclHandler = reader.refuse_entities
    parser.buffer_text = True
    try:
        parser.Parse(text, True)
    except expat.ExpatError as exc:
        raise CorpusError(path, f"invalid XML: {expat.errors.messages[exc.code]} "
                                f"(column {exc.offset + 1})", line=exc.lineno) from exc
    return reader.raws

"""Recurring series and templates, learned from the titles of one corpus.

Real feeds publish the same wording again and again for different events: a
daily column (``[오늘의 운세] 7월 27일`` / ``7월 28일``), a wire template filled
with another amount or company (``U.K. MONEY MARKET GIVEN 85 MLN STG LATE HELP`` /
``… 240 MLN …``, ``<company>, 장중 3% 이상 급등``), a weekday in a recurring
market story (``How the Dow Jones industrial average fared Tuesday`` /
``… Thursday``), or a column's fixed name repeated over different texts
(``[TV 하이라이트]``). Character n-grams score such pairs near 1.0, and no
threshold can tell them from a rewrite of one event. Their variable part can.

:func:`learn_series` finds them per source, from the corpus alone (no word
list). A title is tokenized (NFKC, case-folded, digit runs masked as ``#``)
and proposes *template keys*: the whole masked title (titles that differ only
in their numbers), and the title with one slot left open: a varying head
before a fixed tail (the subject: a company, a person), a short varying tail
after a fixed head (a weekday, a verb), or one varying token in the middle.
A key of one source is a **series** when it recurs (:class:`SeriesConfig`):
enough members, enough distinct titles, spread over at least most of a day
(a template used for different events comes back on other days; the rewrites
of one event come within hours). A masked title that one source repeats
verbatim over at least that span, with summaries that differ or are absent,
is a series too (a column's fixed name).

:func:`series_pairs` tells, for candidate pairs, whether they share a series'
template: a series is learned from one source's recurrence, but its template
is the same template when another outlet fills it (two outlets carrying one
wire robot's ``<company> SETS QUARTERLY DIVIDEND`` for two companies), so
every item written in it, of any source, is held to the series rule
(:attr:`Series.templates`). The dedupe does not merge such a pair unless its
variable parts agree (the titles have the same words, separators aside) and so
do its summaries
(:mod:`newsdedup.cluster.rules`): the same column on another day, the same
template for another company, stay apart, while a re-issue of one article
(same title and summary, another URL or day) still merges.

Keys are 64-bit polynomial hashes of token ids (collisions between two
different token sequences have a probability of about ``k^2 / 2^64`` for
``k`` keys: nil at any corpus size), computed over flat arrays, so learning
costs ``O(tokens)`` and a few group-bys, not a Python loop per key.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from newsdedup.text.normalize import nfkc_folded

__all__ = ["MAX_SLOT_TOKENS", "SeriesConfig", "Series", "learn_series", "member_pairs",
           "series_pairs", "title_tokens"]

_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
# Weekday and month names vary in a recurring title as its numbers do ("fared Tuesday",
# "7월 26일(화)"): they are masked as "@". Language vocabulary, not a corpus's: English full
# and short names (word-bounded) and Korean weekdays, in full or as the one-syllable
# abbreviation headlines put in brackets.
_CALENDAR = re.compile(
    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|tues|wed|thu|"
    r"thur|thurs|fri|sat|sun|january|february|march|april|may|june|july|august|september|"
    r"october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\b"
    r"|[월화수목금토일]요일|(?<=[(（])[월화수목금토일](?=[)）])")
# Token boundaries: whitespace and the separators headlines use between phrases
# (commas, colons, bars, slashes, ellipses, middle dots in their common forms), and runs
# of three or more dots, written "…" before the tokens are read. A token is a run of the
# other characters; over titles joined by NUL, a NUL is a token of its own that ends one.
_SEPARATORS = r"\s,，、:：|/·・･‧∙…"
_DOTS = re.compile(r"\.{3,}")
_TOKEN = re.compile(rf"[^{_SEPARATORS}\0]+|\0")
_SEPARATOR_RUN = re.compile(rf"[{_SEPARATORS}]+")

# Japanese and Chinese titles are written without spaces: "【今日の運勢】3月13日の星占い" is
# one token, and a column whose date alone varies has no fixed token beside its numbers.
# In a title of Han or kana without Hangul each number is a token of its own. Korean puts
# spaces between words, around its Hanja too ("청년 1만명에 年120만원"): its tokens stay.
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")

_KINDS = ("numbers", "head", "tail", "middle", "repeat")
"""What varies in a template: its numbers only, a head before a fixed tail, a
short tail after a fixed head, one token in the middle, or nothing (a title
repeated verbatim over days)."""


@dataclass(frozen=True)
class SeriesConfig:
    """When a template key of one source counts as a recurring series.

    The defaults ask for evidence of recurrence, not of topic: a template must
    come back (three members, three distinct titles) over at least 20 hours,
    because the rewrites and updates of one event arrive within hours, while
    a column or a robot template returns on another day. Twenty hours, not
    24, so that a daily item published at slightly different times still
    counts. Without dates recurrence cannot be seen, and a key needs
    ``min_values_undated`` distinct titles instead. A title repeated verbatim
    needs ``min_members`` too: an outlet re-posting one article the next day
    is not a column (and the date window keeps it apart anyway when the
    re-post comes later than that).

    The fixed part must carry the title: at least two tokens, and a share of
    its characters (``head_fixed_share`` when the head varies, since a
    subject such as a company name is often longer than the template;
    ``fixed_share`` otherwise). A varying tail is at most ``max_tail_tokens``
    tokens: a column's name or a robot table's heading followed by its topic of the
    day (``[두근두근 뇌 운동] *``, ``7월 26일(화) 미국 증시 시황 *``), while a longer
    varying tail is the content of a headline, not a slot.

    Attributes:
        min_members: Members a key needs.
        min_values: Distinct titles a key needs (numbers-only keys: 2).
        min_values_undated: Distinct titles a key needs when no member has a date.
        min_span_hours: Hours between a key's first and last member.
        min_fixed_tokens: Tokens of the fixed part.
        head_fixed_share: Share of characters of the fixed tail when the head varies.
        fixed_share: Share of characters of the fixed part otherwise.
        max_tail_tokens: Longest varying tail.
        summary_agree: Two series members agree on their summaries when the
            summaries' character 4-gram Jaccard is at least this (both non-empty).
        undated_repeat_hours: Two series members without summaries agree only
            when published less than this many hours apart (a repeat of one
            wire item; a column returns a day later).

    Examples:
        >>> SeriesConfig().min_span_hours
        20.0
    """

    min_members: int = 3
    min_values: int = 3
    min_values_undated: int = 5
    min_span_hours: float = 20.0
    min_fixed_tokens: int = 2
    head_fixed_share: float = 0.3
    fixed_share: float = 0.5
    max_tail_tokens: int = 4
    summary_agree: float = 0.5
    undated_repeat_hours: float = 12.0

    def __post_init__(self) -> None:
        """Check the settings; raise ValueError naming the bad one."""
        for name in ("min_members", "min_values", "min_values_undated", "min_fixed_tokens",
                     "max_tail_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"series setting {name} must be an integer >= 1, got {value!r}")
        for name in ("head_fixed_share", "fixed_share", "summary_agree"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"series setting {name} must be in [0, 1], got {value!r}")
        for name in ("min_span_hours", "undated_repeat_hours"):
            value = getattr(self, name)
            if not 0.0 <= value < float("inf"):
                raise ValueError(f"series setting {name} must be a finite number >= 0, "
                                 f"got {value!r}")


def title_tokens(title: str) -> list[str]:
    """The tokens a template is made of: NFKC, case-folded, digit runs ``#``, weekdays ``@``.

    Tokens are separated by whitespace and the separators headlines put between
    phrases (commas, colons, bars, slashes, middle dots, ellipses). A NUL is no
    letter and is dropped, as in :func:`newsdedup.text.normalize.exact_key`.

    Examples:
        >>> title_tokens("U.K. MONEY MARKET GIVEN 85 MLN STG LATE HELP")[:5]
        ['u.k.', 'money', 'market', 'given', '#']
        >>> title_tokens("테슬라, 장중 3% 이상 급등")
        ['테슬라', '장중', '#%', '이상', '급등']
        >>> title_tokens("How the Dow fared Tuesday"), title_tokens("7월 26일(화) 시황")
        (['how', 'the', 'dow', 'fared', '@'], ['#월', '#일(@)', '시황'])
    """
    tok = _tokenize([title])
    return [str(t) for t in tok.vocab[tok.ids]]


@dataclass(frozen=True)
class Series:
    """The series of a corpus and which items belong to them.

    Attributes:
        membership: ``(items, series)`` 0/1 CSR matrix: item ``r`` belongs to series ``s``.
        table: One row per series: ``series`` (column of ``membership``), ``kind``
            (see :data:`_KINDS`), ``source``, ``template`` (the fixed part, ``*``
            where a slot varies, ``#`` for numbers), ``members``, ``titles``
            (distinct titles), ``first``, ``last`` (dates, ISO, empty when
            unknown), ``days`` (distinct UTC dates) and ``example`` (a member's title).
        titles: Equal codes for titles of the same words (NFKC, case-folded, the
            separators between words aside) per item: the "variable parts agree" test.
        templates: ``(items, templates)`` 0/1 CSR matrix: item ``r`` is written in
            template ``t``, the fixed part of one or more series, whichever source
            wrote it. Two items of one template are kept apart as two members of one
            series are (:func:`series_pairs`): another outlet filling a column or a
            wire robot's template with another company or amount reports another event.
        spelled: Equal codes for equally spelled titles (NFKC, case-folded,
            whitespace collapsed): a series' distinct titles, and the "titles agree"
            test of :meth:`of_members`.
    """

    membership: sp.csr_matrix
    table: pd.DataFrame
    titles: np.ndarray
    templates: sp.csr_matrix
    spelled: np.ndarray

    @property
    def n_items(self) -> int:
        """Items the series were learned on."""
        return int(self.membership.shape[0])

    def member(self) -> np.ndarray:
        """Whether each item belongs to at least one series (of its own source).

        The exact pass leaves these items alone, for the series rule to decide
        (:func:`newsdedup.cluster.rules.exact_codes`); the calibration's strata follow
        that pass, so the labelled sheets drawn from them stay readable.
        """
        return np.diff(self.membership.indptr) > 0

    def written(self) -> np.ndarray:
        """Whether each item is written in a series' template (of its source or another)."""
        return np.diff(self.templates.indptr) > 0

    def subset(self, rows: np.ndarray) -> Series:
        """The same series over the given rows only (a partition of the corpus)."""
        rows = np.asarray(rows, dtype=np.int64)
        return Series(self.membership[rows], self.table, self.titles[rows],
                      self.templates[rows], self.spelled[rows])

    def of_members(self) -> Series:
        """The rule as it was before templates crossed sources: members only, titles as spelled.

        The calibration's strata follow a fixed reference dedupe, so that a sheet
        labelled once stays a probability sample of its pairs
        (:class:`newsdedup.calibration.evidence.CalibratedDedupe`); this is the
        series rule of that reference, the one the committed sheets were drawn under.
        """
        return Series(self.membership, self.table, self.spelled, self.membership, self.spelled)

    def widened(self) -> bool:
        """Whether the rule relates other pairs than :meth:`of_members` does.

        True when an item of another source is written in a series' template, two
        sources' series share one, or two titles of the same words are spelled apart.
        """
        if self.templates.shape[1] != self.membership.shape[1]:
            return True  # two series share a template
        if not np.array_equal(self.templates.indptr, self.membership.indptr):
            return True  # a row in more templates than series, or in one of no series
        member = self.member()
        pairs = pd.DataFrame({"w": self.titles[member], "s": self.spelled[member]})
        # One template per series (counts equal, every series has one), the same rows in
        # each (indptr equal and a row's templates are its series'): then only spelling.
        return bool(pairs.drop_duplicates().shape[0] != pairs["w"].nunique()
                    or pairs["w"].nunique() != pairs["s"].nunique())

    def csv_table(self) -> pd.DataFrame:
        """:attr:`table` as ``series.csv`` writes it (largest series first)."""
        return self.table.sort_values(["members", "series"], ascending=[False, True],
                                      kind="stable").reset_index(drop=True)


MAX_SLOT_TOKENS = 64
"""Longest title (in tokens) whose slots propose template keys; longer ones propose the whole.

Headlines are short (the longest of knews-rss-big3, reuters21578-titles and the UCI
head have 19, 26 and 18 tokens); a template is a headline's wording. A "title" of a
whole article (a mapped body) would cost a pass per token position: a title of 10 MB
took a minute. Longer titles still propose their whole masked text (a repeat or
numbers-only series)."""

_MASK = np.uint64(0xFFFFFFFFFFFFFFFF)
_BASE = np.uint64(0x9E3779B97F4A7C15)  # odd: invertible modulo 2^64


def _mix(x: np.ndarray) -> np.ndarray:
    """A 64-bit finalizer (splitmix64): spreads nearby integers over the whole range."""
    x = np.asarray(x, dtype=np.uint64)
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def _inverse(b: int) -> int:
    return pow(int(b), -1, 1 << 64)


@dataclass(frozen=True)
class _Tokens:
    """Flat token ids of every title: ``ids[start[r]:start[r] + length[r]]`` is title ``r``."""

    ids: np.ndarray
    chars: np.ndarray
    start: np.ndarray
    length: np.ndarray
    vocab: np.ndarray


def _tokenize(titles: Sequence[str], folded: str | None = None) -> _Tokens:
    """Every title's tokens (:func:`title_tokens`) as flat ids, from one pass over the batch.

    Args:
        titles: The titles.
        folded: ``nfkc_folded(titles)`` when the caller has it already.
    """
    if not len(titles):
        none = np.zeros(0, np.int64)
        return _Tokens(none, none, none, none, np.zeros(0, dtype=object))
    text = nfkc_folded(titles) if folded is None else folded
    found = _TOKEN.findall(_DOTS.sub("…", _numbers_apart(_DIGITS.sub("#", text))))
    # Sorted: token ids, and the template keys hashed from them, follow the text, not the
    # order of the records. NUL sorts first, so when a title ends somewhere it is code 0.
    codes, vocab = pd.factorize(pd.Series(found, dtype=object), sort=True)
    codes = codes.astype(np.int64)
    ends = np.zeros(0, np.int64)
    if len(vocab) and vocab[0] == "\0":
        ends, codes, vocab = np.flatnonzero(codes == 0), codes[codes != 0] - 1, vocab[1:]
    # Weekdays and months are masked in the distinct tokens (a tenth of all tokens on a
    # 10k English feed): a match lies inside a token, and the characters around a token
    # (separators, NUL) are not word characters or brackets, so each token reads as it
    # would in its title.
    masked = _CALENDAR.sub("@", "\0".join(vocab)).split("\0") if len(vocab) else []
    renamed, vocab = pd.factorize(pd.Series(masked, dtype=object), sort=True)
    codes = renamed.astype(np.int64)[codes]
    # Title r's tokens lie between its end marker and the previous one.
    length = np.diff(np.concatenate(([-1], ends, [len(found)]))) - 1
    start = np.concatenate(([0], np.cumsum(length)[:-1]))
    vocab = np.asarray(vocab, dtype=object)
    width = np.fromiter((len(t) for t in vocab), dtype=np.int64, count=len(vocab))
    return _Tokens(codes, width[codes], start.astype(np.int64), length.astype(np.int64), vocab)


def _numbers_apart(text: str) -> str:
    """Masked numbers (``#``) as tokens of their own in titles written without spaces.

    Args:
        text: Titles joined by NUL, their numbers masked.

    Examples:
        >>> _numbers_apart(chr(0).join(["【今日の運勢】#月#日の星占い", "청년 #만명에 年#만원"])
        ...                ).split(chr(0))
        ['【今日の運勢】 # 月 # 日の星占い', '청년 #만명에 年#만원']
    """
    if not _UNSPACED.search(text):  # a batch without Han or kana: no loop over its titles
        return text
    return "\0".join(t.replace("#", " # ") if _UNSPACED.search(t) and not _HANGUL.search(t)
                     else t for t in text.split("\0"))


class _Segments:
    """Hashes and character counts of any token segment ``[a, b)`` of one title."""

    def __init__(self, tok: _Tokens) -> None:
        n = tok.ids.size
        owner = np.repeat(np.arange(tok.length.size), tok.length)
        local = np.arange(n, dtype=np.int64) - tok.start[owner] if n else np.zeros(0, np.int64)
        self._pow = self._powers(int(local.max(initial=0)) + 2)
        self._inv = self._powers(int(local.max(initial=0)) + 2, _inverse(int(_BASE)))
        with np.errstate(over="ignore"):
            terms = _mix(tok.ids.astype(np.uint64) + np.uint64(1)) * self._pow[local]
        # Prefix sums modulo 2^64 over the flat array; a segment subtracts two of them.
        self._cum = np.concatenate(([np.uint64(0)], np.cumsum(terms, dtype=np.uint64)))
        self._cchars = np.concatenate(([0], np.cumsum(tok.chars)))

    @staticmethod
    def _powers(k: int, base: int = int(_BASE)) -> np.ndarray:
        out = np.empty(k, dtype=np.uint64)
        value = 1
        for e in range(k):
            out[e] = value
            value = (value * base) & int(_MASK)
        return out

    def hash(self, a: np.ndarray, b: np.ndarray, local_a: np.ndarray) -> np.ndarray:
        """Hash of flat segment ``[a, b)`` whose first token sits at ``local_a`` in its title."""
        with np.errstate(over="ignore"):
            return (self._cum[b] - self._cum[a]) * self._inv[local_a]

    def chars(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Characters of flat segment ``[a, b)``."""
        return self._cchars[b] - self._cchars[a]


def _combine(*parts: np.ndarray) -> np.ndarray:
    out = np.zeros(len(parts[0]), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for k, part in enumerate(parts):
            out = _mix(out * np.uint64(0x100000001B3) + np.asarray(part, np.uint64)
                       + np.uint64(k + 1))
    return out


def _proposals(tok: _Tokens, source: np.ndarray | None, config: SeriesConfig
               ) -> Iterator[tuple[np.ndarray, np.ndarray, int, np.ndarray, np.ndarray]]:
    """Every template key each title proposes, one slot position at a time.

    Yields ``(key, row, kind, lo, hi)``: the key hash (of the source too, unless
    ``source`` is None: then the key names the template alone, whoever wrote it), the
    proposing rows, the kind, and each row's slot as local token bounds ``[lo, hi)``.
    """
    seg = _Segments(tok)
    rows = np.arange(tok.length.size, dtype=np.int64)
    total = seg.chars(tok.start, tok.start + tok.length)
    share = np.where(total > 0, total, 1).astype(np.float64)
    src = np.zeros(len(rows), np.uint64) if source is None else source

    def key_of(kind: int, r: np.ndarray, fixed_a: np.ndarray, fixed_b: np.ndarray,
               fixed_c: np.ndarray, fixed_d: np.ndarray, lo: np.ndarray, hi: np.ndarray,
               min_share: float) -> tuple[np.ndarray, np.ndarray, int, np.ndarray, np.ndarray]:
        # Fixed part: flat [fixed_a, fixed_b) and [fixed_c, fixed_d); slot: local [lo, hi).
        n_fixed = (fixed_b - fixed_a) + (fixed_d - fixed_c)
        chars = seg.chars(fixed_a, fixed_b) + seg.chars(fixed_c, fixed_d)
        ok = (n_fixed >= config.min_fixed_tokens) & (chars / share[r] >= min_share)
        r, fixed_a, fixed_b, fixed_c, fixed_d = (x[ok] for x in (r, fixed_a, fixed_b, fixed_c,
                                                                  fixed_d))
        first = seg.hash(fixed_a, fixed_b, fixed_a - tok.start[r])
        second = seg.hash(fixed_c, fixed_d, fixed_c - tok.start[r])
        key = _combine(np.full(len(r), kind), src[r], first, fixed_b - fixed_a, second,
                       fixed_d - fixed_c)
        return key, r, kind, lo[ok], hi[ok]

    start, length = tok.start, tok.length
    end = start + length
    whole = length > 0
    yield key_of(0, rows[whole], start[whole], end[whole], end[whole], end[whole],
                 np.zeros(int(whole.sum()), np.int64), np.zeros(int(whole.sum()), np.int64), 0.0)
    # A varying head: the fixed tail starts at local position k >= 1. Only titles of at
    # most MAX_SLOT_TOKENS tokens have slots: one position a step, a 10 MB "title" cost
    # a minute here.
    slotted = length <= MAX_SLOT_TOKENS
    longest = int(length[slotted].max(initial=0))
    for kind, slots in ((1, "head"), (2, "tail"), (3, "middle")):
        for k in range(1, longest):
            if slots == "head":
                r = rows[(length - k >= 1) & slotted]
                yield key_of(kind, r, start[r] + k, end[r], end[r], end[r],
                             np.zeros(len(r), np.int64), np.full(len(r), k),
                             config.head_fixed_share)
            elif slots == "tail" and k <= config.max_tail_tokens:
                r = rows[(length - k >= 1) & slotted]
                yield key_of(kind, r, start[r], end[r] - k, end[r], end[r],
                             length[r] - k, length[r], config.fixed_share)
            elif slots == "middle":
                r = rows[(length - k >= 2) & slotted]  # tokens on both sides of position k
                yield key_of(kind, r, start[r], start[r] + k, start[r] + k + 1, end[r],
                             np.full(len(r), k), np.full(len(r), k + 1), config.fixed_share)


def _keys(tok: _Tokens, source: np.ndarray, config: SeriesConfig) -> pd.DataFrame:
    """Every template key of one source that could qualify: key hash, row, kind, slot bounds.

    Every title proposes a key per slot it could vary in (about 16 a title on
    knews-rss-big3 and on the 1M synthetic Korean bench feed), and most keys
    are proposed once (83 % and 79 % of them). A key needs
    ``config.min_members`` rows, so from two on a key proposed once is
    dropped here, before :func:`_qualify` attaches the titles, summaries and
    hours to every key and groups them: with the bench feed's 16.4M keys the
    run's RSS rose by about 1.5 GB there.
    """
    frames = [(key, r, np.full(len(r), kind, np.int8), lo, hi)
              for key, r, kind, lo, hi in _proposals(tok, source, config)]
    key = np.concatenate([f[0] for f in frames])
    # Proposed at least twice (a superset of the keys with min_members rows), in order.
    keep = (pd.Series(key).duplicated(keep=False).to_numpy() if config.min_members > 1
            else np.ones(len(key), bool))
    columns = {name: np.concatenate([f[k] for f in frames])[keep]
               for k, name in enumerate(("key", "row", "kind", "lo", "hi"))}
    return pd.DataFrame(columns)


def _template_rows(tok: _Tokens, source: np.ndarray, config: SeriesConfig,
                   series_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows of every source written in the templates of the series ``series_keys``.

    A series is learned from one source's recurrence (a column, a wire robot), but
    its template is no one's property: another outlet filling it with another company
    or amount reports another event too. Two passes over the proposals, one key at a
    time (never all of them at once): the first names each series' template (its key
    without the source), the second finds every row proposing one of them.

    Returns:
        ``(row, template)``: each (row, template code) once, the codes ``0 ..`` in the
        order of the templates' keys.
    """
    sourced = np.sort(np.asarray(series_keys, dtype=np.uint64))
    named = []
    for (key, _, _, _, _), (free, _, _, _, _) in zip(
            _proposals(tok, source, config), _proposals(tok, None, config), strict=True):
        named.append(free[np.isin(key, sourced)])
    templates = np.unique(np.concatenate(named)) if named else np.zeros(0, np.uint64)
    rows, codes = [], []
    for free, r, _, _, _ in _proposals(tok, None, config):
        at = np.isin(free, templates)
        rows.append(r[at])
        codes.append(np.searchsorted(templates, free[at]))
    pairs = pd.DataFrame({"row": np.concatenate(rows) if rows else np.zeros(0, np.int64),
                          "template": np.concatenate(codes) if codes else np.zeros(0, np.int64)})
    pairs = pairs.drop_duplicates().sort_values(["row", "template"], kind="stable")
    return pairs["row"].to_numpy(np.int64), pairs["template"].to_numpy(np.int64)


def _spelled_codes(folded: str) -> np.ndarray:
    """Equal codes for equal titles, whitespace collapsed, from nfkc_folded's text."""
    norm = [" ".join(t.split()) for t in folded.split("\0")]
    return pd.factorize(pd.Series(norm, dtype=object), sort=True)[0].astype(np.int64)


def _title_codes(folded: str) -> np.ndarray:
    """Equal codes for titles of equal words, from nfkc_folded's text.

    Words as :func:`title_tokens` reads them, numbers and weekdays as written: two
    outlets filling a template with the same company and amount rarely agree on its
    commas and colons (``HMM, 장중 14% 급등`` / ``HMM 장중 14% 급등``).
    """
    # Runs of separators as one blank, title by title: the words joined as _TOKEN reads
    # them, without a list of every word of the batch (100 MB at 100k titles).
    norm = [_SEPARATOR_RUN.sub(" ", _DOTS.sub("…", t)).strip(" ") for t in folded.split("\0")]
    return pd.factorize(pd.Series(norm, dtype=object), sort=True)[0].astype(np.int64)


def _qualify(keys: pd.DataFrame, titles: np.ndarray, summaries: np.ndarray,
             hours: np.ndarray, config: SeriesConfig) -> pd.DataFrame:
    """One row per qualifying key: key, kind, members, distinct titles, span."""
    frame = keys.assign(title=titles[keys["row"].to_numpy()],
                        summary=summaries[keys["row"].to_numpy()],
                        hour=hours[keys["row"].to_numpy()])
    # A row proposes a key once (a title with a repeated token may propose it twice).
    frame = frame.drop_duplicates(["key", "row"])
    g = frame.groupby("key", sort=True)
    stats = pd.DataFrame({
        "kind": g["kind"].first(), "members": g["row"].size(), "titles": g["title"].nunique(),
        "summaries": g["summary"].nunique(), "blank_summaries": g["summary"].min(),
        "first": g["hour"].min(), "last": g["hour"].max()})
    dated = stats["first"].notna()
    span = (stats["last"] - stats["first"]).fillna(0.0)
    recurring = np.where(dated, span >= config.min_span_hours,
                         stats["titles"] >= config.min_values_undated)
    numbers = stats["kind"] == 0
    varied = stats["titles"] >= np.where(numbers, 2, config.min_values)
    # A title repeated verbatim is a series when it returns over a day with other (or
    # no) summaries; the same title and summary again is a re-issue, not a series.
    repeat = numbers & (stats["titles"] == 1) & dated & (
        (stats["summaries"] > 1) | (stats["blank_summaries"] == 0))
    ok = recurring & (stats["members"] >= config.min_members) & (varied | repeat)
    out = stats[ok].copy()
    out.loc[repeat[ok], "kind"] = _KINDS.index("repeat")
    return out


def learn_series(titles: Sequence[str], sources: Sequence[str] | None = None,
                 times: np.ndarray | None = None, summaries: Sequence[str] | None = None,
                 config: SeriesConfig | None = None) -> Series:
    """Find the recurring series and templates of a corpus, per source.

    Args:
        titles: Title per item (raw; normalized here).
        sources: Source (outlet, publisher) per item; None: one source.
        times: Publication time per item in seconds (NaN unknown); None: no dates.
        summaries: Summary per item (only whether they differ is read); None: none.
        config: The recurrence rules (:class:`SeriesConfig`).

    Returns:
        The :class:`Series`.

    Examples:
        >>> days = np.arange(4) * 86400.0
        >>> s = learn_series(["[운세] 7월 1일", "[운세] 7월 2일", "[운세] 7월 3일", "다른 기사"],
        ...                  times=days)
        >>> s.table[["kind", "template", "members"]].values.tolist()
        [['numbers', '[운세] #월 #일', 3]]
        >>> s.member().tolist()
        [True, True, True, False]
    """
    config = config or SeriesConfig()
    n = len(titles)
    src_codes = (pd.factorize(pd.Series([str(s) for s in sources], dtype=object), sort=True)[0]
                 if sources is not None else np.zeros(n, np.int64)).astype(np.int64)
    hours = (np.full(n, np.nan) if times is None
             else np.asarray(times, dtype=np.float64) / 3600.0)
    summ = (pd.factorize(pd.Series([" ".join(str(s).split()) for s in summaries],
                                   dtype=object), sort=True)
            if summaries is not None else (np.zeros(n, np.int64), pd.Index([""])))
    # Code 0 is the blank summary when one exists (sorted codes): "no summaries" reads 0.
    summary_codes = summ[0].astype(np.int64)
    if len(summ[1]) and summ[1][0] != "":
        summary_codes = summary_codes + 1
    folded = nfkc_folded([str(t) for t in titles])
    tok = _tokenize(titles, folded)
    spelled = _spelled_codes(folded) if n else np.zeros(0, np.int64)
    words = _title_codes(folded) if n else np.zeros(0, np.int64)
    empty = sp.csr_matrix((n, 0), dtype=np.int8)
    if not n or not tok.ids.size:
        return Series(empty, _empty_table(), words, empty, spelled)
    keys = _keys(tok, src_codes.astype(np.uint64), config)
    stats = _qualify(keys, spelled, summary_codes, hours, config)
    if not len(stats):
        return Series(empty, _empty_table(), words, empty, spelled)
    chosen = keys[keys["key"].isin(stats.index)].drop_duplicates(["key", "row"])
    stats, chosen = _distinct_sets(stats, chosen)
    column = pd.Series(np.arange(len(stats)), index=stats.index)
    cols = column[chosen["key"].to_numpy()].to_numpy()
    member_rows = chosen["row"].to_numpy()
    membership = sp.csr_matrix((np.ones(len(cols), np.int8), (member_rows, cols)),
                               shape=(n, len(stats)))
    membership.sum_duplicates()
    membership.sort_indices()
    table = _table(stats, chosen, tok, [str(t) for t in titles],
                   None if sources is None else [str(s) for s in sources], hours, column)
    t_rows, t_codes = _template_rows(tok, src_codes.astype(np.uint64), config,
                                     stats.index.to_numpy())
    templates = sp.csr_matrix((np.ones(len(t_rows), np.int8), (t_rows, t_codes)),
                              shape=(n, int(t_codes.max(initial=-1)) + 1))
    templates.sort_indices()
    return Series(membership, table, words, templates, spelled)


_PRIORITY = {0: 0, 4: 0, 3: 1, 2: 2, 1: 3}
"""Which of several keys with the same members names the series: numbers only (or a
verbatim repeat) first, then one middle token, a tail, a head."""


def _distinct_sets(stats: pd.DataFrame, chosen: pd.DataFrame
                   ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One key per set of members: a title's slots all proposing the same rows are one series."""
    with np.errstate(over="ignore"):
        mixed = _mix(chosen["row"].to_numpy().astype(np.uint64))
    fingerprint = (pd.Series(mixed, index=chosen.index).groupby(chosen["key"].to_numpy())
                   .sum().reindex(stats.index))
    order = pd.DataFrame({"fp": fingerprint.to_numpy(), "n": stats["members"].to_numpy(),
                          "p": [_PRIORITY[int(k)] for k in stats["kind"]],
                          "key": stats.index.to_numpy()})
    order = order.sort_values(["fp", "n", "p", "key"], kind="stable")
    keep = order.drop_duplicates(["fp", "n"])["key"].to_numpy()
    stats = stats.loc[np.sort(keep)]
    return stats, chosen[chosen["key"].isin(stats.index)]


def _empty_table() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=t) for c, t in (
        ("series", "int64"), ("kind", object), ("source", object), ("template", object),
        ("members", "int64"), ("titles", "int64"), ("first", object), ("last", object),
        ("days", "int64"), ("example", object))})


def _template(tok: _Tokens, row: int, kind: int, lo: int, hi: int) -> str:
    words = [str(w) for w in tok.vocab[tok.ids[tok.start[row]:tok.start[row] + tok.length[row]]]]
    if _KINDS[kind] in ("numbers", "repeat"):
        return " ".join(words)
    return " ".join([*words[:lo], "*", *words[hi:]])


def _iso(hour: float) -> str:
    if not np.isfinite(hour):
        return ""
    return str(np.datetime64(int(round(hour * 3600.0)), "s")) + "Z"


def _table(stats: pd.DataFrame, chosen: pd.DataFrame, tok: _Tokens, titles: list[str],
           sources: list[str] | None, hours: np.ndarray, column: pd.Series) -> pd.DataFrame:
    # Each series is shown by its earliest member (then the smallest title): a member
    # picked by row number would change with the order of the records.
    rows_of = chosen["row"].to_numpy()
    first = (chosen.assign(hour=hours[rows_of], title=[titles[r] for r in rows_of])
             .sort_values(["key", "hour", "title", "row"], kind="stable", na_position="last")
             .drop_duplicates("key"))
    first = first.set_index("key").loc[stats.index]
    rows = first["row"].to_numpy()
    days = (chosen.assign(day=np.floor(hours[chosen["row"].to_numpy()] / 24.0))
            .groupby("key")["day"].nunique().reindex(stats.index).fillna(0))
    kinds = stats["kind"].to_numpy()
    return pd.DataFrame({
        "series": column.loc[stats.index].to_numpy().astype(np.int64),
        "kind": [_KINDS[k] for k in kinds],
        "source": ["" if sources is None else sources[r] for r in rows],
        "template": [_template(tok, r, int(k), int(lo), int(hi)) for r, k, lo, hi
                     in zip(rows, kinds, first["lo"], first["hi"], strict=True)],
        "members": stats["members"].to_numpy().astype(np.int64),
        "titles": stats["titles"].to_numpy().astype(np.int64),
        "first": [_iso(h) for h in stats["first"]],
        "last": [_iso(h) for h in stats["last"]],
        "days": days.to_numpy().astype(np.int64),
        "example": [titles[r] for r in rows],
    })


def series_pairs(series: Series, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Whether items ``i[p]`` and ``j[p]`` are written in one series' template.

    Of one source (two members of the series) or of two: a template a source's
    recurrence revealed is the same template when another outlet fills it
    (:attr:`Series.templates`).

    Examples:
        >>> days = np.arange(4) * 86400.0
        >>> s = learn_series(["[운세] 7월 1일", "[운세] 7월 2일", "[운세] 7월 3일", "다른 기사"],
        ...                  times=days)
        >>> series_pairs(s, np.array([0, 0]), np.array([1, 3])).tolist()
        [True, False]
    """
    return _sharing(series.templates, i, j)


def member_pairs(series: Series, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Whether items ``i[p]`` and ``j[p]`` are two members of one series (of one source).

    The recurrence a series was learned from, without the items of other sources
    written in its template: a daily column's issues, whose gaps of whole days
    say nothing of how far apart the copies of one event come.

    Examples:
        >>> days = np.arange(4) * 86400.0
        >>> s = learn_series(["[운세] 7월 1일", "[운세] 7월 2일", "[운세] 7월 3일",
        ...                   "[운세] 7월 4일"], ["a", "a", "a", "b"], days)
        >>> member_pairs(s, np.array([0, 0]), np.array([1, 3])).tolist()
        [True, False]
        >>> series_pairs(s, np.array([0, 0]), np.array([1, 3])).tolist()
        [True, True]
    """
    return _sharing(series.membership, i, j)


def _sharing(matrix: sp.csr_matrix, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Whether rows ``i[p]`` and ``j[p]`` of a 0/1 matrix share a column."""
    i, j = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
    if not matrix.shape[1] or not len(i):
        return np.zeros(len(i), dtype=bool)
    member = np.diff(matrix.indptr) > 0
    both = member[i] & member[j]
    out = np.zeros(len(i), dtype=bool)
    if both.any():
        shared = matrix[i[both]].multiply(matrix[j[both]])
        out[both] = np.diff(shared.tocsr().indptr) > 0
    return out

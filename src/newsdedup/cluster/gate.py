"""The subject gate: two headlines may merge only if they start with the same subject.

Seed 000 found that no similarity threshold separates the boilerplate false
positives from true duplicates: ``"어드밴트, 온디바이스 AI 서비스 실증·확산 사업
참여"`` and ``"엠젠솔루션, 온디바이스 AI 서비스 실증·확산 사업 참여"`` are different
stories that share all but their subject, and score higher than a real pair of
rewrites. Korean news headlines put the subject first (``주체, 내용`` or
``주체 내용``), so the first token of the headline is a cheap subject key. Pairs
whose keys differ are never merged, whatever their score; the threshold then only
has to carry recall and can be set low (0.30 in the seed).

The key is also a bucket key: comparing only within a bucket makes dedupe
roughly linear instead of quadratic (:func:`bucketed_pairs`). With the gate
off the whole batch is one bucket, the quadratic baseline.

An empty key means "no usable subject" (the headline is punctuation only, or
empty). Such items cannot be told apart by subject, so the gate does not
separate them from each other: they share one bucket (the empty key) and the
score alone decides among them. They are not compared with keyed items, since
a bucket is exactly the set of items with one key.

Known limitations (the seed's and this implementation's):

* Leading bracketed rubrics (``[속보]``, ``【단독】``, ``<포토>``, ``(서울=연합뉴스)``)
  are stripped before the key is taken (:func:`strip_rubrics`), so a tagged and
  an untagged copy of one story share a key. A lead token that is not in
  brackets (an agency name, ``속보``) gives way to the next token, in the key
  (:func:`split_common_leads`) and in the compared text (:func:`from_key`), when
  it is crowded (:meth:`BucketLimits.crowded`): held by more than
  ``split_size`` rows, or by more than ``min_common`` rows that are more than
  ``max_share`` of the batch. Kept as a key, a ``속보`` opening every headline of
  a 600-item feed put them all in one bucket, where every pair was compared
  without its subject and different companies' "장중 3% 이상 급락" merged. A
  token held by 256 rows or fewer stays a key (a feed of 250 items, all tagged).
* Headlines that do not start with their subject (common in English) make the
  gate block true duplicates that begin differently.
* Chinese and Japanese put no space after the subject: a first fragment written
  mostly in Han or kana is keyed by its first :data:`CJK_KEY_CHARS` letters
  (:func:`fragment_key`), a guess at where the subject ends. A subject written in
  simplified and in Japanese or traditional characters (东京 / 東京) gives two keys;
  Thai, Lao, Khmer and Burmese, also written without spaces, get no such rule.
* Stripping the outlet suffix trusts the last ``" - "`` / ``" | "`` when what
  follows is short (at most four words, shorter than the rest); a headline
  whose own text ends in ``"A long headline - B"`` still loses ``B``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from newsdedup.cluster.listed import (
    PairFilter,
    PairsAbove,
    PairScoring,
    keep_allowed,
    listed_pairs,
    sorted_pairs,
    verified_pairs,
)

# Google-News style titles end in " - 연합뉴스"; other feeds use " | outlet".
# The separators need spaces on both sides so "AI-기반" or "3-4위" are not cut.
_OUTLET_SEPARATORS: tuple[str, ...] = (" - ", " | ")
_DASH, _BAR = _OUTLET_SEPARATORS

# Where a headline's subject ends: whitespace, commas, colons and the middle
# dots, in their ASCII, full-width and CJK forms. "·" (U+00B7) is the common
# one in Korean headlines; "・" (U+30FB), "･" (U+FF65), "‧" (U+2027) and "∙"
# (U+2219) are its look-alikes from other input methods.

_FRAGMENT = re.compile(r"[^\s,，、:：·・･‧∙]+")

# One leading rubric in ASCII, full-width or CJK brackets; the body may not
# contain its own closing bracket, so "[a] b [c]" loses "[a]" only.
# Full-width forms too (＜独自＞, ［速報］): Japanese and Chinese feeds write them so.
_RUBRIC = re.compile(r"\s*(?:\[[^\]]*\]|【[^】]*】|<[^>]*>|〈[^〉]*〉|《[^》]*》"
                     r"|\([^)]*\)|（[^）]*）|＜[^＞]*＞|［[^］]*］|〔[^〕]*〕)")


_OPENERS = frozenset("[【<〈《(（＜［〔")  # first characters of the rubrics _RUBRIC matches

# Chinese and Japanese are written without spaces between words, so a headline's
# first fragment is often the whole headline ("国务院常务会议部署稳就业工作") or a
# clause ("日銀が金融政策決定会合で利上げを決定"): taken whole as the key, it puts
# every headline into a bucket of its own and the near pass never merges anything
# (a Chinese feed lost every near-copy, silently). These headlines still open with
# their subject, like Korean ones; what is missing is where the subject ends. Most
# Chinese words and the common subject abbreviations of both languages (央行, 日銀,
# 北京, 東京) are two characters long, so a fragment written mostly in Han or kana
# is keyed by its first CJK_KEY_CHARS letters: "日銀、…" and "日銀が…" share the
# key 日銀. Korean keys are Hangul, or a one-character Hanja abbreviation (與, 北)
# that the rule leaves as it is.
CJK_KEY_CHARS = 2
"""Letters of a Han or kana first fragment that are its subject key (see the comment above)."""

# Han (with extension A, the compatibility ideographs and the supplementary planes),
# hiragana, katakana and half-width katakana.
_CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
                  "\uff66-\uff9f\U00020000-\U0003ffff]")


def fragment_key(fragment: str) -> str:
    """The subject key of one headline fragment: its letters and digits, lower-cased.

    A fragment written mostly in Han or kana (more than half of its letters and
    digits) keeps its first :data:`CJK_KEY_CHARS` of them: those scripts put no
    space after the subject.

    Examples:
        >>> fragment_key("“진천군”"), fragment_key("Nota"), fragment_key("與")
        ('진천군', 'nota', '與')
        >>> fragment_key("日銀が金融政策決定会合で利上げを決定"), fragment_key("国务院常务会议")
        ('日銀', '国务')
        >>> fragment_key("納凉용"), fragment_key("文대통령")
        ('納凉', '文대통령')
    """
    key = "".join(filter(str.isalnum, fragment)).lower()
    if len(key) > CJK_KEY_CHARS and 2 * len(_CJK.findall(key)) > len(key):
        return key[:CJK_KEY_CHARS]
    return key

MAX_OUTLET_WORDS = 4
"""Longest suffix, in words, taken for an outlet name ("The Korea Herald" is 3)."""


def strip_outlet(headline: str) -> str:
    """Remove a trailing outlet name (``" - 연합뉴스"``, ``" | 뉴스1"``).

    The part after the *last* separator is dropped when it looks like an
    outlet name: at most :data:`MAX_OUTLET_WORDS` words and shorter than the
    non-blank text before it. A rubric headline such as ``"Forex - Pound
    drops to 2-week low"`` is therefore kept whole.

    Args:
        headline: A raw headline.

    Returns:
        The headline without its outlet suffix, surrounding blanks stripped.

    Examples:
        >>> strip_outlet("진천군 스마트돌봄 본격화 - 충청일보")
        '진천군 스마트돌봄 본격화'
        >>> strip_outlet("A - B | 뉴스1")
        'A - B'
        >>> strip_outlet(" - 연합뉴스")
        '- 연합뉴스'
        >>> strip_outlet("Forex - Pound drops to 2-week low vs dollar")
        'Forex - Pound drops to 2-week low vs dollar'
    """
    text = headline.strip()
    cut = max(text.rfind(_DASH), text.rfind(_BAR))  # the last separator (no map: per row)
    if cut <= 0:
        return text
    # Both separators are three characters long.
    head, outlet = text[:cut].strip(), text[cut + 3:].strip()
    # An outlet name is short and shorter than the headline it follows. Without
    # this check a rubric headline ("Forex - Pound drops to 2-week low") loses
    # everything but its rubric, and all of the rubric's stories become one key.
    if head and len(outlet) < len(head) and len(outlet.split()) <= MAX_OUTLET_WORDS:
        return head
    return text


def lead_token(headline: str) -> str:
    """The subject key of a headline: its first token, letters and digits only, lower-cased.

    The outlet suffix and leading rubrics are stripped first
    (:func:`strip_outlet`, :func:`strip_rubrics`). The rest is
    split on whitespace, commas, colons and middle dots; the first fragment
    that still has a letter or digit (:meth:`str.isalnum`) after dropping
    everything else is the key (a fragment mostly in Han or kana keeps its first
    :data:`CJK_KEY_CHARS` letters: :func:`fragment_key`). Skipping punctuation-only
    fragments means a stray leading ``"…"`` or ``"-"`` does not empty the key.

    Args:
        headline: A raw headline, possibly with an outlet suffix.

    Returns:
        The key, or ``""`` when the headline has no usable token.

    Examples:
        >>> lead_token("어드밴트, 온디바이스 AI 서비스 실증·확산 사업 참여")
        '어드밴트'
        >>> lead_token("어드밴트 온디바이스 AI 서비스 실증·확산 사업 참여 - 전자신문")
        '어드밴트'
        >>> lead_token("“진천군”: 스마트돌봄")
        '진천군'
        >>> lead_token("Nota·AMD 협력")
        'nota'
        >>> lead_token("… !!")
        ''
    """
    return subject_key(strip_outlet(headline))


def strip_rubrics(headline: str) -> str:
    """Drop leading bracketed rubrics: ``[…]``, ``【…】``, ``<…>``, ``〈…〉``, ``《…》``, ``(…)``.

    The full-width ``＜…＞``, ``［…］``, ``（…）`` and ``〔…〕`` as well.

    Korean feeds open headlines with rubrics (``[속보]``, ``[단독]``,
    ``【포토】``, ``(서울=연합뉴스)``) that say how a story is filed, not what
    it is about; as a subject key they would put every breaking story of a
    feed into one bucket. Several rubrics in a row are all dropped. A
    headline that is nothing but rubrics keeps them (its only text).

    Args:
        headline: A headline (outlet suffix stripped or not).

    Returns:
        The headline from its first character after the rubrics.

    Examples:
        >>> strip_rubrics("[속보] 【단독】 삼성전자, 실적 발표")
        '삼성전자, 실적 발표'
        >>> strip_rubrics("(서울=연합뉴스) 진천군 돌봄")
        '진천군 돌봄'
        >>> strip_rubrics("[포토]")
        '[포토]'
        >>> strip_rubrics("삼성 [단독]")
        '삼성 [단독]'
        >>> strip_rubrics("＜独自＞ 日銀が利上げを決定")
        '日銀が利上げを決定'
    """
    pos = 0
    while match := _RUBRIC.match(headline, pos):
        pos = match.end()
    rest = headline[pos:].strip()
    return rest if rest else headline


def subject_key(stripped: str) -> str:
    """:func:`lead_token` of a headline whose outlet suffix is already stripped.

    Leading rubrics are dropped first (:func:`strip_rubrics`).

    Examples:
        >>> subject_key("어드밴트, 온디바이스 AI")
        '어드밴트'
        >>> subject_key("[속보] 어드밴트, 온디바이스 AI")
        '어드밴트'
    """
    path = subject_path(stripped, 1)
    return path[0] if path else ""


_SEPARATORS = re.compile(r"[\s,，、:：·・･‧∙]*")  # what _FRAGMENT's fragments are split by


def usable_tokens(stripped: str) -> Iterator[tuple[int, int, str]]:
    """A headline's usable tokens in order: ``(start, end, key)``, keyed by :func:`fragment_key`.

    Bracketed rubrics before a token are skipped wherever they stand, as
    :func:`strip_rubrics` skips them at the start: when a crowded first token gives way,
    ``"속보 [백영옥의 말과 글] 다시 생각하기"`` takes the key its untagged twin
    ``"[백영옥의 말과 글] 다시 …"`` has (``다시``). Rubrics with nothing after them are the
    text itself and read as tokens (``"[포토]"``, ``"Reuters (click the phrases)"``).
    Lazy: a caller stops when it has what it needs.

    Examples:
        >>> [k for _, _, k in usable_tokens("[속보] 연합뉴스 · [단독] 진천군, 돌봄")]
        ['연합뉴스', '진천군', '돌봄']
        >>> [k for _, _, k in usable_tokens("[포토]")], list(usable_tokens(""))
        (['포토'], [])
        >>> [k for _, _, k in usable_tokens("AP (click here)")]
        ['ap', 'click', 'here']
    """
    pos, first = 0, True
    while True:
        # The first token's rubrics are strip_rubrics' (at the very start); a later one's
        # may follow the separator after the token before it ("속보 · [포토] …"). Between
        # rubrics only blanks, as strip_rubrics reads them ("[포토] · [단독] x" keeps
        # "[단독]" as its first token, tagged or not).
        after = pos if first else _separated(stripped, pos)
        while match := _RUBRIC.match(stripped, after):
            after = match.end()
        if stripped[after:].strip():
            pos = after
        key, start = "", pos
        while not key:
            fragment = _FRAGMENT.search(stripped, pos)
            if fragment is None:
                return
            key, start, pos = fragment_key(fragment.group()), fragment.start(), fragment.end()
        first = False
        yield start, pos, key


def _separated(text: str, pos: int) -> int:
    """The first position from ``pos`` that is not a separator of fragments."""
    match = _SEPARATORS.match(text, pos)
    return match.end() if match else pos


def subject_path(stripped: str, depth: int) -> list[str]:
    """The first ``depth`` usable tokens of a headline, each as :func:`subject_key` takes it.

    Examples:
        >>> subject_path("[속보] 연합뉴스 · 진천군, 돌봄 착수", 3)
        ['연합뉴스', '진천군', '돌봄']
        >>> subject_path("진천군", 2)
        ['진천군']
    """
    keys: list[str] = []
    for _, _, key in usable_tokens(stripped):
        keys.append(key)
        if len(keys) == depth:
            break
    return keys


def split_common_leads(stripped: Sequence[str], leads: Sequence[str],
                       limits: BucketLimits | None = None) -> list[str]:
    """Subject keys in which a lead token held by too many rows gives way to the next token.

    A crowded key (:meth:`BucketLimits.crowded`: an agency name or a ``속보``
    opening a large share of a feed) is not a subject: those rows take their
    next token as key instead (``"연합뉴스 진천군 …"`` is keyed ``"진천군"``),
    as a bracketed rubric is stripped (:func:`strip_rubrics`), repeated up to
    ``limits.split_depth`` times while the new key is crowded too. A tagged and
    an untagged copy of one story then share a bucket, so the crowded token
    costs no recall, and a batch whose every headline opens with one agency
    name is bucketed as it would be without that name. Rows of other buckets
    keep their key. The Dask dedupe takes the keys of the whole batch once
    and hands each partition its rows' (:mod:`newsdedup.cluster.distributed`).

    Args:
        stripped: Headlines, outlet suffixes stripped.
        leads: Their :func:`subject_key`.
        limits: Where the crowding rule and ``split_depth`` come from (None:
            :data:`DEFAULT_LIMITS`).

    Returns:
        The key per row.

    Examples:
        >>> split_common_leads(["a b", "a c", "d e", "a"], ["a", "a", "d", "a"],
        ...                    BucketLimits(split_size=1))
        ['b', 'c', 'd', 'a']
        >>> # "속보" opens 300 of 310 headlines: more than 5 % of more than 256 rows.
        >>> titles = [f"속보 {k}번 버스 개편" for k in range(300)] + ["화성시 화재"] * 10
        >>> keys = split_common_leads(titles, ["속보"] * 300 + ["화성시"] * 10)
        >>> keys[:2], keys[-1]
        (['0번', '1번'], '화성시')
    """
    limits = limits or DEFAULT_LIMITS
    out = list(leads)
    level = np.ones(len(out), dtype=np.int64)  # which token of its headline a row's key is
    for step in range(limits.split_depth):
        codes, _ = pd.factorize(pd.Series(out, dtype=object), sort=False)
        crowded = limits.crowded(np.bincount(codes), len(out)) if codes.size else codes > 0
        # Only rows that gave way already may give way again: a row whose own first token
        # is not crowded keeps it, whoever joins its bucket.
        movable = crowded[codes] & (level == step + 1) if codes.size else crowded
        changed = False
        for r in np.flatnonzero(movable).tolist():
            if not out[r]:
                continue  # no usable token at all: nothing further to take
            path = subject_path(stripped[r], step + 2)
            if len(path) == step + 2:
                out[r], level[r] = path[-1], step + 2
                changed = True
        if not changed:
            break
    return out


def from_key(stripped: str, key: str, limits: BucketLimits | None = None) -> str | None:
    """The headline after the tokens that gave way to its key.

    A row of :func:`split_common_leads` whose first tokens gave way is keyed by a later
    token; its compared text drops what gave way too (rubrics before it included), so a
    tagged copy (``"속보 진천군 돌봄"``, ``"속보 [포토] 진천군 돌봄"``) compares as its
    untagged twin (``"진천군 돌봄"``, ``"[포토] 진천군 돌봄"``).

    Returns:
        ``stripped`` from after the usable token before the one (the second to the
        ``split_depth + 1``-th) whose key is ``key``; None when no such token (the key
        did not move).

    Examples:
        >>> from_key("속보 · 진천군, 돌봄 착수", "진천군")
        '진천군, 돌봄 착수'
        >>> from_key("[속보] 연합뉴스 진천군 돌봄", "진천군")
        '진천군 돌봄'
        >>> from_key("속보 [포토] 진천군 돌봄", "진천군")
        '[포토] 진천군 돌봄'
        >>> from_key("진천군 돌봄", "진천군") is None
        True
    """
    limits = limits or DEFAULT_LIMITS
    before = None  # where the previous usable token ends
    for usable, (_, end, token) in enumerate(usable_tokens(stripped), start=1):
        if usable > limits.split_depth + 1:
            break
        if usable > 1 and token == key and before is not None:
            return stripped[_separated(stripped, before):]
        before = end
    return None


def lead_keys(stripped: Sequence[str]) -> tuple[list[str], list[str]]:
    """The gate keys of headlines (outlet suffixes stripped): first tokens, and refined keys.

    Returns:
        ``(subjects, leads)``: :func:`subject_keys`, and those keys after
        :func:`split_common_leads` (the bucket keys).
    """
    subjects = subject_keys(stripped)
    return subjects, split_common_leads(stripped, subjects)


def subject_keys(stripped: Iterable[str]) -> list[str]:
    """:func:`subject_key` of many headlines (outlet suffixes already stripped).

    The same keys, computed once per distinct first fragment: a feed repeats
    its subjects, and the per-character filter is the costly part.

    Examples:
        >>> subject_keys(["[속보] 어드밴트, AI", "어드밴트 참여", "… 진천군"])
        ['어드밴트', '어드밴트', '진천군']
    """
    cache: dict[str, str] = {}
    out = []
    for headline in stripped:
        # No rubric can open a headline that starts with neither a blank nor a bracket;
        # the fragment search skips surrounding blanks itself.
        head = headline[:1]
        first = _FRAGMENT.search(strip_rubrics(headline) if head in _OPENERS or head.isspace()
                                 else headline)
        if first is None:
            out.append("")
            continue
        fragment = first.group()
        key = cache.get(fragment)
        if key is None:
            key = cache[fragment] = fragment_key(fragment)
        # A punctuation-only first fragment: the key is further on.
        out.append(key if key else subject_key(headline))
    return out


def gate_allows(lead_a: str, lead_b: str) -> bool:
    """Whether two headlines with these keys may be merged: only within one bucket.

    Args:
        lead_a: Key of the first headline (:func:`lead_token`).
        lead_b: Key of the second headline.

    Returns:
        True when the keys are equal; two empty keys are equal (the bucket of
        headlines without a subject).

    Examples:
        >>> gate_allows("어드밴트", "엠젠솔루션")
        False
        >>> gate_allows("진천군", "진천군")
        True
        >>> gate_allows("", ""), gate_allows("", "진천군")
        (True, False)
    """
    return lead_a == lead_b


def gate_matrix(leads: Sequence[str]) -> np.ndarray:
    """All-pairs :func:`gate_allows` as a boolean matrix, without a Python loop over pairs.

    Args:
        leads: One key per item.

    Returns:
        ``bool`` array of shape ``(N, N)``: symmetric, True on the diagonal,
        ``out[i, j] == gate_allows(leads[i], leads[j])``.

    Examples:
        >>> gate_matrix(["진천군", "경북도", "진천군", ""]).astype(int).tolist()
        [[1, 0, 1, 0], [0, 1, 0, 0], [1, 0, 1, 0], [0, 0, 0, 1]]
    """
    ids = bucket_ids(leads)
    return ids[:, None] == ids[None, :]


def bucket_ids(leads: Sequence[str] | None, n: int | None = None) -> np.ndarray:
    """Bucket number of each item: equal keys, equal numbers (first-seen order).

    Args:
        leads: One key per item; None means the gate is off, and every item
            is in bucket 0.
        n: Number of items, needed only when ``leads`` is None.

    Returns:
        ``int64`` array, one bucket id per item.

    Examples:
        >>> bucket_ids(["b", "a", "b", ""]).tolist()
        [0, 1, 0, 2]
        >>> bucket_ids(None, 3).tolist()
        [0, 0, 0]
    """
    if leads is None:
        return np.zeros(n or 0, dtype=np.int64)
    ids, _ = pd.factorize(pd.Series(list(leads), dtype=object), sort=False)
    return ids.astype(np.int64)


Candidates = Callable[[np.ndarray, "Callable[[int, int], None] | None"],
                     Iterable[tuple[np.ndarray, np.ndarray, np.ndarray | None]]]
"""``candidates(members, progress) -> blocks of (i, j, score or None)``.

Every pair of ``members`` that may reach the threshold, each once; ``score`` is
None when the generator does not score (then ``block`` does). ``progress``, when not
None, is told ``(members done, members)`` as the blocks are consumed: one bucket of a
whole feed (no gate) can take minutes.
"""


@dataclass(frozen=True)
class BucketLimits:
    """When a bucket is too large to score all its pairs, learned from the batch.

    A bucket is *oversized* when it has more than ``max_size`` items, or more
    than ``min_common`` items and more than ``max_share`` of the batch (the
    document frequency of its key: a rubric such as ``속보``, or an agency name
    that opens every headline of a feed). An oversized bucket is not scored
    pair by pair; its pairs come from a candidate generator (exact for the
    Jaccard scorers: :func:`newsdedup.score.prefix.prefix_candidates`) and are
    verified with the same scorer, so the pairs and scores are those of the
    quadratic path.

    The defaults keep the quadratic path where it is cheap: 4,096 items are
    8.4M scored pairs (well under a second); a key shared by more than 5% of a
    batch of more than 256 items is a rubric or an outlet, not a subject.

    Attributes:
        max_size: Largest bucket scored pair by pair.
        max_share: Largest share of the batch one key may hold (``0 < x <= 1``).
        min_common: Buckets up to this size are never oversized by share.
        split_size: Rows above which a lead token gives way to the next token
            whatever the batch's size (:meth:`crowded`, :func:`split_common_leads`);
            keys are refined before buckets are formed.
        split_depth: How many tokens may give way in turn.

    Examples:
        >>> BucketLimits().oversized(np.array([10, 300, 5000]), 6000).tolist()
        [False, False, True]
        >>> BucketLimits().oversized(np.array([300, 10]), 310).tolist()
        [True, False]
    """

    max_size: int = 4096
    max_share: float = 0.05
    min_common: int = 256
    split_size: int = 4096
    split_depth: int = 3

    def crowded(self, sizes: np.ndarray, n_items: int) -> np.ndarray:
        """Boolean per key's row count: True where the lead token is no subject.

        More than ``split_size`` rows, or more than ``min_common`` rows that are more
        than ``max_share`` of the batch: the rule of :meth:`oversized` for what is a
        rubric or an outlet rather than a subject, so such a token gives way to the next
        one instead of holding every headline it opens in one bucket. Fewer rows say
        too little to tell a rubric from a subject a small feed repeats.

        Examples:
            >>> BucketLimits().crowded(np.array([300, 10, 200]), 6000).tolist()
            [False, False, False]
            >>> BucketLimits().crowded(np.array([300, 10, 200]), 510).tolist()
            [True, False, False]
        """
        sizes = np.asarray(sizes, dtype=np.int64)
        common = (sizes > self.min_common) & (sizes > self.max_share * n_items)
        return (sizes > self.split_size) | common

    def oversized(self, sizes: np.ndarray, n_items: int) -> np.ndarray:
        """Boolean per bucket size: True where the bucket must not be scored pair by pair."""
        sizes = np.asarray(sizes, dtype=np.int64)
        common = (sizes > self.min_common) & (sizes > self.max_share * n_items)
        return (sizes > self.max_size) | common


DEFAULT_LIMITS = BucketLimits()

PAIR_PATH_MIN = 1 << 20
"""Within-bucket pairs from which :func:`bucketed_pairs` lists and scores pairs one by one.

Below it the packed blocks are cheap, and the compiled pair scorer would cost
numba's import (about half a second)."""

def bucketed_pairs(
    block: Callable[[np.ndarray, np.ndarray], np.ndarray],
    buckets: np.ndarray,
    threshold: float,
    chunk: int = 256,
    progress: Callable[[int, int], None] | None = None,
    candidates: Candidates | None = None,
    limits: BucketLimits | None = None,
    pair_scores: PairScoring | None = None,
    pair_path_min: int | None = None,
    pairs_above: PairsAbove | None = None,
    allowed: PairFilter | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair inside one bucket that scores at or above ``threshold`` (and may merge).

    Only items sharing a bucket are scored, so the cost is the sum of the
    squared bucket sizes instead of ``N**2``: near-linear when subjects are
    diverse, as they are in a news feed. Small buckets are packed together
    into blocks of about ``chunk`` items and scored with one sparse product
    per block (pairs across buckets are masked out); a bucket larger than
    ``chunk`` is scored in row blocks against itself. Singleton buckets cost
    nothing. An oversized bucket (:class:`BucketLimits`) is, when
    ``candidates`` is given, scored only on the pairs it proposes.

    Args:
        block: ``block(rows, cols) -> float64 (len(rows), len(cols))`` scores
            between item indices (:meth:`newsdedup.score.scorers.BlockScorer.block`).
        buckets: ``int64`` bucket id per item (:func:`bucket_ids`).
        threshold: Keep pairs with ``score >= threshold``.
        chunk: Items per scored block (memory ``O(chunk x max(chunk, bucket))``).
        progress: Called with ``(items done, items to score)`` after each block.
        candidates: Candidate generator for oversized buckets; None scores every
            bucket pair by pair (the quadratic path).
        limits: What makes a bucket oversized (None: :data:`DEFAULT_LIMITS`).
        pair_scores: Scores of all pairs inside runs of items (:data:`PairScoring`),
            bit-identical to ``block``'s. When given and the buckets hold at least
            ``pair_path_min`` pairs, their pairs are listed and scored one by
            one instead of in packed blocks (same result, no cross-bucket work).
        pair_path_min: See ``pair_scores`` (None: :data:`PAIR_PATH_MIN`).
        pairs_above: On that path, the kept pairs of the listed buckets straight from
            the scorer (:data:`PairsAbove`; same pairs and scores, without listing the
            others); None, or None returned, lists them and uses ``pair_scores``.
        allowed: The pairs that may merge at all (:data:`~newsdedup.cluster.listed.PairFilter`),
            applied to each block of scored pairs, so that the pairs it refuses (a
            template's members, all alike) are never held together; None keeps all.

    Returns:
        ``(i, j, score)`` with ``i < j``, sorted by ``(i, j)``.

    Examples:
        >>> s = np.array([[1, .9, .9], [.9, 1, .9], [.9, .9, 1]])
        >>> i, j, sc = bucketed_pairs(lambda r, c: s[np.ix_(r, c)], np.array([0, 1, 0]), 0.5)
        >>> i.tolist(), j.tolist()
        ([0], [2])
    """
    buckets = np.asarray(buckets, dtype=np.int64)
    items, starts, ends = _bucket_runs(buckets)
    sizes = ends - starts
    lim = limits or DEFAULT_LIMITS
    huge = (lim.oversized(sizes, buckets.size) if candidates is not None
            else np.zeros(starts.size, dtype=bool))
    listed_min = PAIR_PATH_MIN if pair_path_min is None else pair_path_min
    # Listed pairs: every bucket up to max_size is scored pair by pair, those oversized by
    # their share of the batch too (the compiled pairs cost less than the candidates).
    listed = ~(huge & (sizes > lim.max_size))
    if pair_scores is not None and int((sizes * (sizes - 1) // 2)[listed].sum()) >= listed_min:
        return _listed_path((pair_scores, pairs_above), block, candidates, items, starts,
                            ends, listed, threshold, progress, allowed)
    return _packed_path(block, buckets, threshold, chunk, progress, candidates,
                        (items, starts, ends, huge), allowed)


def _packed_path(block: Callable[[np.ndarray, np.ndarray], np.ndarray], buckets: np.ndarray,
                 threshold: float, chunk: int, progress: Callable[[int, int], None] | None,
                 candidates: Candidates | None,
                 runs: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
                 allowed: PairFilter | None = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`bucketed_pairs` in packed blocks (``runs``: items, starts, ends, oversized)."""
    items, starts, ends, huge = runs
    sizes = ends - starts
    big = (sizes > chunk) & ~huge
    small_starts, small_ends = starts[~big & ~huge], ends[~big & ~huge]
    seg_bounds, seg_ends = _segments(small_starts, chunk)
    out: tuple[list[np.ndarray], ...] = ([], [], [])
    done, total = 0, int(items.size)

    def keep(rows: np.ndarray, cols: np.ndarray, scores: np.ndarray, same: np.ndarray) -> None:
        ok = same & (rows[:, None] < cols[None, :]) & (scores >= threshold)
        r, c = np.nonzero(ok)
        for acc, part in zip(out, keep_allowed(allowed, rows[r], cols[c], scores[r, c]),
                             strict=True):
            acc.append(part)

    def advance(count: int) -> None:
        nonlocal done
        done += count
        if progress:
            progress(done, total)

    for a, b in zip(seg_bounds, seg_ends, strict=True):
        idx = np.concatenate([items[lo:hi] for lo, hi in
                              zip(small_starts[a:b], small_ends[a:b], strict=True)])
        keep(idx, idx, block(idx, idx), buckets[idx][:, None] == buckets[idx][None, :])
        advance(idx.size)
    for lo_b, hi_b in zip(starts[huge], ends[huge], strict=True):
        # Oversized (a rubric or an outlet opens every headline): candidates only.
        inside = None if progress is None else _offset(progress, done, total)
        for acc, part in zip(out, _candidate_pairs(candidates, items[lo_b:hi_b], block,  # type: ignore[arg-type]
                                                   threshold, allowed, inside), strict=True):
            acc.extend(part)
        advance(hi_b - lo_b)
    for lo_b, hi_b in zip(starts[big], ends[big], strict=True):
        members = items[lo_b:hi_b]
        for lo in range(0, members.size, chunk):
            rows = members[lo : lo + chunk]
            keep(rows, members, block(rows, members), np.ones((1, 1), dtype=bool))
            advance(rows.size)
    return sorted_pairs(*out)


def _listed_path(scoring: tuple[PairScoring, PairsAbove | None],
                 block: Callable[[np.ndarray, np.ndarray], np.ndarray],
                 candidates: Candidates | None, items: np.ndarray, starts: np.ndarray,
                 ends: np.ndarray, listed: np.ndarray, threshold: float,
                 progress: Callable[[int, int], None] | None,
                 allowed: PairFilter | None = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`bucketed_pairs` with the ``listed`` buckets' pairs listed, the others' candidates."""
    out = listed_pairs(scoring[0], items, starts[listed], ends[listed], threshold, progress,
                       int(items.size), pairs_above=scoring[1], allowed=allowed)
    done = int((ends - starts)[listed].sum())
    for lo_b, hi_b in zip(starts[~listed], ends[~listed], strict=True):
        inside = None if progress is None else _offset(progress, done, int(items.size))
        for acc, part in zip(out, _candidate_pairs(candidates, items[lo_b:hi_b],  # type: ignore[arg-type]
                                                   block, threshold, allowed, inside),
                             strict=True):
            acc.extend(part)
        done += hi_b - lo_b
        if progress:
            progress(done, int(items.size))
    return sorted_pairs(*out)


def _segments(small_starts: np.ndarray, chunk: int) -> tuple[np.ndarray, np.ndarray]:
    """Small buckets per block: those whose first item falls in one chunk-wide window.

    Blocks stay under ``2 * chunk`` items. Returns the first and past-the-end
    bucket of each block.
    """
    segment = small_starts // chunk
    if not segment.size:
        return segment, segment
    bounds = np.flatnonzero(np.r_[True, segment[1:] != segment[:-1]])
    return bounds, np.r_[bounds[1:], segment.size]


def _offset(progress: Callable[[int, int], None], before: int, total: int
            ) -> Callable[[int, int], None]:
    """``progress`` told of one bucket's members done, after ``before`` of ``total``."""
    return lambda done, _: progress(before + done, total)


def _candidate_pairs(candidates: Candidates, members: np.ndarray,
                     block: Callable[[np.ndarray, np.ndarray], np.ndarray],
                     threshold: float, allowed: PairFilter | None = None,
                     progress: Callable[[int, int], None] | None = None
                     ) -> tuple[list[np.ndarray], ...]:
    """Pairs of an oversized bucket at ``threshold`` or above that may merge, by candidates."""
    out: tuple[list[np.ndarray], ...] = ([], [], [])
    for ci, cj, sc in candidates(members, progress):
        if sc is None:
            kept = verified_pairs(block, ci, cj, threshold)
        else:
            ok = sc >= threshold
            kept = ci[ok], cj[ok], sc[ok]
        for acc, part in zip(out, keep_allowed(allowed, *kept), strict=True):
            acc.append(part)
    return out


def _bucket_runs(buckets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Items of buckets with two or more members, grouped by bucket, and each run's bounds.

    Returns ``(items, starts, ends)``: the items of one bucket are next to each other,
    in index order inside the bucket, and bucket ``k``'s run is
    ``items[starts[k]:ends[k]]``.
    """
    sizes = np.bincount(buckets) if buckets.size else np.zeros(0, dtype=np.int64)
    items = np.flatnonzero(sizes[buckets] > 1)
    items = items[np.argsort(buckets[items], kind="stable")]
    b_sorted = buckets[items]
    starts = (np.flatnonzero(np.r_[True, b_sorted[1:] != b_sorted[:-1]]) if items.size
              else items)
    ends = np.r_[starts[1:], items.size].astype(np.int64)
    return items, starts, ends

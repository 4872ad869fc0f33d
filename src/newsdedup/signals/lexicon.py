"""What the entities of a corpus mean, learned from the corpus: weights and other spellings.

No list of brands, loanwords or spellings fitted to one archive: both halves
are computed from the items themselves, with thresholds read from the signal
config file (:mod:`newsdedup.signals.settings`).

**Weights (document frequency).** A publisher's own brand ("Gemini" on
Google's sites, "Claude" on Anthropic's) appears in a large share of *its*
items; a word every publisher uses ("AI", "미국") in a large share of *all*
items. Either says little about which announcement two items report. A
name's weight in one scope (the publisher's items, or all items) is its
inverse document frequency scaled so that a name in one item weighs 1 and a
name in at least ``share`` of the scope's items weighs 0::

    w = clip(log(cap / df) / log(cap), 0, 1),   cap = share * items in the scope

and its weight for an item is the smaller of its publisher weight (only for
publishers with at least ``min_items`` items: a few items cannot tell a
brand from a run of news) and its corpus weight. Document frequency counts
a name's *line* (:mod:`newsdedup.signals.entities`): "Gemini" counts every
item naming a Gemini product.

**Other spellings (transliteration + co-occurrence).** Korean text writes
foreign names in Hangul ("제미나이", "앤트로픽"/"앤스로픽") beside or instead of
the Latin spelling. A Hangul phrase and a Latin name are taken as one
name when (1) they occur in the same item at least ``min_cooccurrence``
times and (2) they have as many words and sound alike: both are reduced to a consonant skeleton
(Hangul romanized by the Revised Romanization of Korean, then letters that
Korean transcription merges -- voiced/voiceless stops, f/p, v/b, l/r, soft
g/j -- folded together, vowels dropped) and the skeletons' edit similarity
is at least ``min_similarity`` (an inexact match needs
``min_cooccurrence_fuzzy`` shared items; skeletons of fewer than
``min_skeleton`` consonants, such as "PN" for both "OpenAI" and "보안", are
not matched: too many words fit them). The learned map is written to
``params.json``; spellings it cannot find go in the config file's
``[aliases.extra]``.

Cost: weights are a few sparse products over ``items x names``; the
spellings need one regular-expression pass over the texts plus an edit
distance per distinct (Hangul phrase, Latin name) pair that shares an item.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from newsdedup.signals.entities import Entity, EntityMatrix, kiwi, latin_entities

# Revised Romanization of Korean (2000): initial, medial and final jamo of a syllable.
_INITIALS = ("g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss", "", "j", "jj", "ch",
             "k", "t", "p", "h")
_MEDIALS = ("a", "ae", "ya", "yae", "eo", "e", "yeo", "ye", "o", "wa", "wae", "oe", "yo", "u",
            "wo", "we", "wi", "yu", "eu", "ui", "i")
_FINALS = ("", "k", "k", "k", "n", "n", "n", "t", "l", "k", "m", "l", "l", "l", "p", "l", "m",
           "p", "p", "t", "t", "ng", "t", "t", "k", "t", "p", "t")
_HANGUL_BASE, _HANGUL_COUNT = 0xAC00, 11172
_HANGUL = re.compile(r"[가-힣]")

# Consonant classes Korean transcription of foreign names does not keep apart.
_FOLD = str.maketrans({"g": "K", "k": "K", "q": "K", "c": "K", "d": "T", "t": "T", "b": "P",
                       "p": "P", "f": "P", "v": "P", "j": "J", "z": "J", "s": "S", "l": "R",
                       "r": "R", "m": "M", "n": "N", "C": "C"})


def romanize(text: str) -> str:
    """Hangul syllables in Revised Romanization; other characters unchanged.

    Examples:
        >>> romanize("제미나이"), romanize("앤트로픽"), romanize("오픈AI")
        ('jeminai', 'aenteuropik', 'opeunAI')
    """
    out = []
    for ch in text:
        code = ord(ch) - _HANGUL_BASE
        if 0 <= code < _HANGUL_COUNT:
            out.append(_INITIALS[code // 588] + _MEDIALS[(code % 588) // 28] + _FINALS[code % 28])
        else:
            out.append(ch)
    return "".join(out)


def skeleton(text: str) -> str:
    """Consonant skeleton of a name as Korean transcription hears it.

    Hangul is romanized first; English spelling rules that Korean
    transcription follows are applied to Latin letters only (``ph`` -> p,
    ``th`` -> t, ``sh`` -> s, soft ``c``/``g`` before e, i, y); doubled
    letters are read once, consonant classes are folded (see the module
    docstring) and vowels, ``h``, ``w`` and ``y`` are dropped.

    Examples:
        >>> skeleton("제미나이") == skeleton("Gemini"), skeleton("Gemini")
        (True, 'JMN')
        >>> skeleton("앤트로픽"), skeleton("Anthropic"), skeleton("앤스로픽")
        ('NTRPK', 'NTRPK', 'NSRPK')
        >>> skeleton("나노 바나나") == skeleton("Nano Banana")
        True
    """
    parts = []
    for run in re.findall(r"[가-힣]+|[A-Za-z]+", text):
        if _HANGUL.match(run):
            s = romanize(run).replace("ch", "C")
        else:
            s = run.lower()
            for a, b in (("ph", "p"), ("th", "t"), ("sh", "s"), ("ch", "C"), ("ck", "k"),
                         ("qu", "k"), ("x", "ks")):
                s = s.replace(a, b)
            s = re.sub(r"[cg](?=[eiy])", lambda m: "s" if m.group(0) == "c" else "j", s)
        parts.append(s)
    # Fold first, then read a doubled consonant once ("pp", and "l" + "r" from "클로").
    folded = re.sub(r"(.)\1+", r"\1", "".join(parts).translate(_FOLD))
    return re.sub(r"[a-z]", "", folded)


def similarity(a: str, b: str) -> float:
    """Edit similarity ``1 - levenshtein / longer length`` of two strings (1.0 when equal).

    Examples:
        >>> similarity("NTRPK", "NSRPK"), similarity("", "")
        (0.8, 1.0)
    """
    if a == b:
        return 1.0
    prev = list(range(len(b) + 1))
    for x, ca in enumerate(a, start=1):
        cur = [x]
        for y, cb in enumerate(b, start=1):
            cur.append(min(prev[y] + 1, cur[y - 1] + 1, prev[y - 1] + (ca != cb)))
        prev = cur
    return 1.0 - prev[-1] / max(len(a), len(b))


_WORD = re.compile(r"\S+")
_NOUN_START = frozenset({"NNP", "NNG", "SL", "SH"})
# Where the name part of a word ends: a particle, an ending, a copula, a suffix,
# a bound noun, a verb or adjective stem, punctuation or a number.
_STOP = ("J", "E", "V", "X", "NNB", "SF", "SP", "SS", "SE", "SO", "SW", "SN")


def korean_phrases(text: str, max_words: int = 3, tokens: list | None = None
                   ) -> list[tuple[int, str]]:
    """Candidate spellings of names in a text: Hangul-led runs of noun words, as written.

    Each whitespace word is read with kiwipiepy; it is a candidate when it
    starts with a noun (``NNP``, ``NNG``) or a foreign-script token, and its
    name part runs to the first particle, ending, suffix or verb ("제미나이를"
    -> "제미나이"; the analyser's split of an unknown name, "제미나" + "이", is
    kept whole). A phrase is up to ``max_words`` consecutive candidate words
    starting with Hangul, every word but the last whole (no particle inside).

    Args:
        text: The text.
        max_words: Longest phrase, in words.
        tokens: The text's kiwipiepy tokens, if already computed.

    Returns:
        ``(start offset, phrase)`` per candidate, in text order.

    Examples:
        >>> [p for _, p in korean_phrases("구글이 나노 바나나를 공개했다", max_words=2)]
        ['구글', '나노', '나노 바나나', '바나나', '공개']
    """
    if not _HANGUL.search(text):
        return []
    tokens = kiwi().tokenize(text) if tokens is None else tokens
    words: list[tuple[int, int, bool] | None] = []  # (start, end of name part, whole word?)
    k = 0
    for m in _WORD.finditer(text):
        while k < len(tokens) and tokens[k].start < m.start():
            k += 1
        toks = []
        while k < len(tokens) and tokens[k].start < m.end():
            toks.append(tokens[k])
            k += 1
        if not toks or toks[0].start != m.start() or toks[0].tag not in _NOUN_START:
            words.append(None)
            continue
        end = m.start()
        for t in toks:
            if t.tag.startswith(_STOP):
                break
            end = t.start + t.len
        end = min(end, m.end())
        words.append((m.start(), end, end == m.end()))
    out: list[tuple[int, str]] = []
    for a, first in enumerate(words):
        if first is None or not _HANGUL.match(text[first[0]]):
            continue
        whole = True  # every word before this one is whole (no particle inside the phrase)
        for b in range(a, min(a + max_words, len(words))):
            w = words[b]
            if w is None or not whole:
                break
            out.append((first[0], text[first[0]:w[1]]))
            whole = w[2]
    return out


def _latin_surface(texts: Sequence[str], name: str) -> str:
    """The most frequent written form of a Latin name (``"nano banana"`` -> ``"Nano Banana"``)."""
    pattern = re.compile(r"(?<![A-Za-z0-9])" + r"[ -]".join(map(re.escape, name.split(" ")))
                         + r"(?![A-Za-z])", re.IGNORECASE)
    forms = Counter(m.group(0) for t in texts for m in pattern.finditer(t))
    # Ties go to the form that sorts first, so the choice is stable.
    return min(forms.items(), key=lambda kv: (-kv[1], kv[0]))[0] if forms else name


@dataclass(frozen=True)
class AliasRule:
    """When a Hangul phrase and a Latin name are one name.

    Attributes:
        min_cooccurrence: Items that must contain both when the skeletons are equal.
        min_cooccurrence_fuzzy: Items that must contain both when they are only
            similar (a sound-alike by chance needs more evidence).
        min_similarity: Skeleton edit similarity needed, in ``(0, 1]``.
        min_skeleton: Fewest consonants a skeleton needs (two-consonant
            skeletons such as "PN" fit too many words).
        max_words: Longest Hangul phrase tried, in words.
    """

    min_cooccurrence: int = 1
    min_cooccurrence_fuzzy: int = 2
    min_similarity: float = 0.8
    min_skeleton: int = 3
    max_words: int = 3

    def __post_init__(self) -> None:
        """Validate the thresholds."""
        for name in ("min_cooccurrence", "min_cooccurrence_fuzzy", "min_skeleton", "max_words"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if not 0 < self.min_similarity <= 1:
            raise ValueError(f"min_similarity must be in (0, 1], got {self.min_similarity}")


def learn_aliases(texts: Sequence[str], rule: AliasRule | None = None,
                  unit: str = "run") -> dict[str, str]:
    """Hangul spelling -> Latin spelling of the names a corpus writes both ways.

    Args:
        texts: The items' texts (title + summary), before any alias is applied.
        rule: Thresholds; :class:`AliasRule` by default.
        unit: Entity unit of the Latin names (:class:`newsdedup.signals.entities.EntityConfig`).

    Returns:
        Phrase as written -> Latin name as most often written, sorted by phrase.
        For each phrase the Latin name with the highest skeleton similarity
        (then the most shared items, then the name) is kept.

    Examples:
        >>> learn_aliases(["Gemini 앱 출시. 제미나이 앱이 나왔다", "제미나이와 Claude 비교"])
        {'제미나이': 'Gemini'}
        >>> learn_aliases(["Gemini 출시", "제미나이 출시"])  # never in one item: no evidence
        {}
    """
    rule = rule or AliasRule()
    latin = [{e.name for e in latin_entities(t, unit)} for t in texts]
    hangul = [k for k, t in enumerate(texts) if _HANGUL.search(t)]
    found: list[list[tuple[int, str]]] = [[] for _ in texts]
    # One batch call: the analyser tokenizes a list faster than text by text.
    for k, toks in zip(hangul, kiwi().tokenize([texts[k] for k in hangul]), strict=True):
        found[k] = korean_phrases(texts[k], rule.max_words, toks)
    cooc: Counter = Counter((p, n) for ps, ns in zip(found, latin, strict=True)
                            for p in {p for _, p in ps} for n in ns)
    best: dict[str, tuple] = {}
    for (phrase, name), count in cooc.items():
        # One word per word: "제미나이 앱" is not a spelling of "Gemini".
        if count < rule.min_cooccurrence or phrase.count(" ") != name.count(" "):
            continue
        a, b = skeleton(phrase), skeleton(name)
        if min(len(a), len(b)) < rule.min_skeleton:
            continue
        sim = similarity(a, b)
        if sim < rule.min_similarity or (sim < 1 and count < rule.min_cooccurrence_fuzzy):
            continue
        key = (-sim, -count, name)
        if phrase not in best or key < best[phrase]:
            best[phrase] = key
    # Where several candidates at one place match ("제미나이", "제미나"), the longest is
    # the spelling; the shorter ones are fragments of it and are not kept.
    kept: set[str] = set()
    for ps in found:
        at: dict[int, str] = {}
        for start, p in ps:
            if p in best and len(p) > len(at.get(start, "")):
                at[start] = p
        kept.update(at.values())
    return {p: _latin_surface(texts, best[p][2]) for p in sorted(kept)}


@dataclass(frozen=True)
class WeightRule:
    """How a name's weight falls with its document frequency.

    Attributes:
        brand_share: Share of one publisher's items at which a name weighs 0
            for that publisher (its brand).
        brand_concentration: Share of a name's items that must be one
            publisher's for the name to be that publisher's brand (a brand is
            its own: "Bachelor" in many items of one site and of many others is
            news, not the site's brand).
        generic_share: Share of all items at which a name weighs 0 everywhere.
        min_items: Fewest items a publisher needs before its brands are learned.
        min_capitalized: A one-word name written capitalized in less than this
            share of its occurrences (first word of a text not counted) weighs
            0: a common word capitalized by title case ("To", "For").
    """

    brand_share: float = 0.1
    brand_concentration: float = 0.5
    generic_share: float = 0.05
    min_items: int = 50
    min_capitalized: float = 0.5

    def __post_init__(self) -> None:
        """Validate the shares and ``min_items``."""
        for name in ("brand_share", "generic_share", "brand_concentration"):
            value = getattr(self, name)
            if not 0 < value <= 1:
                raise ValueError(f"{name} must be in (0, 1], got {value!r}")
        if not 0 <= self.min_capitalized <= 1:
            raise ValueError(f"min_capitalized must be in [0, 1], got {self.min_capitalized!r}")
        if self.min_items < 1:
            raise ValueError(f"min_items must be >= 1, got {self.min_items}")


def idf_weight(df: np.ndarray, n_items: int, share: float) -> np.ndarray:
    """Document frequency -> weight in ``[0, 1]``: 1 for one item, 0 from ``share`` of the items.

    A scope too small to hold two items at ``share`` (``share * n_items <= 1``)
    learns nothing: every weight is 1.

    Examples:
        >>> idf_weight(np.array([1, 3, 10, 20]), 100, 0.1).round(3).tolist()
        [1.0, 0.523, 0.0, 0.0]
        >>> idf_weight(np.array([1, 2]), 5, 0.1).tolist()
        [1.0, 1.0]
    """
    cap = share * n_items
    df = np.asarray(df, dtype=np.float64)
    if cap <= 1:
        return np.ones(df.shape)
    with np.errstate(divide="ignore"):
        w = np.log(cap / np.maximum(df, 1.0)) / math.log(cap)
    return np.clip(w, 0.0, 1.0)


@dataclass(frozen=True)
class NameWeights:
    """Learned weights of a corpus's names.

    Attributes:
        corpus: Weight per name over all items (``names``,).
        publishers: Publishers whose brands were learned, sorted.
        publisher: ``publishers x names`` weights within each of them.
        item: ``items x names`` CSR: each item's lines with their weight for
            its publisher (the smaller of the two); an explicit 0 is a line the
            item names that weighs nothing.
    """

    corpus: np.ndarray
    publishers: list[str]
    publisher: np.ndarray
    item: sp.csr_matrix

    def common(self, vocab: Sequence[str]) -> dict[str, list[str]]:
        """Names weighing 0: ``{"*": corpus-wide, publisher: its brands}``, each sorted."""
        out = {"*": [vocab[int(k)] for k in np.flatnonzero(self.corpus == 0)]}
        for p, row in zip(self.publishers, self.publisher, strict=True):
            out[p] = [vocab[int(k)] for k in np.flatnonzero((row == 0) & (self.corpus > 0))]
        return out


_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")


def capitalized_share(texts: Sequence[str]) -> dict[str, float]:
    """Per Latin word (lower case): the share of its occurrences written with a capital.

    A capital anywhere counts ("macOS", "iOS"), as it does for a name piece.
    The first word of each text is not counted (it is capitalized whatever it is).

    Examples:
        >>> capitalized_share(["Fed Holds Rates", "Plosser: Fed to hold", "Apple to Buy"])
        {'holds': 1.0, 'rates': 1.0, 'fed': 1.0, 'to': 0.0, 'hold': 0.0, 'buy': 1.0}
    """
    cap: Counter = Counter()
    total: Counter = Counter()
    for t in texts:
        for k, m in enumerate(_LATIN_WORD.finditer(t)):
            if k:
                w = m.group(0)
                total[w.lower()] += 1
                cap[w.lower()] += any(c.isupper() for c in w)  # "macOS" counts, as a name
    return {w: cap[w] / n for w, n in total.items()}


def strip_brands(entities: Sequence[Sequence[Entity]], zero: Sequence[set[str] | frozenset[str]]
                 ) -> list[list[Entity]]:
    """Each item's entities with their lines also read without a leading zero-weight name.

    "Google DeepMind" where "google" weighs 0 is also the line ``deepmind``;
    "Claude Opus 4.7" where "claude" weighs 0 is also ``opus``, so it shares a
    line (and a version check) with "Opus 4.8".

    Args:
        entities: Entities per item.
        zero: Per item, the names that weigh 0 for it.

    Examples:
        >>> [e.lines for e in strip_brands([[Entity("claude opus", "4.7")]], [{"claude"}])[0]]
        [['claude opus', 'opus']]
    """
    out = []
    for row, z in zip(entities, zero, strict=True):
        new = []
        for e in row:
            rest = []
            for line in e.lines:
                words = line.split(" ")
                rest += [" ".join(words[k:]) for k in range(1, len(words))
                         if " ".join(words[:k]) in z]
            new.append(replace(e, rest=tuple(dict.fromkeys(r for r in rest if r not in e.lines)))
                       if rest else e)
        out.append(new)
    return out


def learn_weights(em: EntityMatrix, orgs: Sequence[str], rule: WeightRule | None = None,
                  capitalized: Mapping[str, float] | None = None) -> NameWeights:
    """Weights of every name, per publisher and corpus-wide, from line document frequency.

    Args:
        em: Entity matrices of the corpus.
        orgs: Publisher (organisation) per item.
        rule: Thresholds; :class:`WeightRule` by default.
        capitalized: :func:`capitalized_share` of the corpus's texts; one-word
            names below ``rule.min_capitalized`` weigh 0 (skipped when None).

    Examples:
        >>> from newsdedup.signals.entities import Entity, entity_matrix
        >>> g = [[Entity("gemini"), Entity("veo")], [Entity("gemini")], [Entity("gemini")],
        ...      [Entity("lyria")]]
        >>> em = entity_matrix(g + [[Entity("x")]] * 16)
        >>> w = learn_weights(em, ["g"] * 4 + ["o"] * 16, WeightRule(0.5, 0.5, 0.2, 4))
        >>> dict(zip(em.name_vocab, w.corpus.round(2).tolist()))
        {'gemini': 0.21, 'lyria': 1.0, 'veo': 1.0, 'x': 0.0}
        >>> w.common(em.name_vocab)  # x: in 16 of 20 items; gemini: in 3 of g's 4, and only g's
        {'*': ['x'], 'g': ['gemini'], 'o': []}
    """
    rule = rule or WeightRule()
    lines = em.lines.tocsr()
    n_items, n_names = lines.shape
    df_all = np.asarray(lines.sum(axis=0)).ravel()
    corpus = idf_weight(df_all, n_items, rule.generic_share)
    if capitalized is not None:
        lower = [k for k, n in enumerate(em.name_vocab)
                 if " " not in n and capitalized.get(n, 1.0) < rule.min_capitalized]
        corpus[lower] = 0.0
    org_arr = np.asarray([str(o) for o in orgs], dtype=object)
    uniq, code = np.unique(org_arr.astype(str), return_inverse=True)
    counts = np.bincount(code, minlength=len(uniq))
    learned = [k for k in range(len(uniq)) if counts[k] >= rule.min_items]
    publisher = np.ones((len(learned), n_names))
    row_of = np.full(len(uniq), -1, dtype=np.int64)
    for r, k in enumerate(learned):
        df = np.asarray(lines[code == k].sum(axis=0)).ravel()
        own = df >= rule.brand_concentration * np.maximum(df_all, 1)
        publisher[r] = np.where(own, idf_weight(df, int(counts[k]), rule.brand_share), 1.0)
        row_of[k] = r
    item = lines.astype(np.float64).tocsr()
    rows = np.repeat(np.arange(n_items), np.diff(item.indptr))
    w = corpus[item.indices]
    prow = row_of[code[rows]] if n_items else np.zeros(0, np.int64)
    has = prow >= 0
    w[has] = np.minimum(w[has], publisher[prow[has], item.indices[has]])
    item.data = w
    return NameWeights(corpus, [str(uniq[k]) for k in learned], publisher, item)

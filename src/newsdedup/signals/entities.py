"""Named entities of a news item: products, models, organisations and their versions.

The published cross-host analysis (seed 004, block 3) ends with a pair that
the surface string cannot catch: two Google sites announcing AlphaEvolve's
first year in their own words score 0.129, below the unrelated-pair bound
0.234. Both items name *AlphaEvolve*; that shared name, not the shared
characters, is the evidence. This module extracts such names.

**Latin names.** A run of Latin tokens that carry an upper-case letter
("AlphaEvolve", "Gemini Robotics-ER", "macOS"), with version numbers inside
or right after them ("GPT-5.5", "Gemini 3.1 Flash Live", "ER 2"), is one
:class:`Entity`: its ``name`` is the run without the version tokens,
lower-cased, hyphens read as spaces (``"gemini robotics er"``), its
``version`` the first version token (``"1.6"``). With ``unit="token"`` every
name token is its own entity instead, which suits English title-case
headlines (the UCI aggregator), where a run would swallow the whole title.

**Korean proper nouns.** Hangul text is tokenized with the kiwipiepy
morphological analyser (its model ships as a PyPI package); tokens tagged
``NNP`` are entities. Loanwords the analyser tags as proper nouns but that
name nothing in particular ("벤치마크", "플러그인") are in :data:`GENERIC`.

**Scripts.** The archive writes the same name in both scripts ("제미나이" and
"Gemini", "앤트로픽" and "앤스로픽" and "Anthropic"). :data:`SCRIPT_MAP`
rewrites the Korean spellings to the Latin one *before* extraction, so both
end up as one name (and a rewritten "구글 클라우드" joins the Latin run
"Google Cloud").

**Brands.** A publisher's own brand ("Google", "DeepMind" and "Gemini" on
Google's sites) appears in most of its items and says nothing about which
announcement two items report; :data:`BRANDS` lists them per organisation,
and :mod:`newsdedup.signals.pairs` drops them from the shared entities of a pair.

**Versions.** The same product line with different versions (Gemini
Robotics-ER 1.6 against Gemini Robotics ER 2) is a different announcement:
:func:`version_conflicts` flags a name both items version with disjoint sets
of versions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import scipy.sparse as sp

SCRIPT_MAP: dict[str, str] = {
    "구글 딥마인드": "Google DeepMind",
    "구글 클라우드": "Google Cloud",
    "구글 랩스": "Google Labs",
    "구글": "Google",
    "딥마인드": "DeepMind",
    "제미나이": "Gemini",
    "앤트로픽": "Anthropic",
    "앤스로픽": "Anthropic",
    "클로드": "Claude",
    "오픈AI": "OpenAI",
    "오픈에이아이": "OpenAI",
    "챗GPT": "ChatGPT",
    "챗지피티": "ChatGPT",
    "아마존": "Amazon",
    "마이크로소프트": "Microsoft",
    "엔비디아": "NVIDIA",
    "유튜브": "YouTube",
    "안드로이드": "Android",
    "애플": "Apple",
    "메타": "Meta",
    "오푸스": "Opus",
    "알파폴드": "AlphaFold",
    "알파이볼브": "AlphaEvolve",
    "플로우": "Flow",
    "플래시": "Flash",
    "나노 바나나": "Nano Banana",
    "위스크": "Whisk",
    "버텍스": "Vertex",
}
"""Korean spelling -> Latin spelling of names the archive writes both ways.

Longer keys are applied first, so "구글 딥마인드" becomes one run, not two.
"""

BRANDS: dict[str, frozenset[str]] = {
    "google": frozenset({"google", "deepmind", "google deepmind", "gemini", "gemini api",
                         "ai studio", "google ai studio", "google cloud"}),
    "openai": frozenset({"openai", "chatgpt"}),
    "anthropic": frozenset({"anthropic", "claude"}),
}
"""Organisation -> its own brand names (entity names, lower case).

"Gemini", "ChatGPT" and "Claude" are umbrella brands here: on their
publishers' sites they appear in most items whatever the announcement; so do
the platforms Google launches on ("Gemini API", "AI Studio", "Google Cloud").
A named product of the line ("Claude Opus", "Gemini Robotics ER") is a
different entity name and still counts.
"""

GENERIC: frozenset[str] = frozenset({
    # Latin acronyms and words that name a category, not a thing.
    "ai", "api", "apis", "llm", "llms", "ceo", "cfo", "cto", "sdk", "gpu", "gpus", "tpu",
    "tpus", "cpu", "vla", "the", "a", "an", "in", "on", "of", "for", "and", "to", "with",
    "at", "by", "from", "as", "is", "are", "how", "why", "what", "who", "when", "new", "after",
    "over", "up", "its", "it", "this", "that", "us", "will", "be", "not", "no", "says", "i",
    # Loanwords kiwipiepy tags NNP that are common nouns in this archive.
    "벤치마크", "플러그인", "엔터프라이즈", "데스크톱", "인텔리전스", "템플릿", "클라우드",
    "바운티", "매핑", "호스팅", "태그", "스트리밍", "온프레미스", "프롬프트", "루프",
    "프로토타입", "컨텍스트", "대시보드", "스케일링", "임베디드", "휴머노이드", "가드레일",
    "웨비나", "스키마", "엣지", "푸시", "스택", "양자화", "런레이트", "익스플로잇", "피싱",
    "매니지드", "미",
    # Countries and regions: proper nouns, but in this archive a shared "미국" says
    # no more about the announcement than a shared "Google" does.
    "미국", "영국", "인도", "한국", "유럽", "중국", "일본", "호주", "캐나다", "브라질",
})
"""Names never counted as entities (lower case): generic acronyms, English
function words that start a title-case headline, and loanwords the analyser
tags as proper nouns."""

UNITS: tuple[str, ...] = ("run", "token")

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9]*(?:[-.'][A-Za-z0-9]+)*")
_VERSION = re.compile(r"\d+(?:\.\d+)*")
_HANGUL = re.compile(r"[가-힣]")


@dataclass(frozen=True, order=True)
class Entity:
    """One named thing in a text.

    Attributes:
        name: Canonical name: lower case, hyphens as spaces, version removed,
            e.g. ``"gemini robotics er"``.
        version: First version number of the mention (``"1.6"``), ``""`` if none.
        surface: The mention as written (after the script map), e.g. ``"Robotics-ER 1.6"``.
    """

    name: str
    version: str = ""
    surface: str = field(default="", compare=False)

    def __str__(self) -> str:
        """Name and version, e.g. ``"gemini robotics er 1.6"``."""
        return f"{self.name} {self.version}".strip()


@dataclass(frozen=True)
class EntityConfig:
    """How entities are extracted.

    Attributes:
        unit: ``"run"`` (a run of capitalized Latin tokens is one name) or
            ``"token"`` (each capitalized token is one name; English headlines).
        korean: Extract Korean proper nouns with kiwipiepy.
        script_map: Korean -> Latin spellings applied before extraction.
        generic: Names never counted.
    """

    unit: str = "run"
    korean: bool = True
    script_map: Mapping[str, str] = field(default_factory=lambda: dict(SCRIPT_MAP))
    generic: frozenset[str] = GENERIC

    def __post_init__(self) -> None:
        """Validate the unit."""
        if self.unit not in UNITS:
            raise ValueError(f"unknown entity unit {self.unit!r}; choose one of {UNITS}")


def apply_script_map(text: str, script_map: Mapping[str, str] = SCRIPT_MAP) -> str:
    """Rewrite Korean spellings of names to their Latin spelling, longest key first.

    Examples:
        >>> apply_script_map("구글 딥마인드가 제미나이를 공개")
        'Google DeepMind가 Gemini를 공개'
    """
    if not script_map:
        return text
    keys = sorted(script_map, key=lambda k: (-len(k), k))
    pattern = re.compile("|".join(map(re.escape, keys)))
    return pattern.sub(lambda m: script_map[m.group(0)], text)


def _split_token(token: str) -> list[str]:
    """A Latin token into name and version pieces: ``"GPT-5.5"`` -> ``["GPT", "5.5"]``."""
    # An English possessive names the same thing: "Fed's" is "Fed".
    token = re.sub(r"'s$", "", token)
    return [p for p in re.split(r"-(?=[A-Za-z0-9])", token) if p]


def _is_name(piece: str) -> bool:
    # One letter ("S" of "S-1", "X") names nothing that two items could share by chance.
    return len(piece) > 1 and any(c.isupper() for c in piece) and not _VERSION.fullmatch(piece)


def latin_entities(text: str, unit: str = "run",
                   generic: frozenset[str] = GENERIC) -> list[Entity]:
    r"""Entities written in Latin script, in text order.

    A run is a sequence of tokens separated by single spaces; a name piece
    carries an upper-case letter, a version piece is ``\d+(\.\d+)*`` and only
    counts after a name piece. Anything else (a lower-case word, Hangul,
    punctuation other than ``-``/``.`` inside a token) ends the run.

    Args:
        text: Raw text (after :func:`apply_script_map`).
        unit: ``"run"`` or ``"token"`` (see :class:`EntityConfig`).
        generic: Names dropped from the result (whole names and, in
            ``token`` mode, single tokens).

    Returns:
        The entities; a name may appear more than once.

    Examples:
        >>> [str(e) for e in latin_entities("Gemini 3.1 Flash Live, Gemini API에 공개")]
        ['gemini flash live 3.1', 'gemini api']
        >>> [str(e) for e in latin_entities("GPT-5.5 Instant 시스템 카드와 Robotics-ER 1.6")]
        ['gpt instant 5.5', 'robotics er 1.6']
        >>> [str(e) for e in latin_entities("Fed's Charles Plosser sees high bar", "token")]
        ['fed', 'charles', 'plosser']
    """
    out: list[Entity] = []
    run: list[tuple[str, str]] = []  # (kind, piece) with kind "n" name / "v" version
    surface: list[str] = []

    def flush() -> None:
        names = [p for k, p in run if k == "n"]
        versions = [p for k, p in run if k == "v"]
        if unit == "run":
            name = " ".join(names).lower()
            if names and name not in generic:
                out.append(Entity(name, versions[0] if versions else "", " ".join(surface)))
        else:
            for pos, (k, p) in enumerate(run):
                nxt = run[pos + 1] if pos + 1 < len(run) else ("", "")
                if k == "n" and p.lower() not in generic:
                    out.append(Entity(p.lower(), nxt[1] if nxt[0] == "v" else "", p))
        run.clear()
        surface.clear()

    last_end = -1
    for m in _TOKEN.finditer(text):
        gap = text[last_end:m.start()] if last_end >= 0 else None
        if gap is not None and gap != " ":
            flush()
        last_end = m.end()
        pieces = _split_token(m.group(0))
        kept = False
        for piece in pieces:
            if _is_name(piece):
                run.append(("n", piece))
                kept = True
            elif _VERSION.fullmatch(piece) and run and run[-1][0] == "n":
                run.append(("v", piece))
                kept = True
            else:
                # A lower-case word or a leading number ends the run: what follows is a new one.
                flush()
                kept = False
        if kept:
            surface.append(m.group(0))
        else:
            flush()
            last_end = m.end()
    flush()
    return out


@lru_cache(maxsize=1)
def _kiwi():
    # Loading the analyser's model takes about two seconds: once per process.
    from kiwipiepy import Kiwi

    return Kiwi()


def korean_entities(text: str, generic: frozenset[str] = GENERIC) -> list[Entity]:
    """Korean proper nouns (kiwipiepy tag ``NNP``) of a text, in text order.

    Texts without Hangul are not sent to the analyser.

    Examples:
        >>> [str(e) for e in korean_entities("캄보디아 사기 조직과 벤치마크")]
        ['캄보디아']
    """
    if not _HANGUL.search(text):
        return []
    return [Entity(t.form, "", t.form) for t in _kiwi().tokenize(text)
            if t.tag == "NNP" and _HANGUL.search(t.form) and t.form not in generic]


def extract(text: str, config: EntityConfig | None = None) -> list[Entity]:
    """All entities of one text: script map, then Latin names, then Korean proper nouns.

    Examples:
        >>> [str(e) for e in extract("딥마인드가 Gemini 기반 에이전트 AlphaEvolve를 공개")]
        ['deepmind', 'gemini', 'alphaevolve']
    """
    config = config or EntityConfig()
    mapped = apply_script_map(text, config.script_map)
    out = latin_entities(mapped, config.unit, config.generic)
    if config.korean:
        out += korean_entities(mapped, config.generic)
    return out


def extract_all(texts: Sequence[str], config: EntityConfig | None = None) -> list[list[Entity]]:
    """:func:`extract` for every text, in order."""
    config = config or EntityConfig()
    return [extract(t, config) for t in texts]


@dataclass(frozen=True)
class EntityMatrix:
    """Entities of a collection as sparse incidence matrices (one row per item).

    Attributes:
        names: ``items x name`` 0/1 CSR matrix: the item mentions the name.
        versioned: ``items x name`` 0/1: the item mentions the name with a version.
        name_versions: ``items x (name, version)`` 0/1.
        name_vocab: Names, one per column of ``names`` (sorted).
        nv_vocab: ``(name, version)`` per column of ``name_versions`` (sorted).
        nv_name: Column of ``names`` for each ``(name, version)`` column.
    """

    names: sp.csr_matrix
    versioned: sp.csr_matrix
    name_versions: sp.csr_matrix
    name_vocab: list[str]
    nv_vocab: list[tuple[str, str]]
    nv_name: np.ndarray


def _incidence(rows: list[list], vocab_index: dict, n_rows: int) -> sp.csr_matrix:
    r = np.fromiter((k for k, row in enumerate(rows) for _ in row), np.int64)
    c = np.fromiter((vocab_index[x] for row in rows for x in row), np.int64)
    m = sp.csr_matrix((np.ones(len(r), np.int32), (r, c)), shape=(n_rows, len(vocab_index)))
    m.sum_duplicates()
    m.data[:] = 1
    return m


def entity_matrix(entities: Sequence[Sequence[Entity]]) -> EntityMatrix:
    """Build the incidence matrices of :class:`EntityMatrix` from per-item entity lists.

    Examples:
        >>> em = entity_matrix([[Entity("gpt", "5.5")], [Entity("gpt", "5.3"), Entity("x")]])
        >>> em.name_vocab, em.names.toarray().tolist(), em.versioned.toarray().tolist()
        (['gpt', 'x'], [[1, 0], [1, 1]], [[1, 0], [1, 0]])
    """
    name_vocab = sorted({e.name for row in entities for e in row})
    nv_vocab = sorted({(e.name, e.version) for row in entities for e in row if e.version})
    ni = {n: k for k, n in enumerate(name_vocab)}
    vi = {nv: k for k, nv in enumerate(nv_vocab)}
    n = len(entities)
    names = _incidence([[e.name for e in row] for row in entities], ni, n)
    versioned = _incidence([[e.name for e in row if e.version] for row in entities], ni, n)
    nv = _incidence([[(e.name, e.version) for e in row if e.version] for row in entities], vi, n)
    nv_name = np.asarray([ni[name] for name, _ in nv_vocab], dtype=np.int64)
    return EntityMatrix(names, versioned, nv, name_vocab, nv_vocab, nv_name)


def version_conflicts(em: EntityMatrix, i: np.ndarray, j: np.ndarray) -> sp.csr_matrix:
    """Names on which pairs ``(i, j)`` conflict: both version it, with no version in common.

    Args:
        em: The collection's entity matrices.
        i: First item per pair.
        j: Second item per pair.

    Returns:
        ``pairs x name`` 0/1 CSR matrix; a row with any 1 is a version conflict.

    Examples:
        >>> em = entity_matrix([[Entity("er", "1.6")], [Entity("er", "2")],
        ...                     [Entity("er", "2"), Entity("er", "1.6")]])
        >>> version_conflicts(em, np.array([0, 0, 1]), np.array([1, 2, 2])).toarray().tolist()
        [[1], [0], [0]]
    """
    both = em.versioned[i].multiply(em.versioned[j]).tocsr()
    shared_nv = em.name_versions[i].multiply(em.name_versions[j]).tocsr()
    to_name = sp.csr_matrix((np.ones(len(em.nv_name), np.int32),
                             (np.arange(len(em.nv_name)), em.nv_name)),
                            shape=(len(em.nv_vocab), len(em.name_vocab)))
    agreed = (shared_nv @ to_name).tocsr()
    agreed.data[:] = 1
    out = (both - both.multiply(agreed)).tocsr()
    out.eliminate_zeros()
    return out


def brand_mask(orgs: Sequence[str], name_vocab: Sequence[str],
               brands: Mapping[str, frozenset[str]] = BRANDS) -> sp.csr_matrix:
    """``orgs x name`` 0/1 matrix: the name is a brand of the organisation.

    Examples:
        >>> brand_mask(["google", "acme"], ["alphaevolve", "gemini"]).toarray().tolist()
        [[0, 1], [0, 0]]
    """
    rows = [[k for k, name in enumerate(name_vocab) if name in brands.get(org, ())]
            for org in orgs]
    r = np.fromiter((a for a, row in enumerate(rows) for _ in row), np.int64)
    c = np.fromiter((k for row in rows for k in row), np.int64)
    return sp.csr_matrix((np.ones(len(r), np.int32), (r, c)),
                         shape=(len(orgs), len(name_vocab)))

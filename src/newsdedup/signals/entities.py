"""Named entities of a news item: products, models, organisations, their versions and lines.

The published cross-host analysis (seed 004, block 3) ends with a pair that
the surface string cannot catch: two Google sites announcing AlphaEvolve's
first year in their own words score 0.129, below the unrelated-pair bound
0.234. Both items name *AlphaEvolve*; that shared name, not the shared
characters, is the evidence. This module extracts such names; which of them
say something about the announcement (not a publisher's brand, not a word
every item uses) and how Korean spellings join Latin ones is learned from
the corpus in :mod:`newsdedup.signals.lexicon`.

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
``NNP`` are entities.

**Aliases.** Before extraction, :func:`apply_aliases` rewrites other
spellings of a name ("제미나이", learned from the corpus, or listed in the
signal config file) to the Latin spelling, so both end up as one name.

**Product lines.** A name and the same name plus a variant suffix share the
*line*: "Lyria 3" and "Lyria 3 Pro" both name the line ``lyria``; "Veo 3.1"
and "Veo 3.1 Ingredients to Video" the line ``veo``. A variant suffix is
the name that follows the version ("Lyria 3 *Pro*"); a name before the
version belongs to the line ("Gemini Robotics *ER* 2" is its own line, not
a variant of "Gemini Robotics 2"). Two different variants ("Flash Live",
"Flash-Lite") do not share a line through their common part unless one of
the items names that part alone. :class:`EntityMatrix` keeps each item's
names and their *lines*; :func:`shared_lines` gives the lines a pair shares.

**Versions.** The same product line with different versions (Gemini
Robotics-ER 1.6 against Gemini Robotics ER 2, Lyria 3 Pro against Lyria 3.5)
is a different announcement: :func:`version_conflicts` flags a shared line
both items version with disjoint sets of versions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import scipy.sparse as sp

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
        surface: The mention as written (after the aliases), e.g. ``"Robotics-ER 1.6"``.
        line: The product line when the mention is a variant: the name before the
            version when more name follows it (``"Lyria 3 Pro"`` -> ``"lyria"``),
            ``""`` otherwise.
        rest: The name (and line) without a leading brand, when it has one
            (``"Google DeepMind"`` -> ``"deepmind"`` where Google is the brand);
            set by :func:`newsdedup.signals.lexicon.strip_brands`.
    """

    name: str
    version: str = ""
    surface: str = field(default="", compare=False)
    line: str = field(default="", compare=False)
    rest: tuple[str, ...] = field(default=(), compare=False)

    @property
    def lines(self) -> list[str]:
        """The lines of the mention: its name, its line if a variant, both without a brand."""
        out = [self.name]
        for x in (self.line, *self.rest):
            if x and x not in out:
                out.append(x)
        return out

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
        aliases: Other spelling -> Latin spelling, applied before extraction
            (learned per corpus by :func:`newsdedup.signals.lexicon.learn_aliases`
            plus the config file's ``[aliases]``).
    """

    unit: str = "run"
    korean: bool = True
    aliases: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Validate the unit."""
        if self.unit not in UNITS:
            raise ValueError(f"unknown entity unit {self.unit!r}; choose one of {UNITS}")


@lru_cache(maxsize=8)
def _alias_pattern(keys: tuple[str, ...]) -> re.Pattern:
    # A spelling must start a word ("제미나이" is left alone inside "데이터제미나이");
    # what follows may be a particle ("제미나이를"), so the end is not checked.
    return re.compile("(?<![가-힣A-Za-z0-9])(?:" + "|".join(map(re.escape, keys)) + ")")


def apply_aliases(text: str, aliases: Mapping[str, str]) -> str:
    """Rewrite other spellings of names to their Latin spelling, longest spelling first.

    A spelling is replaced where it starts a word (not inside another word);
    a particle may follow it.

    Examples:
        >>> apply_aliases("구글 딥마인드가 제미나이를 공개",
        ...               {"구글 딥마인드": "Google DeepMind", "제미나이": "Gemini"})
        'Google DeepMind가 Gemini를 공개'
        >>> apply_aliases("데이터제미나이", {"제미나이": "Gemini"})
        '데이터제미나이'
    """
    if not aliases:
        return text
    keys = tuple(sorted(aliases, key=lambda k: (-len(k), k)))
    return _alias_pattern(keys).sub(lambda m: aliases[m.group(0)], text)


def _split_token(token: str) -> list[str]:
    """A Latin token into name and version pieces: ``"GPT-5.5"`` -> ``["GPT", "5.5"]``."""
    # An English possessive names the same thing: "Fed's" is "Fed".
    token = re.sub(r"'s$", "", token)
    return [p for p in re.split(r"-(?=[A-Za-z0-9])", token) if p]


def _is_name(piece: str) -> bool:
    # One letter ("S" of "S-1", "X") names nothing that two items could share by chance.
    return len(piece) > 1 and any(c.isupper() for c in piece) and not _VERSION.fullmatch(piece)


def latin_entities(text: str, unit: str = "run") -> list[Entity]:
    r"""Entities written in Latin script, in text order.

    A run is a sequence of tokens separated by single spaces; a name piece
    carries an upper-case letter, a version piece is ``\d+(\.\d+)*`` and only
    counts after a name piece. Anything else (a lower-case word, Hangul,
    punctuation other than ``-``/``.`` inside a token) ends the run.

    Args:
        text: Raw text (after :func:`apply_aliases`).
        unit: ``"run"`` or ``"token"`` (see :class:`EntityConfig`).

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
            # The line: the name pieces before the first version, when a variant follows it
            # ("Lyria 3 Pro" -> "lyria"); "Robotics ER 2" has no variant, its line is its name.
            first_v = next((pos for pos, (k, _) in enumerate(run) if k == "v"), len(run))
            base = [p for k, p in run[:first_v] if k == "n"]
            line = " ".join(base).lower() if base and len(base) < len(names) else ""
            if names:
                out.append(Entity(name, versions[0] if versions else "", " ".join(surface), line))
        else:
            for pos, (k, p) in enumerate(run):
                nxt = run[pos + 1] if pos + 1 < len(run) else ("", "")
                if k == "n":
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
def kiwi():
    """The kiwipiepy analyser, loaded once per process (about two seconds)."""
    from kiwipiepy import Kiwi

    return Kiwi()


def korean_entities(text: str) -> list[Entity]:
    """Korean proper nouns (kiwipiepy tag ``NNP``) of a text, in text order.

    Texts without Hangul are not sent to the analyser.

    Examples:
        >>> [str(e) for e in korean_entities("캄보디아 사기 조직")]
        ['캄보디아']
    """
    if not _HANGUL.search(text):
        return []
    return [Entity(t.form, "", t.form) for t in kiwi().tokenize(text)
            if t.tag == "NNP" and _HANGUL.search(t.form)]


def extract(text: str, config: EntityConfig | None = None) -> list[Entity]:
    """All entities of one text: aliases, then Latin names, then Korean proper nouns.

    Examples:
        >>> [str(e) for e in extract("딥마인드가 Gemini 기반 에이전트 AlphaEvolve를 공개",
        ...                          EntityConfig(aliases={"딥마인드": "DeepMind"}))]
        ['deepmind', 'gemini', 'alphaevolve']
    """
    config = config or EntityConfig()
    mapped = apply_aliases(text, config.aliases)
    out = latin_entities(mapped, config.unit)
    if config.korean:
        out += korean_entities(mapped)
    return out


def extract_all(texts: Sequence[str], config: EntityConfig | None = None) -> list[list[Entity]]:
    """:func:`extract` for every text, in order."""
    config = config or EntityConfig()
    return [extract(t, config) for t in texts]


@dataclass(frozen=True)
class EntityMatrix:
    """Entities of a collection as sparse incidence matrices (one row per item).

    Attributes:
        names: ``items x name`` 0/1 CSR matrix: the item mentions the name
            (columns include product lines no item names alone).
        lines: ``items x name`` 0/1: the item mentions the name or a variant of
            it (:attr:`Entity.lines`).
        versioned: ``items x name`` 0/1: the item versions the line (a version on
            the name or on the name plus a suffix).
        line_versions: ``items x (name, version)`` 0/1, over lines as ``versioned``.
        name_vocab: Names, one per column of ``names`` (sorted).
        nv_vocab: ``(name, version)`` per column of ``line_versions`` (sorted).
        nv_name: Column of ``names`` for each ``(name, version)`` column.
    """

    names: sp.csr_matrix
    lines: sp.csr_matrix
    versioned: sp.csr_matrix
    line_versions: sp.csr_matrix
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
        >>> em = entity_matrix([[Entity("lyria", "3")],
        ...                     [Entity("lyria pro", "3", "Lyria 3 Pro", "lyria"), Entity("x")]])
        >>> em.name_vocab, em.names.toarray().tolist(), em.lines.toarray().tolist()
        (['lyria', 'lyria pro', 'x'], [[1, 0, 0], [0, 1, 1]], [[1, 0, 0], [1, 1, 1]])
        >>> em.nv_vocab, em.line_versions.toarray().tolist()
        ([('lyria', '3'), ('lyria pro', '3')], [[1, 0], [1, 1]])
    """
    name_vocab = sorted({n for row in entities for e in row for n in e.lines})
    line_rows = [[p for e in row for p in e.lines] for row in entities]
    lv_rows = [[(p, e.version) for e in row if e.version for p in e.lines] for row in entities]
    nv_vocab = sorted({nv for row in lv_rows for nv in row})
    ni = {n: k for k, n in enumerate(name_vocab)}
    vi = {nv: k for k, nv in enumerate(nv_vocab)}
    n = len(entities)
    names = _incidence([[e.name for e in row] for row in entities], ni, n)
    versioned = _incidence([[p for p, _ in row] for row in lv_rows], ni, n)
    nv = _incidence(lv_rows, vi, n)
    nv_name = np.asarray([ni[name] for name, _ in nv_vocab], dtype=np.int64)
    return EntityMatrix(names, _incidence(line_rows, ni, n), versioned, nv, name_vocab,
                        nv_vocab, nv_name)


def shared_lines(names: sp.csr_matrix, lines: sp.csr_matrix, i: np.ndarray,
                 j: np.ndarray) -> sp.csr_matrix:
    """Lines pairs ``(i, j)`` share: a name of one item that is a line of the other.

    "Lyria 3" against "Lyria 3 Pro" shares ``lyria``; "Flash Live" against
    "Flash-Lite" shares nothing through ``gemini flash`` unless one item
    says "Gemini Flash" alone.

    Args:
        names: ``items x name`` 0/1 (:attr:`EntityMatrix.names`, or a subset of it).
        lines: ``items x name`` 0/1 (:attr:`EntityMatrix.lines`, same subset).
        i: First item per pair.
        j: Second item per pair.

    Returns:
        ``pairs x name`` 0/1 CSR matrix.

    Examples:
        >>> em = entity_matrix([[Entity("lyria", "3")], [Entity("lyria pro", "3", "", "lyria")],
        ...                     [Entity("lyria clip", "3", "", "lyria")]])
        >>> shared_lines(em.names, em.lines, np.array([0, 1]), np.array([1, 2])).toarray().tolist()
        [[1, 0, 0], [0, 0, 0]]
    """
    # Lines both items have, minus those neither names (a variant's line on both sides):
    # two row gathers of ``lines`` and two of the much sparser "lines not named".
    both = (lines[i] > 0).multiply(lines[j] > 0).tocsr()
    pure = ((lines > 0).astype(np.int8) - (names > 0).astype(np.int8)).tocsr()
    pure.eliminate_zeros()
    if pure.nnz:
        both = (both - both.multiply(pure[i].multiply(pure[j]))).tocsr()
    out = both.astype(np.int32)
    out.eliminate_zeros()
    out.data[:] = 1
    return out


def version_conflicts(em: EntityMatrix, i: np.ndarray, j: np.ndarray) -> sp.csr_matrix:
    """Lines on which pairs ``(i, j)`` conflict: shared, both versioned, no version in common.

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
        >>> em = entity_matrix([[Entity("lyria", "3")], [Entity("lyria pro", "3", "", "lyria")],
        ...                     [Entity("lyria", "3.5")]])
        >>> version_conflicts(em, np.array([0, 1]), np.array([1, 2])).toarray().tolist()
        [[0, 0], [1, 0]]
    """
    both = em.versioned[i].multiply(em.versioned[j]).tocsr()
    shared_nv = em.line_versions[i].multiply(em.line_versions[j]).tocsr()
    to_name = sp.csr_matrix((np.ones(len(em.nv_name), np.int32),
                             (np.arange(len(em.nv_name)), em.nv_name)),
                            shape=(len(em.nv_vocab), len(em.name_vocab)))
    agreed = (shared_nv @ to_name).tocsr()
    agreed.data[:] = 1
    out = (both - both.multiply(agreed)).multiply(shared_lines(em.names, em.lines, i, j)).tocsr()
    out.eliminate_zeros()
    return out

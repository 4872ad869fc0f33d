"""Detector sensitivity by word dropout: the seed-004 "2단계" simulation.

How well does shingle Jaccard see a duplicate that was *rewritten*? The
published protocol (seed 004, ``calibrate.py``) fakes two write-ups of one
announcement by keeping each word of an item independently with probability
``f``, and scores the pair with character n-gram Jaccard:

* **both-sided**: two independent reductions ``a`` and ``b`` of the same item,
  ``J(sh(a), sh(b))`` -- two sites each paraphrasing the same source;
* **one-sided**: the whole text against one reduction, ``J(sh(w), sh(b))``.

Protocol details that the numbers depend on, all reproduced here:

* an item's words are ``item_text(title, summary).split()`` -- the *raw* text
  split on whitespace; items with fewer than ``min_words`` words are skipped;
* one ``random.Random(seed)`` stream drives everything: for each ``f`` in
  order, for each item, for each trial, one ``random()`` draw per word for
  ``a`` (in word order) and then one per word for ``b``; the one-sided loop
  continues the *same* stream afterwards (it is not reseeded) with one draw
  per word per trial;
* a reduction is normalized as ``scheme(" ".join(kept_words))``; two empty
  shingle sets have Jaccard 0.0 (the convention of :mod:`newsdedup.text.shingle`);
* statistics per ``f``: mean, population standard deviation, the 5th
  percentile as ``sorted(v)[len(v) // 20]``, and the minimum.

Three implementations, selected by :attr:`SensitivityParams.method`:

``"reference"``
    :func:`simulate_reference`, a line-by-line transcription of the published
    script (Python ``random``, ``set`` shingles). Slow; the oracle.
``"exact"``
    :func:`simulate_exact`: the *same draws* (numpy's MT19937 seeded with the
    state of ``random.Random(seed)``) and the same numbers bit for bit, but
    vectorized. Reproduces the published table.
``"fast"``
    :func:`simulate_fast`: the vectorized engine fed by
    ``np.random.Generator(np.random.PCG64(seed))``. Statistically equivalent,
    not comparable draw for draw with the published numbers.

The vectorized engine works block by block (one block of items, one side, one
``f``). Its usual path packs each n-gram and the (pair, text) it belongs to
into one uint64 and builds those keys per kept *word* from per-word tables
(:class:`_Packing`), then counts set sizes and intersections after a single
sort (:func:`_packed_jaccard`). Schemes without a per-word normalization rule
and alphabets too large to pack fall back to a per-character path
(:func:`_group_jaccard`). Blocks run on a few threads, but the random draws
are taken on the calling thread in protocol order and each block's values
depend only on its draws, so the results never depend on thread timing.

Examples:
    >>> texts = ["오픈AI가 새 추론 모델을 공개하고 API 가격을 절반으로 낮췄다"] * 3
    >>> p = SensitivityParams(fractions=(1.0, 0.5), trials=4)
    >>> r = simulate(texts, p)
    >>> r.n_items_used, r.n_items_skipped
    (3, 0)
    >>> r.both[1.0].tolist() == [1.0] * 12
    True
    >>> bool((simulate_reference(texts, p).both[0.5] == r.both[0.5]).all())
    True
"""

from __future__ import annotations

import math
import os
import random
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from newsdedup.text.normalize import DEFAULT_SCHEME, get_scheme, item_text
from newsdedup.text.shingle import shingles

__all__ = [
    "METHODS",
    "PUBLISHED_FRACTIONS",
    "SensitivityParams",
    "SensitivityResult",
    "simulate",
    "simulate_exact",
    "simulate_fast",
    "simulate_reference",
    "texts_from_items",
]

PUBLISHED_FRACTIONS: tuple[float, ...] = (0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3)
"""The word-keep fractions of the published table, in the published order."""

METHODS: tuple[str, ...] = ("exact", "reference", "fast")
"""Valid values of :attr:`SensitivityParams.method`."""

# How each named scheme treats a word-subset ``" ".join(kept)``: it equals
# ``sep.join(p for p in pieces if p)`` where ``pieces`` are the words normalized
# one by one. That identity is what lets the vectorized engine normalize each
# word once instead of ~100k generated texts. It holds for these schemes
# because none of them lets a character interact with its neighbours across a
# space (lower-casing, deletion and whitespace collapsing are per character;
# NFKC never composes across a space, which is a starter). Schemes not listed
# here still work: the engine then normalizes every generated text in Python.
_WORD_JOIN: dict[str, str] = {
    "hangul-alnum": "",
    "nfkc-hangul-alnum": "",
    "hangul-alnum-spaces": " ",
    "identity": " ",
}

# Upper bound on characters expanded at once by the vectorized engine; items
# are processed in consecutive blocks under this budget so memory stays a few
# tens of MB whatever the corpus size. Blocks follow the protocol order, so
# the random stream is consumed exactly as in the sequential loop.
_BLOCK_CHARS = 4_000_000

_INT63 = 2**63


def _usable_cpus() -> int:
    """CPUs this process may run on (affinity-aware where the OS tells)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


# Threads that compute blocks concurrently. numpy releases the GIL in sort,
# ufunc loops, gathers and bincount, so blocks of different fractions really
# run in parallel. The random draws are still taken on the calling thread in
# protocol order, and every block is a pure function of its keep flags, so the
# values never depend on thread timing. Capped at 4 because each running block
# holds tens of MB of temporaries.
_WORKERS = max(1, min(4, _usable_cpus()))


@dataclass(frozen=True)
class SensitivityParams:
    """Settings of one sensitivity simulation (defaults = the published run).

    Attributes:
        fractions: Word-keep probabilities ``f``, run in this order (the order
            matters for ``"exact"``: it decides which draws each ``f`` gets).
        n: Character n-gram size.
        trials: Simulated pairs per item and fraction.
        seed: Seed of ``random.Random`` (``"reference"``, ``"exact"``) or of
            ``PCG64`` (``"fast"``).
        min_words: Items with fewer whitespace-separated words are skipped.
        scheme: Normalization scheme name, see :mod:`newsdedup.text.normalize`.
        method: ``"exact"``, ``"reference"`` or ``"fast"``; used by
            :func:`simulate`.

    Examples:
        >>> SensitivityParams().fractions
        (0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3)
        >>> SensitivityParams(method="slow")
        Traceback (most recent call last):
        ...
        ValueError: unknown method 'slow'; choose one of ('exact', 'reference', 'fast')
    """

    fractions: tuple[float, ...] = PUBLISHED_FRACTIONS
    n: int = 4
    trials: int = 20
    seed: int = 7
    min_words: int = 8
    scheme: str = DEFAULT_SCHEME
    method: str = "exact"

    def __post_init__(self) -> None:
        # Normalize to a tuple of floats so results keyed by f compare and
        # hash the same whether the caller passed a list, ints or numpy floats.
        fracs = tuple(float(f) for f in self.fractions)
        object.__setattr__(self, "fractions", fracs)
        if not fracs:
            raise ValueError("fractions must not be empty")
        if len(set(fracs)) != len(fracs):
            raise ValueError(f"fractions must be distinct, got {fracs}")
        if any(not 0.0 <= f <= 1.0 for f in fracs):
            raise ValueError(f"fractions must lie in [0, 1], got {fracs}")
        if self.n < 1:
            raise ValueError(f"n-gram size must be >= 1, got {self.n}")
        if self.trials < 1:
            raise ValueError(f"trials must be >= 1, got {self.trials}")
        if self.min_words < 0:
            raise ValueError(f"min_words must be >= 0, got {self.min_words}")
        get_scheme(self.scheme)  # raises ValueError listing the valid names
        if self.method not in METHODS:
            raise ValueError(f"unknown method {self.method!r}; choose one of {METHODS}")


@dataclass(frozen=True, eq=False)
class SensitivityResult:
    """Raw Jaccard values of a simulation and the tables derived from them.

    Attributes:
        params: The settings; ``params.method`` names the implementation that
            actually produced the values.
        n_items_used: Items with at least ``min_words`` words.
        n_items_skipped: Items with fewer; ``used + skipped`` is the input size.
        both: ``f -> float64 array`` of both-sided Jaccard values in protocol
            order (item-major, trial-minor), length ``n_items_used * trials``.
        one: Same for the one-sided simulation.
    """

    params: SensitivityParams
    n_items_used: int
    n_items_skipped: int
    both: dict[float, np.ndarray] = field(repr=False)
    one: dict[float, np.ndarray] = field(repr=False)

    def both_table(self) -> pd.DataFrame:
        """Published both-sided table: one row per ``f``.

        Returns:
            Columns ``f, pairs, mean, std, p5, min``; ``std`` is the population
            standard deviation and ``p5`` is ``sorted(v)[len(v) // 20]``, both
            as in the published script. Statistics are NaN when no item was used.
        """
        return pd.DataFrame(
            [{"f": f, **_stats(v, with_p5=True)} for f, v in self.both.items()],
            columns=["f", "pairs", "mean", "std", "p5", "min"],
        )

    def one_table(self) -> pd.DataFrame:
        """Published one-sided table: one row per ``f``.

        Returns:
            Columns ``f, pairs, mean, std, min`` (the published one-sided table
            has no percentile column).
        """
        return pd.DataFrame(
            [{"f": f, **_stats(v, with_p5=False)} for f, v in self.one.items()],
            columns=["f", "pairs", "mean", "std", "min"],
        )

    def caught_fraction(self, threshold: float, side: str = "both") -> pd.Series:
        """Share of simulated duplicates a Jaccard threshold would catch.

        Args:
            threshold: Decision threshold; a value counts as caught when
                ``value >= threshold`` (the dedupe rule's direction).
            side: ``"both"`` or ``"one"``.

        Returns:
            Float series indexed by ``f`` (index name ``"f"``); NaN for a
            fraction without values.

        Examples:
            >>> r = simulate(["가나다라 마바사아 자차카타 파하 가나 다라 마바 사아"],
            ...              SensitivityParams(fractions=(1.0,), trials=2))
            >>> r.caught_fraction(0.99).tolist()
            [1.0]
        """
        if side not in ("both", "one"):
            raise ValueError(f"side must be 'both' or 'one', got {side!r}")
        values = self.both if side == "both" else self.one
        shares = {
            f: float(np.count_nonzero(v >= threshold) / v.size) if v.size else math.nan
            for f, v in values.items()
        }
        series = pd.Series(shares, dtype="float64", name=f"caught@{threshold:g}")
        series.index.name = "f"
        return series


def _stats(v: np.ndarray, with_p5: bool) -> dict[str, float]:
    """Mean, population std, [p5,] min of one fraction's values."""
    row: dict[str, float] = {"pairs": int(v.size)}
    if v.size == 0:
        row.update(mean=math.nan, std=math.nan, min=math.nan)
        if with_p5:
            row["p5"] = math.nan
        return row
    # fsum keeps the mean independent of summation order (np.mean's pairwise
    # sum and Python's sequential sum can differ in the last bits).
    mean = math.fsum(v.tolist()) / v.size
    row["mean"] = mean
    row["std"] = float(np.sqrt(np.mean((v - mean) ** 2)))
    if with_p5:
        # Not np.percentile: the published script indexes the sorted list.
        row["p5"] = float(np.sort(v)[v.size // 20])
    row["min"] = float(v.min())
    return row


def texts_from_items(items: pd.DataFrame) -> list[str]:
    """Item texts (``title``, one space, ``summary``) of a corpus table.

    Args:
        items: Table with ``title`` and ``summary`` columns, e.g.
            ``load_corpus(path).items``. Missing summaries count as empty.

    Returns:
        One raw, unnormalized text per row, in row order.

    Examples:
        >>> texts_from_items(pd.DataFrame({"title": ["제목"], "summary": ["요약 문장"]}))
        ['제목 요약 문장']
    """
    titles = items["title"].fillna("").astype(str)
    summaries = items["summary"].fillna("").astype(str)
    return [item_text(t, s) for t, s in zip(titles, summaries, strict=True)]


def _split_items(texts: Iterable[str], min_words: int) -> tuple[list[list[str]], int]:
    """Word lists of the items that are long enough, and the skipped count."""
    used: list[list[str]] = []
    skipped = 0
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"texts must be str, got {type(text).__name__}: {text!r}")
        words = text.split()  # raw text, like the published script
        if len(words) < min_words:
            skipped += 1
        else:
            used.append(words)
    return used, skipped


def _jaccard(a: set[str], b: set[str]) -> float:
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def _frozen(values: Sequence[float] | np.ndarray) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    arr.setflags(write=False)  # results are frozen; don't let callers edit them
    return arr


# --------------------------------------------------------------------------
# Reference: the published script, transcribed.
# --------------------------------------------------------------------------


def simulate_reference(texts: Iterable[str], params: SensitivityParams) -> SensitivityResult:
    """Run the protocol exactly as the published ``calibrate.py`` does.

    Pure Python: ``random.Random(seed)``, ``set`` shingles, one generated text
    at a time. This is the oracle the vectorized paths are tested against and
    the baseline of benchmarks; it ignores ``params.method``.

    Args:
        texts: Raw item texts, ``item_text(title, summary)`` per item.
        params: Simulation settings.

    Returns:
        A :class:`SensitivityResult` with ``params.method == "reference"``.

    Examples:
        >>> r = simulate_reference(["a b c d e f g h"], SensitivityParams(trials=2))
        >>> r.both[0.9].shape, r.one[0.3].shape
        ((2,), (2,))
    """
    norm = get_scheme(params.scheme)
    n = params.n
    used, skipped = _split_items(texts, params.min_words)
    rnd = random.Random(params.seed)

    both: dict[float, np.ndarray] = {}
    for f in params.fractions:
        vals: list[float] = []
        for w in used:
            for _ in range(params.trials):
                a = [x for x in w if rnd.random() < f]
                b = [x for x in w if rnd.random() < f]
                vals.append(
                    _jaccard(shingles(norm(" ".join(a)), n), shingles(norm(" ".join(b)), n))
                )
        both[f] = _frozen(vals)

    # Same stream, not reseeded: the published one-sided numbers depend on it.
    one: dict[float, np.ndarray] = {}
    for f in params.fractions:
        vals = []
        for w in used:
            full = shingles(norm(" ".join(w)), n)
            for _ in range(params.trials):
                b = [x for x in w if rnd.random() < f]
                vals.append(_jaccard(full, shingles(norm(" ".join(b)), n)))
        one[f] = _frozen(vals)

    return SensitivityResult(
        params=replace(params, method="reference"),
        n_items_used=len(used),
        n_items_skipped=skipped,
        both=both,
        one=one,
    )


# --------------------------------------------------------------------------
# Vectorized engine shared by "exact" and "fast".
# --------------------------------------------------------------------------


def _python_mt_generator(seed: int) -> np.random.Generator:
    """A numpy Generator whose ``random(k)`` equals ``random.Random(seed).random()`` x k.

    Both are MT19937 with the same 53-bit double construction
    (``(a * 2**26 + b) / 2**53`` from two 32-bit outputs, ``a >> 5``,
    ``b >> 6``), so copying CPython's 624-word state and position makes the
    streams identical; the test suite checks it.
    """
    _, internal, _ = random.Random(seed).getstate()
    bitgen = np.random.MT19937()
    bitgen.state = {
        "bit_generator": "MT19937",
        "state": {"key": np.array(internal[:624], dtype=np.uint32), "pos": internal[624]},
    }
    return np.random.Generator(bitgen)


class _Corpus:
    """Per-word normalized pieces of the used items, as dense character ids.

    For a word-join scheme (see ``_WORD_JOIN``) every word is normalized once;
    a non-empty piece is stored as ``sep + piece`` so that concatenating the
    kept pieces and dropping the first ``len(sep)`` characters reproduces
    ``scheme(" ".join(kept))``.
    """

    def __init__(self, used: list[list[str]], scheme: str) -> None:
        self.words = used
        self.scheme = scheme
        self.norm = get_scheme(scheme)
        self.n_words = np.array([len(w) for w in used], dtype=np.int64)
        # First global word index of each item.
        self.word_off = np.concatenate(([0], np.cumsum(self.n_words)))[:-1]
        self.sep = _WORD_JOIN.get(scheme)
        if self.sep is None:
            return
        pieces = []
        for w in used:
            for x in w:
                p = self.norm(x)
                pieces.append(self.sep + p if p else "")
        self.piece_len = np.array([len(p) for p in pieces], dtype=np.int64)
        self.piece_start = np.concatenate(([0], np.cumsum(self.piece_len)))[:-1]
        self.chars, self.alphabet = _dense_chars("".join(pieces))


def _dense_chars(text: str) -> tuple[np.ndarray, int]:
    """Characters of ``text`` as dense ids ``0..A-1`` and the alphabet size ``A``."""
    if not text:
        return np.zeros(0, dtype=np.int64), 1
    cps = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
    alphabet = np.sort(cps)
    alphabet = alphabet[np.concatenate(([True], alphabet[1:] != alphabet[:-1]))]
    return np.searchsorted(alphabet, cps), int(alphabet.size)


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(s, s + l)`` for each pair, vectorized."""
    nonempty = lengths > 0
    starts, lengths = starts[nonempty], lengths[nonempty]
    if starts.size == 0:
        return np.zeros(0, dtype=np.int64)
    # Steps of 1, except a jump to the next start where each range begins; the
    # running sum is the answer. One output-sized array, no repeat/arange temporaries.
    out = np.ones(int(lengths.sum()), dtype=np.int64)
    out[0] = starts[0]
    out[np.cumsum(lengths[:-1])] = starts[1:] - (starts[:-1] + lengths[:-1] - 1)
    return np.cumsum(out, out=out)


class _Packing:
    """Per-word shingle tables of the packed engine (the fast path of ``"exact"``/``"fast"``).

    An n-gram is packed into the top ``bits * n`` bits of a uint64: character
    ``m`` of the window (ids from 1, so an all-zero field means "no
    character") sits in bits ``[top + bits*m, top + bits*(m+1))`` with
    ``top = 64 - bits*n``. The free low ``top`` bits take the (group, slot)
    of the text, so a window's sort key for :func:`_packed_jaccard` is one OR.

    Why words rather than characters: a generated text is the concatenation of
    its kept word pieces, so a window either lies inside one piece (*inner*:
    its code depends on the word only and is precomputed here) or starts in
    the last ``k < n`` characters of a piece and runs into the next kept
    pieces (*tail*: the piece's last ``k`` characters OR the code of the
    window starting at the next kept piece, moved up ``k`` characters).
    The per-fraction work then runs over kept words (3.6 characters each on
    the pinned corpus) instead of characters. Moving a code up is a multiply
    by a power of two: characters beyond ``n`` overflow out of the word for
    free, and a factor of 0 drops the continuation altogether, so no shift
    amounts or masks are needed. A window that runs past its text's end keeps
    a zero top field: its key sorts below every real n-gram and is cut off
    after the sort instead of being masked out before it.

    Attributes:
        bits, n, top: The packing.
        length: Piece length of every corpus word (with its separator).
        head: Code of the (possibly short) window at each piece's start.
        head_factor: ``2**(bits * length)`` for a piece shorter than ``n``:
            times the next piece's code, the continuation of ``head``; 0 for
            a longer piece, whose ``head`` is already complete.
        tail_code, tail_factor: For ``k = 1 .. n-1`` (index ``k - 1``): the
            code at the piece's last ``k`` characters and ``2**(bits * k)``;
            for a piece shorter than ``k`` (no such window) both are 0, so the
            key it yields has a zero top field and is discarded.
        inner_count, inner_bound, inner_code, inner_owner: Inner windows of
            each word, flattened: word ``w`` owns
            ``inner_code[inner_bound[w] : inner_bound[w + 1]]``, and
            ``inner_owner`` maps each window back to its word.
    """

    def __init__(self, corpus: _Corpus, n: int, bits: int) -> None:
        self.n, self.bits, self.top = n, bits, 64 - bits * n
        start, length = corpus.piece_start, corpus.piece_len
        ids = corpus.chars.astype(np.uint64) + np.uint64(1)
        # Code of the window at every corpus character, truncated at its piece's end.
        pos = np.arange(ids.size, dtype=np.int64)
        piece_end = np.repeat(start + length, length)
        code = np.zeros(ids.size, dtype=np.uint64)
        for m in range(n):
            inside = np.flatnonzero(pos + m < piece_end)
            code[inside] |= ids[inside + m] << np.uint64(bits * m)
        code <<= np.uint64(self.top)

        self.length = length
        nonempty = np.flatnonzero(length > 0)
        self.head = np.zeros(length.size, dtype=np.uint64)
        self.head[nonempty] = code[start[nonempty]]
        self.head_factor = np.zeros(length.size, dtype=np.uint64)
        short = length < n
        self.head_factor[short] = np.uint64(1) << (bits * length[short]).astype(np.uint64)
        self.tail_code, self.tail_factor = [], []
        for k in range(1, n):
            has = np.flatnonzero(length >= k)
            tail = np.zeros(length.size, dtype=np.uint64)
            tail[has] = code[start[has] + length[has] - k]
            self.tail_code.append(tail)
            self.tail_factor.append(np.where(length >= k, np.uint64(1 << (bits * k)), np.uint64(0)))
        inner_count = np.maximum(length - (n - 1), 0)
        self.inner_count = inner_count
        self.inner_bound = np.concatenate(([0], np.cumsum(inner_count)))
        self.inner_code = code[_ranges(start, inner_count)]
        self.inner_owner = np.repeat(np.arange(length.size), inner_count)

    @staticmethod
    def build(corpus: _Corpus, n: int) -> _Packing | None:
        """The tables, or None when the packed engine does not apply.

        It needs per-word pieces (a ``_WORD_JOIN`` scheme) with a separator of
        at most one character, and n-grams that leave room for the text id in
        64 bits (checked per batch); otherwise the character engine runs.
        """
        if corpus.sep is None or len(corpus.sep) > 1:
            return None
        bits = int(corpus.alphabet).bit_length()  # ids 1..alphabet
        if bits * n > 62:
            return None
        return _Packing(corpus, n, bits)


class _Batch:
    """One block of items in one phase: which texts are generated, and how.

    The layout (which item each generated text comes from, which word of which
    item each random draw decides, which shingle sets are compared) does not
    depend on ``f``, so it is built once and reused for every fraction; only
    the keep flags change.

    Attributes:
        seq_group, seq_slot: Group and slot of each generated text (see
            :func:`_group_jaccard`).
        n_groups, n_slots: Shape of the comparison.
        n_fixed: Leading words kept unconditionally (the one-sided full texts);
            they take no random draws.
        n_draws: Random draws this batch consumes per fraction.
        global_word: For every word of every generated text in draw order
            (the order of the keep flags), the word's index in ``_Corpus``.
        packing: The :class:`_Packing` tables when the packed engine runs this
            batch, else None (character engine).
        nonempty: Per word: does its normalized piece have characters?
            (word-join schemes only).
        slot_bits, set_bits, word_text, inner_keys, inner_occ: Packed engine
            only. Set id ``group << slot_bits | slot`` of each word's text
            (``set_bits`` wide); every text's inner-window keys, and for each
            the index of the word (into the keep flags) it belongs to.
        seq_of_word, piece_start, piece_len: Character engine only: the text
            index and piece geometry of every word.
    """

    def __init__(
        self,
        corpus: _Corpus,
        items: np.ndarray,
        trials: int,
        side: str,
        n: int,
        packing: _Packing | None,
    ) -> None:
        self.corpus, self.n = corpus, n
        local = np.arange(items.size, dtype=np.int64)
        if side == "both":
            # Texts in draw order: item, trial, a before b. Pair p = texts 2p
            # (slot 0, side a) and 2p + 1 (slot 1, side b).
            seq_items = np.repeat(items, 2 * trials)
            texts = np.arange(seq_items.size, dtype=np.int64)
            self.seq_group, self.seq_slot = texts >> 1, texts & 1
            self.n_groups, self.n_slots = items.size * trials, 2
            self.n_fixed = 0
        else:
            # The full texts come first (slot 0 of each item's group) and take
            # no draws; the trials follow in draw order, item-major, in slots
            # 1..trials.
            seq_items = np.concatenate((items, np.repeat(items, trials)))
            self.seq_group = np.concatenate((local, np.repeat(local, trials)))
            self.seq_slot = np.concatenate(
                (np.zeros(items.size, np.int64), np.tile(np.arange(1, trials + 1), items.size))
            )
            self.n_groups, self.n_slots = items.size, trials + 1
            self.n_fixed = int(corpus.n_words[items].sum())
        counts = corpus.n_words[seq_items]
        self.n_texts = seq_items.size
        self.n_draws = int(counts.sum()) - self.n_fixed
        first_word = corpus.word_off[seq_items]
        self.global_word = _ranges(first_word, counts)

        self.slot_bits = max(self.n_slots - 1, 1).bit_length()
        group_bits = max(self.n_groups - 1, 1).bit_length()
        if packing is not None and group_bits + self.slot_bits > packing.top:
            packing = None  # no room for the text id next to the n-gram
        self.packing = packing
        if packing is None:
            self.seq_of_word = np.repeat(np.arange(seq_items.size, dtype=np.int64), counts)
        if corpus.sep is None:
            return
        self.nonempty = (corpus.piece_len > 0)[self.global_word]
        if packing is None:
            # Gather the piece geometry now; per fraction only a mask remains.
            self.piece_start = corpus.piece_start[self.global_word]
            self.piece_len = corpus.piece_len[self.global_word]
            return
        # Set id (group, slot) of each word's text, the low bit field of the
        # packed keys; and the inner windows of every text, already keyed, so
        # that a fraction only selects those of kept words (inner_occ: the
        # word, as an index into the keep flags, that each one belongs to).
        self.set_bits = group_bits + self.slot_bits
        text_id = (self.seq_group.astype(np.uint64) << np.uint64(self.slot_bits)) | (
            self.seq_slot.astype(np.uint64)
        )
        self.word_text = np.repeat(text_id, counts)
        inner_start = packing.inner_bound[first_word]
        inner_len = packing.inner_bound[first_word + counts] - inner_start
        inner = _ranges(inner_start, inner_len)
        self.inner_keys = packing.inner_code[inner]
        self.inner_keys |= np.repeat(text_id, inner_len)
        self.inner_occ = packing.inner_owner[inner]
        text_first_occ = np.cumsum(counts) - counts
        self.inner_occ += np.repeat(text_first_occ - first_word, inner_len)

    def keep(self, draw: Callable[[int], np.ndarray], f: float) -> np.ndarray:
        """Keep flag of every word of every text; consumes ``n_draws`` draws."""
        drawn = draw(self.n_draws) < f  # the published `rnd.random() < f`, one per word
        if not self.n_fixed:
            return drawn
        return np.concatenate((np.ones(self.n_fixed, dtype=bool), drawn))

    def jaccard(self, keep: np.ndarray) -> np.ndarray:
        """Jaccard values of the batch's comparisons for one set of keep flags.

        Depends on nothing but ``keep`` (which it may overwrite) and only
        reads the batch, so calls for different fractions can run on several
        threads at once.
        """
        if self.packing is not None:
            return _packed_jaccard(self, _packed_keys(self, keep))
        chars, seq, alphabet = _sequences(self.corpus, self, keep)
        codes, wseq = _window_codes(chars, seq, alphabet, self.n)
        return _group_jaccard(
            codes, wseq, self.seq_group, self.seq_slot, self.n_groups, self.n_slots
        )


def _packed_keys(batch: _Batch, keep: np.ndarray) -> np.ndarray:
    """Packed, unsorted keys of all windows of a batch's kept-word texts.

    Every key is ``n-gram code | (group, slot)`` (see :class:`_Packing`).
    The result also holds keys of windows that are not n-grams (running past
    the text's end, or tail windows of too-short pieces); those have a zero
    top field and are dropped by :func:`_packed_jaccard` after its sort.

    Args:
        batch: A batch with ``packing`` set.
        keep: One flag per word of each text, texts concatenated in draw order;
            overwritten.
    """
    p = batch.packing
    keep &= batch.nonempty  # empty pieces add no characters
    inner = keep[batch.inner_occ]
    n_inner = int(np.count_nonzero(inner))
    kept = np.flatnonzero(keep)
    n_kept = kept.size
    keys = np.empty(n_inner + (p.n - 1) * n_kept, dtype=np.uint64)
    np.compress(inner, batch.inner_keys, out=keys[:n_inner])
    word = batch.global_word[kept]
    text = batch.word_text[kept]
    same = text[1:] == text[:-1]  # the next kept piece continues the same text
    if p.n > 1 and n_kept:
        # cur[i]: code of the window at kept piece i's start. It starts as
        # the piece's own head; each round appends the code at the next kept
        # piece of the same text (link = 0 at a text's end or when the head
        # is already full). After n - 2 rounds it spans n - 1 pieces, enough
        # for any tail window of the previous piece: each piece adds >= 1
        # character and those beyond n overflow out of the word.
        head = p.head[word]
        link = p.head_factor[word]
        link[:-1] *= same
        cur = head
        for _ in range(p.n - 2):
            nxt = np.empty_like(head)
            np.multiply(cur[1:], link[:-1], out=nxt[:-1])
            nxt[-1] = 0
            nxt |= head
            cur = nxt
        # nxt[i]: code at the next kept piece if it is in the same text, else 0.
        nxt = link  # free now
        np.multiply(cur[1:], same, out=nxt[:-1])
        nxt[-1] = 0
        for k in range(1, p.n):
            tail = keys[n_inner + (k - 1) * n_kept : n_inner + k * n_kept]
            np.multiply(nxt, p.tail_factor[k - 1][word], out=tail)
            tail |= p.tail_code[k - 1][word]
            tail |= text
    if batch.corpus.sep:
        # Pieces are stored as sep + piece, but a text's first kept piece has
        # no separator: drop the window starting at it (an inner window if
        # the piece is at least n long, else the tail window with k = length).
        first = np.ones(n_kept, dtype=bool)
        first[1:] = ~same
        counts = p.inner_count[word]
        at = np.cumsum(counts) - counts
        keys[at[first & (counts > 0)]] = 0
        length = p.length[word]
        for k in range(1, p.n):
            keys[n_inner + (k - 1) * n_kept + np.flatnonzero(first & (length == k))] = 0
    return keys


def _packed_jaccard(batch: _Batch, keys: np.ndarray) -> np.ndarray:
    """Jaccard of slot 0 against every other slot, per group, from packed keys.

    The counterpart of :func:`_group_jaccard` for :func:`_packed_keys`. One
    sort puts equal (n-gram, group) cells together, slot 0 first. Each
    sorted key then falls in one of three classes, found from its
    predecessor alone: a repeat (ignored, set semantics), a new element that
    slot 0 also holds, or a new element slot 0 lacks. A single bincount of
    ``class << set_bits | (group, slot)`` yields every set size and every
    intersection, with no compaction of the key array. Sorts ``keys`` in place.

    Returns:
        ``float64`` array of length ``n_groups * (n_slots - 1)``, index
        ``g * (n_slots - 1) + (s - 1)``; 0.0 where both sets are empty.
    """
    n_groups, n_slots = batch.n_groups, batch.n_slots
    keys.sort()
    # Non-n-gram windows have a zero top field: they all sort first.
    keys = keys[np.searchsorted(keys, np.uint64(1 << (64 - batch.packing.bits))) :]
    if keys.size == 0:
        return np.zeros(n_groups * (n_slots - 1), dtype=np.float64)
    set_bits = np.uint64(batch.set_bits)
    width = 1 << batch.slot_bits
    # Class of each key after the first, from its predecessor (0: repeat).
    cls = keys[1:] ^ keys[:-1]
    if n_slots == 2:
        # A new key differing from its predecessor only in the slot bit is
        # slot 1's copy of an n-gram slot 0 has: class 1. Others: class 2.
        np.minimum(cls, 2, out=cls)
    else:
        # Slot 0 sorts first in its cell and cells ascend, so the last slot-0
        # key so far is in a key's cell iff slot 0 holds that n-gram.
        slot_mask = np.uint64(width - 1)
        is_base = (keys & slot_mask) == 0
        last_base = keys * is_base
        np.maximum.accumulate(last_base, out=last_base)
        last_base ^= keys
        outside = np.greater(last_base[1:], slot_mask, out=is_base[1:])
        np.minimum(cls, 1, out=cls)  # 1 for a new key
        cls <<= outside  # 2 for a new key outside slot 0's cells
    cls <<= set_bits
    keys &= np.uint64((1 << batch.set_bits) - 1)  # keys become set ids
    cls |= keys[1:]
    n_sets = n_groups * width
    counts = np.bincount(cls.view(np.int64), minlength=3 << batch.set_bits)
    shared = counts[1 << batch.set_bits :][:n_sets].reshape(n_groups, width)
    size = shared + counts[2 << batch.set_bits :][:n_sets].reshape(n_groups, width)
    first = int(keys[0])  # the first key is new and shares nothing
    size[first >> batch.slot_bits, first & (width - 1)] += 1
    inter = shared[:, 1:n_slots]
    union = size[:, :1] + size[:, 1:n_slots] - inter
    out = np.zeros(union.shape, dtype=np.float64)
    # Exact integers divided in float64: the same correctly rounded quotient
    # as Python's len(a & b) / len(a | b). Empty union -> 0.0, as published.
    np.divide(inter, union, out=out, where=union > 0)
    return out.ravel()


def _sequences(
    corpus: _Corpus, batch: _Batch, keep: np.ndarray
) -> tuple[np.ndarray, np.ndarray, int]:
    """Normalized kept-word texts of a batch, as one flat character-id array.

    Args:
        corpus: The used items.
        batch: Layout of the generated texts.
        keep: One flag per word of each text, texts concatenated in draw order.

    Returns:
        ``(chars, seq, alphabet)``: character ids of all texts concatenated,
        the text index of each character (non-decreasing), and the alphabet
        size the ids are below.
    """
    if corpus.sep is None:
        kept = np.flatnonzero(keep)
        return _sequences_python(
            corpus, batch.n_texts, batch.seq_of_word[kept], batch.global_word[kept]
        )
    kept = np.flatnonzero(keep & batch.nonempty)
    seq = batch.seq_of_word[kept]
    start = batch.piece_start[kept]
    length = batch.piece_len[kept]
    if corpus.sep:
        # The first kept piece of each text has no separator before it.
        first = np.empty(seq.size, dtype=np.int64)
        if seq.size:
            first[0] = 1
            np.not_equal(seq[1:], seq[:-1], out=first[1:], casting="unsafe")
        start = start + first * len(corpus.sep)
        length = length - first * len(corpus.sep)
    idx = _ranges(start, length)
    return corpus.chars[idx], np.repeat(seq, length), corpus.alphabet


def _sequences_python(
    corpus: _Corpus, n_texts: int, seq_of_kept: np.ndarray, kept_word: np.ndarray
) -> tuple[np.ndarray, np.ndarray, int]:
    """Fallback of :func:`_sequences` for schemes without a word-join rule."""
    flat_words = [x for w in corpus.words for x in w]
    joined: list[list[str]] = [[] for _ in range(n_texts)]
    for s, g in zip(seq_of_kept.tolist(), kept_word.tolist(), strict=True):
        joined[s].append(flat_words[g])
    texts = [corpus.norm(" ".join(ws)) for ws in joined]
    chars, alphabet = _dense_chars("".join(texts))
    lengths = np.array([len(t) for t in texts], dtype=np.int64)
    return chars, np.repeat(np.arange(n_texts, dtype=np.int64), lengths), alphabet


def _window_codes(
    chars: np.ndarray, seq: np.ndarray, alphabet: int, n: int
) -> tuple[np.ndarray, np.ndarray]:
    """Integer code of every n-gram window that stays inside one text.

    Returns:
        ``(codes, seq_of_window)``. Two windows have the same code iff they
        are the same n characters; codes are ``< alphabet**n`` when that fits
        in int64, otherwise dense ranks ``< number of windows``.
    """
    w = chars.size - n + 1
    if w <= 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    valid = seq[:w] == seq[n - 1 :]  # windows running into the next text are not n-grams
    if alphabet**n < _INT63:
        code = chars[:w].copy()
        for m in range(1, n):
            code *= alphabet
            code += chars[m : m + w]
        return code[valid], seq[:w][valid]
    # Packed codes would overflow: rank the windows as rows instead.
    rows = np.lib.stride_tricks.sliding_window_view(chars, n)[valid]
    order = np.lexsort(rows.T[::-1])
    srt = rows[order]
    new = np.concatenate(([True], (srt[1:] != srt[:-1]).any(axis=1)))
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.cumsum(new) - 1
    return rank, seq[:w][valid]


def _group_jaccard(
    codes: np.ndarray,
    wseq: np.ndarray,
    seq_group: np.ndarray,
    seq_slot: np.ndarray,
    n_groups: int,
    n_slots: int,
) -> np.ndarray:
    """Jaccard of slot 0 against every other slot, within each group, at once.

    Text ``q`` holds shingle set ``(seq_group[q], seq_slot[q])``; the result
    compares set ``(g, 0)`` with set ``(g, s)`` for every group ``g`` and slot
    ``s >= 1``. One sort of bit-packed ``(group, code, slot)`` keys brings the
    copies of a shingle within a group together, slot 0 first, which yields
    set sizes (after dropping repeats) and intersections with no Python loop.
    Bit fields rather than products keep the unpacking to shifts and masks:
    int64 division was the slowest step of the first version.

    Args:
        codes: n-gram code of each window (equal code = equal n-gram).
        wseq: Text index of each window.
        seq_group: Group of each text.
        seq_slot: Slot of each text, ``0 <= slot < n_slots``.
        n_groups: Number of groups.
        n_slots: Slots per group (slot 0 is the common side).

    Returns:
        ``float64`` array of length ``n_groups * (n_slots - 1)``, index
        ``g * (n_slots - 1) + (s - 1)``; 0.0 where both sets are empty.
    """
    n_out = n_groups * (n_slots - 1)
    if codes.size == 0:
        return np.zeros(n_out, dtype=np.float64)
    slot_bits = max(n_slots - 1, 1).bit_length()
    group_bits = max(n_groups - 1, 1).bit_length()
    code_bits = max(int(codes.max()), 1).bit_length()
    if group_bits + code_bits + slot_bits > 63:
        # Re-rank codes densely so the packed key fits (huge alphabets or n).
        uniq = np.sort(codes)
        uniq = uniq[np.concatenate(([True], uniq[1:] != uniq[:-1]))]
        codes = np.searchsorted(uniq, codes)
        code_bits = max(int(uniq.size) - 1, 1).bit_length()
        if group_bits + code_bits + slot_bits > 63:
            raise ValueError("too many groups and shingles for 63-bit keys")
    seq_key = (seq_group.astype(np.int64) << (code_bits + slot_bits)) | seq_slot.astype(np.int64)
    key = seq_key[wseq] | (codes << slot_bits)
    key.sort()
    key = key[np.concatenate(([True], key[1:] != key[:-1]))]  # set semantics
    slot_mask = (1 << slot_bits) - 1
    cell = key >> slot_bits  # (group, code)
    is_base = (key & slot_mask) == 0
    # Within a (group, code) cell slot 0 sorts first, so an entry shares its
    # shingle with slot 0 iff its cell's first entry is a slot-0 entry.
    head = np.empty(key.size, dtype=bool)
    head[0] = True
    np.not_equal(cell[1:], cell[:-1], out=head[1:])
    shared = is_base[head][np.cumsum(head) - 1] & ~is_base
    # Set id (group, slot) as a bit field: one bincount gives every set size.
    set_id = ((key >> (code_bits + slot_bits)) << slot_bits) | (key & slot_mask)
    width = 1 << slot_bits
    size = np.bincount(set_id, minlength=n_groups * width).reshape(n_groups, width)
    inter = np.bincount(set_id, weights=shared, minlength=n_groups * width).reshape(n_groups, width)
    inter = inter[:, 1:n_slots]
    union = size[:, :1] + size[:, 1:n_slots] - inter
    out = np.zeros(union.shape, dtype=np.float64)
    # Exact integers divided in float64: the same correctly rounded quotient
    # as Python's len(a & b) / len(a | b). Empty union -> 0.0, as published.
    np.divide(inter, union, out=out, where=union > 0)
    return out.ravel()


def _item_blocks(chars_per_item: np.ndarray) -> list[np.ndarray]:
    """Consecutive item ranges whose expanded size stays under the budget."""
    blocks, start, acc = [], 0, 0
    for i, c in enumerate(chars_per_item.tolist()):
        if acc and acc + c > _BLOCK_CHARS:
            blocks.append(np.arange(start, i))
            start, acc = i, 0
        acc += c
    blocks.append(np.arange(start, len(chars_per_item)))
    return [b for b in blocks if b.size]


def _simulate_vectorized(
    texts: Iterable[str],
    params: SensitivityParams,
    draw: Callable[[int], np.ndarray],
    method: str,
) -> SensitivityResult:
    """The protocol, vectorized; ``draw(k)`` returns the next ``k`` uniforms."""
    used, skipped = _split_items(texts, params.min_words)
    corpus = _Corpus(used, params.scheme)
    if corpus.sep is not None:
        ends = np.concatenate(([0], np.cumsum(corpus.piece_len)))
        item_chars = ends[corpus.word_off + corpus.n_words] - ends[corpus.word_off]
    else:
        item_chars = np.array([len(corpus.norm(" ".join(w))) for w in used], dtype=np.int64)
    blocks = _item_blocks(item_chars * (2 * params.trials))

    packing = _Packing.build(corpus, params.n)

    # Both-sided first, then one-sided on the continuing stream; within a
    # phase fractions, then blocks in item order: exactly the draw order of
    # the published loops. The draws are taken here, in that order, and only
    # the pure per-block computations go to the pool.
    jobs: dict[str, dict[float, list[Future[np.ndarray]]]] = {}
    submitted: list[Future[np.ndarray]] = []
    with ThreadPoolExecutor(max_workers=_WORKERS) as pool:
        for side in ("both", "one"):
            batches = [
                _Batch(corpus, items, params.trials, side, params.n, packing) for items in blocks
            ]
            jobs[side] = {}
            for f in params.fractions:
                jobs[side][f] = []
                for batch in batches:
                    # Keep flags of waiting blocks take memory (a byte per
                    # draw): stay at most a couple of blocks per thread ahead.
                    if len(submitted) >= 2 * _WORKERS:
                        submitted[-2 * _WORKERS].result()
                    job = pool.submit(batch.jaccard, batch.keep(draw, f))
                    jobs[side][f].append(job)
                    submitted.append(job)
        results = {
            side: {
                f: _frozen(np.concatenate([job.result() for job in parts]) if parts else [])
                for f, parts in by_f.items()
            }
            for side, by_f in jobs.items()
        }

    return SensitivityResult(
        params=replace(params, method=method),
        n_items_used=len(used),
        n_items_skipped=skipped,
        both=results["both"],
        one=results["one"],
    )


def simulate_exact(texts: Iterable[str], params: SensitivityParams) -> SensitivityResult:
    """Vectorized protocol on the published random stream.

    Uses the draws of ``random.Random(params.seed)`` in the published order,
    so every value equals :func:`simulate_reference`'s bit for bit (and the
    defaults reproduce the published table); ignores ``params.method``.

    Args:
        texts: Raw item texts, ``item_text(title, summary)`` per item.
        params: Simulation settings.

    Returns:
        A :class:`SensitivityResult` with ``params.method == "exact"``.

    Examples:
        >>> t = ["하나 둘 셋 넷 다섯 여섯 일곱 여덟 아홉"]
        >>> p = SensitivityParams(trials=3)
        >>> np.array_equal(simulate_exact(t, p).one[0.5], simulate_reference(t, p).one[0.5])
        True
    """
    gen = _python_mt_generator(params.seed)
    return _simulate_vectorized(texts, params, gen.random, "exact")


def simulate_fast(texts: Iterable[str], params: SensitivityParams) -> SensitivityResult:
    """Vectorized protocol on numpy's own generator (PCG64).

    Same statistics, same layout and the same reproducibility for a given
    seed, but the draws differ from Python's ``random``: compare its tables
    with the published ones statistically, not digit for digit. Ignores
    ``params.method``.

    Args:
        texts: Raw item texts, ``item_text(title, summary)`` per item.
        params: Simulation settings.

    Returns:
        A :class:`SensitivityResult` with ``params.method == "fast"``.

    Examples:
        >>> r = simulate_fast(["하나 둘 셋 넷 다섯 여섯 일곱 여덟"], SensitivityParams(trials=5))
        >>> list(r.both_table().columns)
        ['f', 'pairs', 'mean', 'std', 'p5', 'min']
    """
    gen = np.random.Generator(np.random.PCG64(params.seed))
    return _simulate_vectorized(texts, params, gen.random, "fast")


_DISPATCH: dict[str, Callable[[Iterable[str], SensitivityParams], SensitivityResult]] = {
    "exact": simulate_exact,
    "reference": simulate_reference,
    "fast": simulate_fast,
}


def simulate(texts: Iterable[str], params: SensitivityParams | None = None) -> SensitivityResult:
    """Run the simulation with the implementation named by ``params.method``.

    Args:
        texts: Raw item texts, ``item_text(title, summary)`` per item.
        params: Settings; ``None`` means the published run (``method="exact"``).

    Returns:
        The :class:`SensitivityResult`.

    Examples:
        >>> simulate(["짧은 글"]).n_items_skipped
        1
    """
    params = SensitivityParams() if params is None else params
    return _DISPATCH[params.method](texts, params)

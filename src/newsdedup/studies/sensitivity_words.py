"""Word pieces of the sensitivity simulation: normalized once per word, packed per word.

The vectorized engine of :mod:`newsdedup.studies.sensitivity` never normalizes the
~100k generated texts one by one. For a scheme in :data:`WORD_JOIN` every word is
normalized once (:class:`WordPieces`) and a generated text is the concatenation of its
kept pieces; :class:`Packing` precomputes each word's n-gram codes for the packed engine
(:mod:`newsdedup.studies.sensitivity_batch`). :func:`python_mt_generator` gives numpy the
published random stream.
"""

from __future__ import annotations

import random

import numpy as np

from newsdedup.text.normalize import get_scheme

# How each named scheme treats a word-subset ``" ".join(kept)``: it equals
# ``sep.join(p for p in pieces if p)`` where ``pieces`` are the words normalized
# one by one. That identity is what lets the vectorized engine normalize each
# word once instead of ~100k generated texts. It holds for these schemes
# because none of them lets a character interact with its neighbours across a
# space (lower-casing, deletion and whitespace collapsing are per character;
# NFKC never composes across a space, which is a starter). Schemes not listed
# here still work: the engine then normalizes every generated text in Python.
WORD_JOIN: dict[str, str] = {
    "hangul-alnum": "",
    "nfkc-hangul-alnum": "",
    "hangul-alnum-spaces": " ",
    "identity": " ",
}


def python_mt_generator(seed: int) -> np.random.Generator:
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


class WordPieces:
    """Per-word normalized pieces of the used items, as dense character ids.

    For a word-join scheme (see ``WORD_JOIN``) every word is normalized once;
    a non-empty piece is stored as ``sep + piece`` so that concatenating the
    kept pieces and dropping the first ``len(sep)`` characters reproduces
    ``scheme(" ".join(kept))``.
    """

    def __init__(self, used: list[list[str]], scheme: str) -> None:
        """Normalize every word of ``used`` once under ``scheme`` (word-join schemes only)."""
        self.words = used
        self.scheme = scheme
        self.norm = get_scheme(scheme)
        self.n_words = np.array([len(w) for w in used], dtype=np.int64)
        # First global word index of each item.
        self.word_off = np.concatenate(([0], np.cumsum(self.n_words)))[:-1]
        self.sep = WORD_JOIN.get(scheme)
        if self.sep is None:
            return
        pieces = []
        for w in used:
            for x in w:
                p = self.norm(x)
                pieces.append(self.sep + p if p else "")
        self.piece_len = np.array([len(p) for p in pieces], dtype=np.int64)
        self.piece_start = np.concatenate(([0], np.cumsum(self.piece_len)))[:-1]
        self.chars, self.alphabet = dense_chars("".join(pieces))


def dense_chars(text: str) -> tuple[np.ndarray, int]:
    """Characters of ``text`` as dense ids ``0..A-1`` and the alphabet size ``A``."""
    if not text:
        return np.zeros(0, dtype=np.int64), 1
    cps = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
    alphabet = np.sort(cps)
    alphabet = alphabet[np.concatenate(([True], alphabet[1:] != alphabet[:-1]))]
    return np.searchsorted(alphabet, cps), int(alphabet.size)


def ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
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


class Packing:
    """Per-word shingle tables of the packed engine (the fast path of ``"exact"``/``"fast"``).

    An n-gram is packed into the top ``bits * n`` bits of a uint64: character
    ``m`` of the window (ids from 1, so an all-zero field means "no
    character") sits in bits ``[top + bits*m, top + bits*(m+1))`` with
    ``top = 64 - bits*n``. The free low ``top`` bits take the (group, slot)
    of the text, so a window's sort key for :func:`packed_jaccard` is one OR.

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

    def __init__(self, corpus: WordPieces, n: int, bits: int) -> None:
        """Build the tables; use :meth:`build`, which checks that packing applies."""
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
        self.inner_code = code[ranges(start, inner_count)]
        self.inner_owner = np.repeat(np.arange(length.size), inner_count)

    @staticmethod
    def build(corpus: WordPieces, n: int) -> Packing | None:
        """The tables, or None when the packed engine does not apply.

        It needs per-word pieces (a ``WORD_JOIN`` scheme) with a separator of
        at most one character, and n-grams that leave room for the text id in
        64 bits (checked per batch); otherwise the character engine runs.
        """
        if corpus.sep is None or len(corpus.sep) > 1:
            return None
        bits = int(corpus.alphabet).bit_length()  # ids 1..alphabet
        if bits * n > 62:
            return None
        return Packing(corpus, n, bits)

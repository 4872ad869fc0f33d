"""Batches of the sensitivity simulation: one block of items, one side, every fraction.

A :class:`Batch` lays out the texts a block generates (which item, which trial, which
word each random draw decides) once; per fraction only the keep flags change. Its
:meth:`Batch.jaccard` runs the packed engine (:func:`packed_keys`, :func:`packed_jaccard`)
when the :class:`~newsdedup.studies.sensitivity_words.Packing` tables apply, else the
character engine of :mod:`newsdedup.studies.sensitivity_chars`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from newsdedup.studies.sensitivity_chars import group_jaccard, sequences_python, window_codes
from newsdedup.studies.sensitivity_words import Packing, WordPieces, ranges


class Batch:
    """One block of items in one phase: which texts are generated, and how.

    The layout (which item each generated text comes from, which word of which
    item each random draw decides, which shingle sets are compared) does not
    depend on ``f``, so it is built once and reused for every fraction; only
    the keep flags change.

    Attributes:
        seq_group, seq_slot: Group and slot of each generated text (see
            :func:`group_jaccard`).
        n_groups, n_slots: Shape of the comparison.
        n_fixed: Leading words kept unconditionally (the one-sided full texts);
            they take no random draws.
        n_draws: Random draws this batch consumes per fraction.
        global_word: For every word of every generated text in draw order
            (the order of the keep flags), the word's index in ``WordPieces``.
        packing: The :class:`Packing` tables when the packed engine runs this
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
        corpus: WordPieces,
        items: np.ndarray,
        trials: int,
        side: str,
        n: int,
        packing: Packing | None,
    ) -> None:
        """Lay out the texts of ``items`` (indices into ``corpus``) for ``side``."""
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
        self.global_word = ranges(first_word, counts)

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
        inner = ranges(inner_start, inner_len)
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
            return packed_jaccard(self, packed_keys(self, keep))
        chars, seq, alphabet = _sequences(self.corpus, self, keep)
        codes, wseq = window_codes(chars, seq, alphabet, self.n)
        return group_jaccard(
            codes, wseq, self.seq_group, self.seq_slot, self.n_groups, self.n_slots
        )


def packed_keys(batch: Batch, keep: np.ndarray) -> np.ndarray:
    """Packed, unsorted keys of all windows of a batch's kept-word texts.

    Every key is ``n-gram code | (group, slot)`` (see :class:`Packing`).
    The result also holds keys of windows that are not n-grams (running past
    the text's end, or tail windows of too-short pieces); those have a zero
    top field and are dropped by :func:`packed_jaccard` after its sort.

    Args:
        batch: A batch with ``packing`` set.
        keep: One flag per word of each text, texts concatenated in draw order;
            overwritten.
    """
    p = batch.packing
    assert p is not None, "packed_keys needs a batch of the packed engine"
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


def packed_jaccard(batch: Batch, keys: np.ndarray) -> np.ndarray:
    """Jaccard of slot 0 against every other slot, per group, from packed keys.

    The counterpart of :func:`group_jaccard` for :func:`packed_keys`. One
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
    assert batch.packing is not None, "packed_jaccard needs a batch of the packed engine"
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
    corpus: WordPieces, batch: Batch, keep: np.ndarray
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
        return sequences_python(
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
    idx = ranges(start, length)
    return corpus.chars[idx], np.repeat(seq, length), corpus.alphabet

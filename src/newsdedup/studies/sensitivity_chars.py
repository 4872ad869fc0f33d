"""Character engine of the sensitivity simulation: n-gram windows of flat character ids.

The fallback of the packed engine (:mod:`newsdedup.studies.sensitivity_batch`) for schemes
without a word-join rule, separators longer than one character and alphabets too large to
pack: the kept-word texts become one array of character ids, every window inside one text
gets an integer code (:func:`window_codes`), and one sort yields every Jaccard value of a
batch (:func:`group_jaccard`).
"""

from __future__ import annotations

import numpy as np

from newsdedup.studies.sensitivity_words import WordPieces, dense_chars

_INT63 = 2**63


def sequences_python(
    corpus: WordPieces, n_texts: int, seq_of_kept: np.ndarray, kept_word: np.ndarray
) -> tuple[np.ndarray, np.ndarray, int]:
    """Fallback of :func:`_sequences` for schemes without a word-join rule."""
    flat_words = [x for w in corpus.words for x in w]
    joined: list[list[str]] = [[] for _ in range(n_texts)]
    for s, g in zip(seq_of_kept.tolist(), kept_word.tolist(), strict=True):
        joined[s].append(flat_words[g])
    texts = [corpus.norm(" ".join(ws)) for ws in joined]
    chars, alphabet = dense_chars("".join(texts))
    lengths = np.array([len(t) for t in texts], dtype=np.int64)
    return chars, np.repeat(np.arange(n_texts, dtype=np.int64), lengths), alphabet


def window_codes(
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


def group_jaccard(
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

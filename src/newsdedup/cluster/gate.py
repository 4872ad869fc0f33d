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

* A leading bracket tag such as ``[속보]`` or ``[단독]`` becomes the key, so a
  tagged and an untagged copy of the same story are kept apart. That is the safe
  direction (one duplicate stays visible) but it is a miss.
* Headlines that do not start with their subject (common in English) make the
  gate block true duplicates that begin differently.
* Stripping the outlet suffix trusts the last ``" - "`` / ``" | "`` when what
  follows is short (at most four words, shorter than the rest); a headline
  whose own text ends in ``"A long headline - B"`` still loses ``B``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

# Google-News style titles end in " - 연합뉴스"; other feeds use " | outlet".
# The separators need spaces on both sides so "AI-기반" or "3-4위" are not cut.
_OUTLET_SEPARATORS: tuple[str, ...] = (" - ", " | ")

# Where a headline's subject ends: whitespace, commas, colons and the middle
# dots, in their ASCII, full-width and CJK forms. "·" (U+00B7) is the common
# one in Korean headlines; "・" (U+30FB), "･" (U+FF65), "‧" (U+2027) and "∙"
# (U+2219) are its look-alikes from other input methods.

_FRAGMENT = re.compile(r"[^\s,，、:：·・･‧∙]+")


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
    cut = max(map(text.rfind, _OUTLET_SEPARATORS))
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

    The outlet suffix is stripped first (:func:`strip_outlet`). The rest is
    split on whitespace, commas, colons and middle dots; the first fragment
    that still has a letter or digit (:meth:`str.isalnum`) after dropping
    everything else is the key. Skipping punctuation-only fragments means a
    stray leading ``"…"`` or ``"-"`` does not empty the key.

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


def subject_key(stripped: str) -> str:
    """:func:`lead_token` of a headline whose outlet suffix is already stripped.

    Examples:
        >>> subject_key("어드밴트, 온디바이스 AI")
        '어드밴트'
    """
    # finditer stops at the first usable fragment instead of splitting the whole title.
    for fragment in _FRAGMENT.finditer(stripped):
        key = "".join(filter(str.isalnum, fragment.group())).lower()
        if key:
            return key
    return ""


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


def bucketed_pairs(
    block: Callable[[np.ndarray, np.ndarray], np.ndarray],
    buckets: np.ndarray,
    threshold: float,
    chunk: int = 256,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair inside one bucket that scores at or above ``threshold``.

    Only items sharing a bucket are scored, so the cost is the sum of the
    squared bucket sizes instead of ``N**2``: near-linear when subjects are
    diverse, as they are in a news feed. Small buckets are packed together
    into blocks of about ``chunk`` items and scored with one sparse product
    per block (pairs across buckets are masked out); a bucket larger than
    ``chunk`` is scored in row blocks against itself. Singleton buckets cost
    nothing.

    Args:
        block: ``block(rows, cols) -> float64 (len(rows), len(cols))`` scores
            between item indices (:meth:`newsdedup.score.scorers.BlockScorer.block`).
        buckets: ``int64`` bucket id per item (:func:`bucket_ids`).
        threshold: Keep pairs with ``score >= threshold``.
        chunk: Items per scored block (memory ``O(chunk x max(chunk, bucket))``).
        progress: Called with ``(items done, items to score)`` after each block.

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
    big = (ends - starts) > chunk
    # Small buckets: a block is every bucket whose first item falls in the same
    # chunk-wide window of the sorted order (blocks stay under 2 * chunk items).
    small_starts, small_ends = starts[~big], ends[~big]
    segment = small_starts // chunk
    seg_bounds = (np.flatnonzero(np.r_[True, segment[1:] != segment[:-1]]) if segment.size
                  else segment)
    out_i: list[np.ndarray] = []
    out_j: list[np.ndarray] = []
    out_s: list[np.ndarray] = []
    done, total = 0, int(items.size)

    def keep(rows: np.ndarray, cols: np.ndarray, scores: np.ndarray, same: np.ndarray) -> None:
        ok = same & (rows[:, None] < cols[None, :]) & (scores >= threshold)
        r, c = np.nonzero(ok)
        out_i.append(rows[r])
        out_j.append(cols[c])
        out_s.append(scores[r, c])

    seg_ends = np.r_[seg_bounds[1:], segment.size] if segment.size else segment
    for a, b in zip(seg_bounds, seg_ends, strict=True):
        idx = np.concatenate([items[lo:hi] for lo, hi in
                              zip(small_starts[a:b], small_ends[a:b], strict=True)])
        keep(idx, idx, block(idx, idx), buckets[idx][:, None] == buckets[idx][None, :])
        done += idx.size
        if progress:
            progress(done, total)
    for lo_b, hi_b in zip(starts[big], ends[big], strict=True):
        members = items[lo_b:hi_b]
        for lo in range(0, members.size, chunk):
            rows = members[lo : lo + chunk]
            keep(rows, members, block(rows, members), np.ones((1, 1), dtype=bool))
            done += rows.size
            if progress:
                progress(done, total)
    return _sorted_pairs(out_i, out_j, out_s)


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


def _sorted_pairs(out_i: list[np.ndarray], out_j: list[np.ndarray],
                  out_s: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The collected pieces as one ``(i, j, score)``, sorted by ``(i, j)``."""
    if not out_i:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty.copy(), np.zeros(0, dtype=np.float64)
    i, j, sc = np.concatenate(out_i), np.concatenate(out_j), np.concatenate(out_s)
    order = np.lexsort((j, i))
    return i[order].astype(np.int64), j[order].astype(np.int64), sc[order].astype(np.float64)

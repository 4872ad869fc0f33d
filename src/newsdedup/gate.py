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
roughly linear instead of quadratic. Here the score matrix is precomputed and
vectorized anyway, so :func:`gate_matrix` is a mask over it rather than buckets.

An empty key means "no usable subject" (the headline is punctuation only, or
empty). The gate then stays out of the way: an empty key is allowed to merge
with anything and the score alone decides, as in the seed.

Known limitations (the seed's and this implementation's):

* A leading bracket tag such as ``[속보]`` or ``[단독]`` becomes the key, so a
  tagged and an untagged copy of the same story are kept apart. That is the safe
  direction (one duplicate stays visible) but it is a miss.
* Headlines that do not start with their subject (common in English) make the
  gate block true duplicates that begin differently.
* Stripping the outlet suffix trusts the last ``" - "`` / ``" | "``; a headline
  whose own text ends in ``"A - B"`` loses ``B``. Only the lead token is taken
  from the remainder, so this rarely changes the key.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

# Google-News style titles end in " - 연합뉴스"; other feeds use " | outlet".
# The separators need spaces on both sides so "AI-기반" or "3-4위" are not cut.
_OUTLET_SEPARATORS: tuple[str, ...] = (" - ", " | ")

# Where a headline's subject ends: whitespace, commas, colons and the middle
# dots, in their ASCII, full-width and CJK forms. "·" (U+00B7) is the common
# one in Korean headlines; "・" (U+30FB), "･" (U+FF65), "‧" (U+2027) and "∙"
# (U+2219) are its look-alikes from other input methods.
_SUBJECT_BREAK = re.compile(r"[\s,，、:：·・･‧∙]+")


def strip_outlet(headline: str) -> str:
    """Remove a trailing outlet name (``" - 연합뉴스"``, ``" | 뉴스1"``).

    The part after the *last* separator is dropped, but only when something
    non-blank precedes it, so a headline that is nothing but ``" - x"`` is
    kept as it is.

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
    """
    text = headline.strip()
    cut = max(text.rfind(sep) for sep in _OUTLET_SEPARATORS)
    if cut > 0 and text[:cut].strip():
        return text[:cut].strip()
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
    for fragment in _SUBJECT_BREAK.split(strip_outlet(headline)):
        key = "".join(ch for ch in fragment if ch.isalnum()).lower()
        if key:
            return key
    return ""


def gate_allows(lead_a: str, lead_b: str) -> bool:
    """Whether two headlines with these keys may be merged.

    Args:
        lead_a: Key of the first headline (:func:`lead_token`).
        lead_b: Key of the second headline.

    Returns:
        True when the keys are equal, or when either is empty (no subject
        known, so the gate does not block).

    Examples:
        >>> gate_allows("어드밴트", "엠젠솔루션")
        False
        >>> gate_allows("진천군", "진천군")
        True
        >>> gate_allows("", "진천군")
        True
    """
    return not lead_a or not lead_b or lead_a == lead_b


def gate_matrix(leads: Sequence[str]) -> np.ndarray:
    """All-pairs :func:`gate_allows` as a boolean matrix, without a Python loop over pairs.

    Args:
        leads: One key per item.

    Returns:
        ``bool`` array of shape ``(N, N)``: symmetric, True on the diagonal,
        ``out[i, j] == gate_allows(leads[i], leads[j])``.

    Examples:
        >>> gate_matrix(["진천군", "경북도", "진천군", ""]).astype(int).tolist()
        [[1, 0, 1, 1], [0, 1, 0, 1], [1, 0, 1, 1], [1, 1, 1, 1]]
    """
    keys = np.asarray(list(leads), dtype=object)
    if keys.size == 0:
        return np.zeros((0, 0), dtype=bool)
    # Integer ids per distinct key turn N^2 string comparisons into one
    # broadcast integer comparison.
    _, ids = np.unique(keys, return_inverse=True)
    ids = ids.reshape(-1)
    empty = keys == ""
    return (ids[:, None] == ids[None, :]) | empty[:, None] | empty[None, :]

"""The exact pass of the dedupe: rows with equal exact-pass keys form one group.

Wire copies republished unchanged end here (:func:`newsdedup.cluster.dedupe.dedupe`, step 1).
The key (:func:`exact_keys`) keeps every letter and digit of every script, so the pass
never merges headlines that differ in meaning-bearing characters the compared scheme
drops (a Hanja ``與``/``野``, a Japanese or Cyrillic headline sharing only its digits).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from newsdedup.text.normalize import exact_key

__all__ = ["EXACT_KEYS", "exact_groups", "exact_keys", "same_partition"]

EXACT_KEYS: tuple[str, ...] = ("every-script", "scheme")
"""What the exact pass may compare (``DedupeConfig.exact_key``): :func:`exact_keys` (the
default), or the compared scheme's normalized headline, as published. The calibration's
strata follow the latter (:mod:`newsdedup.calibration.evidence`)."""


def exact_keys(titles: Sequence[str], heads: Sequence[str]) -> list[str]:
    r"""The exact-pass key per row: its Unicode key and its normalized headline, both.

    Two rows are one exact group only when their titles agree in every letter, mark and
    digit of every script (:func:`newsdedup.text.normalize.exact_key`: NFKC, case
    folded) *and* their normalized headlines (``heads``, the compared scheme's) are
    equal; so an exact group is never wider than the published scheme's, every member
    shares the text the near pass compares, and its members' meaning is the same. A row
    whose Unicode key is empty (punctuation or symbols only) gets the blank key: it says
    nothing about identity and stays alone.

    Args:
        titles: The compared titles (outlet suffix stripped).
        heads: The same titles normalized by the dedupe's scheme.

    Returns:
        One key per row; ``""`` for a row that joins no exact group.

    Examples:
        >>> keys = exact_keys(["與, 예산안 처리", "野, 예산안 처리", "與 예산안 처리!", "…"],
        ...                   ["예산안처리"] * 3 + [""])
        >>> [k.replace("\0", "|") for k in keys]
        ['與예산안처리|예산안처리', '野예산안처리|예산안처리', '與예산안처리|예산안처리', '']
    """
    return [f"{k}\0{h}" if k else "" for k, h in zip(exact_key(titles), heads, strict=True)]


def same_partition(a: Sequence[str], b: Sequence[str]) -> bool:
    """Whether two exact-pass keys per row group the rows alike (a blank key groups nothing).

    Examples:
        >>> same_partition(["x", "x", ""], ["p", "p", ""]), same_partition(["x", "x"], ["p", "q"])
        (True, False)
        >>> same_partition(["", ""], ["j", "j"])
        False
    """
    def codes(keys: Sequence[str]) -> np.ndarray:
        code, _ = pd.factorize(pd.Series(list(keys), dtype=object).replace("", None))
        blank = code < 0
        code[blank] = code.max(initial=-1) + 1 + np.arange(int(blank.sum()))
        return code

    ca, cb = codes(a), codes(b)
    pairs = np.unique(np.stack([ca, cb]), axis=1).shape[1] if len(ca) else 0
    return pairs == len(np.unique(ca)) == len(np.unique(cb))


def exact_groups(heads: list[str], order: np.ndarray, exact_pass: bool,
                 codes: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Exact group per row and the survivor row of each group, both in visiting order.

    Args:
        heads: Normalized headline per row (the exact-pass key).
        order: Visiting order of the rows (:func:`newsdedup.cluster.keep.canonical_order`).
        exact_pass: False puts every row in a group of its own.
        codes: Equal codes exactly for equal ``heads``, in code-point order
            (:func:`newsdedup.cluster.keep.text_codes`), when the caller has them:
            then no string is hashed again.

    Returns:
        ``(exact_id, survivors)``: group per row, numbered by the visiting position of its
        survivor, and the survivor row of each group.

    Examples:
        >>> ids, surv = exact_groups(["a", "b", "a", ""], np.array([2, 1, 0, 3]), True)
        >>> ids.tolist(), surv.tolist()
        ([0, 1, 0, 2], [2, 1, 3])
    """
    n_rows = len(heads)
    # Exact groups: equal normalized headlines. An empty normalized headline
    # says nothing about identity, so such rows stay apart. In canonical
    # order the first row of each group is its best-ranked row: the survivor.
    if exact_pass and codes is not None:
        key_codes = np.asarray(codes, dtype=np.int64)[order]
        code, _ = pd.factorize(key_codes, sort=False)
        # "" sorts first: the rows of the lowest code are blank when one of them is.
        low = int(np.argmin(codes)) if n_rows else 0
        blank = (key_codes == codes[low]) if n_rows and heads[low] == "" else code < 0
        code[blank] = code.max(initial=-1) + 1 + np.arange(int(blank.sum()))
    elif exact_pass:
        key = pd.Series(heads, dtype=object).iloc[order].reset_index(drop=True)
        code, _ = pd.factorize(key.where(key != "", None), sort=False)
        blank = code < 0
        code[blank] = code.max(initial=-1) + 1 + np.arange(int(blank.sum()))
    else:
        code = np.arange(n_rows)
    # factorize numbers groups by first appearance; blanks were appended after,
    # so renumber by first appearance again to keep "visiting position" order.
    _, first = np.unique(code, return_index=True)
    survivor_pos = np.sort(first)
    renum = np.empty(code.max(initial=-1) + 1, dtype=np.int64)
    renum[code[survivor_pos]] = np.arange(survivor_pos.size)
    exact_id = np.empty(n_rows, dtype=np.int64)
    exact_id[order] = renum[code]
    return exact_id, order[survivor_pos].astype(np.int64)

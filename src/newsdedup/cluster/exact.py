"""The exact pass of the dedupe: rows with equal normalized headlines form one group.

Wire copies republished unchanged end here (:func:`newsdedup.cluster.dedupe.dedupe`, step 1).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["exact_groups"]


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

"""Beta and normal quantiles without importing ``scipy.stats``.

``scipy.stats`` takes about a second to import (it parses the docstring of
every distribution), more than a short command spends on its work. These
functions compute what ``scipy.stats.beta.ppf`` and ``scipy.stats.norm.ppf``
return from the public ``scipy.special`` functions (``betaincinv``,
``ndtri``), with the wrappers' handling of the edges (``q`` of 0 or 1,
invalid shapes) repeated. ``tests/studies/test_quantiles.py`` compares them
with ``scipy.stats`` over many inputs. :func:`clopper_pearson`, the exact
binomial interval built on :func:`beta_ppf`, is the one every study uses
(decoy rates, the sweep floor's pair estimate, measure's sampled histogram).
"""

from __future__ import annotations

import numpy as np
from scipy.special import betaincinv, ndtri

__all__ = ["CONFIDENCE", "beta_ppf", "clopper_pearson", "norm_ppf"]

CONFIDENCE = 0.95
"""Two-sided confidence of the intervals the studies write, unless told otherwise."""


def beta_ppf(q, a, b) -> np.ndarray | float:
    """``scipy.stats.beta.ppf(q, a, b)``: the ``q`` quantile of Beta(a, b), elementwise.

    Args:
        q: Lower-tail probabilities.
        a: First shape parameters (> 0).
        b: Second shape parameters (> 0).

    Returns:
        A float for scalar inputs, else an array of the broadcast shape; NaN
        where a parameter is invalid, 0 and 1 at ``q`` of 0 and 1.

    Examples:
        >>> round(beta_ppf(0.5, 2.0, 2.0), 6)
        0.5
    """
    q, a, b = np.broadcast_arrays(*map(np.asarray, (q, a, b)))
    valid = (a > 0) & (b > 0)
    inner = valid & (q > 0) & (q < 1)
    out = np.full(q.shape, np.nan)
    out[valid & (q == 0)] = 0.0
    out[valid & (q == 1)] = 1.0
    if inner.any():
        # rv_continuous.ppf returns ``_ppf(q) * scale + loc``: the + 0.0 turns -0.0 into 0.0.
        out[inner] = betaincinv(a[inner], b[inner], q[inner]) * 1.0 + 0.0
    return float(out) if out.ndim == 0 else out


def norm_ppf(q) -> np.ndarray | float:
    """``scipy.stats.norm.ppf(q)``: the ``q`` quantile of the standard normal.

    ``norm.ppf`` is ``ndtri(q) * scale + loc`` with the wrapper's edges (NaN
    outside ``[0, 1]``, -inf and inf at 0 and 1), which ``ndtri`` already has.

    Examples:
        >>> round(norm_ppf(0.975), 6)
        1.959964
    """
    out = ndtri(np.asarray(q, dtype=np.float64)) * 1.0 + 0.0
    return float(out) if np.ndim(out) == 0 else out


def clopper_pearson(k, n, confidence: float = CONFIDENCE):
    """Exact two-sided interval of a binomial rate: ``k`` successes of ``n`` trials.

    Args:
        k: Successes, ``0 <= k <= n``: an int or an array of them.
        n: Trials, ``n >= 0`` (``n == 0`` gives ``(0, 1)``): an int, or an array
            broadcasting with ``k``.
        confidence: Two-sided confidence level.

    Returns:
        ``(low, high)`` in ``[0, 1]``: floats for scalar inputs, else arrays
        of the broadcast shape. ``low`` is 0 at ``k == 0`` and ``high`` is 1 at ``k == n``.

    Raises:
        ValueError: Some ``k`` is outside ``[0, n]``.

    Examples:
        >>> [round(x, 4) for x in clopper_pearson(0, 10)]
        [0.0, 0.3085]
        >>> lo, hi = clopper_pearson(np.array([0, 10]), 10)
        >>> lo.round(3).tolist(), hi.round(3).tolist()
        ([0.0, 0.692], [0.308, 1.0])
    """
    kk, nn = np.broadcast_arrays(np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64))
    if np.any((kk < 0) | (kk > nn)):
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    a = (1.0 - confidence) / 2
    # The shapes at the ends (k = 0 or n) are invalid for beta_ppf; the
    # np.maximum keeps them valid and np.where replaces those ends anyway.
    low = np.where(kk > 0, beta_ppf(a, np.maximum(kk, 1), nn - kk + 1), 0.0)
    high = np.where(kk < nn, beta_ppf(1 - a, kk + 1, np.maximum(nn - kk, 1)), 1.0)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high

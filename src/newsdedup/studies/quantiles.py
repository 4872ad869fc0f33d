"""Beta and negative-binomial quantiles without importing ``scipy.stats``.

``scipy.stats`` takes about a second to import (it parses the docstring of
every distribution), more than a published-block command spends on its
work. These two functions compute what ``scipy.stats.beta.ppf`` and
``scipy.stats.nbinom.ppf`` return, bit for bit, from the same
``scipy.special`` ufuncs those methods call (SciPy 1.17), with the
wrappers' handling of the edges (``q`` of 0 or 1, invalid shapes) repeated.
``tests/studies/test_quantiles.py`` compares both with ``scipy.stats`` over
many inputs.
"""

from __future__ import annotations

import numpy as np

try:  # the private ufuncs scipy.stats calls; another SciPy may name or place them otherwise
    from scipy.special._ufuncs import _beta_ppf, _nbinom_ppf
except ImportError:  # pragma: no cover - exercised by the test through monkeypatch
    _beta_ppf = _nbinom_ppf = None

__all__ = ["beta_ppf", "nbinom_ppf"]


def beta_ppf(q, a, b) -> np.ndarray | float:
    """``scipy.stats.beta.ppf(q, a, b)``: the ``q`` quantile of Beta(a, b), elementwise.

    Args:
        q: Lower-tail probabilities.
        a: First shape parameters (> 0).
        b: Second shape parameters (> 0).

    Returns:
        A float for scalar inputs, else an array of the broadcast shape; NaN
        where a parameter is invalid, 0 and 1 at ``q`` of 0 and 1.
    """
    if _beta_ppf is None:  # scipy.stats itself: the same numbers, a second more to import
        from scipy.stats import beta

        return beta.ppf(q, a, b)
    q, a, b = np.broadcast_arrays(*map(np.asarray, (q, a, b)))
    valid = (a > 0) & (b > 0)
    inner = valid & (q > 0) & (q < 1)
    out = np.full(q.shape, np.nan)
    out[valid & (q == 0)] = 0.0
    out[valid & (q == 1)] = 1.0
    if inner.any():
        # rv_continuous.ppf returns ``_ppf(q) * scale + loc``: the + 0.0 turns -0.0 into 0.0.
        out[inner] = _beta_ppf(q[inner], a[inner], b[inner]) * 1.0 + 0.0
    return out[()] if out.ndim == 0 else out


def nbinom_ppf(q, n, p) -> np.ndarray | float:
    """``scipy.stats.nbinom.ppf(q, n, p)``: the ``q`` quantile of NB(n, p), elementwise.

    Args:
        q: Lower-tail probabilities.
        n: Numbers of successes (> 0).
        p: Success probabilities, in ``(0, 1]``.

    Returns:
        A float for scalar inputs, else an array of the broadcast shape; NaN
        where a parameter is invalid, -1 at ``q`` of 0 and infinity at 1.
    """
    if _nbinom_ppf is None:
        from scipy.stats import nbinom

        return nbinom.ppf(q, n, p)
    q, n, p = np.broadcast_arrays(*map(np.asarray, (q, n, p)))
    valid = (n > 0) & (p > 0) & (p <= 1)
    out = np.full(q.shape, np.nan)
    out[valid & (q == 0)] = -1.0
    out[valid & (q == 1)] = np.inf
    inner = valid & (q > 0) & (q < 1)
    if inner.any():
        with np.errstate(over="ignore"):  # as scipy.stats (its gh-17432)
            out[inner] = _nbinom_ppf(q[inner], n[inner], p[inner]) + 0.0
    return out[()] if out.ndim == 0 else out

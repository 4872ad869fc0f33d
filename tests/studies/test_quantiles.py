"""The scipy.stats-free quantiles equal scipy.stats, edges included."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from newsdedup.studies.quantiles import beta_ppf, clopper_pearson, norm_ppf


def _inputs(seed: int, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Probabilities (the 95 % ends, uniform draws, 0 and 1) and shapes over many scales."""
    rng = np.random.default_rng(seed)
    q = rng.choice([0.025, 0.975, 0.05, 0.95], size)
    q[: size // 2] = rng.uniform(0, 1, size // 2)
    q[:4] = [0.0, 1.0, 0.5, 1e-12]
    return q, rng.integers(1, 5000, size), np.exp(rng.uniform(np.log(1e-7), 0, size))


@pytest.mark.parametrize("seed", range(3))
def test_beta_ppf_equals_scipy_stats(seed):
    q, a, _ = _inputs(seed, 2000)
    b = np.random.default_rng(seed + 10).integers(1, 10**7, len(q))
    np.testing.assert_array_equal(beta_ppf(q, a, b), stats.beta.ppf(q, a, b))
    np.testing.assert_array_equal(beta_ppf(q, b, a), stats.beta.ppf(q, b, a))
    odd = np.array([0.5, 1e-3, 0.0, -2.0, 1.0])
    np.testing.assert_array_equal(beta_ppf(0.025, odd, odd[::-1]),
                                  stats.beta.ppf(0.025, odd, odd[::-1]))
    assert beta_ppf(0.025, 3, 5) == stats.beta.ppf(0.025, 3, 5)
    assert isinstance(beta_ppf(0.025, 3, 5), float)


def test_norm_ppf_equals_scipy_stats():
    q = np.concatenate(([0.0, 1.0, 0.5, 0.975, 1e-300, -0.1, 1.1], _inputs(3, 500)[0]))
    np.testing.assert_array_equal(norm_ppf(q), stats.norm.ppf(q))
    assert norm_ppf(0.975) == stats.norm.ppf(0.975) and isinstance(norm_ppf(0.975), float)


@pytest.mark.parametrize("confidence", [0.95, 0.9, 0.99])
def test_clopper_pearson_is_the_textbook_interval(confidence):
    # The definition through scipy.stats.beta: lower = B(a/2; k, n-k+1), upper =
    # B(1-a/2; k+1, n-k), with the ends at k = 0 and k = n pinned to 0 and 1.
    rng = np.random.default_rng(5)
    n = rng.integers(0, 10**6, 400)
    n[:3] = [0, 1, 7]
    k = (rng.uniform(0, 1, 400) * (n + 1)).astype(np.int64).clip(0, n)
    k[3:6] = 0
    k[6:9] = n[6:9]
    a = (1 - confidence) / 2
    with np.errstate(invalid="ignore"):
        want_lo = np.where(k > 0, stats.beta.ppf(a, k, n - k + 1), 0.0)
        want_hi = np.where(k < n, stats.beta.ppf(1 - a, k + 1, n - k), 1.0)
    lo, hi = clopper_pearson(k, n, confidence)
    np.testing.assert_array_equal(lo, want_lo)
    np.testing.assert_array_equal(hi, want_hi)
    # scalars in, floats out, the same numbers
    for i in range(10):
        one = clopper_pearson(int(k[i]), int(n[i]), confidence)
        assert all(isinstance(x, float) for x in one)
        assert one == (float(lo[i]), float(hi[i]))
    # a known value: 3 of 20 at 95 %
    assert [round(x, 4) for x in clopper_pearson(3, 20)] == [0.0321, 0.3789]


def test_clopper_pearson_refuses_counts_outside_the_trials():
    with pytest.raises(ValueError, match="0 <= k <= n"):
        clopper_pearson(5, 4)
    with pytest.raises(ValueError, match="0 <= k <= n"):
        clopper_pearson(np.array([1, -1]), 10)

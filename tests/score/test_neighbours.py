"""window_neighbours against a brute force over every pair."""

from __future__ import annotations

import numpy as np
import pytest

from newsdedup.score.neighbours import RANK_DECIMALS, window_neighbours


def _unit(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    x = rng.normal(size=(n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def brute(x: np.ndarray, t: np.ndarray, k: int, window: float | None) -> set[tuple[int, int]]:
    """Each item's k best by (rounded cosine, lower row), pairs either way, by plain loops."""
    n = len(x)
    sims = x.astype(np.float64) @ x.astype(np.float64).T
    out = set()
    for a in range(n):
        cands = []
        for b in range(n):
            if a == b:
                continue
            if window is not None and abs(t[a] - t[b]) >= window:  # NaN: False, kept
                continue
            cands.append((-round(sims[a, b] * 10 ** RANK_DECIMALS), b))
        for _, b in sorted(cands)[:k]:
            out.add((min(a, b), max(a, b)))
    return out


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("block", [1, 7, 256])
def test_matches_brute_force(seed: int, block: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 60))
    x = _unit(rng, n, 8)
    t = rng.uniform(0, 100, n)
    t[rng.random(n) < 0.15] = np.nan  # some undated items: compared with everyone
    k = int(rng.integers(1, 6))
    window = [None, 10.0, 30.0][seed % 3]
    i, j, cos = window_neighbours(x, t, k, window, block=block)
    assert set(zip(i.tolist(), j.tolist(), strict=True)) == brute(x, t, k, window)
    assert np.all(i < j)
    assert np.all(np.diff(i * n + j) > 0)  # sorted, once each
    np.testing.assert_allclose(cos, np.sum(x[i].astype(np.float64) * x[j], axis=1), atol=1e-6)


def test_ties_go_to_the_lower_row() -> None:
    # Items 1, 2, 3 are the same vector: item 0's single neighbour is the lowest of them.
    x = np.array([[1, 0], [0.6, 0.8], [0.6, 0.8], [0.6, 0.8]], dtype=np.float32)
    i, j, _ = window_neighbours(x, np.zeros(4), 1, None)
    assert (0, 1) in set(zip(i.tolist(), j.tolist(), strict=True))
    assert (0, 2) not in set(zip(i.tolist(), j.tolist(), strict=True))


def test_window_excludes_far_items_and_rejects_bad_input() -> None:
    x = np.array([[1, 0], [1, 0]], dtype=np.float32)
    i, _, _ = window_neighbours(x, np.array([0.0, 100.0]), 3, 50.0)
    assert len(i) == 0  # identical texts, but too far apart
    with pytest.raises(ValueError, match="k must be"):
        window_neighbours(x, np.zeros(2), 0, None)
    with pytest.raises(ValueError, match="shape"):
        window_neighbours(x, np.zeros(3), 1, None)

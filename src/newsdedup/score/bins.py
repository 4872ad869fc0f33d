"""Score bins shared by the histograms of :mod:`newsdedup.score.join` and the LSH recall table.

Both tables use the same bins so that their rows line up: bin ``k`` holds scores
``edges[k] <= s < edges[k+1]`` and the last bin also holds its right edge (a score of
exactly 1.0 is counted, not dropped).
"""

from __future__ import annotations

import numpy as np


def bin_of(scores: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The bin of each score; the last bin also holds its right edge.

    Args:
        scores: Scores inside ``[edges[0], edges[-1]]``.
        edges: Strictly increasing bin edges, as returned by :func:`check_edges`.

    Returns:
        Bin indices, ``0 .. len(edges) - 2``.

    Examples:
        >>> bin_of(np.array([0.0, 0.49, 0.5, 1.0]), np.array([0.0, 0.5, 1.0])).tolist()
        [0, 0, 1, 1]
    """
    b = np.searchsorted(edges, scores, side="right") - 1
    b[scores == edges[-1]] = len(edges) - 2
    return b


def check_edges(edges: np.ndarray | list[float]) -> np.ndarray:
    """Histogram edges as float64, checked.

    Args:
        edges: Bin edges.

    Returns:
        The edges as a float64 array.

    Raises:
        ValueError: Fewer than two edges, not strictly increasing, starting below 0 or
            ending below 1.0.

    Examples:
        >>> check_edges([0.5, 0.75, 1.0]).tolist()
        [0.5, 0.75, 1.0]
        >>> check_edges([0.5, 0.9])
        Traceback (most recent call last):
        ...
        ValueError: histogram edges must start at >= 0 and end at >= 1.0, got [0.5, 0.9]
    """
    e = np.asarray(edges, dtype=np.float64)
    if e.ndim != 1 or len(e) < 2 or np.any(np.diff(e) <= 0):
        raise ValueError(f"histogram edges must be >= 2 strictly increasing values, got {edges}")
    if e[0] < 0 or e[-1] < 1.0:
        raise ValueError(f"histogram edges must start at >= 0 and end at >= 1.0, got {edges}")
    return e

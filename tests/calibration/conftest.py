"""What the calibration tests share: a population of given stratum sizes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from newsdedup.calibration.population import Population


def population(sizes):
    """A population whose stratum h holds sizes[h] pairs (pair k: rows k and N + k)."""
    stratum = np.repeat(np.arange(len(sizes)), sizes)
    n = stratum.size
    strata = pd.DataFrame({"stratum": np.arange(len(sizes)), "size": np.asarray(sizes)})
    return Population(np.arange(n), np.arange(n) + n, np.full(n, 0.5), np.ones(n, bool),
                      np.zeros(n), stratum, strata, [f"id{k:05d}" for k in range(2 * n)], 0.05)

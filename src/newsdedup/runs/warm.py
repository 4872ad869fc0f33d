"""Where numba keeps the compiled kernels, and compiling them all ahead of the first run.

The compiled paths (:mod:`newsdedup.score.kernels`, ``join_kernels``,
``bucket_kernels``, :mod:`newsdedup.text.shingle_kernels` and the greedy walk)
are ``njit(cache=True)``: a process loads machine code from numba's cache
instead of compiling it (about half a second against 10-25 s). By default numba
writes that cache next to each module, which a fresh checkout, ``make clean`` or
a read-only install loses, so the first run after them compiled everything.

Two things remove that first-run penalty:

* :func:`~newsdedup.paths.configure_numba_cache` (run by every kernel
  module before it imports numba) points ``NUMBA_CACHE_DIR`` at a
  user cache directory that survives new virtual environments and ``make
  clean``: ``$NEWSDEDUP_CACHE/numba``, else ``$XDG_CACHE_HOME/newsdedup/numba``,
  else ``~/.cache/newsdedup/numba`` (:func:`~newsdedup.paths.numba_cache_dir`).
  A ``NUMBA_CACHE_DIR`` already set is kept.
  numba keys each entry by the module's path and modification time, so
  checkouts side by side never share (or break) each other's entries.
* :func:`warm` compiles every kernel once on tiny inputs; ``make install``
  runs it (``python -m newsdedup.runs.warm``), so the first real run finds
  them all in the cache.
"""

from __future__ import annotations

import time

from newsdedup.paths import configure_numba_cache

__all__ = ["warm"]


def warm() -> float:
    """Compile (or load) every numba kernel of the package once, on tiny inputs; return seconds.

    Each call takes the path a large input would take (``kernel="numba"``,
    thresholds set to 0), so what the real runs need is in the cache after it.
    """
    import numpy as np
    import pandas as pd

    from newsdedup.cluster.dedupe import DedupeConfig, dedupe
    from newsdedup.cluster.gate import bucketed_pairs
    from newsdedup.cluster.greedy import greedy_pairs
    from newsdedup.score.jaccard import idf_weights, pair_intersections
    from newsdedup.score.join import threshold_join
    from newsdedup.score.minhash import (
        MinHashConfig,
        estimate_pairs,
        first_shared_band,
        signatures,
    )
    from newsdedup.score.scorers import make_scorer
    from newsdedup.text import shingle
    from newsdedup.text.shingle import shingle_matrix

    t0 = time.perf_counter()
    sm = shingle_matrix(["abcdef", "abcdeg", "abcxyz"], 3)
    sigs = signatures(sm, MinHashConfig(), kernel="numba")
    estimate_pairs(sigs, sm.sizes == 0, np.arange(2), np.arange(1, 3), kernel="numba")
    first_shared_band(sigs, np.arange(2), np.arange(1, 3), 4, 8, kernel="numba")
    threshold_join(sm, 0.3, kernel="numba")
    pair_intersections(sm.matrix, np.arange(2), np.arange(1, 3))
    pair_intersections(sm.matrix, np.arange(2), np.arange(1, 3), idf_weights(sm))
    for kind in ("idf", "jaccard"):
        scorer = make_scorer(sm, kind)
        bucketed_pairs(scorer.block, np.zeros(3, np.int64), 0.3, pair_scores=scorer.run_pairs,
                       pair_path_min=0)
        scorer.pairs_above(np.arange(3), np.array([0]), np.array([3]), 0.3)
    greedy_pairs(2, np.array([0]), np.array([1]), np.array([0.5]), 0.3, compiled=True)
    saved, shingle.COMPILED_MIN = shingle.COMPILED_MIN, 0
    try:
        shingle_matrix(["abcdef", "abcdeg"], 3)
    finally:
        shingle.COMPILED_MIN = saved
    dedupe(pd.DataFrame({"title": ["a b", "a c"]}), DedupeConfig())
    return time.perf_counter() - t0


if __name__ == "__main__":  # ``python -m newsdedup.runs.warm`` (make install)
    used = configure_numba_cache()
    seconds = warm()
    print(f"newsdedup: numba kernels compiled or loaded in {seconds:.1f} s "
          f"(cache: {used or 'next to the modules'})")

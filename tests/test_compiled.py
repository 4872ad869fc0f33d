"""numba's compiled kernels are cached in a user directory that outlives venvs and checkouts."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "NEWSDEDUP_CACHE", "XDG_CACHE_HOME")}
    return env | extra


def test_numba_cache_goes_to_the_user_cache_dir(tmp_path):
    code = ("import os; import newsdedup.score.kernels; import numba; "
            "print(os.environ['NUMBA_CACHE_DIR']); print(numba.config.CACHE_DIR)")
    out = subprocess.run([sys.executable, "-c", code], env=_env(XDG_CACHE_HOME=str(tmp_path)),
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == [str(tmp_path / "newsdedup" / "numba")] * 2
    # A directory set by the user wins.
    mine = tmp_path / "mine"
    out = subprocess.run([sys.executable, "-c", code],
                         env=_env(NUMBA_CACHE_DIR=str(mine), XDG_CACHE_HOME=str(tmp_path)),
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == [str(mine)] * 2


def test_a_second_process_loads_the_kernel_from_the_cache(tmp_path):
    code = """
from newsdedup.score import kernels
import numpy as np
sigs = np.zeros((3, 4), dtype=np.uint64)
out = np.empty(2, dtype=np.int64)
kernels.signature_agreements(sigs, np.array([0, 1]), np.array([1, 2]), out)
stats = kernels.signature_agreements.stats
print(sum(stats.cache_hits.values()), sum(stats.cache_misses.values()))
"""
    runs = [subprocess.run([sys.executable, "-c", code], env=_env(NEWSDEDUP_CACHE=str(tmp_path)),
                           capture_output=True, text=True, check=True).stdout.split()
            for _ in range(2)]
    assert runs[0] == ["0", "1"]  # compiled, written to the user cache
    assert runs[1] == ["1", "0"]  # loaded from it
    assert list((tmp_path / "numba").rglob("*.nbi"))


def test_warm_compiles_every_kernel_the_runs_use():
    # Every public kernel of the package must have been compiled (or loaded) by warm(); the
    # private ones are helpers compiled into their callers.
    from numba.core.registry import CPUDispatcher

    from newsdedup.runs.warm import warm

    assert warm() >= 0.0
    modules = ["newsdedup.score.kernels", "newsdedup.score.join_kernels",
               "newsdedup.score.bucket_kernels", "newsdedup.text.shingle_kernels"]
    kernels = {f"{name}.{key}": value for name in modules
               for key, value in vars(importlib.import_module(name)).items()
               if isinstance(value, CPUDispatcher) and value.__module__ == name}
    # marked_score is public only because two kernel modules call it; Python never does.
    helpers = {"newsdedup.score.kernels.marked_score"}
    public = {name: k for name, k in kernels.items()
              if name.rsplit(".", 1)[1][0] != "_" and name not in helpers}
    assert "newsdedup.score.kernels.shared_weights" in public
    assert [name for name, k in public.items() if not k.signatures] == []

"""Benchmark: the Dask paths against the single-machine ones, in the same run.

On a local cluster (``--workers`` worker processes, one thread each) and the
same synthetic collections as ``bench_scale.py`` (Korean, seed 0), times the
median of ``--repeat`` runs of the threshold join (J >= 0.5, 0.3) and the
gated dedupe, one machine vs Dask, checks the results are identical and
writes ``bench/results/distributed.csv``. Cluster start-up is not timed;
scatter, scheduling and gathering are. On a 2-core machine shared with other
work this measures overhead more than speed-up: read the ratios.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scale import OUT, _timed  # noqa: E402


def main(argv=None) -> int:
    from distributed import Client, LocalCluster

    from newsdedup.cluster.dedupe import DedupeConfig, dedupe
    from newsdedup.cluster.distributed import dask_dedupe, dask_threshold_join
    from newsdedup.score.join import threshold_join
    from newsdedup.studies.synthetic import enlarge, headline_pool
    from newsdedup.text.normalize import hangul_alnum
    from newsdedup.text.shingle import shingle_matrix

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    rows = []
    pool = headline_pool("ko")
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        for size in args.sizes:
            frame = enlarge(pool, size, seed=0)
            sh = shingle_matrix([hangul_alnum(t) for t in frame.text], 3)
            items = pd.DataFrame({"id": [f"ko{k}" for k in range(size)], "title": frame.text})
            steps = [(f"join_j{t}", lambda t=t, sh=sh: threshold_join(sh, t),
                      lambda t=t, sh=sh: dask_threshold_join(sh, t, client))
                     for t in (0.5, 0.3)]
            steps.append(("dedupe_gated", lambda df=items: dedupe(df, DedupeConfig()).items,
                          lambda df=items: dask_dedupe(df, DedupeConfig(), client)))
            for step, one, dask in steps:
                print(f"[bench-distributed] {size}: {step} ...", file=sys.stderr, flush=True)
                t_one, r_one, _, _ = _timed(one, args.repeat)
                t_dask, r_dask, _, _ = _timed(dask, args.repeat)
                if step.startswith("join"):
                    assert np.array_equal(r_one.pairs.i, r_dask.pairs.i)
                    assert np.array_equal(r_one.pairs.score, r_dask.pairs.score)
                else:
                    pd.testing.assert_frame_equal(r_one, r_dask)
                rows.append({"n_items": size, "step": step, "one_machine_s": t_one,
                             "dask_s": t_dask, "ratio": t_one / t_dask,
                             "workers": args.workers, "repeats": args.repeat,
                             "identical": True})
    table = pd.DataFrame(rows)
    OUT.mkdir(exist_ok=True)
    table.to_csv(OUT / "distributed.csv", index=False, float_format="%.6g")
    print(table.to_string(index=False, float_format=lambda x: f"{x:.3g}"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

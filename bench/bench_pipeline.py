"""Benchmark: the package against plain-Python implementations, in the same run.

Times, on the pinned corpus (or another given with --corpus), the median of
``--repeat`` runs of

* measure: the published block 1 (n = 3, 4, 5: signatures, exact and
  estimated Jaccard, threshold tables, top 12) -- ``newsdedup.studies.measure`` vs
  ``bench/baseline.py``;
* calibrate: the word-retention simulation with the published draws --
  ``simulate_exact`` vs ``simulate_reference``;
* cross-host: bound, cross pairs and top pairs -- ``newsdedup.studies.crosshost`` vs
  ``bench/baseline.py``;

checks that both sides give identical numbers, prints the ratios and writes
``bench/results/bench.csv`` and ``bench/results/bench.png``. Machines are
shared and noisy: read the medians and ratios, not single runs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

import baseline  # noqa: E402

from newsdedup.corpus.load import load_corpus  # noqa: E402
from newsdedup.paths import locate_pinned  # noqa: E402
from newsdedup.runs.crosshost import exact_scores  # noqa: E402
from newsdedup.studies.crosshost import cross_host  # noqa: E402
from newsdedup.studies.measure import MeasureConfig, run_measure  # noqa: E402
from newsdedup.studies.sensitivity import SensitivityConfig, simulate  # noqa: E402
from newsdedup.text.normalize import item_text  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"


def _time(fn, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def _check_measure(ours, base) -> None:
    for m in ours.per_ngram:
        b = base["per_n"][m.n]
        assert m.mean_shingles == b["mean_shingles"], m.n
        assert abs(m.err_mean - b["err_mean"]) < 1e-15 and m.err_max == b["err_max"], m.n
        got = [tuple(r) for r in m.thresholds[["threshold", "real", "candidates", "matches"]]
               .itertuples(index=False)]
        assert got == b["table"], (m.n, got, b["table"])
    top = [(r.score, r.i, r.j) for r in ours.top.itertuples(index=False)]
    assert top == base["top"], "top pairs differ"


def _check_cross(ours, base) -> None:
    assert ours.upper_bound == base["bound"] and ours.n_cross == base["n_cross"]
    assert ours.n_above_bound == base["above"]
    top = [(r.score, r.i, r.j) for r in ours.pairs.head(3).itertuples(index=False)]
    assert top == base["top"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, help="corpus file (default: the pinned archive)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per side (median is reported)")
    args = ap.parse_args(argv)
    path = args.corpus or locate_pinned()
    corpus = load_corpus(path, dialect="seed" if args.corpus is None else "standard")
    items = corpus.items
    rows3 = list(zip(items.id, items.title, items.summary, strict=True))
    rows4 = list(zip(items.id, items.title, items.summary, items.host, strict=True))
    texts = [item_text(t, s) for _, t, s in rows3]
    cfg = MeasureConfig(error_perms=(), lsh=False)
    sens = SensitivityConfig(method="exact")

    results = []

    def record(step, ours_fn, base_fn, check):
        print(f"[bench] {step}: package ...", file=sys.stderr, flush=True)
        t_ours, ours = _time(ours_fn, args.repeat)
        print(f"[bench] {step}: plain Python ...", file=sys.stderr, flush=True)
        t_base, base = _time(base_fn, args.repeat)
        check(ours, base)
        results.append({"step": step, "baseline_s": t_base, "package_s": t_ours,
                        "ratio": t_base / t_ours})

    record("measure", lambda: run_measure(items, cfg), lambda: baseline.measure(rows3),
           _check_measure)
    record("calibrate", lambda: simulate(texts, sens),
           lambda: simulate(texts, SensitivityConfig(method="reference")),
           lambda a, b: [_same(a.both[f], b.both[f]) and _same(a.one[f], b.one[f])
                         for f in a.both])
    record("crosshost", lambda: cross_host(items, exact_scores(items, 4)),
           lambda: baseline.crosshost(rows4), _check_cross)

    table = pd.DataFrame(results)
    total = pd.DataFrame([{"step": "all", "baseline_s": table.baseline_s.sum(),
                           "package_s": table.package_s.sum(),
                           "ratio": table.baseline_s.sum() / table.package_s.sum()}])
    table = pd.concat([table, total], ignore_index=True)
    print(f"corpus {path.name}: {len(items)} items, median of {args.repeat} runs, "
          "identical numbers on both sides")
    print(table.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    OUT.mkdir(exist_ok=True)
    table.to_csv(OUT / "bench.csv", index=False, float_format="%.4f")
    _plot(table, OUT / "bench.png")
    return 0


def _same(a, b) -> bool:
    import numpy as np

    assert np.array_equal(a, b), "simulation values differ"
    return True


def _plot(table: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = table[table.step != "all"]
    fig, ax = plt.subplots(figsize=(6, 3))
    x = range(len(t))
    ax.bar([i - 0.2 for i in x], t.baseline_s, 0.4, label="plain Python")
    ax.bar([i + 0.2 for i in x], t.package_s, 0.4, label="newsdedup")
    for i, r in zip(x, t.itertuples(index=False), strict=True):
        ax.text(i, max(r.baseline_s, r.package_s), f"{r.ratio:.0f}x", ha="center", va="bottom")
    ax.set_xticks(list(x), t.step)
    ax.set_ylabel("median seconds")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)


if __name__ == "__main__":
    raise SystemExit(main())

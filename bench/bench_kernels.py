"""Benchmark: the compiled kernels of issue 13 against their baselines, in the same run.

For each language (``--languages``, default ``ko en``) a collection of
``--size`` headlines (default 100k) is built from the real pool by
word-retention rewrites (:func:`newsdedup.studies.synthetic.enlarge`, seed 0)
and, in a fresh process, each step is timed (median of ``--repeat`` runs) with
its peak RSS:

* ``sig_*``: MinHash signatures of the published family (crc32 + exact
  ``(a h + b) mod (2**61 - 1)``, seed 42, k = 128) on the shingle matrix,
  compiled kernel (``sig_numba``) and the numpy table-and-gather path
  (``sig_numpy``), checked identical; baseline ``sig_rensa``: rensa's
  ``RMinHash.digest_matrix_from_token_sets`` on the same shingle sets (its own
  hash, k = 128, seed 42; the token lists are built outside the timing).
  Shingling is excluded from all three. ``sig_numba`` and ``sig_rensa``
  alternate run by run, so a shared machine's changing load falls on both.
* ``join_j*``: the exact threshold join, compiled kernel against the numpy
  kernel (sparse product per block), checked pair for pair and score for
  score (median of ``--join-repeat`` runs, default 1); the numpy baseline
  runs only up to ``--numpy-join-max`` items.
* ``dedupe_gated``: :func:`newsdedup.cluster.dedupe.dedupe` (IDF, 0.30, gate
  on), against ``dedupe_reference``: the same call with the per-item and
  packed-block paths it took before (one normalization and subject key per
  item in Python, scored blocks per bucket, no splitting of crowded lead
  tokens); groups checked identical where no lead token is crowded.
* ``dedupe_shared`` / ``dedupe_varied``: ``--lead-size`` headlines (default
  150k), each prefixed with one lead token (``연합뉴스`` / ``Reuters``),
  against the same headlines as they are; the target is a ratio within 2x.

* ``estimate_*``: :func:`newsdedup.score.minhash.estimate_pairs` on 2M seeded
  random pairs (the size of a large corpus's LSH candidates at one
  threshold), compiled kernel against the numpy gather, checked identical.

``--steps`` selects groups of steps (``sig``, ``join``, ``dedupe``, ``estimate``); with
``--append`` the new rows replace those of the same language, size and step.
``--memory N`` instead runs the gated dedupe of N Korean headlines in a fresh
process and reports the process's peak RSS (``VmHWM``, input included).
Numba's compile or cache load is done once before the timings (and reported as
``numba_warmup``). Writes ``bench/results/kernels.csv``, ``kernels.png`` and
the digest ``kernels.md`` (``--summary`` rewrites it from the CSV).
The machine is shared: read the ratios measured in the same run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from bench_scale import _timed

OUT = Path(__file__).resolve().parent / "results"
LEAD = {"ko": "연합뉴스", "en": "Reuters"}
K = 128


@contextlib.contextmanager
def reference_paths():
    """The dedupe as it ran before the batched and listed paths (same function, old routes)."""
    from newsdedup.cluster import dedupe as dedupe_module
    from newsdedup.cluster import gate, keep
    from newsdedup.text.normalize import get_scheme

    saved = (dedupe_module.normalize_many, gate.subject_keys, gate.PAIR_PATH_MIN,
             keep._sorted_codes, gate.DEFAULT_LIMITS)
    dedupe_module.normalize_many = lambda texts, scheme: [get_scheme(scheme)(t) for t in texts]
    gate.subject_keys = lambda titles: [gate.subject_key(t) for t in titles]
    gate.PAIR_PATH_MIN = 10**18
    keep._sorted_codes = lambda v: pd.factorize(pd.Series(list(v), dtype=object),
                                                sort=True)[0].astype(np.int64)
    gate.DEFAULT_LIMITS = gate.BucketLimits(split_depth=0)
    try:
        yield
    finally:
        (dedupe_module.normalize_many, gate.subject_keys, gate.PAIR_PATH_MIN,
         keep._sorted_codes, gate.DEFAULT_LIMITS) = saved


def _row(rows, lang, size, step, fn, repeat, **extra):
    print(f"[bench-kernels] {lang} {size}: {step} ...", file=sys.stderr, flush=True)
    cpu0 = time.process_time()
    secs, result, peak, delta = _timed(fn, repeat)
    rows.append({"language": lang, "n_items": size, "step": step, "median_s": secs,
                 "cpu_s_per_run": (time.process_time() - cpu0) / repeat, "repeats": repeat,
                 "peak_rss_mb": peak / 2**20, "step_rss_mb": delta / 2**20, **extra})
    return result


def _warm_numba() -> float:
    from newsdedup.cluster.dedupe import DedupeConfig, dedupe
    from newsdedup.cluster.gate import bucketed_pairs
    from newsdedup.score.join import threshold_join
    from newsdedup.score.minhash import MinHashConfig, estimate_pairs, signatures
    from newsdedup.score.scorers import make_scorer
    from newsdedup.text.shingle import shingle_matrix

    t0 = time.perf_counter()
    sm = shingle_matrix(["abcdef", "abcdeg", "abcxyz"], 3)
    sigs = signatures(sm, MinHashConfig(), kernel="numba")
    estimate_pairs(sigs, sm.sizes == 0, np.arange(2), np.arange(1, 3), kernel="numba")
    threshold_join(sm, 0.3, kernel="numba")
    scorer = make_scorer(sm, "idf")
    bucketed_pairs(scorer.block, np.zeros(3, np.int64), 0.3, pair_scores=scorer.run_pairs,
                   pair_path_min=0)
    # The dedupe's other compiled steps: shingling, kept bucket pairs, greedy walk.
    scorer.pairs_above(np.arange(3), np.array([0]), np.array([3]), 0.3)
    from newsdedup.cluster.greedy import greedy_pairs
    from newsdedup.text import shingle

    greedy_pairs(2, np.array([0]), np.array([1]), np.array([0.5]), 0.3, compiled=True)
    saved, shingle.COMPILED_MIN = shingle.COMPILED_MIN, 0
    try:
        shingle_matrix(["abcdef", "abcdeg"], 3)
    finally:
        shingle.COMPILED_MIN = saved
    dedupe(pd.DataFrame({"title": ["a b", "a c"]}), DedupeConfig())
    return time.perf_counter() - t0


STEPS = ("sig", "join", "dedupe", "estimate")
"""Groups of steps ``--steps`` can select (default all)."""


def run_one(lang: str, size: int, lead_size: int, repeat: int, numpy_join_max: int,
            steps: tuple[str, ...] = STEPS, join_repeat: int = 1):
    from newsdedup.studies.synthetic import enlarge, headline_pool
    from newsdedup.text.normalize import normalize_many
    from newsdedup.text.shingle import shingle_matrix

    rows: list[dict] = []
    rows.append({"language": lang, "n_items": size, "step": "numba_warmup",
                 "median_s": _warm_numba(), "repeats": 1})
    pool = headline_pool(lang)
    frame = enlarge(pool, max(size, lead_size), seed=0)
    texts = frame.text.iloc[:size].tolist()
    sm = shingle_matrix(normalize_many(texts), 3)
    if "sig" in steps:
        _signature_rows(rows, lang, size, sm, repeat)
    if "join" in steps:
        _join_rows(rows, lang, size, sm, join_repeat, numpy_join_max)
    if "dedupe" in steps:
        _dedupe_rows(rows, lang, size, frame, texts, lead_size, repeat)
    if "estimate" in steps:
        _estimate_rows(rows, lang, size, sm, repeat)
    return rows


ESTIMATE_PAIRS = 2_000_000
"""Pairs of the ``estimate_*`` steps: a large corpus's LSH candidates at one threshold."""


def _estimate_rows(rows, lang, size, sm, repeat):
    from newsdedup.score.minhash import MinHashConfig, estimate_pairs, signatures

    sigs = signatures(sm, MinHashConfig())
    empty = sm.sizes == 0
    rng = np.random.default_rng(0)
    i, j = rng.integers(0, size, ESTIMATE_PAIRS), rng.integers(0, size, ESTIMATE_PAIRS)
    got = _row(rows, lang, size, "estimate_numba",
               lambda: estimate_pairs(sigs, empty, i, j, kernel="numba"), repeat,
               pairs=ESTIMATE_PAIRS)
    ref = _row(rows, lang, size, "estimate_numpy",
               lambda: estimate_pairs(sigs, empty, i, j, kernel="numpy"), repeat,
               pairs=ESTIMATE_PAIRS)
    assert np.array_equal(got, ref)
    rows[-2]["identical"] = rows[-1]["identical"] = True


def _interleaved(rows, lang, size, steps: dict, repeat: int) -> None:
    """Time ``steps`` round by round, each once per round, one row each (median, CPU, RSS).

    On a shared machine the load drifts over seconds; run one step's repeats
    after the other's and the drift falls on one side. Alternating puts it on
    both alike. Each result is dropped before the next call, as in ``_timed``.
    """
    times = {name: [] for name in steps}
    cpu = dict.fromkeys(steps, 0.0)
    peak = dict.fromkeys(steps, 0)
    delta = dict.fromkeys(steps, 0)
    for _ in range(repeat):
        for name, fn in steps.items():
            print(f"[bench-kernels] {lang} {size}: {name} ...", file=sys.stderr, flush=True)
            cpu0 = time.process_time()
            secs, _, pk, dl = _timed(fn, 1)
            cpu[name] += time.process_time() - cpu0
            times[name].append(secs)
            peak[name], delta[name] = max(peak[name], pk), max(delta[name], dl)
    for name in steps:
        rows.append({"language": lang, "n_items": size, "step": name,
                     "median_s": float(np.median(times[name])),
                     "cpu_s_per_run": cpu[name] / repeat, "repeats": repeat,
                     "peak_rss_mb": peak[name] / 2**20, "step_rss_mb": delta[name] / 2**20})


def _signature_rows(rows, lang, size, sm, repeat):
    import rensa

    from newsdedup.score.minhash import MinHashConfig, signatures

    x = sm.matrix
    sets = [[sm.vocab[c] for c in x.indices[x.indptr[r]:x.indptr[r + 1]]]
            for r in range(x.shape[0])]
    params = MinHashConfig.published(K)
    # The compiled kernel and rensa alternate (the target is their ratio); the numpy
    # path, ten times slower, runs after them and is checked against the compiled one.
    _interleaved(rows, lang, size, {
        "sig_numba": lambda: signatures(sm, params, kernel="numba"),
        "sig_rensa": lambda: rensa.RMinHash.digest_matrix_from_token_sets(sets, K, 42),
    }, repeat)
    fast = signatures(sm, params, kernel="numba")
    slow = _row(rows, lang, size, "sig_numpy",
                lambda: signatures(sm, params, kernel="numpy"), repeat)
    assert np.array_equal(fast, slow)
    rows[-1]["identical"] = True


def _join_rows(rows, lang, size, sm, repeat, numpy_join_max):
    from newsdedup.score.join import threshold_join

    for t in (0.5, 0.3):
        # --join-repeat (default 1): the numpy joins take minutes at 100k English items.
        got = _row(rows, lang, size, f"join_j{t}_numba",
                   lambda t=t: threshold_join(sm, t, kernel="numba"), repeat)
        rows[-1].update(pairs=len(got.pairs), candidates=got.candidates, verified=got.verified)
        if size <= numpy_join_max:
            ref = _row(rows, lang, size, f"join_j{t}_numpy",
                       lambda t=t: threshold_join(sm, t, kernel="numpy"), repeat)
            assert all(np.array_equal(a, b) for a, b in zip(
                (got.pairs.i, got.pairs.j, got.pairs.score),
                (ref.pairs.i, ref.pairs.j, ref.pairs.score), strict=True)), t
            rows[-1]["identical"] = True


def _dedupe_rows(rows, lang, size, frame, texts, lead_size, repeat):
    from newsdedup.cluster.dedupe import DedupeConfig, dedupe

    items = pd.DataFrame({"id": [f"{lang}{k}" for k in range(size)], "title": texts})
    new = _row(rows, lang, size, "dedupe_gated", lambda: dedupe(items, DedupeConfig()), repeat)
    rows[-1]["groups"] = int(new.items.group.nunique())
    with reference_paths():
        old = _row(rows, lang, size, "dedupe_reference",
                   lambda: dedupe(items, DedupeConfig()), repeat)
    rows[-1]["groups"] = int(old.items.group.nunique())
    new = old = None
    varied = pd.DataFrame({"id": [f"{lang}{k}" for k in range(lead_size)],
                           "title": frame.text.iloc[:lead_size].tolist()})
    shared = varied.assign(title=LEAD[lang] + " " + varied.title)
    for step, table in (("dedupe_varied", varied), ("dedupe_shared", shared)):
        res = _row(rows, lang, lead_size, step, lambda t=table: dedupe(t, DedupeConfig()),
                   repeat)
        rows[-1].update(groups=int(res.items.group.nunique()), lead=LEAD[lang])


def memory_one(size: int) -> dict:
    """Gated dedupe of ``size`` Korean headlines; the process's peak RSS, input included."""
    from newsdedup.cluster.dedupe import DedupeConfig, dedupe
    from newsdedup.studies.synthetic import enlarge, headline_pool

    frame = enlarge(headline_pool("ko"), size, seed=0)
    items = pd.DataFrame({"id": [f"ko{k}" for k in range(size)], "title": frame.text})
    frame = None
    before = _vm("VmRSS")
    t0 = time.perf_counter()
    res = dedupe(items, DedupeConfig())
    secs = time.perf_counter() - t0
    return {"language": "ko", "n_items": size, "step": "dedupe_gated_memory", "median_s": secs,
            "repeats": 1, "peak_rss_mb": _vm("VmHWM") / 1024, "input_rss_mb": before / 1024,
            "groups": int(res.items.group.nunique())}


def _vm(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])  # kB
    raise KeyError(field)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--languages", nargs="+", default=["ko", "en"])
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--lead-size", type=int, default=150_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--numpy-join-max", type=int, default=100_000,
                    help="largest N for the numpy join baseline (minutes at 100k English)")
    ap.add_argument("--memory", type=int, default=0,
                    help="only measure the peak RSS of the gated dedupe of N Korean headlines")
    ap.add_argument("--steps", nargs="+", choices=STEPS, default=list(STEPS),
                    help="groups of steps to run (default all)")
    ap.add_argument("--join-repeat", type=int, default=1,
                    help="runs per join (median); the numpy joins take minutes at 100k English")
    ap.add_argument("--append", action="store_true",
                    help="add to the existing kernels.csv, replacing its rows of the same "
                         "language, size and step")
    ap.add_argument("--summary", action="store_true",
                    help="only rewrite bench/results/kernels.md from kernels.csv")
    ap.add_argument("--one", nargs=1, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.summary:
        text = summary(pd.read_csv(OUT / "kernels.csv"))
        (OUT / "kernels.md").write_text(text, encoding="utf-8")
        print(text)
        return 0
    if args.one:
        if args.one[0] == "memory":
            rows = [memory_one(args.memory)]
        else:
            rows = run_one(args.one[0], args.size, args.lead_size, args.repeat,
                           args.numpy_join_max, tuple(args.steps), args.join_repeat)
        print(json.dumps(rows))
        return 0
    jobs = [["memory"]] if args.memory else [[lang] for lang in args.languages]
    rows = pd.read_csv(OUT / "kernels.csv").to_dict("records") if args.append else []
    for job in jobs:
        cmd = [sys.executable, __file__, "--one", *job, "--size", str(args.size),
               "--lead-size", str(args.lead_size), "--repeat", str(args.repeat),
               "--numpy-join-max", str(args.numpy_join_max), "--memory", str(args.memory),
               "--join-repeat", str(args.join_repeat), "--steps", *args.steps]
        out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
        rows = _replace(rows, json.loads(out.strip().splitlines()[-1]))
        _write(rows)
    text = summary(pd.DataFrame(rows))
    (OUT / "kernels.md").write_text(text, encoding="utf-8")
    print(text)
    return 0


def _replace(rows: list[dict], new: list[dict]) -> list[dict]:
    """``rows`` with each row of the same (language, size, step) as one of ``new``
    replaced in place by it; the other new rows at the end."""
    by_key = {(r["language"], r["n_items"], r["step"]): r for r in new}
    out = [by_key.pop((r["language"], r["n_items"], r["step"]), r) for r in rows]
    return out + [r for r in new if (r["language"], r["n_items"], r["step"]) in by_key]


RATIOS = [  # (step, baseline, what the ratio says)
    ("sig_numba", "sig_rensa", "signatures: time / rensa's (target <= 2)"),
    ("sig_numba", "sig_numpy", "signatures: numpy path / compiled (speed-up)"),
    ("join_j0.3_numba", "join_j0.3_numpy", "join J>=0.3: numpy / compiled (speed-up)"),
    ("join_j0.5_numba", "join_j0.5_numpy", "join J>=0.5: numpy / compiled (speed-up)"),
    ("dedupe_gated", "dedupe_reference", "gated dedupe: before / now (speed-up)"),
    ("estimate_numba", "estimate_numpy", "MinHash estimates of pairs: numpy / compiled (speed-up)"),
    ("dedupe_shared", "dedupe_varied", "shared lead token: time / varied's (target <= 2)"),
]


def summary(table: pd.DataFrame) -> str:
    """Markdown digest: median seconds per step, the ratios and the targets."""
    out = ["| language | N | step | median s | CPU s per run | peak RSS GB | note |",
           "|---|---|---|---|---|---|---|"]
    for r in table.itertuples(index=False):
        note = []
        for col in ("pairs", "groups", "identical"):
            v = getattr(r, col, None)
            if v is not None and not (isinstance(v, float) and np.isnan(v)):
                note.append(f"{col} {int(v) if col != 'identical' else bool(v)}")
        cpu = getattr(r, "cpu_s_per_run", np.nan)
        out.append(f"| {r.language} | {r.n_items:,} | {r.step} | {r.median_s:.3g} | "
                   f"{cpu:.3g} | {getattr(r, 'peak_rss_mb', np.nan) / 1024:.2f} | "
                   f"{', '.join(note)} |")
    out.append("")
    for lang, d in table.groupby("language"):
        # The ratios pair the steps of one run: a step's first row (further sizes, such as
        # a join-only run at 200k, are in the table above without a same-run baseline).
        d = d.drop_duplicates("step")
        t = d.set_index("step").median_s
        for step, base, what in RATIOS:
            if step in t and base in t:
                ratio = t[step] / t[base] if "target" in what else t[base] / t[step]
                out.append(f"- {lang}: {what}: {ratio:.2f}")
        if "dedupe_gated" in t:
            by_step = d.set_index("step")
            n = int(by_step.n_items["dedupe_gated"])
            cpu = float(by_step.cpu_s_per_run["dedupe_gated"])
            out.append(f"- {lang}: gated dedupe {n / t['dedupe_gated']:,.0f} items/s at "
                       f"N = {n:,} (target >= 50,000); {n / cpu:,.0f} items per CPU second")
    for r in table[table.step == "dedupe_gated_memory"].itertuples(index=False):
        out.append(f"- {r.language}: gated dedupe of {r.n_items:,} items: {r.median_s:.0f} s, "
                   f"process peak RSS {r.peak_rss_mb / 1024:.2f} GB, input included "
                   f"(target < 8 GB)")
    return "\n".join(out) + "\n"


def _write(rows: list[dict]) -> None:
    table = pd.DataFrame(rows)
    OUT.mkdir(exist_ok=True)
    table.to_csv(OUT / "kernels.csv", index=False, float_format="%.6g")
    _plot(table, OUT / "kernels.png")


def _plot(table: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pairs = [(s, b) for s, b, _ in RATIOS]
    langs = sorted(table.language.unique())
    fig, ax = plt.subplots(figsize=(9, 4))
    width = 0.8 / max(len(langs), 1)
    for k, lang in enumerate(langs):
        t = table[table.language == lang].drop_duplicates("step").set_index("step").median_s
        xs, fast, slow = [], [], []
        for p, (s, b) in enumerate(pairs):
            if s in t and b in t:
                xs.append(p + k * width)
                fast.append(t[s])
                slow.append(t[b])
        ax.bar(xs, slow, width * 0.45, label=f"{lang} baseline", alpha=0.5)
        ax.bar([x + width * 0.45 for x in xs], fast, width * 0.45, label=f"{lang} now")
    ax.set_xticks(range(len(pairs)))
    ax.set_xticklabels([f"{s}\nvs {b}" for s, b in pairs], fontsize=6)
    ax.set_yscale("log")
    ax.set_ylabel("median seconds (same run)")
    ax.set_title("issue 13 kernels against their baselines (shared 2-core machine)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)


if __name__ == "__main__":
    raise SystemExit(main())

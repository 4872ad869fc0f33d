"""Benchmark: how the exact join, LSH, signatures and the gated dedupe grow with N.

For each language (``ko``, ``en``) and size (default 1k, 10k, 100k), a
collection is built from the real headline pool by word-retention rewrites
(:func:`newsdedup.studies.synthetic.enlarge`, seed 0) and each step is timed (median
of ``--repeat`` runs; one run from 100k items up) with its peak memory (RSS
sampled every 5 ms, above the RSS at the step's start):

* ``brute_force``: ``jaccard_matrix`` + thresholds (the baseline; only where
  the ``N x N`` matrix fits, ``--brute-max``), and ``join_j0.5`` /
  ``join_j0.3``: :func:`newsdedup.score.join.threshold_join`, checked pair for pair
  and score for score against the baseline wherever it ran;
* ``sig_crc32-mersenne61`` / ``sig_datasketch``: MinHash signatures
  (k = 128, both families), ``lsh_vectorized`` / ``lsh_datasketch``: LSH
  candidates from the seed-compatible signatures (vectorized banding and
  datasketch's MinHashLSH, checked equal), banding for recall >= 0.95 at
  J = 0.5; recall per Jaccard bin for both families and both bandings goes to
  ``scale_recall.csv``;
* ``dedupe_gated`` / ``dedupe_ungated``: :func:`newsdedup.cluster.dedupe.dedupe` with
  and without the subject gate (the ungated run is the baseline);
* ``dedupe_gated_shared``: the gated dedupe of the same headlines, each
  prefixed with one lead token (``SHARED_LEAD``, as a feed that opens every
  headline with its agency name), so the whole batch is one subject bucket
  and is scored on its exact prefix-filter candidates
  (:class:`newsdedup.cluster.gate.BucketLimits`); its baseline is
  ``dedupe_gated`` (varied lead tokens, same run), the target is a ratio of
  at least 0.5 (within 2x).

* ``run``: the whole ``newsdedup run`` (measure, calibrate, cross-host,
  dedupe) as a subprocess on the collection written as JSONL (ids, titles,
  URLs on ``RUN_HOSTS``, dates over 30 days; cross-host on the first two
  hosts), with its wall time, peak RSS (``getrusage`` of the children of a
  helper process whose only child it is), the seconds of each finished step
  and the measure's path (from its progress lines; a completed run's
  ``timings.json`` adds the items per output); a run that fails is recorded
  with its last stderr line (``status``), under ``--run-mem-gb`` of address
  space so a run that outgrows the machine fails alone.

Each (language, size) runs in a fresh process so memory figures do not leak
between sizes. A step whose time, extrapolated on a log-log line from the
smaller sizes, would exceed ``--budget`` seconds is skipped and recorded as
such. Writes ``bench/results/scale.csv`` (one row per step and size),
``scale_slopes.csv`` (log-log slope of time against N per step),
``scale_recall.csv``, ``scale.png``, and for the whole run ``scale_run.csv`` and
``scale_run_slopes.csv``. Machines here are shared: read medians
and ratios measured in the same run, not single seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

OUT = Path(__file__).resolve().parent / "results"
NUM_PERM = 128
LSH_THRESHOLD = 0.5
RECALL_EDGES = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
STEPS = ["shingle", "brute_force", "join_j0.5", "join_j0.3", "sig_crc32-mersenne61",
         "sig_datasketch", "lsh_vectorized", "lsh_datasketch", "dedupe_gated",
         "dedupe_ungated", "dedupe_gated_shared", "run"]
RUN_HOSTS = ["news.example-a.kr", "news.example-b.kr", "www.example-c.com",
             "media.example-d.net", "www.example-e.co.kr", "example-f.com", "www.example-g.kr",
             "example-h.org"]
"""URL hosts of the ``run`` corpus (seeded draw); cross-host studies the first two."""
SHARED_LEAD = {"ko": "연합뉴스", "en": "Reuters"}
"""Lead token of the shared-prefix case: an agency name, not a bracketed rubric."""
_PAGE = os.sysconf("SC_PAGE_SIZE")


def _rss() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * _PAGE


class _PeakRSS:
    """Highest RSS seen while the block runs (sampled every 5 ms by a thread)."""

    def __enter__(self):
        self.start = self.peak = _rss()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()
        return self

    def _watch(self):
        while not self._stop.wait(0.005):
            self.peak = max(self.peak, _rss())

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _rss())


def _timed(fn, repeat: int):
    times, result, peak, delta = [], None, 0, 0
    for _ in range(repeat):
        result = None  # free the previous result before measuring the next run
        with _PeakRSS() as mem:
            t0 = time.perf_counter()
            result = fn()
            times.append(time.perf_counter() - t0)
        peak, delta = max(peak, mem.peak), max(delta, mem.peak - mem.start)
    return statistics.median(times), result, peak, delta


def run_one(lang: str, size: int, repeat: int, skip: set[str], brute_max: int) -> list[dict]:
    """All steps for one language and size; returns result rows (and recall rows)."""
    from newsdedup.cluster.dedupe import DedupeConfig, dedupe
    from newsdedup.score.jaccard import jaccard_matrix, upper_pairs
    from newsdedup.score.join import threshold_join
    from newsdedup.score.lsh import choose_bands, datasketch_candidates, recall_by_bin
    from newsdedup.score.minhash import MinHashConfig, lsh_candidate_pairs, signatures
    from newsdedup.studies.synthetic import enlarge, headline_pool
    from newsdedup.text.normalize import hangul_alnum
    from newsdedup.text.shingle import shingle_matrix

    frame = enlarge(headline_pool(lang), size, seed=0)
    texts = [hangul_alnum(t) for t in frame.text]
    items = pd.DataFrame({"id": [f"{lang}{k}" for k in range(size)], "title": frame.text})
    rows, recall_rows = [], []

    def record(step, fn, **extra):
        if step in skip:
            rows.append({"step": step, "skipped": skip_reason.get(step, "skipped"), **extra})
            return None
        print(f"[bench-scale] {lang} {size}: {step} ...", file=sys.stderr, flush=True)
        secs, result, peak, delta = _timed(fn, repeat)
        rows.append({"step": step, "median_s": secs, "repeats": repeat,
                     "peak_rss_mb": peak / 2**20, "step_rss_mb": delta / 2**20, **extra})
        return result

    sh = record("shingle", lambda: shingle_matrix(texts, 3))
    sh = sh if sh is not None else shingle_matrix(texts, 3)
    empty = sh.sizes == 0
    brute = None
    if size <= brute_max:
        brute = record("brute_force", lambda: upper_pairs(jaccard_matrix(sh)))
    else:
        rows.append({"step": "brute_force", "skipped": f"N x N float64 > --brute-max {brute_max}"})
    truth = {}
    for t in (0.5, 0.3):
        res = record(f"join_j{t}", lambda t=t: threshold_join(sh, t))
        if res is None:
            continue
        if brute is not None:
            keep = brute.score >= t
            assert np.array_equal(res.pairs.i, brute.i[keep]) and np.array_equal(
                res.pairs.j, brute.j[keep]) and np.array_equal(res.pairs.score,
                                                               brute.score[keep]), t
        rows[-1].update(pairs=len(res.pairs), candidates=res.candidates,
                        verified=res.verified, same_as_brute_force=brute is not None)
        truth[t] = res.pairs
    brute = None
    banding = choose_bands(LSH_THRESHOLD, NUM_PERM, min_recall=0.95)
    optimal = choose_bands(LSH_THRESHOLD, NUM_PERM)
    sigs = {}
    for params in (MinHashConfig.published(NUM_PERM), MinHashConfig.datasketch(NUM_PERM)):
        desc = {"minhash": json.dumps(params.as_dict(), sort_keys=True)}
        sigs[params.family] = (record(f"sig_{params.family}", lambda p=params: signatures(sh, p),
                                      **desc), params)
    sig, params = sigs["crc32-mersenne61"]
    lsh_desc = {"minhash": json.dumps(params.as_dict(), sort_keys=True),
                "banding": json.dumps(banding.as_dict(), sort_keys=True)}
    cand = None
    if sig is not None:
        cand = record("lsh_vectorized", lambda: lsh_candidate_pairs(sig, empty, banding.bands,
                                                                    banding.rows), **lsh_desc)
        ds = record("lsh_datasketch", lambda: datasketch_candidates(sig, empty, banding, params),
                    **lsh_desc)
        if cand is not None and ds is not None:
            assert np.array_equal(cand, ds), "datasketch and vectorized LSH differ"
            rows[-1]["same_as_vectorized"] = True
        for r in rows[-2:]:
            if cand is not None and r["step"].startswith("lsh") and "median_s" in r:
                r["pairs"] = len(cand)
    if 0.3 in truth:
        for family, (s, p) in sigs.items():
            if s is None:
                continue
            for band in (banding, optimal):
                c = lsh_candidate_pairs(s, empty, band.bands, band.rows)
                table = recall_by_bin(truth[0.3], c, size, RECALL_EDGES, band)
                above = int((truth[0.3].score >= LSH_THRESHOLD).sum())
                table = table.assign(language=lang, n_items=size, family=family,
                                     scheme=p.scheme, seed=p.seed, num_perm=p.num_perm,
                                     rule=band.rule, bands=band.bands, rows=band.rows,
                                     candidates=len(c), true_at_or_above=above,
                                     candidates_per_true=len(c) / max(above, 1))
                recall_rows.extend(table.to_dict("records"))
    for gate in (True, False):
        step = "dedupe_gated" if gate else "dedupe_ungated"
        res = record(step, lambda g=gate: dedupe(items, DedupeConfig(gate=g)))
        if res is not None:
            rows[-1]["groups"] = int(res.clustering.n_groups)
    shared = items.assign(title=SHARED_LEAD[lang] + " " + items.title)
    res = record("dedupe_gated_shared", lambda: dedupe(shared, DedupeConfig()),
                 lead=SHARED_LEAD[lang])
    if res is not None:
        rows[-1]["groups"] = int(res.clustering.n_groups)
    for r in rows:
        r.update(language=lang, n_items=size)
        if "median_s" in r:
            r["items_per_s"] = size / r["median_s"] if r["median_s"] > 0 else float("inf")
    return rows, recall_rows


def write_run_corpus(lang: str, size: int, path: Path) -> None:
    """The ``run`` step's corpus: enlarged headlines with ids, URLs and dates, as JSONL."""
    from newsdedup.studies.synthetic import enlarge, headline_pool

    frame = enlarge(headline_pool(lang), size, seed=0)
    rng = np.random.default_rng(1)
    host = rng.integers(0, len(RUN_HOSTS), size)
    day = rng.integers(1, 31, size)
    with open(path, "w", encoding="utf-8") as fh:
        for k, title in enumerate(frame.text):
            fh.write(json.dumps({"id": f"{lang}{k}", "title": title,
                                 "url": f"https://{RUN_HOSTS[host[k]]}/a/{k}",
                                 "published_at": f"2026-01-{day[k]:02d}"},
                                ensure_ascii=False) + "\n")


def run_whole(lang: str, size: int, timeout: float, mem_gb: float, repeats: int = 1) -> dict:
    """``newsdedup run`` on ``size`` headlines, ``repeats`` times; one row of medians.

    Every repeat is a fresh process on the same seeded corpus. The row
    holds the median wall time and the median of each step's time over the
    repeats, the largest peak RSS, and the first failure if one failed (then
    no median: a run that fails once is not timed).
    """
    runs = []
    for _ in range(max(1, repeats)):
        runs.append(_run_once(lang, size, timeout, mem_gb))
        if runs[-1].get("status") != "ok":
            return runs[-1] | {"repeats": len(runs)}
    row = dict(runs[-1])
    for key in {k for r in runs for k in r if k.endswith("_s")}:
        got = [r[key] for r in runs if key in r]
        row[key] = float(np.median(got))
    row.update(median_s=row["run_s"], repeats=len(runs),
               peak_rss_mb=max(r["peak_rss_mb"] for r in runs))
    return row


def _run_once(lang: str, size: int, timeout: float, mem_gb: float) -> dict:
    """``newsdedup run`` on ``size`` headlines as this process's only child; one result row."""
    import resource
    import tempfile

    with tempfile.TemporaryDirectory(prefix=f"bench-run-{lang}{size}-") as tmp:
        corpus = Path(tmp) / f"{lang}{size}.jsonl"
        write_run_corpus(lang, size, corpus)
        cmd = [sys.executable, "-c", "from newsdedup.cli import main; raise SystemExit(main())",
               "run", str(corpus), "--name", "bench", "--out", str(Path(tmp) / "out"),
               "--hosts", ",".join(RUN_HOSTS[:2])]  # not --quiet: step times are read off stderr
        limit = int(mem_gb * 2**30)

        def cap() -> None:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

        print(f"[bench-scale] {lang} {size}: run ...", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        try:
            done = subprocess.run(cmd, preexec_fn=cap, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True, timeout=timeout)
            code, err = done.returncode, done.stderr
        except subprocess.TimeoutExpired as exc:
            code, err = None, f"timed out after {timeout:.0f} s " + (exc.stderr or "")
        secs = time.perf_counter() - t0
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        row = {"step": "run", "repeats": 1, "peak_rss_mb": peak, "run_s": secs,
               "mem_limit_gb": mem_gb}
        # Each finished step says "run: <step> took <s> s" (a failed run's staged files,
        # timings.json among them, are discarded; its stderr is not).
        for step, took in re.findall(r"\] run: (\w+) took ([\d,.]+) s", str(err)):
            row[f"run_{step}_s"] = float(took.replace(",", ""))
        row["measure_path"] = ("sampled" if "join, LSH and samples" in str(err) else
                               "streamed" if "streaming every pair" in str(err) else "dense")
        timings = Path(tmp) / "out" / "bench" / "timings.json"
        if timings.is_file():  # a completed run: its record, with the items per output
            rec = json.loads(timings.read_text("utf-8"))
            row.update(measure_path=rec["steps"].get("measure", {}).get("path"),
                       items_accounted=json.dumps(rec["items_in_outputs"], sort_keys=True))
            row.update({f"run_{k}_s": v["seconds"] for k, v in rec["steps"].items()})
        if code == 0:
            row.update(median_s=secs, status="ok")
        else:
            last = [ln for ln in str(err).splitlines() if ln.strip()][-1:] or ["(no stderr)"]
            row["status"] = f"failed (exit {code}) after {secs:.0f} s: {last[0][:300]}"
    return row


skip_reason: dict[str, str] = {}


MAX_CANDIDATES = 2e8  # LSH candidate pairs (int64 ids, several copies while merging bands)


def _predict_candidates(done: pd.DataFrame, step: str, size: int) -> float | None:
    """LSH candidates at ``size`` from the largest smaller size, assuming ``N**2`` growth."""
    d = done[(done.step == step) & done.pairs.notna() & (done.n_items < size)]
    if not step.startswith("lsh") or d.empty:
        return None
    last = d.sort_values("n_items").iloc[-1]
    return float(last.pairs * (size / last.n_items) ** 2)


def _predict(done: pd.DataFrame, step: str, size: int) -> float | None:
    """Time of ``step`` at ``size`` extrapolated on the log-log line of the smaller sizes."""
    d = done[(done.step == step) & done.median_s.notna() & (done.n_items < size)]
    d = d.sort_values("n_items")
    if d.empty:
        return None
    n, t = d.n_items.to_numpy(float), d.median_s.to_numpy(float)
    slope = np.polyfit(np.log(n[-2:]), np.log(t[-2:]), 1)[0] if len(d) >= 2 else 2.0
    return float(t[-1] * (size / n[-1]) ** max(slope, 1.0))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    ap.add_argument("--languages", nargs="+", default=["ko", "en"])
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs per step (and of the whole run) below 100k items; the median "
                         "is kept")
    ap.add_argument("--budget", type=float, default=600.0,
                    help="skip a step predicted to take longer (seconds)")
    ap.add_argument("--brute-max", type=int, default=10_000,
                    help="largest N for the brute-force N x N baseline")
    ap.add_argument("--only", default="",
                    help="comma-separated steps to run (default: all); the others are skipped")
    ap.add_argument("--append", action="store_true",
                    help="merge into the existing CSVs (rows of the same language, size and "
                         "step are replaced) instead of starting afresh")
    ap.add_argument("--summary", action="store_true",
                    help="only write bench/results/scale.md from the CSVs of the last run")
    ap.add_argument("--run-budget", type=float, default=1800.0,
                    help="skip the whole run when predicted to take longer (seconds); a run "
                         "is stopped at twice this")
    ap.add_argument("--run-mem-gb", type=float, default=14.0,
                    help="address-space limit of the whole run (GB), so an oversized run "
                         "fails alone instead of starving the machine")
    ap.add_argument("--one", nargs=2, metavar=("LANG", "SIZE"), help=argparse.SUPPRESS)
    ap.add_argument("--run-one", nargs=2, metavar=("LANG", "SIZE"), help=argparse.SUPPRESS)
    ap.add_argument("--skip", default="", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.summary:
        text = summary(_read_table(), pd.concat([pd.read_csv(OUT / f) for f in (
            "scale_slopes.csv", "scale_run_slopes.csv") if (OUT / f).is_file()]),
                       pd.read_csv(OUT / "scale_recall.csv"))
        (OUT / "scale.md").write_text(text, encoding="utf-8")
        print(text)
        return 0
    if args.run_one:
        lang, size = args.run_one[0], int(args.run_one[1])
        row = run_whole(lang, size, 2 * args.run_budget, args.run_mem_gb,
                        args.repeat if size < 100_000 else 1)
        print(json.dumps(row))
        return 0
    if args.one:
        lang, size = args.one[0], int(args.one[1])
        skip_reason.update(json.loads(args.skip) if args.skip else {})
        rows, recall = run_one(lang, size, args.repeat if size < 100_000 else 1,
                               set(skip_reason), args.brute_max)
        print(json.dumps({"rows": rows, "recall": recall}))
        return 0

    all_rows, all_recall = [], []
    if args.append:
        all_rows = _read_table().to_dict("records")
        all_recall = pd.read_csv(OUT / "scale_recall.csv").to_dict("records")
    only = {s for s in args.only.split(",") if s}
    steps_too = not only or bool(only - {"run"})
    if only - set(STEPS):
        ap.error(f"unknown steps {sorted(only - set(STEPS))}; choose from {STEPS}")
    for lang in args.languages:
        for size in sorted(args.sizes):
            done = pd.DataFrame(all_rows, columns=["step", "n_items", "median_s", "language",
                                                   "pairs"])
            done = done[done.language == lang]
            skip = {}
            for step in STEPS:
                if only and step not in only:
                    skip[step] = "not requested (--only)"
                    continue
                guess = _predict(done, step, size)
                budget = args.run_budget if step == "run" else args.budget
                if step == "run" and done[(done.step == "run") & done.median_s.notna()
                                          & (done.n_items < size)].n_items.nunique() < 2:
                    guess = None  # fixed costs dominate small runs: one size tells no slope
                if guess is not None and guess > budget:
                    skip[step] = f"predicted {guess:.0f} s > budget {budget:.0f} s"
                cand = _predict_candidates(done, step, size)
                if cand is not None and cand > MAX_CANDIDATES:
                    skip[step] = (f"predicted {cand:.2g} candidate pairs > {MAX_CANDIDATES:.0e} "
                                  "(random band collisions grow like N^2; memory)")
            got = {"rows": [], "recall": []}
            if any(step not in skip for step in STEPS if step != "run"):
                cmd = [sys.executable, __file__, "--one", lang, str(size), "--repeat",
                       str(args.repeat), "--brute-max", str(args.brute_max), "--skip",
                       json.dumps({k: v for k, v in skip.items() if k != "run"})]
                out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
                got = json.loads(out.strip().splitlines()[-1])
                got["rows"] = [r for r in got["rows"] if r["step"] != "run"]
            got["rows"].append(_run_row(args, lang, size, skip))
            # Replace what this run measured: with --only, those steps; else the whole size.
            # A requested step's row (measured, failed or skipped with its reason) replaces the old.
            fresh = {r["step"] for r in got["rows"]
                     if "median_s" in r or "status" in r or not only or r["step"] in only}
            all_rows = [r for r in all_rows if (r["language"], r["n_items"]) != (lang, size)
                        or r["step"] not in fresh] + [r for r in got["rows"]
                                                      if r["step"] in fresh]
            if got["recall"]:
                all_recall = [r for r in all_recall
                              if (r["language"], r["n_items"]) != (lang, size)]
            all_recall += got["recall"]
            _write(all_rows, all_recall, steps_too)  # partial results survive an interruption
    table = _write(all_rows, all_recall, steps_too)
    print(table.to_string(index=False, float_format=lambda x: f"{x:.3g}"))
    return 0


def _read_table() -> pd.DataFrame:
    """The rows of the last runs: the steps' ``scale.csv`` and the whole run's ``scale_run.csv``."""
    parts = [pd.read_csv(OUT / f) for f in ("scale.csv", "scale_run.csv") if (OUT / f).is_file()]
    return pd.concat(parts, ignore_index=True)


def _run_row(args, lang: str, size: int, skip: dict[str, str]) -> dict:
    """The whole run at one size: skipped with its reason, or measured by a helper process."""
    if "run" in skip:
        return {"step": "run", "skipped": skip["run"], "language": lang, "n_items": size}
    cmd = [sys.executable, __file__, "--run-one", lang, str(size), "--run-budget",
           str(args.run_budget), "--run-mem-gb", str(args.run_mem_gb), "--repeat",
           str(args.repeat)]
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
    row = json.loads(out.strip().splitlines()[-1])
    row.update(language=lang, n_items=size)
    if "median_s" in row:
        row["items_per_s"] = size / row["median_s"]
    return row


def _slopes(table: pd.DataFrame) -> pd.DataFrame:
    out = []
    for (lang, step), d in table[table.median_s.notna()].groupby(["language", "step"]):
        if d.n_items.nunique() >= 2:
            d = d.sort_values("n_items")
            x, y = np.log(d.n_items.astype(float)), np.log(d.median_s)
            # The last two sizes tell the asymptotic cost; small sizes are mostly overhead.
            out.append({"language": lang, "step": step, "slope": np.polyfit(x, y, 1)[0],
                        "slope_last_two": np.polyfit(x[-2:], y[-2:], 1)[0],
                        "sizes": " ".join(str(n) for n in d.n_items)})
    return pd.DataFrame(out)


def _write(rows: list[dict], recall: list[dict], steps_too: bool = True) -> pd.DataFrame:
    table = pd.DataFrame(rows)
    if "median_s" not in table:
        table["median_s"] = np.nan
    # Ratios against the baseline measured in the same process (same size, same run).
    base = {"join_j0.5": "brute_force", "join_j0.3": "brute_force",
            "dedupe_gated": "dedupe_ungated", "lsh_vectorized": "lsh_datasketch",
            "dedupe_gated_shared": "dedupe_gated"}
    table["baseline"] = table.step.map(base)
    ref = table.set_index(["language", "n_items", "step"]).median_s
    keys = list(zip(table.language, table.n_items, table.baseline, strict=True))
    table["baseline_s"] = [ref.get(k, np.nan) if isinstance(k[2], str) else np.nan
                           for k in keys]
    table["ratio"] = table.baseline_s / table.median_s
    front = ["language", "n_items", "step", "median_s", "repeats", "peak_rss_mb",
             "step_rss_mb", "items_per_s", "baseline", "baseline_s", "ratio"]
    table = table[front + [c for c in table.columns if c not in front]]
    OUT.mkdir(exist_ok=True)
    # The whole run has its own files (its columns are not the steps').
    run = table[table.step == "run"].dropna(axis=1, how="all")
    steps = table[table.step != "run"]
    if len(run):
        run.to_csv(OUT / "scale_run.csv", index=False, float_format="%.6g")
        _slopes(run).to_csv(OUT / "scale_run_slopes.csv", index=False, float_format="%.4f")
    if not steps_too:  # only the whole run was measured: the steps' files stay as they are
        return table
    if len(steps):
        steps.dropna(axis=1, how="all").to_csv(OUT / "scale.csv", index=False,
                                               float_format="%.6g")
        _slopes(steps).to_csv(OUT / "scale_slopes.csv", index=False, float_format="%.4f")
    pd.DataFrame(recall).to_csv(OUT / "scale_recall.csv", index=False, float_format="%.6g")
    _plot(steps, pd.DataFrame(recall), OUT / "scale.png")
    return table


def summary(table: pd.DataFrame, slopes: pd.DataFrame, recall: pd.DataFrame) -> str:
    """Markdown digest of a run: times per size, slopes, peak memory, ratios, LSH recall."""
    out = []
    for lang, d in table.groupby("language", sort=True):
        t = d.pivot_table(index="step", columns="n_items", values="median_s", aggfunc="first")
        t = t.reindex([s for s in STEPS if s in t.index])
        cols = [f"{n:,}" for n in t.columns]
        sl = slopes[slopes.language == lang].set_index("step")
        mem = d.pivot_table(index="step", columns="n_items", values="peak_rss_mb",
                            aggfunc="first")
        # RSS the step itself added (earlier steps' memory stays resident in the process).
        add = d.pivot_table(index="step", columns="n_items", values="step_rss_mb",
                            aggfunc="first")
        head = ("| step | " + " | ".join(cols)
                + " | slope (all / last two) | process peak RSS (+ step's own), largest N |")
        out += [f"**{lang}**: median seconds (— skipped, reason in scale.csv)", "", head,
                "|" + "---|" * (len(cols) + 3)]
        for step, row in t.iterrows():
            cells = [f"{v:.3g}" if np.isfinite(v) else "—" for v in row]
            m = mem.loc[step].dropna() if step in mem.index else pd.Series(dtype=float)
            own = add.loc[step, m.index[-1]] if len(m) and step in add.index else np.nan
            peak = (f"{m.iloc[-1] / 1024:.2f} GB"
                    + (f" (+{own / 1024:.2f})" if np.isfinite(own) else "")  # the run: a process
                    + f" at {int(m.index[-1]):,}" if len(m) else "—")
            slope = (f"{sl.slope[step]:.2f} / {sl.slope_last_two[step]:.2f}"
                     if step in sl.index else "—")
            out.append(f"| {step} | " + " | ".join(cells) + f" | {slope} | {peak} |")
        out.append("")
        ratios = d[d.ratio.notna()]
        for r in ratios.itertuples(index=False):
            out.append(f"- {r.step} vs {r.baseline} at N = {r.n_items:,}: {r.ratio:.1f}x "
                       f"({r.baseline_s:.3g} s vs {r.median_s:.3g} s)")
        runs = d[d.step == "run"].sort_values("n_items")
        for r in runs.to_dict("records"):
            if isinstance(r.get("skipped"), str):
                out.append(f"- newsdedup run, N = {r['n_items']:,}: skipped ({r['skipped']})")
                continue
            steps = ", ".join(f"{k} {r[f'run_{k}_s']:.0f} s" for k in
                              ("measure", "calibrate", "crosshost", "dedupe")
                              if np.isfinite(r.get(f"run_{k}_s", np.nan)))
            out.append(f"- newsdedup run, N = {r['n_items']:,}: {r['status']}; "
                       f"{r['run_s']:.0f} s, peak RSS {r['peak_rss_mb'] / 1024:.2f} GB"
                       + (f" ({steps}; measure {r['measure_path']})" if steps else ""))
        ded = d[(d.step == "dedupe_gated") & d.items_per_s.notna()]
        for r in ded.itertuples(index=False):
            out.append(f"- gated dedupe at N = {r.n_items:,}: {r.items_per_s:,.0f} items/s")
        out.append("")
    if not recall.empty:
        out += ["LSH recall per exact-Jaccard bin (candidates from the banding, truth from "
                "the exact join at 0.3), largest N per language:", "",
                "| language | N | family | banding | bins 0.3–0.4 … 0.9–1.0 | recall J≥0.5 "
                "| candidates / true pairs J≥0.5 |", "|---|---|---|---|---|---|---|"]
        for (lang, fam, rule), d in recall.groupby(["language", "family", "rule"], sort=True):
            d = d[d.n_items == d.n_items.max()]
            rec = " ".join(f"{v:.3f}" for v in d.recall)
            hi = d[d.lo >= 0.5 - 1e-12]
            out.append(f"| {lang} | {int(d.n_items.iloc[0]):,} | {fam} | {rule} "
                       f"{d.bands.iloc[0]}x{d.rows.iloc[0]} | {rec} | "
                       f"{(hi.found.sum() / hi.true_pairs.sum()):.4f} | "
                       f"{d.candidates_per_true.iloc[0]:.2f} |")
    return "\n".join(out) + "\n"


def _plot(table: pd.DataFrame, recall: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    langs = sorted(table.language.unique())
    fig, axes = plt.subplots(1, len(langs) + 1, figsize=(5 * (len(langs) + 1), 4))
    for ax, lang in zip(axes, langs, strict=False):
        d = table[(table.language == lang) & table.median_s.notna()]
        for step, s in d.groupby("step"):
            s = s.sort_values("n_items")
            ax.plot(s.n_items, s.median_s, marker="o", label=step)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("items N")
        ax.set_ylabel("median seconds")
        ax.set_title(f"{lang}: time against N (shared 2-core machine)")
        ax.legend(fontsize=6)
    ax = axes[-1]
    if not recall.empty:
        biggest = recall[recall.n_items == recall.n_items.max()]
        for (lang, fam, rule), s in biggest.groupby(["language", "family", "rule"]):
            ax.plot((s.lo + s.hi) / 2, s.recall, marker="o",
                    label=f"{lang} {fam} {rule} {s.bands.iloc[0]}x{s.rows.iloc[0]}")
        ax.axhline(0.95, color="grey", lw=0.5)
        ax.set_xlabel("exact Jaccard (bin centre)")
        ax.set_ylabel("LSH recall")
        ax.set_title(f"LSH recall per bin, N = {int(recall.n_items.max())}")
        ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)


if __name__ == "__main__":
    raise SystemExit(main())

"""Benchmark: time and peak memory of each command as N grows, distinct and templated titles.

For each language (``ko``, ``en``), kind of titles and size (default 1k, 3k,
10k, 30k, 100k) a feed is written as JSONL (ids, URLs on two hosts, dates
over 30 days):

* ``distinct``: :func:`newsdedup.studies.synthetic.enlarge` of the real
  headline pool (seed 0), the feed of ``bench_scale.py``'s ``run`` step;
* ``templated``: :func:`newsdedup.studies.synthetic.templated_headlines`
  ("<COMPANY> YEAR Qq NET", seed 0): near-identical titles whose pairs above
  any threshold grow like ``N**2``.

Each step runs in its own process, as the only child of a helper that
reports its wall time and peak RSS (``getrusage`` of its children):

* ``run``: ``newsdedup run FILE`` (the seconds of each step, read off its
  progress lines, go beside it);
* ``measure``: ``newsdedup measure FILE --full``;
* ``join``: ``newsdedup join FILE --threshold 0.5`` (pairs to Parquet);
* ``dedupe``: :func:`newsdedup.cluster.dedupe.dedupe` (IDF, gate, threshold
  0.3) in a child process, the time of the call only;
* ``dedupe_datasketch``: the baseline in the same child setting:
  datasketch ``MinHash`` (k = 128) of each title's character 3-grams,
  ``MinHashLSH`` at 0.5 (insert every item, query every item), union-find
  of the proposed pairs (:func:`baseline.datasketch_dedupe`). Its ratio to
  ``dedupe`` is measured in the same run.

Times are medians of ``--repeat`` runs (default 3; one run from
``--single-from`` items up, default 30k); the load average before each run is
recorded with it, since the machine is shared. A step whose time,
extrapolated on a log-log line from its two largest smaller sizes, exceeds
``--budget`` seconds is skipped and recorded as such. Writes
``bench/results/sweep.csv`` (one row per language, kind, size and step),
``sweep.png`` (log-log time and peak RSS against N) and with ``--summary``
the table ``sweep.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

OUT = Path(__file__).resolve().parent / "results"
HOSTS = ["news.example-a.kr", "news.example-b.kr"]
STEPS = ["run", "measure", "join", "dedupe", "dedupe_datasketch"]
KINDS = ["distinct", "templated"]
_HELPER = """
import resource, subprocess, sys, time
t0 = time.perf_counter()
done = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                      text=True, timeout=float(sys.argv[1]))
secs = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
sys.stderr.write(done.stderr)
print(f"@@ {done.returncode} {secs} {peak}")
"""


def write_feed(lang: str, kind: str, size: int, path: Path) -> None:
    """The feed of one (language, kind, size) as JSONL."""
    from newsdedup.studies.synthetic import enlarge, headline_pool, templated_headlines

    titles = (enlarge(headline_pool(lang), size, seed=0).text.tolist() if kind == "distinct"
              else templated_headlines(lang, size, seed=0))
    rng = np.random.default_rng(1)
    host = rng.integers(0, len(HOSTS), size)
    day = rng.integers(1, 31, size)
    with open(path, "w", encoding="utf-8") as fh:
        for k, title in enumerate(titles):
            fh.write(json.dumps({"id": f"{lang}{k}", "title": title,
                                 "url": f"https://{HOSTS[host[k]]}/a/{k}",
                                 "published_at": f"2026-01-{day[k]:02d}"},
                                ensure_ascii=False) + "\n")


def _child_dedupe(path: str, which: str) -> None:
    """In a child process: time one dedupe of the feed at ``path``; print the seconds."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from newsdedup.cluster.dedupe import DedupeConfig, dedupe
    from newsdedup.corpus.load import load_corpus

    items = load_corpus(Path(path)).items
    t0 = time.perf_counter()
    if which == "dedupe":
        groups = int(dedupe(items, DedupeConfig()).items.group.nunique())
    else:
        import baseline

        groups = baseline.datasketch_dedupe(items.title.tolist())
    print(f"@@secs {time.perf_counter() - t0} {groups}", file=sys.stderr)


def _command(step: str, feed: Path, out: Path) -> list[str]:
    cli = [sys.executable, "-c", "from newsdedup.cli import main; raise SystemExit(main())"]
    if step == "run":
        return cli + ["run", str(feed), "--name", "b", "--out", str(out), "--hosts",
                      ",".join(HOSTS)]
    if step == "measure":
        return cli + ["measure", str(feed), "--full", "--name", "b", "--out", str(out)]
    if step == "join":
        return cli + ["join", str(feed), "--threshold", "0.5", "--name", "b", "--out", str(out),
                      "--quiet"]
    return [sys.executable, str(Path(__file__).resolve()), "--child", step, str(feed)]


def run_step(step: str, feed: Path, timeout: float) -> dict:
    """One run of ``step`` on ``feed``: seconds, peak RSS (MB), status and step times."""
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-sweep-") as tmp:
        cmd = [sys.executable, "-c", _HELPER, str(timeout), *_command(step, feed, Path(tmp))]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 60)
        except subprocess.TimeoutExpired:
            return {"status": f"timed out after {timeout:.0f} s", "load": load}
    tail = re.search(r"@@ (\S+) (\S+) (\S+)", done.stdout)
    if tail is None or tail.group(1) != "0":
        last = [ln for ln in (done.stderr or "").splitlines() if ln.strip()][-1:] or ["?"]
        return {"status": f"failed: {last[0][:200]}", "load": load}
    row = {"status": "ok", "seconds": float(tail.group(2)), "peak_rss_mb": float(tail.group(3)),
           "load": load}
    inner = re.search(r"@@secs (\S+) (\S+)", done.stderr + done.stdout)
    if inner:  # the dedupe children: the call's own time, not the imports and loading
        row["seconds"], row["groups"] = float(inner.group(1)), int(inner.group(2))
    for name, took in re.findall(r"\] run: (\w+) took ([\d,.]+) s", done.stderr):
        row[f"{name}_s"] = float(took.replace(",", ""))
    return row


def _predict(rows: list[dict], lang: str, kind: str, step: str, size: int) -> float | None:
    d = sorted((r["n_items"], r["median_s"]) for r in rows
               if (r["language"], r["kind"], r["step"]) == (lang, kind, step)
               and r.get("median_s") == r.get("median_s") and r.get("median_s") is not None
               and r["n_items"] < size)
    if len(d) < 2:
        return None
    (n0, t0), (n1, t1) = d[-2], d[-1]
    slope = max(1.0, float(np.log(t1 / t0) / np.log(n1 / n0))) if t0 > 0 and t1 > 0 else 2.0
    return t1 * (size / n1) ** slope


def sweep(args) -> list[dict]:
    """Every (language, kind, size, step) of the arguments; one row each."""
    rows: list[dict] = []
    for lang in args.languages:
        for kind in args.kinds:
            for size in args.sizes:
                with tempfile.TemporaryDirectory(prefix="bench-feed-") as tmp:
                    feed = Path(tmp) / f"{lang}-{kind}-{size}.jsonl"
                    write_feed(lang, kind, size, feed)
                    for step in args.steps:
                        rows.append(_measure_step(args, rows, lang, kind, size, step, feed))
                        _write(rows, args)
    return rows


def _measure_step(args, rows, lang, kind, size, step, feed) -> dict:
    base = {"language": lang, "kind": kind, "n_items": size, "step": step}
    guess = _predict(rows, lang, kind, step, size)
    if guess is not None and guess > args.budget:
        print(f"[bench-sweep] {lang} {kind} {size} {step}: skipped (~{guess:,.0f} s)",
              file=sys.stderr, flush=True)
        return base | {"status": f"skipped: extrapolated {guess:,.0f} s > budget {args.budget:g}"}
    repeat = args.repeat if size < args.single_from else 1
    runs = []
    for _ in range(repeat):
        r = run_step(step, feed, 2 * args.budget)
        print(f"[bench-sweep] {lang} {kind} {size} {step}: {r}", file=sys.stderr, flush=True)
        if r["status"] != "ok":
            return base | r
        runs.append(r)
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0] if k not in ("status",)
           and isinstance(runs[0][k], float | int)}
    return base | {"status": "ok", "repeats": repeat, "median_s": med.pop("seconds"),
                   "load_min": min(r["load"] for r in runs),
                   "load_max": max(r["load"] for r in runs), **med}


def _write(rows: list[dict], args) -> None:
    table = pd.DataFrame(rows)
    if args.append and (OUT / "sweep.csv").is_file():
        old = pd.read_csv(OUT / "sweep.csv")
        keys = ["language", "kind", "n_items", "step"]
        old = old[~old.set_index(keys).index.isin(table.set_index(keys).index)]
        table = pd.concat([old, table], ignore_index=True)
    table = table.sort_values(["language", "kind", "step", "n_items"], kind="stable")
    table.to_csv(OUT / "sweep.csv", index=False, float_format="%.4g")


def summary(table: pd.DataFrame) -> str:
    """The sweep as Markdown: time and peak RSS per size, the slopes, the datasketch ratio."""
    lines = ["# Size sweep (`python bench/bench_sweep.py`)", "",
             "Median seconds / peak RSS MB per command; `-` skipped or failed (see sweep.csv).",
             ""]
    sizes = sorted(table.n_items.unique())
    for (lang, kind), part in table.groupby(["language", "kind"], sort=True):
        lines += [f"## {lang}, {kind}", "",
                  "| step | " + " | ".join(f"{n:,}" for n in sizes) + " | slope 10k→100k |",
                  "|---|" + "---|" * (len(sizes) + 1)]
        for step in STEPS:
            s = part[part.step == step].set_index("n_items")
            if s.empty:
                continue
            cells = []
            for n in sizes:
                ok = n in s.index and s.loc[n, "status"] == "ok"
                cells.append(f"{s.loc[n, 'median_s']:.3g} s / {s.loc[n, 'peak_rss_mb']:,.0f}"
                             if ok else "-")
            slope = "-"
            if all(n in s.index and s.loc[n, "status"] == "ok" for n in (10_000, 100_000)):
                slope = f"{np.log(s.loc[100_000, 'median_s'] / s.loc[10_000, 'median_s']):.2f}"
                slope = f"{float(slope) / np.log(10):.2f}"
            lines.append(f"| {step} | " + " | ".join(cells) + f" | {slope} |")
        d, b = (part[part.step == x].set_index("n_items") for x in ("dedupe",
                                                                     "dedupe_datasketch"))
        both = [n for n in sizes if n in d.index and n in b.index
                and d.loc[n, "status"] == "ok" and b.loc[n, "status"] == "ok"]
        if both:
            lines += ["", "dedupe against datasketch MinHashLSH + union-find (same run): " +
                      ", ".join(f"{n:,}: {b.loc[n, 'median_s'] / d.loc[n, 'median_s']:.1f}x "
                                f"faster, {b.loc[n, 'peak_rss_mb']:,.0f} vs "
                                f"{d.loc[n, 'peak_rss_mb']:,.0f} MB" for n in both)]
        loads = part.filter(like="load").stack()
        if len(loads):
            lines += ["", f"Load average during these runs: {loads.min():.1f}-{loads.max():.1f}."]
        lines.append("")
    return "\n".join(lines)


def plot(table: pd.DataFrame, path: Path) -> None:
    """Log-log time and peak RSS against N, one line per (language, kind, step)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    ok = table[table.status == "ok"]
    for (lang, kind, step), part in ok.groupby(["language", "kind", "step"], sort=True):
        style = "-" if kind == "distinct" else "--"
        label = f"{step} {lang} {kind}"
        axes[0].plot(part.n_items, part.median_s, style, marker="o", label=label)
        axes[1].plot(part.n_items, part.peak_rss_mb, style, marker="o", label=label)
    for ax, what in zip(axes, ("median wall time (s)", "peak RSS (MB)"), strict=True):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("items")
        ax.set_ylabel(what)
        ax.grid(True, which="both", alpha=0.3)
    axes[1].legend(fontsize=6, ncol=2)
    fig.suptitle("newsdedup commands against N (solid: distinct titles, dashed: templated)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000, 10_000, 30_000,
                                                             100_000])
    ap.add_argument("--languages", nargs="+", default=["ko", "en"])
    ap.add_argument("--kinds", nargs="+", default=KINDS, choices=KINDS)
    ap.add_argument("--steps", nargs="+", default=STEPS, choices=STEPS)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--single-from", type=int, default=30_000,
                    help="one run per step from this many items up")
    ap.add_argument("--budget", type=float, default=600.0,
                    help="skip a step extrapolated to take longer (s); a run is stopped at 2x")
    ap.add_argument("--append", action="store_true",
                    help="replace only the rows of this run's language, kind, size and step")
    ap.add_argument("--summary", action="store_true",
                    help="only rewrite sweep.md and sweep.png from sweep.csv")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _child_dedupe(args.child[1], args.child[0])
        return 0
    if not args.summary:
        sweep(args)
    table = pd.read_csv(OUT / "sweep.csv")
    (OUT / "sweep.md").write_text(summary(table), encoding="utf-8")
    plot(table, OUT / "sweep.png")
    print(summary(table))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The run report and the figures at 10k, 100k and 1M items: time and peak memory.

``newsdedup report`` and ``newsdedup report --figures`` read what a run wrote. Most
of it has a fixed size whatever the corpus (histogram bins, one row per
threshold, the top pairs, a sample of pairs near the threshold); what grows
with the corpus is the dedupe's ``items.csv`` (one row per item; the report
reads it in chunks to show the merged groups of its sampled pairs) and the
series table (``calibrate/series.csv``; the report reads its first 20 rows
and counts the rest). This benchmark takes one finished run with a dedupe
(by default ``newsdedup run`` of the Reuters titles, about 5k items),
enlarges those two tables to 10k, 100k and 1M items (copies of the rows
with new ids and groups; every other table as the run wrote it) and runs
both commands on each as whole processes.

Baseline (same run): the 10k folder. Reported per size: the median wall
time of ``--repeat`` runs, the peak RSS, and both as ratios to the 10k
folder's. Memory that stays flat from 10k to 1M is what "bounded" means.

Writes ``bench/results/report.csv``.

Example:
    .venv/bin/python bench/bench_report.py --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from newsdedup import paths
from newsdedup.runs.files import write_csv

SIZES = (10_000, 100_000, 1_000_000)
OUT = Path(__file__).resolve().parent / "results" / "report.csv"
CHUNK = 200_000


def _newsdedup() -> Path:
    """The ``newsdedup`` command of this interpreter's environment."""
    return Path(sys.executable).with_name("newsdedup")


def base_run(tmp: Path) -> Path:
    """``newsdedup run`` of the Reuters titles (a run whose calibration recommends a threshold)."""
    corpus = paths.shared_corpus_file("reuters21578-titles", "reuters-005-009.csv")
    subprocess.run([str(_newsdedup()), "run", str(corpus), "--name", "base", "--out", str(tmp),
                    "--quiet"], check=True, stdout=subprocess.DEVNULL)
    return tmp / "base"


def enlarge_table(source: Path, target: Path, size: int, id_columns: tuple[str, ...],
                  group_column: str | None) -> None:
    """``target``: the rows of ``source`` repeated to ``size`` rows, copies with new ids."""
    rows = pd.read_csv(source, dtype=str, keep_default_na=False)
    if not len(rows):
        shutil.copyfile(source, target)
        return
    copy = 0
    groups = (pd.to_numeric(rows[group_column]).max() + 1) if group_column else 0
    with target.open("w", encoding="utf-8", newline="") as fh:
        written = 0
        while written < size:
            part = rows.head(size - written).copy()
            if copy:
                for col in id_columns:
                    part[col] = part[col] + f"~{copy}"
                if group_column:
                    part[group_column] = (pd.to_numeric(part[group_column]) + copy * groups
                                          ).astype(str)
            part.to_csv(fh, index=False, header=not written)
            written += len(part)
            copy += 1


def enlarged_run(base: Path, size: int, tmp: Path) -> Path:
    """A copy of ``base`` whose per-item tables hold ``size`` items."""
    run = tmp / f"run-{size}"
    shutil.copytree(base, run, ignore=shutil.ignore_patterns("report", "figures"))
    enlarge_table(base / "dedupe" / "items.csv", run / "dedupe" / "items.csv", size,
                  ("id", "representative"), "group")
    enlarge_table(base / "calibrate" / "series.csv", run / "calibrate" / "series.csv",
                  size // 10, (), None)
    # What the run wrote for the report (the corpus summary, the pairs sampled near the
    # threshold) is kept; the summary states the enlarged count of items.
    (run / "report").mkdir(exist_ok=True)
    for name in ("corpus.json", "near_pairs.csv"):
        if (base / "report" / name).is_file():
            shutil.copyfile(base / "report" / name, run / "report" / name)
    corpus = run / "report" / "corpus.json"
    if corpus.is_file():
        data = json.loads(corpus.read_text(encoding="utf-8"))
        data["items"] = size
        corpus.write_text(json.dumps(data), encoding="utf-8")
    return run


def measure(command: str, run: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of ``newsdedup report RUN`` (``--figures`` for figures)."""
    start = time.perf_counter()
    words = ["report", str(run)] + (["--figures"] if command == "figures" else [])
    proc = subprocess.Popen([str(_newsdedup()), *words, "--quiet"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # wait4 gives this child's own resource usage (ru_maxrss in KB on Linux).
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code:
        raise RuntimeError(f"newsdedup {command} {run} failed (exit {code})")
    return seconds, usage.ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--run", type=Path, help="a finished run folder with dedupe/ (default: "
                   "`newsdedup run` of the Reuters titles into a temporary folder)")
    p.add_argument("--repeat", type=int, default=3, help="runs per command and size (median)")
    p.add_argument("--out", type=Path, default=OUT, help=f"CSV written (default {OUT})")
    args = p.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-report-") as tmp_name:
        tmp = Path(tmp_name)
        base = args.run or base_run(tmp)
        for size in SIZES:
            run = enlarged_run(base, size, tmp)
            for command in ("report", "figures"):
                runs = [measure(command, run) for _ in range(args.repeat)]
                rows.append({"command": command, "items": size,
                             "median_s": statistics.median(r[0] for r in runs),
                             "peak_rss_mb": max(r[1] for r in runs)})
                print(f"{command:8s} {size:>9,} items: {rows[-1]['median_s']:.2f} s, "
                      f"{rows[-1]['peak_rss_mb']:.0f} MB", file=sys.stderr, flush=True)
            shutil.rmtree(run)
    table = pd.DataFrame(rows)
    first = table.groupby("command")[["median_s", "peak_rss_mb"]].transform("first")
    table["time_ratio"] = table["median_s"] / first["median_s"]
    table["rss_ratio"] = table["peak_rss_mb"] / first["peak_rss_mb"]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_csv(table, args.out)
    print(table.to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

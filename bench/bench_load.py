"""Loading a corpus kept compressed or as a folder of daily files: time and peak memory.

A feed is often archived compressed (``news.jsonl.gz``) or kept as one file a day
(``feed/2024-05-01.jsonl``, ...); ``load_corpus`` reads both as the plain file
(:mod:`newsdedup.corpus.compressed`, :func:`newsdedup.corpus.load.load_corpus`).
This benchmark writes one synthetic Korean feed per size (``bench_scale``'s
``run`` corpus: enlarged headlines with ids, URLs and dates) in each layout and
loads each in a fresh process, ``--repeat`` times (the layouts alternated in each round).

Baseline (same run): the plain JSON Lines file of the same size. Reported per
size and layout: the median seconds of the load (imports excluded), the peak RSS
of the process, both as ratios to the plain file's, and whether the items
loaded equal the plain file's (a hash of the items table in id order: a folder holds
them in the order of its files; a layout whose items differ fails the benchmark).

Writes ``bench/results/load.csv``.

Example:
    .venv/bin/python bench/bench_load.py --sizes 10000 100000 --repeat 3
"""

from __future__ import annotations

import argparse
import bz2
import gzip
import json
import lzma
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scale import write_run_corpus  # noqa: E402

from newsdedup.runs.files import write_csv  # noqa: E402

SIZES = (10_000, 100_000)
OUT = Path(__file__).resolve().parent / "results" / "load.csv"
DAYS = 30
"""Files of the folder layout: the run corpus's dates span one month."""

# One load in a fresh process: seconds of load_corpus alone, peak RSS, a hash of the items.
_CHILD = """
import hashlib, json, resource, sys, time
from newsdedup.corpus.load import load_corpus
start = time.perf_counter()
corpus = load_corpus(sys.argv[1])
seconds = time.perf_counter() - start
# In id order: a folder holds the items in the order of its files, the plain file in its own.
table = corpus.items.sort_values("id", kind="stable").reset_index(drop=True)
digest = hashlib.sha256(table.to_csv(index=False).encode()).hexdigest()
print(json.dumps({"seconds": seconds, "peak_mb": resource.getrusage(
    resource.RUSAGE_SELF).ru_maxrss / 1024, "items": len(corpus.items), "digest": digest}))
"""


def layouts(plain: Path, folder: Path) -> dict[str, Path]:
    """The plain file, its gzip, xz and bzip2 copies and a folder of one file a day."""
    data = plain.read_bytes()
    out = {"jsonl": plain}
    for name, pack in (("gz", gzip.compress), ("xz", lzma.compress), ("bz2", bz2.compress)):
        path = plain.with_name(plain.name + "." + name)
        path.write_bytes(pack(data))
        out[f"jsonl.{name}"] = path
    folder.mkdir()
    by_day: dict[str, list[str]] = {}
    for line in data.decode("utf-8").splitlines(keepends=True):
        by_day.setdefault(json.loads(line)["published_at"][:10], []).append(line)
    for day, lines in sorted(by_day.items()):
        (folder / f"{day}.jsonl").write_text("".join(lines), encoding="utf-8")
    out[f"folder of {len(by_day)} days"] = folder
    return out


def load_once(path: Path) -> dict:
    """One load of ``path`` in a fresh process."""
    done = subprocess.run([sys.executable, "-c", _CHILD, str(path)], check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout)


def bench_size(size: int, repeat: int, tmp: Path) -> list[dict]:
    """Every layout of one size, ``repeat`` loads each, alternated within each round."""
    plain = tmp / f"ko-{size}.jsonl"
    write_run_corpus("ko", size, plain)
    paths = layouts(plain, tmp / f"ko-{size}-days")
    runs: dict[str, list[dict]] = {name: [] for name in paths}
    for _ in range(repeat):
        for name, path in paths.items():
            runs[name].append(load_once(path))
    base = runs["jsonl"]
    base_s = statistics.median(r["seconds"] for r in base)
    base_mb = max(r["peak_mb"] for r in base)
    rows = []
    for name, got in runs.items():
        if {r["digest"] for r in got} != {base[0]["digest"]}:
            raise SystemExit(f"{name} at {size:,} items: the items differ from the plain file's")
        seconds, peak = statistics.median(r["seconds"] for r in got), max(r["peak_mb"] for r in got)
        rows.append({"size": size, "layout": name, "bytes": _bytes(paths[name]),
                     "items": got[0]["items"], "seconds": round(seconds, 3),
                     "peak_mb": round(peak, 1), "time_ratio": round(seconds / base_s, 2),
                     "rss_ratio": round(peak / base_mb, 2), "repeat": repeat})
        print(f"{size:>9,} {name:<20} {seconds:7.2f} s ({seconds / base_s:4.2f}x) "
              f"{peak:7.0f} MB ({peak / base_mb:4.2f}x)", flush=True)
    return rows


def _bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.iterdir()) if path.is_dir() else path.stat().st_size


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write ``bench/results/load.csv``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES),
                        help="feed sizes in items (default: %(default)s)")
    parser.add_argument("--repeat", type=int, default=3, help="loads per layout (median)")
    parser.add_argument("--out", type=Path, default=OUT, help="CSV written (default: %(default)s)")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            rows += bench_size(size, args.repeat, Path(tmp))
    write_csv(pd.DataFrame(rows), args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

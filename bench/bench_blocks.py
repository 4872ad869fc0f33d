"""Benchmark: the three block commands against the seed's three scripts, whole processes.

Seed 004 publishes its blocks with three standard-library scripts
(``measure.py``, ``calibrate.py``, ``cross.py``, run as ``python3 measure.py``
beside ``src/data/news.ts``). A user of this package runs ``newsdedup
measure``, ``newsdedup calibrate`` and ``newsdedup measure --crosshost`` instead. This
script times both as whole processes (interpreter start, imports, reading the
corpus, computing, printing and, for the package, writing its files) on the
pinned corpus, in the same run: the scripts are cut out of the seed text
(``../shared/seeds/004_*.txt``) into a temporary folder with the corpus, and
each round runs the six processes alternating seed and package, step by step.
It reports the median wall time and the peak RSS (``wait4``'s ``ru_maxrss``)
of each, the ratio seed / package per step and for the sum of the three, and
writes ``bench/results/blocks.csv`` and ``blocks.png``.

The package's commands run without arguments except ``--out`` (a temporary
results root, so the committed results stay untouched); that they print the
published numbers is tested in ``tests/e2e/test_block_commands.py`` and
``tests/e2e/test_reproduce.py``. Machines are shared and noisy: read the
medians and the ratio measured in the same run.

What the package's processes start from is recorded beside the times: the
``bytecode`` column counts the package modules under ``src/`` with a current
``.pyc`` (``make install`` and ``make bytecode`` compile them; where
``PYTHONDONTWRITEBYTECODE`` is set, as on this machine, Python never caches
them itself, so a module without one is compiled again in every process),
and ``load`` is the highest one-minute load average seen at the start of a
run.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from newsdedup.paths import locate_pinned

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results"
STEPS = (("measure", "measure.py", ("measure",)), ("calibrate", "calibrate.py", ("calibrate",)),
         ("crosshost", "cross.py", ("measure", "--crosshost")))
"""(step, seed script, newsdedup command words)."""


def seed_file() -> Path:
    """The seed-004 text (``shared/seeds/004_*.txt`` beside the checkout)."""
    found = sorted((ROOT.parent / "shared" / "seeds").glob("004_*.txt"))
    if not found:
        raise SystemExit(f"no seed 004 under {ROOT.parent / 'shared' / 'seeds'}")
    return found[0]


def seed_scripts(text: str) -> dict[str, str]:
    """The scripts of the seed text: the lines after ``NAME.py:`` up to its ``출력:`` line."""
    lines = text.splitlines()
    scripts = {}
    for _, name, _ in STEPS:
        start = lines.index(f"{name}:") + 1
        end = lines.index("출력:", start)
        scripts[name] = "\n".join(lines[start:end]).strip("\n") + "\n"
    return scripts


def real_python3() -> str:
    """The interpreter ``python3`` runs (a pyenv shim is a shell script: not timed with it)."""
    found = shutil.which("python3")
    if found is None:
        return sys.executable
    done = subprocess.run([found, "-c", "import sys; print(sys.executable)"], check=True,
                          capture_output=True, text=True)
    return done.stdout.strip()


def bytecode_state() -> str:
    """``"current/modules"``: package modules whose ``.pyc`` matches the source's mtime."""
    sources = sorted((ROOT / "src" / "newsdedup").rglob("*.py"))
    current = 0
    for src in sources:
        pyc = Path(importlib.util.cache_from_source(str(src)))
        if pyc.is_file():
            with pyc.open("rb") as fh:
                header = fh.read(12)
            # PEP 552 header: magic, flags, then the source's mtime (timestamp-based pycs).
            mtime = int.from_bytes(header[8:12], "little")
            current += mtime == int(src.stat().st_mtime) & 0xFFFFFFFF
    return f"{current}/{len(sources)}"


def run_once(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one process; fails on a non-zero exit."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{err}")
    return seconds, usage.ru_maxrss / 1024  # KB on Linux


def bench(repeat: int, python: str) -> pd.DataFrame:
    """Run every step ``repeat`` times per side, alternating; one row per process run."""
    newsdedup = Path(sys.executable).parent / "newsdedup"
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-blocks-") as tmp:
        work = Path(tmp)
        (work / "src" / "data").mkdir(parents=True)
        shutil.copyfile(locate_pinned(), work / "src" / "data" / "news.ts")
        for name, code in seed_scripts(seed_file().read_text(encoding="utf-8")).items():
            (work / name).write_text(code, encoding="utf-8")
        out = work / "results"
        for r in range(repeat):
            for step, script, command in STEPS:
                sides = [("seed", [python, script]),
                         ("newsdedup", [str(newsdedup), *command, "--out", str(out)])]
                if r % 2:  # alternate which side goes first
                    sides.reverse()
                for side, cmd in sides:
                    load = os.getloadavg()[0]
                    seconds, rss = run_once(cmd, work)
                    rows.append({"round": r, "step": step, "side": side, "seconds": seconds,
                                 "rss_mb": rss, "load": load})
                    print(f"round {r}: {step:<9} {side:<9} {seconds:6.2f} s {rss:7.1f} MB "
                          f"(load {load:.2f})", flush=True)
    return pd.DataFrame(rows)


def summary(runs: pd.DataFrame, bytecode: str) -> pd.DataFrame:
    """Per step: median seconds and peak RSS of each side, and the ratio; then the sum.

    Every row also carries ``bytecode`` (see :func:`bytecode_state`) and the
    highest load average seen at the start of the step's runs.
    """
    rows = []
    for step, _, _ in STEPS:
        part = runs[runs["step"] == step]
        seed = part[part["side"] == "seed"]
        ours = part[part["side"] == "newsdedup"]
        rows.append({"step": step, "runs": len(ours),
                     "seed_s": statistics.median(seed["seconds"]),
                     "newsdedup_s": statistics.median(ours["seconds"]),
                     "seed_rss_mb": float(seed["rss_mb"].max()),
                     "newsdedup_rss_mb": float(ours["rss_mb"].max()),
                     "load": float(part["load"].max())})
    table = pd.DataFrame(rows)
    total = {"step": "all", "runs": int(table["runs"].min()),
             "seed_s": table["seed_s"].sum(), "newsdedup_s": table["newsdedup_s"].sum(),
             "seed_rss_mb": table["seed_rss_mb"].max(),
             "newsdedup_rss_mb": table["newsdedup_rss_mb"].max(),
             "load": table["load"].max()}
    table = pd.concat([table, pd.DataFrame([total])], ignore_index=True)
    table["ratio"] = table["seed_s"] / table["newsdedup_s"]
    table["bytecode"] = bytecode
    return table[["step", "runs", "seed_s", "newsdedup_s", "ratio", "seed_rss_mb",
                  "newsdedup_rss_mb", "load", "bytecode"]]


def plot(table: pd.DataFrame, path: Path) -> None:
    """Bars of the median seconds per step, seed against package."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = table[table["step"] != "all"]
    x = range(len(steps))
    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.bar([i - 0.2 for i in x], steps["seed_s"], 0.4, label="seed script (python3)")
    ax.bar([i + 0.2 for i in x], steps["newsdedup_s"], 0.4, label="newsdedup command")
    ax.set_xticks(list(x), [f"{s}\n{r:.1f}x" for s, r in zip(steps["step"], steps["ratio"],
                                                             strict=True)])
    total = table[table["step"] == "all"].iloc[0]
    ax.set_ylabel("median wall seconds")
    ax.set_title(f"Published blocks, whole processes: sum {total.seed_s:.2f} s vs "
                 f"{total.newsdedup_s:.2f} s ({total.ratio:.1f}x)", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs per step and side (default 5)")
    ap.add_argument("--python", default=None,
                    help="interpreter of the seed scripts (default: the one `python3` on PATH "
                         "runs, resolved past version-manager shims)")
    ap.add_argument("--out", type=Path, default=OUT, help="folder of blocks.csv and blocks.png")
    args = ap.parse_args(argv)
    bytecode = bytecode_state()
    print(f"package modules with current bytecode: {bytecode}; PYTHONDONTWRITEBYTECODE="
          f"{os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r}", flush=True)
    runs = bench(args.repeat, args.python or real_python3())
    table = summary(runs, bytecode)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    args.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out / "blocks.csv", index=False, float_format="%.3f")
    plot(table, args.out / "blocks.png")
    print(f"wrote {args.out / 'blocks.csv'} and {args.out / 'blocks.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Do the calibration's intervals hold? The labeling loop on planted corpora, seed by seed.

Each seed plants a corpus whose every pair's truth is known
(:func:`newsdedup.calibration.simulate.planted_corpus`: real headlines of one
language, rewritten into events with copies, follow-ups and recurring
series), runs the labeling loop the README describes with the truth as the
labeller (200 labels), then a 100-pair hold-out, and compares the stated
precision and recall at the chosen threshold with the truth. The share of
seeds whose interval holds the truth is the coverage ``docs/calibration.md``
reports.

One seed costs about four minutes on one core, so the study is resumable:
each finished seed is appended to ``coverage_<language>.csv`` (written
atomically) and a rerun skips the seeds the file already holds.

Example::

    python -m newsdedup.runs.coverage --language ko --seeds 10
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

from newsdedup import paths
from newsdedup.runs.files import write_csv

__all__ = ["run_coverage", "summarize", "main"]


def run_coverage(language: str, seeds: range, out: Path, budget: int = 200,
                 holdout: int = 100) -> pd.DataFrame:
    """Run the seeds ``out`` does not hold yet, appending each as it finishes.

    Args:
        language: ``ko`` or ``en`` (the headline pool).
        seeds: Seeds to hold in the end.
        out: The CSV (one row per seed).
        budget: Labels per loop.
        holdout: Hold-out pairs after the loop.

    Returns:
        Every row of ``out``, by seed.
    """
    from newsdedup.calibration.simulate import coverage_study
    from newsdedup.studies.synthetic import headline_pool

    done = pd.read_csv(out) if out.is_file() else None
    have = set() if done is None else set(done["seed"].astype(int))
    todo = [s for s in seeds if s not in have]
    pool = headline_pool(language) if todo else []
    started = time.monotonic()
    for k, seed in enumerate(todo):
        row = coverage_study(pool, [seed], budget=budget, holdout=holdout)
        done = (row if done is None else pd.concat([done, row], ignore_index=True)
                .sort_values("seed", kind="stable"))
        write_csv(done, out)
        per_seed = (time.monotonic() - started) / (k + 1)
        print(f"{language} seed {seed}: done ({k + 1}/{len(todo)}, {per_seed:.0f} s per seed, "
              f"ETA {per_seed * (len(todo) - k - 1):.0f} s)", file=sys.stderr, flush=True)
    return pd.DataFrame() if done is None else done.reset_index(drop=True)


def summarize(rows: pd.DataFrame) -> pd.DataFrame:
    """Coverage per estimate: seeds, seeds with a threshold, share covered, mean width.

    Examples:
        >>> rows = pd.DataFrame({"seed": [0, 1], "threshold": [0.2, 0.3],
        ...     "holdout_precision_low": [0.9, 0.8], "holdout_precision_high": [1.0, 0.85],
        ...     "holdout_precision_covered": [True, False]})
        >>> print(summarize(rows).to_string(index=False))
                 estimate  seeds  covered  coverage  mean_width
        holdout_precision      2        1       0.5       0.075
    """
    out = []
    for col in sorted(c for c in rows.columns if c.endswith("_covered")):
        name = col.removesuffix("_covered")
        have = rows[rows[f"{name}_low"].notna()]
        covered = int(have[col].astype(bool).sum())
        width = (have[f"{name}_high"] - have[f"{name}_low"]).mean()
        out.append({"estimate": name, "seeds": len(have), "covered": covered,
                    "coverage": round(covered / len(have), 3) if len(have) else float("nan"),
                    "mean_width": round(float(width), 3)})
    return pd.DataFrame(out)


def main(argv: list[str] | None = None) -> int:
    """Command line: run (or resume) the study for one language and print its coverage."""
    parser = argparse.ArgumentParser(
        prog="python -m newsdedup.runs.coverage",
        description="Check the calibration's stated intervals against the truth: the labeling "
                    "loop (200 labels) and a 100-pair hold-out on planted corpora, one per seed. "
                    "Appends each seed to results/calibration-coverage/coverage_<language>.csv "
                    "and skips seeds already there; about four minutes per seed.",
        epilog="example: python -m newsdedup.runs.coverage --language ko --seeds 10")
    parser.add_argument("--language", choices=("ko", "en"), required=True,
                        help="headline pool: ko (pinned archive + KorSTS) or en (UCI + STS-B)")
    parser.add_argument("--seeds", type=int, default=10, help="seeds 0..N-1 (default 10)")
    parser.add_argument("--out", type=Path, default=None,
                        help="the CSV (default: "
                             "results/calibration-coverage/coverage_<language>.csv)")
    args = parser.parse_args(argv)
    out = args.out or paths.RESULTS_DIR / "calibration-coverage" / f"coverage_{args.language}.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = run_coverage(args.language, range(args.seeds), out)
    summary = summarize(rows)
    write_csv(summary, out.with_name(f"summary_{args.language}.csv"))
    print(summary.to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

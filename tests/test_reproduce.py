"""A fresh run on the pinned corpus rewrites the committed results byte for byte.

The committed tables under ``results/paldyn-ai-lab-news/`` are what the README
shows. This test recomputes them into a temporary folder and compares every
committed file: CSV and Markdown byte for byte, JSON after dropping the
``environment`` block (library versions), PNG by existence and size in pixels
(font rendering may differ between machines; the numbers behind each figure
are the CSVs compared here).
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from newsdedup.config import PALDYN, results_dir
from newsdedup.pipeline import run_all

COMMITTED = results_dir(PALDYN.name)
SKIP = {"timings.json"}  # wall times: never reproducible, never committed
OWNED = {"signals"}  # reproduced by their own runs in tests/test_signal_runs.py


@pytest.fixture(scope="module")
def fresh(pinned, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("results")
    run_all(pinned, PALDYN.name, out, echo=False)
    from newsdedup.figures import write_figures

    write_figures(PALDYN.name, out)
    return out / PALDYN.name


def _committed_files() -> list[Path]:
    files = sorted(p for p in COMMITTED.rglob("*")
                   if p.is_file() and p.name not in SKIP and p.suffix != ".svg"
                   and p.relative_to(COMMITTED).parts[0] not in OWNED)
    assert files, f"no committed results under {COMMITTED}: run `make reproduce` and commit"
    return files


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


def _without_environment(obj):
    if isinstance(obj, dict):
        return {k: _without_environment(v) for k, v in obj.items() if k != "environment"}
    if isinstance(obj, list):
        return [_without_environment(v) for v in obj]
    return obj


@pytest.mark.parametrize("rel", [p.relative_to(COMMITTED).as_posix() for p in _committed_files()]
                         if COMMITTED.is_dir() else ["<missing>"])
def test_committed_file_is_reproduced(fresh, rel):
    old, new = COMMITTED / rel, fresh / rel
    assert new.is_file(), f"a fresh run no longer writes {rel}"
    if rel.endswith(".png"):
        assert _png_size(new) == _png_size(old)
    elif rel.endswith(".json"):
        assert _without_environment(json.loads(new.read_text("utf-8"))) == _without_environment(
            json.loads(old.read_text("utf-8")))
    else:
        assert new.read_text("utf-8") == old.read_text("utf-8"), f"{rel} differs from a fresh run"


def test_every_fresh_table_is_committed(fresh):
    ignored = {"crosshost/cross_pairs.csv"}
    # SVG twins of the PNGs are regenerated, not committed (.gitignore).
    made = {p.relative_to(fresh).as_posix() for p in fresh.rglob("*")
            if p.is_file() and p.name not in SKIP and p.suffix != ".svg"}
    committed = {p.relative_to(COMMITTED).as_posix() for p in _committed_files()}
    assert made - ignored <= committed, f"not committed: {sorted(made - ignored - committed)}"

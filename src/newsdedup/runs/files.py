r"""The one writer of result files: CSV, JSON, Markdown and ``params`` records.

Every run module (:mod:`newsdedup.runs.measure`, :mod:`~newsdedup.runs.calibrate`,
...) decides *which* files it writes; this module is the only one that
writes them, so their format is defined once. Written files are
deterministic: no timestamps, no wall times, fixed float formatting, ``\n``
line ends, keys in a fixed order. Wall times go only to the console and to
``timings.json``, which git ignores. Rerunning a command on the same corpus
therefore rewrites byte-identical files, which is what
``tests/e2e/test_reproduce.py`` checks against the committed tables.

It also defines :data:`Progress`, the status callback every run takes, and
:func:`quiet`, the callback that says nothing.
"""

from __future__ import annotations

import json
import math
import platform
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

FLOAT_FORMAT = "%.6f"
"""Float format of every written CSV (6 decimals)."""

Progress = Callable[[str], None]
"""Status callback of a run: called with one-line messages (the CLI prints them to stderr)."""


def quiet(_msg: str) -> None:
    """The :data:`Progress` callback that says nothing (the default of every run)."""
    return None


def _plain(value):
    """JSON-safe version of numpy scalars, paths, NaN (-> None) and containers."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Path):
        return str(value)
    return value


def write_json(obj: Mapping, path: Path) -> Path:
    """Write ``obj`` as indented UTF-8 JSON (NaN as null) and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(_plain(obj), ensure_ascii=False, indent=2, allow_nan=False)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def write_csv(df: pd.DataFrame, path: Path) -> Path:
    """Write a table as UTF-8 CSV with floats at 6 decimals and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(path, index=False, float_format=FLOAT_FORMAT, lineterminator="\n")
    return path


def _cell(value, floatfmt: str) -> str:
    if isinstance(value, float | np.floating):
        return "nan" if not math.isfinite(value) else format(value, floatfmt)
    text = str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(df: pd.DataFrame, floatfmt: str = ".3f", formats: Mapping[str, str] | None = None
                   ) -> str:
    """Render a DataFrame as a GitHub Markdown table.

    Args:
        df: The table.
        floatfmt: Default format spec for float cells.
        formats: Per-column format specs overriding ``floatfmt``.

    Examples:
        >>> print(markdown_table(pd.DataFrame({"n": [3], "err": [0.00594]}), ".4f"))
        | n | err |
        |---:|---:|
        | 3 | 0.0059 |
    """
    formats = dict(formats or {})
    cols = list(df.columns)
    align = ["---:" if pd.api.types.is_numeric_dtype(df[c]) else ":---" for c in cols]
    lines = ["| " + " | ".join(map(str, cols)) + " |", "|" + "|".join(align) + "|"]
    for row in df.itertuples(index=False):
        cells = [_cell(v, formats.get(c, floatfmt)) for c, v in zip(cols, row, strict=True)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_tables(tables: Mapping[str, pd.DataFrame], out_dir: Path, prefix: str = ""
                 ) -> list[Path]:
    """Write each table as ``<out_dir>/<prefix><key>.csv`` and return the paths."""
    return [write_csv(table, out_dir / f"{prefix}{key}.csv") for key, table in tables.items()]


def write_markdown(sections: Iterable[tuple[str, str]], path: Path, title: str) -> Path:
    """Write ``# title`` then one ``## heading`` + body per section."""
    path.parent.mkdir(parents=True, exist_ok=True)
    parts = [f"# {title}\n"]
    for heading, body in sections:
        parts.append(f"## {heading}\n\n{body}\n")
    path.write_text("\n".join(parts), encoding="utf-8")
    return path


def environment(*extra: str) -> dict:
    """Library versions that can change numbers (recorded in every params file).

    Args:
        *extra: Further modules whose ``__version__`` to record after the
            standard ones (the signal runs add ``"kiwipiepy"``).

    Returns:
        ``{library: version}`` in a fixed order.
    """
    import importlib

    import datasketch
    import scipy

    import newsdedup

    return {
        "newsdedup": newsdedup.__version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "pandas": pd.__version__,
        "datasketch": datasketch.__version__,
    } | {name: importlib.import_module(name).__version__ for name in extra}


def write_params(record: Mapping, path: Path, *extra: str) -> Path:
    """Write a run's ``params`` JSON: ``record`` then its ``environment`` block, last.

    Args:
        record: What the run was given and counted (corpus meta, options ...).
        path: The JSON file.
        *extra: Further modules for :func:`environment`.

    Returns:
        ``path``.
    """
    return write_json(dict(record) | {"environment": environment(*extra)}, path)


# --- corpus -----------------------------------------------------------------


def corpus_meta(corpus, name: str) -> dict:
    """What identifies the input of a run: name, file, checksum, format, counts, rejects."""
    return {
        "name": name,
        "file": Path(corpus.path).name,
        "sha256": corpus.sha256,
        "format": corpus.fmt,
        "dialect": corpus.dialect,
        "records": corpus.n_records,
        "items": len(corpus.items),
        "rejected": [
            {"record": r.record, "line": r.line, "id": r.id, "reason": r.reason}
            for r in corpus.rejected
        ],
    }



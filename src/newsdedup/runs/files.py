r"""The one writer of result files: CSV, JSON, Markdown and ``params`` records.

Every run module (:mod:`newsdedup.runs.measure`, :mod:`~newsdedup.runs.calibrate`,
...) decides *which* files it writes; this module is the only one that
writes them, so their format is defined once. Written files are
deterministic: no timestamps, no wall times, fixed float formatting, ``\n``
line ends, keys in a fixed order. Wall times go only to the console and to
``timings.json``, which git ignores. Rerunning a command on the same corpus
therefore rewrites byte-identical files, which is what
``tests/e2e/test_reproduce.py`` checks against the committed tables.

Every file is written atomically (:func:`atomic_file`): to a temporary name in
the same folder, flushed to disk, then renamed over the target, so a killed
write or a full disk leaves the previous file (or none), never a truncated
one that looks complete; a failed write raises :class:`OutputError`, one line
naming the file. Text cells a spreadsheet would run as a formula are escaped
(:func:`newsdedup.corpus.cells.escape_cell`). Which files of a command are
committed *together* is :mod:`newsdedup.runs.commit`'s business.

It also defines :data:`Progress`, the status callback every run takes, and
:func:`quiet`, the callback that says nothing.
"""

from __future__ import annotations

import contextlib
import contextvars
import csv
import functools
import json
import math
import os
import platform
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pandas is imported where a table is written, not with the module
    import pandas as pd

from newsdedup.corpus.cells import FORMULA_STARTS, escape_cell

FLOAT_FORMAT = "%.6f"
"""Float format of every written CSV (6 decimals)."""

Progress = Callable[[str], None]
"""Status callback of a run: called with one-line messages (the CLI prints them to stderr)."""


def quiet(_msg: str) -> None:
    """The :data:`Progress` callback that says nothing (the default of every run)."""
    return None


class OutputError(OSError):
    """A result file could not be written; the message is one line naming the file."""


@functools.cache
def _umask() -> int:
    # Read once: os.umask can only be read by setting it, which races with other threads.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def fsync_dir(folder: Path) -> None:
    """Flush a folder's entries (new names, renames) to disk; a no-op where unsupported."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


_ROOTS: contextvars.ContextVar[tuple[Path, ...]] = contextvars.ContextVar("roots", default=())
"""Folders every file must land in while a command stages (empty: no constraint)."""


@contextlib.contextmanager
def contained(*roots: Path) -> Iterator[None]:
    """Refuse, inside the block, any file whose folder does not resolve inside ``roots``.

    A command stages under ``--out`` (:func:`newsdedup.runs.commit.committed`) and
    writes nothing anywhere else; a folder on the way that is a link leading out (a
    step folder, a staging folder) would otherwise carry a write outside.

    Examples:
        >>> import tempfile
        >>> root = Path(tempfile.mkdtemp())
        >>> with contained(root / "out"):
        ...     write_text("x", root / "elsewhere.txt")
        Traceback (most recent call last):
        ...
        newsdedup.runs.files.OutputError: ...elsewhere.txt: its folder ... is outside ...
    """
    token = _ROOTS.set(tuple(Path(r).resolve() for r in roots))
    try:
        yield
    finally:
        _ROOTS.reset(token)


def _check_contained(path: Path) -> None:
    roots = _ROOTS.get()
    if roots:
        folder = path.parent.resolve()
        if not any(folder.is_relative_to(r) for r in roots):
            raise OutputError(f"{path}: its folder {folder} is outside --out "
                              f"{roots[0]}; refusing to write there")


def _failed(path: Path, exc: OSError) -> OutputError:
    reason = exc.strerror or str(exc)
    return OutputError(f"{path}: cannot write ({reason}); the previous file, if any, is "
                       "left as it was")


@contextlib.contextmanager
def atomic_file(path: Path, binary: bool = False) -> Iterator[IO[Any]]:
    """Open ``path`` for writing so that it appears whole or not at all.

    The data go to a temporary file beside ``path`` (``.<name>.<random>.tmp``),
    which is flushed and fsynced, then renamed over ``path`` with
    :func:`os.replace` (atomic on POSIX) and the folder fsynced. If the block
    raises, or the process dies, ``path`` keeps its previous content; the
    temporary file is removed (after ``kill -9`` a hidden ``.tmp`` may stay).

    Args:
        path: The target file; its folder is created.
        binary: Open in binary mode instead of UTF-8 text with newline line ends.

    Yields:
        The open temporary file.

    Raises:
        OutputError: Any OS error (no space, no permission ...), naming ``path``; or a
            folder outside the roots of :func:`contained`.
    """
    path = Path(path)
    _check_contained(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise _failed(path, exc) from None
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; a result file is readable
        with (os.fdopen(fd, "wb") if binary
              else os.fdopen(fd, "w", encoding="utf-8", newline="")) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and not isinstance(exc, OutputError):
            raise _failed(path, exc) from None
        raise
    fsync_dir(path.parent)


def write_text(text: str, path: Path) -> Path:
    """Write UTF-8 text atomically (:func:`atomic_file`) and return the path."""
    with atomic_file(path) as fh:
        fh.write(text)
    return path


def write_bytes(data: bytes, path: Path) -> Path:
    """Write bytes atomically (:func:`atomic_file`) and return the path."""
    with atomic_file(path, binary=True) as fh:
        fh.write(data)
    return path


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
    text = json.dumps(_plain(obj), ensure_ascii=False, indent=2, allow_nan=False)
    return write_text(text + "\n", path)


def _text_columns(df: pd.DataFrame) -> list:
    import pandas as pd

    return [c for c in df.columns if df[c].dtype == object or pd.api.types.is_string_dtype(df[c])]


def _text_cells(column: pd.Series, starts: tuple[str, ...] = (), holds: str = "") -> np.ndarray:
    """Which cells are text that starts with one of ``starts`` (or holds ``holds``)."""
    try:  # vectorized on a text column; a column mixing types has no .str
        text = column.str
        found = text.startswith(starts, na=False) if starts else text.contains(
            holds, regex=False, na=False)
        return found.to_numpy(dtype=bool)
    except AttributeError:
        return column.map(lambda v: isinstance(v, str) and (
            v.startswith(starts) if starts else holds in v)).to_numpy(dtype=bool)


def spreadsheet_safe(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with text cells a spreadsheet would run as a formula escaped (numbers untouched).

    Examples:
        >>> import pandas as pd
        >>> spreadsheet_safe(pd.DataFrame({"t": ["=1+2", "ok"], "x": [-1, 2]}))
              t  x
        0  '=1+2 -1
        1    ok  2
    """
    risky = {c: mask for c in _text_columns(df)
             if (mask := _text_cells(df[c], starts=FORMULA_STARTS)).any()}
    if not risky:
        return df
    return df.assign(**{str(c): df[c].where(~mask, df[c].map(escape_cell))
                        for c, mask in risky.items()})


def write_csv(df: pd.DataFrame, path: Path) -> Path:
    """Write a table as UTF-8 CSV with floats at 6 decimals and return the path.

    Text cells starting with ``= + - @``, a tab or a CR are escaped
    (:func:`spreadsheet_safe`); the file is written atomically (:func:`atomic_file`).
    """
    safe = spreadsheet_safe(df)
    # The csv writer quotes a field holding "\n" but not one holding a lone "\r", which
    # readers take for a line end; such a (rare) table gets every text field quoted.
    cr = any(_text_cells(safe[c], holds="\r").any() for c in _text_columns(safe))
    with atomic_file(path) as fh:
        safe.to_csv(fh, index=False, float_format=FLOAT_FORMAT, lineterminator="\n",
                    quoting=csv.QUOTE_NONNUMERIC if cr else csv.QUOTE_MINIMAL)
    return path


_LINE_BREAKS = re.compile("\r\n|[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]")
"""Everything :meth:`str.splitlines` breaks on; Markdown renderers end a line at CR too."""


def _cell(value, floatfmt: str) -> str:
    """One Markdown table cell: pipes escaped, every line break a space (one row, one line)."""
    if isinstance(value, float | np.floating):
        return "nan" if not math.isfinite(value) else format(value, floatfmt)
    text = str(value)
    return _LINE_BREAKS.sub(" ", text.replace("|", "\\|"))


def markdown_table(df: pd.DataFrame, floatfmt: str = ".3f", formats: Mapping[str, str] | None = None
                   ) -> str:
    """Render a DataFrame as a GitHub Markdown table.

    Args:
        df: The table.
        floatfmt: Default format spec for float cells.
        formats: Per-column format specs overriding ``floatfmt``.

    Examples:
        >>> import pandas as pd
        >>> print(markdown_table(pd.DataFrame({"n": [3], "err": [0.00594]}), ".4f"))
        | n | err |
        |---:|---:|
        | 3 | 0.0059 |
    """
    import pandas as pd

    formats = dict(formats or {})
    cols = list(df.columns)
    align = ["---:" if pd.api.types.is_numeric_dtype(df[c]) else ":---" for c in cols]
    lines = ["| " + " | ".join(_cell(str(c), floatfmt) for c in cols) + " |",
             "|" + "|".join(align) + "|"]
    for row in df.itertuples(index=False):
        cells = [_cell(v, formats.get(c, floatfmt)) for c, v in zip(cols, row, strict=True)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_tables(tables: Mapping[str, pd.DataFrame], out_dir: Path, prefix: str = ""
                 ) -> list[Path]:
    """Write each table as ``<out_dir>/<prefix><key>.csv`` and return the paths."""
    return [write_csv(table, out_dir / f"{prefix}{key}.csv") for key, table in tables.items()]


def write_markdown(sections: Iterable[tuple[str, str]], path: Path, title: str) -> Path:
    """Write ``# title`` then one ``## heading`` + body per section.

    A heading is one line: a line break in it (a ``--name`` or a title holding a CR) is
    a space, as in table cells.
    """
    parts = [f"# {_LINE_BREAKS.sub(' ', title)}\n"]
    for heading, body in sections:
        parts.append(f"## {_LINE_BREAKS.sub(' ', heading)}\n\n{body}\n")
    return write_text("\n".join(parts), path)


def environment(*extra: str) -> dict:
    """Library versions that can change numbers (recorded in every params file).

    Args:
        *extra: Further modules whose ``__version__`` to record after the
            standard ones (the signal runs add ``"kiwipiepy"``).

    Returns:
        ``{library: version}`` in a fixed order.
    """
    import importlib

    import newsdedup

    return {
        "newsdedup": newsdedup.__version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": _version("scipy"),
        "pandas": _version("pandas"),
        "datasketch": _version("datasketch"),
    } | {name: importlib.import_module(name).__version__ for name in extra}


def _version(name: str) -> str:
    """Installed version of a library, without importing it when the run did not.

    The version of the module in ``sys.modules`` if the run imported it (its
    ``__version__``), else the installed distribution's: the same string,
    read without the import a short command avoids (scipy, pandas, datasketch).
    """
    import sys
    from importlib import metadata

    module = sys.modules.get(name)
    return module.__version__ if module is not None else metadata.version(name)


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


REJECTS = "rejected.csv"
"""The list of a corpus's rejected records, ``<out>/<name>/rejected.csv`` (when any)."""


def write_rejects(rejected: Iterable, path: Path) -> Path:
    """Write every rejected record (record, line, last line, id, reason) as CSV.

    The console says one line per load under ``--quiet``; this file holds the list. The
    records of a folder's files also name their file (first column).
    """
    import pandas as pd

    rejected = list(rejected)
    named = any(getattr(r, "file", None) is not None for r in rejected)
    columns = ["file"] * named + ["record", "line", "last_line", "id", "reason"]
    rows = [{"file": getattr(r, "file", None), "record": r.record, "line": r.line,
             "last_line": r.last_line, "id": r.id, "reason": r.reason} for r in rejected]
    table = pd.DataFrame(rows, columns=columns)
    return write_csv(table.astype({"line": "Int64", "last_line": "Int64"}), path)


def corpus_meta(corpus, name: str) -> dict:
    """What identifies the input of a run: name, file, checksum, format, counts, rejects.

    A folder read as one corpus adds its files and what it left out; its rejects name
    their file.
    """
    folder = {"files": list(corpus.files), "left_out": list(corpus.left_out)
              } if getattr(corpus, "files", ()) else {}
    return {
        "name": name,
        "file": Path(corpus.path).name,
        "sha256": corpus.sha256,
        "format": corpus.fmt,
        "dialect": corpus.dialect,
        "records": corpus.n_records,
        "items": len(corpus.items),
        # Only where it happened: every other run's params.json stays as it was.
        **({"ids": "record numbers"} if getattr(corpus, "numbered", False) else {}),
        **folder,
        "rejected": [
            ({"file": r.file} if getattr(r, "file", None) is not None else {})
            | {"record": r.record, "line": r.line, "id": r.id, "reason": r.reason}
            for r in corpus.rejected
        ],
    }



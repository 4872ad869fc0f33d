"""Any labelled pair file: CSV, TSV or JSON Lines, one sentence pair per row.

``newsdedup evaluate pairs --pairs FILE --columns a=COL,b=COL,score=COL`` reads a user's
pairs with :func:`load_pair_file`: the two texts, a numeric score (a graded similarity
such as STS's 0-5, or a 0/1 same-event label) and, optionally, a split column
(``split=COL``) naming where thresholds are chosen and where they are measured. The
format follows the extension (``.csv``, ``.tsv``/``.tab``, ``.jsonl``/``.ndjson``);
rows are parsed by the corpus readers of :mod:`newsdedup.corpus.tabular`, so quoting,
encodings and malformed rows behave as for a corpus. Every bad row is a one-line
:class:`~newsdedup.corpus.records.CorpusError` naming the file and line: nothing is
dropped silently.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from newsdedup.corpus.records import CorpusError, decode_bytes
from newsdedup.corpus.tabular import read_csv, read_jsonl

__all__ = ["PAIR_ROLES", "is_binary", "load_pair_file", "parse_pair_columns"]

PAIR_ROLES: tuple[str, ...] = ("a", "b", "score", "split")
"""What ``--columns`` maps: the two texts, the score, and (optional) the split."""

_FORMATS = {".csv": ",", ".tsv": "\t", ".tab": "\t", ".jsonl": "jsonl", ".ndjson": "jsonl"}


def parse_pair_columns(spec: str) -> dict[str, str]:
    """``"a=COL,b=COL,score=COL[,split=COL]"`` as ``{role: column}``.

    Raises:
        ValueError: An entry without ``=``, an unknown or repeated role, or ``a``, ``b``
            or ``score`` missing.

    Examples:
        >>> parse_pair_columns("a=s1, b=s2, score=label")
        {'a': 's1', 'b': 's2', 'score': 'label'}
    """
    out: dict[str, str] = {}
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        role, sep, column = (x.strip() for x in part.partition("="))
        if not sep or not column:
            raise ValueError(f"--columns entry {part!r} is not ROLE=COLUMN")
        if role not in PAIR_ROLES:
            raise ValueError(f"--columns: unknown role {role!r}; use {', '.join(PAIR_ROLES)}")
        if role in out:
            raise ValueError(f"--columns: {role!r} given twice")
        out[role] = column
    missing = [r for r in ("a", "b", "score") if r not in out]
    if missing:
        raise ValueError(f"--columns needs {', '.join(missing)} (a=COL,b=COL,score=COL)")
    return out


def _number(value: object) -> float | None:
    """A finite float from a JSON number or numeric text, else None (``bool`` refused)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def load_pair_file(path: str | Path, columns: dict[str, str]) -> pd.DataFrame:
    r"""The pairs of a labelled pair file.

    Args:
        path: A ``.csv``, ``.tsv`` / ``.tab`` (header row) or ``.jsonl`` / ``.ndjson`` file.
        columns: ``{role: column}`` from :func:`parse_pair_columns`.

    Returns:
        ``sentence1``, ``sentence2`` (text), ``score`` (``float64``), ``line`` (1-based line
        of the row) and, when a split column is mapped, ``split`` (text); in file order.

    Raises:
        CorpusError: Unknown extension, an empty file, a mapped column absent from the
            file, or a bad row (malformed, a text missing or empty, a score that is not a
            finite number, an empty split), naming the file and line.

    Examples:
        >>> import tempfile
        >>> p = Path(tempfile.mkdtemp()) / "pairs.tsv"
        >>> _ = p.write_text("s1\ts2\tlabel\nFed holds\tFed keeps rates\t1\n", encoding="utf-8")
        >>> load_pair_file(p, {"a": "s1", "b": "s2", "score": "label"}).values.tolist()
        [['Fed holds', 'Fed keeps rates', 1.0, 2]]
    """
    path = Path(path)
    fmt = _FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise CorpusError(path, f"unknown pair-file extension {path.suffix!r}; use "
                                f"{', '.join(sorted(_FORMATS))}")
    text = decode_bytes(path, path.read_bytes())
    if not text.strip():
        raise CorpusError(path, "file is empty", line=1)
    if fmt == "jsonl":
        raws = read_jsonl(path, text)
        header = None
    else:
        header, raws = read_csv(path, text, fmt)
        absent = [c for c in columns.values() if c not in header]
        if absent:
            raise CorpusError(path, f"no column {absent[0]!r} in the header {header}", line=1)
    if not raws:
        raise CorpusError(path, "no pairs after the header", line=1)
    rows: dict[str, list] = {"sentence1": [], "sentence2": [], "score": [], "line": []}
    if "split" in columns:
        rows["split"] = []
    for raw in raws:
        line = raw.line if raw.line is not None else raw.record

        def bad(reason: str, line: int = line) -> CorpusError:
            return CorpusError(path, reason, line=line)

        if raw.problem:
            raise bad(raw.problem)
        for role, key in (("a", "sentence1"), ("b", "sentence2")):
            value = raw.fields.get(columns[role])
            if not isinstance(value, str):
                got = "missing" if value is None else f"a {type(value).__name__}, not text"
                raise bad(f"{columns[role]!r} ({role}) is {got}")
            if not value.strip():
                raise bad(f"{columns[role]!r} ({role}) is empty")
            rows[key].append(value)
        score = _number(raw.fields.get(columns["score"]))
        if score is None:
            raise bad(f"{columns['score']!r} = {raw.fields.get(columns['score'])!r} is not a "
                      "finite number")
        rows["score"].append(score)
        rows["line"].append(int(line))
        if "split" in columns:
            split = raw.fields.get(columns["split"])
            if split is None or not str(split).strip():
                raise bad(f"{columns['split']!r} (split) is empty")
            rows["split"].append(str(split).strip())
    frame = pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in rows.items()})
    frame["score"] = frame["score"].astype(np.float64)
    frame["line"] = frame["line"].astype(np.int64)
    return frame


def is_binary(scores: pd.Series | np.ndarray) -> bool:
    """Whether the scores are a 0/1 label (only the values 0 and 1 occur).

    Examples:
        >>> is_binary(np.array([0.0, 1.0, 1.0])), is_binary(np.array([0.0, 2.5, 5.0]))
        (True, False)
    """
    values = np.unique(np.asarray(scores, dtype=np.float64))
    return bool(len(values)) and set(values.tolist()) <= {0.0, 1.0}

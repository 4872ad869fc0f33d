"""Labelled sentence pairs: KorSTS and the English STS Benchmark it was translated from.

Both files hold the same pairs in the same order with the same 0-5 similarity scores
(graded, not a same-event flag), so a detector's scores on the Korean side can be checked
against labels that were made on the English side. :func:`label_pairs` turns the grades
into ``"same"`` / ``"different"`` / ``"between"`` at stated cut-offs.

Both are read as plain tab-separated text, split on tabs only: the sentences contain
double quotes that a CSV reader would take for quoting.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from newsdedup.corpus.records import CorpusError, decode_bytes

PAIR_COLUMNS: tuple[str, ...] = (
    "genre",
    "filename",
    "year",
    "id",
    "score",
    "sentence1",
    "sentence2",
)
"""Columns of a loaded pair table, in file order (STS-B adds ``extra``)."""

_SCORE = PAIR_COLUMNS.index("score")


def _tab_fields(path: Path) -> pd.Series:
    """Each line's fields (split on tabs only), indexed by 1-based line number."""
    text = decode_bytes(path, path.read_bytes())
    lines = text.split("\n")
    # Trailing line breaks end the file; they are not empty rows.
    while lines and not lines[-1].strip("\r"):
        lines.pop()
    if not lines:
        raise CorpusError(path, "file is empty", line=1)
    # Rows are handled as whole columns (no Python loop over pairs).
    series = pd.Series(lines, index=pd.RangeIndex(1, len(lines) + 1), dtype=object)
    return series.str.removesuffix("\r").str.split("\t")


def _pair_frame(path: Path, fields: pd.Series, keep_extra: bool) -> pd.DataFrame:
    width = len(PAIR_COLUMNS)
    counts = fields.str.len()
    bad = (counts < width) | ((counts > width) & (not keep_extra))
    if bad.any():
        lineno = int(bad.idxmax())
        got = int(counts[lineno])
        raise CorpusError(path, f"expected {width} tab-separated fields, got {got}", line=lineno)
    # object dtype for text: pandas >= 3 would otherwise infer its own "str" dtype.
    frame = pd.DataFrame(
        {name: fields.str[i].astype(object) for i, name in enumerate(PAIR_COLUMNS)}
    )
    score = pd.to_numeric(frame["score"], errors="coerce").astype(np.float64)
    bad = ~np.isfinite(score)
    if bad.any():
        lineno = int(bad.idxmax())
        raise CorpusError(
            path, f"score {frame.at[lineno, 'score']!r} is not a finite number", line=lineno
        )
    frame["score"] = score
    if keep_extra:
        # STS-B appends source attributions on some rows; keep them, joined as written.
        frame["extra"] = fields.str[width:].str.join("\t").astype(object)
    return frame.reset_index(drop=True)


def load_korsts(path: str | Path) -> pd.DataFrame:
    r"""Read a KorSTS split (``sts-train.tsv`` / ``sts-dev.tsv``).

    Args:
        path: TSV with the header ``genre filename year id score sentence1 sentence2``.

    Returns:
        One row per pair in file order: :data:`PAIR_COLUMNS`, text as ``str``, ``score``
        as float.

    Raises:
        CorpusError: Wrong header, a row without exactly 7 fields, or a non-numeric score
            (with path and line).

    Examples:
        >>> import tempfile
        >>> tsv = Path(tempfile.mkdtemp()) / "sts-dev.tsv"
        >>> header = "genre\tfilename\tyear\tid\tscore\tsentence1\tsentence2\n"
        >>> _ = tsv.write_text(header + 'main-news\theadlines\t2015\t0001\t4.2\t"a"\tb\n')
        >>> df = load_korsts(tsv)
        >>> df["filename"].tolist(), df["score"].tolist(), df["sentence1"].tolist()
        (['headlines'], [4.2], ['"a"'])
    """
    path = Path(path)
    fields = _tab_fields(path)
    header = fields.iloc[0]
    if tuple(header) != PAIR_COLUMNS:
        raise CorpusError(path, f"expected the header {list(PAIR_COLUMNS)}, got {header}", line=1)
    return _pair_frame(path, fields.iloc[1:], keep_extra=False)


def load_stsb(path: str | Path) -> pd.DataFrame:
    r"""Read an STS Benchmark split (``sts-train.csv`` / ``sts-dev.csv``; tabs, no header).

    Args:
        path: The file.

    Returns:
        One row per pair in file order: :data:`PAIR_COLUMNS` plus ``extra``, the fields
        after the seventh joined by tabs (``""`` on most rows).

    Raises:
        CorpusError: A row with fewer than 7 fields or a non-numeric score (path, line).

    Examples:
        >>> import tempfile
        >>> f = Path(tempfile.mkdtemp()) / "sts-dev.csv"
        >>> _ = f.write_text("main-news\theadlines\t2016\t0281\t5\tA\tB\tsrc1\tsrc2\n")
        >>> df = load_stsb(f)
        >>> df["id"].tolist(), df["score"].tolist(), df["extra"].tolist()
        (['0281'], [5.0], ['src1\tsrc2'])
    """
    path = Path(path)
    return _pair_frame(path, _tab_fields(path), keep_extra=True)


def label_pairs(df: pd.DataFrame, same_at: float = 4.0, different_at: float = 1.0) -> pd.Series:
    """Label graded pairs as ``"same"``, ``"different"`` or ``"between"``.

    Args:
        df: A table with a numeric ``score`` column.
        same_at: Scores at or above this are ``"same"``.
        different_at: Scores at or below this are ``"different"``; at most ``same_at``.
            Equal to ``same_at`` it splits the scale in two with nothing between:
            ``"same"`` at or above, ``"different"`` strictly below.

    Returns:
        A ``label`` Series aligned with ``df``'s index.

    Raises:
        ValueError: ``different_at > same_at``.

    Examples:
        >>> label_pairs(pd.DataFrame({"score": [5.0, 4.0, 2.5, 1.0, 0.0]})).tolist()
        ['same', 'same', 'between', 'different', 'different']
        >>> label_pairs(pd.DataFrame({"score": [3.6, 3.5, 3.4]}), 3.5, 3.5).tolist()
        ['same', 'same', 'different']
    """
    if different_at > same_at:
        raise ValueError(f"different_at ({different_at}) must not exceed same_at ({same_at})")
    # np.select takes the first true condition, so at different_at == same_at a score
    # equal to the cut is "same" and "different" means strictly below.
    score = df["score"].to_numpy(dtype=np.float64)
    labels = np.select(
        [score >= same_at, score <= different_at], ["same", "different"], default="between"
    )
    return pd.Series(labels.astype(object), index=df.index, name="label", dtype=object)

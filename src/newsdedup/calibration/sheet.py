"""The labeling sheet: pairs to label, the labels, and the sampling design they came from.

One CSV (UTF-8, header row), one row a pair, in the order a person labels
them. The columns:

``pair``, ``batch``
    Row number and the batch of the loop that drew it (1 for the first).
``id_i``, ``id_j``
    The items, by the corpus's ids.
``label``, ``reason``
    Filled by the labeller: ``same`` (one event: a copy, a rewrite, a
    re-issue, photos of one moment), ``different`` (another event: the same
    column another day, the next development, another company under one
    template), ``skip`` (cannot tell); ``followup`` and ``related`` (older
    sheets) read as ``different``. Empty: not labelled yet.
``title_i`` ... ``summary_j``
    The two items side by side (title, source, date, summary), for a person
    labelling in a spreadsheet; ``newsdedup label`` shows the same.
``stratum``, ``stratum_size``, ``inclusion``
    The design (:mod:`newsdedup.calibration.design`): the pair's stratum,
    the stratum's size ``N_h``, and the pair's inclusion probability
    ``n_h / N_h`` given every pair drawn so far.

A sheet copied to ``data/gold/`` for a project keeps ids, labels and design
and drops the text (:func:`without_text`): no corpus text is committed.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from newsdedup.calibration.design import inclusion
from newsdedup.calibration.estimate import LabelSample
from newsdedup.calibration.population import Population
from newsdedup.corpus.cells import unescape_cell

__all__ = ["SheetError", "Sheet", "LABELS", "OTHER_DRAW", "read_sheet", "sheet_sample", "new_rows",
           "with_design", "without_text", "TEXT_COLUMNS"]

LABELS: tuple[str, ...] = ("same", "different", "skip", "followup", "related")
"""Labels a sheet may hold; ``followup`` and ``related`` count as ``different``."""

TEXT_COLUMNS: tuple[str, ...] = ("title_i", "title_j", "source_i", "source_j", "published_i",
                                 "published_j", "summary_i", "summary_j")
"""The items side by side, for the labeller."""

REQUIRED: tuple[str, ...] = ("id_i", "id_j", "label", "stratum", "stratum_size")
"""Columns a sheet must have to be read as a probability sample."""

ORDER: tuple[str, ...] = ("pair", "batch", "id_i", "id_j", "label", "reason", *TEXT_COLUMNS,
                          "stratum", "stratum_size", "inclusion")


OTHER_DRAW = ("the sheet was drawn from another corpus, another version of this one (items "
              "added or removed move pairs between strata) or with other settings; its labels "
              "are a sample of that draw, so read them with the file and options it was drawn "
              "from, and dedupe newer items with the calibration they give (newsdedup dedupe "
              "NEW_FILE --calibration .../calibration.json)")
"""Why a sheet's pair does not fit the corpus being calibrated, and what to do instead."""


class SheetError(ValueError):
    """A labeling sheet that cannot be read; the message names the file and line."""

    def __init__(self, path: Path, line: int, reason: str) -> None:
        """Keep the file, line and reason; the message is ``<path>:<line>: <reason>``."""
        super().__init__(f"{path}:{line}: {reason}")
        self.path, self.line, self.reason = path, line, reason


@dataclass(frozen=True)
class Sheet:
    """A sheet as read.

    Attributes:
        rows: One row per pair with the sheet's columns (text as read, blank
            where the file has no such column) and ``line``.
        path: The file.
        header: The columns the file itself has.
    """

    rows: pd.DataFrame
    path: Path
    header: tuple[str, ...] = ()

    @property
    def labelled(self) -> int:
        """Pairs labelled ``same`` or ``different`` (not skipped, not empty)."""
        return int(self.rows["label"].isin(("same", "different", "followup", "related")).sum())


def read_sheet(path: str | Path) -> Sheet:
    r"""Read a labeling sheet, checking every row (one line naming the file and row at fault).

    Args:
        path: The CSV.

    Returns:
        The :class:`Sheet`.

    Raises:
        SheetError: A missing column, an unknown label, an empty or repeated
            pair, a stratum that is not a whole number.

    Examples:
        >>> import tempfile
        >>> p = Path(tempfile.mkdtemp()) / "s.csv"
        >>> _ = p.write_text("id_i,id_j,label,stratum,stratum_size\na,b,same,0,9\n")
        >>> read_sheet(p).rows[["id_i", "label", "stratum"]].values.tolist()
        [['a', 'same', 0]]
    """
    path = Path(path)
    rows = []
    seen: dict[frozenset, int] = {}
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        header = reader.fieldnames or []
        missing = [c for c in REQUIRED if c not in header]
        if missing:
            raise SheetError(path, 1, f"missing column(s) {missing}: not a sheet drawn by "
                                      "`newsdedup calibrate` (its design columns are needed)")
        start = reader.line_num + 1
        for rec in reader:
            line, start = start, reader.line_num + 1
            a, b = (unescape_cell((rec.get(c) or "").strip()) for c in ("id_i", "id_j"))
            label = (rec.get("label") or "").strip().lower()
            if not a or not b or a == b:
                raise SheetError(path, line, "id_i and id_j must be two different ids")
            if label and label not in LABELS:
                raise SheetError(path, line, f"label {label!r} is not one of {LABELS}")
            key = frozenset((a, b))
            if key in seen:
                raise SheetError(path, line, f"pair ({a}, {b}) already on line {seen[key]}")
            seen[key] = line
            try:
                stratum, size = int(rec["stratum"]), int(rec["stratum_size"])
            except (TypeError, ValueError):
                raise SheetError(path, line, f"stratum {rec.get('stratum')!r} and stratum_size "
                                             f"{rec.get('stratum_size')!r} must be whole "
                                             "numbers") from None
            row: dict[str, object] = {c: unescape_cell(rec.get(c) or "") for c in header
                                      if c in ORDER}
            row |= {"id_i": a, "id_j": b, "label": label, "stratum": stratum,
                    "stratum_size": size, "line": line}
            rows.append(row)
    frame = pd.DataFrame(rows, columns=list(dict.fromkeys([*ORDER, "line"])))
    for c in ("reason", *TEXT_COLUMNS):
        frame[c] = frame[c].astype(object).fillna("")
    frame["batch"] = pd.to_numeric(frame["batch"], errors="coerce").fillna(0).astype(np.int64)
    return Sheet(frame, path, tuple(header))


def sheet_sample(sheet: Sheet, pop: Population) -> tuple[np.ndarray, LabelSample]:
    """The sheet's pairs as population positions, and its labels as a sample.

    Args:
        sheet: The sheet.
        pop: The population of this corpus and settings.

    Returns:
        ``(drawn, sample)``: positions of every pair on the sheet (labelled or
        not: all were drawn), and the labelled ones with ``same`` or not.

    Raises:
        SheetError: An id not in the corpus, a pair not in the population, or a
            stratum or size other than the population's: the sheet was drawn
            for another corpus or other settings.
    """
    index = {x: k for k, x in enumerate(pop.ids)}
    rows = sheet.rows
    drawn = np.empty(len(rows), dtype=np.int64)
    for k, (a, b, stratum, size, line) in enumerate(zip(
            rows["id_i"], rows["id_j"], rows["stratum"], rows["stratum_size"], rows["line"],
            strict=True)):
        if a not in index or b not in index:
            absent = [x for x in (a, b) if x not in index]
            raise SheetError(sheet.path, line, f"id(s) {absent} not in the corpus: {OTHER_DRAW}")
        pos = int(pop.find(np.array([index[a]]), np.array([index[b]]))[0])
        if pos < 0:
            raise SheetError(sheet.path, line, f"pair ({a}, {b}) is not among the candidate "
                                               f"pairs of this corpus and settings: {OTHER_DRAW}")
        own = int(pop.stratum[pos])
        own_size = int(pop.strata["size"].iloc[own])
        if own != stratum or own_size != size:
            raise SheetError(sheet.path, line, f"pair ({a}, {b}) is in stratum {own} of "
                                               f"{own_size} pairs here, not stratum {stratum} "
                                               f"of {size}: {OTHER_DRAW}")
        drawn[k] = pos
    answered = rows["label"].isin(("same", "different", "followup", "related")).to_numpy()
    same = (rows["label"] == "same").to_numpy()
    return drawn, LabelSample(drawn[answered], same[answered])


def new_rows(pop: Population, positions: np.ndarray, batch: int, items: pd.DataFrame
             ) -> pd.DataFrame:
    """Sheet rows for newly drawn pairs (empty labels), with both items side by side."""
    i, j = pop.i[positions], pop.j[positions]

    def column(name: str, rows: np.ndarray) -> list[str]:
        if name not in items.columns:
            return [""] * len(rows)
        values = items[name].astype(str).to_numpy(dtype=object)
        return [str(v) for v in values[rows]]

    frame = pd.DataFrame({"batch": batch, "id_i": [pop.ids[r] for r in i],
                          "id_j": [pop.ids[r] for r in j], "label": "", "reason": ""})
    for name in ("title", "source", "published_at", "summary"):
        short = "published" if name == "published_at" else name
        frame[f"{short}_i"] = column(name, i)
        frame[f"{short}_j"] = column(name, j)
    frame["stratum"] = pop.stratum[positions]
    frame["stratum_size"] = pop.strata["size"].to_numpy()[pop.stratum[positions]]
    return frame


def with_design(rows: pd.DataFrame, pop: Population, drawn: np.ndarray,
                excluded: np.ndarray | None = None) -> pd.DataFrame:
    """The whole sheet in column order, numbered, with inclusion probabilities as now drawn.

    ``excluded``: pairs outside the sheet's universe (a hold-out's: the loop's pairs).
    """
    out = rows.drop(columns=[c for c in ("line",) if c in rows.columns]).reset_index(drop=True)
    out["pair"] = np.arange(1, len(out) + 1)
    out["inclusion"] = inclusion(pop, drawn, excluded) if len(out) else np.zeros(0)
    return out[[c for c in ORDER if c in out.columns]]


def without_text(rows: pd.DataFrame) -> pd.DataFrame:
    """The sheet without the items' text (for ``data/gold/``: ids, labels, design)."""
    return rows.drop(columns=[c for c in TEXT_COLUMNS if c in rows.columns])


def empty_sheet() -> pd.DataFrame:
    """A sheet with no rows."""
    return pd.DataFrame({c: pd.Series(dtype=object) for c in (*ORDER, "line")})


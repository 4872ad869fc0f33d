"""The run report's model: a run folder's reader, and sections of text, tables and figures.

``newsdedup report RUN_DIR`` (and ``newsdedup run`` at its end) turns a run
folder into one page that answers "which threshold, how many items left, how
sure, and show me the merges" (:mod:`newsdedup.runs.report` writes it;
:mod:`newsdedup.plots.report_page` renders it as HTML and Markdown).

Every section is its own function of :mod:`newsdedup.plots.report_sections`
(whose :func:`~newsdedup.plots.report_sections.build_report` builds them all)
that reads what the folder holds through :class:`RunFolder` and returns a
:class:`Section`. A file the section needs but the run did not write is not an
error: the section says so in words ("no series table in this run") and what
writes it, so a run of an older version, a run whose calibration declined,
and the files later versions add all fit the same report.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure


@dataclass(frozen=True)
class Text:
    """A paragraph. Backquoted spans are rendered as code."""

    text: str


@dataclass(frozen=True)
class Facts:
    """A list of name / value rows (the corpus at a glance, the calibration)."""

    rows: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Table:
    """A table with a caption naming the file it comes from.

    Attributes:
        frame: The rows (already cut to what the page shows).
        caption: What the table is, and from which file.
        formats: Per-column format specs (e.g. ``{"score": ".3f"}``); floats default to ``.3f``.
    """

    frame: pd.DataFrame
    caption: str
    formats: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Plot:
    """A figure, saved as ``figures/<key>.png`` beside the Markdown and inlined in the HTML."""

    key: str
    figure: Figure
    caption: str


@dataclass(frozen=True)
class Absent:
    """What the run does not hold, said plainly, with what would write it."""

    text: str


Block = Text | Facts | Table | Plot | Absent


@dataclass(frozen=True)
class Section:
    """One section of the report.

    Attributes:
        key: Anchor of the section (``corpus``, ``calibration``, ...).
        title: Its heading.
        blocks: Its content, in order.
    """

    key: str
    title: str
    blocks: tuple[Block, ...]


@dataclass(frozen=True)
class RunFolder:
    """Read access to one run folder; every reader returns None for an absent file.

    Attributes:
        path: The run folder (``<out>/<name>/``).
    """

    path: Path

    @property
    def name(self) -> str:
        """The run's name (the folder's)."""
        return self.path.name

    def has(self, rel: str) -> bool:
        """Whether the folder holds the file ``rel``."""
        return (self.path / rel).is_file()

    def json(self, rel: str) -> dict | None:
        """A JSON file as a dict, or None when absent.

        Raises:
            ValueError: The file is not a JSON object (names the file).
        """
        path = self.path / rel
        if not path.is_file():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise ValueError(f"{path}: not valid JSON ({exc})") from None
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected a JSON object")
        return data

    def table(self, rel: str, **read) -> pd.DataFrame | None:
        """A CSV file as a frame, or None when absent or without any column.

        A step with nothing to list may write an empty file: that is the same
        as no table for the report.

        Args:
            rel: The file, relative to the folder.
            **read: Passed to :func:`pandas.read_csv` (``usecols``, ``nrows``, ``dtype``).
        """
        path = self.path / rel
        if not path.is_file() or path.stat().st_size <= 1:
            return None
        try:
            return pd.read_csv(path, **read)
        except pd.errors.EmptyDataError:
            return None

    def rows(self, rel: str) -> int | None:
        """Data rows of a CSV file counted in chunks (bounded memory), or None when absent."""
        path = self.path / rel
        if not path.is_file() or path.stat().st_size <= 1:
            return None
        with path.open("rb") as fh:
            lines = sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b""))
            fh.seek(-1, 2)
            ended = fh.read(1) == b"\n"
        # Quoted cells may hold newlines; the writers here quote none in the counted tables.
        return max(0, lines - 1 + (0 if ended else 1))


def number(value, spec: str = ",") -> str:
    """A number as the report prints it: ``n/a`` for None or NaN.

    Examples:
        >>> number(12345), number(0.25, ".3f"), number(None), number(float("nan"), ".2f")
        ('12,345', '0.250', 'n/a', 'n/a')
    """
    if value is None:
        return "n/a"
    try:
        x = float(value)
    except (TypeError, ValueError):
        return str(value)
    if math.isnan(x):
        return "n/a"
    return format(int(x) if spec == "," else x, spec)


def interval(estimate: dict | None) -> str:
    """``value [low, high]`` of a calibration estimate, or ``n/a``.

    Examples:
        >>> interval({"value": 0.9661, "low": 0.915, "high": 0.9871})
        '0.966 [0.915, 0.987]'
        >>> interval({"value": None}), interval(None)
        ('n/a', 'n/a')
    """
    if not estimate or estimate.get("value") is None:
        return "n/a"
    return (f"{number(estimate['value'], '.3f')} [{number(estimate.get('low'), '.3f')}, "
            f"{number(estimate.get('high'), '.3f')}]")


@dataclass(frozen=True)
class Report:
    """The sections of one run's report.

    Attributes:
        name: The run's name.
        headline: One line of key numbers (items, threshold, items left, precision).
        sections: The sections, in reading order.
    """

    name: str
    headline: str
    sections: tuple[Section, ...]

    def plots(self) -> list[Plot]:
        """Every figure of the report, in order."""
        return [b for s in self.sections for b in s.blocks if isinstance(b, Plot)]

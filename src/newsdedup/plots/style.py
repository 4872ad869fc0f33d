"""How every figure looks and is written: resolution, colours, sizes, the file writer.

One place for what the figures share, so that the bound reads the same in
every plot and every PNG has a fixed pixel size. Figures are built with
:class:`~matplotlib.figure.Figure` directly rather than through ``pyplot``:
no global figure registry fills up when many are written, and nothing
depends on the interactive backend.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from newsdedup.runs.files import atomic_file

DPI = 100
"""Resolution of the written PNGs; with the fixed sizes below it fixes their pixel size."""

BOUND_COLOR = "#c0392b"
"""Colour of the unrelated-pair upper bound in every figure, so it reads the same everywhere."""

RECOMMENDED_COLOR = "#2c3e50"
"""Colour of the threshold in use (recommended, or the dedupe's)."""

CANDIDATE_COLOR = "#1f77b4"
"""Colour of the signal detector's candidate pairs."""

SERIES_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd")
"""One colour per n (or k, or scorer) in the evaluation figures."""

FAMILY_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b")
"""One colour per hash family in the MinHash error figure (no red: red is the bound's)."""

TWO_PANELS = (10.5, 4.4)
"""Width and height (inches) of the two-panel figures (sweeps, cross-host)."""

SENSITIVITY_SIZE = (10.5, 4.6)
"""Width and height of the sensitivity figure (two panels, taller for the annotations)."""

ONE_PANEL = (7.5, 4.8)
"""Width and height of a one-panel corpus figure (the MinHash error)."""

EVAL_PANEL = (4.0, 3.6)
"""Width (per panel) and height of the evaluation figures."""

SIGNALS_SIZE = (9.0, 5.0)
"""Width and height of the signal figure."""


def new_figure(width: float, height: float, ncols: int = 1,
               **kw: Any) -> tuple[Figure, list[Axes]]:
    """A figure of fixed size with one row of ``ncols`` axes.

    Args:
        width: Width in inches.
        height: Height in inches.
        ncols: Number of panels side by side.
        **kw: Passed to :meth:`~matplotlib.figure.Figure.subplots` (``sharex``, ``sharey``).

    Returns:
        The figure and its axes, left to right.
    """
    # layout="constrained" keeps labels inside the fixed canvas, so the PNG size
    # never depends on text length (bbox_inches="tight" would).
    fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    axes = fig.subplots(1, ncols, squeeze=False, **kw)[0]
    return fig, list(axes)


def bound_line(ax: Axes, upper_bound: float, vertical: bool, label: bool = True) -> None:
    """Draw the unrelated-pair upper bound as a dashed line in :data:`BOUND_COLOR`.

    Args:
        ax: The axes.
        upper_bound: The bound.
        vertical: A vertical line (score on x) or a horizontal one (score on y).
        label: Give the line its legend entry ``"unrelated-pair bound <value>"``.
    """
    text = f"unrelated-pair bound {upper_bound:.3f}" if label else None
    if vertical:
        ax.axvline(upper_bound, color=BOUND_COLOR, lw=1.4, ls="--", label=text, zorder=3)
    else:
        ax.axhline(upper_bound, color=BOUND_COLOR, lw=1.4, ls="--", label=text, zorder=3)


def save(fig: Figure, path: Path) -> Path:
    """Write a figure as PNG, and SVG beside it, so reruns give identical bytes.

    ``metadata={"Software": None}`` drops the matplotlib version stamp (and
    ``"Date"`` the SVG's time stamp); the size comes from the figure and
    :data:`DPI`, not from a tight bounding box; a fixed ``svg.hashsalt``
    makes the SVG's element ids stable. Both files are written atomically
    through :func:`newsdedup.runs.files.atomic_file` (a killed write leaves
    the previous figure, never a truncated one).

    A PNG already at ``path`` with exactly the same pixels is left as it is: the
    compressed bytes depend on the zlib that Pillow was built with, not on the figure,
    so a rerun on another machine leaves a committed figure (and ``git status``) alone
    unless what it shows has changed.

    Args:
        fig: The figure.
        path: The PNG path; its folder is created.

    Returns:
        The PNG path (the SVG has the same stem).
    """
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=DPI, format="png", metadata={"Software": None})
    if not _same_pixels(path, buffer.getvalue()):
        with atomic_file(path, binary=True) as fh:
            fh.write(buffer.getvalue())
    with (matplotlib.rc_context({"svg.hashsalt": "newsdedup", "svg.fonttype": "path"}),
          atomic_file(path.with_suffix(".svg"), binary=True) as fh):
        fig.savefig(fh, format="svg", metadata={"Date": None, "Creator": None})
    return path


def _same_pixels(path: Path, png: bytes) -> bool:
    """Whether the PNG file at ``path`` decodes to exactly the pixels of ``png``."""
    from matplotlib.image import imread

    try:
        old = imread(path, format="png")
    except (OSError, ValueError, SyntaxError):  # absent, or not a PNG Pillow can read
        return False
    new = imread(io.BytesIO(png), format="png")
    return old.shape == new.shape and bool(np.array_equal(old, new))

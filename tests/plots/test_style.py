"""The shared style: fixed-size figures, the bound line, stable PNG and SVG files."""

from __future__ import annotations

from pathlib import Path

import pytest

from newsdedup.plots import style


def test_new_figure_has_the_fixed_size_and_panels() -> None:
    fig, axes = style.new_figure(*style.TWO_PANELS, ncols=2, sharey=True)
    assert len(axes) == 2 and fig.get_dpi() == style.DPI
    assert tuple(fig.get_size_inches()) == style.TWO_PANELS


def test_bound_line_is_labelled_and_coloured() -> None:
    fig, (ax,) = style.new_figure(*style.ONE_PANEL)
    style.bound_line(ax, 0.234, vertical=True)
    style.bound_line(ax, 0.234, vertical=False, label=False)
    vertical, horizontal = ax.lines
    assert vertical.get_label() == "unrelated-pair bound 0.234"
    assert list(vertical.get_xdata()) == [0.234, 0.234]
    assert list(horizontal.get_ydata()) == [0.234, 0.234]
    assert horizontal.get_label().startswith("_")  # no legend entry
    assert vertical.get_color() == style.BOUND_COLOR


def test_save_writes_png_and_svg_without_stamps_and_identically(tmp_path: Path, toy) -> None:
    fig, (ax,) = style.new_figure(*style.ONE_PANEL)
    ax.plot([0, 1], [0, 1])
    png = style.save(fig, tmp_path / "sub" / "f.png")
    assert png == tmp_path / "sub" / "f.png"
    first = png.read_bytes(), png.with_suffix(".svg").read_bytes()
    assert b"Software" not in first[0] and b"<dc:date>" not in first[1]
    assert toy.png_size(png) == (750, 480)
    style.save(fig, png)
    assert (png.read_bytes(), png.with_suffix(".svg").read_bytes()) == first


def test_save_is_atomic_a_failed_figure_keeps_the_previous_png(tmp_path, monkeypatch):
    # Before: savefig wrote the PNG in place, so an interrupted save left a truncated image.
    from matplotlib.figure import Figure

    from newsdedup.plots import style

    fig, _ = style.new_figure(*style.ONE_PANEL)
    path = style.save(fig, tmp_path / "f.png")
    before = path.read_bytes()

    def broken(self, fh, **kwargs):
        fh.write(b"\x89PNG partial")
        raise KeyboardInterrupt

    monkeypatch.setattr(Figure, "savefig", broken)
    with pytest.raises(KeyboardInterrupt):
        style.save(fig, path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.png", "f.svg"]

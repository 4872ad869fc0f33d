"""Writing the figures: stable PNG and SVG files, every kind through one entry point."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from matplotlib.figure import Figure

from newsdedup import paths
from newsdedup.plots import evaluate, results, signals, write


def test_write_figures_writes_stable_png_and_svg(tmp_path: Path, toy) -> None:
    toy.write_tree(tmp_path)
    paths = write.write_figures("toy", tmp_path)
    assert [p.name for p in paths] == list(write.FIGURE_FILES.values())
    assert all(p.parent == tmp_path / "toy" / "figures" for p in paths)
    first = {p.name: p.read_bytes() for p in paths}
    assert all(b"Software" not in data for data in first.values())
    svgs = {p.name: p.with_suffix(".svg").read_bytes() for p in paths}
    # Fixed size and dpi: the pixel size is the figure size, whatever the text lengths.
    assert toy.png_size(paths[1]) == (750, 480)
    again = write.write_figures("toy", tmp_path)
    assert {p.name: p.read_bytes() for p in again} == first
    assert {p.name: p.with_suffix(".svg").read_bytes() for p in again} == svgs


def test_write_all_writes_every_kind_in_a_stable_order(tmp_path: Path, toy) -> None:
    toy.write_tree(tmp_path)
    toy.write_signals(tmp_path)
    for dataset, _ in evaluate.EVAL_FIGURES.values():
        target = tmp_path / dataset / "eval"
        target.mkdir(parents=True, exist_ok=True)
        for table in (paths.RESULTS_DIR / dataset / "eval").glob("*.*"):
            shutil.copy(table, target / table.name)
    written = write.write_all("toy", tmp_path)
    corpus = [tmp_path / "toy" / "figures" / f for f in write.FIGURE_FILES.values()]
    evals = [tmp_path / d / "eval" / "figures" / f for d, f in evaluate.EVAL_FIGURES.values()]
    signal = [tmp_path / "toy" / "signals" / signals.FIGURE_FILE]
    assert written == corpus + evals + signal
    assert all(p.is_file() and p.with_suffix(".svg").is_file() for p in written)
    # The order of the kinds is the function's, not the caller's.
    assert write.write_all("toy", tmp_path, which=("signals", "corpus")) == corpus + signal


def test_write_all_defaults_to_the_pinned_corpus(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=rf"{paths.PALDYN.name}/measure/histogram\.csv"):
        write.write_all(root=tmp_path)


def test_write_all_names_a_missing_table(tmp_path: Path, toy) -> None:
    base = toy.write_tree(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"toy/signals/host_pairs\.csv not found"):
        write.write_all("toy", tmp_path, which=("corpus", "signals"))
    (base / "calibrate" / "sweep.csv").unlink()
    said: list[str] = []
    written = write.write_all("toy", tmp_path, which=("corpus",), progress=said.append)
    assert "threshold_sweep.png" not in [p.name for p in written]
    assert len(said) == 1 and re.search(r"threshold_sweep not drawn: .*toy/calibrate/sweep\.csv "
                                        r"not found", said[0])
    with pytest.raises(FileNotFoundError, match=r"korsts/eval/\*\.csv not found.*make eval"):
        write.write_all("toy", tmp_path, which=("eval",))


def test_write_all_rejects_an_unknown_kind(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown figure kinds"):
        write.write_all("toy", tmp_path, which=("corpus", "nope"))


def test_save_figure_refuses_an_unknown_key(tmp_path: Path, toy) -> None:
    toy.write_tree(tmp_path)
    res = results.load_results("toy", tmp_path)
    with pytest.raises(KeyError, match="unknown figure"):
        write.save_figure(res, "nope", Figure())

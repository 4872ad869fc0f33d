"""The results loader: every table read; a missing file named with the command that writes it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
from matplotlib.figure import Figure

from newsdedup.plots import measure, results, write


def test_load_results_reads_every_table(tmp_path: Path, toy) -> None:
    toy.write_tree(tmp_path)
    res = results.load_results("toy", tmp_path)
    assert res.path == tmp_path / "toy"
    pd.testing.assert_frame_equal(res.both_sided, toy.both(), check_dtype=False)
    assert res.upper_bound == toy.BOUND and res.recommended == toy.RECOMMENDED
    assert res.band == toy.BAND and res.calibration_n == 4
    assert res.lsh is None and res.quantiles is None


@pytest.mark.parametrize(
    ("rel", "attr", "target"),
    [("measure/histogram.csv", "histogram", "measure"),
     ("calibrate/sweep.csv", "sweep", "calibrate"),
     ("calibration.json", "upper_bound", "calibrate"),
     ("crosshost/cross_pairs.csv", "cross_pairs", "crosshost")],
)
def test_missing_file_names_the_file_and_the_target(tmp_path: Path, rel: str, attr: str,
                                                    target: str, toy) -> None:
    base = toy.write_tree(tmp_path)
    (base / rel).unlink()
    res = results.load_results("toy", tmp_path)  # the other tables stay usable
    assert len(res.errors) == 8
    with pytest.raises(FileNotFoundError) as info:
        getattr(res, attr)
    message = str(info.value)
    assert str(base / rel) in message
    assert f"make {target}" in message and "NAME=toy" in message
    # The figures that need it are left out, and the reason names the file.
    said: list[str] = []
    written = write.write_figures("toy", tmp_path, progress=said.append)
    assert said and all(rel in line for line in said), said
    assert 0 < len(written) < len(write.FIGURE_FILES)


def test_only_measure_tables_are_enough_for_the_measure_plots(tmp_path: Path, toy) -> None:
    base = toy.write_tree(tmp_path)
    for rel in ("calibrate", "crosshost"):
        shutil.rmtree(base / rel)
    (base / "calibration.json").unlink()
    res = results.load_results("toy", tmp_path)
    assert isinstance(measure.minhash_error(res.errors), Figure)


def test_an_empty_table_counts_as_missing_and_tables_are_read_when_used(tmp_path: Path,
                                                                         toy) -> None:
    base = toy.write_tree(tmp_path)
    (base / "measure" / "ngram_sweep.csv").write_text("\n")  # a step that listed nothing
    res = results.load_results("toy", tmp_path)
    assert res.frames == {} and res.ngram_sweep is None and not res.has("ngram_sweep")
    assert list(res.frames) == []  # an absent table is not cached as a frame
    res.histogram  # noqa: B018
    assert list(res.frames) == ["histogram"]
    said: list[str] = []
    names = [p.name for p in write.write_figures("toy", tmp_path, progress=said.append)]
    assert "ngram_sweep.png" not in names and "score_distribution.png" in names
    assert any("measure/ngram_sweep.csv" in line for line in said)


def test_load_run_reads_a_run_folder_by_its_path(tmp_path: Path, toy) -> None:
    base = toy.write_tree(tmp_path)
    res = results.load_run(base)
    assert (res.name, res.path) == ("toy", base) and res.upper_bound == toy.BOUND


def test_nothing_written_names_the_first_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"toy/measure/histogram\.csv.*make reproduce"):
        results.load_results("toy", tmp_path)


def test_unknown_table_is_a_key_error(tmp_path: Path, toy) -> None:
    toy.write_tree(tmp_path)
    with pytest.raises(KeyError, match="unknown table"):
        results.load_results("toy", tmp_path).table("nope")


def test_load_eval_names_the_command_when_tables_are_missing(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="make eval"):
        results.load_eval("nothing-here", tmp_path)


def test_eval_table_names_the_missing_file(tmp_path: Path) -> None:
    folder = tmp_path / "mini" / "eval"
    folder.mkdir(parents=True)
    pd.DataFrame({"threshold": [0.3], "items_left": [5]}).to_csv(folder / "runs.csv", index=False)
    res = results.load_eval("mini", tmp_path)
    assert list(res.table("runs")["items_left"]) == [5] and res.recommendation is None
    with pytest.raises(FileNotFoundError, match=r"mini/eval/scores\.csv not found.*make eval"):
        res.table("scores")


def test_missing_signal_results_name_the_command(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="newsdedup signals"):
        results.load_signals("mine", tmp_path)


def test_load_signals_reads_the_tables_the_bound_and_the_window(tmp_path: Path, toy) -> None:
    base = toy.write_signals(tmp_path)
    res = results.load_signals("toy", tmp_path)
    assert res.path == base and res.upper_bound == toy.BOUND and res.max_days == 1.0
    assert list(res.host_pairs["candidate"]) == [True, False, False]
    assert res.host_pairs["days_apart"].isna().sum() == 1  # an empty gap is missing, not ""
    (base / "funnel.csv").unlink()
    with pytest.raises(FileNotFoundError, match=r"toy/signals/funnel\.csv not found"):
        results.load_signals("toy", tmp_path)

"""The corpus figures' command line: ``python -m newsdedup.plots.figures``."""

from __future__ import annotations

from pathlib import Path

import pytest

from newsdedup.plots import figures, results, write


def test_cli_writes_and_prints_paths(tmp_path: Path, capsys, toy) -> None:
    toy.write_tree(tmp_path)
    assert figures.main(["toy", "--root", str(tmp_path)]) == 0
    printed = capsys.readouterr().out.split()
    assert printed == [str(tmp_path / "toy" / "figures" / f)
                       for f in write.FIGURE_FILES.values()]


def test_cli_missing_results_exits_with_the_message(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as info:
        figures.main(["nothing", "--root", str(tmp_path)])
    assert info.value.code == 2
    assert "measure/histogram.csv" in capsys.readouterr().err


def test_cli_help(capsys) -> None:
    with pytest.raises(SystemExit) as info:
        figures.main(["--help"])
    assert info.value.code == 0
    assert results.DEFAULT_NAME in capsys.readouterr().out

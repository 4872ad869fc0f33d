"""The figures command: ``newsdedup figures [NAME] [--root DIR] [--only KINDS]``."""

from __future__ import annotations

from pathlib import Path

import pytest

from newsdedup import cli
from newsdedup.plots import results, write


def test_figures_command_writes_and_prints_paths(tmp_path: Path, capsys, toy) -> None:
    toy.write_tree(tmp_path)
    assert cli.main(["report", "toy", "--out", str(tmp_path), "--figures", "corpus"]) == 0
    printed = capsys.readouterr().out.split()
    assert printed == [str(tmp_path / "toy" / "figures" / f)
                       for f in write.FIGURE_FILES.values()]
    assert all(Path(p).stat().st_size > 10_000 for p in printed)


def test_figures_command_missing_results_is_one_line_naming_the_file(tmp_path: Path,
                                                                     capsys) -> None:
    assert cli.main(["report", "nothing", "--out", str(tmp_path), "--figures", "corpus"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("newsdedup: error:")
    assert "measure/histogram.csv" in err[0]


def test_figures_command_refuses_an_unknown_kind(tmp_path: Path, capsys) -> None:
    assert cli.main(["report", "--out", str(tmp_path), "--figures", "corpus,maps"]) == 2
    assert "maps" in capsys.readouterr().err


def test_figures_command_help(capsys) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(["report", "--figures", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert results.DEFAULT_NAME in out
    assert all(kind in out for kind in write.KINDS)

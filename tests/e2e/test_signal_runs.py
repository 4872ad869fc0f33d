"""The committed signal results are what a fresh run writes, byte for byte; the commands work."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from newsdedup import cli
from newsdedup.paths import DATA_DIR, PALDYN, results_dir
from newsdedup.runs.compare import committed_files, result_difference
from newsdedup.runs.signals import run_evaluate_gold, run_signals

COMMITTED = results_dir(PALDYN.name) / "signals"
REGENERATED = {"host_pairs.csv", "to_label.csv",  # git-ignored: large or unlabeled
               "score_vs_gap.png", "score_vs_gap.svg"}  # drawn by the notebook (tested below)


@pytest.fixture(scope="module")
def fresh(pinned, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("results")
    run_signals(pinned, PALDYN.name, out, echo=False)
    run_evaluate_gold(pinned, PALDYN.name, out, DATA_DIR / "gold" / f"{PALDYN.name}.csv",
                      echo=False)
    return out / PALDYN.name / "signals"


def _committed() -> list[str]:
    return sorted(p.name for p in committed_files(COMMITTED) if p.parent == COMMITTED
                  and p.name not in REGENERATED) if COMMITTED.is_dir() else ["<missing>"]


@pytest.mark.parametrize("name", _committed())
def test_committed_signal_file_is_reproduced(fresh, name):
    assert result_difference(COMMITTED / name, fresh / name) is None, f"signals/{name}"


def test_every_fresh_signal_file_is_committed(fresh):
    made = {p.name for p in fresh.iterdir()} - REGENERATED
    assert made <= set(_committed())


def test_cosine_without_the_embedding_scorer_is_a_clear_error(tmp_path, capsys):
    import importlib.util

    if importlib.util.find_spec("newsdedup.score.embed") is not None:
        pytest.skip("newsdedup.score.embed is installed: the cosine rule runs")
    assert cli.main(["signals", "--out", str(tmp_path), "--cosine"]) == 2
    assert "newsdedup.score.embed" in capsys.readouterr().err


def test_funnel_and_candidates_agree(fresh):
    fun = pd.read_csv(fresh / "funnel.csv")
    cands = pd.read_csv(fresh / "candidates.csv")
    assert fun["pairs"].iloc[-1] == len(cands)
    assert {"alphaevolve-updates", "alphaevolve-impact"} <= set(cands["id_i"]) | set(
        cands["id_j"])
    host = pd.read_csv(fresh / "host_pairs.csv")
    assert len(host) == fun.loc[fun["rule"] == "host", "pairs"].item()
    assert host["candidate"].sum() == len(cands)


def test_candidates_command_writes_a_sheet_and_missing_gold_is_an_error(tmp_path, capsys):
    sheet = tmp_path / "sheet.csv"
    assert cli.main(["signals", "--out", str(tmp_path), "--quota", "2",
                     "--sheet-path", str(sheet)]) == 0
    table = pd.read_csv(sheet, keep_default_na=False)
    assert {"label", "reason", "title_i", "title_j", "summary_i"} <= set(table.columns)
    with pytest.raises(SystemExit) as stop:
        cli.main(["evaluate", "gold", "--out", str(tmp_path),
                  "--labels", str(tmp_path / "none.csv")])
    assert stop.value.code == 2
    assert f"argument --labels: no such file: '{tmp_path / 'none.csv'}'" in capsys.readouterr().err


def test_signals_help_lists_every_rule_switch(capsys):
    with pytest.raises(SystemExit):
        cli.main(["signals", "--help"])
    text = capsys.readouterr().out
    for flag in ("--no-host", "--no-date", "--no-entity", "--no-version", "--window-days",
                 "--relations", "--min-shared", "--cosine", "--min-cosine", "--signal-config"):
        assert flag in text


def test_story_signals_command_on_a_small_labelled_file(tmp_path):
    path = tmp_path / "mini.csv"
    path.write_text("ID,TITLE,URL,STORY,TIMESTAMP\n"
                    "1,Fed's Plosser sees high bar,http://a.com/1,s1,1394470370698\n"
                    "2,Plosser: Fed may accelerate taper,http://b.com/2,s1,1394470371207\n"
                    "3,Apple sues Samsung,http://c.com/3,s2,1394470372000\n", encoding="utf-8")
    assert cli.main(["evaluate", "stories", str(path), "--out", str(tmp_path), "--name", "mini",
                     "--columns",
                     "id=ID,title=TITLE,url=URL,published_at=TIMESTAMP", "--entity-unit",
                     "token", "--no-korean"]) == 0
    table = pd.read_csv(tmp_path / "mini" / "signals" / "story_rules.csv").set_index("rule")
    assert table.loc["all pairs", "flagged"] == 3 and table.loc["all pairs", "same_story"] == 1
    assert table.loc["shared entities >= 2", "precision"] == 1.0


def test_committed_figure_is_redrawn_at_the_same_size(fresh):
    import struct

    from newsdedup.plots.results import load_signals
    from newsdedup.plots.signals import FIGURE_FILE, save_figure, score_vs_gap

    res = load_signals(PALDYN.name, fresh.parent.parent)
    png = save_figure(res, score_vs_gap(res.host_pairs, res.upper_bound, max_days=1))
    assert png == fresh / FIGURE_FILE and png.with_suffix(".svg").is_file()

    def size(path):
        head = path.read_bytes()[:24]
        assert head[:8] == b"\x89PNG\r\n\x1a\n"
        return struct.unpack(">II", head[16:24])

    assert size(png) == size(COMMITTED / FIGURE_FILE)

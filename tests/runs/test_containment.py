"""Nothing is written outside ``--out``; run.json means one run; tables stay tables.

Issue 28, item 10: writes escaped ``--out`` through a symlinked step folder inside it,
through a planted commit journal whose file list climbs out with ``../..``, and through a
symlinked staging folder. Item 13: run.json still stood, naming files of another corpus,
after a single step of another corpus ran in the folder. Item 11: a bare carriage return
in a title broke the Markdown tables of the reports. Each failed before its fix.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from newsdedup.cli import main
from newsdedup.corpus.load import load_corpus
from newsdedup.runs import commit
from newsdedup.runs.commit import MANIFEST, recover, work_paths
from newsdedup.runs.files import OutputError, contained, markdown_table, write_text
from newsdedup.runs.join import JoinConfig, run_join
from newsdedup.runs.pipeline import run_all

from .conftest import FAST, HEADLINES


def corpus_file(folder: Path, stem: str, titles: list[str]) -> Path:
    """A JSONL corpus (any character a title may hold survives it)."""
    path = folder / f"{stem}.jsonl"
    rows = [{"id": f"{stem}{k}", "title": t, "url": f"https://{'ab'[k % 2]}.example/{k}",
             "published_at": f"2026-05-0{k % 9 + 1}"} for k, t in enumerate(titles)]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def snapshot(tree: Path) -> dict[str, bytes]:
    """Every file's bytes (wall times excepted)."""
    return {p.relative_to(tree).as_posix(): p.read_bytes()
            for p in sorted(tree.rglob("*")) if p.is_file() and p.name != "timings.json"}


def everything(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def places(tmp_path) -> tuple[Path, Path, Path]:
    """``--out``, a folder outside it holding a file, and a two-headline corpus."""
    out, outside = tmp_path / "out", tmp_path / "outside"
    out.mkdir()
    outside.mkdir()
    (outside / "victim.txt").write_text("keep me", encoding="utf-8")
    return out, outside, corpus_file(tmp_path, "a", HEADLINES)


def test_a_step_folder_linked_outside_refuses_the_commit(places, capsys):
    out, outside, corpus = places
    (out / "feed").mkdir()
    (out / "feed" / "dedupe").symlink_to(outside, target_is_directory=True)
    before = everything(outside)
    code = main(["dedupe", str(corpus), "--name", "feed", "--out", str(out), "--quiet"])
    [line] = capsys.readouterr().err.splitlines()
    assert code == 2
    assert line.startswith(f"newsdedup: error: {out.resolve()}/feed/dedupe leads to "
                           f"{outside.resolve()}, outside --out")
    assert everything(outside) == before
    assert not (out / ".newsdedup").exists()


@pytest.mark.parametrize("link", [".newsdedup", ".newsdedup/staging", ".newsdedup/locks"])
def test_a_workbench_folder_linked_outside_is_refused_before_anything_is_written(places, link,
                                                                                capsys):
    out, outside, corpus = places
    (out / link).parent.mkdir(parents=True, exist_ok=True)
    (out / link).symlink_to(outside, target_is_directory=True)
    before = everything(outside)
    code = main(["dedupe", str(corpus), "--name", "feed", "--out", str(out), "--quiet"])
    [line] = capsys.readouterr().err.splitlines()
    assert code == 2 and f"{out.resolve() / link} is a link" in line
    assert everything(outside) == before
    assert not (out / "feed").exists()


def test_a_lock_file_planted_as_a_link_is_not_followed(places):
    out, outside, corpus = places
    (out / ".newsdedup" / "locks").mkdir(parents=True)
    (out / ".newsdedup" / "locks" / "feed.lock").symlink_to(outside / "victim.txt")
    assert main(["dedupe", str(corpus), "--name", "feed", "--out", str(out), "--quiet"]) == 2
    assert (outside / "victim.txt").read_text(encoding="utf-8") == "keep me"


def test_a_journal_climbing_out_is_deleted_unread(places):
    out, outside, _ = places
    work = work_paths(out, "feed")
    (work.stage / "x").mkdir(parents=True)
    (work.stage / "x" / "new.csv").write_text("planted", encoding="utf-8")
    journal = {"step": "measure", "stage": "feed", "files": ["x/new.csv", "../../outside/x.csv"],
               "remove": ["../../outside/victim.txt"], "drop_manifest": False, "manifest": None}
    work.journal.write_text(json.dumps(journal), encoding="utf-8")
    said: list[str] = []
    with commit.tree_lock(out, "feed", said.append):
        pass
    assert (outside / "victim.txt").read_text(encoding="utf-8") == "keep me"
    assert sorted(p.name for p in outside.iterdir()) == ["victim.txt"]
    assert not (out / "feed" / "x").exists()  # nothing of an untrusted journal is applied
    assert any("deleted the journal" in s and "outside the tree" in s for s in said)
    assert not work.journal.exists() and not work.stage_root.exists()


SEGMENT = st.sampled_from(["..", ".", "a", "dedupe", "out", "outside", "victim.txt", ""])


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(SEGMENT, min_size=1, max_size=5).map("/".join), max_size=4),
       st.lists(st.lists(SEGMENT, min_size=1, max_size=5).map("/".join), max_size=3),
       st.booleans())
def test_no_journal_writes_or_removes_outside_out(tmp_path_factory, files, remove, link):
    # The neighbourhood of item 10: any relative path, "..", "." and empty segments, a
    # step folder linked outside or not; the journal recovered as a next command would.
    base = tmp_path_factory.mktemp("j")
    out, outside = base / "out", base / "outside"
    (out / "feed").mkdir(parents=True)
    outside.mkdir()
    (outside / "victim.txt").write_text("keep me", encoding="utf-8")
    if link:
        (out / "feed" / "dedupe").symlink_to(outside, target_is_directory=True)
    work = work_paths(out, "feed")
    work.stage.mkdir(parents=True)
    for rel in files:  # stage what the journal names, wherever the name leads inside base
        target = (work.stage / rel).resolve()
        if target.is_relative_to(base) and not target.exists() and rel.strip("/."):
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text("planted", encoding="utf-8")
            except OSError:  # a file where a folder would be: that name stays unplanted
                pass
    outside_before = everything(outside)
    work.journal.write_text(json.dumps({"step": "x", "stage": "feed", "files": files,
                                        "remove": remove, "drop_manifest": True,
                                        "manifest": None}), encoding="utf-8")
    try:
        recover(work)
    except OutputError as exc:  # names it can't commit (a file where a folder must be)
        assert "cannot commit it" in str(exc) and "\n" not in str(exc)
    assert everything(outside) == outside_before


def test_contained_refuses_a_file_whose_folder_leads_out(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "link").symlink_to(tmp_path, target_is_directory=True)
    with contained(tmp_path / "out"), pytest.raises(OutputError, match="outside --out"):
        write_text("x", tmp_path / "out" / "link" / "f.txt")
    with contained(tmp_path / "out"):
        write_text("x", tmp_path / "out" / "sub" / "f.txt")
    assert not (tmp_path / "f.txt").exists()


# --- item 13: run.json --------------------------------------------------------------------


@pytest.fixture
def run_a(tmp_path):
    out = tmp_path / "out"
    corpus = load_corpus(corpus_file(tmp_path, "a", HEADLINES))
    run_all(corpus, "feed", out, echo=False, **FAST)
    return out, corpus


def test_a_single_step_of_another_corpus_ends_the_run_marker_whatever_it_writes(run_a,
                                                                               tmp_path):
    out, corpus = run_a
    run_join(corpus, "feed", out, JoinConfig(threshold=0.5))
    assert (out / "feed" / MANIFEST).is_file()  # the same corpus: still one run (and more)
    other = load_corpus(corpus_file(tmp_path, "b", [t + " 추가" for t in HEADLINES]))
    run_join(other, "feed", out, JoinConfig(threshold=0.5))  # join/ is in no run's list
    assert not (out / "feed" / MANIFEST).exists()


def test_a_run_of_another_corpus_killed_midway_leaves_run_a_whole(run_a, tmp_path):
    out, _ = run_a
    before = snapshot(out / "feed")
    other = corpus_file(tmp_path, "b", [t + " 추가" for t in HEADLINES] * 200)
    command = Path(sys.executable).parent / "newsdedup"
    proc = subprocess.Popen([str(command), "run", str(other), "--name", "feed", "--out",
                             str(out), "--hosts", "a.example,b.example", "--trials", "2",
                             "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    stage = out / ".newsdedup" / "staging" / "feed" / "feed"
    deadline = time.monotonic() + 120
    while not any(stage.rglob("*.csv")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert snapshot(out / "feed") == before  # run.json of A, and A's files, as they were
    manifest = json.loads((out / "feed" / MANIFEST).read_text("utf-8"))
    assert manifest["corpus"]["file"] == "a.jsonl"
    assert main(["join", str(other), "--name", "feed", "--out", str(out), "--quiet"]) == 0
    assert not (out / "feed" / MANIFEST).exists()


# --- item 11: Markdown tables ---------------------------------------------------------------

BREAKS = re.compile("\r\n|[\r\n]")  # the line ends of CommonMark


@settings(max_examples=300)
@given(st.lists(st.lists(st.text(max_size=8), min_size=2, max_size=2), max_size=5),
       st.lists(st.text(max_size=6), min_size=2, max_size=2, unique=True))
def test_a_markdown_table_has_one_line_per_row_whatever_its_cells(rows, columns):
    table = markdown_table(pd.DataFrame(rows, columns=columns, dtype=object))
    lines = BREAKS.split(table)
    assert len(lines) == len(rows) + 2
    assert table.splitlines() == lines  # no other line separator either (U+2028, ...)
    for line in lines:  # n columns: n + 1 unescaped pipes
        assert len(re.findall(r"(?<!\\)\|", line)) == len(columns) + 1


def test_a_title_with_a_bare_cr_keeps_the_report_tables_whole(tmp_path):
    titles = [t.replace(" ", "\r", 1) if k == 0 else t for k, t in enumerate(HEADLINES)]
    corpus = corpus_file(tmp_path, "cr", titles)
    assert main(["measure", str(corpus), "--out", str(tmp_path / "out"), "--quiet",
                 "--error-perms", "16"]) == 0
    report = (tmp_path / "out" / tmp_path.name / "measure" / "measure.md").read_text("utf-8")
    for block in report.split("\n\n"):
        if block.startswith("|"):
            lines = BREAKS.split(block.strip("\n"))
            pipes = {len(re.findall(r"(?<!\\)\|", line)) for line in lines}
            assert len(pipes) == 1, block

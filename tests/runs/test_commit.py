"""A command's files are committed together: lock, staging tree, journal, run.json."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from newsdedup.corpus.load import load_corpus
from newsdedup.runs import commit, crosshost
from newsdedup.runs.calibrate import LabelledSheetInTheWay
from newsdedup.runs.commit import MANIFEST, TreeBusy, committed, tree_lock, work_paths
from newsdedup.runs.files import write_text
from newsdedup.runs.measure import run_measure_step
from newsdedup.runs.pipeline import run_all
from newsdedup.studies.measure import MeasureConfig

from .conftest import FAST, HEADLINES


def corpus_file(folder: Path, stem: str, titles: list[str]) -> Path:
    path = folder / f"{stem}.csv"
    rows = [f"{stem}{k},{t},https://{'ab'[k % 2]}.example/{k},2026-05-0{k % 9 + 1}"
            for k, t in enumerate(titles)]
    path.write_text("id,title,url,published_at\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def snapshot(tree: Path) -> dict[str, bytes]:
    """Every file's bytes (wall times excepted)."""
    return {p.relative_to(tree).as_posix(): p.read_bytes()
            for p in sorted(tree.rglob("*")) if p.is_file() and p.name != "timings.json"}


@pytest.fixture
def first_run(tmp_path):
    """A complete run of corpus A under tmp_path/out/feed."""
    out = tmp_path / "out"
    corpus = load_corpus(corpus_file(tmp_path, "a", HEADLINES))
    run_all(corpus, "feed", out, echo=False, **FAST)
    return out, corpus


def test_run_writes_run_json_last_listing_its_files(first_run):
    out, corpus = first_run
    tree = out / "feed"
    manifest = json.loads((tree / MANIFEST).read_text("utf-8"))
    files = {p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file()} - {MANIFEST}
    assert set(manifest["files"]) == files and "measure/summary.csv" in files
    assert manifest["corpus"]["sha256"] == corpus.sha256
    assert manifest["corpus"]["records"] == len(HEADLINES)
    assert not (out / commit.WORK_DIR).exists()  # no lock, no staging left behind


def test_run_failing_between_steps_leaves_the_previous_tree(first_run, tmp_path, monkeypatch):
    # Before the commit, measure/ and calibrate/ of corpus B were written into the tree
    # and crosshost/ stayed from corpus A.
    out, _ = first_run
    before = snapshot(out / "feed")
    other = load_corpus(corpus_file(tmp_path, "b", [t + " 추가" for t in HEADLINES[::-1]]))

    def killed(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(crosshost, "cross_host", killed)
    with pytest.raises(KeyboardInterrupt):
        run_all(other, "feed", out, echo=False, **FAST)
    assert snapshot(out / "feed") == before
    assert not (out / commit.WORK_DIR).exists()


KILL_SCRIPT = textwrap.dedent("""
    import os, signal, sys
    from newsdedup.corpus.load import load_corpus
    from newsdedup.runs import crosshost
    from newsdedup.runs.calibrate import CalibrateConfig
    from newsdedup.runs.crosshost import CrossHostConfig
    from newsdedup.runs.pipeline import run_all
    from newsdedup.studies.measure import MeasureConfig
    crosshost.cross_host = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
    run_all(load_corpus(sys.argv[1]), "feed", sys.argv[2], MeasureConfig(error_perms=(16, 32)),
            CalibrateConfig(trials=3), CrossHostConfig(hosts=("a.example",)), echo=False)
""")


def test_kill_9_between_steps_then_the_next_command_discards_the_staging(first_run, tmp_path):
    out, corpus = first_run
    before = snapshot(out / "feed")
    other = corpus_file(tmp_path, "b", [t + " 추가" for t in HEADLINES[::-1]])
    proc = subprocess.run([sys.executable, "-c", KILL_SCRIPT, str(other), str(out)],
                          capture_output=True, check=False)
    assert proc.returncode == -signal.SIGKILL
    assert snapshot(out / "feed") == before  # measure/ and calibrate/ of B were staged only
    work = work_paths(out, "feed")
    assert (work.stage / "measure" / "summary.csv").is_file() and not work.journal.exists()
    with tree_lock(out, "feed") as again:  # the lock died with its process
        assert not again.stage.exists()
    assert snapshot(out / "feed") == before


def test_a_commit_killed_halfway_is_completed_by_the_next_command(first_run, tmp_path,
                                                                  monkeypatch):
    out, _ = first_run
    other = load_corpus(corpus_file(tmp_path, "b", [t + " 추가" for t in HEADLINES[::-1]]))
    fresh = tmp_path / "fresh"
    run_all(other, "feed", fresh, echo=False, **FAST)
    expected = snapshot(fresh / "feed")
    moves = []
    real_replace = os.replace

    tree = str(out / "feed")

    def dying_replace(src, dst):
        if str(dst).startswith(tree):  # a move from the staging tree into the tree
            if len(moves) == 3:
                raise KeyboardInterrupt  # killed after three files moved into the tree
            moves.append(dst)
        real_replace(src, dst)

    monkeypatch.setattr(commit.os, "replace", dying_replace)
    with pytest.raises(KeyboardInterrupt):
        run_all(other, "feed", out, echo=False, **FAST)
    monkeypatch.setattr(commit.os, "replace", real_replace)
    assert not (out / "feed" / MANIFEST).exists()  # a half-moved tree carries no marker
    assert work_paths(out, "feed").journal.is_file()
    messages = []
    with tree_lock(out, "feed", messages.append):
        pass
    assert messages and "finished the interrupted commit" in messages[0]
    assert snapshot(out / "feed") == expected


def test_a_second_writer_on_the_same_name_is_refused(tmp_path):
    out = tmp_path / "out"
    with tree_lock(out, "feed"):
        with (pytest.raises(TreeBusy, match=rf"feed is being written by pid {os.getpid()}"),
              committed(out, "feed", "measure")):
            pass
        with committed(out, "other", "measure") as root:  # another name is free
            write_text("x\n", root / "other" / "f.txt")
    assert (out / "other" / "f.txt").read_text() == "x\n"
    with committed(out, "feed", "measure"):  # released
        pass
    assert not (out / commit.WORK_DIR).exists()


def test_the_lock_of_a_killed_process_is_free(tmp_path):
    out = tmp_path / "out"
    script = ("import sys, time\nfrom newsdedup.runs.commit import tree_lock\n"
              "with tree_lock(sys.argv[1], 'feed'):\n    print('locked', flush=True)\n"
              "    time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", script, str(out)], stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == b"locked"
        with pytest.raises(TreeBusy, match=f"pid {proc.pid}"), tree_lock(out, "feed"):
            pass
    finally:
        proc.kill()
        proc.wait()
    with tree_lock(out, "feed"):
        pass


def test_a_step_on_another_corpus_drops_the_run_marker(first_run, tmp_path):
    out, corpus = first_run
    run_measure_step(corpus, "feed", out, FAST["measure"], echo=False)
    assert (out / "feed" / MANIFEST).is_file()  # same corpus: still one run
    other = load_corpus(corpus_file(tmp_path, "b", [t + " 추가" for t in HEADLINES]))
    run_measure_step(other, "feed", out, FAST["measure"], echo=False)
    assert not (out / "feed" / MANIFEST).exists()  # measure/ is B's, the rest A's


def test_a_new_run_removes_the_files_only_the_previous_run_wrote(first_run):
    out, corpus = first_run
    stale = out / "feed" / "measure" / "lsh.csv"
    assert stale.is_file()
    run_all(corpus, "feed", out, echo=False, **(FAST | {
        "measure": MeasureConfig(error_perms=(16, 32), lsh=False)}))
    assert not stale.exists()
    manifest = json.loads((out / "feed" / MANIFEST).read_text("utf-8"))
    assert "measure/lsh.csv" not in manifest["files"]


def test_a_step_the_new_run_does_not_write_leaves_no_empty_folder(first_run):
    # A rerun whose calibration declines writes no dedupe: its old files went, and an
    # empty dedupe/ stayed, which a script testing for the folder took for a result.
    out, corpus = first_run
    tree = out / "feed"
    manifest = json.loads((tree / MANIFEST).read_text("utf-8"))
    assert not (tree / "dedupe").exists()  # five headlines: the calibration declines
    (tree / "dedupe" / "part").mkdir(parents=True)
    for rel in ("dedupe/items.csv", "dedupe/part/groups.csv"):
        (tree / rel).write_text("id\n", encoding="utf-8")
    (tree / MANIFEST).write_text(json.dumps(manifest | {
        "files": [*manifest["files"], "dedupe/items.csv", "dedupe/part/groups.csv"]}), "utf-8")
    (tree / "measure" / "my_notes.csv").write_text("x\n", encoding="utf-8")
    run_all(corpus, "feed", out, echo=False, **FAST)
    assert not (tree / "dedupe").exists()
    assert (tree / "measure" / "my_notes.csv").is_file()  # a folder still holding a file stays


def test_files_of_other_commands_in_the_tree_are_kept(first_run):
    out, corpus = first_run
    notes = out / "feed" / "calibrate" / "my_notes.csv"
    notes.write_text("id_i,id_j,label\n", encoding="utf-8")  # a user's own file
    run_all(corpus, "feed", out, echo=False, **FAST)
    assert notes.read_text(encoding="utf-8") == "id_i,id_j,label\n"


def test_a_labelled_sheet_the_run_would_not_read_stops_it(first_run):
    out, corpus = first_run
    sheet = out / "feed" / "calibrate" / "to_label.csv"
    text = "id_i,id_j,label\na0,a1,same\n"  # a person's label, written in place
    sheet.write_text(text, encoding="utf-8")
    with pytest.raises(LabelledSheetInTheWay, match=r"holds 1 labels .* pass --labels"):
        run_all(corpus, "feed", out, echo=False, **FAST)
    assert sheet.read_text(encoding="utf-8") == text


def test_a_sheet_without_labels_is_rewritten(first_run):
    out, corpus = first_run
    sheet = out / "feed" / "calibrate" / "to_label.csv"
    sheet.write_text("id_i,id_j,label\na0,a1,\n", encoding="utf-8")
    run_all(corpus, "feed", out, echo=False, **FAST)
    assert sheet.read_text(encoding="utf-8").startswith("pair,batch,id_i,id_j,label")


@pytest.mark.parametrize("name", ["../../x", "/abs", "", ".", "..", ".newsdedup", "a/b",
                                  "a\\b"])
def test_names_leaving_out_are_refused(tmp_path, name):
    with (pytest.raises(ValueError, match="one folder name under --out"),
          committed(tmp_path / "out", name, "measure")):
        pass
    assert not any((tmp_path).rglob("*.lock"))


def test_symlinked_names_must_stay_inside_out(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "away").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (out / "real").mkdir()
    (out / "alias").symlink_to(out / "real", target_is_directory=True)
    with pytest.raises(ValueError, match="outside --out"), committed(out, "away", "measure"):
        pass
    with committed(out, "alias", "measure") as root:
        write_text("x\n", root / "alias" / "f.txt")
    assert (out / "real" / "f.txt").read_text() == "x\n"


def test_progress_names_the_tree_not_the_staging_path(tmp_path):
    said: list[str] = []
    corpus = load_corpus(corpus_file(tmp_path, "a", HEADLINES))
    run_measure_step(corpus, "feed", tmp_path / "out", FAST["measure"], said.append, echo=False)
    tree = (tmp_path / "out" / "feed").resolve()
    wrote = len(list((tree / "measure").glob("*"))) - 1  # timings.json is not counted
    assert f"measure: wrote {wrote} files to {tree}/measure (staged)" in said
    assert said[-1] == f"measure: committed {wrote + 1} files to {tree}"
    assert not any(commit.WORK_DIR in msg for msg in said)


def test_an_edited_run_json_cannot_remove_files_outside_the_tree(first_run):
    out, corpus = first_run
    victim = out / "victim.txt"
    victim.write_text("keep me")
    manifest = json.loads((out / "feed" / MANIFEST).read_text("utf-8"))
    manifest["files"] += ["../victim.txt", str(victim), 7]
    (out / "feed" / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    run_all(corpus, "feed", out, echo=False, **FAST)
    assert victim.read_text() == "keep me"


def test_a_second_file_of_one_folder_is_refused_its_default_folder_before_any_work(
        tmp_path, capsys):
    # Both files default to the folder's name: the second's dedupe would replace the
    # first's. It is refused before any work (the first's results stay as they were);
    # --name of its own keeps both, and --name of the shared folder replaces them, said
    # by a warning even under --quiet. A rerun of the same file says nothing.
    from newsdedup.cli import main

    feeds = tmp_path / "feeds"
    feeds.mkdir()
    mon = corpus_file(feeds, "mon", HEADLINES[:3])
    tue = corpus_file(feeds, "tue", HEADLINES[3:])
    out = str(tmp_path / "out")
    tree = (tmp_path / "out" / "feeds").resolve()
    assert main(["dedupe", str(mon), "--out", out, "--quiet"]) == 0
    assert main(["dedupe", str(mon), "--out", out, "--quiet"]) == 0
    assert "warning" not in capsys.readouterr().err
    before = (tree / "dedupe" / "items.csv").read_bytes()
    assert main(["dedupe", str(tue), "--out", out, "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0] == (
        f"newsdedup: error: {tree} holds the results of {mon} (dedupe), and {tue} would go "
        "there too (a file's default results name is its folder's): pass --name NAME to keep "
        "its results apart, or --name feeds to replace them")
    assert (tree / "dedupe" / "items.csv").read_bytes() == before
    assert main(["dedupe", str(tue), "--out", out, "--quiet", "--name", "tue"]) == 0
    assert "warning" not in capsys.readouterr().err
    assert main(["dedupe", str(tue), "--out", out, "--quiet", "--name", "feeds"]) == 0
    assert (f"warning: {tree} also holds the results of {mon} (dedupe): this dedupe of {tue} "
            "went into the same folder") in capsys.readouterr().err
    assert (tree / "dedupe" / "items.csv").read_bytes() != before


@pytest.mark.parametrize("empty", ["id,title,url,published_at\n", "[]", '{"items": []}'])
def test_a_file_without_records_stops_and_leaves_the_earlier_results(tmp_path, capsys, empty):
    # A header alone or an empty list is the wrong export: dedupe once wrote "0 items ->
    # 0 kept" over the folder's earlier results and exited 0.
    from newsdedup.cli import main

    feed = corpus_file(tmp_path, "feed", HEADLINES)
    out = str(tmp_path / "out")
    assert main(["dedupe", str(feed), "--out", out, "--name", "f", "--quiet"]) == 0
    before = snapshot(tmp_path / "out" / "f")
    nothing = tmp_path / ("nothing.csv" if empty.startswith("id") else "nothing.json")
    nothing.write_text(empty, encoding="utf-8")
    capsys.readouterr()
    assert main(["dedupe", str(nothing), "--out", out, "--name", "f", "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{nothing}: holds no record" in err[0]
    assert "record number" not in err[0]
    assert snapshot(tmp_path / "out" / "f") == before

import json
import math

import numpy as np
import pandas as pd

from newsdedup.runs.files import (
    environment,
    markdown_table,
    write_csv,
    write_json,
    write_params,
    write_tables,
)


def test_json_is_deterministic_and_nan_becomes_null(tmp_path):
    obj = {"b": np.float64(0.5), "a": [np.int64(3), math.nan], "c": {"d": (1, 2)}}
    p1 = write_json(obj, tmp_path / "x.json")
    first = p1.read_bytes()
    write_json(obj, p1)
    assert p1.read_bytes() == first
    assert json.loads(first) == {"b": 0.5, "a": [3, None], "c": {"d": [1, 2]}}


def test_csv_fixed_float_format(tmp_path):
    p = write_csv(pd.DataFrame({"x": [1 / 3], "n": [2]}), tmp_path / "t.csv")
    assert p.read_text() == "x,n\n0.333333,2\n"


def test_markdown_escapes_pipes_and_formats_columns():
    md = markdown_table(pd.DataFrame({"t": ["a|b"], "v": [0.12345], "f": [0.5]}), ".2f",
                        {"f": ".1f"})
    assert md.splitlines()[2] == "| a\\|b | 0.12 | 0.5 |"


def test_params_put_the_environment_last(tmp_path):
    p = write_params({"corpus": {"name": "x"}, "n": 3}, tmp_path / "params.json", "kiwipiepy")
    record = json.loads(p.read_text("utf-8"))
    assert list(record) == ["corpus", "n", "environment"]
    assert list(record["environment"])[:2] == ["newsdedup", "python"]
    assert "kiwipiepy" in record["environment"]
    assert "kiwipiepy" not in environment()


def test_tables_are_written_with_a_prefix(tmp_path):
    paths = write_tables({"a": pd.DataFrame({"x": [1]}), "b": pd.DataFrame({"y": [2]})},
                         tmp_path, "ko_")
    assert [p.name for p in paths] == ["ko_a.csv", "ko_b.csv"]
    assert (tmp_path / "ko_b.csv").read_text() == "y\n2\n"


# --- atomic writes (issue 16, defect 2) ------------------------------------------------

import errno  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import textwrap  # noqa: E402
import time  # noqa: E402

import pytest  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from newsdedup.runs import files  # noqa: E402
from newsdedup.runs.files import OutputError, atomic_file, write_text  # noqa: E402


class Killed(BaseException):
    """Stands for the process dying in the middle of a write."""


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(old=st.text(max_size=300), new=st.text(min_size=1, max_size=300), data=st.data())
def test_any_prefix_of_a_killed_write_never_replaces_a_complete_file(tmp_path, old, new, data):
    folder = tmp_path / f"case{abs(hash((old, new))) % 10**9}"
    path = write_text(old, folder / "items.csv")
    cut = data.draw(st.integers(0, len(new) - 1), label="cut")
    with pytest.raises(Killed), atomic_file(path) as fh:
        fh.write(new[:cut])
        fh.flush()
        raise Killed
    assert path.read_bytes() == old.encode("utf-8")
    assert [p.name for p in folder.iterdir()] == ["items.csv"]  # the temporary file is gone
    write_text(new, path)
    assert path.read_bytes() == new.encode("utf-8")


KILL_WRITE = textwrap.dedent("""
    import sys
    import pandas as pd
    from newsdedup.runs.files import write_csv
    rows = pd.DataFrame({"id": [f"id{k}" for k in range(400_000)], "title": "headline " * 8})
    print("writing", flush=True)
    write_csv(rows, __import__("pathlib").Path(sys.argv[1]))
""")


def test_kill_9_during_a_large_csv_write_leaves_the_previous_file(tmp_path):
    path = tmp_path / "items.csv"
    pd.DataFrame({"id": ["a", "b"], "title": ["x", "y"]}).to_csv(path, index=False)
    before = path.read_bytes()
    proc = subprocess.Popen([sys.executable, "-c", KILL_WRITE, str(path)], stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline().strip() == b"writing"
    while proc.poll() is None:  # until the new data are on their way to disk
        temps = list(tmp_path.glob(".items.csv.*.tmp"))
        if (temps and temps[0].stat().st_size > 0) or path.stat().st_size != len(before):
            break
        time.sleep(0.002)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    if proc.returncode == -signal.SIGKILL:
        assert path.read_bytes() == before
    else:  # the write won the race: then it is whole
        assert pd.read_csv(path).shape == (400_000, 2)


def test_a_full_disk_names_the_file_and_keeps_the_previous_one(tmp_path, monkeypatch):
    path = write_text("complete\n", tmp_path / "dedupe.json")

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(files.os, "fsync", full)
    with pytest.raises(OutputError) as info:
        files.write_json({"a": 1}, path)
    message = str(info.value)
    assert message.startswith(f"{path}: cannot write (No space left on device)")
    assert "\n" not in message
    assert path.read_text() == "complete\n"
    assert [p.name for p in tmp_path.iterdir()] == ["dedupe.json"]


def test_an_unwritable_folder_names_the_file(tmp_path):
    blocker = tmp_path / "measure"
    blocker.write_text("a file where a folder should be")
    with pytest.raises(OutputError, match=f"^{blocker / 'summary.csv'}: cannot write"):
        write_csv(pd.DataFrame({"x": [1]}), blocker / "summary.csv")


def test_written_files_get_the_umask_mode_not_mkstemp_0600(tmp_path):
    path = write_text("x", tmp_path / "a.txt")
    mask = os.umask(0o022)
    os.umask(mask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~mask


# --- formula injection (issue 16, weak case) ---------------------------------------------


def test_text_cells_a_spreadsheet_would_run_are_escaped_numbers_are_not(tmp_path):
    hostile = ['=HYPERLINK("http://evil","x")', "+1", "-cmd", "@SUM(A1)", "\tx", "\rx", "ok"]
    frame = pd.DataFrame({"title": hostile, "score": [-0.5, 1, -2, 0, 1, 2, 3]})
    path = write_csv(frame, tmp_path / "t.csv")
    back = pd.read_csv(path, keep_default_na=False)
    assert back["title"].tolist() == ["'" + h for h in hostile[:-1]] + ["ok"]
    assert back["score"].tolist() == [-0.5, 1, -2, 0, 1, 2, 3]
    assert frame["title"].tolist() == hostile  # the caller's frame is not changed


def test_a_table_without_risky_cells_is_written_unchanged(tmp_path):
    frame = pd.DataFrame({"id": ["a", "b"], "n": [-1, 2]})
    assert write_csv(frame, tmp_path / "t.csv").read_text() == "id,n\na,-1\nb,2\n"


def test_a_column_mixing_text_and_numbers_escapes_only_the_text(tmp_path):
    frame = pd.DataFrame({"v": pd.Series(["=1", -3, None, "+x", 2.5], dtype=object)})
    back = pd.read_csv(write_csv(frame, tmp_path / "t.csv"), dtype=str, keep_default_na=False)
    assert back["v"].tolist() == ["'=1", "-3", "", "'+x", "2.5"]  # float_format is for floats

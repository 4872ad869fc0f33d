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

"""A malformed calibration.json is one line naming the file and the fault."""

from __future__ import annotations

import json

import pytest

from newsdedup.calibration.file import (
    CalibrationFileError,
    check_figure_fields,
    read_calibration,
    read_json_object,
)
from newsdedup.cluster.dedupe import DedupeConfig

GOOD = {"recommended_threshold": 0.3, "rationale": "why", "upper_bound": 0.2,
        "band": [0.2, 0.3], "parameters": {"n": 4, "scorer": "jaccard", "text": "title",
                                             "normalization": "hangul-alnum"}}


def write(tmp_path, content) -> object:
    path = tmp_path / "calibration.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content if isinstance(content, str) else json.dumps(content), "utf-8")
    return path


def test_a_good_file_gives_threshold_and_settings(tmp_path):
    cal = read_calibration(write(tmp_path, GOOD))
    assert (cal.threshold, cal.rationale) == (0.3, "why")
    assert cal.settings == {"n": 4, "scorer": "jaccard", "text": "title",
                            "scheme": "hangul-alnum"}


BAD = [
    (GOOD | {"parameters": GOOD["parameters"] | {"n": "4"}}, "parameters.n must be a positive"),
    (GOOD | {"parameters": GOOD["parameters"] | {"n": True}}, "parameters.n must be a positive"),
    (GOOD | {"parameters": GOOD["parameters"] | {"n": 0}}, "parameters.n must be a positive"),
    (GOOD | {"parameters": [4, "jaccard"]}, "parameters must be a JSON object, found list"),
    (GOOD | {"parameters": GOOD["parameters"] | {"scorer": "cosine"}}, "parameters.scorer"),
    (GOOD | {"parameters": GOOD["parameters"] | {"text": 3}}, "parameters.text"),
    (GOOD | {"parameters": GOOD["parameters"] | {"normalization": "nope"}}, "normalization"),
    (GOOD | {"parameters": GOOD["parameters"] | {"normalization": ["x"]}}, "normalization"),
    (GOOD | {"recommended_threshold": 1.5}, r"must be in \[0, 1\]"),
    ({"rationale": "x"}, "missing top-level key"),
    (b"\x89PNG\r\n\x1a\n\x00\xff\xfe garbage", "not UTF-8 text"),
    ("", "not valid JSON"),
    ("[1, 2]", "expected a JSON object at the top level, found list"),
]


@pytest.mark.parametrize(("content", "message"), BAD)
def test_every_fault_names_the_file_in_one_line(tmp_path, content, message):
    path = write(tmp_path, content)
    for read in (read_calibration, DedupeConfig.from_calibration):
        with pytest.raises(CalibrationFileError, match=message) as info:
            read(path)
        assert str(info.value).startswith(f"{path}: ") and "\n" not in str(info.value)


@pytest.mark.parametrize(("change", "message"), [
    ({"upper_bound": "0.2"}, "upper_bound must be a number"),
    ({"band": [0.2]}, "band must be null or"),
    ({"recommended_threshold": "x"}, "recommended_threshold must be a number or null"),
    ({"parameters": "n=4"}, "parameters must be a JSON object"),
])
def test_the_fields_the_figures_read_are_checked(tmp_path, change, message):
    path = write(tmp_path, GOOD | change)
    with pytest.raises(CalibrationFileError, match=message):
        check_figure_fields(read_json_object(path), path)
    assert check_figure_fields(GOOD, path) is GOOD

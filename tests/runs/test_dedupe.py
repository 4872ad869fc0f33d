import json

from newsdedup.cluster.dedupe import DedupeConfig
from newsdedup.paths import PALDYN, results_dir
from newsdedup.runs.dedupe import dedupe_config


def test_config_from_calibration_threshold_or_defaults():
    assert dedupe_config({}) == DedupeConfig()
    given = dedupe_config({"n": 4}, threshold=0.42)
    assert (given.threshold, given.n, given.threshold_source) == (0.42, 4, "command line")
    cal = results_dir(PALDYN.name) / "calibration.json"
    recorded = json.loads(cal.read_text("utf-8"))["recommended_threshold"]
    from_file = dedupe_config({"gate": False}, calibration=cal)
    assert from_file.threshold == recorded and from_file.gate is False
    # The calibration wins over a threshold given beside it.
    assert dedupe_config({}, calibration=cal, threshold=0.9).threshold == recorded

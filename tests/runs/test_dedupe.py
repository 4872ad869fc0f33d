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


def test_groups_csv_members_are_unambiguous_with_spaces_in_ids(tmp_path):
    # Before: members were joined with spaces, so "a 1 b" could be ["a", "1 b"] or ["a 1", "b"].
    import pandas as pd

    from newsdedup.corpus.load import load_corpus
    from newsdedup.runs.dedupe import run_dedupe

    path = tmp_path / "feed.csv"
    path.write_text('id,title\n"a 1","진천군 스마트 돌봄 착수"\n"b, 2","진천군 스마트 돌봄 착수"\n'
                    'c,화성시 화재 감지\n', encoding="utf-8")
    run_dedupe(load_corpus(path), "feed", tmp_path / "out", DedupeConfig(), echo=False)
    groups = pd.read_csv(tmp_path / "out" / "feed" / "dedupe" / "groups.csv")
    assert [json.loads(m) for m in groups["members"]] == [["a 1", "b, 2"]]


def test_the_near_pass_tells_its_progress(tmp_path):
    # A dedupe of a templated feed ran a minute with no line between its first and last.
    from newsdedup.corpus.load import load_corpus
    from newsdedup.runs.dedupe import run_dedupe

    path = tmp_path / "feed.csv"
    rows = [f"t{k},한국은행 기준금리 동결 보고서 제{k}호" for k in range(40)]
    path.write_text("id,title\n" + "\n".join(rows) + "\n", encoding="utf-8")
    said = []
    run_dedupe(load_corpus(path), "feed", tmp_path / "out", DedupeConfig(), said.append,
               echo=False)
    near = [s for s in said if s.startswith("dedupe: near pass: ")]
    assert near and near[-1].startswith("dedupe: near pass: 40 / 40 items (100.0%)")

"""The resumable coverage study (newsdedup.runs.coverage)."""

import math

import numpy as np
import pandas as pd
import pytest

import newsdedup.calibration.simulate as simulate
import newsdedup.studies.synthetic as synthetic
from newsdedup.runs.coverage import run_coverage, summarize


class FakeStudy:
    """coverage_study stand-in: one row per seed, figures computed from the seed."""

    def __init__(self, out=None, fail_at=None):
        self.seeds, self.out, self.fail_at, self.seen_on_disk = [], out, fail_at, []

    def __call__(self, pool, seeds, budget=200, holdout=100):
        (seed,) = seeds
        if self.out is not None:  # what a reader of the file sees while this seed runs
            self.seen_on_disk.append(pd.read_csv(self.out)["seed"].tolist()
                                     if self.out.is_file() else None)
        if seed == self.fail_at:
            raise RuntimeError(f"seed {seed} failed")
        self.seeds.append(seed)
        return pd.DataFrame({"seed": [seed], "method": ["labels"], "threshold": [0.1 * seed],
                             "labelled": [budget], "holdout_precision_low": [0.5],
                             "holdout_precision_high": [0.5 + holdout / 1000],
                             "holdout_precision_covered": [seed % 2 == 0]})


@pytest.fixture
def fake(monkeypatch):
    study = FakeStudy()
    monkeypatch.setattr(simulate, "coverage_study", study)
    monkeypatch.setattr(synthetic, "headline_pool", lambda language: ["a headline"])
    return study


def no_pool(language):
    raise AssertionError("the pool is loaded only when a seed is left to run")


# --- run_coverage -------------------------------------------------------------------------

def test_first_run_runs_every_seed_and_writes_them_by_seed(tmp_path, fake):
    out = tmp_path / "coverage_ko.csv"
    rows = run_coverage("ko", range(3), out, budget=20, holdout=30)
    assert fake.seeds == [0, 1, 2]
    assert rows["seed"].tolist() == [0, 1, 2] and rows.index.tolist() == [0, 1, 2]
    on_disk = pd.read_csv(out)
    assert on_disk["seed"].tolist() == [0, 1, 2]
    assert on_disk["labelled"].tolist() == [20, 20, 20]
    assert on_disk["holdout_precision_high"].tolist() == pytest.approx([0.53] * 3)


def test_a_second_run_with_the_same_seeds_runs_nothing(tmp_path, fake, monkeypatch):
    out = tmp_path / "coverage_ko.csv"
    first = run_coverage("ko", range(3), out)
    before = out.read_bytes()
    fake.seeds.clear()
    monkeypatch.setattr(synthetic, "headline_pool", no_pool)
    again = run_coverage("ko", range(3), out)
    assert fake.seeds == []
    assert out.read_bytes() == before
    pd.testing.assert_frame_equal(again, first, check_dtype=False)


def test_more_seeds_run_only_the_new_ones_and_append_them_in_order(tmp_path, fake):
    out = tmp_path / "coverage_en.csv"
    run_coverage("en", [0, 4], out)
    fake.seeds.clear()
    rows = run_coverage("en", range(6), out)
    assert fake.seeds == [1, 2, 3, 5]
    assert rows["seed"].tolist() == [0, 1, 2, 3, 4, 5]
    assert pd.read_csv(out)["seed"].tolist() == [0, 1, 2, 3, 4, 5]
    assert rows["threshold"].to_numpy() == pytest.approx(0.1 * np.arange(6))


def test_each_seed_is_on_disk_before_the_next_starts(tmp_path, monkeypatch):
    out = tmp_path / "c.csv"
    study = FakeStudy(out=out)
    monkeypatch.setattr(simulate, "coverage_study", study)
    monkeypatch.setattr(synthetic, "headline_pool", lambda language: [])
    run_coverage("ko", range(3), out)
    assert study.seen_on_disk == [None, [0], [0, 1]]


def test_a_failed_seed_leaves_the_finished_ones_whole_and_a_rerun_resumes(tmp_path,
                                                                          monkeypatch):
    out = tmp_path / "c.csv"
    monkeypatch.setattr(synthetic, "headline_pool", lambda language: [])
    failing = FakeStudy(fail_at=2)
    monkeypatch.setattr(simulate, "coverage_study", failing)
    with pytest.raises(RuntimeError, match="seed 2 failed"):
        run_coverage("ko", range(4), out)
    assert pd.read_csv(out)["seed"].tolist() == [0, 1]
    assert [p.name for p in tmp_path.iterdir()] == ["c.csv"]  # no temporary file left
    resumed = FakeStudy()
    monkeypatch.setattr(simulate, "coverage_study", resumed)
    rows = run_coverage("ko", range(4), out)
    assert resumed.seeds == [2, 3] and rows["seed"].tolist() == [0, 1, 2, 3]


def test_the_file_is_replaced_whole_not_written_in_place(tmp_path, fake):
    out = tmp_path / "c.csv"
    run_coverage("ko", range(1), out)
    inode = out.stat().st_ino
    run_coverage("ko", range(2), out)
    assert out.stat().st_ino != inode  # renamed over, as an atomic write does
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.csv"]


def test_no_seeds_and_no_file_give_an_empty_table(tmp_path, monkeypatch):
    monkeypatch.setattr(synthetic, "headline_pool", no_pool)
    rows = run_coverage("ko", range(0), tmp_path / "c.csv")
    assert rows.empty and not (tmp_path / "c.csv").exists()


# --- summarize ----------------------------------------------------------------------------

def test_summarize_counts_seeds_with_an_interval_and_their_coverage_by_hand():
    rows = pd.DataFrame({
        "seed": [0, 1, 2, 3, 4],
        "threshold": [0.2, 0.3, None, 0.25, 0.3],
        "loop_recall_low": [0.1, 0.2, None, 0.3, 0.4],
        "loop_recall_high": [0.5, 0.4, None, 0.9, 0.6],
        "loop_recall_covered": [True, False, False, True, True],
        "holdout_precision_low": [0.9, None, None, 0.8, 0.85],
        "holdout_precision_high": [1.0, None, None, 0.95, 0.9],
        "holdout_precision_covered": [False, False, False, True, True],
    })
    s = summarize(rows).set_index("estimate")
    assert s.index.tolist() == ["holdout_precision", "loop_recall"]  # sorted by name
    assert s.loc["loop_recall", "seeds"] == 4 and s.loc["loop_recall", "covered"] == 3
    assert s.loc["loop_recall", "coverage"] == pytest.approx(0.75)
    assert s.loc["loop_recall", "mean_width"] == pytest.approx((0.4 + 0.2 + 0.6 + 0.2) / 4,
                                                               abs=5e-4)
    assert s.loc["holdout_precision", "seeds"] == 3
    assert s.loc["holdout_precision", "coverage"] == pytest.approx(round(2 / 3, 3))
    assert s.loc["holdout_precision", "mean_width"] == pytest.approx(
        (0.1 + 0.15 + 0.05) / 3, abs=5e-4)


def test_summarize_reads_covered_flags_back_from_a_csv(tmp_path):
    rows = pd.DataFrame({"seed": [0, 1], "x_low": [0.1, 0.2], "x_high": [0.3, 0.4],
                         "x_covered": [True, False]})
    rows.to_csv(tmp_path / "r.csv", index=False)
    s = summarize(pd.read_csv(tmp_path / "r.csv"))
    assert s["covered"].tolist() == [1] and s["coverage"].tolist() == [0.5]


def test_summarize_of_an_estimate_without_intervals_has_no_coverage():
    rows = pd.DataFrame({"seed": [0], "x_low": [None], "x_high": [None], "x_covered": [False]})
    s = summarize(rows).iloc[0]
    assert s["seeds"] == 0 and s["covered"] == 0 and math.isnan(s["coverage"])


def test_summarize_of_rows_without_covered_columns_is_empty():
    assert summarize(pd.DataFrame({"seed": [0, 1]})).empty

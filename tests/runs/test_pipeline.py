"""The run orchestration: step clock, item accounting, timings."""

import gc

import pytest

from newsdedup.runs.pipeline import StepClock, _long_lived_frozen, peak_rss_mb


def test_step_clock_times_and_accounts():
    said = []
    clock = StepClock(said.append)
    with clock("measure"):
        clock.account("measure", [5, 5, 5])
        clock.note("measure", path="dense")
    clock.check(5)
    rec = clock.record(5)
    assert rec["steps"]["measure"]["path"] == "dense"
    assert rec["steps"]["measure"]["seconds"] >= 0
    assert rec["items_in_outputs"] == {"measure": [5, 5, 5]}
    assert said and said[0].startswith("run: measure took")


def test_step_clock_refuses_a_lost_item():
    clock = StepClock()
    clock.account("dedupe", [4])
    with pytest.raises(RuntimeError, match="dedupe: outputs hold \\[4\\] items, the corpus 5"):
        clock.check(5)


def test_peak_rss_is_megabytes():
    assert 10 < peak_rss_mb() < 100_000


def test_long_lived_objects_are_frozen_during_the_steps_and_handed_back_after():
    kept = [object() for _ in range(10)]
    assert gc.get_freeze_count() == 0
    with pytest.raises(KeyError), _long_lived_frozen():
        assert gc.get_freeze_count() >= len(kept)
        cycle: list = []
        cycle.append(cycle)  # garbage made during a step is still collected
        del cycle
        assert gc.collect() >= 1
        raise KeyError("a failing step")
    assert gc.get_freeze_count() == 0

"""The cost model: continuous choices, the published corpus measured exactly, no 10k cliff."""

from __future__ import annotations

import pytest

from newsdedup.studies import cost
from newsdedup.studies.measure import MeasureConfig

SIZES = [387, 500, 1000, 2000, 3000, 5000, 6000, 6001, 10_000, 10_001, 30_000, 100_000,
         300_000, 1_000_000]


def _chosen_seconds(n: int, config: MeasureConfig) -> float:
    plan = cost.measure_plan(n, config)
    return plan.sampled_seconds if plan.path == "sampled" else plan.exact_seconds


def test_published_corpus_stays_exact():
    config = MeasureConfig()
    assert cost.measure_plan(387, config).path == "dense"
    assert cost.error_plan(387, sum(config.error_perms), 2, config.error_max_pairs,
                           config.sampled_error_pairs).method == "exact"


@pytest.mark.parametrize("extra", [True, False])
def test_estimated_time_never_falls_by_more_than_the_exact_preference(extra):
    config = MeasureConfig(extra=extra)
    chosen = [_chosen_seconds(n, config) for n in SIZES]
    for small, large in zip(chosen, chosen[1:], strict=False):
        assert large >= small / cost.EXACT_PREFERENCE
    # Past the switch the path never goes back to exact: one switch, no 10k cliff.
    paths = [cost.measure_plan(n, config).path for n in SIZES]
    first = paths.index("sampled")
    assert set(paths[first:]) == {"sampled"}
    assert cost.measure_plan(10_000, config).path == "sampled"


def test_error_plan_is_continuous_and_within_budget():
    config = MeasureConfig()
    perms = sum(config.error_perms)
    plans = [cost.error_plan(n, perms, 2, config.error_max_pairs, config.sampled_error_pairs)
             for n in SIZES]
    for p in plans:
        assert config.sampled_error_pairs <= p.pairs <= min(p.total, config.error_max_pairs) \
            or p.pairs == p.total
        if p.pairs > config.sampled_error_pairs:
            assert p.seconds <= cost.ERROR_BUDGET + 1e-9
    assert plans[0].method == "exact" and plans[2].method == "sampled"


def test_minhash_sweep_plan_has_no_fixed_size():
    seconds = [cost.minhash_sweep_plan(n, 128)["estimated_seconds"] for n in SIZES]
    assert seconds == sorted(seconds)
    assert cost.minhash_sweep_plan(1000, 128)["choice"] == "streamed"
    assert cost.minhash_sweep_plan(10_000, 128)["choice"] == "left out"
    # Fewer permutations cost less: the budget admits more items.
    assert cost.minhash_sweep_plan(3000, 16)["choice"] == "streamed"

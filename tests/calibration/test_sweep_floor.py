"""The sweep floor: kept where every pair fits, raised from a sample that matches dense counts."""

import numpy as np
import pandas as pd
import pytest

from newsdedup.calibration.sweep_floor import (
    SWEEP_MIN_PAIRS,
    choose_floor,
    pair_budget,
)
from newsdedup.score.jaccard import jaccard_matrix, upper_pairs
from newsdedup.studies.calibration import default_grid
from newsdedup.studies.measure import normalized_texts
from newsdedup.studies.quantiles import clopper_pearson
from newsdedup.studies.synthetic import enlarge, headline_pool
from newsdedup.text.shingle import shingle_matrix

GRID = default_grid(0.05, 0.60)


def _english(size: int):
    df = enlarge(headline_pool("en"), size, seed=3)
    return shingle_matrix(normalized_texts(pd.DataFrame({"title": df["text"], "summary": ""})), 4)


def test_budget_grows_with_n_and_never_below_the_minimum():
    assert pair_budget(10) == SWEEP_MIN_PAIRS
    assert pair_budget(1_000_000) == 50_000_000
    assert pair_budget(200_001) > pair_budget(200_000)


def test_every_pair_fitting_keeps_the_requested_threshold_without_sampling():
    sh = _english(300)  # 44,850 pairs, far below the budget
    floor = choose_floor(sh, GRID)
    assert floor.lowest == floor.requested == 0.05
    assert floor.sample == 0 and not floor.raised and floor.record() is None


def test_raised_floor_agrees_with_the_dense_pair_counts():
    sh = _english(400)
    exact = upper_pairs(jaccard_matrix(sh)).count_at_or_above(GRID)
    budget = 600
    assert exact[0] > budget  # the requested 0.05 does not fit
    floor = choose_floor(sh, GRID, budget=budget, sample=400_000, seed=1)
    assert floor.raised and floor.lowest in GRID.tolist()
    k = int(np.flatnonzero(np.isclose(GRID, floor.lowest))[0])
    # The pairs kept fit the budget, and the rule stops at most one step above the first
    # threshold whose exact count fits (the interval's upper end errs towards fewer pairs).
    first_fit = int(np.flatnonzero(exact <= budget)[0])
    assert exact[k] <= budget
    assert first_fit <= k <= first_fit + 1
    est = floor.estimates
    assert est["threshold"].tolist() == GRID[: k + 1].tolist()
    # The estimates are near the exact counts: within one interval width of each (a 95%
    # interval misses now and then; twice its half-width is about four standard errors).
    width = (est["high"] - est["low"]).to_numpy()
    assert np.all(np.abs(est["pairs"].to_numpy() - exact[: k + 1]) <= width)
    assert np.all(est["low"].to_numpy() < est["pairs"].to_numpy())
    rec = floor.record()
    assert rec["lowest"] == floor.lowest and rec["requested"] == 0.05
    assert rec["sample_pairs"] == 400_000 and rec["budget_pairs"] == budget
    assert "exceed the budget" in rec["reason"]


def test_same_seed_same_floor_and_a_fitting_request_is_kept():
    sh = _english(400)
    a = choose_floor(sh, GRID, budget=600, sample=50_000, seed=4)
    b = choose_floor(sh, GRID, budget=600, sample=50_000, seed=4)
    assert a.lowest == b.lowest and a.estimates.equals(b.estimates)
    kept = choose_floor(sh, GRID, budget=79_000, sample=50_000, seed=4)  # 79,800 pairs in all
    assert kept.lowest == 0.05 and not kept.raised and kept.record() is not None


def test_clopper_pearson_matches_the_textbook_bounds():
    lo, hi = clopper_pearson(np.array([0, 5, 20]), 20)
    assert lo[0] == 0.0 and hi[2] == 1.0
    assert lo[1] == pytest.approx(0.0866, abs=1e-4) and hi[1] == pytest.approx(0.4910, abs=1e-4)
    with pytest.raises(ValueError):
        choose_floor(_english(5), [0.2, 0.1])


def test_weighted_filter_work_estimates_what_the_filter_lists_and_yields(monkeypatch):
    from newsdedup.calibration import sweep_floor
    from newsdedup.score.jaccard import idf_weights
    from newsdedup.score.prefix import candidate_mask, prefix_candidates
    from newsdedup.studies.measure_streamed import pair_at

    sh = _english(400)
    w = idf_weights(sh)
    t = 0.1
    x = sh.matrix.tocsr()
    members = np.arange(sh.n_items)
    got = {(int(a), int(b)) for i, j in prefix_candidates(x, w, t, members)
           for a, b in zip(i, j, strict=True)}
    # The mask, applied to every pair, yields exactly the filter's candidates.
    a, b = pair_at(sh.n_items, np.arange(79_800))
    listed, cand = candidate_mask(x, w, t, members, a, b)
    assert {(int(p), int(q)) for p, q in zip(a[cand], b[cand], strict=True)} == got
    assert listed.sum() > cand.sum() > 0
    # A sample estimates those counts within its spread.
    monkeypatch.setattr(sweep_floor, "SWEEP_MIN_PAIRS", 0)
    monkeypatch.setattr(sweep_floor, "FILTER_PAIRS_PER_ITEM", 1)
    work = sweep_floor.weighted_filter_work(sh, w, t, sample=200_000, seed=2)
    assert work["sample_pairs"] == 200_000 and work["budget_listed"] == 400
    assert work["candidates"] == pytest.approx(len(got), rel=0.1)
    assert work["listed_low"] <= listed.sum() <= work["listed_high"]
    # With every pair inside the budget nothing is sampled.
    monkeypatch.setattr(sweep_floor, "FILTER_PAIRS_PER_ITEM", 1000)
    whole = sweep_floor.weighted_filter_work(sh, w, t)
    assert whole["sample_pairs"] == 0 and whole["listed"] == whole["total_pairs"] == 79_800


def test_sample_size_resolves_a_count_near_the_budget():
    from newsdedup.calibration.sweep_floor import (
        FLOOR_HITS_AT_BUDGET,
        FLOOR_MAX_SAMPLE_PAIRS,
        FLOOR_SAMPLE_PAIRS,
        floor_sample_size,
    )

    total, budget = 4_999_950_000, 5_000_000
    m = floor_sample_size(total, budget)
    assert m * budget / total == pytest.approx(FLOOR_HITS_AT_BUDGET, rel=1e-3)
    lo, hi = clopper_pearson(np.array([FLOOR_HITS_AT_BUDGET]), m)
    assert (hi[0] * total - budget) / budget < 0.07  # a count at the budget, known to ~6%
    assert floor_sample_size(10**6, 10**6) == FLOOR_SAMPLE_PAIRS
    assert floor_sample_size(10**13, 10**6) == FLOOR_MAX_SAMPLE_PAIRS


def test_a_corpus_of_one_template_is_refused_with_the_reason_not_run_out_of_memory(
        tmp_path, monkeypatch, capsys):
    # 300 titles of one template differing only in a number: every pair scores high at every
    # threshold of the sweep. With a budget of 2 pairs per item the sweep cannot list them,
    # and the calibration says so (exit 2, one line) instead of listing N**2 pairs (20,000
    # such titles once took 24 GB and were killed).
    from newsdedup.calibration import sweep_floor as module
    from newsdedup.cli import main

    monkeypatch.setattr(module, "SWEEP_MIN_PAIRS", 0)
    titles = [f"<ACME HOLDINGS LTD> 1987 NET PROFIT {k} MLN DLRS VS {k + 7} MLN" for k in
              range(300)]
    sh = shingle_matrix(titles, 4)
    with pytest.raises(module.SweepTooLarge, match="near-copies of one another") as info:
        module.choose_floor(sh, [0.05, 0.3, 0.6], budget=600, seed=1)
    assert info.value.low > 600 and info.value.top == 0.6
    # Mixed with distinct titles, the same template leaves a threshold that fits: no refusal.
    distinct = [f"{chr(0xAC00 + k)}{chr(0xAC00 + 3 * k + 7)} 기업 {k} 발표" for k in range(3000)]
    mixed = module.choose_floor(shingle_matrix(titles[:40] + distinct, 4), [0.05, 0.3, 0.6],
                                budget=20_000, seed=1)
    assert mixed.lowest <= 0.6
    corpus = tmp_path / "tpl.csv"
    corpus.write_text("id,title\n" + "".join(f"{k},{t}\n" for k, t in enumerate(titles)),
                      "utf-8")
    code = main(["calibrate", str(corpus), "--out", str(tmp_path / "out"), "--quiet",
                 "--sweep-pairs-per-item", "2", "--trials", "2"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert "the threshold sweep cannot list this corpus's pairs" in err[0]
    assert not (tmp_path / "out" / "tpl" / "calibration.json").exists()

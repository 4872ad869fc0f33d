"""Measure figures: each plot shows exactly the numbers of its input table."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import StepPatch

from newsdedup.plots import measure


def test_score_distribution_marks_the_labelled_same_event_pairs(toy) -> None:
    gold = pd.DataFrame({"label": ["same", "different", "same", "related"],
                         "text_jaccard": [0.129, 0.4, 0.095, 0.3]})
    fig = measure.score_distribution(toy.histogram(), toy.BOUND, bound_n=4, labelled=gold,
                                     labelled_n=4)
    marks = toy.line(fig.axes[1], "labelled same-event pairs (2)")
    assert marks.get_xdata().tolist() == [0.095, 0.129]
    assert not [ln for ln in fig.axes[0].lines if "labelled" in str(ln.get_label())]


def test_ngram_sweep_plots_every_statistic_and_track(toy) -> None:
    sweep, tracks = toy.ngram_sweep(), toy.ngram_tracks()
    fig = measure.ngram_sweep(sweep, tracks, toy.BOUND, 4, label_top=2)
    for col in ("mean", "p90", "p99", "p999", "max"):
        line = toy.line(fig.axes[0], col)
        assert np.array_equal(line.get_xdata(), sweep["n"])
        assert np.allclose(line.get_ydata(), sweep[col])
    right = fig.axes[1].lines
    assert len(right) == 4 + 1  # one line per tracked pair, plus the bound marker
    assert [ln.get_label() for ln in right[:2]] == ["pair #1", "pair #2"]
    assert np.allclose(right[3].get_ydata(), tracks[tracks["rank"] == 4]["score"])


def test_score_distribution_plots_the_histogram_columns(toy) -> None:
    h = toy.histogram()
    fig = measure.score_distribution(h, toy.BOUND, bound_n=4)
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 2
    for ax, n in zip(fig.axes, (3, 4), strict=True):
        sub = h[h["n"] == n]
        steps = [p for p in ax.patches if isinstance(p, StepPatch)]
        by_label = {p.get_label(): p.get_data() for p in steps}
        np.testing.assert_array_equal(by_label["exact Jaccard"].values, sub["exact"])
        np.testing.assert_array_equal(by_label["MinHash estimate"].values, sub["estimate"])
        np.testing.assert_allclose(by_label["exact Jaccard"].edges,
                                   np.append(sub["bin_lo"], sub["bin_hi"].iloc[-1]))
        assert ax.get_yscale() == "log"
    # The bound belongs to the n it was measured at: drawn in the n=4 panel only.
    assert not [ln for ln in fig.axes[0].lines if ln.get_label().startswith("unrelated")]
    bound = toy.line(fig.axes[1], f"unrelated-pair bound {toy.BOUND:.3f}")
    assert list(bound.get_xdata()) == [toy.BOUND, toy.BOUND]


def test_score_distribution_without_bound_n_draws_the_bound_everywhere(toy) -> None:
    fig = measure.score_distribution(toy.histogram(), toy.BOUND)
    for ax in fig.axes:
        toy.line(ax, f"unrelated-pair bound {toy.BOUND:.3f}")


def test_minhash_error_lines_equal_the_error_columns(toy) -> None:
    e = toy.errors()
    fig = measure.minhash_error(e)
    (ax,) = fig.axes
    for family, g in e.groupby("family"):
        rmse = toy.line(ax, f"{family} RMSE")
        np.testing.assert_array_equal(rmse.get_xdata(), g["num_perm"])
        np.testing.assert_allclose(rmse.get_ydata(), g["rmse"])
        np.testing.assert_allclose(toy.line(ax, f"{family} max").get_ydata(), g["err_max"])
    first = e[e["family"] == "crc32-mersenne61"]
    np.testing.assert_allclose(toy.line(ax, "theory RMS sqrt(mean J(1-J)/k)").get_ydata(),
                               first["theory_rmse"])
    worst = toy.line(ax, "worst-case SE sqrt(0.25/k)")
    np.testing.assert_allclose(worst.get_ydata(), np.sqrt(0.25 / first["num_perm"].to_numpy()))
    assert ax.get_xscale() == "log"


def test_minhash_error_separates_seeds_of_one_family(toy) -> None:
    e = pd.concat([toy.errors(), toy.errors().assign(seed=lambda d: d["seed"] + 1)])
    labels = [ln.get_label() for ln in measure.minhash_error(e).axes[0].lines]
    assert "datasketch (seed 1) RMSE" in labels and "datasketch (seed 2) RMSE" in labels

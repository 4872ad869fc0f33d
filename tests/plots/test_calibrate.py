"""Calibrate and dedupe figures: the sweeps and sensitivity curves show their tables."""

from __future__ import annotations

import numpy as np
import pytest

from newsdedup.plots import calibrate


def test_dedupe_sweep_draws_gate_on_solid_and_off_dashed(toy) -> None:
    t = toy.dedupe_sweep()
    fig = calibrate.dedupe_sweep(t, toy.RECOMMENDED)
    for scorer in ("jaccard", "idf"):
        on = toy.line(fig.axes[1], f"{scorer}, gate on")
        off = toy.line(fig.axes[1], f"{scorer}, gate off")
        assert on.get_linestyle() == "-" and off.get_linestyle() == "--"
        sub = t[(t["scorer"] == scorer) & ~t["gate"]]
        assert np.array_equal(off.get_ydata(), sub["items_left"])
        assert on.get_color() == off.get_color()
    assert f"{toy.RECOMMENDED:.2f}" in fig._suptitle.get_text()


def test_sensitivity_curves_plot_the_tables_and_mark_the_crossings(toy) -> None:
    both, one = toy.both(), toy.one()
    fig = calibrate.sensitivity_curves(both, one, toy.BOUND, toy.RECOMMENDED)
    left, right = fig.axes
    ordered = both.sort_values("f")
    np.testing.assert_allclose(toy.line(left, "mean").get_xdata(), ordered["f"])
    np.testing.assert_allclose(toy.line(left, "mean").get_ydata(), ordered["mean"])
    np.testing.assert_allclose(toy.line(left, "p5").get_ydata(), ordered["p5"])
    np.testing.assert_allclose(toy.line(left, "min").get_ydata(), ordered["min"])
    np.testing.assert_allclose(toy.line(right, "mean").get_ydata(), one.sort_values("f")["mean"])
    assert not [ln for ln in right.lines if ln.get_label() == "p5"]  # one-sided has no p5
    for ax in (left, right):
        bound = toy.line(ax, f"unrelated-pair bound {toy.BOUND:.3f}")
        assert list(bound.get_ydata()) == [toy.BOUND] * 2
        recommended = toy.line(ax, f"recommended {toy.RECOMMENDED:.2f}")
        assert list(recommended.get_ydata()) == [toy.RECOMMENDED] * 2
    marks = sorted(ln.get_xdata()[0] for ln in left.lines if ln.get_label() == "_crossing")
    expected = sorted(calibrate.crossings(both["f"], both["mean"], toy.BOUND)
                      + calibrate.crossings(both["f"], both["p5"], toy.BOUND))
    assert len(expected) == 2
    np.testing.assert_allclose(marks, expected)


def test_sensitivity_curves_without_recommendation(toy) -> None:
    fig = calibrate.sensitivity_curves(toy.both(), toy.one(), toy.BOUND, None)
    assert not [ln for ln in fig.axes[0].lines if ln.get_label().startswith("recommended")]


@pytest.mark.parametrize(
    ("y", "level", "expected"),
    [
        ([0.1, 0.3], 0.2, [0.5]),
        ([0.3, 0.1], 0.2, [0.5]),
        ([0.2, 0.3], 0.2, [0.0]),
        ([0.1, 0.2], 0.2, [1.0]),
        ([0.3, 0.4], 0.2, []),
    ],
)
def test_crossings(y, level, expected) -> None:
    assert calibrate.crossings([0.0, 1.0], y, level) == pytest.approx(expected)


def test_crossings_sorts_x() -> None:
    # Tables list f from 0.9 down; the crossing must not depend on the row order.
    assert calibrate.crossings([0.9, 0.5], [0.6, 0.2], 0.4) == pytest.approx([0.7])


def test_threshold_sweep_lines_equal_the_sweep_columns(toy) -> None:
    s = toy.sweep()
    fig = calibrate.threshold_sweep(s, toy.RECOMMENDED, toy.BAND)
    pairs_ax, items_ax = fig.axes
    for scorer, g in s.groupby("scorer"):
        np.testing.assert_allclose(toy.line(pairs_ax, scorer).get_xdata(), g["threshold"])
        np.testing.assert_array_equal(toy.line(pairs_ax, scorer).get_ydata(), g["pairs"])
        np.testing.assert_array_equal(toy.line(items_ax, scorer).get_ydata(), g["items_left"])
    for ax in (pairs_ax, items_ax):
        recommended = toy.line(ax, f"recommended {toy.RECOMMENDED:.2f}")
        assert list(recommended.get_xdata()) == [toy.RECOMMENDED] * 2
        spans = [p for p in ax.patches if p.get_label().startswith("band")]
        assert len(spans) == 1
        span = spans[0]  # a Rectangle in data x, axes-fraction y
        assert (span.get_x(), span.get_x() + span.get_width()) == pytest.approx(toy.BAND)
    assert pairs_ax.get_yscale() == "symlog"


def test_threshold_sweep_without_band_says_so(toy) -> None:
    fig = calibrate.threshold_sweep(toy.sweep(), None, None)
    ax = fig.axes[0]
    assert not [p for p in ax.patches if p.get_label().startswith("band")]
    assert any("no calibrated band" in t.get_text() for t in ax.texts)


def test_calibration_evidence_draws_the_curves_and_the_decoys_predicted_merges(toy) -> None:
    import numpy as np

    from newsdedup.plots.calibrate import calibration_evidence

    curve, decoys = toy.precision_recall(), toy.calibration()["decoys"]
    fig = calibration_evidence(curve, 0.2, 0.95, decoys)
    a, b, c, d = fig.axes
    assert [ax.get_title()[:3] for ax in fig.axes] == ["(a)", "(b)", "(c)", "(d)"]
    est = toy.line(a, "decoys (lower bound)")
    np.testing.assert_array_equal(est.get_ydata(), curve["decoy_precision"].to_numpy())
    assert toy.line(a, "target 0.95").get_ydata()[0] == 0.95
    np.testing.assert_array_equal(
        toy.line(b, "simulated rewrites (range over retention)").get_ydata(),
        curve["recall_sim"].to_numpy())
    np.testing.assert_array_equal(toy.line(c, "items left").get_ydata(),
                                  curve["items_left"].to_numpy())
    np.testing.assert_array_equal(toy.line(d, "merged pairs").get_ydata(),
                                  curve["merged_pairs"].to_numpy(dtype=float))
    # unrelated compared pairs that pass = decoy rate x compared pairs (precision's complement)
    predicted = toy.line(d, "unrelated compared pairs, predicted by the decoys").get_ydata()
    np.testing.assert_allclose(predicted, curve["decoy_rate"].to_numpy() * toy.COMPARED)
    assert "recommended 0.20" in [ln.get_label() for ln in a.lines]


def test_calibration_evidence_without_decoys_says_so(toy) -> None:
    from newsdedup.plots.calibrate import calibration_evidence

    curve = toy.precision_recall().drop(columns=["decoy_rate", "decoy_rate_low",
                                                 "decoy_rate_high"])
    fig = calibration_evidence(curve, None)
    assert "no decoy rule applies" in [t.get_text() for t in fig.axes[3].texts]


def test_calibration_evidence_marks_decoys_whose_check_failed_and_draws_labels(toy) -> None:
    import numpy as np

    from newsdedup.plots.calibrate import calibration_evidence

    curve = toy.precision_recall().assign(precision_measured=0.9, precision_measured_low=0.8,
                                          precision_measured_high=1.0, precision_holdout=0.92,
                                          precision_holdout_low=0.85,
                                          precision_holdout_high=0.97)
    failed = {"compared_pairs": toy.COMPARED, "check": {"passed": False}}
    fig = calibration_evidence(curve, 0.2, 0.9, failed)
    a, _, _, d = fig.axes
    np.testing.assert_array_equal(toy.line(a, "decoys (check failed: not used)").get_ydata(),
                                  curve["decoy_precision"].to_numpy())
    assert toy.line(a, "measured (labels)").get_ydata()[0] == 0.9
    assert toy.line(a, "hold-out labels").get_ydata()[0] == 0.92
    assert "decoy check failed: not used" in [t.get_text() for t in d.texts]
    # without the compared count (calibration.json lacks it) panel (d) draws the rate itself
    fig = calibration_evidence(curve, 0.2, 0.9, None)
    rate = toy.line(fig.axes[3], "decoy rate (unrelated pairs that pass)")
    np.testing.assert_array_equal(rate.get_ydata(), curve["decoy_rate"].to_numpy())

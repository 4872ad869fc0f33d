"""Cross-host figure: every pair counted, the in-window pairs highlighted and labelled."""

from __future__ import annotations

import numpy as np
from matplotlib.collections import PathCollection, QuadMesh
from matplotlib.patches import StepPatch

from newsdedup.plots import crosshost


def test_cross_host_scores_shows_every_pair(toy) -> None:
    c = toy.cross_pairs()
    fig = crosshost.cross_host_scores(c, toy.BOUND, window_days=3)
    hist_ax, days_ax = fig.axes[:2]  # the third is the colour bar of the counts
    steps = {p.get_label(): p.get_data() for p in hist_ax.patches if isinstance(p, StepPatch)}
    (all_label,) = [k for k in steps if k.startswith("all cross pairs")]
    (win_label,) = [k for k in steps if k.startswith("within the date window")]
    assert steps[all_label].values.sum() == len(c)
    assert steps[win_label].values.sum() == int(c["in_window"].sum())
    expected = np.histogram(c["score"], bins=steps[all_label].edges)[0]
    np.testing.assert_array_equal(steps[all_label].values, expected)
    toy.line(hist_ax, f"unrelated-pair bound {toy.BOUND:.3f}")

    # Every pair is counted in the score-and-days mesh, in its bin.
    (mesh,) = [m for m in days_ax.collections if isinstance(m, QuadMesh)]
    counts = np.ma.filled(mesh.get_array(), 0.0)
    assert counts.sum() == len(c)
    coords = mesh.get_coordinates()  # (score edges, days edges, xy)
    days_edges, score_edges = coords[0, :, 0], coords[:, 0, 1]
    k = 5  # one pair, located by hand
    row = np.searchsorted(score_edges, c["score"].iloc[k], side="right") - 1
    col = np.searchsorted(days_edges, c["days_apart"].iloc[k], side="right") - 1
    assert counts.reshape(len(score_edges) - 1, len(days_edges) - 1)[row, col] >= 1

    colls = {col.get_label(): col for col in days_ax.collections
             if isinstance(col, PathCollection)}
    inside = c[c["in_window"]]
    top = inside.sort_values("score", ascending=False).head(3)
    np.testing.assert_allclose(colls["best within window"].get_offsets(),
                               top[["days_apart", "score"]].to_numpy())
    labelled = [t.get_text() for t in days_ax.texts]
    assert len(labelled) == 3
    for text, (a, b) in zip(labelled, zip(top["id_i"], top["id_j"], strict=True), strict=True):
        assert a in text and b in text


def test_the_bins_draw_what_the_listing_draws(toy) -> None:
    # score_days.csv (what crosshost writes) and the listing give the same histogram.
    c = toy.cross_pairs()
    bins = crosshost.as_bins(c)
    a = crosshost.cross_host_scores(c, toy.BOUND, window_days=3)
    b = crosshost.cross_host_scores(bins, toy.BOUND, window_days=3, top=c.head(10))
    for fa, fb in zip(a.axes[0].patches, b.axes[0].patches, strict=True):
        np.testing.assert_array_equal(fa.get_data().values, fb.get_data().values)


def test_cross_host_scores_without_pairs_says_so(toy) -> None:
    fig = crosshost.cross_host_scores(toy.cross_pairs().iloc[:0], toy.BOUND)
    assert any("no cross-host pairs" in t.get_text() for t in fig.axes[0].texts)

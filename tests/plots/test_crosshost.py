"""Cross-host figure: every pair counted, the in-window pairs highlighted and labelled."""

from __future__ import annotations

import numpy as np
from matplotlib.collections import PathCollection
from matplotlib.patches import StepPatch

from newsdedup.plots import crosshost


def test_cross_host_scores_shows_every_pair(toy) -> None:
    c = toy.cross_pairs()
    fig = crosshost.cross_host_scores(c, toy.BOUND, window_days=3)
    hist_ax, scatter_ax = fig.axes
    steps = {p.get_label(): p.get_data() for p in hist_ax.patches if isinstance(p, StepPatch)}
    (all_label,) = [k for k in steps if k.startswith("all cross pairs")]
    (win_label,) = [k for k in steps if k.startswith("within the date window")]
    assert steps[all_label].values.sum() == len(c)
    assert steps[win_label].values.sum() == int(c["in_window"].sum())
    expected = np.histogram(c["score"], bins=steps[all_label].edges)[0]
    np.testing.assert_array_equal(steps[all_label].values, expected)
    toy.line(hist_ax, f"unrelated-pair bound {toy.BOUND:.3f}")

    colls = {col.get_label(): col for col in scatter_ax.collections
             if isinstance(col, PathCollection)}
    inside = c[c["in_window"]]
    np.testing.assert_allclose(colls["within window"].get_offsets(),
                               inside[["days_apart", "score"]].to_numpy())
    assert len(colls["outside window"].get_offsets()) == len(c) - len(inside)
    labelled = [t.get_text() for t in scatter_ax.texts]
    top = inside.sort_values("score", ascending=False).head(3)
    assert len(labelled) == 3
    for text, (a, b) in zip(labelled, zip(top["id_i"], top["id_j"], strict=True), strict=True):
        assert a in text and b in text


def test_cross_host_scores_without_pairs_says_so(toy) -> None:
    fig = crosshost.cross_host_scores(toy.cross_pairs().iloc[:0], toy.BOUND)
    assert any("no cross-host pairs" in t.get_text() for t in fig.axes[0].texts)

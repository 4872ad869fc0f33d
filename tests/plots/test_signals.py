"""Signal plots: the candidates are the highlighted points, the bound is where it says."""

from __future__ import annotations

import numpy as np
import pandas as pd

from newsdedup.plots.signals import score_vs_gap


def test_candidates_are_highlighted_at_their_gap_and_score():
    hp = pd.DataFrame({"days_apart": [0.0, 1.0, 40.0, float("nan")],
                       "text_jaccard": [0.1, 0.05, 0.2, 0.15],
                       "candidate": [True, True, False, False],
                       "id_i": list("abcd"), "id_j": list("wxyz")})
    fig = score_vs_gap(hp, upper_bound=0.234, max_days=1)
    ax = fig.axes[0]
    others, cands = (c.get_offsets() for c in ax.collections)
    assert np.allclose(cands, [[1.0, 0.1], [2.0, 0.05]])
    assert len(others) == 2
    assert [ln.get_ydata()[0] for ln in ax.get_lines()] == [0.234]
    assert {t.get_text() for t in ax.texts} == {"a / w", "b / x"}


"""The committed coverage study (results/calibration-coverage/) is what the code computes.

A full rerun takes an hour (``make coverage``); here one seed per language is
rerun and compared with its committed row, and the summaries are recomputed
from the committed rows. About three minutes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from newsdedup import paths
from newsdedup.paths import CorpusNotFound
from newsdedup.runs.coverage import summarize

FOLDER = paths.RESULTS_DIR / "calibration-coverage"


@pytest.mark.parametrize("language", ["ko", "en"])
def test_a_seed_rerun_gives_its_committed_row(language):
    from newsdedup.calibration.simulate import coverage_study
    from newsdedup.studies.synthetic import headline_pool

    committed = pd.read_csv(FOLDER / f"coverage_{language}.csv")
    try:
        pool = headline_pool(language)
    except CorpusNotFound:
        pytest.skip("shared corpora not available")
    fresh = coverage_study(pool, [0])
    old = committed[committed["seed"] == 0].reset_index(drop=True)
    assert list(fresh.columns) == list(old.columns)
    for col in fresh.columns:
        a, b = fresh[col].to_numpy(), old[col].to_numpy()
        if fresh[col].dtype.kind in "fi":
            # The CSV holds six decimals; the posterior draws are seeded.
            np.testing.assert_allclose(a.astype(float), b.astype(float), atol=1e-6,
                                       err_msg=col)
        else:
            assert a.astype(str).tolist() == b.astype(str).tolist(), col


@pytest.mark.parametrize("language", ["ko", "en"])
def test_the_summary_is_the_committed_rows(language):
    rows = pd.read_csv(FOLDER / f"coverage_{language}.csv")
    summary = pd.read_csv(FOLDER / f"summary_{language}.csv")
    pd.testing.assert_frame_equal(summarize(rows), summary, check_dtype=False, atol=1e-9)
    # Each row's verdict is its interval against the truth.
    for who in ("loop", "holdout"):
        for what in ("precision", "recall"):
            have = rows[f"{who}_{what}_low"].notna()
            truth = rows.loc[have, f"{what}_true"]
            inside = ((rows.loc[have, f"{who}_{what}_low"] <= truth)
                      & (truth <= rows.loc[have, f"{who}_{what}_high"]))
            assert (inside == rows.loc[have, f"{who}_{what}_covered"].astype(bool)).all()

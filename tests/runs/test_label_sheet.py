"""The stratified labeling sheet: one sampler behind `label-sheet` and `candidates --stratified`."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from newsdedup.cli import main
from newsdedup.runs.label_sheet import sheet_edges
from newsdedup.studies.labels import bin_sample_size


def test_sheet_edges_put_a_bin_below_each_candidate_threshold():
    assert sheet_edges([0.3]) == [0.25, 0.3, 1.0]
    assert sheet_edges([0.3, 0.2], 0.1) == [0.1, 0.2, 0.3, 1.0]
    assert sheet_edges([0.02]) == [0.0, 0.02, 1.0]
    with pytest.raises(ValueError, match="candidate thresholds"):
        sheet_edges([1.5])


@pytest.fixture
def feed(tmp_path):
    rng = np.random.default_rng(5)
    words = [f"w{k}" for k in range(60)]
    rows = []
    for s in range(150):
        base = ["lead", *rng.choice(words, 9)]  # one lead token: the gate compares every pair
        for k in range(int(rng.integers(1, 4))):
            ws = list(base)
            for _ in range(k):
                ws[int(rng.integers(1, len(ws)))] = str(rng.choice(words))
            rows.append({"id": f"{s}-{k}", "title": " ".join(ws), "section": "ab"[s % 2]})
    path = tmp_path / "feed.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    out = tmp_path / "out"
    assert main(["calibrate", str(path), "--name", "feed", "--out", str(out),
                 "--decoy-field", "section", "--trials", "2", "--fractions", "0.9,0.5"]) == 0
    return path, out


def test_candidates_stratified_is_the_label_sheet(feed, tmp_path):
    path, out = feed
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    common = [str(path), "--name", "feed", "--out", str(out), "--thresholds", "0.3,0.5"]
    assert main(["label-sheet", *common, "--output", str(a)]) == 0
    assert main(["candidates", *common, "--stratified", "--output", str(b)]) == 0
    sheet = pd.read_csv(a)
    pd.testing.assert_frame_equal(sheet, pd.read_csv(b))
    assert list(sheet.columns[:4]) == ["id_i", "id_j", "label", "reason"]
    per_bin = bin_sample_size(0.1)
    counts = sheet.groupby("bin").size()
    assert set(counts.index) == {"[0.25, 0.30)", "[0.30, 0.45)", "[0.45, 0.50)",
                                 "[0.50, 1.00]"}
    for label, k in counts.items():
        total = int(sheet.loc[sheet["bin"] == label, "bin_pairs"].iloc[0])
        assert k == min(per_bin, total)  # a full quota, or the whole bin
        lo, hi = (float(x) for x in label.strip("[)]").split(", "))
        scores = sheet.loc[sheet["bin"] == label, "score"]
        assert scores.between(lo, hi).all()
    assert (sheet["weight"] >= 1).all()
    # Without --output each writes to its own command's place in the results tree.
    assert main(["candidates", *common, "--stratified"]) == 0
    pd.testing.assert_frame_equal(sheet, pd.read_csv(out / "feed" / "signals" / "to_label.csv"))

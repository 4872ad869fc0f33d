"""Target-decoy calibration on the UCI head without STORY, checked against STORY.

Run: PYTHONPATH=src NEWSDEDUP_SHARED=/work/shared python bench/decoy_uci.py [scorer] [n]
"""

from __future__ import annotations

import sys
import warnings

import numpy as np

from newsdedup.cluster.dedupe import DedupeConfig, dedupe
from newsdedup.corpus.load import load_corpus
from newsdedup.evaluate.metrics import pairwise_scores
from newsdedup.paths import UCI_COLUMNS, shared_corpus_file
from newsdedup.score.join import threshold_join
from newsdedup.studies.calibration import default_grid
from newsdedup.studies.decoys import decoy_curve, decoy_space, recommend
from newsdedup.studies.merges import merge_precision
from newsdedup.text.normalize import item_texts
from newsdedup.text.shingle import shingle_matrix


def main(n: int = 3) -> None:
    """Recommend a threshold from CATEGORY decoys, dedupe at it, compare with STORY."""
    path = shared_corpus_file("uci-news-aggregator-head", "uci-news-aggregator.head.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the truncated last record is reported, not needed
        items = load_corpus(path, columns=UCI_COLUMNS).items
    space = decoy_space(items, decoy_field="CATEGORY")
    grid = default_grid(0.2, 0.9)
    shingled = shingle_matrix(item_texts(items, text="title"), n)
    scores = threshold_join(shingled, float(grid.min())).pairs
    story = items["STORY"].to_numpy()
    for method in ("pooled", "nearest"):
        curve = decoy_curve(scores, space, grid, method=method)
        same = story[scores.i] == story[scores.j]
        curve["measured_precision"] = [float(same[scores.score >= t].mean()) for t in grid]
        print(f"== all pairs >= t, method={method}, n={n}")
        print(curve.iloc[::5][["threshold", "observed", "decoys", "precision", "precision_low",
                               "precision_high", "measured_precision"]].to_string(index=False))
        rec = recommend(curve, float(sys.argv[2]) if len(sys.argv) > 2 else 0.95)
        print("recommend:", rec)
        if rec["threshold"] is None:
            continue
        res = dedupe(items, DedupeConfig(threshold=rec["threshold"], scorer="jaccard", n=n,
                                         text="title"))
        labels = res.clustering.labels
        est = merge_precision(labels, space, method=method)
        meas = pairwise_scores(labels, story)
        print(f"dedupe @ {rec['threshold']}: merged={est['merged_pairs']} decoys={est['decoys']}"
              f" estimated precision={est['precision'].as_dict()} measured (STORY)="
              f"{meas['precision']:.4f}")
    # Same check across thresholds: is the measured precision inside the estimate?
    print("== dedupe sweep (method=auto)")
    for t in np.round(np.arange(0.3, 0.75, 0.05), 2):
        labels = dedupe(items, DedupeConfig(threshold=float(t), scorer="jaccard", n=n,
                                            text="title")).clustering.labels
        est = merge_precision(labels, space)
        meas = pairwise_scores(labels, story)["precision"]
        p = est["precision"]
        print(f"t={t:.2f} merged={est['merged_pairs']} est={p.value:.3f} [{p.low:.3f}, "
              f"{p.high:.3f}] measured={meas:.3f} inside={p.low <= meas <= p.high}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)

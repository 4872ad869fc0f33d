"""Synthetic tables of a results tree, shared by the plot tests (fixture ``toy``)."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pandas as pd
import pytest


class Toy:
    """Builders of small synthetic tables, in the layout the pipeline writes."""

    BOUND = 0.234
    RECOMMENDED = 0.24
    BAND = (0.234, 0.259)

    @staticmethod
    def histogram() -> pd.DataFrame:
        edges = np.round(np.arange(11) / 10, 10)
        frames = []
        for n, scale in ((3, 1000), (4, 800)):
            exact = (scale / 2 ** np.arange(10)).astype(np.int64)
            exact[6:] = 0
            frames.append(pd.DataFrame({"n": n, "bin_lo": edges[:-1], "bin_hi": edges[1:],
                                        "exact": exact, "estimate": exact[::-1].copy()}))
        return pd.concat(frames, ignore_index=True)

    @staticmethod
    def errors() -> pd.DataFrame:
        ks = np.array([16, 32, 64, 128])
        rows = []
        for family, seed, factor in (("crc32-mersenne61", 42, 1.0), ("datasketch", 1, 1.2)):
            for k in ks:
                root = np.sqrt(k)
                rows.append({"family": family, "scheme": "s", "seed": seed, "num_perm": int(k),
                             "err_mean": 0.04 * factor / root, "err_max": 0.9 * factor / root,
                             "rmse": 0.08 * factor / root, "theory_rmse": 0.08 / root,
                             "theory_se_max": np.sqrt(0.25 / k)})
        return pd.DataFrame(rows)

    @staticmethod
    def both() -> pd.DataFrame:
        return pd.DataFrame({"f": [0.9, 0.8, 0.7, 0.6, 0.5], "pairs": 100,
                             "mean": [0.64, 0.44, 0.32, 0.23, 0.17],
                             "std": [0.12, 0.12, 0.11, 0.10, 0.09],
                             "p5": [0.44, 0.26, 0.15, 0.09, 0.04],
                             "min": [0.24, 0.015, 0.011, 0.0, 0.0]})

    @staticmethod
    def one() -> pd.DataFrame:
        return pd.DataFrame({"f": [0.9, 0.8, 0.7, 0.6, 0.5], "pairs": 100,
                             "mean": [0.78, 0.61, 0.48, 0.37, 0.28],
                             "std": [0.11, 0.12, 0.12, 0.11, 0.10],
                             "min": [0.27, 0.15, 0.11, 0.05, 0.02]})

    @staticmethod
    def sweep() -> pd.DataFrame:
        t = np.round(np.arange(5, 31) / 100, 10)
        frames = []
        for k, scorer in enumerate(("jaccard", "idf-jaccard", "minhash")):
            pairs = np.maximum(0, (1000 * np.exp(-25 * t) - 2 - k)).astype(np.int64)
            frames.append(pd.DataFrame({"scorer": scorer, "threshold": t, "pairs": pairs,
                                        "items_left": 387 - np.minimum(pairs, 190)}))
        return pd.concat(frames, ignore_index=True)

    @staticmethod
    def cross_pairs() -> pd.DataFrame:
        rng = np.random.default_rng(0)
        n = 60
        score = np.sort(rng.uniform(0.0, 0.16, n))[::-1]
        days = rng.integers(0, 200, n).astype(np.float64)
        days[[1, 4, 7]] = [1.0, 2.0, 0.0]
        return pd.DataFrame({
            "rank": np.arange(1, n + 1), "score": score, "days_apart": days,
            "in_window": days <= 3, "above_bound": score > Toy.BOUND,
            "i": np.arange(n), "j": np.arange(n) + 100,
            "id_i": [f"a{k}" for k in range(n)], "host_i": "blog.google",
            "published_at_i": "2026-05-07", "title_i": "제목",
            "id_j": [f"b{k}" for k in range(n)], "host_j": "deepmind.google",
            "published_at_j": "2026-05-06", "title_j": "제목",
        })

    @staticmethod
    def calibration() -> dict:
        return {"recommended_threshold": Toy.RECOMMENDED, "rationale": "because",
                "band": list(Toy.BAND), "upper_bound": Toy.BOUND, "parameters": {"n": 4},
                "target_precision": 0.9,
                "decoys": {"rule": "toy", "compared_pairs": Toy.COMPARED, "decoy_pairs": 5000,
                           "check": {"passed": True, "reason": "toy"}}}

    @staticmethod
    def write_tree(root: Path, name: str = "toy") -> Path:
        """A complete synthetic results tree, in the layout the pipeline writes."""
        base = root / name
        tables = {
            "measure/histogram.csv": Toy.histogram(),
            "measure/error_vs_perm.csv": Toy.errors(),
            "measure/thresholds.csv": pd.DataFrame({"n": [4], "threshold": [0.2], "real": [3],
                                                    "candidates": [10], "matches": [3],
                                                    "recall": [1.0]}),
            "measure/summary.csv": pd.DataFrame({"n": [3, 4], "pairs": [45, 45]}),
            "measure/top_pairs.csv": pd.DataFrame({"rank": [1], "score": [Toy.BOUND]}),
            "calibrate/both_sided.csv": Toy.both(),
            "calibrate/one_sided.csv": Toy.one(),
            "calibrate/retention.csv": Toy.both().assign(above_bound=0.5),
            "calibrate/sweep.csv": Toy.sweep(),
            "crosshost/cross_pairs.csv": Toy.cross_pairs(),
            "measure/ngram_sweep.csv": Toy.ngram_sweep(),
            "measure/ngram_tracks.csv": Toy.ngram_tracks(),
            "dedupe/sweep.csv": Toy.dedupe_sweep(),
            "calibrate/precision_recall.csv": Toy.precision_recall(),
        }
        for rel, df in tables.items():
            (base / rel).parent.mkdir(parents=True, exist_ok=True)
            df.to_csv(base / rel, index=False, float_format="%.6f")
        (base / "calibration.json").write_text(json.dumps(Toy.calibration()), encoding="utf-8")
        dedupe = {"config": {"threshold": Toy.RECOMMENDED}}
        (base / "dedupe/dedupe.json").write_text(json.dumps(dedupe), encoding="utf-8")
        return base

    @staticmethod
    def ngram_sweep() -> pd.DataFrame:
        n = np.arange(2, 7)
        return pd.DataFrame({"n": n, "mean": 0.04 / n, "p90": 0.1 / n, "p99": 0.2 / n,
                             "p999": 0.4 / n, "max": 0.9 / n})

    @staticmethod
    def ngram_tracks() -> pd.DataFrame:
        return pd.DataFrame({"rank": np.repeat([1, 2, 3, 4], 5), "n": np.tile(np.arange(2, 7), 4),
                             "score": np.linspace(0.4, 0.1, 20)})

    @staticmethod
    def dedupe_sweep() -> pd.DataFrame:
        t = np.round(np.arange(1, 7) / 10, 10)
        frames = [pd.DataFrame({"scorer": scorer, "gate": gate, "threshold": t,
                                "pairs_at_or_above": (40 / t).astype(int) * (1 if gate else 2),
                                "items_left": (100 - 5 / t).astype(int) - (0 if gate else 10)})
                  for scorer in ("jaccard", "idf") for gate in (True, False)]
        return pd.concat(frames, ignore_index=True)

    @staticmethod
    def precision_recall() -> pd.DataFrame:
        """``calibrate/precision_recall.csv`` of a decoy calibration (no labels)."""
        t = np.round(np.arange(5, 31) / 100, 10)
        merged = np.maximum(0, (400 * np.exp(-12 * t)).astype(np.int64) - 5)
        precision = np.where(merged > 0, np.minimum(1.0, 0.7 + t), np.nan)
        rate = 0.02 * np.exp(-15 * t)
        return pd.DataFrame({"threshold": t, "items_left": 387 - merged // 3,
                             "merged_pairs": merged, "decoys_at": (rate * 5000).astype(int),
                             "decoy_rate": rate, "decoy_rate_low": rate * 0.8,
                             "decoy_rate_high": rate * 1.2, "decoy_precision": precision,
                             "decoy_precision_low": precision - 0.1,
                             "decoy_precision_high": np.minimum(1.0, precision + 0.05),
                             "recall_sim": 1 - 2 * t, "recall_sim_low": 1 - 3 * t,
                             "recall_sim_high": np.ones(len(t))})

    COMPARED = 3000
    """Compared pairs of the toy calibration's decoys."""

    @staticmethod
    def line(ax, label: str):
        found = [ln for ln in ax.lines if ln.get_label() == label]
        assert len(found) == 1, [ln.get_label() for ln in ax.lines]
        return found[0]

    @staticmethod
    def png_size(path: Path) -> tuple[int, int]:
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        return struct.unpack(">II", data[16:24])

    @staticmethod
    def write_signals(root: Path, name: str = "toy") -> Path:
        """The tables of ``<root>/<name>/signals/``, as ``newsdedup signals`` writes them."""
        base = root / name / "signals"
        base.mkdir(parents=True, exist_ok=True)
        pd.DataFrame({"days_apart": [0.0, 30.0, None], "text_jaccard": [0.1, 0.2, 0.05],
                      "candidate": [True, False, False], "id_i": list("abc"),
                      "id_j": list("xyz")}).to_csv(base / "host_pairs.csv", index=False)
        pd.DataFrame({"rule": ["all pairs"], "pairs": [3]}).to_csv(base / "funnel.csv",
                                                                   index=False)
        for table in ("candidates", "top_host_pairs"):
            pd.DataFrame({"id_i": ["a"], "id_j": ["x"]}).to_csv(base / f"{table}.csv",
                                                                index=False)
        params = {"options": {"detector": {"max_days": 1.0}},
                  "upper_bound_text_jaccard": Toy.BOUND}
        (base / "params.json").write_text(json.dumps(params), encoding="utf-8")
        return base


@pytest.fixture
def toy() -> type[Toy]:
    """The synthetic-table builders."""
    return Toy

"""Figures: each plot shows exactly the numbers of its input table; files are written stably."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure
from matplotlib.patches import StepPatch

from newsdedup.plots import figures

BOUND = 0.234
RECOMMENDED = 0.24
BAND = (0.234, 0.259)


# --- synthetic tables ----------------------------------------------------------


def _histogram() -> pd.DataFrame:
    edges = np.round(np.arange(11) / 10, 10)
    frames = []
    for n, scale in ((3, 1000), (4, 800)):
        exact = (scale / 2 ** np.arange(10)).astype(np.int64)
        exact[6:] = 0
        frames.append(pd.DataFrame({"n": n, "bin_lo": edges[:-1], "bin_hi": edges[1:],
                                    "exact": exact, "estimate": exact[::-1].copy()}))
    return pd.concat(frames, ignore_index=True)


def _errors() -> pd.DataFrame:
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


def _both() -> pd.DataFrame:
    return pd.DataFrame({"f": [0.9, 0.8, 0.7, 0.6, 0.5], "pairs": 100,
                         "mean": [0.64, 0.44, 0.32, 0.23, 0.17],
                         "std": [0.12, 0.12, 0.11, 0.10, 0.09],
                         "p5": [0.44, 0.26, 0.15, 0.09, 0.04],
                         "min": [0.24, 0.015, 0.011, 0.0, 0.0]})


def _one() -> pd.DataFrame:
    return pd.DataFrame({"f": [0.9, 0.8, 0.7, 0.6, 0.5], "pairs": 100,
                         "mean": [0.78, 0.61, 0.48, 0.37, 0.28],
                         "std": [0.11, 0.12, 0.12, 0.11, 0.10],
                         "min": [0.27, 0.15, 0.11, 0.05, 0.02]})


def _sweep() -> pd.DataFrame:
    t = np.round(np.arange(5, 31) / 100, 10)
    frames = []
    for k, scorer in enumerate(("jaccard", "idf-jaccard", "minhash")):
        pairs = np.maximum(0, (1000 * np.exp(-25 * t) - 2 - k)).astype(np.int64)
        frames.append(pd.DataFrame({"scorer": scorer, "threshold": t, "pairs": pairs,
                                    "items_left": 387 - np.minimum(pairs, 190)}))
    return pd.concat(frames, ignore_index=True)


def _cross_pairs() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 60
    score = np.sort(rng.uniform(0.0, 0.16, n))[::-1]
    days = rng.integers(0, 200, n).astype(np.float64)
    days[[1, 4, 7]] = [1.0, 2.0, 0.0]
    return pd.DataFrame({
        "rank": np.arange(1, n + 1), "score": score, "days_apart": days,
        "in_window": days <= 3, "above_bound": score > BOUND,
        "i": np.arange(n), "j": np.arange(n) + 100,
        "id_i": [f"a{k}" for k in range(n)], "host_i": "blog.google",
        "published_at_i": "2026-05-07", "title_i": "제목",
        "id_j": [f"b{k}" for k in range(n)], "host_j": "deepmind.google",
        "published_at_j": "2026-05-06", "title_j": "제목",
    })


def _calibration() -> dict:
    return {"recommended_threshold": RECOMMENDED, "rationale": "because", "band": list(BAND),
            "upper_bound": BOUND, "parameters": {"n": 4}}


def write_tree(root: Path, name: str = "toy") -> Path:
    """A complete synthetic results tree, in the layout the pipeline writes."""
    base = root / name
    tables = {
        "measure/histogram.csv": _histogram(),
        "measure/error_vs_perm.csv": _errors(),
        "measure/thresholds.csv": pd.DataFrame({"n": [4], "threshold": [0.2], "real": [3],
                                                "candidates": [10], "matches": [3],
                                                "recall": [1.0]}),
        "measure/summary.csv": pd.DataFrame({"n": [3, 4], "pairs": [45, 45]}),
        "measure/top_pairs.csv": pd.DataFrame({"rank": [1], "score": [BOUND]}),
        "calibrate/both_sided.csv": _both(),
        "calibrate/one_sided.csv": _one(),
        "calibrate/retention.csv": _both().assign(above_bound=0.5),
        "calibrate/sweep.csv": _sweep(),
        "crosshost/cross_pairs.csv": _cross_pairs(),
        "measure/ngram_sweep.csv": _ngram_sweep(),
        "measure/ngram_tracks.csv": _ngram_tracks(),
        "dedupe/sweep.csv": _dedupe_sweep(),
    }
    for rel, df in tables.items():
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        df.to_csv(base / rel, index=False, float_format="%.6f")
    (base / "calibration.json").write_text(json.dumps(_calibration()), encoding="utf-8")
    (base / "dedupe/dedupe.json").write_text(json.dumps({"config": {"threshold": RECOMMENDED}}),
                                             encoding="utf-8")
    return base


def _ngram_sweep() -> pd.DataFrame:
    n = np.arange(2, 7)
    return pd.DataFrame({"n": n, "mean": 0.04 / n, "p90": 0.1 / n, "p99": 0.2 / n,
                         "p999": 0.4 / n, "max": 0.9 / n})


def _ngram_tracks() -> pd.DataFrame:
    return pd.DataFrame({"rank": np.repeat([1, 2, 3, 4], 5), "n": np.tile(np.arange(2, 7), 4),
                         "score": np.linspace(0.4, 0.1, 20)})


def _dedupe_sweep() -> pd.DataFrame:
    t = np.round(np.arange(1, 7) / 10, 10)
    frames = [pd.DataFrame({"scorer": scorer, "gate": gate, "threshold": t,
                            "pairs_at_or_above": (40 / t).astype(int) * (1 if gate else 2),
                            "items_left": (100 - 5 / t).astype(int) - (0 if gate else 10)})
              for scorer in ("jaccard", "idf") for gate in (True, False)]
    return pd.concat(frames, ignore_index=True)


def _line(ax, label: str):
    found = [ln for ln in ax.lines if ln.get_label() == label]
    assert len(found) == 1, [ln.get_label() for ln in ax.lines]
    return found[0]


# --- plot functions ------------------------------------------------------------


def test_score_distribution_marks_the_labelled_same_event_pairs() -> None:
    gold = pd.DataFrame({"label": ["same", "different", "same", "related"],
                         "text_jaccard": [0.129, 0.4, 0.095, 0.3]})
    fig = figures.score_distribution(_histogram(), BOUND, bound_n=4, labelled=gold, labelled_n=4)
    marks = _line(fig.axes[1], "labelled same-event pairs (2)")
    assert marks.get_xdata().tolist() == [0.095, 0.129]
    assert not [ln for ln in fig.axes[0].lines if "labelled" in str(ln.get_label())]


def test_ngram_sweep_plots_every_statistic_and_track() -> None:
    sweep, tracks = _ngram_sweep(), _ngram_tracks()
    fig = figures.ngram_sweep(sweep, tracks, BOUND, 4, label_top=2)
    for col in ("mean", "p90", "p99", "p999", "max"):
        line = _line(fig.axes[0], col)
        assert np.array_equal(line.get_xdata(), sweep["n"])
        assert np.allclose(line.get_ydata(), sweep[col])
    right = fig.axes[1].lines
    assert len(right) == 4 + 1  # one line per tracked pair, plus the bound marker
    assert [ln.get_label() for ln in right[:2]] == ["pair #1", "pair #2"]
    assert np.allclose(right[3].get_ydata(), tracks[tracks["rank"] == 4]["score"])


def test_dedupe_sweep_draws_gate_on_solid_and_off_dashed() -> None:
    t = _dedupe_sweep()
    fig = figures.dedupe_sweep(t, RECOMMENDED)
    for scorer in ("jaccard", "idf"):
        on = _line(fig.axes[1], f"{scorer}, gate on")
        off = _line(fig.axes[1], f"{scorer}, gate off")
        assert on.get_linestyle() == "-" and off.get_linestyle() == "--"
        sub = t[(t["scorer"] == scorer) & ~t["gate"]]
        assert np.array_equal(off.get_ydata(), sub["items_left"])
        assert on.get_color() == off.get_color()
    assert f"{RECOMMENDED:.2f}" in fig._suptitle.get_text()


def test_score_distribution_plots_the_histogram_columns() -> None:
    h = _histogram()
    fig = figures.score_distribution(h, BOUND, bound_n=4)
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
    bound = _line(fig.axes[1], f"unrelated-pair bound {BOUND:.3f}")
    assert list(bound.get_xdata()) == [BOUND, BOUND]


def test_score_distribution_without_bound_n_draws_the_bound_everywhere() -> None:
    fig = figures.score_distribution(_histogram(), BOUND)
    for ax in fig.axes:
        _line(ax, f"unrelated-pair bound {BOUND:.3f}")


def test_minhash_error_lines_equal_the_error_columns() -> None:
    e = _errors()
    fig = figures.minhash_error(e)
    (ax,) = fig.axes
    for family, g in e.groupby("family"):
        rmse = _line(ax, f"{family} RMSE")
        np.testing.assert_array_equal(rmse.get_xdata(), g["num_perm"])
        np.testing.assert_allclose(rmse.get_ydata(), g["rmse"])
        np.testing.assert_allclose(_line(ax, f"{family} max").get_ydata(), g["err_max"])
    first = e[e["family"] == "crc32-mersenne61"]
    np.testing.assert_allclose(_line(ax, "theory RMS sqrt(mean J(1-J)/k)").get_ydata(),
                               first["theory_rmse"])
    worst = _line(ax, "worst-case SE sqrt(0.25/k)")
    np.testing.assert_allclose(worst.get_ydata(), np.sqrt(0.25 / first["num_perm"].to_numpy()))
    assert ax.get_xscale() == "log"


def test_minhash_error_separates_seeds_of_one_family() -> None:
    e = pd.concat([_errors(), _errors().assign(seed=lambda d: d["seed"] + 1)])
    labels = [ln.get_label() for ln in figures.minhash_error(e).axes[0].lines]
    assert "datasketch (seed 1) RMSE" in labels and "datasketch (seed 2) RMSE" in labels


def test_sensitivity_curves_plot_the_tables_and_mark_the_crossings() -> None:
    both, one = _both(), _one()
    fig = figures.sensitivity_curves(both, one, BOUND, RECOMMENDED)
    left, right = fig.axes
    ordered = both.sort_values("f")
    np.testing.assert_allclose(_line(left, "mean").get_xdata(), ordered["f"])
    np.testing.assert_allclose(_line(left, "mean").get_ydata(), ordered["mean"])
    np.testing.assert_allclose(_line(left, "p5").get_ydata(), ordered["p5"])
    np.testing.assert_allclose(_line(left, "min").get_ydata(), ordered["min"])
    np.testing.assert_allclose(_line(right, "mean").get_ydata(), one.sort_values("f")["mean"])
    assert not [ln for ln in right.lines if ln.get_label() == "p5"]  # one-sided has no p5
    for ax in (left, right):
        assert list(_line(ax, f"unrelated-pair bound {BOUND:.3f}").get_ydata()) == [BOUND] * 2
        assert list(_line(ax, f"recommended {RECOMMENDED:.2f}").get_ydata()) == [RECOMMENDED] * 2
    marks = sorted(ln.get_xdata()[0] for ln in left.lines if ln.get_label() == "_crossing")
    expected = sorted(figures.crossings(both["f"], both["mean"], BOUND)
                      + figures.crossings(both["f"], both["p5"], BOUND))
    assert len(expected) == 2
    np.testing.assert_allclose(marks, expected)


def test_sensitivity_curves_without_recommendation() -> None:
    fig = figures.sensitivity_curves(_both(), _one(), BOUND, None)
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
    assert figures.crossings([0.0, 1.0], y, level) == pytest.approx(expected)


def test_crossings_sorts_x() -> None:
    # Tables list f from 0.9 down; the crossing must not depend on the row order.
    assert figures.crossings([0.9, 0.5], [0.6, 0.2], 0.4) == pytest.approx([0.7])


def test_threshold_sweep_lines_equal_the_sweep_columns() -> None:
    s = _sweep()
    fig = figures.threshold_sweep(s, RECOMMENDED, BAND)
    pairs_ax, items_ax = fig.axes
    for scorer, g in s.groupby("scorer"):
        np.testing.assert_allclose(_line(pairs_ax, scorer).get_xdata(), g["threshold"])
        np.testing.assert_array_equal(_line(pairs_ax, scorer).get_ydata(), g["pairs"])
        np.testing.assert_array_equal(_line(items_ax, scorer).get_ydata(), g["items_left"])
    for ax in (pairs_ax, items_ax):
        assert list(_line(ax, f"recommended {RECOMMENDED:.2f}").get_xdata()) == [RECOMMENDED] * 2
        spans = [p for p in ax.patches if p.get_label().startswith("band")]
        assert len(spans) == 1
        span = spans[0]  # a Rectangle in data x, axes-fraction y
        assert (span.get_x(), span.get_x() + span.get_width()) == pytest.approx(BAND)
    assert pairs_ax.get_yscale() == "symlog"


def test_threshold_sweep_without_band_says_so() -> None:
    fig = figures.threshold_sweep(_sweep(), None, None)
    ax = fig.axes[0]
    assert not [p for p in ax.patches if p.get_label().startswith("band")]
    assert any("no calibrated band" in t.get_text() for t in ax.texts)


def test_cross_host_scores_shows_every_pair() -> None:
    c = _cross_pairs()
    fig = figures.cross_host_scores(c, BOUND, window_days=3)
    hist_ax, scatter_ax = fig.axes
    steps = {p.get_label(): p.get_data() for p in hist_ax.patches if isinstance(p, StepPatch)}
    (all_label,) = [k for k in steps if k.startswith("all cross pairs")]
    (win_label,) = [k for k in steps if k.startswith("within the date window")]
    assert steps[all_label].values.sum() == len(c)
    assert steps[win_label].values.sum() == int(c["in_window"].sum())
    expected = np.histogram(c["score"], bins=steps[all_label].edges)[0]
    np.testing.assert_array_equal(steps[all_label].values, expected)
    _line(hist_ax, f"unrelated-pair bound {BOUND:.3f}")

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


def test_cross_host_scores_without_pairs_says_so() -> None:
    fig = figures.cross_host_scores(_cross_pairs().iloc[:0], BOUND)
    assert any("no cross-host pairs" in t.get_text() for t in fig.axes[0].texts)


# --- loading and writing --------------------------------------------------------


def test_load_results_reads_every_table(tmp_path: Path) -> None:
    write_tree(tmp_path)
    res = figures.load_results("toy", tmp_path)
    assert res.path == tmp_path / "toy"
    pd.testing.assert_frame_equal(res.both_sided, _both(), check_dtype=False)
    assert res.upper_bound == BOUND and res.recommended == RECOMMENDED
    assert res.band == BAND and res.calibration_n == 4
    assert res.lsh is None and res.quantiles is None


@pytest.mark.parametrize(
    ("rel", "attr", "target"),
    [("measure/histogram.csv", "histogram", "measure"),
     ("calibrate/sweep.csv", "sweep", "calibrate"),
     ("calibration.json", "upper_bound", "calibrate"),
     ("crosshost/cross_pairs.csv", "cross_pairs", "crosshost")],
)
def test_missing_file_names_the_file_and_the_target(tmp_path: Path, rel: str, attr: str,
                                                    target: str) -> None:
    base = write_tree(tmp_path)
    (base / rel).unlink()
    res = figures.load_results("toy", tmp_path)  # the other tables stay usable
    assert len(res.errors) == 8
    with pytest.raises(FileNotFoundError) as info:
        getattr(res, attr)
    message = str(info.value)
    assert str(base / rel) in message
    assert f"make {target}" in message and "NAME=toy" in message
    with pytest.raises(FileNotFoundError, match=rel):
        figures.write_figures("toy", tmp_path)


def test_only_measure_tables_are_enough_for_the_measure_plots(tmp_path: Path) -> None:
    base = write_tree(tmp_path)
    for rel in ("calibrate", "crosshost"):
        shutil.rmtree(base / rel)
    (base / "calibration.json").unlink()
    res = figures.load_results("toy", tmp_path)
    assert isinstance(figures.minhash_error(res.errors), Figure)


def test_nothing_written_names_the_first_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"toy/measure/histogram\.csv.*make reproduce"):
        figures.load_results("toy", tmp_path)


def test_unknown_table_is_a_key_error(tmp_path: Path) -> None:
    write_tree(tmp_path)
    with pytest.raises(KeyError, match="unknown table"):
        figures.load_results("toy", tmp_path).table("nope")


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_write_figures_writes_stable_png_and_svg(tmp_path: Path) -> None:
    write_tree(tmp_path)
    paths = figures.write_figures("toy", tmp_path)
    assert [p.name for p in paths] == list(figures.FIGURE_FILES.values())
    assert all(p.parent == tmp_path / "toy" / "figures" for p in paths)
    first = {p.name: p.read_bytes() for p in paths}
    assert all(b"Software" not in data for data in first.values())
    svgs = {p.name: p.with_suffix(".svg").read_bytes() for p in paths}
    # Fixed size and dpi: the pixel size is the figure size, whatever the text lengths.
    assert _png_size(paths[1]) == (750, 480)
    again = figures.write_figures("toy", tmp_path)
    assert {p.name: p.read_bytes() for p in again} == first
    assert {p.name: p.with_suffix(".svg").read_bytes() for p in again} == svgs


def test_cli_writes_and_prints_paths(tmp_path: Path, capsys) -> None:
    write_tree(tmp_path)
    assert figures.main(["toy", "--root", str(tmp_path)]) == 0
    printed = capsys.readouterr().out.split()
    assert printed == [str(tmp_path / "toy" / "figures" / f)
                       for f in figures.FIGURE_FILES.values()]


def test_cli_missing_results_exits_with_the_message(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as info:
        figures.main(["nothing", "--root", str(tmp_path)])
    assert info.value.code == 2
    assert "measure/histogram.csv" in capsys.readouterr().err


def test_cli_help(capsys) -> None:
    with pytest.raises(SystemExit) as info:
        figures.main(["--help"])
    assert info.value.code == 0
    assert figures.DEFAULT_NAME in capsys.readouterr().out

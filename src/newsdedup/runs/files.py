"""Tables and files: how results are printed and written under ``results/``.

Written files are deterministic: no timestamps, no wall times, fixed float
formatting, ``\\n`` line ends, keys in a fixed order. Wall times go only to
the console and to ``timings.json``, which git ignores. Rerunning a script
on the same corpus therefore rewrites byte-identical files, which is what
``tests/test_reproduce.py`` checks against the committed tables.
"""

from __future__ import annotations

import json
import math
import platform
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

FLOAT_FORMAT = "%.6f"


def _plain(value):
    """JSON-safe version of numpy scalars, paths, NaN (-> None) and containers."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Path):
        return str(value)
    return value


def write_json(obj: Mapping, path: Path) -> Path:
    """Write ``obj`` as indented UTF-8 JSON (NaN as null) and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(_plain(obj), ensure_ascii=False, indent=2, allow_nan=False)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def write_csv(df: pd.DataFrame, path: Path) -> Path:
    """Write a table as UTF-8 CSV with floats at 6 decimals and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(path, index=False, float_format=FLOAT_FORMAT, lineterminator="\n")
    return path


def _cell(value, floatfmt: str) -> str:
    if isinstance(value, float | np.floating):
        return "nan" if not math.isfinite(value) else format(value, floatfmt)
    text = str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(df: pd.DataFrame, floatfmt: str = ".3f", formats: Mapping[str, str] | None = None
                   ) -> str:
    """Render a DataFrame as a GitHub Markdown table.

    Args:
        df: The table.
        floatfmt: Default format spec for float cells.
        formats: Per-column format specs overriding ``floatfmt``.

    Examples:
        >>> print(markdown_table(pd.DataFrame({"n": [3], "err": [0.00594]}), ".4f"))
        | n | err |
        |---:|---:|
        | 3 | 0.0059 |
    """
    formats = dict(formats or {})
    cols = list(df.columns)
    align = ["---:" if pd.api.types.is_numeric_dtype(df[c]) else ":---" for c in cols]
    lines = ["| " + " | ".join(map(str, cols)) + " |", "|" + "|".join(align) + "|"]
    for row in df.itertuples(index=False):
        cells = [_cell(v, formats.get(c, floatfmt)) for c, v in zip(cols, row, strict=True)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_markdown(sections: Iterable[tuple[str, str]], path: Path, title: str) -> Path:
    """Write ``# title`` then one ``## heading`` + body per section."""
    path.parent.mkdir(parents=True, exist_ok=True)
    parts = [f"# {title}\n"]
    for heading, body in sections:
        parts.append(f"## {heading}\n\n{body}\n")
    path.write_text("\n".join(parts), encoding="utf-8")
    return path


def environment() -> dict:
    """Library versions that can change numbers (recorded in every params file)."""
    import datasketch
    import scipy

    import newsdedup

    return {
        "newsdedup": newsdedup.__version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "pandas": pd.__version__,
        "datasketch": datasketch.__version__,
    }


def _png_size(data: bytes) -> tuple[int, int] | None:
    if data[:8] != b"\x89PNG\r\n\x1a\n" or len(data) < 24:
        return None
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def _without_environment(obj):
    if isinstance(obj, dict):
        return {k: _without_environment(v) for k, v in obj.items() if k != "environment"}
    if isinstance(obj, list):
        return [_without_environment(v) for v in obj]
    return obj


def result_difference(committed: Path, fresh: Path) -> str | None:
    """How a freshly written result file differs from its committed copy, if at all.

    The rule the reproduction tests apply to every committed result: CSV,
    Markdown and other text byte for byte; JSON as data without its
    ``environment`` blocks (library versions may differ between machines);
    PNG by pixel size (font rasterization may differ, the layout may not).

    Args:
        committed: The committed file.
        fresh: The file a fresh run wrote.

    Returns:
        None when they agree, else a one-line reason naming the file.

    Examples:
        >>> import tempfile
        >>> d = Path(tempfile.mkdtemp())
        >>> _ = (d / "a.json").write_text('{"x": 1, "environment": {"numpy": "1"}}')
        >>> _ = (d / "b.json").write_text('{"x": 1, "environment": {"numpy": "2"}}')
        >>> result_difference(d / "a.json", d / "b.json") is None
        True
    """
    if not fresh.is_file():
        return f"a fresh run no longer writes {committed.name}"
    if committed.suffix == ".png":
        old, new = _png_size(committed.read_bytes()), _png_size(fresh.read_bytes())
        return None if old == new and old is not None else (
            f"{committed.name}: size {new} against the committed {old}")
    if committed.suffix == ".json":
        same = _without_environment(json.loads(fresh.read_text("utf-8"))) == \
            _without_environment(json.loads(committed.read_text("utf-8")))
        return None if same else f"{committed.name} differs from a fresh run (environment aside)"
    if fresh.read_bytes() != committed.read_bytes():
        return f"{committed.name} differs from a fresh run"
    return None


def fmt_nan(value: float, spec: str = ".3f") -> str:
    """Format a float, printing NaN as ``nan`` like Python does."""
    return "nan" if value is None or not math.isfinite(value) else format(value, spec)


# --- corpus -----------------------------------------------------------------


def corpus_meta(corpus, name: str) -> dict:
    """What identifies the input of a run: name, file, checksum, format, counts, rejects."""
    return {
        "name": name,
        "file": Path(corpus.path).name,
        "sha256": corpus.sha256,
        "format": corpus.fmt,
        "dialect": corpus.dialect,
        "records": corpus.n_records,
        "items": len(corpus.items),
        "rejected": [
            {"record": r.record, "line": r.line, "id": r.id, "reason": r.reason}
            for r in corpus.rejected
        ],
    }


# --- measure ----------------------------------------------------------------


def measure_console(report, corpus) -> str:
    """The measurement as printed by the ``measure`` script (the published layout)."""
    lines = [corpus.summary_line(), ""]
    for m in report.per_ngram:
        lines.append(
            f"n-gram={m.n}  mean shingles {m.mean_shingles:6.1f}  "
            f"signatures {m.sig_seconds:5.2f} s / exact Jaccard {m.exact_seconds:5.2f} s "
            f"({len(m.exact):,} pairs)  |estimate-exact| mean {m.err_mean:.4f} max {m.err_max:.4f}"
        )
        for row in m.thresholds.itertuples(index=False):
            lines.append(
                f"   threshold {row.threshold:.1f}: real {row.real:3d} / candidates "
                f"{row.candidates:3d} / matches {row.matches:3d} / recall {fmt_nan(row.recall)}"
            )
        lines.append("")
    cfg = report.config
    lines.append(f"top {cfg.top_k} exact Jaccard pairs (n-gram={cfg.top_ngram})")
    for row in report.top.itertuples(index=False):
        lines.append(f"  {row.score:.3f}  {row.title_i[:36]:<36} || {row.title_j[:36]}")
    return "\n".join(lines)


def measure_markdown(report, corpus) -> list[tuple[str, str]]:
    """Sections of ``measure.md``."""
    summary = report.summary()
    summary_md = markdown_table(
        summary[["n", "items", "pairs", "mean_shingles", "err_mean", "err_max", "exact_max"]],
        ".4f",
        {"mean_shingles": ".1f", "exact_max": ".3f"},
    )
    thr = report.thresholds()
    sections = [
        ("Corpus", corpus.summary_line()),
        (
            f"Exact Jaccard against MinHash ({report.config.minhash.family}, "
            f"{report.config.minhash.num_perm} permutations, seed {report.config.minhash.seed})",
            summary_md,
        ),
        ("Thresholds: real pairs, MinHash candidates, matches, recall", markdown_table(
            thr, ".3f", {"threshold": ".1f"})),
    ]
    lsh = report.lsh()
    if len(lsh):
        sections.append(("LSH banding at each threshold (bands x rows from datasketch)",
                         markdown_table(lsh, ".3f", {"threshold": ".1f"})))
    top = report.top[["rank", "score", "id_i", "title_i", "id_j", "title_j"]]
    sections.append((f"Top {report.config.top_k} exact pairs (n-gram={report.config.top_ngram})",
                     markdown_table(top, ".3f")))
    sections.append((
        "MinHash error against the number of permutations",
        markdown_table(report.errors.drop(columns=["scheme"]), ".4f"),
    ))
    return sections


def write_measure(report, corpus, name: str, out_dir: Path) -> list[Path]:
    """Write the measurement's CSV, Markdown and JSON files to ``out_dir``."""
    written = [
        write_csv(report.summary(), out_dir / "summary.csv"),
        write_csv(report.thresholds(), out_dir / "thresholds.csv"),
        write_csv(report.top, out_dir / "top_pairs.csv"),
        write_csv(report.errors, out_dir / "error_vs_perm.csv"),
        write_csv(report.histogram(), out_dir / "histogram.csv"),
        write_csv(report.ngram_sweep, out_dir / "ngram_sweep.csv"),
        write_csv(report.ngram_tracks, out_dir / "ngram_tracks.csv"),
    ]
    lsh = report.lsh()
    if len(lsh):
        written.append(write_csv(lsh, out_dir / "lsh.csv"))
    written.append(write_markdown(measure_markdown(report, corpus), out_dir / "measure.md",
                                  f"Measurement: {name}"))
    written.append(write_json(
        {"corpus": corpus_meta(corpus, name), "config": report.config.as_dict(),
         "environment": environment()},
        out_dir / "params.json",
    ))
    write_json(
        {m.n: {"signature_seconds": m.sig_seconds, "exact_seconds": m.exact_seconds}
         for m in report.per_ngram},
        out_dir / "timings.json",
    )
    return written


# --- calibrate ----------------------------------------------------------------


def sensitivity_console(sens, bound: float) -> str:
    """The two sensitivity tables and the bound, in the published layout."""
    p = sens.params
    lines = [
        "Simulation of one announcement written up twice",
        f"Jaccard of two texts that each keep every word with probability f "
        f"(n-gram={p.n}, {sens.n_items_used} items x {p.trials} trials; "
        f"{sens.n_items_skipped} items with < {p.min_words} words skipped)",
        f"{'f':>5} {'mean':>7} {'std':>8} {'p5':>8} {'min':>7}",
    ]
    for r in sens.both_table().itertuples(index=False):
        lines.append(f"{r.f:5.1f} {r.mean:7.3f} {r.std:8.3f} {r.p5:8.3f} {r.min:7.3f}")
    lines += ["", "One side reduced (original vs a text keeping each word with probability f)",
              f"{'f':>5} {'mean':>7} {'std':>8} {'min':>7}"]
    for r in sens.one_table().itertuples(index=False):
        lines.append(f"{r.f:5.1f} {r.mean:7.3f} {r.std:8.3f} {r.min:7.3f}")
    lines += ["", f"unrelated-pair upper bound (max exact Jaccard over all pairs) = {bound:.3f}"]
    return "\n".join(lines)


def calibration_console(cal) -> str:
    band = f"({cal.band[0]:.3f}, {cal.band[1]:.3f}]" if cal.band else "none"
    rec = f"{cal.recommended:.2f}" if cal.recommended is not None else "none"
    return "\n".join(["", f"threshold band {band}; recommended {rec}", cal.rationale])


# --- cross-host --------------------------------------------------------------


def crosshost_console(rep) -> str:
    """The cross-host analysis as printed by the ``crosshost`` script."""
    hosts = dict(zip(rep.hosts["host"], rep.hosts["count"].tolist(), strict=True))
    sources = dict(zip(rep.sources["source"], rep.sources["count"].tolist(), strict=True))
    focus = " x ".join(rep.focus_hosts)
    lines = [
        f"{rep.n_items} items / {rep.n_unique_ids} unique ids / "
        f"{rep.n_id_duplicates} id duplicates",
        f"URL hosts : {hosts}",
        f"sources   : {sources}",
        "",
        f"{focus} cross pairs {rep.n_cross:,}",
        f"cross-pair Jaccard max {rep.max_score:.3f} / above the unrelated-pair upper bound "
        f"{rep.upper_bound:.3f}: {rep.n_above_bound} pairs",
        f"within ±{rep.window_days} days of each other: {rep.n_in_window} pairs",
        "",
    ]
    for row in rep.pairs.head(3).itertuples(index=False):
        lines.append(f"--- Jaccard {row.score:.3f}")
        for side in ("i", "j"):
            get = row._asdict()
            lines.append(f"  [{get['published_at_' + side]}] {get['host_' + side]}"
                         f"  id={get['id_' + side]}")
            lines.append(f"    {get['title_' + side]}")
            lines.append(f"    {get['summary_' + side][:150]}")
    return "\n".join(lines)


def write_crosshost(rep, corpus, name: str, out_dir: Path, params: Mapping) -> list[Path]:
    """Write the cross-host tables, Markdown and JSON to ``out_dir``."""
    top = rep.pairs.head(20)[["rank", "score", "days_apart", "published_at_i", "host_i", "id_i",
                              "title_i", "published_at_j", "host_j", "id_j", "title_j"]]
    window = rep.pairs[rep.pairs["in_window"]].head(20)[
        ["rank", "score", "days_apart", "id_i", "host_i", "id_j", "host_j"]]
    sections = [
        ("Corpus", corpus.summary_line()),
        ("Hosts (from the URL)", markdown_table(rep.hosts)),
        ("Sources (the brand field)", markdown_table(rep.sources)),
        ("Source by host", markdown_table(rep.source_by_host)),
        ("Cross pairs", markdown_table(pd.DataFrame([rep.summary()]).drop(columns=["focus_hosts"]),
                                       ".3f")),
        ("Top cross pairs", markdown_table(top, ".3f", {"days_apart": ".0f"})),
        (f"Cross pairs within ±{rep.window_days} days", markdown_table(window, ".3f",
                                                                       {"days_apart": ".0f"})),
    ]
    return [
        write_csv(rep.hosts, out_dir / "hosts.csv"),
        write_csv(rep.sources, out_dir / "sources.csv"),
        write_csv(rep.source_by_host, out_dir / "source_by_host.csv"),
        write_csv(rep.pairs.drop(columns=["summary_i", "summary_j"]), out_dir / "cross_pairs.csv"),
        write_markdown(sections, out_dir / "crosshost.md", f"Cross-host analysis: {name}"),
        write_json({"corpus": corpus_meta(corpus, name), "params": dict(params),
                    "summary": rep.summary(), "environment": environment()},
                   out_dir / "crosshost.json"),
    ]

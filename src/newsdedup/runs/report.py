"""``newsdedup report RUN_DIR``: one page of what a run found, and what ``run`` adds to it.

:func:`run_report` reads a run folder and writes ``<run>/report/``:
``report.html`` (self-contained: figures inline as PNG, the Korean font
embedded as a subset, no network), ``report.md`` (the same text, figures as
``figures/*.png`` beside it) and those PNGs. The sections are built by
:mod:`newsdedup.plots.report_sections` from the files the run holds; what it
lacks is said in words, never an error.

``newsdedup run`` writes the report at its end (:func:`write_report` with the
corpus), and with the corpus in hand it first writes the two tables only it
can: ``report/corpus.json`` (the corpus at a glance: items, rejects, sources,
hosts, dates, items per day) and, when the dedupe ran,
``report/near_pairs.csv`` (pairs the calibrated dedupe compares, sampled in
score bins just below, at and just above the threshold). A report written
later from the folder alone reads them back.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd

from newsdedup.corpus.hosts import parse_dates
from newsdedup.runs.commit import commits
from newsdedup.runs.files import Progress, quiet, write_bytes, write_csv, write_json, write_text

REPORT_DIR = "report"
"""Folder of the report inside a run folder."""

CORPUS_FILE = f"{REPORT_DIR}/corpus.json"
"""The corpus at a glance, written by ``run`` (the report reads it back)."""

NEAR_FILE = f"{REPORT_DIR}/near_pairs.csv"
"""Pairs sampled around the threshold, written by ``run`` when the dedupe ran."""

BIN_WIDTH = 0.05
"""Width of the score bins around the threshold (five steps of the calibration's grid)."""

PER_BIN = 6
"""Pairs sampled per bin (seeded): enough to read, few enough to read all."""

TOP_SOURCES = 6
"""Sources drawn apart in the items-per-day figure; the others are summed as "other"."""

MAX_DAYS = 400
"""Most days of the per-day counts: a longer span is counted per week instead."""


def _counts(values: pd.Series, top: int = 10) -> dict:
    text = values.fillna("").astype(str).str.strip()
    counts = text[text != ""].value_counts(sort=False)
    # Most items first, ties by name: the same order on every machine.
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return {"distinct": len(ordered), "empty": int((text == "").sum()),
            "top": [[k, int(v)] for k, v in ordered[:top]]}


def _per_period(dates: pd.Series, sources: pd.Series) -> dict:
    """Items per UTC day (per week beyond :data:`MAX_DAYS` days) for the top sources."""
    dated = dates.notna()
    if not dated.any():
        return {}
    day = dates[dated].dt.floor("D")
    unit = "day" if (day.max() - day.min()).days < MAX_DAYS else "week"
    if unit == "week":
        day = day - pd.to_timedelta(day.dt.weekday, unit="D")
    keys = pd.date_range(day.min(), day.max(), freq="D" if unit == "day" else "7D")
    src = sources[dated].fillna("").astype(str).str.strip().replace("", "(no source)")
    ranked = sorted(src.value_counts().items(), key=lambda kv: (-kv[1], kv[0]))
    top = [k for k, _ in ranked[:TOP_SOURCES]]
    src = src.where(src.isin(top), "other")
    table = pd.crosstab(day, src).reindex(keys, fill_value=0)
    order = [s for s in [*top, "other"] if s in table.columns]
    return {"unit": unit, "dates": [d.strftime("%Y-%m-%d") for d in keys],
            "counts": {s: table[s].astype(int).tolist() for s in order}}


def corpus_summary(corpus) -> dict:
    """The corpus at a glance, for ``report/corpus.json``.

    Args:
        corpus: A :class:`~newsdedup.corpus.load.LoadResult`.

    Returns:
        File, checksum, records, items, rejects (count and the first ten with
        their reasons), sources and hosts (distinct, empty, the ten largest),
        dates (dated, first, last, span in days) and items per day (or week)
        for the largest sources.
    """
    items = corpus.items
    dates = parse_dates(items)
    dated = dates.dropna()
    rejected = [{"record": r.record, "line": r.line, "id": r.id, "reason": r.reason}
                for r in corpus.rejected[:10]]
    hangul = items["title"].astype(str).str.contains("[\uac00-\ud7a3]", regex=True)
    return {
        "file": Path(corpus.path).name, "sha256": corpus.sha256, "format": corpus.fmt,
        "records": int(corpus.n_records), "items": len(items),
        "rejected": len(corpus.rejected), "rejected_first": rejected,
        "titles_in_hangul": round(float(hangul.mean()) if len(items) else 0.0, 4),
        "sources": _counts(items["source"]), "hosts": _counts(items["host"]),
        "dates": {"dated": len(dated), "undated": len(items) - len(dated),
                  "first": dated.min().isoformat() if len(dated) else None,
                  "last": dated.max().isoformat() if len(dated) else None,
                  "span_days": round((dated.max() - dated.min()) / pd.Timedelta(days=1), 3)
                  if len(dated) else None},
        "per_period": _per_period(dates, items["source"]),
    }


def near_threshold_pairs(items: pd.DataFrame, config, width: float = BIN_WIDTH,
                         per_bin: int = PER_BIN, seed: int = 0) -> pd.DataFrame:
    """Pairs the calibrated dedupe compares, sampled in bins just below, at and above ``t``.

    Bins: ``below`` ``[t - w, t)`` (what a lower threshold would add), ``at``
    ``[t, t + w)`` (the least certain merges) and ``above`` ``[t + w, t + 2w)``.
    The pairs are those the dedupe scores (survivors of the exact pass in one
    gate bucket, scored as the dedupe scores them), so "at" and "above" pairs
    are the ones its clustering merged or weighed.

    Args:
        items: The corpus.
        config: The calibrated :class:`~newsdedup.cluster.dedupe.DedupeConfig`.
        width: The bin width ``w``.
        per_bin: Pairs sampled per bin (all when fewer).
        seed: Sampling seed.

    Returns:
        Columns bin, score, id_i, id_j, title_i, title_j (row positions ``i < j``), by bin
        then score, best first.
    """
    from newsdedup.cluster.dedupe import near_pairs, prepare

    t = float(config.threshold)
    prep = prepare(items, config)
    a, b, score = near_pairs(prep, max(0.0, t - width))
    rows_a = prep.survivors[np.asarray(a, dtype=np.int64)]
    rows_b = prep.survivors[np.asarray(b, dtype=np.int64)]
    score = np.asarray(score, dtype=np.float64)
    rng = np.random.default_rng(seed)
    parts = []
    for name, lo, hi in (("below", t - width, t), ("at", t, t + width),
                         ("above", t + width, t + 2 * width)):
        # The same 1e-9 slack as the dedupe's own "score >= threshold".
        found = np.flatnonzero((score >= lo - 1e-9) & (score < hi - 1e-9))
        pick = np.sort(rng.choice(found, size=min(per_bin, len(found)), replace=False))
        i, j = np.minimum(rows_a[pick], rows_b[pick]), np.maximum(rows_a[pick], rows_b[pick])
        part = pd.DataFrame({"bin": name, "score": score[pick],
                             "id_i": items["id"].to_numpy()[i], "id_j": items["id"].to_numpy()[j],
                             "title_i": items["title"].to_numpy()[i],
                             "title_j": items["title"].to_numpy()[j]})
        parts.append(part.sort_values(["score", "id_i", "id_j"], ascending=[False, True, True],
                                      kind="stable"))
    return pd.concat(parts, ignore_index=True)


def png_bytes(fig) -> bytes:
    """A figure as PNG bytes, without the software stamp (identical bytes on a rerun)."""
    from newsdedup.plots.style import DPI

    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=DPI, format="png", metadata={"Software": None})
    return buffer.getvalue()


@commits("report")
def write_report(corpus, name: str, out: Path, source: Path | None = None,
                 progress: Progress = quiet) -> Path:
    """Write ``<out>/<name>/report/`` from the run folder ``source``.

    Args:
        corpus: The run's corpus (then ``corpus.json`` and ``near_pairs.csv`` are
            written first), or None (the report reads what the folder holds).
        name: The run's name.
        out: The results root the report is written under.
        source: The run folder read; default ``<out>/<name>`` (inside ``run``, the
            staged tree).
        progress: Progress callback.

    Returns:
        The HTML page's path.
    """
    from newsdedup.plots.fonts import korean_text
    from newsdedup.plots.report_page import html_page, markdown_page
    from newsdedup.plots.report_sections import build_report

    target = out / name / REPORT_DIR
    source = Path(source) if source is not None else out / name
    if corpus is not None:  # inside `run`: ``source`` is the staged tree these go to
        write_json(corpus_summary(corpus), target / "corpus.json")
        near = _near_pairs(corpus, source, progress)
        if near is not None:
            write_csv(near, target / "near_pairs.csv")
    with korean_text():
        report = build_report(source)
        images = {p.key: png_bytes(p.figure) for p in report.plots()}
    for key, data in images.items():
        write_bytes(data, target / "figures" / f"{key}.png")
    write_text(markdown_page(report), target / "report.md")
    page = write_text(html_page(report, images), target / "report.html")
    progress(f"report: wrote {page} ({page.stat().st_size / 1e6:.2f} MB) and report.md")
    return page


def _near_pairs(corpus, run: Path, progress: Progress) -> pd.DataFrame | None:
    """The near-threshold sample when the run's dedupe ran with a calibrated threshold."""
    from newsdedup.cluster.dedupe import DedupeConfig

    calibration = run / "calibration.json"
    if not (run / "dedupe" / "dedupe.json").is_file() or not calibration.is_file():
        return None
    try:
        config = DedupeConfig.from_calibration(calibration)
    except ValueError:  # the calibration recommends no threshold: nothing was merged
        return None
    progress(f"report: sampling pairs around the threshold {config.threshold:g}")
    return near_threshold_pairs(corpus.items, config)


def run_report(run_dir: Path, progress: Progress = quiet) -> Path:
    """``newsdedup report RUN_DIR``: the report of a run folder, from its files alone.

    Args:
        run_dir: The run folder (``<out>/<name>/``).
        progress: Progress callback.

    Returns:
        The HTML page's path.

    Raises:
        FileNotFoundError: ``run_dir`` is not a folder.
    """
    folder = Path(run_dir).resolve()
    if not folder.is_dir():
        raise FileNotFoundError(f"{run_dir} is not a run folder (newsdedup run FILE --name NAME "
                                "writes one under results/)")
    return write_report(None, folder.name, folder.parent, source=folder, progress=progress)

"""``newsdedup measure``: exact all-pairs Jaccard against MinHash (published block 1).

:func:`run_measure_step` computes (:func:`newsdedup.studies.measure.run_measure`),
prints the published layout and writes ``<out>/<name>/measure/``: ``summary.csv``,
``thresholds.csv``, ``top_pairs.csv``, ``error_vs_perm.csv``, ``histogram.csv``,
``ngram_sweep.csv``, ``ngram_tracks.csv``, ``lsh.csv``, ``measure.md``,
``params.json`` and the git-ignored ``timings.json``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from newsdedup.runs.commit import commits
from newsdedup.runs.console import measure_console
from newsdedup.runs.files import (
    Progress,
    corpus_meta,
    markdown_table,
    quiet,
    write_csv,
    write_json,
    write_markdown,
    write_params,
)
from newsdedup.runs.load import require_pairs
from newsdedup.runs.progress import counter, tracker
from newsdedup.studies.cost import measure_plan
from newsdedup.studies.measure import (
    MeasureConfig,
    MeasureReport,
    normalized_texts,
    run_measure,
)
from newsdedup.studies.measure_sampled import run_sampled
from newsdedup.studies.measure_streamed import run_streamed


@commits("measure")
def run_measure_step(corpus, name: str, out: Path, config: MeasureConfig | None = None,
                     progress: Progress = quiet, echo: bool = True) -> MeasureReport:
    """Measure a corpus, print the published-layout tables, write ``<out>/<name>/measure/``.

    Args:
        corpus: A :class:`~newsdedup.corpus.load.LoadResult`.
        name: Results folder name.
        out: Results root.
        config: Measurement settings; the published ones by default. A corpus
            above ``config.dense_max_items`` is streamed
            (:func:`newsdedup.studies.measure_streamed.run_streamed`) while the
            streamed pass is estimated to fit ``config.pair_budget``, else
            measured from the exact join, LSH and pair samples
            (:func:`newsdedup.studies.measure_sampled.run_sampled`).
        progress: Progress callback.
        echo: Print the tables.

    Returns:
        The :class:`~newsdedup.studies.measure.MeasureReport`.
    """
    require_pairs(corpus, "measure")
    config = config or MeasureConfig()
    plan = measure_plan(len(corpus.items), config)
    path = plan.path
    n = len(corpus.items)
    if path == "dense":
        report = run_measure(corpus.items, config, progress)
    else:
        progress(f"measure: {n * (n - 1) // 2:,} pairs x {len(config.ngrams)} n-gram sizes, "
                 f"every pair estimated at {plan.exact_seconds:,.0f} s, join, LSH and samples "
                 f"at {plan.sampled_seconds:,.0f} s (budget {config.pair_budget:g} s):"
                 f" {'streaming every pair' if path == 'streamed' else 'join, LSH and samples'}")
        texts = normalized_texts(corpus.items, config.scheme)
        if path == "streamed":
            # Too many pairs to hold every score: stream them (same figures; no sweep, no LSH).
            report = run_streamed(corpus.items, texts, config, progress,
                                  count=lambda label: counter(progress, label, " pairs"))
        else:
            report = run_sampled(corpus.items, texts, config, progress, tracker(progress))
    if report.scale:  # not every figure exact: say how the path was chosen
        report = replace(report, scale=report.scale | {"plan": plan.record()})
    if echo:
        print(measure_console(report, corpus), flush=True)
    files = write_measure(report, corpus, name, out / name / "measure")
    progress(f"measure: wrote {len(files)} files to {out / name / 'measure'}")
    return report


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
    if len(report.errors):
        sections.append((
            "MinHash error against the number of permutations",
            markdown_table(report.errors.drop(columns=["scheme"]), ".4f"),
        ))
    if report.scale:
        sections.append(("How the figures were obtained", plan_text(report.scale)))
    return sections


def plan_text(scale: dict) -> str:
    """The cost model's choices (``params.json``: ``scale``) as a paragraph of ``measure.md``.

    Examples:
        >>> plan_text({"path": "sampled", "plan": {"estimated_seconds_exact": 120.0,
        ...            "estimated_seconds_sampled": 9.5}})
        'Path: sampled (every pair estimated at 120.0 s, join + LSH + pair samples at 9.5 s).'
    """
    plan = scale.get("plan") or {}
    text = f"Path: {scale.get('path', 'dense')}"
    if plan:
        text += (f" (every pair estimated at {plan['estimated_seconds_exact']:.1f} s, join + LSH"
                 f" + pair samples at {plan['estimated_seconds_sampled']:.1f} s)")
    text += "."
    err = scale.get("error_study")
    if err and err["choice"] != "exact":
        text += (f" Error study: {err['pairs']:,} of {err['of_pairs']:,} pairs, sampled (all "
                 f"pairs estimated at {err['estimated_seconds_all_pairs']:.1f} s, over its "
                 f"{err['budget_seconds']:g} s budget); err_mean_lo and err_mean_hi give the "
                 "interval.")
    return text


def write_measure(report, corpus, name: str, out_dir: Path) -> list[Path]:
    """Write the measurement's CSV, Markdown and JSON files to ``out_dir``."""
    written = [
        write_csv(report.summary(), out_dir / "summary.csv"),
        write_csv(report.thresholds(), out_dir / "thresholds.csv"),
        write_csv(report.top, out_dir / "top_pairs.csv"),
    ]
    if report.config.extra or report.scale:  # beyond published block 1 (see MeasureConfig.extra)
        written += [
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
    params = {"corpus": corpus_meta(corpus, name), "config": report.config.as_dict()}
    if report.scale:  # streamed or sampled: how every all-pairs figure was obtained
        params["scale"] = report.scale
    written.append(write_params(params, out_dir / "params.json"))
    write_json(
        {m.n: {"signature_seconds": m.sig_seconds, "exact_seconds": m.exact_seconds}
         for m in report.per_ngram},
        out_dir / "timings.json",
    )
    return written

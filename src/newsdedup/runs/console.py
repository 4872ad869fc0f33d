"""What the commands print: the published console layout of each run.

Only text for the terminal; the files are written by :mod:`newsdedup.runs.files`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd


def fmt_nan(value: float, spec: str = ".3f") -> str:
    """Format a float, printing NaN as ``nan`` like Python does."""
    return "nan" if value is None or not math.isfinite(value) else format(value, spec)


def _count(value) -> str:
    """A pair count in 3 columns; ``-`` where it was not computed (NaN: LSH over its limit)."""
    return f"{int(value):3d}" if value == value else "  -"


def measure_console(report, corpus) -> str:
    """The measurement as printed by the ``measure`` script (the published layout)."""
    lines = [corpus.summary_line(), ""]
    for m in report.per_ngram:
        lines.append(
            f"n-gram={m.n}  mean shingles {m.mean_shingles:6.1f}  "
            f"signatures {m.sig_seconds:5.2f} s / exact Jaccard {m.exact_seconds:5.2f} s "
            f"({m.summary_row()['pairs']:,} pairs)  "
            f"|estimate-exact| mean {m.err_mean:.4f} max {m.err_max:.4f}"
        )
        for row in m.thresholds.itertuples(index=False):
            lines.append(
                f"   threshold {row.threshold:.1f}: real {_count(row.real)} / candidates "
                f"{_count(row.candidates)} / matches {_count(row.matches)} / recall "
                f"{fmt_nan(row.recall)}"
            )
        lines.append("")
    cfg = report.config
    lines.append(f"top {cfg.top_k} exact Jaccard pairs (n-gram={cfg.top_ngram})")
    for row in report.top.itertuples(index=False):
        lines.append(f"  {row.score:.3f}  {row.title_i[:36]:<36} || {row.title_j[:36]}")
    return "\n".join(lines)


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
    """The calibrated band, the recommended threshold and the rationale, as printed."""
    band = f"({cal.band[0]:.3f}, {cal.band[1]:.3f}]" if cal.band else "none"
    rec = f"{cal.recommended:.2f}" if cal.recommended is not None else "none"
    return "\n".join(["", f"threshold band {band}; recommended {rec}", cal.rationale])


CONSOLE_COUNTS = 20
"""Most hosts or sources the console names; the CSV lists every one."""


def _counts(names, counts, listed: str) -> str:
    """``{name: count}`` as the published script printed it, the first :data:`CONSOLE_COUNTS`.

    An aggregator names thousands of publishers: one line of tens of kilobytes buried
    the lines after it.

    Examples:
        >>> _counts(["a", "b"], [3, 1], "hosts.csv")
        "{'a': 3, 'b': 1}"
        >>> _counts([f"h{k}" for k in range(22)], [1] * 22, "hosts.csv")[-34:]
        "'h19': 1, ... 2 more in hosts.csv}"
    """
    pairs = dict(zip(names, [int(c) for c in counts], strict=True))
    if len(pairs) <= CONSOLE_COUNTS:
        return str(pairs)
    shown = str(dict(list(pairs.items())[:CONSOLE_COUNTS]))[:-1]
    return f"{shown}, ... {len(pairs) - CONSOLE_COUNTS:,} more in {listed}}}"


def crosshost_console(rep) -> str:
    """The cross-host analysis as printed by the ``crosshost`` script."""
    hosts = _counts(rep.hosts["host"], rep.hosts["count"], "hosts.csv")
    sources = _counts(rep.sources["source"], rep.sources["count"], "sources.csv")
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
    if rep.listing is not None:  # only the pairs at or above a floor were listed
        s = rep.summary()
        lines[4:7] = [
            f"{focus} cross pairs {s['cross_pairs']:,} (listed: {s['listed_pairs']:,} with "
            f"Jaccard >= {s['list_floor']:g}"
            + (f"; >= {s['list_floor_requested']:g} would be about "
               f"{s['estimated_pairs_at_requested_floor']:,}, over the budget of "
               f"{s['list_budget']:,}" if "list_floor_requested" in s else "") + ")",
            f"listed cross-pair Jaccard max {rep.max_score:.3f} / above the unrelated-pair upper "
            f"bound {rep.upper_bound:.3f}: {rep.n_above_bound} pairs",
            f"within ±{rep.window_days} days of each other: {s['in_window']:,} pairs "
            f"({s['listed_in_window']:,} listed)"]
    for row in rep.pairs.head(3).itertuples(index=False):
        lines.append(f"--- Jaccard {row.score:.3f}")
        for side in ("i", "j"):
            get = row._asdict()
            lines.append(f"  [{get['published_at_' + side]}] {get['host_' + side]}"
                         f"  id={get['id_' + side]}")
            lines.append(f"    {get['title_' + side]}")
            lines.append(f"    {get['summary_' + side][:150]}")
    return "\n".join(lines)


def sweep_console(table: pd.DataFrame) -> str:
    """Items left per threshold, one column per scorer and gate setting."""
    wide = table.assign(column=table["scorer"] + np.where(table["gate"], "+gate", ""))
    wide = wide.pivot(index="threshold", columns="column", values="items_left")
    return "items left per threshold\n" + wide.to_string()

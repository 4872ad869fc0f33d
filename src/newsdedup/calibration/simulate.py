"""A corpus whose truth is known, and the labeling loop run on it: do the intervals hold?

The calibration promises "at this threshold, this share of the merges are
right, within this interval". :func:`coverage_study` checks the promise
where the truth is known: on a **planted corpus** (:func:`planted_corpus`:
real headlines as events, planted rewrites and copies of them within hours,
planted recurring series and templates across days, planted look-alikes of
an event on other days) it runs the labeling loop with the truth answering
every sheet (:func:`run_loop`, at most ``budget`` labels), takes the
threshold the calibration recommends and its stated intervals, and compares
them with the precision and recall of that dedupe over the candidate pairs,
computed from the truth (:func:`true_scores`). Over many seeds, a 95%
interval should cover the truth in about 95% of them.

The same loop answers sheets from a corpus's story column
(:func:`answer_sheet` with the column's values), which is how the
calibration is checked on the UCI head's story ids.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from newsdedup.calibration.evidence import (
    Evidence,
    EvidenceConfig,
    calibration_evidence,
    candidate_grid,
)
from newsdedup.calibration.sweep_pairs import scorer_pairs
from newsdedup.cluster.dedupe import DedupeConfig
from newsdedup.text.normalize import DEFAULT_SCHEME

__all__ = ["PlantedCorpus", "planted_corpus", "answer_sheet", "calibrate_items", "run_loop",
           "holdout_run", "true_scores", "coverage_study"]

DAY = 86400.0


@dataclass(frozen=True)
class PlantedCorpus:
    """A corpus with its truth.

    Attributes:
        items: ``id``, ``title``, ``summary`` (empty), ``source``, ``published_at`` (ISO).
        event: Event id per row (equal ids: the same event).
        kind: What made each row: ``"event"``, ``"rewrite"``, ``"copy"``,
            ``"series"``, ``"template"`` or ``"lookalike"``.
    """

    items: pd.DataFrame
    event: np.ndarray
    kind: np.ndarray


def _rewrite(words: list[str], keep: float, rng: np.random.Generator) -> str:
    kept = [w for w in words if rng.random() < keep]
    return " ".join(kept if len(kept) >= 2 else words[:2])


def planted_corpus(pool: Sequence[str], seed: int, events: int = 600, days: int = 14,
                   sources: Sequence[str] = ("a", "b", "c")) -> PlantedCorpus:
    """Real headlines as events, with planted duplicates and planted look-alikes.

    * every event is one pool headline, from a random source at a random time;
    * a third of them get one to three **rewrites** (each word kept with
      probability 0.55-0.95) from any source (its own too) within 12 hours, and one in
      twenty an exact **copy** (same source and time, another id): the same event;
    * eight **series**: one headline whose word at one position changes every
      day, from one source, over five to ten days; three **templates**: the
      last words of a headline after a changing first word, many days: each
      item its own event;
    * forty **look-alikes**: an event's first word and half its other words,
      one to five days away: another event.

    Args:
        pool: Real headlines (at least ``events + 100``).
        seed: Of the one generator everything is drawn from.
        events: Pool headlines used as events.
        days: Days the corpus spans.
        sources: Source names.

    Returns:
        The :class:`PlantedCorpus`.
    """
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(pool))
    heads = [pool[k] for k in order[:events]]
    spare = [pool[k] for k in order[events:events + 100]]
    words = [w for h in pool for w in h.split()]
    rows: list[tuple[str, str, float, int, str]] = []  # title, source, time, event, kind
    for e, title in enumerate(heads):
        t = rng.uniform(0, days) * DAY
        src = sources[int(rng.integers(len(sources)))]
        rows.append((title, src, t, e, "event"))
        if rng.random() < 1 / 3:
            for _ in range(int(rng.integers(1, 4))):
                other = sources[int(rng.integers(len(sources)))]
                rows.append((_rewrite(title.split(), rng.uniform(0.55, 0.95), rng), other,
                             t + rng.uniform(0, 0.5) * DAY, e, "rewrite"))
        if rng.random() < 0.05:
            rows.append((title, src, t, e, "copy"))
    event = len(heads)
    for s in range(8):
        base = spare[s].split()
        if len(base) < 3:
            continue
        pos, src, start = int(rng.integers(len(base))), sources[s % len(sources)], rng.uniform(0, 3)
        for d in range(int(rng.integers(5, 11))):
            filled = list(base)
            filled[pos] = words[int(rng.integers(len(words)))]
            rows.append((" ".join(filled), src, (start + d) * DAY, event, "series"))
            event += 1
    for s in range(3):
        tail = spare[10 + s].split()[-4:]
        src = sources[s % len(sources)]
        for _ in range(int(rng.integers(15, 30))):
            head = words[int(rng.integers(len(words)))]
            rows.append((" ".join([head + ",", *tail]), src, rng.uniform(0, days) * DAY, event,
                         "template"))
            event += 1
    for _ in range(40):
        e = int(rng.integers(len(heads)))
        base = heads[e].split()
        if len(base) < 3:
            continue
        mix = [base[0]] + [w if rng.random() < 0.5 else words[int(rng.integers(len(words)))]
                           for w in base[1:]]
        t = rows[next(k for k, r in enumerate(rows) if r[3] == e)][2]
        rows.append((" ".join(mix), sources[int(rng.integers(len(sources)))],
                     t + rng.choice([-1, 1]) * rng.uniform(1, 5) * DAY, event, "lookalike"))
        event += 1
    frame = pd.DataFrame(rows, columns=["title", "source", "time", "event", "kind"])
    stamps = pd.to_datetime(frame["time"], unit="s", origin=pd.Timestamp("2024-01-01"))
    items = pd.DataFrame({"id": [f"p{k}" for k in range(len(frame))], "title": frame["title"],
                          "summary": "", "source": frame["source"],
                          "published_at": stamps.dt.strftime("%Y-%m-%dT%H:%M:%SZ")})
    return PlantedCorpus(items, frame["event"].to_numpy(np.int64),
                         frame["kind"].to_numpy(dtype=object))


def answer_sheet(rows: pd.DataFrame, truth: Mapping[str, object], limit: int | None = None
                 ) -> pd.DataFrame:
    """The sheet with its empty labels answered from the truth (equal values: ``same``).

    Args:
        rows: A labeling sheet's rows.
        truth: Item id -> event (or story) id.
        limit: Answer at most this many (the loop's label budget); None: all.

    Returns:
        The rows with ``label`` filled where it was empty (up to ``limit``).

    Examples:
        >>> rows = pd.DataFrame({"id_i": ["a", "a"], "id_j": ["b", "c"], "label": ["", ""]})
        >>> answer_sheet(rows, {"a": 1, "b": 1, "c": 2})["label"].tolist()
        ['same', 'different']
    """
    out = rows.copy()
    empty = np.flatnonzero(out["label"].fillna("").to_numpy() == "")
    if limit is not None:
        empty = empty[:max(limit, 0)]
    same = [truth[a] == truth[b] for a, b in zip(out["id_i"].iloc[empty], out["id_j"].iloc[empty],
                                                  strict=True)]
    out.iloc[empty, out.columns.get_loc("label")] = np.where(same, "same", "different")
    return out


def calibrate_items(items: pd.DataFrame, options: EvidenceConfig, sheet_path: Path,
                    n: int = 4, scheme: str = DEFAULT_SCHEME, lo: float = 0.05,
                    hi: float = 0.60, per_item: int = 50) -> Evidence:
    """The calibration's evidence without its published studies (no simulation, no files).

    Args:
        items: The corpus.
        options: Evidence options (labels, target, seed).
        sheet_path: Where the next sheet would be written (named in the next step).
        n: n-gram size of the calibrated score.
        scheme: Normalization scheme.
        lo: Lowest threshold of the grid.
        hi: Highest threshold of the grid.
        per_item: Pairs per item the grid's floor allows.

    Returns:
        The :class:`~newsdedup.calibration.evidence.Evidence`.
    """
    c = candidate_grid(items, n, scheme, lo, hi, options.seed, per_item)
    pairs = scorer_pairs(c.shingled, "jaccard", float(c.grid[0]))
    base = DedupeConfig(n=n, scorer="jaccard", text="title+summary", scheme=scheme)
    return calibration_evidence(items, options, base, c.grid.tolist(), pairs, c.shingled, None,
                                None, sheet_path)


def run_loop(items: pd.DataFrame, truth: Mapping[str, object], options: EvidenceConfig,
             budget: int = 200, workdir: Path | None = None,
             calibrate: Callable[..., Evidence] = calibrate_items) -> Evidence:
    """The labeling loop with the truth answering: calibrate, label the batch, again.

    Args:
        items: The corpus.
        truth: Item id -> event id.
        options: Evidence options (``labels`` is set by the loop).
        budget: Labels at most.
        workdir: Where the sheets are written (a temporary folder when None).
        calibrate: The calibration to run (:func:`calibrate_items`).

    Returns:
        The last calibration's evidence, read from every label given.
    """
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(workdir) if workdir is not None else Path(tmp)
        sheet = folder / "sheet.csv"
        labels = None
        used = 0
        while True:
            evidence = calibrate(items, replace(options, labels=labels), sheet)
            if used >= budget or not len(evidence.sheet):
                return evidence
            rows = answer_sheet(evidence.sheet, truth, budget - used)
            used += int((rows["label"] != "").sum() - (evidence.sheet["label"] != "").sum())
            answered = rows[rows["label"] != ""]
            answered.to_csv(sheet, index=False)
            labels = sheet
            if not len(answered) or (evidence.sheet["label"] == "").sum() == 0:
                return calibrate(items, replace(options, labels=labels), sheet)


def true_scores(evidence: Evidence, labels: np.ndarray, event: np.ndarray) -> tuple[float, float]:
    """Precision and recall of a partition over the candidate pairs, from the truth.

    Args:
        evidence: Its population is the universe.
        labels: Group per row (the dedupe at the threshold in question).
        event: Event per row.

    Returns:
        ``(precision, recall)``; NaN where undefined.
    """
    pop = evidence.population
    merged = pop.merged(labels)
    same = np.asarray(event)[pop.i] == np.asarray(event)[pop.j]
    tp = float((merged & same).sum())
    precision = tp / merged.sum() if merged.sum() else np.nan
    recall = tp / same.sum() if same.sum() else np.nan
    return precision, recall


def holdout_run(items: pd.DataFrame, truth: Mapping[str, object], options: EvidenceConfig,
                size: int, calibrate: Callable[..., Evidence] = calibrate_items) -> Evidence:
    """Draw a hold-out after the loop, answer it from the truth, and measure on it.

    Args:
        items: The corpus.
        truth: Item id -> event id.
        options: The loop's options (``labels``: its last sheet).
        size: Hold-out pairs.
        calibrate: The calibration to run (:func:`calibrate_items`).

    Returns:
        The evidence with the hold-out read (its choice restated on the hold-out).
    """
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "holdout.csv"
        drawn = calibrate(items, replace(options, holdout=path, holdout_size=size),
                          Path(tmp) / "next.csv")
        answer_sheet(drawn.holdout, truth).to_csv(path, index=False)
        return calibrate(items, replace(options, holdout=path), Path(tmp) / "next.csv")


def coverage_study(pool: Sequence[str], seeds: Sequence[int], budget: int = 200,
                   holdout: int = 100, options: EvidenceConfig | None = None,
                   progress: Callable[[str], None] | None = None) -> pd.DataFrame:
    """The loop on one planted corpus per seed: stated intervals against the truth.

    Args:
        pool: Real headlines.
        seeds: One planted corpus (and loop) per seed.
        budget: Labels per loop.
        holdout: Hold-out pairs drawn after the loop (0: none).
        options: Evidence options; defaults with the seed.
        progress: Told each seed's result.

    Returns:
        One row per seed: ``seed``, ``method``, ``threshold``, ``labelled``,
        ``precision_true``, ``recall_true`` (the truth at that threshold), and
        per estimate (``loop``: the loop's own; ``holdout``: restated on the
        hold-out) its value, ``_low``, ``_high`` and ``_covered`` for
        precision and recall (``loop_precision``, ``loop_precision_low``, ...).
    """
    from newsdedup.cluster.dedupe import dedupe

    rows = []
    for seed in seeds:
        corpus = planted_corpus(pool, seed)
        truth = dict(zip(corpus.items["id"], corpus.event, strict=True))
        opts = replace(options or EvidenceConfig(), seed=seed)
        with tempfile.TemporaryDirectory() as tmp:
            ev = run_loop(corpus.items, truth, opts, budget, workdir=Path(tmp))
            loop_sheet = Path(tmp) / "sheet.csv"
            held = (holdout_run(corpus.items, truth, replace(opts, labels=loop_sheet), holdout)
                    if holdout and ev.choice["threshold"] is not None and loop_sheet.is_file()
                    else None)
        c = ev.choice
        row = {"seed": seed, "method": c["method"], "threshold": c["threshold"],
               "labelled": ev.labelled}
        if c["threshold"] is not None:
            result = dedupe(corpus.items, replace(ev.config, threshold=c["threshold"]))
            p, r = true_scores(ev, result.clustering.labels, corpus.event)
            row |= {"precision_true": p, "recall_true": r}
            stated = [("loop", c)] + ([("holdout", held.choice)] if held is not None else [])
            for who, choice in stated:
                for name, value in (("precision", p), ("recall", r)):
                    got = choice[name]
                    row |= {f"{who}_{name}": got["value"], f"{who}_{name}_low": got["low"],
                            f"{who}_{name}_high": got["high"],
                            f"{who}_{name}_covered": bool(
                                got["low"] is not None and got["low"] <= value <= got["high"])}
        rows.append(row)
        if progress is not None:
            progress(f"seed {seed}: {row}")
    return pd.DataFrame(rows)

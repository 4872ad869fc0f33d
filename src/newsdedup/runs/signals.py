"""The signal commands end to end: compute, print, write under ``results/<name>/signals/``.

``newsdedup signals`` (funnel and candidates), ``newsdedup signals --sheet`` (a
labeling sheet), ``newsdedup evaluate gold`` (scorers and detectors against
a gold file) and ``newsdedup evaluate stories`` (rules against story ids) call
these; the logic lives in :mod:`newsdedup.signals.pairs`, :mod:`newsdedup.signals.detector`,
:mod:`newsdedup.evaluate.gold` and :mod:`newsdedup.evaluate.story_signals`.

Files are written through :mod:`newsdedup.runs.files` (deterministic); library
versions, with kiwipiepy's, go to the ``environment`` block of each ``params`` JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from newsdedup.evaluate.gold import (
    SCORERS,
    evaluate_gold,
    export_candidates,
    rank_pairs,
    read_gold,
)
from newsdedup.evaluate.story_signals import StoryRules, story_rule_metrics
from newsdedup.runs.commit import commits
from newsdedup.runs.files import (
    Progress,
    corpus_meta,
    markdown_table,
    quiet,
    write_csv,
    write_markdown,
    write_params,
)
from newsdedup.signals.detector import DetectorConfig, ablation, detect, funnel
from newsdedup.signals.pairs import (
    SURFACE,
    Embed,
    Prepared,
    SignalConfig,
    describe,
    pair_signals,
    prepare,
)

CANDIDATE_COLUMNS = ["id_i", "id_j", "host_i", "host_j", "published_at_i", "published_at_j",
                     "days_apart", *SURFACE, "shared_entities", "entity_weight", "entity_jaccard",
                     "shared_names", "title_i", "title_j"]
"""Columns of ``candidates.csv`` (no summaries: titles identify the items)."""

HOST_PAIR_COLUMNS = ["i", "j", "id_i", "id_j", "host_relation", "days_apart", *SURFACE,
                     "shared_entities", "entity_weight", "version_conflict", "candidate",
                     "rejected_by", "failed"]
"""Columns of ``host_pairs.csv``: every pair the host rule keeps, for the plot."""


ENTITY_LIBRARY = "kiwipiepy"
"""Recorded beside the standard libraries: the Korean entities depend on its version."""


@dataclass(frozen=True)
class SignalRunConfig:
    """Options of the signal commands.

    Attributes:
        signals: Pair-signal settings.
        detector: Detector settings.
        top: Pairs listed in the tables of best-scoring host pairs.
        embed: Sentence-embedding function for the ``cosine`` signal
            (:data:`newsdedup.signals.pairs.Embed`), or ``None``.
        embed_info: What ``embed`` is (backend, model, version), for ``params.json``.
    """

    signals: SignalConfig = field(default_factory=SignalConfig)
    detector: DetectorConfig = field(default_factory=DetectorConfig)
    top: int = 20
    embed: Embed | None = None
    embed_info: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        """The options as written to the ``params`` JSON files."""
        out = {"signals": self.signals.as_dict(), "detector": self.detector.as_dict(),
               "top": self.top}
        return out | ({"embedding": self.embed_info} if self.embed is not None else {})


def _prepare(corpus, options: SignalRunConfig) -> Prepared:
    return prepare(corpus.items, options.signals, options.embed)


def _lexicon(prep: Prepared) -> dict:
    """What was learned from the corpus, for ``params.json``: spellings and zero-weight names."""
    return {"aliases": dict(sorted(prep.aliases.items())),
            "zero_weight_names": prep.weights.common(prep.matrix.name_vocab)}


@commits("signals")
def run_signals(corpus, name: str, out: Path, options: SignalRunConfig | None = None,
                progress: Progress = quiet, echo: bool = True) -> dict[str, pd.DataFrame]:
    """Signals of every pair, the detector's funnel and candidates; writes ``signals/``.

    Files: ``funnel.csv``, ``candidates.csv`` (every proposed pair with all
    its signals), ``top_host_pairs.csv`` (the best surface scores among the
    pairs the host rule keeps, with the detector's verdict and the rule that
    rejected each), ``host_pairs.csv`` (all of those pairs, for the plot),
    ``signals.md`` and ``params.json``.
    """
    options = options or SignalRunConfig()
    progress("signals: shingles, dates and entities (kiwipiepy) per item")
    prep = _prepare(corpus, options)
    progress(f"signals: {prep.n_items * (prep.n_items - 1) // 2:,} pairs")
    frame = detect(pair_signals(prep), options.detector)
    fun = funnel(frame, options.detector)
    abl = ablation(frame, options.detector)
    cands = describe(prep, rank_pairs(frame[frame["candidate"]], "text_jaccard"))
    host = rank_pairs(frame[frame["pass_host"]], "text_jaccard")
    # How far down the surface ranking each candidate sits: pairs scoring at least as high.
    for col, pool in (("pairs_at_or_above", frame), ("host_pairs_at_or_above", host)):
        ordered = np.sort(pool["text_jaccard"].to_numpy())
        cands[col] = len(ordered) - np.searchsorted(ordered, cands["text_jaccard"].to_numpy(),
                                                    side="left")
    top = describe(prep, host.head(options.top))
    top_cols = ["id_i", "id_j", "days_apart", "text_jaccard", "title_jaccard", "shared_names",
                "conflict", "candidate", "rejected_by", "failed", "title_i", "title_j"]
    out_dir = out / name / "signals"
    write_csv(fun, out_dir / "funnel.csv")
    write_csv(abl, out_dir / "ablation.csv")
    cos = ["cosine"] if options.embed is not None else []
    write_csv(cands[CANDIDATE_COLUMNS + cos + ["conflict", "pairs_at_or_above",
                                               "host_pairs_at_or_above"]],
              out_dir / "candidates.csv")
    write_csv(top[top_cols], out_dir / "top_host_pairs.csv")
    write_csv(host[HOST_PAIR_COLUMNS + cos], out_dir / "host_pairs.csv")
    fmt = {"days_apart": ".0f", "share": ".4f"}
    sections = [
        ("Corpus", corpus.summary_line()),
        ("Funnel: pairs left after each rule, in order", markdown_table(fun, ".3f", fmt)),
        ("Candidates with each rule switched off in turn", markdown_table(abl)),
        ("Candidates (pairs_at_or_above: pairs of the corpus whose text_jaccard is at least "
         "the candidate's)",
         markdown_table(cands[["id_i", "id_j", "days_apart", "text_jaccard", "pairs_at_or_above",
                               "host_pairs_at_or_above", "entity_weight", "entity_jaccard",
                               "shared_names", "title_i", "title_j"]], ".3f", fmt)),
        (f"Best surface scores among the host rule's pairs (top {options.top})",
         markdown_table(top[top_cols], ".3f", fmt)),
    ]
    write_markdown(sections, out_dir / "signals.md", f"Pair signals and detector: {name}")
    write_params({"corpus": corpus_meta(corpus, name), "options": options.as_dict(),
                  "learned": _lexicon(prep), "pairs": len(frame), "candidates": len(cands),
                  # The unrelated-pair bound of the published analysis is the max over all pairs.
                  "upper_bound_text_jaccard": float(frame["text_jaccard"].max())},
                 out_dir / "params.json", ENTITY_LIBRARY)
    if echo:
        print("\n\n".join(f"{h}\n{b}" for h, b in sections[1:4]) + "\n")
    progress(f"signals: {len(cands)} candidates; wrote {out_dir}")
    return {"frame": frame, "funnel": fun, "ablation": abl, "candidates": cands,
            "top_host_pairs": top}


@commits("candidates")
def run_candidates(corpus, name: str, out: Path, quota: int = 10,
                   options: SignalRunConfig | None = None, path: Path | None = None,
                   progress: Progress = quiet) -> pd.DataFrame:
    """Write a labeling sheet (default ``signals/to_label.csv``) and return it."""
    options = options or SignalRunConfig()
    progress("candidates: computing the pair signals")
    prep = _prepare(corpus, options)
    sheet = export_candidates(prep, quota=quota, detectors={"detector": options.detector})
    path = path or out / name / "signals" / "to_label.csv"
    write_csv(sheet, path)
    progress(f"candidates: {len(sheet)} pairs to label written to {path}; fill in 'label' "
             f"(same / followup / related / different) and 'reason', then run "
             f"`newsdedup evaluate gold {path}`")
    return sheet


@commits("evaluate-gold")
def run_evaluate_gold(corpus, name: str, out: Path, gold_path: Path,
                      options: SignalRunConfig | None = None, progress: Progress = quiet,
                      echo: bool = True) -> dict[str, pd.DataFrame]:
    """Scorers and detector against a gold file; writes ``signals/gold_*``."""
    options = options or SignalRunConfig()
    gold = read_gold(gold_path, corpus.items["id"].astype(str).tolist())
    progress(f"evaluate-gold: {len(gold.labeled)} labelled pairs ({len(gold.unlabeled)} "
             f"without a label) from {gold_path}")
    prep = _prepare(corpus, options)
    # The detector and, for each enabled rule, the detector without it: what each rule adds.
    det = options.detector
    off: dict[str, Any] = {}
    detectors = {"detector": det} | {f"detector without {r}": replace(det, **(off | {r: False}))
                                     for r in det.enabled()}
    scorers = SCORERS + (("cosine",) if options.embed is not None else ())
    res = evaluate_gold(prep, gold, scorers=scorers, detectors=detectors)
    out_dir = out / name / "signals"
    pairs = describe(prep, res["pairs"]).drop(columns=["i", "j", "summary_i", "summary_j"])
    write_csv(res["metrics"], out_dir / "gold_metrics.csv")
    write_csv(pairs, out_dir / "gold_pairs.csv")
    write_csv(res["summary"], out_dir / "gold_summary.csv")
    cols = ["line", "id_i", "id_j", "label", "detector", "text_jaccard", "days_apart",
            "shared_entities", "version_conflict", "reason"]
    sections = [
        ("Gold file", f"{gold_path.name}: {len(gold.labeled)} labelled pairs, "
                      f"{len(gold.unlabeled)} without a label"),
        ("Labels", markdown_table(res["summary"])),
        ("Precision and recall on the labelled pairs", markdown_table(res["metrics"], ".3f")),
        ("Pairs and the detector's verdict", markdown_table(res["pairs"][cols], ".3f",
                                                            {"days_apart": ".0f"})),
    ]
    write_markdown(sections, out_dir / "gold.md", f"Gold labels: {name}")
    write_params({"corpus": corpus_meta(corpus, name), "gold": gold_path.name,
                  "options": options.as_dict(), "learned": _lexicon(prep)},
                 out_dir / "gold_params.json", ENTITY_LIBRARY)
    if echo:
        print(f"{sections[2][0]}\n{sections[2][1]}\n")
    return res


@commits("story-signals")
def run_story_signals(corpus, name: str, out: Path, story_col: str = "STORY",
                      rules: StoryRules | None = None, options: SignalRunConfig | None = None,
                      progress: Progress = quiet, echo: bool = True) -> pd.DataFrame:
    """Every rule against story ids (all pairs, in blocks); writes ``signals/story_rules.csv``."""
    rules = rules or StoryRules()
    options = options or SignalRunConfig()
    if story_col not in corpus.items.columns:
        raise ValueError(f"{corpus.path}: no story column {story_col!r}; columns are "
                         f"{list(corpus.items.columns)}")
    prep = _prepare(corpus, options)
    table = story_rule_metrics(prep, corpus.items[story_col].tolist(), rules.rules(),
                               progress=progress)
    out_dir = out / name / "signals"
    write_csv(table, out_dir / "story_rules.csv")
    write_markdown([("Corpus", corpus.summary_line()),
                    ("Rules against story ids", markdown_table(table, ".4f"))],
                   out_dir / "story_signals.md", f"Pair signals against story ids: {name}")
    write_params({"corpus": corpus_meta(corpus, name), "story_col": story_col,
                  "rules": {"thresholds": list(rules.thresholds), "scorers": list(rules.scorers),
                            "max_days": rules.max_days, "min_shared": list(rules.min_shared),
                            "min_weight": list(rules.min_weight),
                            "cosines": list(rules.cosines)},
                  "options": options.as_dict(), "learned": _lexicon(prep)},
                 out_dir / "story_params.json", ENTITY_LIBRARY)
    if echo:
        print(markdown_table(table, ".4f"))
    return table

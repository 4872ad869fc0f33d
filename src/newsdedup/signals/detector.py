"""A rule-based cross-post detector over the pair signals, and its funnel.

The rules turn seed 004's proposals into filters applied in a fixed order,
each switchable:

1. ``host`` -- the hosts are *related*: by default different hosts of one
   organisation (blog.google and deepmind.google), the cross-post the
   archive's id check cannot see. For an aggregator of many publishers use
   ``relations=("same-org", "cross-org")`` (any two different hosts).
2. ``date`` -- published at most ``max_days`` apart (a cross-post appears
   within a day or two; a missing date never passes).
3. ``entity`` -- at least ``min_shared`` shared product lines or names
   that weigh more than 0 (a shared "AlphaEvolve", not a shared "Google":
   weights learned from the corpus, :mod:`newsdedup.signals.lexicon`).
4. ``cosine`` -- the cosine of the two items' sentence embeddings is at
   least ``min_cosine`` (off by default: it needs an embedding function,
   :func:`newsdedup.signals.pairs.prepare`). With ``entity`` off it gives
   the chain related hosts -> date window -> cosine -> no version conflict.
5. ``version`` -- no version conflict (Gemini Robotics-ER 1.6 against ER 2
   is a different announcement even though it shares the product line).

A pair failing a rule is rejected *by the first enabled rule it fails*
(``rejected_by``); ``failed`` lists every enabled rule it fails, so a
rejection can be read on its own merits and not only by its place in line.
:func:`funnel` counts the pairs left after each rule in order: where the
candidates go.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from newsdedup.signals.pairs import RELATIONS

RULES: tuple[str, ...] = ("host", "date", "entity", "cosine", "version")
"""Rule names in the order the detector applies them."""


@dataclass(frozen=True)
class DetectorConfig:
    """Which rules are on, and their parameters.

    Attributes:
        host: Apply the host rule.
        relations: Host relations that pass (:data:`newsdedup.signals.pairs.RELATIONS`).
        date: Apply the date-window rule.
        max_days: Largest publication gap that passes, days (``>= 0``).
        entity: Apply the shared-entity rule.
        min_shared: Fewest shared weighted lines that pass (``>= 1``).
        cosine: Apply the embedding-cosine rule (needs a ``cosine`` column).
        min_cosine: Smallest cosine that passes, in ``[-1, 1]``.
        version: Apply the version-conflict rule.

    Examples:
        >>> DetectorConfig().describe()["date"]
        'published at most 1 day(s) apart'
    """

    host: bool = True
    relations: tuple[str, ...] = ("same-org",)
    date: bool = True
    max_days: float = 1.0
    entity: bool = True
    min_shared: int = 1
    cosine: bool = False
    min_cosine: float = 0.9
    version: bool = True

    def __post_init__(self) -> None:
        """Validate the relations, ``max_days`` and ``min_shared``."""
        bad = [r for r in self.relations if r not in RELATIONS]
        if bad:
            raise ValueError(f"unknown host relation(s) {bad}; choose from {RELATIONS}")
        if not self.max_days >= 0:
            raise ValueError(f"max_days must be >= 0, got {self.max_days!r}")
        if self.min_shared < 1:
            raise ValueError(f"min_shared must be >= 1, got {self.min_shared!r}")
        if not -1 <= self.min_cosine <= 1:
            raise ValueError(f"min_cosine must be in [-1, 1], got {self.min_cosine!r}")

    def enabled(self) -> list[str]:
        """The enabled rules, in order."""
        return [r for r in RULES if getattr(self, r)]

    def describe(self) -> dict[str, str]:
        """One line per rule saying what passes."""
        return {
            "host": f"host relation in {{{', '.join(self.relations)}}}",
            "date": f"published at most {self.max_days:g} day(s) apart",
            "entity": f"at least {self.min_shared} shared weighted line"
                      f"{'' if self.min_shared == 1 else 's'}",
            "cosine": f"embedding cosine at least {self.min_cosine:g}",
            "version": "no version conflict on a shared product line",
        }

    def as_dict(self) -> dict:
        """The settings as plain JSON values, with the rule order."""
        return asdict(self) | {"relations": list(self.relations), "order": list(RULES)}


def rule_masks(frame: pd.DataFrame, config: DetectorConfig) -> dict[str, np.ndarray]:
    """Boolean pass mask of every rule (enabled or not) over a signal frame.

    Args:
        frame: Output of :func:`newsdedup.signals.pairs.pair_signals`.
        config: The detector settings.

    Returns:
        Rule name -> ``bool`` array, one entry per row.
    """
    rel = frame["host_relation"].astype(str).to_numpy()
    days = frame["days_apart"].to_numpy(np.float64)
    if "cosine" in frame:
        cos = frame["cosine"].to_numpy(np.float64)
    elif config.cosine:
        raise ValueError("the cosine rule needs a 'cosine' column: prepare the signals with an "
                         "embedding function (prepare(..., embed=...), `--cosine` on the CLI)")
    else:
        cos = np.full(len(frame), np.nan)
    return {
        "host": np.isin(rel, list(config.relations)),
        # NaN (a missing date) compares False: it never falls in the window.
        "date": days <= config.max_days,
        "entity": frame["shared_entities"].to_numpy() >= config.min_shared,
        # NaN (no embeddings) never passes.
        "cosine": cos >= config.min_cosine,
        "version": ~frame["version_conflict"].to_numpy(bool),
    }


def detect(frame: pd.DataFrame, config: DetectorConfig | None = None) -> pd.DataFrame:
    """Apply the detector: per pair, whether it is proposed and what rejected it.

    Returns:
        ``frame`` with ``pass_<rule>`` per rule, ``candidate`` (all enabled
        rules pass), ``rejected_by`` (first enabled rule failed, ``""`` for a
        candidate) and ``failed`` (every enabled rule failed, ``"+"``-joined).

    Examples:
        >>> f = pd.DataFrame({"host_relation": ["same-org", "same-org", "cross-org"],
        ...                   "days_apart": [1.0, 9.0, 0.0], "shared_entities": [2, 0, 3],
        ...                   "version_conflict": [False, True, False]})
        >>> detect(f)[["candidate", "rejected_by", "failed"]].values.tolist()
        [[True, '', ''], [False, 'date', 'date+entity+version'], [False, 'host', 'host']]
    """
    config = config or DetectorConfig()
    masks = rule_masks(frame, config)
    on = config.enabled()
    out = frame.copy()
    for r in RULES:
        out[f"pass_{r}"] = masks[r]
    fails = np.stack([~masks[r] for r in on], axis=1) if on else np.zeros((len(frame), 0), bool)
    out["candidate"] = ~fails.any(axis=1)
    names = np.asarray(on + [""], dtype=object)
    if not on or not len(frame):  # nothing can fail
        out["rejected_by"] = np.full(len(frame), "", dtype=object)
        out["failed"] = np.full(len(frame), "", dtype=object)
        return out
    first = np.where(fails.any(axis=1), np.argmax(fails, axis=1), len(on))
    out["rejected_by"] = names[first]
    # Every failed rule, joined: one string per distinct failure pattern, not per pair.
    patterns, inverse = np.unique(fails, axis=0, return_inverse=True)
    labels = np.asarray(["+".join(r for r, f in zip(on, p, strict=True) if f) for p in patterns],
                        dtype=object)
    out["failed"] = labels[inverse.ravel()]
    return out


def funnel(frame: pd.DataFrame, config: DetectorConfig | None = None) -> pd.DataFrame:
    """Pairs kept after each enabled rule, in order, starting from all pairs.

    Returns:
        Columns ``step`` (0 = all pairs), ``rule``, ``keeps`` (what passes),
        ``pairs`` (left after this rule and all before it), ``dropped`` (by this
        rule) and ``share`` (``pairs`` over all pairs).

    Examples:
        >>> f = pd.DataFrame({"host_relation": ["same-org"] * 3 + ["same-host"],
        ...                   "days_apart": [0.0, 1.0, 5.0, 0.0], "shared_entities": [1, 0, 1, 1],
        ...                   "version_conflict": [False] * 4})
        >>> funnel(f)[["rule", "pairs", "dropped"]].values.tolist()
        [['all pairs', 4, 0], ['host', 3, 1], ['date', 2, 1], ['entity', 1, 1], ['version', 1, 0]]
    """
    config = config or DetectorConfig()
    masks = rule_masks(frame, config)
    desc = config.describe()
    keep = np.ones(len(frame), dtype=bool)
    rows = [{"step": 0, "rule": "all pairs", "keeps": "every pair i < j", "pairs": len(frame),
             "dropped": 0}]
    for step, r in enumerate(config.enabled(), start=1):
        before = int(keep.sum())
        keep &= masks[r]
        rows.append({"step": step, "rule": r, "keeps": desc[r], "pairs": int(keep.sum()),
                     "dropped": before - int(keep.sum())})
    out = pd.DataFrame(rows)
    out["share"] = out["pairs"] / max(len(frame), 1)
    return out


def ablation(frame: pd.DataFrame, config: DetectorConfig | None = None) -> pd.DataFrame:
    """Candidates with all enabled rules, and with each enabled rule switched off in turn.

    What a rule adds is the candidates it removes that no other rule removes.

    Returns:
        Columns ``without`` (``""`` for the full detector, else the rule left
        out) and ``candidates``.

    Examples:
        >>> f = pd.DataFrame({"host_relation": ["same-org", "same-org", "cross-org"],
        ...                   "days_apart": [1.0, 9.0, 0.0], "shared_entities": [2, 1, 3],
        ...                   "version_conflict": [False, False, False]})
        >>> ablation(f).values.tolist()
        [['', 1], ['host', 2], ['date', 2], ['entity', 1], ['version', 1]]
    """
    config = config or DetectorConfig()
    masks = rule_masks(frame, config)
    on = config.enabled()
    rows = []
    for left_out in ["", *on]:
        keep = np.ones(len(frame), dtype=bool)
        for r in on:
            if r != left_out:
                keep &= masks[r]
        rows.append({"without": left_out, "candidates": int(keep.sum())})
    return pd.DataFrame(rows)

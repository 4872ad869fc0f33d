"""What each pair signal adds in English: rules against story ids (the UCI aggregator).

The UCI News Aggregator sample groups its headlines into stories (all
coverage of one event). Every pair of items is judged: *same story* or not.
For a list of rules over the pair signals -- surface thresholds, different
hosts, a timestamp window, shared capitalized tokens, and their
combinations -- :func:`story_rule_metrics` counts the pairs each rule
flags and how many of them are same-story pairs, giving its precision and
recall. A story is broader than a duplicate (most same-story pairs are
independent rewrites), so recall here is recall of *coverage of one event*;
precision is the informative number.

All ``N (N - 1) / 2`` pairs are visited in row blocks (about 20 million at
6,366 items), so memory stays at one block's signal frame.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from newsdedup.evaluate.metrics import ratio
from newsdedup.evaluate.stories import same_label_pairs
from newsdedup.signals.pairs import Prepared, pair_signals, upper_blocks

Rule = Callable[[pd.DataFrame], np.ndarray]


COSINE_RULES: tuple[float, ...] = (0.85, 0.9, 0.93, 0.96)
"""Cosine thresholds of the embedding rules of ``story-signals --cosine`` (e5 scale)."""


@dataclass(frozen=True)
class StoryRules:
    """Parameters of the default rule list.

    Attributes:
        thresholds: Surface-score thresholds, each in ``[0, 1]``.
        scorers: Surface-score columns thresholded.
        max_days: Timestamp window, days.
        min_shared: Shared-entity counts tried (each ``>= 1``).
        min_weight: Shared-entity weights tried (the learned weights summed,
            :mod:`newsdedup.signals.lexicon`).
        cosines: Thresholds of the embedding-cosine rules (alone, with the timestamp
            window, and with different hosts and the window), read from the signal
            frame's ``cosine`` column (:mod:`newsdedup.score.embed`, prepared with an
            embedding function); empty for none. Cosines sit higher than surface
            scores (e5: unrelated headlines near 0.8), hence a grid of their own.
    """

    thresholds: tuple[float, ...] = (0.1, 0.2, 0.3, 0.4, 0.5)
    scorers: tuple[str, ...] = ("title_jaccard", "title_idf")
    max_days: float = 1.0
    min_shared: tuple[int, ...] = (1, 2)
    min_weight: tuple[float, ...] = (0.5, 1.0, 1.5)
    cosines: tuple[float, ...] = ()

    def rules(self) -> dict[str, Rule]:
        """Rule name -> mask function, in report order.

        Examples:
            >>> list(StoryRules(thresholds=(0.3,), scorers=("title_jaccard",),
            ...                 min_shared=(1,)).rules())[:4]
            ['all pairs', 'different hosts', 'gap <= 1 d', 'shared entities >= 1']
        """
        def diff_host(f):
            return f["host_relation"].astype(str).isin(["same-org", "cross-org"]).to_numpy()

        def window(f):
            return f["days_apart"].to_numpy() <= self.max_days

        def ent(k):
            return lambda f: f["shared_entities"].to_numpy() >= k

        def above(s, t):
            return lambda f: f[s].to_numpy() >= t

        out: dict[str, Rule] = {"all pairs": lambda f: np.ones(len(f), dtype=bool),
                                "different hosts": diff_host,
                                f"gap <= {self.max_days:g} d": window}
        for k in self.min_shared:
            out[f"shared entities >= {k}"] = ent(k)
        def weight(w: float) -> Rule:
            return lambda f: f["entity_weight"].to_numpy() >= w

        for w in self.min_weight:
            out[f"entity weight >= {w:g}"] = weight(w)
        k1 = self.min_shared[0]
        out[f"different hosts & gap <= {self.max_days:g} d & shared entities >= {k1}"] = (
            lambda f: diff_host(f) & window(f) & ent(k1)(f))
        def both(a: Rule, b: Rule) -> Rule:
            return lambda f: a(f) & b(f)

        def either(a: Rule, b: Rule) -> Rule:
            return lambda f: a(f) | b(f)

        for s in self.scorers:
            for t in self.thresholds:
                out[f"{s} >= {t:g}"] = above(s, t)
                out[f"{s} >= {t:g} & shared entities >= {k1}"] = both(above(s, t), ent(k1))
                out[f"{s} >= {t:g} | shared entities >= {self.min_shared[-1]}"] = either(
                    above(s, t), ent(self.min_shared[-1]))
        for t in self.cosines:
            out[f"cosine >= {t:g}"] = above("cosine", t)
            out[f"cosine >= {t:g} & gap <= {self.max_days:g} d"] = both(above("cosine", t),
                                                                        window)
            out[f"different hosts & gap <= {self.max_days:g} d & cosine >= {t:g}"] = both(
                both(diff_host, window), above("cosine", t))
        return out


def story_rule_metrics(prep: Prepared, stories: Sequence, rules: dict[str, Rule] | None = None,
                       block: int = 256, progress: Callable[[str], None] | None = None
                       ) -> pd.DataFrame:
    """Pairs flagged, same-story pairs flagged, precision and recall of every rule.

    Args:
        prep: The prepared corpus (title-only fields are enough).
        stories: Story id per item (a missing id matches nothing).
        rules: Name -> mask over a signal frame; :meth:`StoryRules.rules` by default.
        block: Rows of the upper triangle per block (memory knob only).
        progress: Called with a line per block, if given.

    Returns:
        One row per rule: ``rule, flagged, same_story, precision`` (NaN when
        nothing is flagged), ``recall`` (over all same-story pairs) and
        ``lift`` (precision over the base rate of same-story pairs).

    Examples:
        >>> import pandas as pd
        >>> from newsdedup.signals.pairs import SignalConfig, prepare
        >>> from newsdedup.signals.entities import EntityConfig
        >>> items = pd.DataFrame({"id": list("abcd"), "title": [
        ...     "Fed holds rates", "Fed keeps rates", "Apple sues Samsung", "Apple Watch"],
        ...     "host": ["x.com", "y.com", "x.com", "y.com"],
        ...     "published_at": ["1394470370698"] * 4})
        >>> prep = prepare(items, SignalConfig(entities=EntityConfig(unit="token", korean=False)))
        >>> m = story_rule_metrics(prep, ["f", "f", "a", "w"])
        >>> m.set_index("rule").loc[["all pairs", "shared entities >= 1"],
        ...     ["flagged", "same_story"]].values.tolist()
        [[6, 1], [2, 1]]
    """
    rules = StoryRules().rules() if rules is None else rules
    n = prep.n_items
    flagged = np.zeros(len(rules), dtype=np.int64)
    hits = np.zeros(len(rules), dtype=np.int64)
    positives = 0
    total = 0
    for lo, hi, i, j in upper_blocks(n, block):
        frame = pair_signals(prep, i, j, labels=False, fields=("title",))
        pos = same_label_pairs(stories, i, j)
        positives += int(pos.sum())
        total += len(i)
        for k, rule in enumerate(rules.values()):
            mask = rule(frame)
            flagged[k] += int(mask.sum())
            hits[k] += int((mask & pos).sum())
        if progress is not None:
            progress(f"story signals: rows {lo}-{hi - 1} of {n}, {total:,} pairs so far")
    precision = ratio(hits, flagged)
    recall = ratio(hits, np.full_like(hits, positives))
    base = positives / total if total else np.nan
    return pd.DataFrame({"rule": list(rules), "flagged": flagged, "same_story": hits,
                         "precision": precision, "recall": recall, "lift": precision / base})

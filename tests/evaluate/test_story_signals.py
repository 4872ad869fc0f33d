"""Rules against story ids: the block walk equals one pass over all pairs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from newsdedup.corpus.load import load_corpus
from newsdedup.evaluate.stories import same_label_pairs
from newsdedup.evaluate.story_signals import StoryRules, story_rule_metrics
from newsdedup.paths import UCI_COLUMNS, shared_corpus_file
from newsdedup.signals.entities import EntityConfig
from newsdedup.signals.pairs import SignalConfig, pair_signals, prepare

ENGLISH = SignalConfig(entities=EntityConfig(unit="token", korean=False))


@pytest.fixture(scope="module")
def uci_head():
    path = shared_corpus_file("uci-news-aggregator-head", "uci-news-aggregator.head.csv")
    with pytest.warns(UserWarning):  # the sample's truncated last row is reported, not dropped
        items = load_corpus(path, columns=UCI_COLUMNS).items
    return items.head(300).reset_index(drop=True)


def test_block_walk_matches_one_frame_of_all_pairs(uci_head):
    prep = prepare(uci_head, ENGLISH)
    rules = StoryRules(thresholds=(0.2,), min_shared=(1, 2)).rules()
    got = story_rule_metrics(prep, uci_head["STORY"], rules, block=37)
    frame = pair_signals(prep, labels=False, fields=("title",))
    pos = same_label_pairs(uci_head["STORY"], frame["i"], frame["j"])
    for k, rule in enumerate(rules.values()):
        mask = rule(frame)
        assert got["flagged"][k] == mask.sum() and got["same_story"][k] == (mask & pos).sum()
    assert got["flagged"][0] == len(frame) == 300 * 299 // 2
    assert got["recall"][0] == 1.0
    assert np.allclose(got["lift"], got["precision"] / (pos.sum() / len(frame)), equal_nan=True)


def test_shared_capitalized_tokens_find_same_story_pairs_in_english():
    items = pd.DataFrame({"id": list("abcd"), "title": [
        "Fed's Plosser sees high bar", "Plosser: Fed may accelerate taper",
        "Apple sues Samsung", "Weather curbs jobs"], "host": ["a.com", "b.com", "c.com", "d.com"],
        "published_at": ["1394470370698"] * 4})
    m = story_rule_metrics(prepare(items, ENGLISH), ["fed", "fed", "apple", "jobs"])
    m = m.set_index("rule")
    assert m.loc["shared entities >= 2", "flagged"] == 1  # fed + plosser, one pair
    assert m.loc["shared entities >= 2", "precision"] == 1.0


def test_cosine_rules_read_the_cosine_column():
    import pandas as pd

    frame = pd.DataFrame({
        "host_relation": pd.Categorical(["cross-org", "same-host", "cross-org", "unknown"]),
        "days_apart": [0.5, 0.5, 3.0, 0.2],
        "shared_entities": [0, 0, 0, 0],
        "title_jaccard": [0.0] * 4, "title_idf": [0.0] * 4,
        "cosine": [0.95, 0.95, 0.95, 0.85],
    })
    rules = StoryRules(thresholds=(0.2,), min_shared=(1,), cosines=(0.9,)).rules()
    assert rules["cosine >= 0.9"](frame).tolist() == [True, True, True, False]
    assert rules["cosine >= 0.9 & gap <= 1 d"](frame).tolist() == [True, True, False, False]
    assert rules["different hosts & gap <= 1 d & cosine >= 0.9"](frame).tolist() == [
        True, False, False, False]
    assert not any("cosine" in r for r in StoryRules().rules())


def test_story_signals_cli_with_cosine_adds_the_embedding_rules(tmp_path):
    import pandas as pd

    from newsdedup.cli import main

    corpus = tmp_path / "tiny.csv"
    pd.DataFrame({
        "id": ["a", "b", "c", "d"],
        "title": ["Fed holds interest rates steady", "Federal Reserve keeps rates unchanged",
                  "Apple unveils new iPhone", "Oil prices jump after OPEC cut"],
        "url": ["https://x.com/1", "https://y.com/2", "https://x.com/3", "https://y.com/4"],
        "published_at": ["2014-03-10"] * 4, "STORY": ["f", "f", "a", "o"],
    }).to_csv(corpus, index=False)
    rc = main(["evaluate", "stories", str(corpus), "--name", "tiny", "--out", str(tmp_path),
               "--cosine", "--entity-unit", "token", "--no-korean"])
    assert rc == 0
    table = pd.read_csv(tmp_path / "tiny" / "signals" / "story_rules.csv").set_index("rule")
    row = table.loc["cosine >= 0.85"]
    # the Fed pair is the one same-story pair; e5 puts it above 0.85, the others below
    assert (row["flagged"], row["same_story"]) == (1, 1)
    assert "cosine >= 0.96" in table.index

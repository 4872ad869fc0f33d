"""Published block 3 of seed 004, recomputed."""

import pytest

from newsdedup.runs.console import crosshost_console
from newsdedup.runs.crosshost import exact_scores
from newsdedup.studies.crosshost import cross_host, ordered_counts


@pytest.fixture(scope="module")
def rep(pinned):
    return cross_host(pinned.items, exact_scores(pinned.items, 4))


def test_counts(rep):
    assert (rep.n_items, rep.n_unique_ids, rep.n_id_duplicates) == (387, 387, 0)
    assert dict(zip(rep.hosts.host, rep.hosts["count"], strict=True)) == {
        "openai.com": 181, "blog.google": 95, "www.anthropic.com": 68, "deepmind.google": 43}
    assert rep.hosts.host.tolist() == ["openai.com", "blog.google", "www.anthropic.com",
                                       "deepmind.google"]
    assert dict(zip(rep.sources.source, rep.sources["count"], strict=True)) == {
        "OpenAI": 181, "Google DeepMind": 138, "Anthropic": 68}


def test_cross_pairs(rep):
    assert rep.n_cross == 4085
    assert f"{rep.max_score:.3f}" == "0.153"
    assert f"{rep.upper_bound:.3f}" == "0.234"
    assert rep.n_above_bound == 0


def test_top_three_in_order(rep):
    top = rep.pairs.head(3)
    got = [(f"{r.score:.3f}", r.id_i, r.host_i, r.published_at_i, r.id_j, r.host_j,
            r.published_at_j) for r in top.itertuples(index=False)]
    assert got == [
        ("0.153", "gemini-robotics-er-2", "blog.google", "2026-07-30",
         "gemini-robotics-er-1-6", "deepmind.google", "2026-04-13"),
        ("0.135", "gemini-robotics-er-2", "blog.google", "2026-07-30",
         "gemini-robotics-2", "deepmind.google", "2026-07-28"),
        ("0.129", "alphaevolve-updates", "blog.google", "2026-05-07",
         "alphaevolve-impact", "deepmind.google", "2026-05-06"),
    ]


def test_console_prints_summaries_cut_at_150(rep):
    text = crosshost_console(rep)
    assert "deepmind.google x blog.google cross pairs 4,085" in text
    assert "above the unrelated-pair upper bound 0.234: 0 pairs" in text


def test_date_window_keeps_the_alphaevolve_pair(rep):
    kept = rep.pairs[rep.pairs.in_window]
    assert 0 < rep.n_in_window < rep.n_cross
    assert ("alphaevolve-updates", "alphaevolve-impact") in set(zip(kept.id_i, kept.id_j,
                                                                    strict=True))
    assert (kept.days_apart <= 3).all()


def test_ordered_counts_ties_by_first_appearance():
    assert ordered_counts(["x", "y", "y", "x", "z"], "h").h.tolist() == ["x", "y", "z"]

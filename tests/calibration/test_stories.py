"""Labels from a story column and pairs listed in a file (newsdedup.calibration.stories)."""

import itertools
import math

import numpy as np
import pytest

from newsdedup.calibration.stories import Interval, read_pair_ids, story_scores


def by_hand(labels, story):
    """Merged pairs, same-story pairs and both, counted over every pair of items."""
    merged = true = tp = 0
    for a, b in itertools.combinations(range(len(labels)), 2):
        m, s = labels[a] == labels[b], story[a] == story[b]
        merged, true, tp = merged + m, true + s, tp + (m and s)
    return merged, true, tp


# --- the point estimates ------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(15))
def test_counts_and_scores_match_a_pair_by_pair_count(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    labels = rng.integers(0, max(1, n // 3), n).tolist()
    story = [f"s{x}" for x in rng.integers(0, max(1, n // 4), n)]
    r = story_scores(labels, story, resamples=0)
    merged, true, tp = by_hand(labels, story)
    assert (r["merged_pairs"], r["true_pairs"], r["tp"]) == (merged, true, tp)
    for name, num, den in (("precision", tp, merged), ("recall", tp, true)):
        got = r[name]
        if den:
            assert got.value == pytest.approx(num / den, abs=1e-12)
            assert got.low == got.high == got.value  # no resamples: no width
        else:
            assert math.isnan(got.value)


def test_labels_of_any_type_are_only_compared_for_equality():
    a = story_scores([3, 3, 9, 9], ["x", "x", "x", "y"], resamples=0)
    b = story_scores(["g", "g", "h", "h"], [1, 1, 1, 2], resamples=0)
    assert a["tp"] == b["tp"] == 1 and a["precision"] == b["precision"]


def test_a_length_mismatch_is_refused():
    with pytest.raises(ValueError, match="3 group labels for 2 story ids"):
        story_scores([1, 2, 3], ["a", "b"])


# --- the bootstrap intervals --------------------------------------------------------------

def test_a_partition_equal_to_the_stories_is_exact_with_zero_width():
    story = ["a"] * 4 + ["b"] * 3 + ["c"] * 2 + ["d"]
    r = story_scores([s * 2 for s in story], story, resamples=200)
    for name in ("precision", "recall"):
        assert r[name] == Interval(1.0, 1.0, 1.0)


def test_groups_of_equal_precision_give_a_zero_width_precision_interval():
    # Every group: three items, two of one story and one of another (1 of 3 pairs right);
    # every resample of groups has the same ratio.
    labels, story = [], []
    for g in range(12):
        labels += [g] * 3
        story += [f"s{g}", f"s{g}", f"t{g}"]
    r = story_scores(labels, story, resamples=300, seed=1)
    assert r["precision"].value == pytest.approx(1 / 3)
    assert r["precision"].low == pytest.approx(1 / 3)
    assert r["precision"].high == pytest.approx(1 / 3)


def test_unequal_groups_give_an_interval_around_the_value_of_about_the_delta_width():
    rng = np.random.default_rng(4)
    labels, story, per_group = [], [], []
    for g in range(200):  # 200 groups of 4: 1, 2 or 3 of the 6 pairs right
        right = int(rng.integers(2, 5))
        labels += [g] * 4
        story += [f"s{g}"] * right + [f"u{g}_{k}" for k in range(4 - right)]
        per_group.append(right * (right - 1) // 2)
    r = story_scores(labels, story, resamples=1000, seed=2)
    p = np.array(per_group) / 6.0
    value = p.mean()
    # Equal denominators: the ratio is a mean of group shares, its sd sd(p) / sqrt(G); a 95%
    # percentile interval spans about 2 x 1.96 sd. Stated tolerance: 25% of that width
    # (1000 resamples put about 5% noise on each end).
    se = p.std(ddof=1) / math.sqrt(len(p))
    assert r["precision"].value == pytest.approx(value, abs=1e-12)
    assert r["precision"].low < value < r["precision"].high
    assert r["precision"].high - r["precision"].low == pytest.approx(2 * 1.96 * se, rel=0.25)


def test_same_seed_same_interval_and_another_seed_other_ends():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 30, 200).tolist()
    story = rng.integers(0, 40, 200).tolist()
    a, b = story_scores(labels, story, seed=3), story_scores(labels, story, seed=3)
    c = story_scores(labels, story, seed=4)
    assert a == b
    assert (a["precision"].low, a["precision"].high) != (c["precision"].low, c["precision"].high)


def test_singletons_merge_nothing_and_have_no_precision():
    r = story_scores([0, 1, 2, 3], ["a", "a", "b", "b"], resamples=100)
    assert r["merged_pairs"] == 0 and math.isnan(r["precision"].value)
    assert r["recall"] == Interval(0.0, 0.0, 0.0)


# --- read_pair_ids ------------------------------------------------------------------------

def test_pair_ids_are_row_positions_in_file_order(tmp_path):
    path = tmp_path / "pairs.csv"
    path.write_text("note,id_j,id_i\nx,b,c\ny,a,'-7\n,c,a\n", encoding="utf-8")
    i, j = read_pair_ids(path, ["a", "b", "c", "-7"])
    assert i.tolist() == [2, 3, 0] and j.tolist() == [1, 0, 2]  # "'-7" unescaped to "-7"


def test_pair_ids_name_the_missing_column_and_the_line_of_an_unknown_id(tmp_path):
    path = tmp_path / "pairs.csv"
    path.write_text("id_i,other\na,b\n")
    with pytest.raises(ValueError, match=r"pairs.csv:1: missing column\(s\) \['id_j'\]"):
        read_pair_ids(path, ["a", "b"])
    path.write_text('id_i,id_j\na,b\n"multi\nline",b\nb,zz\n')
    with pytest.raises(ValueError, match=r"pairs.csv:3: id\(s\) \['multi\\nline'\]"):
        read_pair_ids(path, ["a", "b"])


def test_pair_ids_count_lines_after_a_record_spanning_two(tmp_path):
    path = tmp_path / "pairs.csv"
    path.write_text('id_i,id_j\n"a\nx",b\nb,zz\n')
    with pytest.raises(ValueError, match=r"pairs.csv:4: id\(s\) \['zz'\]"):
        read_pair_ids(path, ["a\nx", "b"])

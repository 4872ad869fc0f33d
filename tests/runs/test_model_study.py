"""The model study's group counts, against a count of each group's members by hand."""

import numpy as np
import pandas as pd

from newsdedup.runs.model_study import group_stories


def test_group_stories_counts_each_groups_stories():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 40, 2000)
    story = rng.integers(0, 300, 2000).astype(str)
    story[labels == 3] = "one"  # group 3: one story
    got = group_stories(labels, story, large=45)
    members = pd.DataFrame({"group": labels, "story": story})
    sizes = members.groupby("group").size()
    stories = members.groupby("group").story.nunique()
    big = sizes[sizes > 45].index
    assert got == {"largest_group_stories": int(stories[sizes.idxmax()]),
                   "groups_over_large": len(big),
                   "mixed_groups_over_large": int((stories[big] > 1).sum())}
    assert stories[3] == 1


def test_missing_stories_count_as_one_story_and_no_items_as_none():
    assert group_stories(np.array([0, 0, 1]), np.array(["a", None, None], dtype=object),
                         large=1)["largest_group_stories"] == 2
    assert group_stories(np.zeros(0, int), np.zeros(0)) == {
        "largest_group_stories": 0, "groups_over_large": 0, "mixed_groups_over_large": 0}

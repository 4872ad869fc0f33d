"""newsdedup.cluster.exact: the exact pass."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.cluster.exact import exact_groups
from newsdedup.cluster.keep import text_codes


def test_exact_groups_by_key_in_visiting_order():
    heads = ["b", "a", "", "a", "b", ""]
    order = np.array([3, 0, 2, 1, 4, 5])
    ids, survivors = exact_groups(heads, order, True)
    # visiting: row 3 ("a") founds group 0, row 0 ("b") group 1, row 2 (blank) group 2,
    # row 1 joins "a", row 4 joins "b", row 5 (blank) founds group 3: blanks stay apart
    assert ids.tolist() == [1, 0, 2, 0, 1, 3]
    assert survivors.tolist() == [3, 0, 2, 5]
    ids, survivors = exact_groups(heads, order, False)
    assert sorted(ids.tolist()) == list(range(6)) and survivors.tolist() == order.tolist()


@settings(max_examples=200, deadline=None)
@given(heads=st.lists(st.sampled_from(["", "a", "b", "가", "ab"]), max_size=30),
       seed=st.integers(0, 2**16), exact_pass=st.booleans())
def test_codes_give_the_same_groups(heads, seed, exact_pass):
    order = np.random.default_rng(seed).permutation(len(heads)).astype(np.int64)
    want = exact_groups(heads, order, exact_pass)
    got = exact_groups(heads, order, exact_pass, text_codes(heads))
    for a, b in zip(want, got, strict=True):
        assert a.dtype == b.dtype and a.tolist() == b.tolist()

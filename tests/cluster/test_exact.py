"""newsdedup.cluster.exact: the exact pass."""

import numpy as np

from newsdedup.cluster.exact import exact_groups


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

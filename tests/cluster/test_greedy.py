import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from newsdedup.cluster.greedy import Clustering, connected_components, greedy_clusters, greedy_pairs

from .conftest import average_link_reference

# A ~ B, B ~ C, A !~ C.
CHAIN = np.array([[1.0, 0.5, 0.1], [0.5, 1.0, 0.5], [0.1, 0.5, 1.0]])


def test_chain_greedy_splits_components_merge():
    g = greedy_clusters(CHAIN, 0.4)
    assert g.labels.tolist() == [0, 0, 1]
    assert g.representatives.tolist() == [0, 2]
    c = connected_components(CHAIN, 0.4)
    assert c.labels.tolist() == [0, 0, 0]
    assert c.n_groups == 1


def test_long_chain_is_one_giant_component_but_many_greedy_groups():
    # Neighbours on a line score 0.5, everything else 0: the giant-cluster pitfall.
    n = 10
    s = np.eye(n) + 0.5 * (np.eye(n, k=1) + np.eye(n, k=-1))
    assert connected_components(s, 0.4).n_groups == 1
    assert greedy_clusters(s, 0.4).n_groups == 5


def test_gate_blocks_a_high_score():
    s = np.array([[1.0, 0.9], [0.9, 1.0]])
    blocked = np.array([[True, False], [False, True]])
    assert greedy_clusters(s, 0.3, allowed=blocked).n_groups == 2
    assert connected_components(s, 0.3, allowed=blocked).n_groups == 2
    assert greedy_clusters(s, 0.3).n_groups == 1


def test_gate_sends_item_to_the_allowed_group_even_if_another_scores_higher():
    s = np.array([[1.0, 0.0, 0.9], [0.0, 1.0, 0.4], [0.9, 0.4, 1.0]])
    allowed = np.ones((3, 3), dtype=bool)
    allowed[0, 2] = allowed[2, 0] = False
    assert greedy_clusters(s, 0.3, allowed=allowed).labels.tolist() == [0, 1, 1]


def test_better_ranked_newcomer_becomes_representative():
    s = np.array([[1.0, 0.8], [0.8, 1.0]])
    assert greedy_clusters(s, 0.5, rank=np.array([0, 1])).representatives.tolist() == [1]
    # Equal rank: the earlier representative stays (stable).
    assert greedy_clusters(s, 0.5, rank=np.array([1, 1])).representatives.tolist() == [0]
    assert greedy_clusters(s, 0.5, rank=np.array([2, 1])).representatives.tolist() == [0]


def test_later_items_are_compared_with_the_new_representative():
    # 2 is close to 1 only; it joins because 1 replaced 0 as representative.
    s = np.array([[1.0, 0.6, 0.0], [0.6, 1.0, 0.7], [0.0, 0.7, 1.0]])
    assert greedy_clusters(s, 0.5).labels.tolist() == [0, 0, 1]
    c = greedy_clusters(s, 0.5, rank=np.array([0, 1, 0]))
    assert c.labels.tolist() == [0, 0, 0]
    assert c.joined_to.tolist() == [-1, 0, 1]
    assert np.isnan(c.join_scores[0]) and c.join_scores[1:].tolist() == [0.6, 0.7]


def test_ties_go_to_the_earliest_group():
    s = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [0.5, 0.5, 1.0]])
    assert greedy_clusters(s, 0.5).labels.tolist() == [0, 1, 0]


def test_best_group_wins_over_first_group():
    s = np.array([[1.0, 0.0, 0.4], [0.0, 1.0, 0.6], [0.4, 0.6, 1.0]])
    assert greedy_clusters(s, 0.3).labels.tolist() == [0, 1, 1]


def test_order_decides_founders_and_numbering():
    c = greedy_clusters(CHAIN, 0.4, order=[1, 0, 2])
    assert c.labels.tolist() == [0, 0, 0]  # B first: A and C both match B
    assert c.representatives.tolist() == [1]
    c = greedy_clusters(CHAIN, 0.4, order=[2, 1, 0])
    assert c.labels.tolist() == [1, 0, 0]


def test_nan_never_reaches_the_threshold():
    s = np.array([[1.0, np.nan], [np.nan, 1.0]])
    assert greedy_clusters(s, 0.0).n_groups == 2
    assert connected_components(s, 0.0).n_groups == 2


def test_empty_input():
    for c in (greedy_clusters(np.zeros((0, 0)), 0.3), connected_components(np.zeros((0, 0)), 0.3)):
        assert c.n_groups == 0 and c.labels.size == 0 and c.groups() == []


def test_bad_arguments():
    with pytest.raises(ValueError, match="square"):
        greedy_clusters(np.zeros((2, 3)), 0.3)
    with pytest.raises(ValueError, match="allowed"):
        greedy_clusters(np.eye(2), 0.3, allowed=np.ones((3, 3), dtype=bool))
    with pytest.raises(ValueError, match="permutation"):
        greedy_clusters(np.eye(3), 0.3, order=[0, 0, 1])
    with pytest.raises(ValueError, match="rank"):
        greedy_clusters(np.eye(3), 0.3, rank=np.zeros(2))


def test_clustering_helpers():
    c = Clustering(np.array([1, 0, 1, 2]), np.array([1, 0, 3]))
    assert c.sizes().tolist() == [1, 2, 1]
    assert [g.tolist() for g in c.groups()] == [[1], [0, 2], [3]]
    assert c.is_representative().tolist() == [True, True, False, True]


@st.composite
def problems(draw):
    n = draw(st.integers(1, 12))
    upper = draw(arrays(np.float64, (n, n), elements=st.floats(0.0, 1.0)))
    scores = np.triu(upper, 1)
    scores = scores + scores.T + np.eye(n)
    gate = draw(arrays(np.bool_, (n, n)))
    allowed = np.triu(gate, 1)
    allowed = allowed | allowed.T | np.eye(n, dtype=bool)
    threshold = draw(st.floats(0.0, 1.0))
    order = draw(st.permutations(range(n)))
    rank = draw(arrays(np.int64, (n,), elements=st.integers(0, 3)))
    return scores, allowed, threshold, list(order), rank


@given(problems())
def test_greedy_invariants(problem):
    scores, allowed, threshold, order, rank = problem
    n = scores.shape[0]
    c = greedy_clusters(scores, threshold, allowed=allowed, order=order, rank=rank)
    # A partition: every item has exactly one valid label; 1 <= groups <= N.
    assert c.labels.shape == (n,)
    assert 1 <= c.n_groups <= n
    assert set(c.labels.tolist()) == set(range(c.n_groups))
    assert c.sizes().sum() == n
    # One distinct representative per group, inside its group, the best ranked.
    assert len(set(c.representatives.tolist())) == c.n_groups
    assert c.labels[c.representatives].tolist() == list(range(c.n_groups))
    for g, members in enumerate(c.groups()):
        assert rank[c.representatives[g]] == rank[members].max()
    # Groups are numbered in the order of their first member in the visiting order.
    seen = [int(c.labels[i]) for i in order]
    firsts = sorted(set(seen), key=seen.index)
    assert firsts == list(range(c.n_groups))
    # Every joiner matched the then-representative of its own group, through the gate.
    joined = c.joined_to >= 0
    assert (c.join_scores[joined] >= threshold).all()
    assert allowed[np.flatnonzero(joined), c.joined_to[joined]].all()
    assert (c.labels[joined] == c.labels[c.joined_to[joined]]).all()
    assert joined.sum() == n - c.n_groups
    # Greedy groups refine the transitive closure: never fewer groups.
    assert c.n_groups >= connected_components(scores, threshold, allowed).n_groups


@given(problems())
def test_without_rank_members_score_with_the_founder(problem):
    scores, allowed, threshold, order, _ = problem
    c = greedy_clusters(scores, threshold, allowed=allowed, order=order)
    reps = c.representatives[c.labels]
    others = reps != np.arange(scores.shape[0])
    assert (scores[others, reps[others]] >= threshold).all()
    assert allowed[others, reps[others]].all()


@given(st.integers(1, 10), st.data())
def test_threshold_extremes(n, data):
    positive = data.draw(arrays(np.float64, (n, n), elements=st.floats(0.01, 1.0)))
    assert greedy_clusters(positive, 0.0).n_groups == 1
    assert greedy_clusters(positive, 1.01).n_groups == n
    assert connected_components(positive, 1.01).n_groups == n


@given(problems())
def test_greedy_pairs_equals_the_matrix_version(problem):
    scores, allowed, threshold, order, rank = problem
    n = scores.shape[0]
    i, j = np.triu_indices(n, 1)
    keep = allowed[i, j]  # the gate is expressed by not listing forbidden pairs
    for r, compiled in ((rank, False), (None, False), (rank, True), (None, True)):
        want = greedy_clusters(scores, threshold, allowed=allowed, order=order, rank=r)
        got = greedy_pairs(n, i[keep], j[keep], scores[i, j][keep], threshold, order=order,
                           rank=r, compiled=compiled)  # the Python loop and the numba walk
        assert np.array_equal(got.labels, want.labels)
        assert np.array_equal(got.representatives, want.representatives)
        assert np.array_equal(got.joined_to, want.joined_to)
        assert np.array_equal(got.join_scores, want.join_scores, equal_nan=True)


def test_greedy_pairs_ignores_pairs_below_the_threshold_and_nan():
    c = greedy_pairs(3, np.array([0, 1]), np.array([1, 2]), np.array([0.2, np.nan]), 0.3)
    assert c.labels.tolist() == [0, 1, 2]
    with pytest.raises(ValueError, match="permutation"):
        greedy_pairs(2, np.array([0]), np.array([1]), np.array([1.0]), 0.3, order=[0, 0])


# Scores in eighths: every sum of them is exact, so no summation order can move a mean
# across the threshold.
EIGHTHS = st.sampled_from([k / 8 for k in range(9)])


@st.composite
def sparse_problems(draw):
    n = draw(st.integers(1, 12))
    i, j = np.triu_indices(n, 1)
    listed = np.asarray(draw(st.lists(st.booleans(), min_size=len(i), max_size=len(i))),
                        dtype=bool)
    score = np.asarray(draw(st.lists(EIGHTHS, min_size=len(i), max_size=len(i))),
                       dtype=np.float64)
    threshold = draw(EIGHTHS)
    order = draw(st.permutations(range(n)))
    rank = draw(arrays(np.int64, (n,), elements=st.integers(0, 3)))
    return n, i[listed], j[listed], score[listed], threshold, list(order), rank


@given(sparse_problems())
def test_average_link_equals_a_plain_oracle(problem):
    n, i, j, score, threshold, order, rank = problem
    for r in (rank, None):
        want = average_link_reference(n, i, j, score, threshold, order, r)
        for compiled in (False, True):  # the Python loop and the numba walk
            got = greedy_pairs(n, i, j, score, threshold, order=order, rank=r,
                               compiled=compiled, link="average")
            assert got.labels.tolist() == want.tolist()
            joined = got.joined_to >= 0
            assert (got.join_scores[joined] >= threshold).all()


def test_a_member_below_the_threshold_with_the_group_keeps_a_newcomer_out():
    # 2 scores 0.9 with the representative 0 and 0.1 with member 1: mean 0.5 < 0.6.
    i, j, p = np.array([0, 0, 1]), np.array([1, 2, 2]), np.array([0.8, 0.9, 0.1])
    assert greedy_pairs(3, i, j, p, 0.6).labels.tolist() == [0, 0, 0]
    assert greedy_pairs(3, i, j, p, 0.6, link="average").labels.tolist() == [0, 0, 1]
    # At 0.5 the mean reaches the threshold exactly: it joins.
    assert greedy_pairs(3, i, j, p, 0.5, link="average").labels.tolist() == [0, 0, 0]
    with pytest.raises(ValueError, match="link must be one of"):
        greedy_pairs(3, i, j, p, 0.5, link="single")

"""multinomial_dot equals NumPy's Generator.multinomial draw by draw, stream included."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.studies import multinomial
from newsdedup.studies.multinomial import conditionals, multinomial_dot


def _both(seed, n, pvals, size, weights, mine=None, ref=None):
    if mine is None:
        mine, ref = np.random.default_rng(seed), np.random.default_rng(seed)
    got = multinomial_dot(mine, n, pvals, size, weights, compiled=True)
    want = ref.multinomial(n, pvals, size=size)[:, :-1] @ np.asarray(weights, dtype=np.int64)
    assert got.dtype == np.int64 and np.array_equal(got, want)
    # The generator advanced exactly as NumPy's own draw advanced it.
    a, b = mine.bit_generator.state, ref.bit_generator.state
    if isinstance(a.get("state"), dict) and "key" in a["state"]:  # MT19937: a key array
        assert np.array_equal(a["state"]["key"], b["state"]["key"])
        assert a["state"]["pos"] == b["state"]["pos"]
    else:
        assert a == b


@settings(max_examples=80, deadline=None)
@given(groups=st.integers(1, 3000), share=st.floats(0.0, 1.0), seed=st.integers(0, 2**32),
       size=st.integers(0, 40))
def test_the_bootstrap_shape_equals_numpy(groups, share, seed, size):
    # merge_estimate's draw: K clusters of 1/G each, the rest pooled in the last category.
    k = max(1, int(share * groups))
    pvals = np.clip(np.append(np.full(k, 1.0 / groups), 1.0 - k / groups), 0.0, 1.0)
    weights = np.random.default_rng(seed % 97).integers(0, 40, k)
    _both(seed, groups, pvals, size, weights)


@settings(max_examples=60, deadline=None)
@given(raw=st.lists(st.floats(0.0, 1.0), min_size=2, max_size=12), n=st.integers(0, 400),
       seed=st.integers(0, 2**32))
def test_any_probabilities_equal_numpy(raw, n, seed):
    # Large p and n p take NumPy's other binomial branch: the fallback gives it exactly.
    p = np.asarray(raw)
    p = p / p.sum() if p.sum() > 0 else np.full(len(p), 1.0 / len(p))
    _both(seed, n, p, 25, np.arange(1, len(p)))


@pytest.mark.parametrize("pvals", [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0], [0.0, 1.0, 0.0]])
def test_probability_used_up_before_the_last_category_equals_numpy(pvals):
    # Found by hypothesis: nothing is left for the later categories (0 / 0 in the conditionals).
    for n in (0, 1, 7):
        _both(3, n, np.asarray(pvals), 25, np.arange(1, len(pvals)))


def test_large_draws_use_the_compiled_path_and_equal_numpy():
    g, k = 20000, 15000
    pvals = np.append(np.full(k, 1.0 / g), 1.0 - k / g)
    p, _ = conditionals(pvals)
    assert p.max() * g <= 30 and p.max() <= 0.5  # the inversion branch throughout
    _both(0, g, pvals, 200, np.random.default_rng(1).integers(0, 9, k))


def test_bad_weights_and_probabilities():
    with pytest.raises(ValueError, match="one value per category"):
        multinomial_dot(np.random.default_rng(0), 5, np.array([0.5, 0.5]), 3, np.array([1, 2]),
                        compiled=True)
    with pytest.raises(ValueError):  # NumPy's own error for probabilities above one
        multinomial_dot(np.random.default_rng(0), 5, np.array([0.9, 0.9, 0.1]), 3,
                        np.array([1, 2]), compiled=True)


@settings(max_examples=40, deadline=None)
@given(groups=st.integers(1, 3000), share=st.floats(0.0, 1.0), seed=st.integers(0, 2**32),
       size=st.integers(0, 40), parts=st.integers(2, 5))
def test_draws_split_over_threads_equal_numpy(groups, share, seed, size, parts):
    # Every size splits: each slice jumps to its place in the stream; a slice whose draws
    # are not one uniform per category (trials used up early) sends all back to sequence.
    k = max(1, int(share * groups))
    pvals = np.clip(np.append(np.full(k, 1.0 / groups), 1.0 - k / groups), 0.0, 1.0)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(multinomial, "SPLIT_MIN", 0)
        patch.setattr(multinomial, "SPLIT_PARTS", parts)
        _both(seed, groups, pvals, size, np.random.default_rng(seed % 89).integers(0, 40, k))


def test_split_draws_give_way_where_a_draw_is_irregular(monkeypatch):
    # 3 trials over 400 categories of 1/800 (half pooled): most draws use the trials up
    # before the last category and take fewer uniforms; the split must notice and yield.
    monkeypatch.setattr(multinomial, "SPLIT_MIN", 0)
    k, g = 400, 800
    pvals = np.append(np.full(k, 1.0 / g), 0.5)
    p, logq = conditionals(pvals)
    rng = np.random.default_rng(4)
    before = rng.bit_generator.state
    out = np.zeros(50, dtype=np.int64)
    assert not multinomial._split_draws(rng, 3, p, logq, np.ones(k, np.int64), out)
    assert rng.bit_generator.state == before  # untouched: the caller draws in sequence
    _both(4, 3, pvals, 50, np.arange(k))
    # No trials: no draw takes a uniform, whatever the number of categories.
    for pv in ([0.5, 0.5], [0.2, 0.3, 0.5]):
        _both(4, 0, np.asarray(pv), 10, np.arange(1, len(pv)))
    # A regular case splits, and says so.
    assert multinomial._split_draws(rng, g, p, logq, np.ones(k, np.int64), out)


def test_split_draws_leave_other_generators_and_buffered_halves_to_the_sequence(monkeypatch):
    monkeypatch.setattr(multinomial, "SPLIT_MIN", 0)
    g, k = 2000, 1500
    pvals = np.append(np.full(k, 1.0 / g), 1.0 - k / g)
    weights = np.random.default_rng(2).integers(0, 9, k)
    # A PCG64 holding the spare half of a 32-bit draw: advance() would drop it.
    mine, ref = np.random.default_rng(8), np.random.default_rng(8)
    for r in (mine, ref):
        r.integers(0, 2**32, dtype=np.uint32)
    assert mine.bit_generator.state["has_uint32"]
    _both(0, g, pvals, 30, weights, mine, ref)
    # Another bit generator has no advance(): drawn in sequence, the same numbers.
    mine, ref = (np.random.Generator(np.random.MT19937(5)) for _ in range(2))
    _both(0, g, pvals, 30, weights, mine, ref)

"""The compiled shingle matrix equals the numpy one, array for array and word for word."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.text import shingle
from newsdedup.text.normalize import normalize_many
from newsdedup.text.shingle import ShingleMatrix, shingle_matrix


def _both(texts, n) -> tuple[ShingleMatrix, ShingleMatrix]:
    saved = shingle.COMPILED_MIN
    try:
        shingle.COMPILED_MIN = 1 << 62
        reference = shingle_matrix(texts, n)
        shingle.COMPILED_MIN = 0
        compiled = shingle_matrix(texts, n)
    finally:
        shingle.COMPILED_MIN = saved
    return reference, compiled


def _assert_identical(a: ShingleMatrix, b: ShingleMatrix) -> None:
    assert a.matrix.shape == b.matrix.shape and a.n == b.n
    for name in ("indptr", "indices", "data"):
        x, y = getattr(a.matrix, name), getattr(b.matrix, name)
        assert x.dtype == y.dtype, name
        np.testing.assert_array_equal(x, y)
    assert a.vocab == b.vocab


# Short and empty texts, repeated n-grams inside a text ("aaaa"), shared lead tokens.
TEXTS = st.lists(st.one_of(st.text(alphabet="ab가나다[]속보", max_size=30),
                           st.sampled_from(["", "a", "속보", "aaaaaa", "[속보] 가나다"])),
                 max_size=12)


@settings(deadline=None)
@given(TEXTS, st.integers(1, 5))
def test_compiled_equals_numpy(texts, n):
    _assert_identical(*_both(texts, n))


@settings(deadline=None)
@given(st.lists(st.text(max_size=40), max_size=10), st.integers(1, 8))
def test_compiled_equals_numpy_any_alphabet(texts, n):
    # Wide alphabets and large n overflow the packed codes: both take the dict path.
    _assert_identical(*_both(texts, n))


def test_long_rows_and_growing_table():
    # Rows longer than the insertion-sort limit, and more distinct n-grams than the
    # table's first size, on real headlines.
    from newsdedup.studies.synthetic import enlarge, headline_pool

    heads = normalize_many(enlarge(headline_pool("ko"), 3000, seed=1).text.tolist())
    texts = heads + ["".join(heads[k : k + 12]) for k in range(0, 600, 12)]
    a, b = _both(texts, 3)
    assert b.matrix.nnz > 50_000 and max(np.diff(b.matrix.indptr)) > 64
    _assert_identical(a, b)


def test_large_input_takes_compiled_path():
    texts = ["가나다라마바사"] * (shingle.COMPILED_MIN // 7 + 1)
    m = shingle_matrix(texts, 3)
    assert m.vocab == ["가나다", "나다라", "다라마", "라마바", "마바사"]
    assert m.matrix.nnz == 5 * len(texts)


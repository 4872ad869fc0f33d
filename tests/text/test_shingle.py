from hypothesis import given
from hypothesis import strategies as st

from newsdedup.text.shingle import shingle_matrix, shingles


def test_seed_example_three_grams():
    assert shingles("스마트돌봄", 3) == {"스마트", "마트돌", "트돌봄"}


def test_short_text_has_empty_set():
    assert shingles("ab", 3) == set()
    assert shingle_matrix(["ab", ""], 3).sizes.tolist() == [0, 0]


def test_matrix_vocab_is_first_seen_order_and_rows_sorted():
    m = shingle_matrix(["cdab", "abcd"], 2)
    assert m.vocab == ["cd", "da", "ab", "bc"]
    for r in range(2):
        cols = m.matrix.indices[m.matrix.indptr[r] : m.matrix.indptr[r + 1]]
        assert list(cols) == sorted(cols)


@given(st.lists(st.text(alphabet="abc가나", max_size=12), max_size=8), st.integers(1, 4))
def test_matrix_rows_equal_python_sets(texts, n):
    m = shingle_matrix(texts, n)
    assert m.n_items == len(texts)
    for i, t in enumerate(texts):
        assert m.row(i) == shingles(t, n)


@given(st.lists(st.text(max_size=12), max_size=8), st.integers(1, 20))
def test_packed_and_dict_paths_agree(texts, n):
    from newsdedup.text.shingle import _shingle_matrix_dicts

    a, b = shingle_matrix(texts, n), _shingle_matrix_dicts(texts, n)
    assert a.vocab == b.vocab
    assert (a.matrix != b.matrix).nnz == 0 and a.matrix.shape == b.matrix.shape


@given(st.lists(st.text(max_size=12), max_size=8), st.integers(1, 5))
def test_vocab_reads_like_the_list_of_its_shingles(texts, n):
    import numpy as np

    from newsdedup.text.shingle import ShingleVocab, _shingle_matrix_dicts

    vocab = shingle_matrix(texts, n).vocab
    want = _shingle_matrix_dicts(texts, n).vocab  # a plain list, built string by string
    assert isinstance(vocab, ShingleVocab) and isinstance(want, list)
    assert len(vocab) == len(want) and list(vocab) == want and vocab == want
    assert [vocab[k] for k in range(-len(want), len(want))] == want + want
    assert vocab[1:4] == want[1:4] and vocab[::-1] == want[::-1]
    points = vocab.codepoints()
    assert points.shape == (len(want), n) and points.dtype == np.uint32
    assert points.tolist() == [[ord(c) for c in s] for s in want]
    pick = np.arange(len(want))[::2]
    assert list(vocab.take(pick)) == [want[k] for k in pick.tolist()]
    assert vocab != [*want, "x"] and (vocab == "x") is False

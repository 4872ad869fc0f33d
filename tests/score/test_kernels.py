"""The compiled kernels give exactly the numpy paths' values (published family, CRC-32)."""

import subprocess
import sys
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.score.jaccard import jaccard_matrix
from newsdedup.score.kernels import CRC_TABLE, crc32_of_codepoints, mersenne_min_hashes
from newsdedup.score.minhash import MinHashConfig, estimate_matrix, estimate_pairs, signatures
from newsdedup.studies.synthetic import enlarge, headline_pool
from newsdedup.text.normalize import hangul_alnum, item_texts
from newsdedup.text.shingle import shingle_matrix

# One-, two-, three- and four-byte UTF-8 characters.
ALPHABET = "ab09é가힣€\U0001f600z"


def _crc(strings):
    points = np.frombuffer("".join(strings).encode("utf-32-le"), dtype=np.uint32)
    starts = np.concatenate(([0], np.cumsum([len(s) for s in strings]))).astype(np.int64)
    return crc32_of_codepoints(points, starts, CRC_TABLE)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(max_codepoint=0x10FFFF,
                                               exclude_categories=("Cs",)), max_size=12),
                min_size=1, max_size=20))
def test_crc32_equals_zlib_on_utf8(strings):
    assert _crc(strings).tolist() == [zlib.crc32(s.encode("utf-8")) for s in strings]


@settings(max_examples=80, deadline=None)
@given(texts=st.lists(st.text(alphabet=ALPHABET, max_size=15), min_size=1, max_size=25),
       n=st.integers(1, 4), k=st.sampled_from([1, 7, 128]), seed=st.integers(0, 2**32))
def test_numba_signatures_equal_numpy(texts, n, k, seed):
    sm = shingle_matrix(texts, n)
    params = MinHashConfig(num_perm=k, seed=seed)
    fast = signatures(sm, params, kernel="numba")
    assert fast.dtype == np.uint64
    assert np.array_equal(fast, signatures(sm, params, kernel="numpy"))


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_numba_signatures_equal_numpy_on_headlines(lang):
    texts = [hangul_alnum(t) for t in enlarge(headline_pool(lang), 3000, seed=1).text]
    sm = shingle_matrix(texts, 3)
    params = MinHashConfig.published()
    assert np.array_equal(signatures(sm, params, kernel="numba"),
                          signatures(sm, params, kernel="numpy"))


MERSENNE61 = 2**61 - 1
EDGE_A = [1, 2, 2**29 - 1, 2**29, 2**29 + 1, 2**32 - 1, 2**32, MERSENNE61 - 2, MERSENNE61 - 1]
EDGE_B = [0, 1, 2**61 - 9, MERSENNE61 - 1]
EDGE_H = [0, 1, 2**29, 2**32 - 2, 2**32 - 1]


@settings(max_examples=60, deadline=None)
@given(a=st.lists(st.one_of(st.sampled_from(EDGE_A), st.integers(1, MERSENNE61 - 1)),
                  min_size=1, max_size=20),
       b=st.lists(st.one_of(st.sampled_from(EDGE_B), st.integers(0, MERSENNE61 - 1)),
                  min_size=20, max_size=20),
       h=st.lists(st.one_of(st.sampled_from(EDGE_H), st.integers(0, 2**32 - 1)),
                  min_size=1, max_size=12),
       cuts=st.lists(st.integers(0, 12), max_size=4))
def test_mersenne_min_hashes_equal_big_integer_arithmetic(a, b, h, cuts):
    # The kernel's split of a at bit 29 and its single fold, against Python's exact integers,
    # at the edges of every bound the derivation uses (a around 2**29 and P, h near 2**32).
    b = b[: len(a)]
    indptr = np.array(sorted({0, len(h), *(c for c in cuts if c <= len(h))}), dtype=np.int64)
    indptr = np.concatenate((indptr[:1], indptr))  # a leading empty row holds the sentinel
    out = np.empty((len(indptr) - 1, len(a)), dtype=np.uint64)
    mersenne_min_hashes(indptr, np.arange(len(h)), np.array(h, dtype=np.uint64),
                        np.array(a, dtype=np.uint64), np.array(b, dtype=np.uint64), out)
    want = [[min(((ap * hv + bp) % MERSENNE61 for hv in h[lo:hi]), default=MERSENNE61)
             for ap, bp in zip(a, b, strict=True)]
            for lo, hi in zip(indptr[:-1], indptr[1:], strict=True)]
    assert out.tolist() == want


@pytest.mark.parametrize("residue", [0, 1, 2, 3, 4])
def test_mersenne_min_hashes_reduce_values_just_above_p(residue):
    # b chosen so that a * h + b == residue (mod P): the fold can leave P + residue, which
    # only the last reduction step brings back below P (random draws almost never hit it).
    a = np.array(EDGE_A, dtype=np.uint64)
    h = np.array(EDGE_H[1:], dtype=np.uint64)
    for hv in h.tolist():
        b = np.array([(residue - ap * hv) % MERSENNE61 for ap in EDGE_A], dtype=np.uint64)
        out = np.empty((1, len(a)), dtype=np.uint64)
        mersenne_min_hashes(np.array([0, 1]), np.array([0]), np.array([hv], dtype=np.uint64),
                            a, b, out)
        assert out.tolist() == [[residue] * len(a)]


@settings(max_examples=30, deadline=None)
@given(texts=st.lists(st.text(alphabet=ALPHABET, max_size=15), min_size=1, max_size=25),
       n=st.integers(1, 4), k=st.sampled_from([1, 7, 128]), part=st.integers(1, 600))
def test_numba_signatures_equal_numpy_in_any_parts(texts, n, k, part):
    # PART_CELLS small: the rows go to the two threads in many parts (down to one row each,
    # empty rows included); the bytes are those of the numpy path whatever the split.
    import newsdedup.score.minhash as mh

    sm = shingle_matrix(texts, n)
    params = MinHashConfig(num_perm=k)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(mh, "PART_CELLS", part)
        fast = signatures(sm, params, kernel="numba")
    assert np.array_equal(fast, signatures(sm, params, kernel="numpy"))


# Published block 1 (seed 004): mean and max |estimate - exact| over the 74,691 pairs.
PUBLISHED_ERRORS = {3: ("0.0059", "0.0702"), 4: ("0.0046", "0.0916"), 5: ("0.0022", "0.0845")}


@pytest.mark.parametrize("n", [3, 4, 5])
def test_numba_signatures_reproduce_published_errors(pinned, n):
    sm = shingle_matrix(item_texts(pinned.items), n)
    sig = signatures(sm, MinHashConfig.published(), kernel="numba")
    iu = np.triu_indices(sm.n_items, k=1)
    err = np.abs(estimate_matrix(sig, sm.sizes == 0)[iu] - jaccard_matrix(sm)[iu])
    assert len(err) == 74_691
    assert (f"{err.mean():.4f}", f"{err.max():.4f}") == PUBLISHED_ERRORS[n]


def test_unknown_kernel_is_refused():
    with pytest.raises(ValueError, match="unknown kernel"):
        signatures(shingle_matrix(["abcd"], 3), MinHashConfig(), kernel="rust")


def test_small_inputs_do_not_import_numba():
    # The published blocks run on a few hundred items: numba's import would only cost time.
    code = ("import sys; from newsdedup.corpus.load import load_corpus; "
            "from newsdedup.paths import locate_pinned; "
            "from newsdedup.score.minhash import MinHashConfig, signatures; "
            "from newsdedup.text.normalize import item_texts; "
            "from newsdedup.text.shingle import shingle_matrix; "
            "items = load_corpus(locate_pinned(), dialect='seed').items; "
            "signatures(shingle_matrix(item_texts(items), 3), MinHashConfig()); "
            "print('numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout.strip().splitlines()[-1]
    assert out == "False"


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 40), k=st.sampled_from([1, 7, 128]), pairs=st.integers(0, 301),
       values=st.integers(1, 4), seed=st.integers(0, 2**32))
def test_numba_estimates_equal_numpy(n, k, pairs, values, seed):
    # Few distinct values make agreement common; a tiny PART_CELLS splits the pairs into
    # uneven parts over the two threads; empty items estimate 0 on both paths.
    rng = np.random.default_rng(seed)
    sigs = rng.integers(0, values, (n, k)).astype(np.uint64)
    empty = rng.random(n) < 0.2
    i, j = rng.integers(0, n, pairs), rng.integers(0, n, pairs)
    want = estimate_pairs(sigs, empty, i, j, kernel="numpy")
    got = estimate_pairs(sigs, empty, i, j, kernel="numba")
    assert got.dtype == want.dtype and got.tolist() == want.tolist()
    import newsdedup.score.minhash as mh

    with pytest.MonkeyPatch.context() as mp:  # many parts over the two threads
        mp.setattr(mh, "PART_CELLS", k * 3)
        assert estimate_pairs(sigs, empty, i, j, kernel="numba").tolist() == want.tolist()


def test_estimates_pick_numba_for_many_pairs(monkeypatch):
    import newsdedup.score.minhash as mh

    called = []
    monkeypatch.setattr(mh, "_numba_agreements", lambda *a: called.append(len(a[1])))
    sigs = np.zeros((3, 4096), dtype=np.uint64)  # wide rows: few pairs reach the bound
    few = np.zeros(2, dtype=np.int64)
    many = np.zeros(mh.NUMBA_MIN_CELLS // 4096, dtype=np.int64)
    with monkeypatch.context() as mp:  # a process that has not loaded numba
        mp.delitem(sys.modules, "numba", raising=False)
        mh.estimate_pairs(sigs, np.zeros(3, bool), few, few)
        assert called == []  # below NUMBA_MIN_CELLS: numpy, no numba import
        mh.estimate_pairs(sigs, np.zeros(3, bool), many, many)
        assert called == [len(many)]
    # Once numba is loaded its import is paid: the compiled path at any size but none.
    monkeypatch.setitem(sys.modules, "numba", sys.modules.get("numba", object()))
    mh.estimate_pairs(sigs, np.zeros(3, bool), few, few)
    mh.estimate_pairs(sigs, np.zeros(3, bool), few[:0], few[:0])
    assert called == [len(many), len(few)]
    with pytest.raises(ValueError, match="unknown kernel"):
        mh.estimate_pairs(sigs, np.zeros(3, bool), few, few, kernel="gpu")

import math
import random
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.score.minhash import (
    MERSENNE61,
    MinHashConfig,
    affine_mod_mersenne61,
    crc32_hashes,
    estimate_matrix,
    estimate_pairs,
    lsh_candidates,
    lsh_params,
    mersenne_permutations,
    signatures,
)
from newsdedup.text.shingle import shingle_matrix

P = MERSENNE61


@settings(max_examples=300)
@given(
    st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=20),
    st.lists(st.tuples(st.integers(1, P - 1), st.integers(0, P - 1)), min_size=1, max_size=5),
    st.integers(1, 7),
)
def test_affine_is_exact_big_integer_arithmetic(hs, ab, block):
    a = [x for x, _ in ab]
    b = [y for _, y in ab]
    got = affine_mod_mersenne61(np.array(hs, dtype=np.uint64), np.array(a, dtype=np.uint64),
                                np.array(b, dtype=np.uint64), block=block)
    want = [[(ai * h + bi) % P for ai, bi in ab] for h in hs]
    assert got.tolist() == want


def test_affine_extremes():
    h = np.array([0, 1, 2**32 - 1], dtype=np.uint64)
    a = np.array([1, P - 1, 2**32, 2**61 - 2], dtype=np.uint64)
    b = np.array([0, P - 1, 12345, P - 1], dtype=np.uint64)
    got = affine_mod_mersenne61(h, a, b)
    assert got.tolist() == [[(int(x) * int(y) + int(z)) % P for x, z in zip(a, b, strict=True)]
                            for y in h]


def test_permutations_follow_the_published_draw_order():
    rnd = random.Random(42)
    want = [(rnd.randrange(1, P), rnd.randrange(0, P)) for _ in range(5)]
    a, b = mersenne_permutations(5, 42)
    assert list(zip(a.tolist(), b.tolist(), strict=True)) == want
    # A longer run extends the same stream: its first 5 are these 5.
    a2, _ = mersenne_permutations(9, 42)
    assert a2[:5].tolist() == a.tolist()


def test_signature_equals_plain_python_min():
    texts = ["가나다라마바", "가나다라", "xyz123", "ab"]
    sm = shingle_matrix(texts, 3)
    sig = signatures(sm, MinHashConfig.published(num_perm=16))
    a, b = mersenne_permutations(16, 42)
    for r, t in enumerate(texts):
        grams = {t[i : i + 3] for i in range(len(t) - 2)}
        if not grams:
            assert (sig[r] == MERSENNE61).all()
            continue
        hs = [zlib.crc32(g.encode()) for g in grams]
        want = [min((int(ai) * h + int(bi)) % P for h in hs) for ai, bi in zip(a, b, strict=True)]
        assert sig[r].tolist() == want


def test_crc32_of_utf8():
    assert crc32_hashes(["가나다"]).tolist() == [zlib.crc32("가나다".encode())]


def test_estimates_and_empty_items():
    sm = shingle_matrix(["abcdefgh", "abcdefgh", "a", "b"], 3)
    for params in (MinHashConfig.published(32), MinHashConfig.datasketch(32)):
        sig = signatures(sm, params)
        est = estimate_matrix(sig, sm.sizes == 0)
        assert est[0, 1] == 1.0
        assert est[2, 3] == 0.0  # two empty sets are not duplicates
        iu = np.triu_indices(4, k=1)
        assert estimate_pairs(sig, sm.sizes == 0, *iu).tolist() == est[iu].tolist()


def test_datasketch_params_record_scheme_and_version():
    p = MinHashConfig.datasketch()
    assert p.scheme == "affine32" and p.datasketch_version
    assert MinHashConfig.published().as_dict()["seed"] == 42


@pytest.mark.parametrize("num_perm", [16, 64, 128])
def test_lsh_params_pick_datasketchs_banding(num_perm):
    # datasketch's optimiser integrates each b x r with scipy's quad; ours integrates every
    # b x r at once on Gauss-Legendre nodes. Both must pick the same banding (or both refuse).
    import datasketch

    for t in np.round(np.arange(0.05, 1.0, 0.05), 2).tolist():
        try:
            lsh = datasketch.MinHashLSH(threshold=t, num_perm=num_perm)
            theirs: object = (lsh.b, lsh.r)
        except ValueError:
            theirs = "refused"
        try:
            ours: object = lsh_params(t, num_perm)
        except ValueError:
            ours = "refused"
        assert ours == theirs, (t, num_perm)


def test_lsh_candidates_contain_identical_and_respect_bands():
    sm = shingle_matrix(["abcdefgh", "abcdefgh", "zyxwvuts"], 3)
    sig = signatures(sm, MinHashConfig.published(128))
    b, r = lsh_params(0.5, 128)
    assert b * r <= 128
    i, j = np.array([0, 0, 1]), np.array([1, 2, 2])
    assert lsh_candidates(sig, sm.sizes == 0, b, r, i, j).tolist() == [True, False, False]


@given(st.lists(st.lists(st.integers(0, 3), min_size=4, max_size=4), min_size=2, max_size=12),
       st.sampled_from([(1, 4), (2, 2), (4, 1)]))
def test_lsh_buckets_equal_brute_force_band_comparison(rows, br):
    from newsdedup.score.minhash import lsh_candidate_pairs

    sig = np.array(rows, dtype=np.uint64)
    n = len(rows)
    bands, r = br
    empty = np.zeros(n, bool)
    empty[0] = True
    want = [a * n + b for a in range(1, n) for b in range(a + 1, n)
            if any(rows[a][k * r:(k + 1) * r] == rows[b][k * r:(k + 1) * r] for k in range(bands))]
    assert lsh_candidate_pairs(sig, empty, bands, r).tolist() == want


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(alphabet="abc가나다 é😀", max_size=12), min_size=1, max_size=12),
       st.integers(1, 4), st.sampled_from([1, 7, 128]), st.integers(0, 3))
def test_affine32_signatures_equal_datasketch_bulk(texts, n, k, seed):
    import datasketch

    from newsdedup.score.minhash import affine32_permutations

    sm = shingle_matrix(texts, n)
    params = MinHashConfig.datasketch(num_perm=k, seed=seed)
    x = sm.matrix
    enc = [s.encode("utf-8") for s in sm.vocab]
    rows = [[enc[c] for c in x.indices[lo:hi]] for lo, hi in zip(x.indptr[:-1], x.indptr[1:],
                                                                  strict=True)]
    want = np.vstack([np.asarray(m.hashvalues, dtype=np.uint64) for m in datasketch.MinHash.bulk(
        rows, num_perm=k, seed=seed, scheme="affine32")])
    got = signatures(sm, params)
    assert got.dtype == np.uint64 and np.array_equal(got, want)
    a, b = datasketch.MinHash(num_perm=k, seed=seed, scheme="affine32").permutations
    mine = affine32_permutations(k, seed)
    assert np.array_equal(mine[0], a) and np.array_equal(mine[1], b)


def test_prefix_agreements_equal_estimates_of_each_width():
    from newsdedup.studies.measure import prefix_agreements

    sm = shingle_matrix([f"headline {k % 7} about {k % 5} and {k}" for k in range(60)] + [""], 3)
    sig = signatures(sm, MinHashConfig.published(64))
    empty = sm.sizes == 0
    i, j = np.triu_indices(sm.n_items, k=1)
    counts = prefix_agreements(sig, i, j, [8, 16, 64], chunk=500)
    for k in (8, 16, 64):
        est = counts[k] / k
        est[empty[i] | empty[j]] = 0.0
        assert est.tolist() == estimate_pairs(sig[:, :k], empty, i, j).tolist()


def test_error_table_estimates_are_each_widths_own_estimates():
    from newsdedup.studies.measure_errors import error_table

    sm = shingle_matrix([f"headline {k % 7} about {k % 5} and {k}" for k in range(60)] + [""], 3)
    empty = sm.sizes == 0
    i, j = np.triu_indices(sm.n_items, k=1)
    exact = np.random.default_rng(0).random(len(i))  # any "exact" scores: errors are compared
    families = (MinHashConfig.published(), MinHashConfig.datasketch())
    table = error_table(sm, i, j, exact, families, [8, 16, 64])
    for row in table.itertuples():
        base = next(f for f in families if f.family == row.family)
        params = MinHashConfig(**(base.as_dict() | {"num_perm": row.num_perm}))
        err = np.abs(estimate_pairs(signatures(sm, params), empty, i, j) - exact)
        assert row.err_mean == math.fsum(err) / len(err)
        assert row.err_max == err.max()


@pytest.mark.parametrize("rows", [1, 300, 70_000])
def test_column_codes_agree_where_the_values_agree(rows):
    from newsdedup.studies.measure_errors import column_codes

    rng = np.random.default_rng(rows)
    # Few distinct values per column (many agreements), spread over the whole uint64 range.
    sig = rng.integers(0, 40, size=(rows, 5)).astype(np.uint64) * np.uint64(2**58 + 12345)
    codes = column_codes(sig)
    assert codes.dtype == (np.uint16 if rows <= 1 << 16 else np.uint32)
    i, j = rng.integers(0, rows, 20_000), rng.integers(0, rows, 20_000)
    assert np.array_equal(codes[i] == codes[j], sig[i] == sig[j])
    # Renumbered in sorted order: the codes keep each column's order.
    for c in range(sig.shape[1]):
        assert np.array_equal(np.argsort(codes[:, c], kind="stable"),
                              np.argsort(sig[:, c], kind="stable"))


@pytest.mark.parametrize("kernel", ["numpy", "numba"])
def test_first_shared_band_is_the_first_band_whose_values_agree(kernel):
    from newsdedup.score.minhash import first_shared_band

    rng = np.random.default_rng(3)
    # Few distinct values, so pairs agree on some bands and not on others.
    sigs = rng.integers(0, 2, size=(50, 24)).astype(np.uint64)
    i, j = rng.integers(0, 50, 3000), rng.integers(0, 50, 3000)
    for bands, rows in ((6, 4), (4, 5), (24, 1), (1, 3)):
        want = []
        for a, b in zip(i.tolist(), j.tolist(), strict=True):
            agree = [bool((sigs[a, k * rows:(k + 1) * rows] == sigs[b, k * rows:(k + 1) * rows])
                          .all()) for k in range(bands)]
            want.append(agree.index(True) if any(agree) else bands)
        got = first_shared_band(sigs, i, j, bands, rows, kernel=kernel)
        assert got.dtype == np.int64 and got.tolist() == want
    with pytest.raises(ValueError, match="need 25 signature values"):
        first_shared_band(sigs, i, j, 5, 5, kernel=kernel)

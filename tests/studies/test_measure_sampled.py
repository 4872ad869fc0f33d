"""The sampled measurement: exact where the join and LSH give exact figures, covered elsewhere."""


import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.score.minhash import lsh_candidates, lsh_params, signatures
from newsdedup.studies.measure import MeasureConfig, measure_ngram, normalized_texts, run_measure
from newsdedup.studies.measure_sampled import (
    band_buckets,
    band_candidate_counts,
    band_candidates,
    band_pair_bound,
    bucket_pair_chunks,
    measure_sampled_ngram,
    plan_pairs,
    run_sampled,
    sample_rows,
)
from newsdedup.studies.synthetic import enlarge, headline_pool
from newsdedup.text.normalize import hangul_alnum
from newsdedup.text.shingle import shingle_matrix

EDGES = np.linspace(0.0, 1.0, 101)
CONFIG = MeasureConfig(ngrams=(3,), top_ngram=3, sample_pairs=20_000, sampled_error_pairs=500,
                       error_perms=(16, 64))


def _korean(size: int, seed: int = 1) -> list[str]:
    return [hangul_alnum(t) for t in enlarge(headline_pool("ko"), size, seed=seed).text]


def _check_exact_parts(texts, n, config=CONFIG):
    """Everything the sampled path computes exactly equals the dense measurement."""
    dense = measure_ngram(texts, n, config)
    got = measure_sampled_ngram(texts, n, config)
    exact = dense.exact
    assert got.pairs == len(exact)
    # Real pairs per threshold, from the join.
    assert got.thresholds.real.tolist() == dense.thresholds.real.tolist()
    # LSH table: band-sharing pairs against the exact pairs, as the dense table.
    cols = ["threshold", "bands", "rows", "real", "candidates", "matches", "recall"]
    pd.testing.assert_frame_equal(got.lsh[cols], dense.lsh[cols], check_dtype=False)
    # Candidates = band-sharing pairs whose estimate reaches t, counted densely here.
    sigs = signatures(dense.shingled, config.minhash)
    empty = dense.shingled.sizes == 0
    for t, row in zip(config.thresholds, got.thresholds.itertuples(index=False), strict=True):
        b, r = lsh_params(t, config.minhash.num_perm)
        proposed = lsh_candidates(sigs, empty, b, r, exact.i, exact.j)
        verified = proposed & (dense.estimate.score >= t)
        assert row.candidates == int(verified.sum())
        assert row.matches == int((verified & (exact.score >= t)).sum())
    # Histogram bins at or above the join threshold; the highest score; the top pairs.
    t0 = min(config.thresholds)
    hist = np.histogram(exact.score, bins=EDGES)[0]
    above = EDGES[:-1] >= t0
    assert got.hist.exact.to_numpy()[above].tolist() == hist[above].tolist()
    assert (got.hist.exact_method.to_numpy()[above] == "exact").all()
    if (exact.score >= t0).any():
        assert got.figures["exact_max"] == exact.max()
        assert got.figures["exact_max_method"] == "exact"
        k = min(12, int((exact.score >= t0).sum()))
        pos = exact.top(k)
        top = got.join.top(k)
        assert got.join.i[top].tolist() == exact.i[pos].tolist()
        assert got.join.score[top].tolist() == exact.score[pos].tolist()
    return dense, got


@pytest.mark.parametrize("size", [2, 60, 400, 1500])
def test_sampled_exact_parts_equal_dense_on_korean_headlines(size):
    _check_exact_parts(_korean(size), 3)


@settings(max_examples=30, deadline=None)
@given(texts=st.lists(st.text(alphabet="가나다ab", min_size=0, max_size=9), min_size=2,
                      max_size=40))
def test_sampled_exact_parts_equal_dense_hypothesis(texts):
    _check_exact_parts(texts, 2)


def test_sampled_intervals_cover_the_dense_figures():
    dense, got = _check_exact_parts(_korean(1500), 4, MeasureConfig(
        ngrams=(4,), top_ngram=4, sample_pairs=100_000, sampled_error_pairs=500))
    f = got.figures
    assert f["err_mean_method"] == "sampled" and f["sample_pairs"] > 90_000
    assert f["err_mean_lo"] <= dense.err_mean <= f["err_mean_hi"]
    assert f["err_max_lo"] <= dense.err_max <= f["err_max_hi"]
    h = got.hist
    ex, es = dense.histogram_counts(EDGES)
    sampled = h.exact_method == "sampled"
    inside_x = (h.exact_lo <= ex) & (ex <= h.exact_hi)
    inside_e = (h.estimate_lo <= es) & (es <= h.estimate_hi)
    # 95% intervals: a bin may miss by chance, most must not.
    assert inside_x[sampled].mean() >= 0.9
    assert inside_e.mean() >= 0.9
    assert inside_x[~sampled].all()


def test_error_mean_interval_covers_across_seeds():
    texts = _korean(800, seed=3)
    dense = measure_ngram(texts, 3, CONFIG)
    covered = 0
    for seed in range(10):
        got = measure_sampled_ngram(texts, 3, MeasureConfig(
            ngrams=(3,), top_ngram=3, sample_pairs=20_000, sample_seed=seed))
        covered += got.figures["err_mean_lo"] <= dense.err_mean <= got.figures["err_mean_hi"]
    assert covered >= 8  # nominal 95%: 8 of 10 or more, seeds fixed


def test_sample_is_seeded():
    texts = _korean(300)
    a = measure_sampled_ngram(texts, 3, CONFIG).hist
    b = measure_sampled_ngram(texts, 3, CONFIG).hist
    pd.testing.assert_frame_equal(a, b)


def test_sample_rows_keeps_signatures():
    m = shingle_matrix(_korean(200), 3)
    rows = np.array([5, 17, 17, 150])
    sub = sample_rows(m, rows)
    for params in CONFIG.error_families:
        assert np.array_equal(signatures(sub, params), signatures(m, params)[rows])
    assert len(sub.vocab) < len(m.vocab)


def test_band_pair_bound_is_an_upper_bound():
    m = shingle_matrix(_korean(500), 3)
    sigs = signatures(m, CONFIG.minhash)
    empty = m.sizes == 0
    i, j = np.triu_indices(m.n_items, k=1)
    for t in (0.2, 0.5):
        b, r = lsh_params(t, 128)
        assert band_pair_bound(sigs, empty, b, r) >= lsh_candidates(sigs, empty, b, r, i, j).sum()


def test_lsh_limit_skips_with_reason():
    got = measure_sampled_ngram(_korean(300), 3, MeasureConfig(
        ngrams=(3,), top_ngram=3, sample_pairs=1000, lsh_max_pairs=0))
    assert got.thresholds.candidates.isna().all()
    assert got.thresholds.candidates_method.str.startswith("skipped").all()
    assert (got.lsh.method.str.startswith("skipped")).all()


def test_plan_pairs_follows_the_cost_model():
    cfg = MeasureConfig(dense_max_items=100)
    assert plan_pairs(100, cfg)[0] == "dense"
    # Exact while it costs at most EXACT_PREFERENCE x the sampled path: above the dense
    # limit that is the streamed path, and at 10k items it costs far more than sampling.
    assert plan_pairs(500, cfg)[0] == "streamed"
    assert plan_pairs(10_000, cfg)[0] == "sampled"
    assert plan_pairs(10_000, MeasureConfig(dense_max_items=100, pair_budget=0))[0] == "sampled"
    assert plan_pairs(500, MeasureConfig(dense_max_items=100, pair_budget=0))[0] == "sampled"
    # The estimate of every pair grows like N^2 (its error study is capped by its budget).
    assert plan_pairs(40_000, cfg)[1] == pytest.approx(4 * plan_pairs(20_000, cfg)[1], rel=1e-2)
    with pytest.raises(ValueError, match="confidence"):
        MeasureConfig(confidence=1.0)


def test_sampled_report_accounts_for_every_item():
    size = 500
    frame = enlarge(headline_pool("ko"), size, seed=2)
    items = pd.DataFrame({"id": [f"s{k}" for k in range(size)], "title": frame.text,
                          "summary": ""})
    config = MeasureConfig(error_perms=(16, 128), sample_pairs=5000, sampled_error_pairs=300,
                           sweep_ngrams=(3,))
    dense = run_measure(items, config)
    got = run_sampled(items, normalized_texts(items, config.scheme), config)
    assert got.summary()["items"].tolist() == [size] * 3
    assert got.summary()["pairs"].tolist() == dense.summary()["pairs"].tolist()
    assert got.thresholds()["real"].tolist() == dense.thresholds()["real"].tolist()
    pd.testing.assert_frame_equal(got.top, dense.top)
    assert got.scale["path"] == "sampled"
    assert {"err_mean_lo", "err_mean_hi", "method"} <= set(got.errors.columns)
    hist = got.histogram()
    assert {"exact_lo", "exact_hi", "exact_method", "sample_pairs"} <= set(hist.columns)
    # The histogram's point estimates add up to every pair.
    for _, h in hist.groupby("n"):
        assert h.exact.sum() == pytest.approx(size * (size - 1) // 2)


def test_published_signatures_of_fewer_permutations_are_prefixes():
    from newsdedup.score.minhash import MinHashConfig

    m = shingle_matrix(_korean(100), 3)
    wide = signatures(m, MinHashConfig.published(256))
    for k in (16, 128):
        assert np.array_equal(wide[:, :k], signatures(m, MinHashConfig.published(k)))


def test_band_candidates_equal_the_lexsort_banding():
    from newsdedup.score.minhash import lsh_candidate_pairs

    m = shingle_matrix(_korean(600) + ["", ""], 3)
    sigs = signatures(m, CONFIG.minhash)
    empty = m.sizes == 0
    for t in (0.2, 0.5, 0.7):
        b, r = lsh_params(t, 128)
        assert np.array_equal(band_candidates(sigs, empty, b, r),
                              lsh_candidate_pairs(sigs, empty, b, r))
    # Rows folded to one key: colliding keys with different slices are not paired.
    s = np.array([[1, 0], [0, 0x9E3779B97F4A7C15 + 0]], dtype=np.uint64)
    assert band_candidates(s, np.zeros(2, bool), 1, 2).tolist() == []


@pytest.mark.parametrize("chunk", [1, 7, 1 << 21])
def test_band_candidate_counts_count_what_band_candidates_list(chunk):
    from newsdedup.score.minhash import estimate_pairs

    # Templated titles and empty items: big buckets, pairs sharing several bands.
    texts = _korean(300) + [f"오늘의운세{k % 5}월" for k in range(40)] + ["", ""]
    m = shingle_matrix(texts, 3)
    sigs = signatures(m, CONFIG.minhash)
    empty = m.sizes == 0
    n = len(texts)
    for t in (0.2, 0.5, 0.8):
        b, r = lsh_params(t, 128)
        cand = band_candidates(sigs, empty, b, r)
        verified = int(np.count_nonzero(estimate_pairs(sigs, empty, cand // n, cand % n) >= t))
        assert band_candidate_counts(sigs, empty, b, r, t, chunk=chunk) == (len(cand), verified)
        # Held for every band at once: int32 parts (rows below 2**31), the same pairs.
        parts = band_buckets(sigs, empty, b, r)[1]
        assert all(m.dtype == np.int32 and k.dtype == np.int32 for m, k in parts)
        assert band_candidates(sigs, empty, b, r, parts).tolist() == cand.tolist()
    # A colliding key with different slices is not a candidate (as in band_candidates).
    s = np.array([[1, 0], [0, 0x9E3779B97F4A7C15 + 0]], dtype=np.uint64)
    assert band_candidate_counts(s, np.zeros(2, bool), 1, 2, 0.0) == (0, 0)


@pytest.mark.parametrize("chunk", [1, 3, 100])
def test_bucket_pair_chunks_give_each_bucket_pair_once(chunk):
    rng = np.random.default_rng(5)
    bucket = np.sort(rng.integers(0, 12, 60))
    members = rng.permutation(200)[:60]
    got = [(int(a), int(b)) for x, y in bucket_pair_chunks(members, bucket, chunk)
           for a, b in zip(x, y, strict=True)]
    want = [(min(int(members[p]), int(members[q])), max(int(members[p]), int(members[q])))
            for p in range(60) for q in range(p + 1, 60) if bucket[p] == bucket[q]]
    assert sorted(got) == sorted(want) and len(got) == len(set(got))


@pytest.mark.parametrize("size", [1, 2])
def test_sampled_path_on_one_or_two_items(size):
    items = pd.DataFrame({"id": [str(k) for k in range(size)], "title": ["가나다라마"] * size,
                          "summary": ""})
    config = MeasureConfig(sample_pairs=100, sampled_error_pairs=10, error_perms=(16,))
    got = run_sampled(items, normalized_texts(items, config.scheme), config)
    assert got.summary()["pairs"].tolist() == [size * (size - 1) // 2] * 3
    assert got.thresholds()["real"].tolist() == [size - 1] * 15  # identical texts: J = 1
    assert len(got.errors) == (0 if size == 1 else 2)


def test_the_sampled_path_takes_its_intervals_without_scipy_stats():
    # Its histogram bounds (Clopper-Pearson) and error interval (normal) come from
    # studies.quantiles; scipy.stats would add about a second to every process.
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from newsdedup.studies.measure_sampled import measure_sampled_ngram\n"
        "from newsdedup.studies.measure import MeasureConfig\n"
        "from newsdedup.studies.synthetic import enlarge, headline_pool\n"
        "texts = list(enlarge(headline_pool('ko'), 300, seed=1).text)\n"
        "cfg = MeasureConfig(ngrams=(3,), top_ngram=3, sample_pairs=2_000,\n"
        "                    sampled_error_pairs=200, error_perms=(16,))\n"
        "got = measure_sampled_ngram(texts, 3, cfg)\n"
        "assert (got.hist.exact_method == 'sampled').any()\n"
        "print('scipy.stats' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"


def test_templated_titles_raise_the_join_threshold(monkeypatch):
    # Titles from one template: most pairs score above the lowest thresholds, more than the
    # join may list; those thresholds' counts come from the pair sample, the others exact.
    from newsdedup.studies import cost
    from newsdedup.studies.synthetic import templated_headlines

    texts = [hangul_alnum(t) for t in templated_headlines("ko", 600, seed=2)]
    monkeypatch.setattr(cost, "JOIN_PAIRS_MIN", 2000)
    monkeypatch.setattr(cost, "JOIN_PAIRS_PER_ITEM", 0)
    config = MeasureConfig(ngrams=(3,), top_ngram=3, sample_pairs=50_000)
    dense = measure_ngram(texts, 3, config)
    got = measure_sampled_ngram(texts, 3, config)
    t0 = got.join_threshold
    assert t0 > min(config.thresholds) and int((dense.exact.score >= t0).sum()) <= 2000 * 1.2
    for row, want in zip(got.thresholds.itertuples(index=False),
                         dense.thresholds.itertuples(index=False), strict=True):
        if row.threshold >= t0:
            assert row.real == want.real and row.real_method == "exact"
        else:  # sampled: within a few percent of the truth
            assert row.real_method.startswith("sampled")
            assert abs(row.real - want.real) <= 0.05 * want.real
    assert got.join.score.tolist() == dense.exact.score[dense.exact.top(12)].tolist()
    # No threshold fits: nothing is joined, the top pairs are the sample's best.
    monkeypatch.setattr(cost, "JOIN_PAIRS_MIN", 0)
    none = measure_sampled_ngram(texts, 3, config)
    assert none.join_threshold == np.inf
    assert none.thresholds.real_method.str.startswith("sampled").all()
    assert none.figures["exact_max_method"].startswith("sampled")


def test_a_feed_of_one_template_says_no_join_and_bounds_its_largest_score(monkeypatch):
    # Every pair above every threshold: no join fits the budget. The step said "0 pairs
    # at J >= inf" and summary.csv "all pairs are below t0".
    import newsdedup.studies.measure_sampled as ms

    monkeypatch.setattr(ms, "join_threshold", lambda *a, **k: None)
    texts = [hangul_alnum(f"한국은행 기준금리 동결 보고서 제{k}호") for k in range(300)]
    said: list[str] = []
    got = measure_sampled_ngram(texts, 3, CONFIG, say=said.append)
    assert any("no join (the sample puts more pairs than the budget at J >= " in s
               for s in said)
    assert not any("inf" in s for s in said)
    f = got.figures
    dense = measure_ngram(texts, 3, CONFIG)
    assert f["exact_max_method"] == "sampled (largest seen: a lower bound; too many pairs to join)"
    assert f["exact_max_lo"] <= dense.exact.score.max() <= f["exact_max_hi"] == 1.0

"""Rubrics and oversized buckets: the candidate path gives exactly the quadratic path's result."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.cluster import gate
from newsdedup.cluster.dedupe import DedupeConfig, dedupe, prepare
from newsdedup.cluster.gate import BucketLimits, bucketed_pairs, lead_token, strip_rubrics
from newsdedup.score.prefix import candidate_source, pair_scores, prefix_candidates, row_mass
from newsdedup.studies.synthetic import enlarge, headline_pool
from newsdedup.text.shingle import shingle_matrix

EVERY_BUCKET = BucketLimits(max_size=0, max_share=0.0, min_common=0)
NO_BUCKET = BucketLimits(max_size=10**12, max_share=1.0, min_common=10**12)
SHARE_ONLY = BucketLimits(max_size=10**12, max_share=0.0, min_common=0)


@pytest.mark.parametrize(("headline", "key"), [
    ("[속보] 진천군, 스마트돌봄 착수", "진천군"),
    ("【단독】[포토] 진천군 돌봄", "진천군"),
    ("<포토> 진천군 돌봄 - 연합뉴스", "진천군"),
    ("(서울=연합뉴스) 진천군 돌봄", "진천군"),
    ("（종합） 진천군 돌봄", "진천군"),
    ("[속보]", "속보"),  # nothing but a rubric: the rubric is the only text
    ("진천군 [속보] 돌봄", "진천군"),
])
def test_rubrics_are_not_subjects(headline, key):
    assert lead_token(headline) == key


def test_strip_rubrics_keeps_inner_brackets():
    assert strip_rubrics("[a] b [c]") == "b [c]"


def test_oversized_by_size_and_by_share():
    limits = BucketLimits(max_size=100, max_share=0.1, min_common=10)
    sizes = np.array([101, 100, 11, 10, 5])
    # 101 > max_size; 100 and 11 are > 10% of 105 items and > min_common; 10 is not > min_common.
    assert limits.oversized(sizes, 105).tolist() == [True, True, True, False, False]


texts_st = st.lists(
    st.lists(st.sampled_from(["가나", "다라", "마바", "사아", "자차", "ab", "cd", "다라마"]),
             min_size=1, max_size=6).map(" ".join),
    min_size=2, max_size=40)


def _weighted_jaccard_brute(x, w):
    dense = x.toarray().astype(bool)
    n = dense.shape[0]
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            inter = w[dense[i] & dense[j]].sum()
            union = w[dense[i] | dense[j]].sum()
            out[i, j] = inter / union if union > 0 else 0.0
    return out


@settings(max_examples=60, deadline=None)
@given(texts=texts_st, t=st.floats(0.05, 1.0),
       w=st.lists(st.floats(0.1, 5.0), min_size=64, max_size=64))
def test_prefix_candidates_lose_no_pair(texts, t, w):
    x = shingle_matrix(texts, 2).matrix
    weights = np.resize(np.asarray(w), x.shape[1])
    brute = _weighted_jaccard_brute(x, weights)
    want = {(i, j) for i in range(len(texts)) for j in range(i + 1, len(texts))
            if brute[i, j] >= t - 1e-12}
    got = set()
    for i, j in prefix_candidates(x, weights, t, np.arange(len(texts)), block=7):
        pairs = list(zip(i.tolist(), j.tolist(), strict=True))
        assert not got & set(pairs)  # each candidate once
        got |= set(pairs)
    assert want <= got


@settings(max_examples=60, deadline=None)
@given(texts=texts_st, t=st.floats(0.05, 1.0), scorer=st.sampled_from(["jaccard", "idf"]),
       chunk=st.integers(1, 8))
def test_candidate_path_equals_quadratic_path(texts, t, scorer, chunk):
    items = pd.DataFrame({"id": [f"i{k}" for k in range(len(texts))],
                          "title": ["연합뉴스 " + s for s in texts]})
    prep = prepare(items, DedupeConfig(scorer=scorer, exact_pass=False, n=2))
    quadratic = bucketed_pairs(prep.scorer.block, prep.buckets, t, chunk)
    cand = candidate_source(prep.shingles, prep.weights, t)
    fast = bucketed_pairs(prep.scorer.block, prep.buckets, t, chunk, candidates=cand,
                          limits=EVERY_BUCKET)
    for a, b in zip(quadratic, fast, strict=True):
        assert a.dtype == b.dtype
        assert np.array_equal(a, b)  # scores bit for bit


def test_pair_scores_bit_identical_to_block_scorer():
    texts = enlarge(headline_pool("ko"), 400, seed=3).text.tolist()
    items = pd.DataFrame({"id": [str(k) for k in range(400)], "title": texts})
    prep = prepare(items, DedupeConfig(scorer="idf", exact_pass=False))
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 400, 5000), rng.integers(0, 400, 5000)
    x = prep.shingles.tocsr()
    got = pair_scores(x, prep.weights, row_mass(x, prep.weights), a, b)
    dense = prep.scorer.block(np.arange(400), np.arange(400))
    assert np.array_equal(got, dense[a, b])


@pytest.mark.parametrize("scorer", ["idf", "jaccard"])
def test_20k_shared_lead_token_dedupes_as_the_quadratic_path(monkeypatch, scorer):
    n = 20_000
    texts = enlarge(headline_pool("ko"), n, seed=0).text
    items = pd.DataFrame({"id": [f"s{k}" for k in range(n)], "title": "연합뉴스 " + texts})
    config = DedupeConfig(scorer=scorer)
    # Without splitting crowded lead tokens the whole batch is one bucket, and the
    # defaults call it oversized: it is scored from the exact candidates.
    monkeypatch.setattr(gate, "DEFAULT_LIMITS", BucketLimits(split_depth=0))
    prep = prepare(items, config)
    assert np.unique(prep.buckets).size == 1
    assert gate.DEFAULT_LIMITS.oversized(np.array([prep.buckets.size]), prep.buckets.size)[0]
    fast = dedupe(items, config).items
    monkeypatch.setattr(gate, "DEFAULT_LIMITS", NO_SPLIT_NO_BUCKET)
    quadratic = dedupe(items, config).items
    pd.testing.assert_frame_equal(fast, quadratic)
    assert fast.group.nunique() < n  # the rewrites were merged: the test is not vacuous


NO_SPLIT_NO_BUCKET = BucketLimits(max_size=10**12, max_share=1.0, min_common=10**12,
                                  split_depth=0)


@pytest.mark.parametrize(("lang", "lead"), [("ko", "연합뉴스"), ("en", "Reuters")])
def test_shared_lead_token_buckets_as_the_varied_lead_tokens(lang, lead):
    texts = enlarge(headline_pool(lang), 12_000, seed=0).text
    # A rubric opens a headline only where no lead token stands before it.
    texts = texts[[strip_rubrics(t) == t.strip() for t in texts]]
    n = len(texts)
    varied = pd.DataFrame({"id": [f"s{k}" for k in range(n)], "title": texts})
    shared = varied.assign(title=lead + " " + texts)
    a, b = prepare(varied, DedupeConfig()), prepare(shared, DedupeConfig())
    # The shared lead token gives way to the next token: every row keeps its varied key.
    assert b.leads == a.leads
    # The same partition of the rows into buckets.
    assert np.array_equal(pd.factorize(pd.Series(a.leads, dtype=object))[0],
                          pd.factorize(pd.Series(b.leads, dtype=object))[0])


@pytest.mark.parametrize("n", [600, 3_000])
def test_a_lead_word_opening_a_small_feed_gives_way_and_the_groups_are_the_same(n):
    # Fewer rows than split_size: "속보" opening every headline is crowded by its share of
    # the batch. Kept as the key, all rows shared one bucket compared without subjects.
    # Rubrics after the word are skipped as at the start ("속보 [포토] …" is keyed and
    # compared as "[포토] …" is): every 7th headline opens with one.
    texts = enlarge(headline_pool("ko"), n, seed=1).text
    rubric = np.where(np.arange(n) % 7 == 0, "[포토] ", np.where(np.arange(n) % 7 == 3,
                                                               "(서울=연합뉴스) ", ""))
    texts = pd.Series(rubric, dtype=object) + texts.to_numpy(dtype=object)
    varied = pd.DataFrame({"id": [f"s{k}" for k in range(len(texts))], "title": texts})
    shared = varied.assign(title="속보 " + texts)
    assert gate.DEFAULT_LIMITS.split_size > len(varied)  # the share decides, not the size
    plain, tagged = dedupe(varied).items, dedupe(shared).items
    assert plain["lead"].tolist() == tagged["lead"].tolist()
    assert plain["group"].tolist() == tagged["group"].tolist()
    assert plain["group"].nunique() < len(varied)  # rewrites were merged: not vacuous


def _plain_keys(titles):
    return [gate.subject_key(t) for t in titles]


headline_st = st.lists(st.sampled_from(["가나", "다라", "AP", "[속보]", "·", "the", "x1", "…"]),
                       min_size=0, max_size=5).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(titles=st.lists(headline_st, max_size=60), size=st.integers(0, 20),
       depth=st.integers(0, 3))
def test_split_common_leads_only_splits_crowded_keys(titles, size, depth):
    plain = _plain_keys(titles)
    assert gate.subject_keys(titles) == plain
    limits = BucketLimits(split_size=size, split_depth=depth)
    got = gate.split_common_leads(titles, plain, limits)
    count = pd.Series(plain, dtype=object).value_counts()
    for title, key, new in zip(titles, plain, got, strict=True):
        path = gate.subject_path(title, depth + 1)
        if count[key] <= size or depth == 0 or not key:
            assert new == key  # a small bucket keeps its key, whoever joins it
        else:
            assert new in path  # the crowded token gave way to a later one of the headline
            # It gave way as far as it had to: to the last token, or to a bucket not crowded.
            final = pd.Series(got, dtype=object).value_counts()
            assert new == path[-1] or final[new] <= size or path[0] == new


def _tokens(key):
    return key.split(" ") if key else []


@settings(max_examples=60, deadline=None)
@given(texts=texts_st, t=st.floats(0.0, 1.0), scorer=st.sampled_from(["jaccard", "idf",
                                                                      "minhash"]),
       chunk=st.integers(1, 8), keys=st.integers(1, 4),
       limits=st.sampled_from([None, EVERY_BUCKET, SHARE_ONLY]))
def test_listed_pair_path_equals_block_path(texts, t, scorer, chunk, keys, limits):
    items = pd.DataFrame({"id": [f"i{k}" for k in range(len(texts))],
                          "title": [f"k{k % keys} " + s for k, s in enumerate(texts)]})
    prep = prepare(items, DedupeConfig(scorer=scorer, exact_pass=False, n=2))
    blocks = bucketed_pairs(prep.scorer.block, prep.buckets, t, chunk)
    # With candidates, buckets oversized by size take them, those oversized by share only
    # are listed.
    cand = candidate_source(prep.shingles, prep.weights, t)
    listed = bucketed_pairs(prep.scorer.block, prep.buckets, t, chunk, candidates=cand,
                            limits=limits, pair_scores=prep.scorer.run_pairs, pair_path_min=0)
    above = bucketed_pairs(prep.scorer.block, prep.buckets, t, chunk, candidates=cand,
                           limits=limits, pair_scores=prep.scorer.run_pairs, pair_path_min=0,
                           pairs_above=prep.scorer.pairs_above)
    for a, b, c in zip(blocks, listed, above, strict=True):
        assert a.dtype == b.dtype == c.dtype
        assert np.array_equal(a, b)  # scores bit for bit
        assert np.array_equal(a, c)


def _reference_paths(monkeypatch):
    """The per-item and packed-block paths the dedupe took before its batched ones."""
    from newsdedup.cluster import dedupe as dedupe_module
    from newsdedup.cluster import keep
    from newsdedup.text.normalize import get_scheme

    monkeypatch.setattr(dedupe_module, "normalize_many",
                        lambda texts, scheme: [get_scheme(scheme)(t) for t in texts])
    monkeypatch.setattr(gate, "subject_keys", _plain_keys)
    monkeypatch.setattr(gate, "PAIR_PATH_MIN", 10**18)
    monkeypatch.setattr(keep, "_sorted_codes", lambda values: pd.factorize(
        pd.Series(list(values), dtype=object), sort=True)[0].astype(np.int64))


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("scorer", ["idf", "jaccard"])
def test_dedupe_equals_the_per_item_implementation(monkeypatch, lang, scorer):
    n = 6000
    frame = enlarge(headline_pool(lang), n, seed=4)
    rng = np.random.default_rng(0)
    hosts = np.array(["v.daum.net", "news.google.com", "www.yna.co.kr", "", "m.news.naver.com"])
    items = pd.DataFrame({
        "id": [f"{lang}{k}" for k in range(n)],
        # Wire copies, rubrics and outlet suffixes, as a feed has them.
        "title": [(t if k % 7 else f"[속보] {t}") + (" - 연합뉴스" if k % 5 == 0 else "")
                  for k, t in enumerate(frame.text)],
        "url": [f"https://{h}/a/{k}" if h else "" for k, h in
                enumerate(hosts[rng.integers(0, hosts.size, n)])],
        "published_at": pd.to_datetime(1.7e9 + rng.integers(0, 10**6, n), unit="s")
        .strftime("%Y-%m-%dT%H:%M:%SZ"),
    })
    items = pd.concat([items, items.iloc[:500].assign(id=lambda d: d.id + "-copy")],
                      ignore_index=True)
    config = DedupeConfig(scorer=scorer)
    monkeypatch.setattr(gate, "PAIR_PATH_MIN", 0)  # the listed pairs even at this size
    fast = dedupe(items, config).items
    _reference_paths(monkeypatch)
    reference = dedupe(items, config).items
    pd.testing.assert_frame_equal(fast, reference)
    assert fast.group.nunique() < len(items) - 500  # near duplicates were merged too


def _merged_pairs(groups: np.ndarray) -> set[tuple[int, int]]:
    order = np.argsort(groups, kind="stable")
    pairs = set()
    for run in np.split(order, np.flatnonzero(np.diff(groups[order])) + 1):
        pairs.update((int(a), int(b)) for k, a in enumerate(run) for b in run[k + 1:])
    return pairs


@pytest.mark.parametrize("token", ["속보", "연합뉴스"])
def test_a_lead_token_on_40_percent_of_a_feed_keeps_the_duplicates(token):
    # Planted: rewrites of the Korean pool (enlarge plants near-duplicate chains), and a
    # seeded 40 % of the rows open with one non-bracketed token, so a story's copies are
    # often one tagged and one untagged. The dedupe must find what it finds without it.
    texts = enlarge(headline_pool("ko"), 11_000, seed=3).text.reset_index(drop=True)
    tagged = np.random.default_rng(0).random(len(texts)) < 0.4
    assert tagged.sum() > gate.DEFAULT_LIMITS.split_size  # crowded: the split applies
    plain = pd.DataFrame({"id": [f"p{k}" for k in range(len(texts))], "title": texts})
    feed = plain.assign(title=np.where(tagged, token + " " + texts, texts))
    found = _merged_pairs(dedupe(plain, DedupeConfig()).items.group.to_numpy())
    tagged_run = dedupe(feed, DedupeConfig()).items
    kept = _merged_pairs(tagged_run.group.to_numpy())
    assert len(found) > 1000  # not vacuous
    # The gate keeps the copies together: tagged and untagged copies share a bucket (with
    # the token as a key of its own, 1,428 of 2,998 such pairs were kept apart: 51 % kept).
    lead = tagged_run.lead.to_numpy()
    assert sum(lead[i] == lead[j] for i, j in found) >= 0.99 * len(found)
    # The token that gave way leaves the compared text too (gate.from_key), so a tagged copy
    # scores as its untagged twin: every pair is kept (with the token compared: 90-91 %).
    assert len(found & kept) >= 0.95 * len(found)
    assert found <= kept


def _blocked_parity(i, j, score=None):
    """A pair filter no scorer knows of: items of unlike parity never merge."""
    return (np.asarray(i) % 2) == (np.asarray(j) % 2)


@settings(max_examples=60, deadline=None)
@given(texts=texts_st, t=st.floats(0.0, 1.0), scorer=st.sampled_from(["jaccard", "idf",
                                                                      "minhash"]),
       chunk=st.integers(1, 8), keys=st.integers(1, 4),
       limits=st.sampled_from([None, EVERY_BUCKET, SHARE_ONLY]),
       path_min=st.sampled_from([0, 10**18]))
def test_a_pair_filter_inside_gives_the_pairs_filtered_afterwards(texts, t, scorer, chunk, keys,
                                                                  limits, path_min):
    items = pd.DataFrame({"id": [f"i{k}" for k in range(len(texts))],
                          "title": [f"k{k % keys} " + s for k, s in enumerate(texts)]})
    prep = prepare(items, DedupeConfig(scorer=scorer, exact_pass=False, n=2))
    cand = candidate_source(prep.shingles, prep.weights, t) if t > 0 else None
    paths = {"candidates": cand, "limits": limits, "pair_scores": prep.scorer.run_pairs,
             "pair_path_min": path_min, "pairs_above": prep.scorer.pairs_above}
    i, j, sc = bucketed_pairs(prep.scorer.block, prep.buckets, t, chunk, **paths)
    ok = _blocked_parity(i, j)
    inside = bucketed_pairs(prep.scorer.block, prep.buckets, t, chunk, allowed=_blocked_parity,
                            **paths)
    for want, got in zip((i[ok], j[ok], sc[ok]), inside, strict=True):
        assert want.dtype == got.dtype
        assert np.array_equal(want, got)


@pytest.mark.parametrize("above", [True, False])
def test_refused_pairs_are_filtered_a_group_of_buckets_at_a_time(monkeypatch, above):
    # Twelve buckets of one template each: every pair inside scores above the threshold,
    # and the filter refuses them all. No piece handed to the filter may hold more than
    # one step's pairs (or one bucket's, which is never split), so the pairs refused are
    # never held together.
    from newsdedup.cluster import listed

    monkeypatch.setattr(listed, "_PAIRS_PER_STEP", 2_000)
    signs = [f"띠{k}" for k in range(12)]
    titles = [f"{signs[k % 12]} 오늘의 운세 종합 안내 {k}" for k in range(12 * 60)]
    items = pd.DataFrame({"id": [str(k) for k in range(len(titles))], "title": titles})
    prep = prepare(items, DedupeConfig(scorer="jaccard", exact_pass=False))
    pieces = []

    def refuse_all(i, j, score):
        pieces.append(len(i))
        return np.zeros(len(i), dtype=bool)

    i, _, _ = bucketed_pairs(prep.scorer.block, prep.buckets, 0.3,
                             pair_scores=prep.scorer.run_pairs, pair_path_min=0,
                             pairs_above=prep.scorer.pairs_above if above else None,
                             allowed=refuse_all)
    kept = bucketed_pairs(prep.scorer.block, prep.buckets, 0.3,
                          pair_scores=prep.scorer.run_pairs, pair_path_min=0)[0]
    assert i.size == 0
    assert sum(pieces) == kept.size == 12 * 60 * 59 // 2  # every pair reached the filter
    assert len(pieces) >= 12 // 2 and max(pieces) <= 2 * 60 * 59 // 2


def test_an_oversized_bucket_tells_its_progress_as_its_blocks_go():
    # One bucket of the whole batch (no gate), as the pair model's join has: the bar
    # must move inside it, not only when it ends.
    texts = enlarge(headline_pool("ko"), 300, seed=5).text.tolist()
    shingled = shingle_matrix(texts, 3)
    x = shingled.matrix.tocsr()
    x.sort_indices()
    told: list[tuple[int, int]] = []
    blocks = list(prefix_candidates(x, np.ones(x.shape[1]), 0.3, np.arange(300), block=64,
                                    progress=lambda d, t: told.append((d, t))))
    assert told == [(min(hi, 300), 300) for hi in range(64, 364, 64)]
    assert len(blocks) == len(told)
    items = pd.DataFrame({"id": [str(k) for k in range(300)], "title": texts})
    prep = prepare(items, DedupeConfig(scorer="jaccard", exact_pass=False, gate=False))
    seen: list[tuple[int, int]] = []
    bucketed_pairs(prep.scorer.block, prep.buckets, 0.3, 32,
                   candidates=candidate_source(prep.shingles, prep.weights, 0.3),
                   limits=EVERY_BUCKET, progress=lambda d, t: seen.append((d, t)))
    done = [d for d, _ in seen]
    assert {t for _, t in seen} == {len(prep.survivors)}
    assert done == sorted(done) and done[-1] == len(prep.survivors)

"""Published block 1 of seed 004, recomputed from the corpus (times excepted)."""

import math

import pytest

from newsdedup.runs.console import measure_console
from newsdedup.score.minhash import MinHashConfig
from newsdedup.studies.measure import MeasureConfig, run_measure


@pytest.fixture(scope="module")
def report(pinned):
    cfg = MeasureConfig(error_perms=(16, 128, 1024),
                        error_families=(MinHashConfig.published(), MinHashConfig.datasketch()))
    return run_measure(pinned.items, cfg)


def test_parse_line(pinned):
    assert pinned.summary_line().startswith("387 items (0 rejected)")
    assert "mean title 33.7 chars" in pinned.summary_line()
    assert "mean summary 112.5 chars" in pinned.summary_line()


# n -> (mean shingles, mean |err|, max |err|, (real, candidates, matches) at 0.2, recall at 0.2)
PUBLISHED = {
    3: ("93.5", "0.0059", "0.0702", (11, 13, 9), "0.818"),
    4: ("95.7", "0.0046", "0.0916", (3, 10, 3), "1.000"),
    5: ("97.3", "0.0022", "0.0845", (1, 2, 1), "1.000"),
}


@pytest.mark.parametrize("n", [3, 4, 5])
def test_block_one_per_ngram(report, n):
    m = report.by_n(n)
    shingles, err_mean, err_max, at02, recall = PUBLISHED[n]
    assert len(m.exact) == 74_691
    assert f"{m.mean_shingles:.1f}" == shingles
    assert f"{m.err_mean:.4f}" == err_mean
    assert f"{m.err_max:.4f}" == err_max
    table = m.thresholds.set_index("threshold")
    for t in (0.7, 0.5, 0.4, 0.3):
        assert table.loc[t, ["real", "candidates", "matches"]].tolist() == [0, 0, 0]
        assert math.isnan(table.loc[t, "recall"])
    assert tuple(table.loc[0.2, ["real", "candidates", "matches"]].tolist()) == at02
    assert f"{table.loc[0.2, 'recall']:.3f}" == recall


PUBLISHED_TOP = [
    ("0.234", "GPT-5.5 Instant 시스템 카드 공개", "GPT-5.3 Instant 시스템 카드 공개"),
    ("0.209", "GPT-5.5 Instant 시스템 카드 공개", "GPT-5.4 Thinking 시스템 카드 공개"),
    ("0.202", "최적화 에이전트 AlphaEvolve, Google Cloud 전", "Gemini Enterprise Agent Platform으로 에"),
    ("0.198", "OpenAI, 사이버 방어 생태계 지원에 속도", "사이버 모델 접근을 여는 파일럿 Trusted Access for"),
    ("0.185", "Anthropic, 시리즈 H 650억 달러 조달, 기업가치 96", "Anthropic, 3800억 달러 가치로 시리즈 G 300억 달"),
    ("0.176", "Gemini 3.1 Flash Live, Gemini API에 프", "Lyria 3, Gemini API에 퍼블릭 프리뷰로 공개"),
    ("0.174", "Claude Partner Network에 서비스 트랙과 파트너", "Anthropic, Claude Partner Network에 1"),
    ("0.171", "Anthropic, Claude Opus 5 공개", "Claude Opus 4.7 정식 출시"),
    ("0.171", "Tech and Tariffs", "Data Center Bandwagon"),
    ("0.163", "Gemini API Managed Agents에 백그라운드 실행·", "Gemini API에 Managed Agents 프리뷰 공개"),
    ("0.157", "Anthropic, Claude Sonnet 4.6 공개", "Claude Opus 4.6 공개 — 100만 토큰 컨텍스트와 적"),
    ("0.157", "더 똑똑하고 개인화된 GPT-5.5 Instant 공개", "GPT-5.3 Instant 공개 — 더 매끄러운 일상 대화"),
]


def test_top_twelve_pairs_in_order(report):
    # The published list pads the left title to 36 columns, so a trailing space is invisible.
    got = [(f"{r.score:.3f}", r.title_i[:36].rstrip(), r.title_j[:36])
           for r in report.top.itertuples(index=False)]
    assert got == PUBLISHED_TOP


def test_console_has_published_lines(report, pinned):
    text = measure_console(report, pinned)
    assert "(74,691 pairs)  |estimate-exact| mean 0.0046 max 0.0916" in text
    assert "threshold 0.2: real  11 / candidates  13 / matches   9 / recall 0.818" in text


def test_error_study_prefix_matches_main_run(report):
    err = report.errors
    row = err[(err.family == "crc32-mersenne61") & (err.num_perm == 128)].iloc[0]
    assert row.err_mean == pytest.approx(report.by_n(4).err_mean, abs=0)
    # the worst-case standard error quoted in the seed: sqrt(0.25/128) = 0.044
    assert f"{row.theory_se_max:.3f}" == "0.044"
    # more permutations, smaller error, for both families
    for fam in err.family.unique():
        sub = err[err.family == fam].sort_values("num_perm")
        assert sub.rmse.iloc[-1] < sub.rmse.iloc[0]


def test_ngram_sweep_agrees_with_the_published_block(report):
    sweep = report.ngram_sweep.set_index("n")
    assert sweep.index.tolist() == [2, 3, 4, 5, 6]
    for n in (3, 4, 5):
        shingles, *_, at02, _ = PUBLISHED[n]
        assert f"{sweep.loc[n, 'mean_shingles']:.1f}" == shingles
        # The published "real" pairs at 0.2, and none at 0.3, from the sweep's own counts.
        assert sweep.loc[n, "pairs_ge_0.2"] == at02[0]
        assert sweep.loc[n, "pairs_ge_0.3"] == 0
    assert f"{sweep.loc[4, 'max']:.3f}" == PUBLISHED_TOP[0][0]  # the 0.234 bound
    # Every score falls as n grows on this corpus: quantiles and counts never rise.
    for col in ("mean", "p90", "p99", "p999", "max", "pairs_ge_0.1"):
        assert sweep[col].is_monotonic_decreasing, col


def test_ngram_tracks_follow_the_top_pairs(report):
    tracks = report.ngram_tracks
    at4 = tracks[tracks["n"] == 4].sort_values("rank")
    assert [f"{s:.3f}" for s in at4["score"]] == [p[0] for p in PUBLISHED_TOP]
    assert len(tracks) == 12 * 5
    # The same pair in every row of one rank.
    assert (tracks.groupby("rank")[["i", "j"]].nunique() == 1).all().all()

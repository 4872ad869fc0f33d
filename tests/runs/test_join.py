import numpy as np
import pandas as pd
import pytest

from newsdedup.runs.join import JoinConfig, write_join
from newsdedup.text.shingle import shingle_matrix


def test_lsh_only_when_asked():
    assert JoinConfig().lsh() is None
    mh, banding = JoinConfig(lsh_threshold=0.5, lsh_recall=0.9, num_perm=64).lsh()
    assert mh.num_perm == 64 and banding.bands * banding.rows <= 64


def test_ids_must_match_the_items(tmp_path):
    shingled = shingle_matrix(["abcd", "abce"], 3)
    with pytest.raises(ValueError, match="1 ids for 2 items"):
        write_join(["a"], shingled, 0.5, tmp_path, {})
    write_join(["a", "b"], shingled, 0.3, tmp_path, {"corpus": "t"})
    pairs = pd.read_parquet(tmp_path / "pairs.parquet")
    assert pairs.iloc[0][["i", "j", "id_i", "id_j"]].tolist() == [0, 1, "a", "b"]


@pytest.mark.parametrize(("rows", "most"), [(1, None), (7, None), (2048, None), (2048, 50),
                                           (64, 7)])
def test_streamed_join_files_equal_the_in_memory_ones(tmp_path, monkeypatch, rows, most):
    # Pairs spilled by ranges of i (as small as one item) and written range by range: the
    # same pairs, sorted, the same histogram, top-k and LSH recall as from all pairs at once;
    # also when ranges over `most` pairs are split again (templated titles crowd a range).
    import json

    from newsdedup.runs import join as module
    from newsdedup.score.join import HISTOGRAM_STEP, pair_histogram, threshold_join, top_k
    from newsdedup.score.lsh import choose_bands, recall_by_bin
    from newsdedup.score.minhash import MinHashConfig, lsh_candidate_pairs, signatures
    from newsdedup.studies.synthetic import templated_headlines

    monkeypatch.setattr(module, "SPILL_ROWS", rows)
    if most is not None:
        monkeypatch.setattr(module, "SPILL_MAX_PAIRS", most)
    titles = templated_headlines("en", 300, seed=1) + ["", "x"]
    shingled = shingle_matrix(titles, 3)
    ids = [f"t{k}" for k in range(len(titles))]
    mh, banding = MinHashConfig.published(64), choose_bands(0.6, 64, 0.9)
    info = write_join(ids, shingled, 0.6, tmp_path, {}, k=3, lsh=(mh, banding))
    want = threshold_join(shingled, 0.6).pairs
    got = pd.read_parquet(tmp_path / "pairs.parquet")
    assert len(want) > 500 and info["pairs"] == len(want)
    assert got.i.tolist() == want.i.tolist() and got.j.tolist() == want.j.tolist()
    assert got.score.tolist() == want.score.tolist()
    assert got.id_i.tolist() == [ids[i] for i in want.i]
    edges = sorted(set(np.round(np.arange(0.6, 1.0, HISTOGRAM_STEP), 10).tolist() + [1.0]))
    hist = pd.read_csv(tmp_path / "histogram.csv")
    assert hist.pairs.tolist() == pair_histogram(want, edges, 0)[0].tolist()
    top = top_k(want, len(ids), 3)
    topk = pd.read_csv(tmp_path / "topk.csv")
    has = top.neighbour.ravel() >= 0
    assert topk.j.tolist() == top.neighbour.ravel()[has].tolist()
    cand = lsh_candidate_pairs(signatures(shingled, mh), shingled.sizes == 0, banding.bands,
                               banding.rows)
    ref = recall_by_bin(want, cand, len(ids), edges, banding)
    rec = pd.read_csv(tmp_path / "lsh_recall.csv")
    assert rec.found.tolist() == ref.found.tolist()
    np.testing.assert_allclose(rec.expected, ref.expected, atol=5e-7)  # written to 6 decimals
    assert json.loads((tmp_path / "join.json").read_text())["pairs_row_groups"] >= 1


def _template(n):
    """n titles of one template and n others."""
    other = [f"전혀 다른 기사 {chr(0xAC00 + 7 * k)}{chr(0xAC00 + 13 * k)}" for k in range(n)]
    return shingle_matrix([f"한국은행 기준금리 동결 보고서 제{k}호" for k in range(n)] + other, 3)


def test_the_expected_pairs_hold_the_pairs_the_join_lists(tmp_path):
    from newsdedup.runs.join import expected_pairs

    shingled = _template(300)  # 179,700 pairs: sampled
    said = []
    got = write_join([f"x{k}" for k in range(600)], shingled, 0.5, tmp_path / "j", {},
                     progress=said.append)
    est = expected_pairs(shingled, 0.5)
    assert est.sampled > 0 and est.low <= got["pairs"] <= est.high
    assert f"about {est.point:,.0f} pairs expected" in said[0]
    small = expected_pairs(shingle_matrix(["abcde", "abcdf", "xyz"], 3), 0.3)
    assert (small.point, small.low, small.high, small.sampled) == (1.0, 1.0, 1.0, 0)


def test_a_join_that_cannot_fit_on_the_disk_is_refused_before_writing(tmp_path, monkeypatch):
    import shutil

    from newsdedup.runs.join import JoinTooLarge

    real = shutil.disk_usage
    monkeypatch.setattr("newsdedup.runs.join.shutil.disk_usage",
                        lambda p: real(p)._replace(free=1_000))
    out = tmp_path / "j"
    with pytest.raises(JoinTooLarge, match=r"would list about [\d,]+ pairs .* GB free"):
        write_join([f"x{k}" for k in range(600)], _template(300), 0.5, out, {})
    assert not any(out.iterdir())  # nothing spilled, nothing written


def test_a_long_join_tells_its_progress_and_the_pairs_so_far(tmp_path, monkeypatch):
    from newsdedup.runs import join

    monkeypatch.setattr(join._RowsDone, "EVERY", 0.0)
    monkeypatch.setattr(join, "stream_block", lambda n: 64)
    said = []
    got = write_join([f"x{k}" for k in range(600)], _template(300), 0.5, tmp_path / "j", {},
                     progress=said.append)
    lines = [s for s in said if s.startswith("join: ")]
    assert len(lines) >= 3 and all("items/s, ETA" in s for s in lines)
    counts = [int(s.rsplit("; ", 1)[1].split()[0].replace(",", "")) for s in lines]
    assert counts == sorted(counts) and counts[-1] == got["pairs"]

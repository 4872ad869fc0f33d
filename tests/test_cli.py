"""The command line end to end on small corpora written to tmp_path."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from newsdedup.cli import build_parser, main

HEADLINES = [
    ("a1", "진천군, 온디바이스 AI 기반 스마트 돌봄 구축 본격 착수", "진천군이 스마트 돌봄 사업을 시작했다 어르신 가정에 기기를 보급한다"),
    ("a2", "진천군 온디바이스 AI기반 스마트돌봄 본격화", "진천군이 스마트 돌봄 사업을 본격화했다 어르신 가정에 기기를 보급한다"),
    ("b1", "화성시, AI 화재 감지 시스템 도입", "화성시가 공장 밀집 지역에 인공지능 화재 감지 카메라를 설치한다고 밝혔다"),
    ("c1", "포항시 제조 AI 실증 착수", "포항시가 철강 공정에 제조 인공지능 실증 사업을 시작한다 지역 기업이 참여한다"),
    ("d1", "노타, AMD와 협력 발표", "노타가 AMD와 온디바이스 모델 최적화 협력을 발표했다 양사는 공동 개발에 나선다"),
]


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "feed.jsonl"
    rows = [{"id": i, "title": t, "summary": s, "url": f"https://news{k % 2}.example/{i}",
             "published_at": f"2026-05-0{k + 1}"} for k, (i, t, s) in enumerate(HEADLINES)]
    rows.append({"id": "", "title": "no id", "summary": ""})
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", "utf-8")
    return path


@pytest.mark.parametrize("cmd", ["measure", "calibrate", "crosshost", "run", "dedupe", "join",
                                 "fetch"])
def test_every_command_has_help(cmd, capsys):
    with pytest.raises(SystemExit) as exc:
        build_parser().parse_args([cmd, "--help"])
    assert exc.value.code == 0
    assert "usage: newsdedup" in capsys.readouterr().out


def test_run_writes_everything_and_accounts_for_the_rejected_record(corpus, tmp_path, capsys):
    out = tmp_path / "results"
    code = main(["run", str(corpus), "--name", "feed", "--out", str(out), "--error-perms",
                 "16,32", "--trials", "3", "--hosts", "news0.example,news1.example"])
    assert code == 0
    base = out / "feed"
    for rel in ("measure/measure.md", "measure/params.json", "calibrate/both_sided.csv",
                "calibration.json", "crosshost/crosshost.json"):
        assert (base / rel).is_file(), rel
    params = json.loads((base / "measure/params.json").read_text("utf-8"))
    assert params["corpus"]["records"] == 6 and params["corpus"]["items"] == 5
    assert params["corpus"]["rejected"][0]["line"] == 6
    assert params["config"]["minhash"]["scheme"] == "crc32-affine-mod-2^61-1"
    cross = json.loads((base / "crosshost/crosshost.json").read_text("utf-8"))
    assert cross["summary"]["cross_pairs"] == 6  # 3 items on one host x 2 on the other
    timings = json.loads((base / "timings.json").read_text("utf-8"))
    assert timings["items_in_outputs"]["measure"] == [5, 5, 5]
    assert timings["items_in_outputs"]["crosshost"] == [5, 5]
    err = capsys.readouterr().err
    assert "rejected feed.jsonl line 6" in err


def test_dedupe_writes_every_item_once(corpus, tmp_path):
    out = tmp_path / "results"
    assert main(["dedupe", str(corpus), "--name", "feed", "--out", str(out)]) == 0
    items = pd.read_csv(out / "feed/dedupe/items.csv")
    assert sorted(items["id"]) == sorted(i for i, _, _ in HEADLINES)
    # the two 진천군 rewrites share a group; the others stay alone
    group = dict(zip(items["id"], items["group"], strict=True))
    assert group["a1"] == group["a2"] and len(set(group.values())) == 4


def test_dedupe_sweep_reference_and_minhash_options(corpus, tmp_path):
    out = tmp_path / "results"
    assert main(["dedupe", str(corpus), "--name", "feed", "--out", str(out), "--scorer", "minhash",
                 "--num-perm", "32", "--minhash-seed", "3", "--sweep", "0.2,0.9",
                 "--reference", str(corpus), "--syndicators", "a.kr, b.kr"]) == 0
    meta = json.loads((out / "feed/dedupe/dedupe.json").read_text("utf-8"))
    assert meta["scorer"]["minhash"]["num_perm"] == 32 and meta["scorer"]["minhash"]["seed"] == 3
    assert meta["config"]["syndicators"] == ["a.kr", "b.kr"]
    assert sum(meta["by_stage"].values()) == meta["items"]
    sweep = pd.read_csv(out / "feed/dedupe/sweep.csv")
    assert len(sweep) == 3 * 2 * 2 and set(sweep["threshold"]) == {0.2, 0.9}
    assert (sweep["items_left"] <= meta["items"]).all()


def test_missing_file_is_a_readable_error(tmp_path, capsys):
    assert main(["measure", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path)]) == 2
    assert "nope.jsonl" in capsys.readouterr().err


def test_bad_number_list_is_rejected_by_argparse(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["measure", "--thresholds", "0.5,abc"])
    assert "comma-separated numbers" in capsys.readouterr().err


def test_evaluate_pairs_ngrams_writes_both_languages(tmp_path):
    # --ngrams folds in the per-n tables of the retired evaluate-sts (same files).
    out = tmp_path / "results"
    assert main(["evaluate", "pairs", "--out", str(out), "--resamples", "10", "--ngrams", "2"]) == 0
    assert (out / "korsts/eval/summary.csv").is_file()
    ko = pd.read_csv(out / "sts-headlines-dev/evaluate/ko_cutoffs.csv")
    en = pd.read_csv(out / "sts-headlines-dev/evaluate/en_cutoffs.csv")
    # same rows, same grades: the label counts agree across languages
    assert ko[["n_same", "n_different"]].equals(en[["n_same", "n_different"]])
    assert (ko["mean_same"] > ko["mean_different"]).all()


@pytest.mark.filterwarnings("ignore:.*rejected 1 of 6 records")  # the fixture's id-less row
def test_join_writes_the_brute_force_pairs_on_both_paths(corpus, tmp_path):
    import numpy as np

    from newsdedup.corpus.load import load_corpus
    from newsdedup.score.jaccard import jaccard_matrix, upper_pairs
    from newsdedup.text.normalize import hangul_alnum, item_text
    from newsdedup.text.shingle import shingle_matrix

    items = load_corpus(corpus).items
    full = upper_pairs(jaccard_matrix(shingle_matrix(
        [hangul_alnum(item_text(t, s)) for t, s in zip(items.title, items.summary, strict=True)],
        3)))
    keep = full.score >= 0.2
    assert keep.any()
    outs = {}
    for path, extra in (("one", []), ("dask", ["--scheduler", "local"])):
        out = tmp_path / path
        assert main(["join", str(corpus), "--name", "feed", "--out", str(out), "--threshold", "0.2",
                     "--text", "title+summary", "--top-k", "2", "--lsh-threshold", "0.3",
                     "--lsh-recall", "0.9", *extra]) == 0
        pairs = pd.read_parquet(out / "feed" / "join" / "pairs.parquet")
        assert pairs[["i", "j"]].values.tolist() == np.column_stack(
            (full.i[keep], full.j[keep])).tolist()
        assert pairs.score.tolist() == full.score[keep].tolist()  # float64, not rounded
        info = json.loads((out / "feed" / "join" / "join.json").read_text("utf-8"))
        assert info["pairs"] == int(keep.sum()) and info["banding"]["rule"] == "recall>=0.9"
        assert info["pairs"] + info["pairs_below_threshold"] == len(full)
        outs[path] = [(out / "feed" / "join" / f).read_bytes()
                      for f in ("pairs.parquet", "topk.csv", "histogram.csv", "lsh_recall.csv")]
    assert outs["one"] == outs["dask"]  # byte for byte


STORY_CSV = (
    "ID,TITLE,URL,PUBLISHER,CATEGORY,STORY,HOSTNAME,TIMESTAMP\n"
    "1,Fed holds rates steady,http://a.example/1,A,b,s1,a.example,1394470370698\n"
    "2,Fed holds rates steady again,http://b.example/2,B,b,s1,b.example,1394470371207\n"
    "3,Apple sues Samsung,http://a.example/3,A,t,s2,a.example,1394470371550\n"
    "4,Apple sues Samsung,http://b.example/4,B,t,s3,b.example,1394470371793\n"
    "5,Rain in Spain,http://a.ex"
)


@pytest.mark.parametrize("cmd", ["evaluate-pairs", "evaluate-clusters"])
def test_evaluate_commands_have_help(cmd, capsys):
    with pytest.raises(SystemExit) as exc:
        build_parser().parse_args([cmd, "--help"])
    assert exc.value.code == 0
    assert "usage: newsdedup" in capsys.readouterr().out


def test_evaluate_clusters_accounts_for_every_record(tmp_path, capsys):
    path = tmp_path / "stories.csv"
    path.write_text(STORY_CSV, "utf-8")
    out = tmp_path / "results"
    cols = "id=ID,title=TITLE,url=URL,source=PUBLISHER,published_at=TIMESTAMP"
    assert main(["evaluate", "clusters", str(path), "--columns", cols, "--name", "tiny", "--out",
                 str(out), "--thresholds", "0.5", "--reference", str(tmp_path / "none")]) == 2
    assert "stsb-en" in capsys.readouterr().err  # a missing reference folder is named
    assert main(["evaluate", "clusters", str(path), "--columns", cols, "--out", str(out),
                 "--thresholds", "0.5"]) == 2
    assert "examples_at=0.3 is not one of the thresholds" in capsys.readouterr().err
    code = main(["evaluate", "clusters", str(path), "--columns", cols, "--name", "tiny", "--out",
                 str(out), "--thresholds", "0.5", "--examples-at", "0.5"])
    assert code == 0
    params = json.loads((out / "tiny/eval/params.json").read_text("utf-8"))
    assert params["corpus"]["records"] == 5 and params["corpus"]["items"] == 4
    assert params["corpus"]["rejected"][0]["id"] == "5"  # the truncated last row
    assert params["minhash"]["family"] == "crc32-mersenne61"
    runs = pd.read_csv(out / "tiny/eval/runs.csv")
    assert (runs["items"] == 4).all()
    noise = pd.read_csv(out / "tiny/eval/noise.csv")
    assert noise["cross_pairs"].tolist() == [1]  # the two 'Apple sues Samsung' stories
    assert "rejected stories.csv line 6" in capsys.readouterr().err
    assert not (out / "tiny/evaluate").exists()  # the all-pairs tables only on request
    assert main(["evaluate", "clusters", str(path), "--columns", cols, "--name", "tiny", "--out",
                 str(out), "--thresholds", "0.5", "--examples-at", "0.5", "--pairs-ngram", "3"]) == 0
    # --pairs-n folds in the tables of the retired evaluate-stories.
    summary = pd.read_csv(out / "tiny/evaluate/stories_summary.csv")
    assert summary[["pairs", "positives"]].values.tolist() == [[6, 1]]
    story_params = json.loads((out / "tiny/evaluate/stories_params.json").read_text("utf-8"))
    assert story_params["n"] == 3 and story_params["corpus"]["items"] == 4
    assert main(["evaluate", "clusters", str(path), "--columns", cols, "--story-column", "NOPE",
                 "--out", str(out)]) == 2
    assert "no story column 'NOPE'" in capsys.readouterr().err


def test_quiet_silences_progress_but_not_rejected_records(corpus, tmp_path, capsys):
    out = tmp_path / "results"
    assert main(["measure", str(corpus), "--name", "feed", "--out", str(out), "--error-perms",
                 "16", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1  # one summary line, the list in rejected.csv
    assert err.startswith("[newsdedup] rejected 1 of 6 records of feed.jsonl (first: line 6: ")
    assert (out / "feed" / "rejected.csv").read_text("utf-8").splitlines()[1].startswith("6,6,,")
    assert main(["measure", str(corpus), "--name", "feed", "--out", str(out), "--error-perms",
                 "16"]) == 0
    assert "measure: wrote" in capsys.readouterr().err


def test_measure_sampled_path_records_methods(corpus, tmp_path):
    out = tmp_path / "results"
    # Force the sampled path on five items: budget 0, no dense path.
    from newsdedup.runs.load import load_named
    from newsdedup.runs.measure import run_measure_step
    from newsdedup.studies.measure import MeasureConfig

    loaded, _ = load_named(corpus)
    config = MeasureConfig(dense_max_items=1, pair_budget=0, sample_pairs=200,
                           sampled_error_pairs=50, error_perms=(16,))
    run_measure_step(loaded, "feed", out, config, echo=False)
    params = json.loads((out / "feed/measure/params.json").read_text("utf-8"))
    assert params["scale"]["path"] == "sampled"
    hist = pd.read_csv(out / "feed/measure/histogram.csv")
    assert set(hist.exact_method) <= {"exact", "sampled"}
    assert hist.groupby("n").exact.sum().round(6).tolist() == [10.0] * 3  # 5 items, 10 pairs
    summary = pd.read_csv(out / "feed/measure/summary.csv")
    assert summary["items"].tolist() == [5] * 3
    assert {"err_mean_lo", "err_mean_hi", "err_mean_method", "sample_pairs"} <= set(summary)


def test_measure_prints_skipped_lsh_counts(corpus, tmp_path, capsys):
    from newsdedup.runs.load import load_named
    from newsdedup.runs.measure import run_measure_step
    from newsdedup.studies.measure import MeasureConfig

    loaded, _ = load_named(corpus)
    config = MeasureConfig(dense_max_items=1, pair_budget=0, sample_pairs=200,
                           sampled_error_pairs=50, error_perms=(16,), lsh_max_pairs=0)
    run_measure_step(loaded, "feed", tmp_path, config)
    assert "/ candidates   - / matches   - / recall nan" in capsys.readouterr().out


def test_sweep_pairs_per_item_reaches_the_calibrate_options():
    from newsdedup.calibration.defaults import SWEEP_PAIRS_PER_ITEM
    from newsdedup.cli.options import calibrate_options

    for cmd in ("calibrate", "run"):
        args = build_parser().parse_args([cmd, "--sweep-pairs-per-item", "200"])
        assert calibrate_options(args).sweep_pairs_per_item == 200
        args = build_parser().parse_args([cmd])
        assert calibrate_options(args).sweep_pairs_per_item == SWEEP_PAIRS_PER_ITEM
    with pytest.raises(SystemExit):
        build_parser().parse_args(["calibrate", "--sweep-pairs-per-item", "0"])


def test_the_next_step_of_a_run_repeats_the_run_with_the_labels(corpus, tmp_path, monkeypatch):
    # The command as the user typed it (sys.argv), as calibrate's next step quotes it.
    argv = ["run", str(corpus), "--name", "feed", "--trials", "2", "--error-perms", "16"]
    monkeypatch.setattr("sys.argv", ["newsdedup", *argv])
    assert main([*argv, "--out", str(tmp_path), "--quiet"]) == 0
    cal = json.loads((tmp_path / "feed" / "calibration.json").read_text(encoding="utf-8"))
    sheet = tmp_path / "feed" / "calibrate" / "to_label.csv"
    assert cal["recommended_threshold"] is None and sheet.is_file()  # declines: label first
    assert f"`newsdedup {' '.join(argv)} --labels {sheet}`" in cal["evidence"]["next"]

"""evaluate-pairs --pairs FILE: the pair study on any labelled pair file."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from newsdedup import paths
from newsdedup.cli import main
from newsdedup.corpus.sts import load_korsts
from newsdedup.evaluate.pairs import headline_split
from newsdedup.runs.evaluate_pairs import PairStudyConfig, run_pair_file, split_halves

OPTIONS = PairStudyConfig(n_resamples=50, embeddings=("use",))


@pytest.fixture(scope="module")
def graded() -> pd.DataFrame:
    """80 KorSTS dev headline pairs with their 0-5 grades, clear cases only."""
    dev = headline_split(load_korsts(paths.shared_corpus_file("korsts", "sts-dev.tsv")))
    clear = dev[(dev["score"] >= 4) | (dev["score"] <= 1)].head(80)
    return clear[["sentence1", "sentence2", "score"]].reset_index(drop=True)


def _auc(scores: np.ndarray, positive: np.ndarray) -> float:
    pos, neg = scores[positive], scores[~positive]
    wins = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(wins / (len(pos) * len(neg)))


def test_a_label_file_gets_the_study_tables(graded: pd.DataFrame, tmp_path: Path) -> None:
    labelled = graded.assign(label=(graded["score"] >= 4).astype(int)).drop(columns="score")
    path = tmp_path / "mine.jsonl"
    labelled.to_json(path, orient="records", lines=True, force_ascii=False)
    run_pair_file(path, {"a": "sentence1", "b": "sentence2", "score": "label"}, "mine",
                  tmp_path / "out", OPTIONS, echo=False, embed_cache=tmp_path / "cache")
    out = tmp_path / "out" / "mine" / "eval"
    assert {p.name for p in out.iterdir()} == {"summary.csv", "thresholds.csv", "gate.csv",
                                               "scores.csv", "recommendation.json", "eval.md",
                                               "params.json", "versus.csv"}
    versus = pd.read_csv(out / "versus.csv")
    assert versus["scorer"].tolist() == ["embedding-use"]
    summary = pd.read_csv(out / "summary.csv")
    committed = pd.read_csv(paths.RESULTS_DIR / "korsts" / "eval" / "summary.csv", nrows=1)
    assert summary.columns.tolist() == committed.columns.tolist()
    assert set(summary[["same_at", "different_at"]].itertuples(index=False)) == {(1.0, 0.0)}
    emb = summary[summary["scorer"] == "embedding-use"]
    assert emb["kind"].tolist() == ["embedding", "embedding"] and emb["n"].tolist() == [0, 0]
    # the seeded halves, stratified: about half of each class on each side
    n_test = int(summary["n_same"].iloc[0] + summary["n_different"].iloc[0])
    counts = labelled["label"].value_counts()
    assert n_test == sum(c // 2 for c in counts)  # the odd pair of a class goes to select
    # AUC in the summary = the brute-force AUC of the test scores written beside it
    scores = pd.read_csv(out / "scores.csv")
    positive = scores["grade"].to_numpy() == 1
    for scorer in ("jaccard-n2", "embedding-use"):
        row = summary[(summary["scorer"] == scorer) & ~summary["gate"]].iloc[0]
        assert row["auc"] == pytest.approx(_auc(scores[scorer].to_numpy(), positive), abs=1e-6)
        assert row["auc_lo"] <= row["auc"] <= row["auc_hi"]
    params = json.loads((out / "params.json").read_text(encoding="utf-8"))
    assert params["labels"] == "0/1" and params["split"]["seed"] == 0
    assert params["embedding"][0]["backend"] == "use" and params["embedding"][0]["version"]


def test_a_graded_file_with_a_split_column(graded: pd.DataFrame, tmp_path: Path) -> None:
    part = np.where(np.arange(len(graded)) % 2 == 0, "train", "dev")
    path = tmp_path / "graded.tsv"
    graded.assign(part=part).to_csv(path, sep="\t", index=False)
    run_pair_file(path, {"a": "sentence1", "b": "sentence2", "score": "score",
                         "split": "part"}, "graded", tmp_path, OPTIONS, echo=False)
    summary = pd.read_csv(tmp_path / "graded" / "eval" / "summary.csv")
    assert set(summary["same_at"]) == {4.0} and set(summary["different_at"]) == {1.0}
    assert int(summary["n_same"].iloc[0] + summary["n_different"].iloc[0]) == (part == "dev").sum()
    with pytest.raises(ValueError, match="no rows with part == 'test'"):
        run_pair_file(path, {"a": "sentence1", "b": "sentence2", "score": "score",
                             "split": "part"}, "graded", tmp_path,
                      PairStudyConfig(test="test", embeddings=()), echo=False)


def test_split_halves_is_seeded_and_stratified() -> None:
    df = pd.DataFrame({"score": [1] * 10 + [0] * 7})
    labels = pd.Series(["same"] * 10 + ["different"] * 7)
    a1, b1 = split_halves(df, labels, 3)
    a2, _ = split_halves(df, labels, 3)
    a3, _ = split_halves(df, labels, 4)
    assert a1.index.tolist() == a2.index.tolist() != a3.index.tolist()
    assert (a1["score"] == 1).sum() == 5 and (a1["score"] == 0).sum() == 4
    assert len(b1) == 8 and not set(a1.index) & set(b1.index)


def test_cli_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b,y\nx,y,1\nx,,0\n", encoding="utf-8")
    args = ["evaluate", "pairs", "--pairs", str(bad), "--columns", "a=a,b=b,score=y", "--out",
            str(tmp_path), "--embeddings", "none"]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"newsdedup: error: {bad}:3: 'b' (b) is empty"]
    one_class = tmp_path / "one.csv"
    one_class.write_text("a,b,y\nx,y,1\nz,w,1\n", encoding="utf-8")
    assert main(args[:3] + [str(one_class)] + args[4:]) == 2
    assert "need both 'same'" in capsys.readouterr().err
    assert main(["evaluate", "pairs", "--columns", "a=a,b=b,score=y"]) == 2
    assert "go with --pairs" in capsys.readouterr().err


def test_absent_sentence_transformers_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from newsdedup.score import embed as em

    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # as if not installed
    em._backend.cache_clear()
    pairs = tmp_path / "p.csv"
    pairs.write_text("a,b,y\nFed holds,Fed keeps,1\nOil up,Stocks down,0\nx y,x z,1\n"
                     "u v,w q,0\n", encoding="utf-8")
    rc = main(["evaluate", "pairs", "--pairs", str(pairs), "--columns", "a=a,b=b,score=y",
               "--out", str(tmp_path), "--embeddings", "sentence-transformers:my/model",
               "--no-embed-cache", "--resamples", "10"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and err[-1] == (
        "newsdedup: error: embedding backend 'sentence-transformers' needs the package "
        "'sentence-transformers', which is not installed: pip install sentence-transformers")
    assert not any("Traceback" in line for line in err)
    em._backend.cache_clear()

"""The labeling loop: sheet quotas, gold validation with file and line, metrics by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from newsdedup.evaluate.gold import (
    LABELS,
    GoldError,
    evaluate_gold,
    export_candidates,
    read_gold,
)
from newsdedup.paths import DATA_DIR
from newsdedup.signals.pairs import pair_signals, prepare

ITEMS = pd.DataFrame({
    "id": ["a", "b", "c", "d", "e"],
    "title": ["AlphaEvolve 1년 성과", "AlphaEvolve 연구 성과 정리", "Lyria 3 공개",
              "Lyria 3 음악 모델 공개", "Gemini 앱 기능"],
    "summary": ["유전체와 전력망", "유전체 분석", "음악", "음악 생성", "앱"],
    "host": ["blog.google", "deepmind.google", "blog.google", "deepmind.google", "blog.google"],
    "published_at": ["2026-05-07", "2026-05-06", "2026-03-01", "2026-03-20", "2026-05-06"],
})


@pytest.fixture(scope="module")
def prep():
    return prepare(ITEMS)


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "gold.csv"
    p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize(("body", "line", "match"), [
    ("a,b,same,x\na,c,dupe,y\n", 3, "label 'dupe'"),
    ("a,b,same,x\nb,a,different,y\n", 3, "already listed on line 2"),
    ("a,a,same,x\n", 2, "paired with itself"),
    ("a,zz,same,x\n", 2, "not in the corpus"),
    ("a,,same,x\n", 2, "must both be given"),
])
def test_gold_errors_name_file_and_line(tmp_path, body, line, match):
    path = _write(tmp_path, "id_i,id_j,label,reason\n" + body)
    with pytest.raises(GoldError, match=match) as info:
        read_gold(path, ITEMS["id"])
    assert info.value.line == line and str(path) in str(info.value)


def test_gold_missing_column_is_line_one(tmp_path):
    with pytest.raises(GoldError, match="missing column") as info:
        read_gold(_write(tmp_path, "id_i,id_j,reason\na,b,x\n"))
    assert info.value.line == 1


def test_every_gold_row_is_labeled_or_unlabeled(tmp_path):
    path = _write(tmp_path, 'id_i,id_j,label,reason,note\na,b,SAME,"one, post",z\n'
                            "c,d,,\nc,e,related,r\n")
    gold = read_gold(path, ITEMS["id"])
    assert len(gold.labeled) + len(gold.unlabeled) == 3
    assert gold.labeled["label"].tolist() == ["same", "related"]
    assert gold.labeled["line"].tolist() == [2, 4] and gold.unlabeled["line"].tolist() == [3]


def test_sheet_holds_each_scorers_quota_and_the_detector_candidates(prep):
    frame = pair_signals(prep)
    sheet = export_candidates(prep, frame, scorers=("title_jaccard", "summary_jaccard"), quota=2)
    keys = set(zip(sheet["id_i"], sheet["id_j"], strict=True))
    assert len(keys) == len(sheet)  # each pair once
    for s in ("title_jaccard", "summary_jaccard"):
        best = frame[frame[s] > 0].sort_values([s, "i", "j"], ascending=False).head(2)
        assert set(zip(best["id_i"], best["id_j"], strict=True)) <= keys
        assert sheet["proposed_by"].str.contains(s).sum() == len(best)
    assert ("a", "b") in keys and sheet["label"].eq("").all()
    row = sheet[(sheet["id_i"] == "a") & (sheet["id_j"] == "b")].iloc[0]
    assert row["detector"] == "candidate" and "detector" in row["proposed_by"]
    assert row["title_i"] == ITEMS["title"][0] and row["summary_j"] == ITEMS["summary"][1]


def test_evaluation_counts_match_a_count_by_hand(prep, tmp_path):
    path = _write(tmp_path, "id_i,id_j,label,reason\na,b,same,r\nc,d,followup,r\n"
                            "a,e,different,r\nb,e,related,r\n")
    res = evaluate_gold(prep, read_gold(path, ITEMS["id"]))
    pairs = res["pairs"]
    pos = pairs["label"].eq("same").to_numpy()
    m = res["metrics"].set_index(["name", "rule"])
    flag = pairs["detector"].eq("candidate").to_numpy()
    det = m.loc[("detector", m.loc["detector"].index[0])]
    assert (det["tp"], det["fp"], det["fn"]) == ((flag & pos).sum(), (flag & ~pos).sum(),
                                                  (~flag & pos).sum())
    score = pairs["title_jaccard"].to_numpy()
    full = m.loc[("title_jaccard", "full-recall")]
    t = score[pos].min()
    assert full["threshold"] == t and full["recall"] == 1.0
    assert full["precision"] == pytest.approx(pos[score >= t].mean())
    assert res["summary"]["pairs"].sum() == 4 and res["summary"]["label"].tolist() == list(LABELS)


def test_committed_gold_file_is_valid_and_holds_the_published_judgments(pinned):
    gold = read_gold(DATA_DIR / "gold" / "paldyn-ai-lab-news.csv", pinned.items["id"])
    assert len(gold.unlabeled) == 0 and gold.labeled["reason"].str.len().gt(0).all()
    lab = {frozenset((a, b)): lbl for a, b, lbl in
           gold.labeled[["id_i", "id_j", "label"]].itertuples(index=False)}
    assert lab[frozenset(("alphaevolve-updates", "alphaevolve-impact"))] == "same"
    assert lab[frozenset(("gemini-robotics-er-2", "gemini-robotics-er-1-6"))] != "same"
    assert lab[frozenset(("gemini-robotics-er-2", "gemini-robotics-2"))] != "same"
    assert np.isin(gold.labeled["label"], LABELS).all()

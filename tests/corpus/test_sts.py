"""Tests for newsdedup.corpus.sts: KorSTS / STS-B loaders and graded-pair labels."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from newsdedup.corpus.load import CorpusError
from newsdedup.corpus.sts import PAIR_COLUMNS, label_pairs, load_korsts, load_stsb
from newsdedup.paths import shared_corpus_file

HEADER = "\t".join(PAIR_COLUMNS)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


# ---------------------------------------------------------------------------------------
# synthetic files
# ---------------------------------------------------------------------------------------


def test_korsts_reads_fields_verbatim(tmp_path: Path) -> None:
    text = (
        f"{HEADER}\n"
        'main-news\theadlines\t2015\t0001\t4.200\t"따옴표" 제목\t제목 "둘\n'
        "main-news\tMSRpar\t2012train\t0002\t0\tA\tB\r\n"
    )
    df = load_korsts(write(tmp_path, "sts-dev.tsv", text))
    assert list(df.columns) == list(PAIR_COLUMNS)
    assert df["score"].dtype == "float64"
    assert df["score"].tolist() == [4.2, 0.0]
    # quotes are text, not CSV quoting; ids keep their zeros; CRLF is stripped
    assert df.loc[0, ["sentence1", "sentence2"]].tolist() == ['"따옴표" 제목', '제목 "둘']
    assert df["id"].tolist() == ["0001", "0002"]
    assert df.loc[1, "sentence2"] == "B"
    assert all(df[c].dtype == object for c in PAIR_COLUMNS if c != "score")


def test_korsts_without_final_newline(tmp_path: Path) -> None:
    text = f"{HEADER}\nmain-news\theadlines\t2015\t0001\t1\tA\tB"
    assert len(load_korsts(write(tmp_path, "k.tsv", text))) == 1


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        ("g\tf\t2015\t0001\t1\tA\tB\ng\tf\t2015\t0002\t1\tonly one\n", 3, "got 6"),
        ("g\tf\t2015\t0001\tfive\tA\tB\n", 2, "score 'five' is not a finite number"),
        ("g\tf\t2015\t0001\tnan\tA\tB\n", 2, "score 'nan'"),
        ("g\tf\t2015\t0001\t1\tA\tB\n\ng\tf\t2015\t0002\t1\tA\tB\n", 3, "got 1"),
        ("g\tf\t2015\t0001\t1\tA\tB\textra\n", 2, "expected 7 tab-separated fields, got 8"),
    ],
)
def test_korsts_bad_rows_raise_with_line(tmp_path: Path, body: str, line: int, message: str):
    path = write(tmp_path, "k.tsv", f"{HEADER}\n{body}")
    with pytest.raises(CorpusError, match=message) as err:
        load_korsts(path)
    assert (err.value.path, err.value.line) == (path, line)


def test_korsts_wrong_header(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="expected the header") as err:
        load_korsts(write(tmp_path, "k.tsv", "g\tf\t2015\t0001\t1\tA\tB\n"))
    assert err.value.line == 1


def test_stsb_extra_fields_are_joined(tmp_path: Path) -> None:
    text = (
        'main-news\theadlines\t2016\t0281\t5\tUS court\'s "limits"\tHigh court\tsrc a\tsrc b\n'
        "main-news\theadlines\t2016\t0282\t1.5\tA\tB\n"
    )
    df = load_stsb(write(tmp_path, "sts-dev.csv", text))
    assert list(df.columns) == [*PAIR_COLUMNS, "extra"]
    assert df["extra"].tolist() == ["src a\tsrc b", ""]
    assert df.loc[0, "sentence1"] == 'US court\'s "limits"'
    assert df["score"].tolist() == [5.0, 1.5]


def test_stsb_too_few_fields(tmp_path: Path) -> None:
    text = "g\tf\t2016\t0001\t1\tA\tB\ng\tf\t2016\t0002\t1\tA\n"
    with pytest.raises(CorpusError, match="expected 7 tab-separated fields, got 6") as err:
        load_stsb(write(tmp_path, "s.csv", text))
    assert err.value.line == 2


def test_empty_pair_file(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="empty"):
        load_stsb(write(tmp_path, "s.csv", "\n\n"))


def test_label_pairs_cutoffs_are_inclusive() -> None:
    df = pd.DataFrame({"score": [5.0, 4.0, 3.99, 1.01, 1.0, 0.0]}, index=list("abcdef"))
    labels = label_pairs(df)
    assert labels.tolist() == ["same", "same", "between", "between", "different", "different"]
    assert labels.index.tolist() == list("abcdef")
    assert labels.name == "label"
    assert label_pairs(df, same_at=3.5, different_at=2.0).tolist() == [
        "same",
        "same",
        "same",
        "different",
        "different",
        "different",
    ]
    # equal cut-offs split the scale: at or above is same, strictly below different
    assert label_pairs(df, same_at=4.0, different_at=4.0).tolist() == [
        "same", "same", "different", "different", "different", "different"]
    with pytest.raises(ValueError, match="must not exceed"):
        label_pairs(df, same_at=2.0, different_at=2.5)


# ---------------------------------------------------------------------------------------
# real files (fail, not skip, when the shared files are missing)
# ---------------------------------------------------------------------------------------




@pytest.mark.parametrize(
    ("split", "rows", "headlines"), [("dev", 1500, 250), ("train", 5749, 1999)]
)
def test_korsts_and_stsb_align_one_to_one(split: str, rows: int, headlines: int) -> None:
    ko = load_korsts(shared_corpus_file("korsts", f"sts-{split}.tsv"))
    en = load_stsb(shared_corpus_file("stsb-en", f"sts-{split}.csv"))
    assert len(ko) == len(en) == rows
    keys = ["genre", "filename", "year", "id", "score"]
    pd.testing.assert_frame_equal(ko[keys], en[keys])
    news = ko[ko["filename"] == "headlines"]
    assert len(news) == headlines
    assert set(news["genre"]) == {"main-news"}
    assert ko["score"].between(0, 5).all()


def test_korsts_dev_headline_labels() -> None:
    ko = load_korsts(shared_corpus_file("korsts", "sts-dev.tsv"))
    news = ko[ko["filename"] == "headlines"]
    counts = label_pairs(news).value_counts().to_dict()
    assert counts == {"between": 142, "different": 58, "same": 50}
    assert ko.loc[0, "sentence1"] == "안전모를 가진 한 남자가 춤을 추고 있다."  # file order


def test_stsb_dev_extra_columns() -> None:
    en = load_stsb(shared_corpus_file("stsb-en", "sts-dev.csv"))
    extra = en[en["extra"] != ""]
    assert len(extra) == 22
    assert set(extra["filename"]) == {"headlines"}
    assert extra["extra"].str.count("\t").eq(1).all()

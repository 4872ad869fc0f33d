"""Regression tests for the input side of issue 16 (bad-input audit): one test per defect.

Each test failed before its fix; the expected values are written out from the input
files, not from the loader.
"""

from __future__ import annotations

import json
import unicodedata
import warnings
from pathlib import Path

import pandas as pd
import pytest

from newsdedup.cli import main
from newsdedup.cluster.dedupe import DedupeConfig, dedupe
from newsdedup.corpus.load import CorpusError, CorpusWarning, LoadResult, load_corpus


def load_quiet(path: Path, **kwargs) -> LoadResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CorpusWarning)
        return load_corpus(path, **kwargs)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- 1. NFD text, zero-width titles ------------------------------------------------------

NFC_TITLES = ["AI 반도체 수출 급증", "AI 기반 스마트 돌봄 확대", "AI 인재 양성 협약",
              "AI 법안 국회 통과"]


def test_nfd_headlines_load_and_dedupe_as_their_nfc_twins(tmp_path: Path) -> None:
    # Four different headlines sharing only "AI": in NFD the published scheme once kept
    # just "ai" of each and merged all four as exact-headline copies.
    rows = [{"id": f"n{i}", "title": unicodedata.normalize("NFD", t)}
            for i, t in enumerate(NFC_TITLES)]
    rows += [{"id": f"c{i}", "title": t} for i, t in enumerate(NFC_TITLES)]
    path = write(tmp_path, "n.jsonl", "".join(json.dumps(r, ensure_ascii=False) + "\n"
                                              for r in rows))
    items = load_quiet(path).items
    assert items["title"].tolist() == NFC_TITLES + NFC_TITLES
    result = dedupe(items, DedupeConfig(threshold=0.99))
    groups = result.items.groupby("group")["id"].apply(sorted).tolist()
    # Each NFD headline is grouped with exactly its NFC twin, and with nothing else.
    assert sorted(groups) == sorted([[f"c{i}", f"n{i}"] for i in range(4)])


def test_zero_width_only_title_is_a_listed_reject(tmp_path: Path) -> None:
    text = "id,title\na,\u200b\u200b\nb,\u200d\ufeff \u2060\nc,real\n"
    res = load_quiet(write(tmp_path, "z.csv", text))
    assert res.items["id"].tolist() == ["c"]
    assert [(r.line, r.id) for r in res.rejected] == [(2, "a"), (3, "b")]
    assert all("only invisible characters" in r.reason for r in res.rejected)


# --- 2. CSV: an unterminated quote mid-file ----------------------------------------------


def test_unterminated_quote_mid_file_loses_no_row(tmp_path: Path) -> None:
    # The audit's case: 5 data rows; the quote opened on line 3 closes on line 6, so csv
    # read lines 3-6 as one record and rows 3 and 4 appeared nowhere.
    text = ('id,title,url\n1,A,u1\n2,"B lost its quote,u2\n3,C,u3\n4,D,u4\n'
            '5,E,"u5"\n')
    res = load_quiet(write(tmp_path, "q.csv", text))
    assert res.items["id"].tolist() == ["1", "3", "4", "5"]
    assert [(r.line, r.id) for r in res.rejected] == [(3, "2")]
    assert res.n_records == len(res.items) + len(res.rejected) == 5
    assert "lost quote?" in res.rejected[0].reason


def test_runaway_quote_closing_with_the_right_field_count_is_caught(tmp_path: Path) -> None:
    # The later quote closes the runaway field cleanly and the count is right: only the
    # swallowed row-shaped line (4) gives it away.
    text = 'id,title,x\na,"T,1\nb,U,2\nc,",V\n'
    res = load_quiet(write(tmp_path, "r.csv", text))
    assert "b" in res.items["id"].tolist()
    assert res.rejected[0].line == 2 and "swallows line 3" in res.rejected[0].reason


def test_legitimate_multiline_fields_are_kept(tmp_path: Path) -> None:
    text = 'id,title,summary\na,T,"first line\nsecond, line\n"\nb,U,v\n'
    res = load_quiet(write(tmp_path, "m.csv", text))
    assert res.rejected == []
    assert res.items["summary"].tolist() == ["first line\nsecond, line\n", "v"]


# --- 3. Parquet binary titles ------------------------------------------------------------


def test_parquet_bytes_titles_are_decoded_and_bad_bytes_rejected(tmp_path: Path) -> None:
    path = tmp_path / "b.parquet"
    pd.DataFrame({"id": ["a", "b"], "title": ["가나 AI".encode(), b"ok \xff"]}).to_parquet(path)
    res = load_quiet(path)
    assert res.items["title"].tolist() == ["가나 AI"]
    [rej] = res.rejected
    assert (rej.record, rej.id) == (2, "b")
    assert "0xff at byte offset 3 are not UTF-8" in rej.reason


# --- 4. CSV field over csv's default limit -----------------------------------------------


def test_csv_field_longer_than_the_default_limit(tmp_path: Path) -> None:
    summary = "x" * 200_000
    res = load_corpus(write(tmp_path, "l.csv", f'id,title,summary\na,T,"{summary}"\nb,U,s\n'))
    assert res.rejected == [] and res.items["summary"].str.len().tolist() == [200_000, 1]


# --- 5. TS: a ${...} template literal ----------------------------------------------------


def test_ts_template_literal_rejects_only_its_record(tmp_path: Path) -> None:
    source = ("const entries = [\n  { id: 'a', title: 'A' },\n  { id: 'b',\n    title: `x${y}` },\n"
              "  { id: 'c', title: 'C' },\n];\n")
    res = load_quiet(write(tmp_path, "n.ts", source))
    assert res.items["id"].tolist() == ["a", "c"]
    [rej] = res.rejected
    assert (rej.record, rej.line, rej.id) == (2, 3, "b")
    assert "template literal with ${...} on line 4" in rej.reason


# --- 6. JSONL: NaN/Infinity and duplicate keys -------------------------------------------


@pytest.mark.parametrize(("line", "reason"), [
    ('{"id": "b", "title": NaN}', "NaN is not a JSON value"),
    ('{"id": "b", "title": "T", "n": -Infinity}', "-Infinity is not a JSON value"),
    ('{"id": "b", "title": "T", "title": "U"}', "duplicate key 'title'"),
])
def test_jsonl_nan_and_duplicate_keys_are_rejected_per_record(
    tmp_path: Path, line: str, reason: str
) -> None:
    text = '{"id": "a", "title": "A"}\n' + line + '\n{"id": "c", "title": "C"}\n'
    res = load_quiet(write(tmp_path, "n.jsonl", text))
    assert res.items["id"].tolist() == ["a", "c"]
    [rej] = res.rejected
    assert (rej.record, rej.line) == (2, 2) and reason in rej.reason


# --- 7. dates: one rule for loading, dedupe and cross-host -------------------------------


def test_unparsable_date_is_a_listed_reject(tmp_path: Path) -> None:
    text = "id,title,published_at\na,A,2025-05-01\nb,B,yesterday\nc,C,\n"
    res = load_quiet(write(tmp_path, "d.csv", text))
    assert res.items["id"].tolist() == ["a", "c"]  # an empty date is unknown, not wrong
    [rej] = res.rejected
    assert (rej.line, rej.id) == (3, "b") and "'yesterday' is not an ISO 8601" in rej.reason


# --- 8. CLI: --delimiter and --encoding; errors are one line -----------------------------


def test_cli_delimiter_and_encoding(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.csv"
    path.write_bytes("id;title\na;가나다 라마\nb;바사아 자차\n".encode("cp949"))
    out = tmp_path / "out"
    args = ["dedupe", str(path), "--out", str(out), "--name", "k"]
    assert main([*args, "--delimiter", ";", "--encoding", "cp949"]) == 0
    items = pd.read_csv(next(out.rglob("items.csv")), dtype=str)
    assert sorted(items["title"]) == ["가나다 라마", "바사아 자차"]
    capsys.readouterr()
    assert main([*args, "--delimiter", ";"]) == 2  # cp949 bytes are not UTF-8
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith(f"newsdedup: error: {path}:2: cannot decode")
    assert "Traceback" not in "\n".join(err)
    assert main([*args, "--encoding", "no-such-codec"]) == 2
    assert capsys.readouterr().err.strip().endswith(f"{path}: unknown text encoding "
                                                    "'no-such-codec'")


def test_delimiter_on_a_non_csv_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "n.jsonl", '{"id": "a", "title": "A"}\n')
    with pytest.raises(ValueError, match=f"{path}: a delimiter applies only"):
        load_corpus(path, sep=";")
    with pytest.raises(CorpusError, match="delimiter must be one character"):
        load_corpus(write(tmp_path, "n.csv", "id,title\na,A\n"), sep='"')

"""Empty texts and huge n-gram sizes (issue 28, items 6 and 7).

Item 6: three hundred titles that normalize to "" (punctuation only) beside real ones
crashed dedupe and calibrate with a numpy broadcast error, from 257 on: they share the
empty subject key, their bucket outgrows :class:`~newsdedup.cluster.gate.BucketLimits`,
and the prefix filter of such a bucket had no entry to take row ends from. Item 7: no
upper bound on the n-gram size; ``--n 1e10`` hung in ``base ** n``.
"""

from __future__ import annotations

import json
import time

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.cli import main
from newsdedup.cluster.dedupe import DedupeConfig, dedupe
from newsdedup.text import MAX_NGRAM
from newsdedup.text.shingle import shingle_matrix, shingles

REAL = ["진천군 스마트 돌봄 구축 착수", "진천군 스마트돌봄 구축 본격 착수", "화성시 화재 감지 도입"]


def table(n_empty: int, real: list[str]) -> pd.DataFrame:
    titles = real + ["!!! ... ???" + "!" * (k % 7) for k in range(n_empty)]
    return pd.DataFrame({"id": [f"r{k}" for k in range(len(titles))], "title": titles})


@pytest.mark.parametrize("scorer", ["idf", "jaccard", "minhash"])
def test_three_hundred_empty_titles_beside_real_ones_dedupe(scorer):
    result = dedupe(table(300, REAL), DedupeConfig(threshold=0.3, scorer=scorer))
    groups = result.items["group"].to_numpy()
    assert groups[0] == groups[1] != groups[2]  # the real near-copies still join
    assert len(set(groups[3:])) == 300  # an empty text says nothing: each alone
    assert set(result.items["stage"].iloc[3:]) == {"unique"}


def test_calibrate_runs_with_three_hundred_empty_titles(tmp_path, capsys):
    path = tmp_path / "f.jsonl"
    frame = table(300, REAL * 4)
    path.write_text("".join(json.dumps({"id": i, "title": t}, ensure_ascii=False) + "\n"
                            for i, t in zip(frame["id"], frame["title"], strict=True)), "utf-8")
    code = main(["calibrate", str(path), "--out", str(tmp_path / "out"), "--quiet",
                 "--trials", "2"])
    assert code == 0, capsys.readouterr().err


@settings(max_examples=25)
@given(st.integers(min_value=0, max_value=600), st.lists(st.sampled_from(REAL), max_size=6),
       st.booleans(), st.sampled_from(["idf", "jaccard", "minhash"]))
def test_any_number_of_empty_texts_never_breaks_a_dedupe(n_empty, real, gate, scorer):
    # The neighbourhood: below and above the bucket limit, with and without real texts
    # and the gate, every scorer.
    frame = table(n_empty, real)
    result = dedupe(frame, DedupeConfig(threshold=0.3, scorer=scorer, gate=gate))
    assert len(result.items) == len(frame)
    empty = result.items.iloc[len(real):]
    assert empty["group"].nunique() == n_empty


def test_n_gram_size_is_bounded_everywhere_and_refused_at_once():
    start = time.perf_counter()
    for n in (MAX_NGRAM + 1, 10**10, 10**400):
        with pytest.raises(ValueError, match=r"n-gram size must be an integer in \[1, 64\]"):
            shingle_matrix(["abc"], n)
        with pytest.raises(ValueError, match="n-gram size"):
            shingles("abc", n)
        with pytest.raises(ValueError, match="n-gram size"):
            dedupe(table(0, REAL), DedupeConfig(n=n))
    assert time.perf_counter() - start < 5


@settings(max_examples=50)
@given(st.lists(st.text(min_size=0, max_size=80), max_size=5),
       st.integers(min_value=1, max_value=MAX_NGRAM))
def test_shingle_matrix_of_any_size_up_to_the_bound_equals_the_sets(texts, n):
    m = shingle_matrix(texts, n)
    assert [m.row(i) for i in range(len(texts))] == [shingles(t, n) for t in texts]

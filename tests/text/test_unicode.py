"""NFC and NFD spellings of a text are one text: for every scheme, and through load + dedupe."""

from __future__ import annotations

import json
import tempfile
import unicodedata
import warnings
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.cluster.dedupe import DedupeConfig, dedupe
from newsdedup.corpus.load import CorpusWarning, load_corpus
from newsdedup.text.normalize import SCHEMES, hangul_alnum

# Precomposed Hangul, Latin with accents, digits and spaces: the characters NFD splits.
WORDS = st.text(st.sampled_from("가나다라마바사한국어뉴스AIaeéüñ0123 "), min_size=1, max_size=14)


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def test_decomposed_hangul_and_latin_keep_their_letters():
    assert hangul_alnum(nfd("AI 반도체")) == "ai반도체"  # was "ai": the jamo were dropped
    assert hangul_alnum(nfd("café")) == hangul_alnum("café") == "caf"
    assert SCHEMES["identity"](nfd("café")) == "café"


@given(st.text())
def test_every_scheme_gives_nfc_and_nfd_the_same_text(text: str) -> None:
    for name, fn in SCHEMES.items():
        assert fn(nfd(text)) == fn(unicodedata.normalize("NFC", text)), name


def load_and_dedupe(titles: list[str]) -> list[tuple]:
    rows = [{"id": f"r{k}", "title": t} for k, t in enumerate(titles)]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "n.jsonl"
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                        encoding="utf-8")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CorpusWarning)
            res = load_corpus(path)
    result = dedupe(res.items, DedupeConfig(threshold=0.5)).items
    return list(result[["id", "title", "group", "representative", "stage", "rule"]]
                .itertuples(index=False))


@settings(max_examples=60, deadline=None)
@given(st.lists(WORDS.filter(str.strip), min_size=1, max_size=8))
def test_nfc_and_nfd_corpora_dedupe_identically(titles: list[str]) -> None:
    assert load_and_dedupe([nfd(t) for t in titles]) == load_and_dedupe(titles)


def test_dedupe_api_buckets_an_nfd_table_with_its_nfc_twin():
    # Not through the loader: a table built in code, in NFD, must gate like NFC.
    import unicodedata

    import pandas as pd

    from newsdedup.cluster.dedupe import DedupeConfig, dedupe

    titles = ["진천군, 스마트 돌봄 플랫폼 구축",
              "진천군 스마트돌봄 플랫폼 구축 완료",
              "청주시 예산 편성"]
    nfc = pd.DataFrame({"id": ["a", "b", "c"], "title": titles})
    nfd = nfc.assign(title=[unicodedata.normalize("NFD", t) for t in titles])
    config = DedupeConfig(threshold=0.3)
    left, right = dedupe(nfc, config), dedupe(nfd, config)
    assert left.clustering.labels.tolist() == right.clustering.labels.tolist()
    assert left.items["lead"].tolist() == right.items["lead"].tolist()

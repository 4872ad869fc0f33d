"""Tests for newsdedup.corpus.records: the error every reader raises."""

from __future__ import annotations

import pickle
from pathlib import Path

from newsdedup.corpus.records import CorpusError


def test_corpus_error_message_omits_missing_parts() -> None:
    full = CorpusError(Path("a.csv"), "bad row", line=7, record=6)
    assert str(full) == "a.csv:7: record 6: bad row"
    assert (full.path, full.line, full.record, full.reason) == (Path("a.csv"), 7, 6, "bad row")
    assert str(CorpusError("a.ts", "no array")) == "a.ts: no array"
    assert str(CorpusError("a.pq", "dup", record=3)) == "a.pq: record 3: dup"
    assert isinstance(full, ValueError)
    again = pickle.loads(pickle.dumps(full))
    assert (str(again), again.line, again.record) == (str(full), 7, 6)

"""Labeling a sheet in the terminal (newsdedup.calibration.label)."""

import pandas as pd
import pytest

from newsdedup.calibration.label import (
    Answer,
    label_sheet,
    parse_answer,
    show_pair,
    strip_text,
)
from newsdedup.calibration.sheet import TEXT_COLUMNS, read_sheet


def make_sheet(path, labels, reasons=None, text=True):
    """A sheet of len(labels) pairs; pair k joins items ik and jk with titles 'title ik'."""
    n = len(labels)
    rows = pd.DataFrame({"pair": range(1, n + 1), "batch": 1,
                         "id_i": [f"i{k}" for k in range(n)],
                         "id_j": [f"j{k}" for k in range(n)],
                         "label": labels, "reason": reasons or [""] * n})
    if text:
        for side in ("i", "j"):
            rows[f"title_{side}"] = [f"title {side}{k}" for k in range(n)]
            rows[f"source_{side}"] = f"src_{side}"
            rows[f"published_{side}"] = "2024-01-02T03:04:05Z"
            rows[f"summary_{side}"] = [f"summary {side}{k}" for k in range(n)]
    rows["stratum"] = [k % 3 for k in range(n)]
    rows["stratum_size"] = 12345
    rows["inclusion"] = 0.000321
    rows.to_csv(path, index=False)
    return path


def labels_on_disk(path):
    return read_sheet(path).rows["label"].tolist()


class Spy:
    """Answers in turn; before each, the labels the sheet on disk holds."""

    def __init__(self, path, answers):
        self.path, self.answers, self.seen = path, list(answers), []

    def __iter__(self):
        return self

    def __next__(self):
        if not self.answers:
            raise StopIteration
        self.seen.append(labels_on_disk(self.path))
        return self.answers.pop(0)


# --- parse_answer -------------------------------------------------------------------------

@pytest.mark.parametrize(("line", "answer"), [
    ("s", Answer("same")), ("same", Answer("same")), ("Same", Answer("same")),
    ("  S  ", Answer("same")), ("d", Answer("different")), ("DIFFERENT", Answer("different")),
    ("d two companies under one template",
     Answer("different", "two companies under one template")),
    ("s  re-issue,  another URL ", Answer("same", "re-issue,  another URL")),
    ("k", Answer("skip")), ("skip cannot tell", Answer("skip", "cannot tell")),
    ("b", Answer("back")), ("back", Answer("back")), ("q", Answer("quit")),
    ("quit now", Answer("quit", "now")),
    ("maybe", None), ("", None), ("   ", None), ("sa", None), ("x same", None),
])
def test_parse_answer_reads_the_first_word_and_keeps_the_rest_as_reason(line, answer):
    assert parse_answer(line) == answer


# --- label_sheet -----------------------------------------------------------------------------

def test_labels_every_pair_keeping_reasons_and_counting(tmp_path):
    path = make_sheet(tmp_path / "s.csv", ["", "", ""])
    said = []
    counts = label_sheet(path, iter(["s", "d two companies under one template", "k"]),
                         said.append)
    assert counts == {"same": 1, "different": 1, "skip": 1, "left": 0}
    rows = read_sheet(path).rows
    assert rows["label"].tolist() == ["same", "different", "skip"]
    assert rows["reason"].tolist() == ["", "two companies under one template", ""]
    # Everything else is kept as it was.
    assert rows["id_i"].tolist() == ["i0", "i1", "i2"]
    assert rows["title_j"].tolist() == ["title j0", "title j1", "title j2"]
    assert rows["stratum"].tolist() == [0, 1, 2]
    assert rows["stratum_size"].tolist() == [12345] * 3
    assert said[0].startswith(f"3 pairs to label in {path}.")
    assert said[-2] == f"saved {path}: 1 same, 1 different, 1 skipped this session; 0 left"
    # A finished sheet says what to run next: the calibration reads it.
    assert said[-1].startswith("next: ") and f"--labels {path}" in said[-1]


def test_a_finished_holdout_names_the_command_that_drew_it_not_labels(tmp_path):
    path = make_sheet(tmp_path / "feed.model.csv", ["", ""])
    rows = pd.read_csv(path)
    rows.assign(batch=0).to_csv(path, index=False)  # a hold-out's (--holdout, --model-holdout)
    said = []
    label_sheet(path, iter(["s", "d"]), said.append)
    assert said[-1].startswith("next: ") and "drew this hold-out" in said[-1]
    assert "--labels" not in said[-1]


def test_a_sheet_with_pairs_left_names_no_next_step(tmp_path):
    path = make_sheet(tmp_path / "s.csv", ["", ""])
    said = []
    label_sheet(path, iter(["s", "q"]), said.append)
    assert said[-1].endswith("1 left") and not any(s.startswith("next: ") for s in said)


def test_saves_after_every_answer(tmp_path):
    path = make_sheet(tmp_path / "s.csv", ["", "", ""])
    spy = Spy(path, ["s", "d", "k"])
    label_sheet(path, spy, lambda _: None)
    assert spy.seen == [["", "", ""], ["same", "", ""], ["same", "different", ""]]
    assert labels_on_disk(path) == ["same", "different", "skip"]


def test_an_interrupted_session_keeps_the_answers_given(tmp_path):
    path = make_sheet(tmp_path / "s.csv", ["", "", "", ""])

    def answers():
        yield "d"
        yield "s because"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        label_sheet(path, answers(), lambda _: None)
    rows = read_sheet(path).rows
    assert rows["label"].tolist() == ["different", "same", "", ""]
    assert rows["reason"].tolist() == ["", "because", "", ""]


def test_resumes_at_the_first_unlabelled_pair(tmp_path):
    path = make_sheet(tmp_path / "s.csv", ["same", "", "different", ""],
                      reasons=["kept", "", "also kept", ""])
    said = []
    counts = label_sheet(path, iter(["d", "s"]), said.append)
    rows = read_sheet(path).rows
    assert rows["label"].tolist() == ["same", "different", "different", "same"]
    assert rows["reason"].tolist() == ["kept", "", "also kept", ""]
    assert counts == {"same": 1, "different": 1, "skip": 0, "left": 0}
    assert said[0].startswith("2 pairs to label")
    assert said[1].startswith("pair 1 of 2 (sheet row 2)")
    assert "title i1" in said[1] and "title j1" in said[1]
    assert said[2].startswith("pair 2 of 2 (sheet row 4)")


def test_back_clears_the_previous_answer_and_asks_it_again(tmp_path):
    path = make_sheet(tmp_path / "s.csv", ["", "", ""])
    spy = Spy(path, ["s", "d wrong", "b", "b", "d", "s", "q"])
    counts = label_sheet(path, spy, lambda _: None)
    # After each "b" the sheet on disk has lost the answer gone back to.
    assert spy.seen == [["", "", ""], ["same", "", ""], ["same", "different", ""],
                        ["same", "", ""], ["", "", ""], ["different", "", ""],
                        ["different", "same", ""]]
    rows = read_sheet(path).rows
    assert rows["label"].tolist() == ["different", "same", ""]
    assert rows["reason"].tolist() == ["", "", ""]  # the cleared reason is gone too
    assert counts == {"same": 1, "different": 1, "skip": 0, "left": 1}


def test_back_with_nothing_answered_asks_the_same_pair_again(tmp_path):
    path = make_sheet(tmp_path / "s.csv", ["", ""])
    said = []
    label_sheet(path, iter(["b", "k"]), said.append)
    assert "nothing to go back to in this session" in said
    shown = [s for s in said if s.startswith("pair ")]
    assert shown[0].startswith("pair 1 of 2") and shown[1].startswith("pair 1 of 2")
    assert labels_on_disk(path) == ["skip", ""]


def test_quit_stops_and_keeps_the_rest_unlabelled(tmp_path):
    path = make_sheet(tmp_path / "s.csv", ["", "", ""])
    answers = iter(["s", "q", "d"])
    counts = label_sheet(path, answers, lambda _: None)
    assert labels_on_disk(path) == ["same", "", ""]
    assert counts == {"same": 1, "different": 0, "skip": 0, "left": 2}
    assert next(answers) == "d"  # nothing was read after the quit


def test_invalid_answers_are_asked_again(tmp_path):
    path = make_sheet(tmp_path / "s.csv", ["", ""])
    said = []
    label_sheet(path, iter(["maybe", "", "yes", "d"]), said.append)
    assert labels_on_disk(path) == ["different", ""]
    refused = [s for s in said if s.startswith("not an answer")]
    assert [r.split(" (")[0] for r in refused] == [
        "not an answer: 'maybe'", "not an answer: ''", "not an answer: 'yes'"]


def test_running_out_of_answers_stops_like_quit(tmp_path):
    path = make_sheet(tmp_path / "s.csv", ["", "", ""])
    counts = label_sheet(path, iter(["s"]), lambda _: None)
    assert labels_on_disk(path) == ["same", "", ""]
    assert counts["left"] == 2


def test_a_sheet_without_text_shows_ids(tmp_path):
    path = make_sheet(tmp_path / "s.csv", ["", ""], text=False)
    said = []
    label_sheet(path, iter(["s", "d"]), said.append)
    assert any(s.startswith(f"note: {path} has no title_i") for s in said)
    assert "pair 1 of 2: i0 / j0" in said and "pair 2 of 2: i1 / j1" in said
    assert labels_on_disk(path) == ["same", "different"]


# --- show_pair and strip_text ------------------------------------------------------------------

def test_show_pair_shows_both_items_and_never_the_design(tmp_path):
    path = make_sheet(tmp_path / "s.csv", [""])
    row = read_sheet(path).rows.iloc[0].copy()
    row["summary_i"] = "word " * 30
    text = show_pair(row, 1, 5, width=40)
    lines = text.split("\n")
    assert lines[0] == "pair 1 of 5 (sheet row 1)"
    assert lines[1] == "  [i] src_i 2024-01-02T03:04:05Z"
    assert lines[2] == "      title i0"
    wrapped = [x for x in lines if x.strip().startswith("word")]
    assert len(wrapped) > 1 and all(len(x) <= 40 for x in wrapped)
    assert "".join(wrapped).split() == ["word"] * 30
    assert "  [j] src_j 2024-01-02T03:04:05Z" in lines and "      summary j0" in lines
    for hidden in ("12345", "0.000321", "stratum", "inclusion"):
        assert hidden not in text


def test_strip_text_writes_only_labelled_rows_without_text(tmp_path):
    path = make_sheet(tmp_path / "s.csv", ["same", "", "different", "skip", ""],
                      reasons=["r0", "", "r2", "r3", ""])
    out = tmp_path / "gold.csv"
    assert strip_text(path, out) == 3
    raw = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert not set(TEXT_COLUMNS) & set(raw.columns)
    assert "line" not in raw.columns
    assert raw["id_i"].tolist() == ["i0", "i2", "i3"]
    assert raw["label"].tolist() == ["same", "different", "skip"]
    assert raw["reason"].tolist() == ["r0", "r2", "r3"]
    assert raw["stratum"].tolist() == ["0", "2", "0"]
    # The stripped sheet is still a sheet.
    assert read_sheet(out).labelled == 2

"""Label a sheet in the terminal: one pair at a time, saved after every answer.

``newsdedup label SHEET`` shows each unlabelled pair of a labeling sheet
(both titles, sources, dates and summaries, the way the label guide asks
them to be read) and takes one answer per pair:

``s`` / ``same``
    one event reported twice;
``d`` / ``different``
    another event, however alike the words;
``k`` / ``skip``
    cannot be told from the two items;
``b`` / ``back``
    return to the previous pair answered in this session (its label is cleared);
``q`` / ``quit``
    stop; the sheet keeps every answer given.

Text after the answer is kept as the pair's reason (``d two companies under
one template``). The sheet is rewritten atomically after every answer, so an
interrupted session loses nothing and the next one resumes at the first
unlabelled pair. Without a terminal, answers are read one per line from
standard input, so a file of answers can be piped in.

The tool's scores, strata and bins are never shown: a label is the
labeller's reading of the two items (``data/gold/GUIDE.md``).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from newsdedup.calibration.defaults import HOLDOUT_BATCH
from newsdedup.calibration.sheet import ORDER, TEXT_COLUMNS, read_sheet, without_text
from newsdedup.runs.files import write_csv

__all__ = ["Answer", "parse_answer", "show_pair", "label_sheet", "write_sheet", "strip_text"]

ANSWERS = {"s": "same", "same": "same", "d": "different", "different": "different",
           "k": "skip", "skip": "skip", "b": "back", "back": "back", "q": "quit", "quit": "quit"}
"""What a labeller may type (first word of the answer) and what it means."""

HELP = "s = same event, d = different, k = skip (cannot tell), b = back, q = quit; " \
       "text after the answer is kept as the reason"


@dataclass(frozen=True)
class Answer:
    """One answer: ``action`` a label (``same``, ``different``, ``skip``), ``back`` or ``quit``."""

    action: str
    reason: str = ""


def parse_answer(line: str) -> Answer | None:
    """Read one typed answer; None when it is not one.

    Examples:
        >>> parse_answer("d two companies under one template")
        Answer(action='different', reason='two companies under one template')
        >>> parse_answer("Same") == Answer("same")
        True
        >>> parse_answer("maybe") is None
        True
    """
    head, _, rest = line.strip().partition(" ")
    action = ANSWERS.get(head.lower())
    return None if action is None else Answer(action, rest.strip())


def show_pair(row: pd.Series, position: int, total: int, width: int = 100) -> str:
    """The pair as the labeller reads it: per item its source, date, title and summary.

    Args:
        row: A sheet row.
        position: The pair's number among the pairs to label (from 1).
        total: Pairs to label.
        width: Wrap summaries at this width.
    """
    lines = [f"pair {position} of {total} (sheet row {row.get('pair', '?')})"]
    for side in ("i", "j"):
        source = str(row.get(f"source_{side}", "") or "")
        date = str(row.get(f"published_{side}", "") or "")
        lines.append(f"  [{side}] {source} {date}".rstrip())
        lines.append(f"      {row.get(f'title_{side}', '') or ''}")
        summary = str(row.get(f"summary_{side}", "") or "").strip()
        if summary:
            lines += textwrap.wrap(summary, width, initial_indent="      ",
                                   subsequent_indent="      ")
    return "\n".join(lines)


def write_sheet(rows: pd.DataFrame, path: Path) -> None:
    """Write the sheet's rows (atomically, the sheet's own column order)."""
    columns = [c for c in ORDER if c in rows.columns]
    columns += [c for c in rows.columns if c not in columns and c != "line"]
    write_csv(rows[columns], path)


def strip_text(sheet: Path, out: Path) -> int:
    """Write the sheet's labelled rows without the items' text (for ``data/gold/``).

    Returns:
        Rows written.
    """
    rows = read_sheet(sheet).rows
    kept = without_text(rows[rows["label"] != ""])
    write_sheet(kept, out)
    return len(kept)


def _is_holdout(rows: pd.DataFrame) -> bool:
    """A hold-out's sheet (batch 0: ``--holdout``, ``--model-holdout``), not the loop's."""
    batch = pd.to_numeric(rows["batch"], errors="coerce") if "batch" in rows else None
    return batch is not None and len(batch) > 0 and bool((batch == HOLDOUT_BATCH).all())


def label_sheet(path: Path, answers: Iterator[str], say: Callable[[str], None],
                width: int = 100) -> dict[str, int]:
    """Label the sheet's unlabelled pairs from ``answers`` (typed lines), saving after each.

    Args:
        path: The sheet (rewritten in place).
        answers: The labeller's lines (a prompt or standard input).
        say: Where pairs and messages go.
        width: Wrap width of the summaries.

    Returns:
        Counts of this session: ``same``, ``different``, ``skip``, ``left`` (still unlabelled).
    """
    sheet = read_sheet(path)
    # A sheet without the items' text (a data/gold copy) is shown by ids and written
    # back without the text columns it never had.
    missing = [c for c in TEXT_COLUMNS if c not in sheet.header]
    rows = sheet.rows.drop(columns=missing)
    if "title_i" in missing or "title_j" in missing:
        say(f"note: {path} has no {', '.join(missing)} columns; showing ids only")
    else:
        missing = []
    todo = [k for k in range(len(rows)) if rows["label"].iloc[k] == ""]
    counts = {"same": 0, "different": 0, "skip": 0}
    done: list[int] = []
    say(f"{len(todo)} pairs to label in {path}. {HELP}")
    k = 0
    while k < len(todo):
        at = todo[k]
        row = rows.iloc[at]
        say(show_pair(row, k + 1, len(todo), width) if not missing
            else f"pair {k + 1} of {len(todo)}: {row['id_i']} / {row['id_j']}")
        answer = None
        for line in answers:
            answer = parse_answer(line)
            if answer is not None:
                break
            say(f"not an answer: {line.strip()!r} ({HELP})")
        if answer is None or answer.action == "quit":
            break
        if answer.action == "back":
            if not done:
                say("nothing to go back to in this session")
                continue
            previous = done.pop()
            counts[rows.at[rows.index[previous], "label"]] -= 1
            rows.at[rows.index[previous], "label"] = ""
            rows.at[rows.index[previous], "reason"] = ""
            write_sheet(rows, path)
            k = todo.index(previous)
            continue
        rows.at[rows.index[at], "label"] = answer.action
        if "reason" in rows.columns or answer.reason:
            rows.at[rows.index[at], "reason"] = answer.reason
        write_sheet(rows, path)
        counts[answer.action] += 1
        done.append(at)
        k += 1
    left = int((rows["label"] == "").sum())
    say(f"saved {path}: {counts['same']} same, {counts['different']} different, "
        f"{counts['skip']} skipped this session; {left} left")
    if not left and _is_holdout(rows):
        say(f"next: every pair is labelled; run the calibrate command that drew this hold-out "
            f"again as it was (it reads {path} where it drew it)")
    elif not left:
        say(f"next: every pair is labelled; run the calibrate (or run) command that drew the "
            f"sheet again with --labels {path} (its next: line names the command)")
    return counts | {"left": left}

"""The corpus of a run: the pinned archive by default, its dialect and results name.

Every corpus command reads its input through :func:`load_named`, so the
default corpus, the dialect rule and the results folder name are decided in
one place.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from newsdedup import paths
from newsdedup.corpus.compressed import COMPRESSED_SUFFIXES
from newsdedup.corpus.load import (
    CorpusError,
    CorpusWarning,
    LoadResult,
    Rejected,
    load_corpus,
    named,
    numbered_note,
)
from newsdedup.runs.files import REJECTS, Progress, quiet


def results_name(path: Path) -> str:
    """Default results folder name of a corpus file: its folder, else its stem.

    A compressed file's stem is that of the file it holds; a folder read as one
    corpus names its results itself.

    Examples:
        >>> results_name(Path("corpora/uci/news.csv")), results_name(Path("news.csv"))
        ('uci', 'news')
        >>> results_name(Path("news.jsonl.gz"))
        'news'
    """
    if path.is_dir():
        return path.resolve().name
    if path.parent.name not in ("", "."):
        return path.parent.name
    return Path(path.stem).stem if path.suffix.lower() in COMPRESSED_SUFFIXES else path.stem


EACH_REJECT = 20
"""Rejected records said one line each (without ``--quiet``); the rest in one summary line."""


def load_named(path: Path | None = None, fmt: str | None = None, dialect: str | None = None,
               columns: dict[str, str] | None = None, strict: bool = False,
               name: str | None = None, progress: Progress = quiet, *, sep: str | None = None,
               encoding: str = "utf-8", out: Path | None = None,
               each_reject: int = EACH_REJECT) -> tuple[LoadResult, str]:
    """Read a run's corpus and name its results folder; report the rejected records.

    Args:
        path: Corpus file; None for the pinned archive.
        fmt: File format; None to infer it from the extension.
        dialect: TypeScript string reading; None for ``"seed"`` on the pinned
            archive (the published parser) and ``"standard"`` otherwise.
        columns: Field names of the canonical columns.
        strict: Fail on the first unusable record instead of skipping it.
        name: Results folder name; None for the pinned name or :func:`results_name`.
        progress: Progress callback (one line per rejected record).
        sep: CSV/TSV delimiter; None for the format's default.
        encoding: Text encoding of the file.
        out: Results root, to name the list of rejects (``<out>/<name>/rejected.csv``,
            written by the command that commits) in the summary line.
        each_reject: Rejects said one line each before the summary (0 under ``--quiet``:
            the summary alone).

    Returns:
        ``(corpus, name)``.
    """
    if path is None:
        path = paths.locate_pinned()
        dialect = dialect or "seed"
        name = name or paths.PALDYN.name
    else:
        dialect = dialect or "standard"
        name = name or results_name(path)
    progress(f"loading {path} ({dialect} dialect)")
    with warnings.catch_warnings():
        # Rejected records are reported one per line below; the summary warning would repeat them.
        warnings.simplefilter("ignore", CorpusWarning)
        corpus = load_corpus(path, fmt, columns=columns, strict=strict, dialect=dialect,
                             sep=sep, encoding=encoding)
    if corpus.n_records == 0:
        # Every step would write empty tables over the folder's earlier results. (Records
        # that are all rejected already stop in the loader, with the first one's reason.)
        raise CorpusError(corpus.path, "holds no record (a header alone, an empty list or a "
                                       "feed without items): nothing to compare; check that "
                                       "it is the export you meant")
    if corpus.left_out:
        # Said even under --quiet: what a folder holds and is not read is never passed silently.
        progress(f"warning: {path.name}/: read its {len(corpus.files):,} {corpus.fmt} files in "
                 f"name order; left out {named(corpus.left_out)}")
    if corpus.numbered:
        progress(f"note: {path.name}: {numbered_note(folder=bool(corpus.files))}")
    if corpus.look_alikes:
        fields = ", ".join(f"{f!r} ({c}?)" for c, f in corpus.look_alikes)
        option = ",".join(f"{c}={f}" for c, f in corpus.look_alikes)
        progress(f"note: {path.name}: {fields} left unread: named as those columns commonly "
                 f"are; --columns {option} reads them")
    rejected = corpus.rejected
    for rej in rejected[:each_reject]:
        progress(f"rejected {path.name} {_where(rej)}: {rej.reason}")
    if len(rejected) > each_reject:
        listed = f"{out / name / REJECTS}" if out is not None else f"{REJECTS} of the results"
        first = rejected[0]
        progress(f"rejected {len(rejected):,} of {corpus.n_records:,} records of {path.name} "
                 f"(first: {_where(first)}: {first.reason}); every one is listed in {listed}")
    return corpus, name


def _where(rej: Rejected) -> str:
    head = f"{rej.file} " if rej.file is not None else ""
    return head + (f"line {rej.line}" if rej.line is not None else f"record {rej.record}")


def require_pairs(corpus: LoadResult, what: str) -> None:
    """Refuse a corpus with fewer than 2 usable items for a step that compares pairs.

    ``measure`` (and so ``run``) reports statistics over all pairs; with no
    pair they are undefined, so the step stops with one line instead of
    writing empty tables. ``calibrate``, ``crosshost`` and ``dedupe`` accept
    such a corpus: their outputs are well defined (no threshold, no cross
    pair, every item kept).

    Args:
        corpus: The loaded corpus.
        what: The step, for the message.

    Raises:
        CorpusError: Naming the file, its record and reject counts.

    Examples:
        >>> import pandas as pd
        >>> one = LoadResult(items=pd.DataFrame({"id": ["a"]}), rejected=[], path=Path("one.csv"),
        ...                  fmt="csv", sha256="", dialect="standard", n_records=1)
        >>> require_pairs(one, "measure")
        Traceback (most recent call last):
        ...
        newsdedup.corpus.records.CorpusError: one.csv: 1 usable item (1 record, 0 rejected): ...
    """
    n = len(corpus.items)
    if n >= 2:
        return
    items = "item" if n == 1 else "items"
    records = "record" if corpus.n_records == 1 else "records"
    raise CorpusError(corpus.path, f"{n} usable {items} ({corpus.n_records} {records}, "
                                   f"{len(corpus.rejected)} rejected): {what} compares pairs of "
                                   "items and needs at least 2")

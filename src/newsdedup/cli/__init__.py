"""Command line: argument parsing only; each command calls its run module.

``newsdedup measure | calibrate | crosshost | run | dedupe | join |
evaluate-pairs | evaluate-clusters | signals | candidates | evaluate-gold |
story-signals | label | figures | report | fetch``. Each ``cmd_*`` of
:mod:`newsdedup.cli.commands` turns the parsed arguments into the options of
one module of :mod:`newsdedup.runs` and calls its ``run_*``; the corpus
commands read one corpus (the pinned archive when no path is given) and write
under ``results/<corpus-name>/``. :mod:`newsdedup.cli.options` holds the
argument groups, :mod:`newsdedup.cli.parser` the parser. The scripts in
``measure/`` and ``calibrate/`` are thin wrappers around :func:`main`.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time

from newsdedup import paths
from newsdedup.cli.options import OneLineParser, progress
from newsdedup.cli.parser import (
    add_dedupe_command,
    add_evaluate_commands,
    add_fetch_command,
    add_figures_command,
    add_join_command,
    add_published_commands,
    add_report_command,
    add_signal_commands,
)
from newsdedup.corpus.records import CorpusError

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The ``newsdedup`` argument parser with every command.

    Returns:
        The parser; each command sets ``func``, the ``_cmd_*`` that runs it.
    """
    parser = OneLineParser(
        prog="newsdedup",
        description="Measure and calibrate near-duplicate detection of news items. Without a "
                    "corpus path every command works on the pinned archive behind the "
                    "published tables.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    add_published_commands(sub)
    add_dedupe_command(sub)
    add_join_command(sub)
    add_evaluate_commands(sub)
    add_signal_commands(sub)
    add_figures_command(sub)
    add_report_command(sub)
    add_fetch_command(sub)
    for command in sub.choices.values():
        command.add_argument("--quiet", action="store_true",
                             help="no progress bars or step messages on stderr (rejected "
                                  "records and warnings are still reported)")
    return parser


def readable(exc: BaseException) -> bool:
    """Whether a command's exception is a readable error (printed as one line) or a bug.

    Every ``ValueError``, ``OSError``, ``MemoryError`` and corpus error is; of the runtime
    errors only :class:`newsdedup.score.embed.EmbeddingUnavailable`, looked up
    in ``sys.modules`` because a command that never imported the embedding
    module cannot have raised it (importing it here would cost every command
    numpy's import).
    """
    if isinstance(exc, MemoryError):
        return True
    if isinstance(exc, RecursionError):  # a RuntimeError, but always a bug here
        return False
    if not isinstance(exc, RuntimeError):
        return True
    embed = sys.modules.get("newsdedup.score.embed")
    return embed is not None and isinstance(exc, embed.EmbeddingUnavailable)


INTERRUPTED = 130
"""Exit status after Ctrl-C: 128 + SIGINT, what a shell reports for a process it stopped."""

TRACEBACK_VARIABLE = "NEWSDEDUP_TRACEBACK"
"""Set (to anything) to see the traceback of an internal error instead of its one line."""


def one_line(text: str) -> str:
    r"""A message on one line: line breaks (and the blanks around them) become one space.

    Examples:
        >>> one_line("a\n  b\r\nc")
        'a b c'
    """
    return re.sub(r"\s*[\r\n\v\f\x85\u2028\u2029]+\s*", " ", text).strip()


def main(argv: list[str] | None = None) -> int:
    """Run one ``newsdedup`` command; every failure is one line on stderr, never a traceback.

    Args:
        argv: Arguments without the program name; None for ``sys.argv[1:]``.

    Returns:
        0 on success, 2 when the command failed with a readable error (bad input, a file
        that cannot be written), 1 for an internal error (a bug), 130 after Ctrl-C. In
        each case one line says what happened.
    """
    args = build_parser().parse_args(argv)
    progress.quiet = args.quiet
    start = time.perf_counter()
    try:
        args.func(args)
    except KeyboardInterrupt:
        # A staged command's files were discarded by the commit's own handler and every
        # file is written whole or not at all, so there is nothing half-written to name.
        print("newsdedup: interrupted; no file was left half-written (a command's files are "
              "committed together or not at all)", file=sys.stderr)
        return INTERRUPTED
    except (CorpusError, paths.CorpusNotFound, ValueError, OSError, RuntimeError,
            MemoryError) as exc:
        if readable(exc):
            text = one_line(str(exc))
            if isinstance(exc, MemoryError):  # its message is often empty
                text = f"out of memory ({text})" if text else "out of memory"
            print(f"newsdedup: error: {text}", file=sys.stderr)
            return 2
        return _internal(exc)
    except Exception as exc:
        return _internal(exc)
    progress(f"done in {time.perf_counter() - start:.1f} s")
    return 0


def _internal(exc: BaseException) -> int:
    """One line for an error no check foresaw (a bug), or its traceback when asked for."""
    if os.environ.get(TRACEBACK_VARIABLE):
        raise exc
    print(f"newsdedup: internal error: {type(exc).__name__}: {one_line(str(exc))} (this is a "
          f"bug; set {TRACEBACK_VARIABLE}=1 to see where it happened)", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())

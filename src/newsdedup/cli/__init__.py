"""Command line: argument parsing only; each command calls its run module.

``newsdedup run | measure | calibrate | label | dedupe | join | evaluate
{pairs,clusters,gold,stories} | signals | report | fetch``: one command per
user task (:mod:`newsdedup.cli.parser`; the names the commands had before
parse as hidden aliases for one release). Each ``cmd_*`` of
:mod:`newsdedup.cli.commands` turns the parsed arguments into the options of
one module of :mod:`newsdedup.runs` and calls its ``run_*``; the corpus
commands read one corpus (the pinned archive when no path is given) and write
under ``<out>/<corpus-name>/``. :mod:`newsdedup.cli.options` holds the
argument groups, :mod:`newsdedup.cli.config` the ``--config`` files. The
scripts in ``measure/`` and ``calibrate/`` are thin wrappers around
:func:`main`.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import sys
import time
from pathlib import Path

from newsdedup import paths
from newsdedup.cli.config import config_argv, config_of, read_config
from newsdedup.cli.options import Formatter, OneLineParser, progress
from newsdedup.cli.parser import add_commands
from newsdedup.corpus.records import CorpusError

__all__ = ["build_parser", "command_parsers", "main", "parse"]


def command_parsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The ``newsdedup`` parser and every command that runs, by name."""
    parser = OneLineParser(
        prog="newsdedup", formatter_class=Formatter,
        description="Find the news items of a feed that report the same event, and calibrate "
                    "the threshold that decides it on your own corpus: how many of the merges "
                    "at that threshold are right, within what interval. Without a corpus path "
                    "every command works on the pinned archive behind the published tables.",
        epilog="example:\n  newsdedup run feed.jsonl\n  newsdedup label "
               "results/feed/calibrate/to_label.csv\n  newsdedup run feed.jsonl --labels "
               "results/feed/calibrate/to_label.csv",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    leaves = add_commands(sub)
    for command in leaves.values():
        command.add_argument("--config", type=Path, metavar="FILE",
                             help="take options from a TOML or JSON file (flag names without "
                                  "the dashes; a run's params.json reruns it); options given "
                                  "here win")
        command.add_argument("--quiet", action="store_true",
                             help="no progress bars or step messages on stderr (rejected "
                                  "records and warnings are still reported)")
    return parser, leaves


def build_parser() -> argparse.ArgumentParser:
    """The ``newsdedup`` argument parser with every command.

    Returns:
        The parser; each command sets ``func``, the ``cmd_*`` that runs it.
    """
    return command_parsers()[0]


def parse(argv: list[str]) -> argparse.Namespace:
    """Parse a command line, with the options of its ``--config`` file under it.

    Args:
        argv: Arguments without the program name.

    Returns:
        The parsed arguments; ``config_options`` holds the configuration the command
        writes to ``params.json`` (options that differ from the defaults).
    """
    parser, leaves = command_parsers()
    args = parser.parse_args(argv)
    command = leaves[args.command_name]
    if args.config is not None:
        words = 2 if argv[0] == "evaluate" else 1
        flags, tail = config_argv(read_config(args.config, args.command_name), args.config,
                                  command, args, getattr(args, "positionals", ()))
        # The command line parsed alone, so an error now comes from the file: say so.
        OneLineParser.source = f"--config {args.config}"
        try:
            args = parser.parse_args([*argv[:words], *flags, *argv[words:], *tail])
        finally:
            OneLineParser.source = ""
    if getattr(args, "renamed_command", None):
        print(f"newsdedup: note: `newsdedup {argv[0]}` is now `newsdedup "
              f"{args.renamed_command}` (the old name goes in the next release)",
              file=sys.stderr)
    args.config_options = {args.command_name: config_of(args, command)}
    return args


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


class Listing(io.TextIOBase):
    """Standard output (or error) whose reader may leave: ``newsdedup dedupe feed | head``.

    A command prints its listing (the merged groups) and its progress while its files
    wait to be committed; a reader that closes the pipe early made that print raise
    ``BrokenPipeError`` and the command stop with nothing saved. Through this stream
    the output just ends there: the rest is dropped, the command runs on and commits
    its files.
    """

    def __init__(self, stream) -> None:
        super().__init__()
        self._stream = stream
        self.left = False  # the reader closed the pipe

    def write(self, text: str) -> int:
        if not self.left:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._reader_left()
        return len(text)

    def flush(self) -> None:
        if not self.left:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._reader_left()

    def writable(self) -> bool:
        return True

    # What a progress bar or a caller asks of the stream is the wrapped stream's answer.
    def isatty(self) -> bool:
        return bool(getattr(self._stream, "isatty", lambda: False)())

    def fileno(self) -> int:
        return self._stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._stream, "encoding", None) or "utf-8"

    def _reader_left(self) -> None:
        self.left = True
        # The interpreter flushes the real stdout at exit: what its buffer still holds
        # then goes to /dev/null instead of raising once more.
        with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)


def main(argv: list[str] | None = None) -> int:
    """Run one ``newsdedup`` command; every failure is one line on stderr, never a traceback.

    Args:
        argv: Arguments without the program name; None for ``sys.argv[1:]``.

    Returns:
        0 on success, 2 when the command failed with a readable error (bad input, a file
        that cannot be written), 1 for an internal error (a bug), 130 after Ctrl-C. In
        each case one line says what happened.
    """
    try:
        args = parse(sys.argv[1:] if argv is None else list(argv))
    except ValueError as exc:  # a --config file that cannot be read
        print(f"newsdedup: error: {one_line(str(exc))}", file=sys.stderr)
        return 2
    progress.quiet = args.quiet
    start = time.perf_counter()
    # A command that commits a results tree records its options in <out>/<name>/params.json.
    from newsdedup.runs.commit import INVOCATION

    token = INVOCATION.set(args.config_options)
    # A closed stream (``>&-``) is None: print() skips it, and so does the command.
    stdout, stderr = sys.stdout, sys.stderr
    if stdout is not None:
        sys.stdout = Listing(stdout)
    if stderr is not None:  # progress lines piped too (``2>&1 | head``)
        sys.stderr = Listing(stderr)
    try:
        args.func(args)
        if sys.stdout is not None:
            sys.stdout.flush()
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
    finally:
        INVOCATION.reset(token)
        sys.stdout, sys.stderr = stdout, stderr
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

"""``--config FILE``: a command's options from a file, and the file a command writes back.

A configuration is the command's options by their flag names, without the
dashes (``ngram``, ``window-days`` or ``window_days``, ``columns``, ``corpus``
for the corpus path). It is read from TOML or JSON; one file may hold several
commands, each in a table named after it (``[run]``, ``["evaluate gold"]``),
or be one flat table for the command at hand. Options on the command line win
over the file's.

Every command that writes a results folder records its own configuration in
``<out>/<name>/params.json`` (only the options that differ from the defaults,
so the file says what was chosen), one entry per command, committed with the
command's files: ``newsdedup run --config results/my-feed/params.json`` reruns
the run as it was made.

The file's values go through the command's own parser (each is turned into the
flag it names), so a value is checked exactly as on the command line, and a
key that names no option is refused with the file's name.
"""

from __future__ import annotations

import argparse
import json
import tomllib
from pathlib import Path

__all__ = ["INTERNAL", "config_argv", "config_of", "read_config"]

INTERNAL = frozenset({"func", "command", "command_name", "renamed_command", "evaluation",
                      "config", "quiet", "positionals", "config_options"})
"""Fields of the parsed arguments that are not options of the command."""


def read_config(path: Path, command: str) -> dict[str, object]:
    r"""The options a configuration file sets for one command.

    Args:
        path: A ``.toml`` file, or JSON (``params.json`` as a run wrote it).
        command: The command's name (``run``, ``evaluate pairs``).

    Returns:
        The options by flag name (dashes, not underscores), in the file's order.

    Raises:
        ValueError: The file cannot be read or parsed, or its tables name other commands
            only. The message names the file.

    Examples:
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as d:
        ...     f = Path(d, "c.toml")
        ...     _ = f.write_text('[dedupe]\nthreshold = 0.4\nngram = 3\n', "utf-8")
        ...     read_config(f, "dedupe")
        {'threshold': 0.4, 'ngram': 3}
    """
    try:
        text = Path(path).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"--config {path}: cannot read it ({exc})") from None
    try:
        data = tomllib.loads(text) if Path(path).suffix == ".toml" else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ValueError(f"--config {path}: not valid "
                         f"{'TOML' if Path(path).suffix == '.toml' else 'JSON'} ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError(f"--config {path}: expected a table of options, got "
                         f"{type(data).__name__}")
    tables = {k for k, v in data.items() if isinstance(v, dict) and k != "columns"
              and not k.endswith("-columns") and not k.endswith("_columns")}
    if command in data and isinstance(data[command], dict):
        loose = sorted(k for k in data if k not in tables)
        if loose:  # options beside the command's table would be dropped without a word
            raise ValueError(f"--config {path}: options outside the [{command}] table "
                             f"({', '.join(loose)}); put them in the table")
        data = data[command]
    elif tables:
        raise ValueError(f"--config {path}: no table for `newsdedup {command}` (it has: "
                         f"{', '.join(sorted(tables))})")
    return {str(k).replace("_", "-"): v for k, v in data.items()}


def _token(key: str, value: object, path: Path) -> str:
    """One option value as the command line spells it."""
    if isinstance(value, dict):
        return ",".join(f"{k}={v}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ",".join(_token(key, v, path) for v in value)
    if isinstance(value, bool) or value is None:
        raise ValueError(f"--config {path}: {key} = {value!r} is not a value of that option")
    return str(value)


def config_argv(options: dict[str, object], path: Path, parser: argparse.ArgumentParser,
                given: argparse.Namespace, positionals: tuple[str, ...]
                ) -> tuple[list[str], list[str]]:
    """The command-line words that set a configuration's options.

    Args:
        options: What :func:`read_config` returned.
        path: The file (named in errors).
        parser: The command's parser (its defaults decide how a switch is spelled).
        given: The arguments as parsed without the file: a positional the command line
            gave is not given again.
        positionals: The command's positional fields (``corpus``).

    Returns:
        The options' words (``--flag=value``) and the positionals' values.

    Raises:
        ValueError: A value the option cannot take (a list for a switch ...).
    """
    words: list[str] = []
    tail: list[str] = []
    for key, value in options.items():
        dest = key.replace("-", "_")
        if dest == "config":
            raise ValueError(f"--config {path}: a configuration cannot name another one "
                             f"(config = {value!r})")
        if dest in INTERNAL and dest != "quiet":  # not options: what the parser sets
            continue
        if dest in positionals:
            if getattr(given, dest, None) is None and value is not None:
                tail.append(_token(key, value, path))
            continue
        flag = f"--{key}"
        if value is True:
            words.append(flag)
        elif value is False:
            # A switch on by default (--gate) is turned off by its --no- form; one off by
            # default needs nothing.
            if parser.get_default(dest) is not False:
                words.append(f"--no-{key}")
        else:
            words.append(f"{flag}={_token(key, value, path)}")
    return words, tail


def _plain(value: object) -> object:
    """A parsed option value as JSON holds it (paths as given, tuples as lists)."""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def config_of(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict[str, object]:
    """The options of parsed arguments that differ from the command's defaults.

    Args:
        args: The parsed arguments.
        parser: The command's parser (with its defaults).

    Returns:
        ``{flag name: value}`` in the order of the fields, JSON-ready; what
        :func:`read_config` and :func:`config_argv` read back into the same arguments.
    """
    out = {}
    for dest, value in sorted(vars(args).items()):
        if dest in INTERNAL or value == parser.get_default(dest):
            continue
        out[dest.replace("_", "-")] = _plain(value)
    return out

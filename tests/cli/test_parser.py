"""The command line a user meets: ten commands, one name per option, help in the user's words."""

from __future__ import annotations

import argparse
import re

import pytest

from newsdedup.cli import build_parser, command_parsers, main
from newsdedup.cli.options import NGRAM, Renamed, ints
from newsdedup.cli.parser import RENAMED_COMMANDS

PARSER, LEAVES = command_parsers()
VISIBLE = {name: p for name, p in LEAVES.items() if name not in RENAMED_COMMANDS}


def _options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if a.option_strings and a.help != argparse.SUPPRESS
            and not isinstance(a, argparse._HelpAction)]


def _listed_commands(parser: argparse.ArgumentParser) -> list[str]:
    text = parser.format_help()
    block = text.split("positional arguments:")[1].split("options:")[0]
    return re.findall(r"^    (\S+)", block, flags=re.M)


def test_at_most_ten_commands_are_listed_and_the_old_names_are_not():
    listed = _listed_commands(PARSER)
    assert listed == ["run", "measure", "calibrate", "label", "dedupe", "join", "evaluate",
                      "signals", "report", "fetch"]
    assert not set(listed) & set(RENAMED_COMMANDS)
    evaluate = PARSER._subparsers._group_actions[0].choices["evaluate"]
    assert _listed_commands(evaluate) == ["pairs", "clusters", "gold", "stories"]


@pytest.mark.parametrize("name", sorted(VISIBLE) + ["evaluate"])
def test_every_command_help_ends_with_an_example(name, capsys):
    words = name.split()
    with pytest.raises(SystemExit) as exc:
        build_parser().parse_args([*words, "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    tail = text.rstrip().split("\n\nexample:\n")
    assert len(tail) == 2, f"{name}: no example at the end"
    lines = tail[1].splitlines()
    assert lines[0].startswith(f"  newsdedup {words[0]}"), lines
    assert all(line.startswith("  newsdedup ") for line in lines), lines


JARGON = re.compile(r"seed[- ]?0\d\d|seed[- ](file|script|dialect|pipeline)|\bblock \d|"
                    r"\bretired\b|\bseed 004\b", re.I)


def test_no_help_text_speaks_of_seed_files_or_blocks():
    texts = {"newsdedup": PARSER.format_help()}
    texts |= {name: p.format_help() for name, p in LEAVES.items()}
    found = {name: JARGON.findall(text) for name, text in texts.items() if JARGON.search(text)}
    assert not found


def test_one_name_per_option_everywhere():
    # An option's field is its flag's name, so one field can only be spelled one way, in
    # every command: --ngram is the dedupe's n-gram size wherever it appears.
    spelled: dict[str, set[str]] = {}
    for name, parser in LEAVES.items():
        for action in _options(parser):
            flag = next(o for o in action.option_strings if o.startswith("--"))
            assert action.dest == flag[2:].replace("-", "_"), (name, flag, action.dest)
            spelled.setdefault(action.dest, set()).add(flag)
    assert all(len(flags) == 1 for flags in spelled.values())


def test_an_ngram_size_is_spelled_ngram():
    # The six spellings of the n-gram size (--n, --cross-n, --pairs-n ...) are one word now:
    # --ngram, --ngrams for a list, --<study>-ngram for a study's own size.
    sizes = [(name, a.option_strings[0]) for name, p in LEAVES.items() for a in _options(p)
             if a.type in (NGRAM, ints)]
    assert len(sizes) >= 8
    bad = [(name, flag) for name, flag in sizes if not re.fullmatch(r"--([a-z]+-)?ngrams?", flag)]
    assert not bad


def test_old_spellings_are_hidden_and_set_the_new_option(capsys):
    renamed = [(name, a) for name, p in LEAVES.items() for a in p._actions
               if isinstance(a, Renamed)]
    assert {a.option_strings[0] for _, a in renamed} >= {"--n", "--cross-n", "--signal-n",
                                                         "--pairs-n", "--story-col", "--gold"}
    for name, action in renamed:
        assert action.help == argparse.SUPPRESS
        visible = {a.dest: a for a in _options(LEAVES[name])}
        assert action.dest in visible and action.now == visible[action.dest].option_strings[0]
    args = build_parser().parse_args(["dedupe", "--n", "2"])
    assert args.ngram == 2
    assert "--n is now --ngram" in capsys.readouterr().err


@pytest.mark.parametrize(("old", "new"), [
    (["crosshost", "--cross-n", "3"], ["measure", "--crosshost", "--crosshost-ngram", "3"]),
    (["evaluate-clusters", "--n", "2"], ["evaluate", "clusters", "--ngram", "2"]),
    (["evaluate-gold", "--gold", "g.csv"], ["evaluate", "gold", "--labels", "g.csv"]),
    (["story-signals", "--story-col", "S"], ["evaluate", "stories", "--story-column", "S"]),
    (["candidates", "--output", "s.csv"], ["signals", "--sheet", "--sheet-path", "s.csv"]),
    (["figures", "--only", "corpus"], ["report", "--figures", "corpus"]),
])
def test_an_old_command_name_runs_what_its_new_name_runs(old, new, capsys, tmp_path,
                                                         monkeypatch):
    from newsdedup.cli import parse

    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.csv").write_text("id_i,id_j,label\n", "utf-8")  # a sheet is read back
    before, after = parse(old), parse(new)
    assert before.func is after.func
    assert before.config_options == after.config_options
    assert f"is now `newsdedup {RENAMED_COMMANDS[old[0]]}`" in capsys.readouterr().err


def test_an_old_command_on_a_corpus_still_runs(tmp_path, capsys):
    path = tmp_path / "feed.csv"
    path.write_text("id,title,url\n1,Fed holds rates,https://a.example/1\n"
                    "2,Fed holds rates again,https://b.example/2\n", "utf-8")
    assert main(["crosshost", str(path), "--name", "feed", "--out", str(tmp_path / "r"),
                 "--quiet"]) == 0
    assert (tmp_path / "r" / "feed" / "crosshost" / "crosshost.json").is_file()
    assert "`newsdedup crosshost` is now `newsdedup measure --crosshost`" in \
        capsys.readouterr().err


def test_make_help_speaks_the_users_words_too():
    from newsdedup.paths import PROJECT_ROOT

    lines = [line.split("## ", 1)[1] for line in
             (PROJECT_ROOT / "Makefile").read_text("utf-8").splitlines() if "## " in line]
    assert len(lines) > 20
    assert not [line for line in lines if JARGON.search(line)]


@pytest.mark.parametrize("argv", [["calibrate", "feed.csv", "--labels", "to_lable.csv"],
                                  ["run", "feed.csv", "--labels", "to_lable.csv"],
                                  ["calibrate", "feed.csv", "--decoy-pairs", "pairs.csv"],
                                  ["evaluate", "gold", "feed.csv", "--labels", "to_lable.csv"]])
def test_a_mistyped_sheet_stops_the_command_before_any_work(argv, tmp_path, monkeypatch,
                                                             capsys):
    # Once caught after the whole computation (11.8 s of a 14 s calibrate on knews),
    # as a bare "[Errno 2]". The corpus is not even read: it does not exist either.
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    option = argv[-2]
    assert f"argument {option}: no such file: {argv[-1]!r}" in err
    assert not (tmp_path / "results").exists()

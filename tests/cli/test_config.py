"""``--config FILE`` and ``<out>/<name>/params.json``: every command's options round-trip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from newsdedup.cli import command_parsers, main, parse
from newsdedup.cli.config import INTERNAL, read_config
from newsdedup.cli.parser import RENAMED_COMMANDS

VISIBLE = {name for name in command_parsers()[1] if name not in RENAMED_COMMANDS}

# For every command, options that differ from its defaults: each kind of value (paths,
# lists, mappings, switches on and off, choices, numbers, the positional) appears.
CHOSEN = {
    "run": ["feed.jsonl", "--name", "x", "--ngrams", "3,4", "--simulation-ngram", "3",
            "--window-days", "2", "--no-series", "--precision", "0.8", "--columns",
            "id=ID,title=T", "--crosshost-ngram", "3", "--hosts", "a.example,b.example",
            "--scheme", "unicode-alnum", "--pair-budget", "inf"],
    "measure": ["feed.jsonl", "--full", "--thresholds", "0.5,0.3", "--num-perm", "64",
                "--no-lsh", "--crosshost", "--window-days", "2.5"],
    "calibrate": ["feed.jsonl", "--labels", "s.csv", "--holdout", "h.csv", "--method", "fast",
                  "--fractions", "0.9,0.5", "--full"],
    "label": ["sheet.csv", "--width", "80"],
    "dedupe": ["feed.jsonl", "--threshold", "0.4", "--ngram", "2", "--no-gate", "--text",
               "title+summary", "--sweep", "0.2,0.3", "--embeddings", "none"],
    "join": ["feed.jsonl", "--threshold", "0.6", "--ngram", "4", "--top-k", "3"],
    "evaluate pairs": ["--pairs", "p.csv", "--columns", "a=x,b=y,score=z", "--same-at", "3.5",
                       "--ngrams", "2,3"],
    "evaluate clusters": ["u.csv", "--story-column", "S", "--stories", "5", "--thresholds",
                          "0.3,0.5", "--pairs-ngram", "4"],
    "evaluate gold": ["feed.jsonl", "--labels", "g.csv", "--window-days", "2", "--no-korean"],
    "evaluate stories": ["feed.jsonl", "--story-column", "S", "--relations",
                         "same-org,cross-org", "--entity-unit", "token"],
    "signals": ["feed.jsonl", "--sheet", "--quota", "5", "--signals-ngram", "3", "--host-orgs",
                "a=b"],
    "report": ["results/x", "--figures", "corpus"],
    "fetch": [],
}


def _toml(tables: dict[str, dict]) -> str:
    """A small TOML writer for the test: tables of strings, numbers, booleans, lists, maps."""
    def value(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return json.dumps(v, ensure_ascii=False)
        if isinstance(v, float) and v == float("inf"):
            return "inf"
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{json.dumps(k)} = {value(x)}" for k, x in v.items()) + "}"
        return repr(v)

    return "".join(f"[{json.dumps(name)}]\n" + "".join(f"{k} = {value(v)}\n"
                                                      for k, v in table.items())
                   for name, table in tables.items())


def _fields(args) -> dict:
    return {k: v for k, v in vars(args).items() if k not in INTERNAL}


def test_every_command_has_chosen_options():
    assert set(CHOSEN) == VISIBLE


@pytest.mark.parametrize("name", sorted(CHOSEN))
@pytest.mark.parametrize("suffix", [".json", ".toml"])
def test_a_commands_configuration_reads_back_into_the_same_arguments(name, suffix, tmp_path,
                                                                     monkeypatch):
    monkeypatch.chdir(tmp_path)
    for sheet in ("s.csv", "g.csv"):  # the sheets read back must exist
        (tmp_path / sheet).write_text("id_i,id_j,label\n", "utf-8")
    words = name.split()
    given = parse([*words, *CHOSEN[name]])
    recorded = given.config_options[name]
    assert all(k.replace("-", "_") not in INTERNAL for k in recorded)
    path = tmp_path / f"c{suffix}"
    if suffix == ".json":
        path.write_text(json.dumps(given.config_options), "utf-8")
    else:
        path.write_text(_toml(given.config_options), "utf-8")
    again = parse([*words, "--config", str(path)])
    assert _fields(again) | {"config": None} == _fields(given) | {"config": None}
    assert again.config_options == given.config_options


def test_quiet_may_come_from_the_file(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("quiet = true\n", "utf-8")
    assert parse(["dedupe", "--config", str(path)]).quiet is True


def test_the_command_line_wins_over_the_file(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('ngram = 2\nthreshold = 0.4\ncorpus = "a.jsonl"\n', "utf-8")
    args = parse(["dedupe", "b.jsonl", "--config", str(path), "--threshold", "0.6"])
    assert (args.ngram, args.threshold, args.corpus) == (2, 0.6, Path("b.jsonl"))


@pytest.mark.parametrize(("text", "message"), [
    ("ngram = 99\n", "argument --ngram: expected an integer in [1, 64], got '99' (from "
                     "--config "),
    ("[run]\nngram = 2\n", "no table for `newsdedup dedupe` (it has: run)"),
    ("ngram = \n", "not valid TOML"),
    ("gate = [1]\n", "argument --gate/--no-gate: ignored explicit argument '1' (from --config"),
    ("ngram = 2\n[dedupe]\nthreshold = 0.4\n", "options outside the [dedupe] table (ngram)"),
    ('config = "other.toml"\n', "a configuration cannot name another one"),
])
def test_a_bad_configuration_is_one_line(text, message, tmp_path, capsys):
    path = tmp_path / "c.toml"
    path.write_text(text, "utf-8")
    try:
        code = main(["dedupe", "--config", str(path)])
    except SystemExit as exc:  # a usage error, as argparse ends it
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and str(path) in err[0], err


def test_an_unknown_option_in_a_file_is_refused(tmp_path, capsys):
    path = tmp_path / "c.json"
    path.write_text('{"nggram": 3}', "utf-8")
    with pytest.raises(SystemExit) as exc:
        parse(["join", "--config", str(path)])
    assert exc.value.code == 2
    assert "--nggram" in capsys.readouterr().err


def test_read_config_takes_the_commands_table_of_a_params_file(tmp_path):
    path = tmp_path / "params.json"
    path.write_text(json.dumps({"run": {"ngrams": [3]}, "signals": {"quota": 4}}), "utf-8")
    assert read_config(path, "signals") == {"quota": 4}
    with pytest.raises(ValueError, match="no table for `newsdedup join`"):
        read_config(path, "join")


def test_a_run_reruns_from_its_params_json(tmp_path):
    # The end to end round trip: a dedupe and a signals sheet on one corpus, then the same
    # commands from <out>/<name>/params.json alone, write the same files.
    rows = ["id,title,url,published_at",
            "a1,진천군 온디바이스 AI 스마트 돌봄 착수,https://n0.example/1,2026-05-01",
            "a2,진천군 온디바이스 AI기반 스마트돌봄 본격화,https://n1.example/2,2026-05-02",
            "b1,화성시 AI 화재 감지 시스템 도입,https://n0.example/3,2026-05-03",
            "c1,포항시 제조 AI 실증 착수,https://n1.example/4,2026-05-04"]
    corpus = tmp_path / "feed.csv"
    corpus.write_text("\n".join(rows) + "\n", "utf-8")
    out = tmp_path / "results"
    assert main(["dedupe", str(corpus), "--name", "feed", "--out", str(out), "--threshold",
                 "0.25", "--ngram", "2", "--no-gate", "--quiet"]) == 0
    assert main(["signals", str(corpus), "--name", "feed", "--out", str(out), "--sheet",
                 "--quota", "3", "--no-korean", "--quiet"]) == 0
    params = out / "feed" / "params.json"
    recorded = json.loads(params.read_text("utf-8"))
    assert recorded["dedupe"] == {"corpus": str(corpus), "gate": False, "name": "feed",
                                  "ngram": 2, "out": str(out), "threshold": 0.25}
    assert recorded["signals"]["sheet"] is True and recorded["signals"]["quota"] == 3
    first = {p: p.read_bytes() for p in sorted((out / "feed").rglob("*.csv"))}
    saved = tmp_path / "params.json"
    saved.write_bytes(params.read_bytes())
    for p in first:
        p.unlink()
    assert main(["dedupe", "--config", str(saved), "--quiet"]) == 0
    assert main(["signals", "--config", str(saved), "--quiet"]) == 0
    assert {p: p.read_bytes() for p in sorted((out / "feed").rglob("*.csv"))} == first
    assert params.read_bytes() == saved.read_bytes()


def test_the_old_command_names_record_their_new_names(tmp_path):
    assert {RENAMED_COMMANDS[k].split(" --")[0] for k in RENAMED_COMMANDS} <= set(VISIBLE)

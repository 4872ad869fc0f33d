"""Defaults live in the configuration classes: the parser's defaults build the same configs."""

from __future__ import annotations

import dataclasses

import pytest

from newsdedup.cli import parse
from newsdedup.cli.options import (
    calibrate_options,
    cluster_study_config,
    crosshost_options,
    join_config,
    measure_config,
    pair_study_config,
)
from newsdedup.runs.calibrate import CalibrateConfig
from newsdedup.runs.crosshost import CrossHostConfig
from newsdedup.runs.evaluate_clusters import ClusterStudyConfig
from newsdedup.runs.evaluate_pairs import PairStudyConfig
from newsdedup.runs.join import JoinConfig
from newsdedup.studies.measure import MeasureConfig
from newsdedup.text.normalize import feed_scheme

# A command's config built from its options left at their defaults equals the config
# class's own defaults, so a default changed in one place and not the other fails here.
# Named differences, each on purpose:
#   extra: the single-step commands run only their first study unless --full; the config
#          (and `run`) runs them all;
#   reference_corpora: the command line looks for stsb-en/ in the shared corpora; the
#          library call adds the reference-IDF runs only when given a folder.
CASES = [
    ("measure", measure_config, MeasureConfig, {"extra"}),
    ("calibrate", calibrate_options, CalibrateConfig, {"extra"}),
    ("run", measure_config, MeasureConfig, set()),
    ("run", calibrate_options, CalibrateConfig, set()),
    ("measure", crosshost_options, CrossHostConfig, set()),
    ("run", crosshost_options, CrossHostConfig, set()),
    ("join", join_config, JoinConfig, set()),
    ("evaluate pairs", pair_study_config, PairStudyConfig, set()),
    ("evaluate clusters", cluster_study_config, ClusterStudyConfig, {"reference_corpora"}),
]


@pytest.mark.parametrize(("command", "build", "config", "expected"), CASES,
                         ids=[f"{c}-{k.__name__}" for c, _, k, _ in CASES])
def test_the_parsers_defaults_are_the_configs_defaults(command, build, config, expected):
    args = parse(command.split())
    if getattr(args, "scheme", "") is None:
        # --scheme's default is the feed's, chosen once the corpus is read (cli.options.load):
        # for a Korean feed, the configs' default.
        args.scheme = feed_scheme(["진천군 스마트돌봄 본격화"])[0]
    built, default = build(args), config()
    differ = {f.name for f in dataclasses.fields(config)
              if getattr(built, f.name) != getattr(default, f.name)}
    assert differ == expected

"""The signal config file: the committed default is valid; a bad file is one clear error."""

from __future__ import annotations

import pytest

from newsdedup.signals.pairs import SignalConfig
from newsdedup.signals.settings import DEFAULT_CONFIG, SignalConfigError, load_settings


def test_default_file_holds_the_host_map_and_the_thresholds():
    s = load_settings()
    assert s.path == str(DEFAULT_CONFIG)
    assert s.hosts["blog.google"] == s.hosts["deepmind.google"] == "google"
    assert s.learn_aliases and s.extra_aliases == {}
    assert SignalConfig().weights == s.weights and SignalConfig().host_orgs == dict(s.hosts)


def _copy(tmp_path, old: str, new: str):
    text = DEFAULT_CONFIG.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "signals.toml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


def test_a_replacement_file_changes_the_settings(tmp_path):
    path = _copy(tmp_path, "[aliases.extra]\n", '[aliases.extra]\n"메타" = "Meta"\n')
    cfg = SignalConfig.from_file(path)
    assert cfg.extra_aliases == {"메타": "Meta"} and cfg.config_file == str(path)


@pytest.mark.parametrize("old, new, match", [
    ("brand_share = 0.10", "brand_share = 1.5", "brand_share must be in"),
    ("min_items = 50 ", "min_itemz = 50 ", r"missing key\(s\) \['min_items'\]"),
    ("learn = true", "learn = true\ncolour = 1", r"unknown key\(s\) \['colour'\]"),
    ('"openai.com" = "openai"', '"openai.com" = 3', "must map to a non-empty string"),
    ("[weights]", "[weights", "not a valid TOML file"),
])
def test_bad_files_are_rejected_with_file_and_key(tmp_path, old, new, match):
    path = _copy(tmp_path, old, new)
    with pytest.raises(SignalConfigError, match=match) as info:
        load_settings(path)
    assert str(path) in str(info.value)


def test_missing_file_is_an_error(tmp_path):
    with pytest.raises(SignalConfigError, match="not found"):
        load_settings(tmp_path / "none.toml")

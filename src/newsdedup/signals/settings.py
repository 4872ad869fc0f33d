"""The signal config file: the settings of the pair signals that are data, not code.

``data/config/signals.toml`` (documented in ``docs/signals.md``) holds the
host -> organisation map, the thresholds of the learned name weights and of
the learned Hangul spellings, and any spellings added by hand. A user
replaces it with ``--signal-config PATH``; every key must be present and no
other key is accepted, so a typo is an error, not a silent default.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from newsdedup.paths import DATA_DIR
from newsdedup.signals.lexicon import AliasRule, WeightRule

DEFAULT_CONFIG: Path = DATA_DIR / "config" / "signals.toml"
"""The config file used when none is given."""

_KEYS: dict[str, tuple[str, ...]] = {
    "weights": ("brand_share", "brand_concentration", "generic_share", "min_items",
                "min_capitalized"),
    "aliases": ("learn", "min_cooccurrence", "min_cooccurrence_fuzzy", "min_similarity",
                "min_skeleton", "max_words", "extra"),
}


class SignalConfigError(ValueError):
    """A signal config file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class SignalFileConfig:
    """The contents of a signal config file.

    Attributes:
        path: The file read.
        hosts: Host -> organisation.
        weights: Thresholds of the learned name weights.
        learn_aliases: Learn Hangul spellings of Latin names from the corpus.
        alias_rule: Thresholds of the learned spellings.
        extra_aliases: Spellings given by hand, as written -> Latin name.
    """

    path: str
    hosts: Mapping[str, str] = field(default_factory=dict)
    weights: WeightRule = field(default_factory=WeightRule)
    learn_aliases: bool = True
    alias_rule: AliasRule = field(default_factory=AliasRule)
    extra_aliases: Mapping[str, str] = field(default_factory=dict)


def _table(data: dict, key: str, path: Path) -> dict:
    value = data.get(key)
    if not isinstance(value, dict):
        raise SignalConfigError(f"{path}: missing table [{key}]")
    return value


def _strings(table: dict, where: str, path: Path) -> dict[str, str]:
    bad = [k for k, v in table.items() if not isinstance(v, str) or not v.strip()]
    if bad:
        raise SignalConfigError(f"{path}: [{where}] {bad[0]!r} must map to a non-empty string")
    return dict(table)


def _section(data: dict, name: str, path: Path) -> dict:
    table = _table(data, name, path)
    missing = [k for k in _KEYS[name] if k not in table]
    extra = [k for k in table if k not in _KEYS[name]]
    if missing or extra:
        what = f"missing key(s) {missing}" if missing else f"unknown key(s) {extra}"
        raise SignalConfigError(f"{path}: [{name}] {what}; expected {list(_KEYS[name])}")
    return table


@lru_cache(maxsize=8)
def load_settings(path: str | Path | None = None) -> SignalFileConfig:
    """Read and validate a signal config file (:data:`DEFAULT_CONFIG` when ``path`` is None).

    Raises:
        SignalConfigError: The file is missing, is not TOML (the message has the
            line and column), lacks a table or key, has an unknown key or a
            value out of range.

    Examples:
        >>> s = load_settings()
        >>> s.hosts["deepmind.google"], 0 < s.weights.brand_share <= 1
        ('google', True)
    """
    path = Path(path) if path is not None else DEFAULT_CONFIG
    if not path.is_file():
        raise SignalConfigError(f"{path}: signal config file not found")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SignalConfigError(f"{path}: not a valid TOML file: {exc}") from None
    unknown = sorted(set(data) - {"hosts", *_KEYS})
    if unknown:
        raise SignalConfigError(f"{path}: unknown table(s) {unknown}")
    hosts = _strings(_table(data, "hosts", path), "hosts", path)
    w = _section(data, "weights", path)
    a = _section(data, "aliases", path)
    if not isinstance(a["learn"], bool):
        raise SignalConfigError(f"{path}: [aliases] learn must be true or false")
    extra = a["extra"]
    if not isinstance(extra, dict):
        raise SignalConfigError(f"{path}: [aliases.extra] must be a table")
    try:
        weights = WeightRule(w["brand_share"], w["brand_concentration"], w["generic_share"],
                             w["min_items"], w["min_capitalized"])
        rule = AliasRule(a["min_cooccurrence"], a["min_cooccurrence_fuzzy"],
                         a["min_similarity"], a["min_skeleton"], a["max_words"])
    except (TypeError, ValueError) as exc:
        raise SignalConfigError(f"{path}: {exc}") from None
    return SignalFileConfig(str(path), {k.lower(): v for k, v in hosts.items()}, weights,
                          a["learn"], rule, _strings(extra, "aliases.extra", path))

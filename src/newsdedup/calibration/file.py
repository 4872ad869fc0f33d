"""Reading ``calibration.json``: every fault is one line naming the file and what is wrong.

``newsdedup calibrate`` writes the file; ``dedupe --calibration``, ``run``
and the figures read it, and a user may edit or hand-write
one. :func:`read_calibration` checks the whole file once (UTF-8, JSON, an
object, the threshold, the ``parameters`` the threshold was calibrated on)
so that no reader meets a string where a number belongs, or a list where an
object belongs, deep inside a run.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from newsdedup.score.scorers import SCORERS
from newsdedup.text.normalize import TEXTS, get_scheme
from newsdedup.text.series import SeriesConfig


class CalibrationFileError(ValueError):
    """A calibration file that cannot supply a threshold (the message names the file)."""


def read_json_object(path: str | Path) -> dict:
    """The JSON object a file holds; any fault raises one line naming the file.

    Raises:
        FileNotFoundError: The file does not exist.
        CalibrationFileError: Not UTF-8 text, not JSON, or not a JSON object.
    """
    p = Path(path)
    raw = p.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CalibrationFileError(f"{p}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset "
                                   f"{exc.start}); expected a calibration JSON file") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CalibrationFileError(f"{p}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise CalibrationFileError(f"{p}: expected a JSON object at the top level, found "
                                   f"{type(data).__name__}")
    return data


def _number(value: Any) -> bool:
    # bool is an int subclass; true/false is a mistake, not a number.
    return (not isinstance(value, bool) and isinstance(value, int | float)
            and math.isfinite(value))


def _threshold(data: dict, p: Path) -> tuple[float, str]:
    missing = [k for k in ("recommended_threshold", "rationale") if k not in data]
    if missing:
        raise CalibrationFileError(f"{p}: missing top-level key(s) {', '.join(missing)}")
    value, rationale = data["recommended_threshold"], data["rationale"]
    if not isinstance(rationale, str):
        raise CalibrationFileError(f"{p}: rationale must be a string")
    if value is None:
        evidence = data.get("evidence")
        step = evidence.get("next") if isinstance(evidence, dict) else None
        raise CalibrationFileError(f"{p}: no threshold was recommended: {rationale}"
                                   + (f" Next: {step}" if isinstance(step, str) else "")
                                   + " (or pass --threshold)")
    if not _number(value):
        raise CalibrationFileError(f"{p}: recommended_threshold must be a number, got {value!r}")
    if not 0.0 <= value <= 1.0:
        raise CalibrationFileError(f"{p}: recommended_threshold must be in [0, 1], got {value!r}")
    return float(value), rationale


def _parameters(data: dict, p: Path) -> dict[str, Any]:
    """The dedupe settings ``parameters`` names, checked (absent keys are left out)."""
    params = data.get("parameters")
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise CalibrationFileError(f"{p}: parameters must be a JSON object, found "
                                   f"{type(params).__name__}")
    n = params.get("n")
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise CalibrationFileError(f"{p}: parameters.n must be a positive integer, got {n!r}")
    choices = {"scorer": tuple(SCORERS), "text": TEXTS}
    for key, allowed in choices.items():
        value = params.get(key)
        if value is not None and value not in allowed:
            raise CalibrationFileError(f"{p}: parameters.{key} must be one of {list(allowed)}, "
                                       f"got {value!r}")
    scheme = params.get("normalization")
    if scheme is not None:
        try:
            get_scheme(scheme if isinstance(scheme, str) else repr(scheme))
        except (ValueError, KeyError):
            raise CalibrationFileError(f"{p}: parameters.normalization {scheme!r} is not a "
                                       "known scheme") from None
    adopted = {"n": n, "scorer": params.get("scorer"), "text": params.get("text"),
               "scheme": scheme}
    for key in ("gate", "series"):
        value = params.get(key)
        if value is not None and not isinstance(value, bool):
            raise CalibrationFileError(f"{p}: parameters.{key} must be true or false, got "
                                       f"{value!r}")
        adopted[key] = value
    out = {k: v for k, v in adopted.items() if v is not None}
    if "window_days" in params:  # null is a choice: no window
        days = params["window_days"]
        if days is not None and not (_number(days) and days > 0):
            raise CalibrationFileError(f"{p}: parameters.window_days must be a positive number "
                                       f"or null, got {days!r}")
        out["window_days"] = None if days is None else float(days)
    if params.get("series_config") is not None:
        out["series_config"] = _series_config(params["series_config"], p)
    return out


def _series_config(value: Any, p: Path) -> SeriesConfig:
    """``parameters.series_config`` as a :class:`SeriesConfig` (every field a number)."""
    known = {f.name for f in fields(SeriesConfig)}
    if not isinstance(value, dict):
        raise CalibrationFileError(f"{p}: parameters.series_config must be a JSON object, found "
                                   f"{type(value).__name__}")
    unknown = sorted(set(value) - known)
    if unknown:
        raise CalibrationFileError(f"{p}: parameters.series_config has unknown key(s) "
                                   f"{', '.join(unknown)} (known: {', '.join(sorted(known))})")
    bad = [k for k, v in value.items() if not (_number(v) and v >= 0)]
    if bad:
        raise CalibrationFileError(f"{p}: parameters.series_config.{bad[0]} must be a "
                                   f"non-negative number, got {value[bad[0]]!r}")
    defaults = SeriesConfig()
    return SeriesConfig(**{k: type(getattr(defaults, k))(v) for k, v in value.items()})


@dataclass(frozen=True)
class CalibrationFile:
    """What a dedupe takes from ``calibration.json``.

    Attributes:
        threshold: ``recommended_threshold``.
        rationale: Why that threshold.
        settings: DedupeConfig fields from ``parameters`` (n, scorer, text, scheme,
            gate, window_days, series, series_config).
    """

    threshold: float
    rationale: str
    settings: dict[str, Any]


def read_calibration(path: str | Path) -> CalibrationFile:
    """Read and check a ``calibration.json`` for a dedupe.

    Args:
        path: The file.

    Returns:
        The :class:`CalibrationFile`.

    Raises:
        FileNotFoundError: The file does not exist.
        CalibrationFileError: One line naming the file and the fault: not UTF-8,
            not JSON, not an object, a key missing, no usable threshold,
            ``parameters`` not an object or holding a bad value.
    """
    p = Path(path)
    data = read_json_object(p)
    threshold, rationale = _threshold(data, p)
    return CalibrationFile(threshold, rationale, _parameters(data, p))


def check_figure_fields(data: dict, path: str | Path) -> dict:
    """Check the fields the figures read (``upper_bound``, ``band``, the threshold).

    Returns:
        ``data``.

    Raises:
        CalibrationFileError: A field missing or of the wrong type, naming the file.
    """
    p = Path(path)
    if not _number(data.get("upper_bound")):
        raise CalibrationFileError(f"{p}: upper_bound must be a number, got "
                                   f"{data.get('upper_bound')!r}")
    value = data.get("recommended_threshold")
    if value is not None and not _number(value):
        raise CalibrationFileError(f"{p}: recommended_threshold must be a number or null, got "
                                   f"{value!r}")
    band = data.get("band")
    if band is not None and not (isinstance(band, list) and len(band) == 2
                                 and all(map(_number, band))):
        raise CalibrationFileError(f"{p}: band must be null or [low, high], got {band!r}")
    _parameters(data, p)
    return data

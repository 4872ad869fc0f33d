"""Reading ``calibration.json``: every fault is one line naming the file and what is wrong.

``newsdedup calibrate`` writes the file; ``dedupe --calibration``, ``run``,
``label-sheet`` and the figures read it, and a user may edit or hand-write
one. :func:`read_calibration` checks the whole file once (UTF-8, JSON, an
object, the threshold, the ``parameters`` the threshold was calibrated on)
so that no reader meets a string where a number belongs, or a list where an
object belongs, deep inside a run.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from newsdedup.score.scorers import SCORERS
from newsdedup.text.normalize import TEXTS, get_scheme


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
        raise CalibrationFileError(f"{p}: no threshold was recommended: {rationale}")
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
    return {k: v for k, v in adopted.items() if v is not None}


@dataclass(frozen=True)
class CalibrationFile:
    """What a dedupe takes from ``calibration.json``.

    Attributes:
        threshold: ``recommended_threshold``.
        rationale: Why that threshold.
        settings: DedupeConfig fields from ``parameters`` (n, scorer, text, scheme).
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

"""How a freshly written result file is compared with its committed copy.

:func:`result_difference` is the rule every reproduction test applies
(``tests/e2e/``): the committed ``results/`` must be what a fresh run writes.
:func:`committed_files` says which files those are: the ones git tracks, not whatever
an earlier command left in the folder (``make reproduce`` leaves the git-ignored
``timings.json`` and ``cross_pairs.csv`` beside them).

Byte identity holds wherever the code controls every operation (the character
scorers, the calibration, the dedupe). Where a library decides the last digits, a test
passes a ``tolerance``: sentence embeddings come from float32 matrix products whose
summation order OpenBLAS picks per CPU, and the evaluation tables built on them move in
the sixth decimal from one CPU to another (:data:`EMBEDDING_TOLERANCE`).
"""

from __future__ import annotations

import json
import math
import re
import subprocess
from pathlib import Path

EMBEDDING_TOLERANCE = 1e-4
"""Absolute tolerance for numbers derived from sentence embeddings.

Measured: with ``OPENBLAS_CORETYPE=Prescott`` (other float32 kernels, as on another
CPU) the USE cosines of the committed evaluation tables moved by at most 7e-6, and the
statistics over them by 1e-6. 1e-4 is 14 times that, still below one rank swap in an
AUC over the smallest committed set (1 / (72 x 178) = 7.8e-5 is allowed, two are not),
and far below the three decimals the README reports."""

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _png_size(data: bytes) -> tuple[int, int] | None:
    if data[:8] != b"\x89PNG\r\n\x1a\n" or len(data) < 24:
        return None
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def _without_environment(obj):
    if isinstance(obj, dict):
        return {k: _without_environment(v) for k, v in obj.items() if k != "environment"}
    if isinstance(obj, list):
        return [_without_environment(v) for v in obj]
    return obj


def committed_files(folder: Path) -> list[Path]:
    """The files under ``folder`` that git tracks, sorted; every file when git cannot say.

    Examples:
        >>> from newsdedup.paths import PROJECT_ROOT
        >>> PROJECT_ROOT / "pyproject.toml" in committed_files(PROJECT_ROOT)
        True
    """
    folder = Path(folder)
    try:
        done = subprocess.run(["git", "ls-files", "-z", "--", "."], cwd=folder,
                              capture_output=True, check=True, timeout=60)
    except (OSError, subprocess.SubprocessError):  # no git, or not a checkout (an sdist)
        return sorted(p for p in folder.rglob("*") if p.is_file())
    names = [n for n in done.stdout.decode("utf-8").split("\0") if n]
    return sorted(folder / n for n in names if (folder / n).is_file())


def _numbers_agree(old: str, new: str, tolerance: float) -> bool:
    """Whether two texts are equal but for numbers within ``tolerance``.

    A number printed with ``d`` decimals may also differ by one unit of its last place:
    a value that moves by less than the tolerance can still cross a rounding boundary.
    Integers (no decimal point: ids, counts) must be equal.

    Examples:
        >>> _numbers_agree("a,0.701589,x", "a,0.701591,x", 1e-4)
        True
        >>> _numbers_agree("a,0.701589,x", "a,0.702589,x", 1e-4), _numbers_agree("a", "b", 1)
        (False, False)
        >>> _numbers_agree("id 0031", "id 0032", 1e-4)  # integers: ids and counts are exact
        False
    """
    if _NUMBER.split(old) != _NUMBER.split(new):  # the text between the numbers
        return False
    for a, b in zip(_NUMBER.findall(old), _NUMBER.findall(new), strict=True):
        if "." not in a + b:  # integers (ids, counts, sizes) are outcomes: equal or not
            if a != b:
                return False
            continue
        places = max(len(t.partition(".")[2].partition("e")[0].partition("E")[0])
                     for t in (a, b))
        if not math.isclose(float(a), float(b), rel_tol=0.0, abs_tol=tolerance + 10.0**-places):
            return False
    return True


def _json_agree(old, new, tolerance: float) -> bool:
    if isinstance(old, dict) and isinstance(new, dict):
        return old.keys() == new.keys() and all(_json_agree(old[k], new[k], tolerance)
                                                for k in old)
    if isinstance(old, list) and isinstance(new, list):
        return len(old) == len(new) and all(_json_agree(a, b, tolerance)
                                            for a, b in zip(old, new, strict=True))
    numbers = (int, float)
    if (isinstance(old, numbers) and isinstance(new, numbers)
            and not isinstance(old, bool) and not isinstance(new, bool)):
        return old == new or abs(old - new) <= tolerance
    return bool(old == new)


def result_difference(committed: Path, fresh: Path, tolerance: float = 0.0) -> str | None:
    """How a freshly written result file differs from its committed copy, if at all.

    The rule the reproduction tests apply to every committed result: CSV,
    Markdown and other text byte for byte; JSON as data without its
    ``environment`` blocks (library versions may differ between machines);
    PNG by pixel size (font rasterization may differ, the layout may not).
    With a ``tolerance`` (numbers a library's float kernels decide, e.g.
    :data:`EMBEDDING_TOLERANCE`), text and JSON may differ in their numbers by
    that much (and a printed number by one unit of its last decimal).

    Args:
        committed: The committed file.
        fresh: The file a fresh run wrote.
        tolerance: Absolute tolerance for numbers; 0 for byte identity.

    Returns:
        None when they agree, else a one-line reason naming the file.

    Examples:
        >>> import tempfile
        >>> d = Path(tempfile.mkdtemp())
        >>> _ = (d / "a.json").write_text('{"x": 1, "environment": {"numpy": "1"}}')
        >>> _ = (d / "b.json").write_text('{"x": 1, "environment": {"numpy": "2"}}')
        >>> result_difference(d / "a.json", d / "b.json") is None
        True
    """
    if not fresh.is_file():
        return f"a fresh run no longer writes {committed.name}"
    if committed.suffix == ".png":
        old, new = _png_size(committed.read_bytes()), _png_size(fresh.read_bytes())
        return None if old == new and old is not None else (
            f"{committed.name}: size {new} against the committed {old}")
    if committed.suffix == ".json":
        old_data = _without_environment(json.loads(committed.read_text("utf-8")))
        new_data = _without_environment(json.loads(fresh.read_text("utf-8")))
        same = _json_agree(old_data, new_data, tolerance) if tolerance else old_data == new_data
        return None if same else f"{committed.name} differs from a fresh run (environment aside)"
    if fresh.read_bytes() == committed.read_bytes():
        return None
    if tolerance and _numbers_agree(committed.read_text("utf-8"), fresh.read_text("utf-8"),
                                    tolerance):
        return None
    within = f" beyond the tolerance {tolerance:g}" if tolerance else ""
    return f"{committed.name} differs from a fresh run{within}"

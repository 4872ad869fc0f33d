"""How a freshly written result file is compared with its committed copy.

:func:`result_difference` is the rule every reproduction test applies
(``tests/e2e/``): the committed ``results/`` must be what a fresh run writes.
"""

from __future__ import annotations

import json
from pathlib import Path


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


def result_difference(committed: Path, fresh: Path) -> str | None:
    """How a freshly written result file differs from its committed copy, if at all.

    The rule the reproduction tests apply to every committed result: CSV,
    Markdown and other text byte for byte; JSON as data without its
    ``environment`` blocks (library versions may differ between machines);
    PNG by pixel size (font rasterization may differ, the layout may not).

    Args:
        committed: The committed file.
        fresh: The file a fresh run wrote.

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
        same = _without_environment(json.loads(fresh.read_text("utf-8"))) == \
            _without_environment(json.loads(committed.read_text("utf-8")))
        return None if same else f"{committed.name} differs from a fresh run (environment aside)"
    if fresh.read_bytes() != committed.read_bytes():
        return f"{committed.name} differs from a fresh run"
    return None

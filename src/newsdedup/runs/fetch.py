"""``newsdedup fetch``: download the pinned corpus into ``data/external`` and verify it."""

from __future__ import annotations

import hashlib
import urllib.request
from pathlib import Path

from newsdedup import paths
from newsdedup.runs.files import Progress, quiet, write_bytes


def fetch_pinned(progress: Progress = quiet) -> Path:
    """Download the pinned archive by commit unless a verified copy is present.

    Args:
        progress: Progress callback.

    Returns:
        The path of the verified file.

    Raises:
        SystemExit: The download's sha256 is not the pinned one (nothing is written).
    """
    pinned = paths.PALDYN
    target = paths.EXTERNAL_DIR / pinned.name / pinned.filename
    if target.is_file() and paths.sha256_file(target) == pinned.sha256:
        progress(f"{target} already present and verified")
        return target
    progress(f"downloading {pinned.url}")
    with urllib.request.urlopen(pinned.url, timeout=60) as resp:  # noqa: S310 (pinned https URL)
        data = resp.read()
    got = hashlib.sha256(data).hexdigest()
    if got != pinned.sha256:
        raise SystemExit(f"download of {pinned.url} has sha256 {got}, expected {pinned.sha256}; "
                         "nothing written")
    write_bytes(data, target)  # atomic: an interrupted fetch never leaves a partial corpus
    progress(f"wrote {target} ({len(data):,} bytes, sha256 verified)")
    return target

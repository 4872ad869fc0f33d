"""Paths and pinned inputs: the one place that knows where things live.

Every script, notebook and test resolves files through this module, so a
checkout can be moved (or ``NEWSDEDUP_SHARED`` / ``NEWSDEDUP_RESULTS`` set)
without editing code.
"""

from __future__ import annotations

import hashlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path

PROJECT_ROOT: Path = Path(__file__).resolve().parents[2]
"""The checkout's top folder (``src/newsdedup`` is two levels below)."""

SHARED_DIR: Path = Path(os.environ.get("NEWSDEDUP_SHARED", PROJECT_ROOT.parent / "shared"))
"""The read-only ``shared/`` folder laid beside the checkout (seeds, corpora)."""

CORPORA_DIR: Path = SHARED_DIR / "corpora"
DATA_DIR: Path = PROJECT_ROOT / "data"
EXTERNAL_DIR: Path = DATA_DIR / "external"
RESULTS_DIR: Path = Path(os.environ.get("NEWSDEDUP_RESULTS", PROJECT_ROOT / "results"))
OUT_DIR: Path = Path(os.environ.get("NEWSDEDUP_RESULTS", "results"))
"""The command line's ``--out`` default: ``results/`` under the folder the user runs it from
(the library's own default, :data:`RESULTS_DIR`, is the checkout's)."""
EMBED_CACHE_DIR: Path = Path(os.environ.get("NEWSDEDUP_EMBED_CACHE",
                                            DATA_DIR / "cache" / "embeddings"))
"""Root of the sentence-embedding caches, one folder per corpus (git-ignored)."""


@dataclass(frozen=True)
class PinnedCorpus:
    """A corpus fixed by repository, commit and checksum.

    Attributes:
        name: Short name; also the folder under ``results/``.
        repo: ``owner/name`` of the public GitHub repository.
        commit: Full commit hash the file is taken from.
        repo_path: Path of the file inside the repository.
        filename: File name used in ``shared/corpora/<name>/`` and ``data/external/``.
        sha256: Hex digest the file must have.
        size: Size in bytes.
    """

    name: str
    repo: str
    commit: str
    repo_path: str
    filename: str
    sha256: str
    size: int

    @property
    def url(self) -> str:
        """Raw download address of the pinned file."""
        return f"https://raw.githubusercontent.com/{self.repo}/{self.commit}/{self.repo_path}"

    def candidates(self) -> list[Path]:
        """Places searched for the file, in order: shared corpora, then ``data/external``."""
        return [CORPORA_DIR / self.name / self.filename, EXTERNAL_DIR / self.name / self.filename]


PALDYN = PinnedCorpus(
    name="paldyn-ai-lab-news",
    repo="paldyn/ai-lab",
    commit="f4221ef404254eaced9f279b57d8a3531a5c0caa",
    repo_path="src/data/news.ts",
    filename="news-2026-08-05-f4221ef.ts",
    sha256="6f43a84a2f073bb26582c11033720e7d28a780742b2d1f53fe18cb241b48b162",
    size=260_088,
)
"""The 387-item archive behind the published tables of seed 004."""


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class CorpusNotFound(FileNotFoundError):
    """The pinned corpus is in none of the searched places."""


def locate_pinned(corpus: PinnedCorpus = PALDYN, verify: bool = True) -> Path:
    """Find a pinned corpus file on disk.

    Args:
        corpus: Which pinned corpus.
        verify: Check the sha256; a mismatch raises ``ValueError`` naming the file.

    Returns:
        Path of the first candidate that exists.

    Raises:
        CorpusNotFound: No candidate exists; the message says how to fetch it.
    """
    for path in corpus.candidates():
        if path.is_file():
            if verify:
                got = sha256_file(path)
                if got != corpus.sha256:
                    raise ValueError(
                        f"{path}: sha256 {got} does not match the pinned {corpus.sha256}"
                    )
            return path
    searched = "\n  ".join(str(p) for p in corpus.candidates())
    raise CorpusNotFound(
        f"pinned corpus {corpus.name!r} not found; searched:\n  {searched}\n"
        "Run `make fetch` (needs network access) to download it, pinned by commit and sha256."
    )


def results_dir(corpus_name: str) -> Path:
    """Folder for one corpus's outputs: ``results/<corpus_name>/``."""
    return RESULTS_DIR / corpus_name


def results_tree(out: str | Path, name: str) -> Path:
    """The folder a command writes, ``<out>/<name>``, refused if it would leave ``out``.

    ``name`` (the ``--name`` option) is one folder name: not empty, no path
    separator, no ``..``, not absolute, not hidden (``.``-names are the
    workbench's own: ``.newsdedup/`` holds locks and staging trees). An
    existing ``<out>/<name>`` that is a symlink must resolve inside ``out``.

    Args:
        out: The results root (``--out``).
        name: The results name.

    Returns:
        The resolved folder (symlinks followed).

    Raises:
        ValueError: One line saying why the name is refused.

    Examples:
        >>> results_tree("/tmp/r", "uci-head").as_posix()
        '/tmp/r/uci-head'
        >>> results_tree("/tmp/r", "../../x")
        Traceback (most recent call last):
        ...
        ValueError: --name '../../x': a results name is one folder name under --out /tmp/r ...
    """
    root = Path(out).resolve()
    bad = (not name or name.startswith(".") or "/" in name or "\\" in name or "\0" in name
           or Path(name).is_absolute())
    if bad:
        raise ValueError(f"--name {name!r}: a results name is one folder name under --out {root} "
                         "(not empty, no '/', no '..', not absolute, not starting with '.')")
    tree = (root / name).resolve()
    if not tree.is_relative_to(root):
        raise ValueError(f"--name {name!r}: {root / name} is a link to {tree}, outside --out "
                         f"{root}; refusing to write there")
    if tree == root:
        raise ValueError(f"--name {name!r}: {root / name} is a link to --out itself")
    return tree


def shared_corpus_file(*parts: str) -> Path:
    """A file of ``shared/corpora/`` (e.g. ``"korsts", "sts-dev.tsv"``), which must exist.

    Raises:
        CorpusNotFound: The file is missing; the message says where it was looked for.
    """
    path = CORPORA_DIR.joinpath(*parts)
    if not path.is_file():
        raise CorpusNotFound(
            f"shared corpus file missing: {path}. Real-corpus steps read ../shared/corpora "
            "beside the checkout (or the folder NEWSDEDUP_SHARED names); see shared/README.md."
        )
    return path


UCI_COLUMNS: dict[str, str] = {
    "id": "ID",
    "title": "TITLE",
    "url": "URL",
    "source": "PUBLISHER",
    "published_at": "TIMESTAMP",
}
"""Canonical column -> field of the UCI News Aggregator CSV (``shared/corpora/uci-…``).

On the command line the same mapping is
``--columns id=ID,title=TITLE,url=URL,source=PUBLISHER,published_at=TIMESTAMP``.
"""


def numba_cache_dir(environ: dict[str, str] | None = None) -> Path:
    """The user cache directory for numba's compiled kernels.

    numba writes its cache next to each module by default, which a fresh
    checkout, ``make clean`` or a read-only install loses: the first run
    after them compiled every kernel again (10-25 s). This directory survives
    them (:mod:`newsdedup.runs.warm`).

    Examples:
        >>> str(numba_cache_dir({"NEWSDEDUP_CACHE": "/c"}))
        '/c/numba'
        >>> str(numba_cache_dir({"XDG_CACHE_HOME": "/x", "HOME": "/h"}))
        '/x/newsdedup/numba'
        >>> str(numba_cache_dir({"HOME": "/h"}))
        '/h/.cache/newsdedup/numba'
    """
    env = os.environ if environ is None else environ
    if env.get("NEWSDEDUP_CACHE"):
        return Path(env["NEWSDEDUP_CACHE"]) / "numba"
    base = env.get("XDG_CACHE_HOME") or str(Path(env.get("HOME") or Path.home()) / ".cache")
    return Path(base) / "newsdedup" / "numba"


def configure_numba_cache() -> str | None:
    """Set ``NUMBA_CACHE_DIR`` to :func:`numba_cache_dir` unless it is set; return the one used.

    Does nothing (returns None) when numba is already imported, since numba
    reads the variable once, at its import; or when the directory cannot be
    created (numba then keeps its default, next to the modules).
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return os.environ["NUMBA_CACHE_DIR"]
    if "numba" in sys.modules:
        return None
    path = numba_cache_dir()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    os.environ["NUMBA_CACHE_DIR"] = str(path)
    return str(path)

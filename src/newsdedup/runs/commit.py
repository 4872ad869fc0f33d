"""Commit a command's files together: one writer per results tree, a staging tree, a journal.

A command that writes ``<out>/<name>/`` (every ``run_*`` of :mod:`newsdedup.runs`,
through :func:`commits`) works like this:

1. **Lock.** It takes ``<out>/.newsdedup/locks/<name>.lock`` (``flock``, not
   waiting). A second command on the same tree is refused with one line
   naming the other process; the lock dies with its process, so a killed
   run never leaves a stale lock.
2. **Recover.** A previous command on the tree that was killed is finished
   or undone first (:func:`recover`): with a journal its commit is completed,
   without one its staging tree is deleted.
3. **Stage.** Its files are written under ``<out>/.newsdedup/staging/<name>/<name>/``,
   each atomically (:func:`newsdedup.runs.files.atomic_file`). Nothing in the
   tree changes while it computes; an exception discards the staging tree.
4. **Commit.** The journal ``staging/<name>.commit.json`` is written (the
   commit point), then every staged file is renamed into the tree, files the
   tree's previous run listed but this one did not write are removed, and,
   for ``newsdedup run``, the manifest ``<name>/run.json`` is written last:
   the marker that the tree holds one complete run (corpus, checksum, files).

So a run killed between steps leaves the previous tree as it was (and its
``run.json``); one killed during step 4 is completed by the next command on
the tree. Any command on another corpus than the one ``run.json`` names
removes ``run.json``: the tree no longer holds one run.

Nothing is written outside ``--out``: the workbench's folders under it
(``.newsdedup/``, its locks and staging trees) must be plain folders, not
links (:func:`check_work_dir`); every file is committed only into a folder
that resolves inside ``--out`` (a step folder linked elsewhere refuses the
commit before its journal is written); and a journal left by a killed command
is trusted only when every path it names stays inside (:func:`trusted`),
else it is deleted unread. While a command stages, the writer itself refuses
any file outside ``--out`` (:func:`newsdedup.runs.files.contained`).
"""

from __future__ import annotations

import contextlib
import contextvars
import fcntl
import functools
import inspect
import json
import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ParamSpec, TypeVar

from newsdedup import paths
from newsdedup.runs.files import (
    REJECTS,
    OutputError,
    Progress,
    contained,
    fsync_dir,
    quiet,
    write_json,
    write_rejects,
)

WORK_DIR = ".newsdedup"
"""Folder under ``--out`` holding the locks and staging trees (hidden, git-ignored)."""

MANIFEST = "run.json"
"""The completion marker of ``newsdedup run``, written last into ``<out>/<name>/``."""

CONFIG = "params.json"
"""``<out>/<name>/params.json``: the configuration of each command run on the tree."""

INVOCATION: contextvars.ContextVar[dict[str, dict] | None] = contextvars.ContextVar(
    "invocation", default=None)
"""The command line's configuration (``{command: {option: value}}``) while a command runs;
each commit adds it to ``params.json`` (:mod:`newsdedup.cli.config`). None outside the
command line: a library call records nothing."""

_ACTIVE: set[Path] = set()
"""Staging roots of the commits in progress in this process (nested steps write there)."""

P = ParamSpec("P")
R = TypeVar("R")


class TreeBusy(OSError):
    """Another process holds the lock of a results tree."""


@dataclass(frozen=True)
class Work:
    """Where a command on ``<out>/<name>`` keeps its lock, staging tree and journal.

    Locks and staging are keyed by the resolved tree, so two names linked to
    one folder share one lock.

    Attributes:
        root: The resolved results root (``--out``).
        name: The results name as given (the staged command writes ``<stage_root>/<name>``).
        tree: The resolved ``<root>/<name>`` (see :func:`newsdedup.paths.results_tree`).
    """

    root: Path
    name: str
    tree: Path

    @property
    def key(self) -> str:
        """The tree's folder name under ``root``."""
        return self.tree.relative_to(self.root).as_posix()

    @property
    def lock(self) -> Path:
        """The lock file."""
        return self.root / WORK_DIR / "locks" / f"{self.key}.lock"

    @property
    def stage_root(self) -> Path:
        """The results root the staged command writes to (its files go to ``stage``)."""
        return self.root / WORK_DIR / "staging" / self.key

    @property
    def stage(self) -> Path:
        """The staging tree, mirror of ``tree``."""
        return self.stage_root / self.name

    @property
    def journal(self) -> Path:
        """The journal: present once the staged files are complete."""
        return self.root / WORK_DIR / "staging" / f"{self.key}.commit.json"


def work_paths(out: str | Path, name: str) -> Work:
    """The :class:`Work` paths of ``<out>/<name>``; refuses a name leaving ``out``."""
    return Work(root=Path(out).resolve(), name=name, tree=paths.results_tree(out, name))


def check_work_dir(work: Work) -> None:
    """Refuse a workbench folder under ``--out`` that is a link (it could lead anywhere).

    ``<out>/.newsdedup/``, its ``locks/`` and ``staging/``, and this name's staging
    root must be plain folders (or not exist yet): a link there would send the lock, the
    staged files or the journal outside ``--out``.

    Raises:
        OutputError: One line naming the link and where it leads.
    """
    base = work.root / WORK_DIR
    for folder in (base, base / "locks", base / "staging", work.stage_root, work.stage,
                   work.lock):
        if folder.is_symlink():
            raise OutputError(f"{folder} is a link (to {folder.resolve()}); the workbench's "
                              f"own folders under --out {work.root} must be plain folders, so "
                              "nothing is written elsewhere. Delete it when no command runs")


def _holder(lock: Path) -> str:
    with contextlib.suppress(OSError, ValueError):
        return f"pid {int(lock.read_text().strip())}"
    return "another process"


def _acquire(work: Work) -> int:
    # Opened, locked, then checked to still be the file at that name: a releasing
    # process unlinks its lock file, and a lock on an unlinked file protects nothing.
    for _ in range(20):
        work.lock.parent.mkdir(parents=True, exist_ok=True)
        try:
            # O_NOFOLLOW: a lock file planted as a link is not followed out of --out.
            fd = os.open(work.lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except FileNotFoundError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise TreeBusy(f"{work.tree} is being written by {_holder(work.lock)} (lock "
                           f"{work.lock}); wait for it to finish or use another --name") from None
        try:
            same = os.stat(work.lock).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
            return fd
        os.close(fd)
    raise TreeBusy(f"{work.tree}: could not take the lock {work.lock}")


def _release(work: Work, fd: int) -> None:
    with contextlib.suppress(OSError):
        os.unlink(work.lock)
    os.close(fd)
    for folder in (work.lock.parent, work.journal.parent, work.root / WORK_DIR):
        with contextlib.suppress(OSError):
            folder.rmdir()  # only when empty: other names may be locked or staged


@contextlib.contextmanager
def tree_lock(out: str | Path, name: str, progress: Progress = quiet) -> Iterator[Work]:
    """Hold the lock of ``<out>/<name>`` (recovering an interrupted commit first).

    Raises:
        TreeBusy: Another process holds it (one line naming it).
        ValueError: ``name`` leaves ``out`` (:func:`newsdedup.paths.results_tree`).
    """
    work = work_paths(out, name)
    check_work_dir(work)
    fd = _acquire(work)
    try:
        recover(work, progress)
        yield work
    finally:
        _release(work, fd)


def recover(work: Work, progress: Progress = quiet) -> str | None:
    """Finish or undo what a killed command left in the staging area of ``work``.

    Must be called with the tree's lock held.

    Returns:
        ``"completed"`` (a journal was found and its commit finished),
        ``"discarded"`` (a staging tree without a journal was deleted) or None.
    """
    if work.journal.is_file() and not work.journal.is_symlink():
        try:
            journal = json.loads(work.journal.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            journal = None  # a journal is written atomically; unreadable means not ours
        stage = journal.get("stage") if isinstance(journal, dict) else None
        if isinstance(stage, str) and _inside(work.stage_root, stage) and "/" not in stage:
            staged = replace(work, name=stage)
            if trusted(staged, journal):
                _apply(staged, journal)
                progress(f"finished the interrupted commit of {work.tree} "
                         f"({journal.get('step')})")
                return "completed"
            progress(f"deleted the journal of an interrupted command on {work.tree} unread: "
                     "it names a path outside the tree")
    if work.stage_root.exists() or work.journal.exists():
        _discard(work)
        progress(f"discarded the staging tree of an interrupted command on {work.tree}")
        return "discarded"
    return None


def _discard(work: Work) -> None:
    shutil.rmtree(work.stage_root, ignore_errors=True)
    with contextlib.suppress(OSError):
        work.journal.unlink()


def read_manifest(tree: Path) -> dict | None:
    """``<tree>/run.json`` as a dict, or None when absent or unreadable."""
    try:
        data = json.loads((tree / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def corpus_identity(corpus) -> dict | None:
    """File name, checksum and counts of a run's corpus (None without a corpus)."""
    if corpus is None:
        return None
    return {"file": Path(corpus.path).name, "sha256": corpus.sha256,
            "records": corpus.n_records, "items": len(corpus.items)}


def _inside(tree: Path, rel: object) -> bool:
    """Whether ``rel`` names a path inside ``tree`` (no absolute path, no ``..``)."""
    return (isinstance(rel, str) and bool(rel) and not Path(rel).is_absolute()
            and ".." not in Path(rel).parts and (tree / rel).resolve().is_relative_to(tree))


def _lands_inside(work: Work, rel: str) -> bool:
    """Whether ``<tree>/<rel>`` lands inside ``--out`` once its folders' links are followed."""
    return (work.tree / rel).parent.resolve().is_relative_to(work.root)


def trusted(work: Work, journal: dict) -> bool:
    """Whether every path a journal names stays inside the staging tree, the tree and ``--out``.

    A journal is a file under ``--out``; one planted there, or edited, could list
    ``../../x`` to move or delete files anywhere. Only a journal all of whose paths are
    plain relative paths inside is applied.

    Examples:
        >>> from pathlib import Path
        >>> work = Work(root=Path("/r"), name="feed", tree=Path("/r/feed"))
        >>> trusted(work, {"files": ["measure/a.csv"], "remove": []})
        True
        >>> trusted(work, {"files": ["../../etc/x"], "remove": []})
        False
    """
    files, remove = journal.get("files", []), journal.get("remove", [])
    if not isinstance(files, list) or not isinstance(remove, list):
        return False
    return (all(_inside(work.stage, f) and _inside(work.tree, f) and _lands_inside(work, f)
                for f in files)
            and all(_inside(work.tree, f) and _lands_inside(work, f) for f in remove))


def _check_destinations(work: Work, files: list[str]) -> None:
    """Refuse a commit that would put a file in a folder linked outside ``--out``.

    Raises:
        OutputError: Naming the first such folder and where it leads.
    """
    for rel in files:
        if not _lands_inside(work, rel):
            folder = (work.tree / rel).parent
            raise OutputError(f"{folder} leads to {folder.resolve()}, outside --out "
                              f"{work.root}; refusing to write {Path(rel).name} there (the tree "
                              "is left as it was)")


def _record_config(work: Work) -> None:
    """Add the command line's configuration to the tree's ``params.json`` (staged).

    One entry per command: a ``signals`` after a ``run`` keeps the run's entry, so
    ``--config <name>/params.json`` reruns either. An unreadable file is replaced.
    """
    invocation = INVOCATION.get()
    if invocation is None:
        return
    try:
        old = json.loads((work.tree / CONFIG).read_text("utf-8"))
    except (OSError, ValueError, RecursionError):
        old = {}
    kept = {k: v for k, v in old.items() if isinstance(v, dict)} if isinstance(old, dict) else {}
    write_json(dict(sorted((kept | invocation).items())), work.stage / CONFIG)


def other_corpora(tree: Path, corpus) -> list[str]:
    """The other corpus files whose results ``tree`` holds, by its ``params.json``.

    Files of one folder share its name as their default results name, so a second
    file's results land beside the first's (and replace those of the same command)
    unless ``--name`` parts them: the commit warns, naming each other file and its
    commands. Paths are compared resolved from the working folder.

    Returns:
        ``"<file> (<command>, ...)"`` per other file, sorted; empty without a corpus file.
    """
    path = getattr(corpus, "path", None)
    try:
        old = json.loads((tree / CONFIG).read_text("utf-8"))
    except (OSError, ValueError, RecursionError):
        return []
    if path is None or not isinstance(old, dict):
        return []
    this = Path(path).resolve()
    others: dict[str, list[str]] = {}
    for command, options in old.items():
        given = options.get("corpus") if isinstance(options, dict) else None
        if isinstance(given, str) and given and Path(given).resolve() != this:
            others.setdefault(given, []).append(command)
    return [f"{given} ({', '.join(commands)})" for given, commands in sorted(others.items())]


def _journal(work: Work, step: str, corpus, manifest: bool) -> dict:
    files = sorted(p.relative_to(work.stage).as_posix() for p in work.stage.rglob("*")
                   if p.is_file())
    old = read_manifest(work.tree)
    listed = old.get("files") if old else None
    # Only names that stay inside the tree: run.json is a file anyone can edit.
    old_files = {f for f in listed if _inside(work.tree, f)} if isinstance(listed, list) else set()
    new = None
    if manifest:
        new = {"name": work.tree.name, "command": step, "corpus": corpus_identity(corpus),
               "files": files}
    ident = corpus_identity(corpus)
    # run.json says the tree holds one run of the corpus it names: any command on another
    # corpus ends that, whichever files it writes (a dedupe of B beside run A's files).
    other = (old is not None and ident is not None
             and (old.get("corpus") or {}).get("sha256") != ident["sha256"])
    remove = sorted(old_files - set(files)) if manifest else []
    if corpus is not None and REJECTS not in files and (work.tree / REJECTS).is_file():
        remove.append(REJECTS)  # the previous corpus's rejects: none of this one's
    return {"step": step, "stage": work.name, "files": files, "remove": sorted(remove),
            "drop_manifest": bool(manifest or other), "manifest": new}


def _apply(work: Work, journal: dict) -> None:
    """Move the staged files into the tree as the journal says (idempotent)."""
    if journal.get("drop_manifest"):
        with contextlib.suppress(FileNotFoundError):
            (work.tree / MANIFEST).unlink()
    touched = {work.tree}
    for rel in journal.get("files", []):
        src, dst = work.stage / rel, work.tree / rel
        if src.is_file() and _lands_inside(work, rel):  # checked before; a link may be new
            try:
                dst.parent.mkdir(parents=True, exist_ok=True)
                os.replace(src, dst)
            except OSError as exc:  # a file where a folder must be, or the reverse
                raise OutputError(f"{dst}: cannot commit it ({exc.strerror or exc}); the "
                                  f"staged files wait in {work.stage_root}, delete "
                                  f"{work.root / WORK_DIR} to drop them") from None
            touched.add(dst.parent)
    emptied = set()
    for rel in journal.get("remove", []):
        if _inside(work.tree, rel) and _lands_inside(work, rel):
            with contextlib.suppress(OSError):  # absent, a folder, or under a file: nothing
                (work.tree / rel).unlink()
                emptied.add((work.tree / rel).parent)
    # A step this run no longer writes (a dedupe the calibration now declines) leaves no
    # empty folder behind: a script testing for dedupe/ would take it for a result.
    for folder in sorted(emptied, key=lambda f: len(f.parts), reverse=True):
        while folder != work.tree and folder.is_relative_to(work.tree):
            try:
                folder.rmdir()  # only when empty
            except OSError:
                break
            touched.discard(folder)
            folder = folder.parent
            touched.add(folder)
    for folder in touched:
        fsync_dir(folder)
    if journal.get("manifest") is not None:
        write_json(journal["manifest"], work.tree / MANIFEST)
    _discard(work)


@contextlib.contextmanager
def committed(out: str | Path, name: str, step: str, corpus=None, manifest: bool = False,
              progress: Progress = quiet, also: tuple[Path, ...] = ()) -> Iterator[Path]:
    """Stage what the block writes under ``<root>/<name>/`` and commit it on success.

    Inside a commit already in progress (a step of ``run``) it yields ``out``
    unchanged: the outer commit takes the files.

    Args:
        out: The results root.
        name: The results name.
        step: What is committed (recorded in the journal and the manifest).
        corpus: The run's corpus (its identity goes to the manifest).
        manifest: Write ``<name>/run.json`` last (``newsdedup run``).
        progress: Progress callback.
        also: Further files the caller named explicitly (a sheet's ``--output``), which
            may be written outside ``--out``.

    Yields:
        The results root to write to (a staging root).

    Raises:
        TreeBusy: Another process writes the tree.
        ValueError: ``name`` leaves ``out``.
    """
    if Path(out).resolve() in _ACTIVE:
        yield Path(out)
        return
    with tree_lock(out, name, progress) as work:
        work.stage.mkdir(parents=True, exist_ok=True)
        check_work_dir(work)
        _ACTIVE.add(work.stage_root)
        try:
            with contained(work.root, *also):
                yield work.stage_root
            if corpus is not None and getattr(corpus, "rejected", None):
                write_rejects(corpus.rejected, work.stage / REJECTS)
            others = other_corpora(work.tree, corpus)
            _record_config(work)
            _check_destinations(work, sorted(p.relative_to(work.stage).as_posix()
                                             for p in work.stage.rglob("*") if p.is_file()))
        except OutputError as exc:
            _discard(work)
            # Name the file the user knows: the tree's, which is left as it was.
            raise OutputError(str(exc).replace(str(work.stage), str(work.tree), 1)) from None
        except BaseException:
            _discard(work)
            raise
        finally:
            _ACTIVE.discard(work.stage_root)
        journal = _journal(work, step, corpus, manifest)
        write_json(journal, work.journal)  # the commit point
        _apply(work, journal)
        progress(f"{step}: committed {len(journal['files'])} files to {work.tree}")
        if others:
            progress(f"warning: {work.tree} also holds the results of {'; '.join(others)}: "
                     f"this {step} of {corpus.path} went into the same folder, over any "
                     f"earlier {step} there (--name NAME keeps each corpus in a folder of "
                     "its own)")


def commits(step: str, manifest: bool = False,
            before: Callable[[dict], None] | None = None,
            named: Callable[[dict], Iterable[Path | None]] | None = None
            ) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a ``run_*(corpus, name, out, ...)`` so that its files are committed together.

    The wrapped function writes to a staging root (:func:`committed`); a
    :class:`~pathlib.Path` it returns inside the staging tree is mapped to the
    committed file.

    Args:
        step: Name of the step (``"measure"`` ...).
        manifest: Write ``run.json`` when committing (``newsdedup run``).
        before: Called with the call's arguments (``out`` the results root the
            caller named) before anything is staged: a check that may refuse
            the run.
        named: Called with the call's arguments: the files the caller named itself
            (``--holdout SHEET``), which may lie outside ``--out``.

    Returns:
        The decorator.
    """
    def decorate(fn: Callable[P, R]) -> Callable[P, R]:
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            out, name = bound.arguments["out"], bound.arguments["name"]
            if before is not None:
                before(dict(bound.arguments))
            progress = bound.arguments.get("progress") or quiet
            # A path the caller named for one file (a sheet's --output) is theirs to choose.
            chosen = [bound.arguments.get(k) for k in ("path", "output")]
            if named is not None:
                chosen += list(named(dict(bound.arguments)))
            also = tuple(Path(f).parent for f in chosen if f is not None)
            with committed(out, name, step, bound.arguments.get("corpus"), manifest,
                           progress, also) as root:
                staged, tree = str(Path(root) / name), str(paths.results_tree(out, name))
                bound.arguments["out"] = root
                if "progress" in bound.arguments and Path(root) != Path(out):
                    # Say where the files will be, not the staging tree's long path.
                    bound.arguments["progress"] = lambda msg: progress(
                        msg.replace(staged, tree) + " (staged)" if staged in msg else msg)
                result = fn(*bound.args, **bound.kwargs)
            if isinstance(result, Path) and result.is_relative_to(staged):
                result = Path(tree) / result.relative_to(staged)
            return result

        return wrapper

    return decorate

"""The package layout rules, checked on the source tree itself.

Every module in a step folder, private names imported across modules, import
cycles, and the public API. Each rule reads ``src/newsdedup`` with :mod:`ast`,
so a violation names its file and line. Module and function sizes are left to
review: a line limit made commits move comments to pass it.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

import newsdedup
from newsdedup.paths import PROJECT_ROOT

PACKAGE = PROJECT_ROOT / "src" / "newsdedup"
# The flow, one folder a step; a module outside these (but the package's own
# top-level files) has no room.
# ``cli/`` is the command line: options, the commands, the parser.
# ``calibration/`` is the calibration of a dedupe on a corpus (series and window learned
# by ``text``/``cluster``; population, sampling design, estimates, decoys, the loop).
ROOMS = {"corpus", "text", "score", "cluster", "studies", "evaluate", "signals", "runs", "plots",
         "cli", "calibration"}
# ``paths`` and ``progress`` serve every step (where files live; how a long step reports
# itself), so they sit beside the rooms and import nothing of them.
TOP_LEVEL = {"__init__.py", "paths.py", "progress.py"}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        name = ".".join(("newsdedup", *parts)).removesuffix(".__init__")
        out[name] = path
    return out


MODULES = _modules()


def _trees() -> dict[str, ast.Module]:
    return {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in MODULES.items()}


TREES = _trees()


def _imports(tree: ast.Module) -> list[ast.ImportFrom | ast.Import]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom | ast.Import)]


def test_every_module_lives_in_a_room():
    stray = [str(p.relative_to(PACKAGE)) for p in MODULES.values()
             if p.parent == PACKAGE and p.name not in TOP_LEVEL]
    assert not stray, f"modules outside the step folders: {stray}"
    rooms = {p.parent.name for p in MODULES.values() if p.parent != PACKAGE}
    assert rooms == ROOMS


def test_top_level_modules_import_no_room():
    # Every room may import them, so one import of a room would make a cycle in waiting
    # (and ``score`` would reach ``runs`` through ``progress``).
    found = [f"{name}:{node.lineno} imports {getattr(node, 'module', None)}"
             for name, tree in TREES.items() if MODULES[name].parent == PACKAGE
             for node in _imports(tree)
             if any(m.startswith("newsdedup.") for m in
                    ([node.module or ""] if isinstance(node, ast.ImportFrom)
                     else [a.name for a in node.names]))]
    assert not found, found


def test_no_private_name_imported_across_modules():
    found = []
    for name, tree in TREES.items():
        for node in _imports(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("newsdedup"):
                found += [f"{name}:{node.lineno} imports {node.module}.{a.name}"
                          for a in node.names if a.name.startswith("_")]
    assert not found, found


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in MODULES}
    for name, tree in TREES.items():
        for node in _imports(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("newsdedup"):
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    graph[name].add(sub if sub in MODULES else node.module)
            elif isinstance(node, ast.Import):
                graph[name] |= {a.name for a in node.names if a.name in MODULES}
    # A package's __init__ re-exporting its modules is not a dependency of theirs.
    return {k: {v for v in vs if v in MODULES and v != "newsdedup"} for k, vs in graph.items()
            if k != "newsdedup"}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every back edge of a depth-first walk, as the cycle it closes."""
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return cycles


def test_no_import_cycle():
    cycles = _cycles(_graph())
    assert not cycles, [" -> ".join(c) for c in cycles]


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert _cycles({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []


def test_public_api_resolves():
    assert newsdedup.__all__ == sorted(newsdedup.__all__)
    for name in newsdedup.__all__:
        assert getattr(newsdedup, name) is not None, name
    with pytest.raises(AttributeError):
        newsdedup.no_such_name  # noqa: B018


@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_module_imports_and_has_a_docstring(name: str):
    module = importlib.import_module(name)
    assert (module.__doc__ or "").strip(), f"{name} has no module docstring"


def _private_library_imports(tree: ast.Module) -> list[str]:
    """Imports of another library's private module or name (``scipy.special._ufuncs``)."""
    found = []
    for node in _imports(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            names = [a.name for a in node.names]
        else:
            module, names = "", [a.name for a in node.names]
        if getattr(node, "level", 0) or module.startswith("newsdedup") or any(
                n.startswith("newsdedup") for n in names):
            continue
        dotted = [module, *[f"{module}.{n}" if module else n for n in names]]
        if any(part.startswith("_") and not part.startswith("__")
               for d in dotted for part in d.split(".") if part):
            found.append(f"{module or names[0]}:{node.lineno}")
    return found


def test_no_private_module_of_another_library_is_imported():
    # A private module saves milliseconds and breaks on the library's next release.
    found = {name: hits for name, tree in TREES.items() if (hits := _private_library_imports(tree))}
    assert not found
    planted = ast.parse("from scipy.special._ufuncs import _beta_ppf\nimport numpy._core\n")
    assert len(_private_library_imports(planted)) == 2


JARGON = re.compile(r"seed[- ]?0\d\d|seed[- ](file|script|dialect|pipeline|report)|"
                    r"\bblock [123]\b|published block", re.I)
"""How the project's history names things, which a user never saw: fine in a docstring
(provenance), not in a message, a help text or a report."""


def _messages(tree: ast.Module) -> list[ast.Constant]:
    """String constants that are not docstrings (what a user may be shown)."""
    documentation = {id(n.value) for n in ast.walk(tree)
                     if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    return [n for n in ast.walk(tree) if isinstance(n, ast.Constant)
            and isinstance(n.value, str) and id(n) not in documentation]


def test_no_message_help_or_report_text_speaks_of_seed_files_or_blocks():
    found = [f"{MODULES[name].relative_to(PACKAGE)}:{c.lineno}: {c.value[:60]!r}"
             for name, tree in TREES.items() for c in _messages(tree) if JARGON.search(c.value)]
    assert not found
    planted = ast.parse('"""seed 004, block 1: provenance."""\nx = "see seed-000"\n')
    assert [c.value for c in _messages(planted) if JARGON.search(c.value)] == ["see seed-000"]

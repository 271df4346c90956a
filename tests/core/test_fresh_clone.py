"""A fresh clone has no ``../shared`` beside it: every test that reads it skips, saying why.

Two checks, neither running the whole suite twice. A static one reads every test module
and finds each test that reaches ``../shared`` (through ``tests.conftest.SHARED``, a path
of its own ending in ``"shared"``, a name, fixture or helper built from one, or a benchmark
script that reads it) and requires a skip with a reason in front of it. A real one clones
this checkout's HEAD into a folder with nothing beside it and runs exactly those tests
there with pytest: exit 0, each skipped with its reason in the summary.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

TESTS = REPO_ROOT / "tests"
BENCHMARKS = REPO_ROOT / "benchmarks"


def _benchmarks_reading_shared() -> set[str]:
    """Benchmark scripts (file names) that read ``../shared``, directly or by an import."""
    texts = {p.stem: p.read_text(encoding="utf-8") for p in BENCHMARKS.glob("*.py")}
    reading = {name for name, text in texts.items() if '/ "shared"' in text}
    imports = {
        name: set(re.findall(r"^\s*(?:from|import)\s+(\w+)", text, re.MULTILINE))
        for name, text in texts.items()
    }
    while grown := {n for n, used in imports.items() if used & reading} - reading:
        reading |= grown
    return {f"{name}.py" for name in reading}


SHARED_SCRIPTS = _benchmarks_reading_shared()


def _is_root(node: ast.AST) -> bool:
    """Whether ``node`` itself names ``../shared``."""
    if isinstance(node, ast.Name) and node.id == "SHARED":
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return any(
            isinstance(s, ast.Constant) and s.value == "shared" for s in (node.left, node.right)
        )
    return isinstance(node, ast.Constant) and node.value in SHARED_SCRIPTS


def _is_skip_call(node: ast.AST) -> bool:
    """``pytest.mark.skipif(..., reason=...)``, or ``pytest.skip("why")``, with a reason."""
    if not isinstance(node, ast.Call):
        return False
    name = ast.unparse(node.func)
    if name.endswith("mark.skipif"):
        return bool(node.args) and any(k.arg == "reason" for k in node.keywords)
    return name == "pytest.skip" and bool(node.args or node.keywords)


@dataclass
class _Module:
    """What one test module defines, and which of it reaches ``../shared``."""

    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)
    values: dict[str, ast.AST] = field(default_factory=dict)
    markers: set[str] = field(default_factory=lambda: {"needs_shared"})
    """Names of skips, with a reason, on a condition that reaches ``../shared``."""
    tainted: set[str] = field(default_factory=set)
    """Every module name (value, fixture, helper) whose use reaches ``../shared``."""


def _parse(path: Path) -> _Module:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module = _Module()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            module.functions[node.name] = node
        elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            module.values.update((t.id, node.value) for t in targets if isinstance(t, ast.Name))
    module.tainted = _tainted(module)
    module.markers |= {
        name for name, value in module.values.items() if _is_guard(value, module.tainted)
    }
    return module


def _reaches(node: ast.AST, tainted: set[str]) -> bool:
    return any(
        _is_root(sub) or (isinstance(sub, ast.Name) and sub.id in tainted) for sub in ast.walk(node)
    )


def _is_guard(node: ast.AST, tainted: set[str]) -> bool:
    """A skip, with a reason, whose condition is the absence of something in ``../shared``."""
    if not _is_skip_call(node):
        return False
    assert isinstance(node, ast.Call)
    return ast.unparse(node.func) == "pytest.skip" or _reaches(node.args[0], tainted)


def _body_and_defaults(func: ast.FunctionDef) -> list[ast.AST]:
    """What a function runs (its decorators are not reads: a skip's test names the data)."""
    params = [ast.Name(id=a.arg) for a in func.args.args]  # a fixture taken by name
    return [*func.body, *func.args.defaults, *params]


def _tainted(module: _Module) -> set[str]:
    tainted: set[str] = set()
    while True:
        grown = {
            name
            for name, value in module.values.items()
            if not _is_skip_call(value) and _reaches(value, tainted)
        }
        grown |= {
            name
            for name, func in module.functions.items()
            if not _skips_first(func, tainted)
            and any(_reaches(part, tainted) for part in _body_and_defaults(func))
        }
        if grown <= tainted:
            return tainted
        tainted |= grown


def _skips_first(func: ast.FunctionDef, tainted: set[str]) -> bool:
    """A fixture or test whose body first skips, with a reason, when the data is absent."""
    body = func.body[1:] if ast.get_docstring(func) else func.body
    first = body[0] if body else None
    return (
        isinstance(first, ast.If)
        and _reaches(first.test, tainted)
        and any(_is_guard(sub, tainted) for sub in ast.walk(first))
    )


def _guarded(func: ast.FunctionDef, module: _Module) -> bool:
    pytestmark = module.values.get("pytestmark")
    if pytestmark is not None and _is_guard(pytestmark, module.tainted):
        return True
    if _skips_first(func, module.tainted):
        return True
    for decorator in func.decorator_list:
        if isinstance(decorator, ast.Name) and decorator.id in module.markers:
            return True
        if _is_guard(decorator, module.tainted):
            return True
        if "parametrize" in ast.unparse(decorator) and _params_guarded(decorator, module):
            return True
    return False


def _params_guarded(decorator: ast.AST, module: _Module) -> bool:
    """A parametrize whose every param that reaches ``../shared`` has a skip mark."""
    args = decorator.args if isinstance(decorator, ast.Call) else []
    values: ast.AST | None = args[1] if len(args) > 1 else None
    if isinstance(values, ast.Name):
        values = module.values.get(values.id)
    if not isinstance(values, ast.List | ast.Tuple):
        return False
    for param in values.elts:
        if not _reaches(param, module.tainted):
            continue
        marks = [k.value for k in getattr(param, "keywords", []) if k.arg == "marks"]
        if not any(_is_guard(sub, module.tainted) for mark in marks for sub in ast.walk(mark)):
            return False
    return True


def readers_of_shared() -> dict[str, bool]:
    """Every test (``path::name``) that reaches ``../shared``, and whether a skip guards it."""
    found: dict[str, bool] = {}
    for path in sorted(TESTS.rglob("test_*.py")):
        if path.name == Path(__file__).name:
            continue  # this checker only looks for the folder, to be sure it is not there
        module = _parse(path)
        for name, func in module.functions.items():
            params = [d for d in func.decorator_list if "parametrize" in ast.unparse(d)]
            reads = any(_reaches(part, module.tainted) for part in _body_and_defaults(func))
            reads = reads or any(_reaches(d, module.tainted) for d in params)
            if name.startswith("test_") and reads:
                found[f"{path.relative_to(REPO_ROOT)}::{name}"] = _guarded(func, module)
    return found


def test_every_test_that_reads_shared_skips_with_a_reason_without_it() -> None:
    readers = readers_of_shared()
    # not vacuous: the known readers are found, through each way they reach ../shared
    for known in (
        "tests/core/test_fuzz_hooks.py::test_fuzz_run_small",  # a benchmark script
        "tests/core/test_killed_writers.py::test_kill_run_small",  # a script importing kbgen
        "tests/core/test_bootstrap.py::test_every_awesome_rule_is_one_proposal",  # a fixture
        "tests/core/test_extraction_labels_eval.py::test_the_tuning_day_and_the_other_day_differ_by_at_most_a_tenth",
        "tests/core/test_reimport_rejected.py::test_a_note_rejected_in_review_does_not_come_back",
        "tests/core/test_redaction_gates.py::test_every_gate_agrees_with_its_pattern_on_the_shared_lines",
    ):
        assert known in readers, known
    assert [test for test, guarded in readers.items() if not guarded] == []


@pytest.mark.slow
@pytest.mark.skipif(not (REPO_ROOT / ".git").exists(), reason="not a git checkout to clone")
def test_a_fresh_clone_without_shared_skips_every_reader_with_its_reason(tmp_path: Path) -> None:
    """Clone HEAD where nothing is beside it, run the tests that read ``../shared``: exit 0."""
    clone = tmp_path / "alone" / "lorebook"
    subprocess.run(
        ["git", "clone", "--quiet", "--no-hardlinks", str(REPO_ROOT), str(clone)],
        check=True, capture_output=True,
    )  # fmt: skip
    assert not (clone.parent / "shared").exists()
    readers = [t for t in readers_of_shared() if (clone / t.split("::")[0]).is_file()]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", *readers],
        cwd=clone, env=env, capture_output=True, text=True, timeout=1500, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    summary = run.stdout.splitlines()
    skipped = [line for line in summary if line.startswith("SKIPPED")]
    assert skipped, run.stdout[-2000:]
    # each skip says why: the data beside the clone is missing
    for line in skipped:
        assert re.search(r"shared|evaluation data absent", line), line
    assert re.search(r"\d+ skipped", summary[-1]), summary[-1]

"""Docs that are tested: every hook spec is documented with its exact signature, and tested."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from lorebook import hookspecs
from tests.conftest import REPO_ROOT

DOC = REPO_ROOT / "docs" / "hooks.md"
SPECS = sorted(
    name
    for name, obj in vars(hookspecs).items()
    if inspect.isfunction(obj) and hasattr(obj, "lorebook_spec")
)


def _signature(name: str) -> str:
    func = getattr(hookspecs, name)
    sig = inspect.signature(func)
    params = ", ".join(f"{p.name}: {p.annotation}" for p in sig.parameters.values())
    return f"{name}({params}) -> {sig.return_annotation}"


def test_every_spec_is_listed() -> None:
    assert sorted(hookspecs.PROVIDER_HOOKS + hookspecs.PIPELINE_HOOKS) == SPECS


@pytest.mark.parametrize("name", SPECS)
def test_spec_has_a_section_with_its_exact_signature(name: str) -> None:
    text = DOC.read_text(encoding="utf-8")
    section = re.search(rf"^## `{name}`\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert section, f"docs/hooks.md has no '## `{name}`' section"
    assert _signature(name) in section.group(1), (
        f"docs/hooks.md: signature of {name} is not {_signature(name)!r}"
    )


@pytest.mark.parametrize("name", SPECS)
def test_spec_is_exercised_by_a_test(name: str) -> None:
    tests = [p for p in (REPO_ROOT / "tests").rglob("test_*.py") if p.name != "test_docs.py"]
    assert any(re.search(rf"\b{name}\b", p.read_text(encoding="utf-8")) for p in tests), (
        f"no test names the hook {name}"
    )


def test_readme_documents_the_two_newcomer_commands() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert "./scripts/demo" in readme
    assert "./scripts/test" in readme
    ci = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "./scripts/test" in ci


def test_every_cli_command_has_help(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from lorebook.cli.app import app

    runner = CliRunner()
    for args in (
        ["--help"],
        ["note", "--help"],
        ["note", "add", "--help"],
        ["index", "rebuild", "--help"],
        ["lint", "--help"],
        ["doctor", "--help"],
        ["status", "--help"],
        ["plugins", "--help"],
        ["schema", "--help"],
        ["init", "--help"],
        ["folder", "describe", "--help"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, args
        assert "Usage:" in result.output

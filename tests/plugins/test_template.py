"""The host-plugin template renders into a plugin that installs beside core and passes its own
tests and the harness contract suite; the suite fails when the plugin installs nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

TEMPLATE = REPO_ROOT / "templates" / "host-plugin"
NAMES = {"__HOST_TITLE__": "Acme Host", "__HOST__": "acmehost"}


def render(target: Path) -> Path:
    """Copy the template with every placeholder (in paths and text) replaced."""
    for source in sorted(TEMPLATE.rglob("*")):
        rel = source.relative_to(TEMPLATE).as_posix()
        if source.is_dir() or "__pycache__" in rel:
            continue
        for placeholder, value in NAMES.items():
            rel = rel.replace(placeholder, value)
        text = source.read_text(encoding="utf-8")
        for placeholder, value in NAMES.items():
            text = text.replace(placeholder, value)
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        (target / rel).write_text(text, encoding="utf-8")
    return target


def install(plugin: Path, site: Path) -> None:
    """``pip install`` the rendered plugin (no dependencies: core is already installed)."""
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--disable-pip-version-check", "--target", str(site), str(plugin)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr


def run_tests(plugin: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=plugin, env=env, capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip


@pytest.fixture
def rendered(tmp_path: Path) -> tuple[Path, Path]:
    plugin = render(tmp_path / "lorebook-acmehost")
    return plugin, tmp_path / "site"


def test_no_placeholder_survives_rendering(rendered: tuple[Path, Path]) -> None:
    plugin, _ = rendered
    for path in plugin.rglob("*"):
        assert "__HOST" not in path.as_posix()
        if path.is_file():
            assert "__HOST" not in path.read_text(encoding="utf-8"), path


def test_the_rendered_plugin_passes_its_tests_and_the_contract_suite(
    rendered: tuple[Path, Path],
) -> None:
    plugin, site = rendered
    install(plugin, site)
    proc = run_tests(plugin, site)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " passed" in proc.stdout
    assert "skipped" not in proc.stdout
    assert "TestContract" not in proc.stdout  # nothing of the contract failed or was skipped
    summary = proc.stdout.strip().splitlines()[-1]
    assert int(summary.split()[0]) >= 14, summary  # the contract suite's tests ran, and ours


def test_the_contract_suite_fails_when_nothing_is_installed_to_replay(
    rendered: tuple[Path, Path],
) -> None:
    plugin, site = rendered
    harness = plugin / "src/lorebook_acmehost/harness.py"
    text = harness.read_text(encoding="utf-8")
    broken = text.replace("        return FILE.hook_commands(repo)", "        return {}")
    assert broken != text
    harness.write_text(broken, encoding="utf-8")
    install(plugin, site)
    proc = run_tests(plugin, site)
    assert proc.returncode == 1, proc.stdout
    assert "init installed no hook command to replay" in proc.stdout

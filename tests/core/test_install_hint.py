"""A hint to install an extra gives the command for how lorebook was installed."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from lorebook import installhint
from lorebook.installhint import install_command
from tests.conftest import REPO_ROOT, CliRunner


def _installed(monkeypatch: pytest.MonkeyPatch, prefix: Path, origin: tuple[str, bool]) -> None:
    prefix.mkdir(parents=True, exist_ok=True)
    monkeypatch.setattr(sys, "prefix", str(prefix))
    monkeypatch.setattr(installhint, "_origin", lambda: origin)


def test_an_editable_clone_is_told_its_own_pip_and_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _installed(monkeypatch, tmp_path / "venv", (str(REPO_ROOT / "core"), True))
    assert install_command("mcp") == shlex.join([
        sys.executable, "-m", "pip", "install", "-e", f"{REPO_ROOT}/core[mcp]",
        "-c", str(REPO_ROOT / "constraints.txt"),
    ])  # fmt: skip


def test_pip_from_an_index_installs_the_extra_into_this_python(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _installed(monkeypatch, tmp_path / "venv", ("lorebook", False))
    assert install_command("mcp") == f"{shlex.quote(sys.executable)} -m pip install 'lorebook[mcp]'"


def test_pipx_installs_into_its_own_environment_keeping_injected_plugins(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    prefix = tmp_path / "pipx" / "venvs" / "lorebook"
    _installed(monkeypatch, prefix, ("/src/lorebook/core", False))
    (prefix / "pipx_metadata.json").write_text("{}", encoding="utf-8")
    assert install_command("mcp") == "pipx runpip lorebook install '/src/lorebook/core[mcp]'"


def test_a_uv_tool_is_installed_again_with_every_with_it_had(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    prefix = tmp_path / "uv" / "tools" / "lorebook"
    _installed(monkeypatch, prefix, ("/src/lorebook/core", False))
    (prefix / "uv-receipt.toml").write_text(
        "[tool]\nrequirements = [\n"
        '  { name = "lorebook", extras = ["semantic"], directory = "/src/lorebook/core" },\n'
        '  { name = "lorebook-claude", directory = "/src/lorebook/plugins/claude" },\n'
        '  { name = "rich", specifier = ">=13" },\n]\n',
        encoding="utf-8",
    )
    assert install_command("mcp") == (
        "uv tool install '/src/lorebook/core[semantic,mcp]' "
        "--with /src/lorebook/plugins/claude --with 'rich>=13'"
    )
    (prefix / "uv-receipt.toml").write_text("not toml [", encoding="utf-8")
    assert install_command("mcp") == shlex.join(
        ["uv", "pip", "install", "--python", sys.executable, "/src/lorebook/core[mcp]"]
    )


def test_init_without_the_sdk_says_the_command_for_this_install(
    kb_repo: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("lorebook.mcp_config.sdk_installed", lambda: False)
    result = cli("init", "--harnesses", "claude", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    line = f"  MCP server not registered: install it with {install_command('mcp')}"
    assert line in result.stdout.splitlines()
    assert "pip install 'lorebook[mcp]'" not in result.stdout


def test_mcp_without_the_sdk_says_the_command_for_this_install(
    kb_repo: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)  # import mcp raises ImportError
    result = cli("mcp", cwd=kb_repo)
    assert result.exit_code == 1
    assert f"install lorebook's mcp extra: {install_command('mcp')}" in result.stderr

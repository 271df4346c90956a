"""What core knows of a host comes from its plugin: a third-party host plugin, installed as
a distribution with an entry point, supplies its MCP config file the same way the
first-party ones do (``HarnessSpec`` fields), and ``init`` and ``uninstall`` honour it."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from lorebook.mcp_config import sdk_installed
from tests.conftest import run_lorebook

needs_sdk = pytest.mark.skipif(not sdk_installed(), reason="the mcp extra is not installed")

MYHOST = """
from pathlib import Path

from lorebook import hookimpl
from lorebook.harness import InstallReport
from lorebook.providers import HarnessSpec


class MyHost:
    name = "myhost"

    def install(self, repo):
        return InstallReport()

    def uninstall(self, repo):
        return InstallReport()


@hookimpl
def register_harnesses():
    return [
        HarnessSpec(
            name="myhost",
            factory=MyHost,
            instruction_files=("MYHOST.md",),
            mcp_config=".myhost/mcp.json",
        )
    ]
"""


@pytest.fixture
def myhost_env(tmp_path: Path) -> dict[str, str]:
    """PYTHONPATH holding an installed ``lorebook-myhost`` distribution (dist-info + module)."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "lorebook_myhost.py").write_text(textwrap.dedent(MYHOST), encoding="utf-8")
    info = site / "lorebook_myhost-0.0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: lorebook-myhost\nVersion: 0.0.1\n")
    (info / "entry_points.txt").write_text("[lorebook.harness]\nmyhost = lorebook_myhost\n")
    return {"PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}


@needs_sdk
def test_a_third_party_host_names_its_mcp_config(kb_repo: Path, myhost_env: dict[str, str]) -> None:
    done = run_lorebook("init", "--harnesses", "myhost", "--json", cwd=kb_repo, env=myhost_env)
    assert ".myhost/mcp.json" in json.loads(done.stdout)["created"]
    servers = json.loads((kb_repo / ".myhost/mcp.json").read_text())["mcpServers"]
    assert servers["lorebook"]["command"] == ".lorebook/bin/mcp"
    assert not (kb_repo / ".mcp.json").exists()  # no wired host reads Claude Code's file
    run_lorebook("uninstall", "--harnesses", "myhost", cwd=kb_repo, env=myhost_env)
    assert not (kb_repo / ".myhost/mcp.json").exists()


def test_stats_counts_the_pointer_block_in_a_third_party_hosts_instruction_file(
    kb_repo: Path, myhost_env: dict[str, str]
) -> None:
    run_lorebook("init", "--harnesses", "myhost", cwd=kb_repo, env=myhost_env)
    assert "lorebook:begin" in (kb_repo / "MYHOST.md").read_text(encoding="utf-8")
    report = json.loads(run_lorebook("stats", "--json", cwd=kb_repo, env=myhost_env).stdout)
    pointers = report["standing_cost"]["pointer_block"]
    assert list(pointers) == ["MYHOST.md"]
    assert pointers["MYHOST.md"] > 0

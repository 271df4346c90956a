"""What core knows of a host comes from its plugin: a third-party host plugin, installed as
a distribution with an entry point, supplies its MCP config file the same way the
first-party ones do (``HarnessSpec`` fields), and its memory layout through
``lorebook.hostkit.memory.HostMemory``, as the Claude Code and Codex plugins do: ``init``,
``uninstall``, ``stats``, ``harvest`` and ``doctor`` honour them."""

from __future__ import annotations

import json
import os
import shutil
import textwrap
from pathlib import Path

import pytest

from lorebook.mcp_config import sdk_installed
from tests.conftest import git, run_lorebook

needs_sdk = pytest.mark.skipif(not sdk_installed(), reason="the mcp extra is not installed")

MYHOST = """
import os
from pathlib import Path

from lorebook import hookimpl
from lorebook.harness import InstallReport
from lorebook.hostkit.memory import (
    MemoryEntry, MemoryListing, about_the_person, kind_of, one_line, text_sha256,
)
from lorebook.providers import HarnessSpec


class MyHost:
    # A host keeping one memory per line of $MYHOST_HOME/memory.txt.

    name = "myhost"

    def install(self, repo):
        return InstallReport()

    def uninstall(self, repo):
        return InstallReport()

    def memory_store(self, repo):
        return Path(os.environ["MYHOST_HOME"])

    def memory_entries(self, repo):
        store = self.memory_store(repo)
        listing = MemoryListing(store if store.is_dir() else None)
        for line in (store / "memory.txt").read_text().splitlines() if listing.store else ():
            listing.entries.append(
                MemoryEntry(
                    key=f"memory.txt#{text_sha256(line)[:12]}", slot="memory.txt",
                    title=one_line(line, 120), description=one_line(line), text=line,
                    kind=kind_of(line, line), sha256=text_sha256(line),
                    personal=about_the_person(line),
                )
            )
        return listing


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


MEMORY = """Never run the migrations against the shared staging database.
The user prefers answers without preamble.
"""


def test_a_third_party_host_supplies_its_memory_to_doctor_and_harvest(
    kb_repo: Path, myhost_env: dict[str, str], tmp_path: Path
) -> None:
    home = tmp_path / "myhost-home"
    home.mkdir()
    (home / "memory.txt").write_text(MEMORY, encoding="utf-8")
    env = {**myhost_env, "MYHOST_HOME": str(home)}
    doctor = json.loads(run_lorebook("doctor", "--json", cwd=kb_repo, env=env, check=False).stdout)
    check = {c["name"]: c for c in doctor["checks"]}["myhost memory"]
    assert check["state"] == "warning"
    assert f"holds 2 memories of this repository not harvested yet ({home})" in check["detail"]
    assert check["fix"] == "run `lorebook harvest --from myhost` to bring them into review"
    report = json.loads(
        run_lorebook("harvest", "--from", "myhost", "--json", cwd=kb_repo, env=env).stdout
    )
    assert report["store"] == str(home)
    assert len(report["proposed"]["new"]) == 1  # the person's preference went to their store
    assert sorted(report["outcomes"].values()) == ["note", "personal"]
    doctor = json.loads(run_lorebook("doctor", "--json", cwd=kb_repo, env=env, check=False).stdout)
    assert "myhost memory" not in {c["name"] for c in doctor["checks"]}
    status = json.loads(run_lorebook("status", "--json", cwd=kb_repo, env=env).stdout)
    assert status["left_for_review"]["harvest"]["unreviewed"] == 1


def test_harvest_names_the_hosts_whose_plugins_keep_a_memory(
    kb_repo: Path, myhost_env: dict[str, str]
) -> None:
    done = run_lorebook("harvest", "--from", "nohost", cwd=kb_repo, env=myhost_env, check=False)
    assert done.returncode == 2
    assert "--from 'nohost': expected one of claude, codex, myhost" in done.stderr


def test_pack_import_guards_a_third_party_hosts_instruction_file(
    kb_repo: Path, myhost_env: dict[str, str], tmp_path: Path
) -> None:
    run_lorebook("init", "--harnesses", "myhost", cwd=kb_repo, env=myhost_env)
    run_lorebook(
        "note", "add", "--title", "Use uv for dependencies", "--description", "When adding one",
        "--kind", "tooling", "--folder", "team", cwd=kb_repo, env=myhost_env,
    )  # fmt: skip
    pack = tmp_path / "pack"
    run_lorebook("pack", "export", str(pack), "--folder", "team", cwd=kb_repo, env=myhost_env)
    shutil.rmtree(kb_repo / ".lorebook" / "nodes" / "team")
    git(kb_repo, "add", "-A")
    git(kb_repo, "commit", "-qm", "wired")
    with (kb_repo / "MYHOST.md").open("a", encoding="utf-8") as handle:
        handle.write("A line of my own.\n")
    done = run_lorebook("pack", "import", str(pack), cwd=kb_repo, env=myhost_env, check=False)
    assert done.returncode == 1
    assert "uncommitted changes (MYHOST.md)" in done.stderr


def test_import_names_the_hosts_whose_plugins_read_a_session_store(kb_repo: Path) -> None:
    done = run_lorebook("import", "--list", cwd=kb_repo, check=False)
    assert done.returncode == 2
    assert "--list and --session go with --from-harness claude|codex|copilot" in done.stderr
    only_claude = {"LOREBOOK_LOAD_PLUGINS": "claude"}
    done = run_lorebook("import", "--list", cwd=kb_repo, env=only_claude, check=False)
    assert "--list and --session go with --from-harness claude\n" in done.stderr

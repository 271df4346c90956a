"""Pytest fixtures of the test kit (enabled by ``pytest_plugins = ["lorebook.testing"]``)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from lorebook.constants import ENV_HOME, ENV_HOOK_SERVER
from lorebook.testing.memory_store import MemoryStore
from lorebook.testing.recorder import HookRecorder


@pytest.fixture
def lorebook_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point HOME, the XDG folders and ``LOREBOOK_HOME`` at a fresh folder; return it.

    Nothing a test does reaches the real user's configuration or data, no plugin is
    disabled or forced by a knob set in the developer's environment, and hooks start no
    warm hook process (``LOREBOOK_HOOK_SERVER=0``) that would outlive the test.
    """
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    monkeypatch.setenv(ENV_HOME, str(home / ".lorebook-home"))
    for var, sub in (
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_STATE_HOME", ".local/state"),
        ("XDG_CACHE_HOME", ".cache"),
    ):
        monkeypatch.setenv(var, str(home / sub))
    for knob in ("LOREBOOK_DISABLE_PLUGINS", "LOREBOOK_LOAD_PLUGINS", "LOREBOOK_TRACE_PLUGINS"):
        monkeypatch.delenv(knob, raising=False)
    monkeypatch.setenv(ENV_HOOK_SERVER, "0")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "lorebook test")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "test@example.invalid")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "lorebook test")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "test@example.invalid")
    return home


@pytest.fixture
def hook_recorder() -> Iterator[HookRecorder]:
    """Record the hook calls of a fresh plugin host built with ``load_external=False``.

    Register the plugin under test on ``hook_recorder.pm``; the facade is
    ``hook_recorder.plugins``.
    """
    from lorebook.plugins import make_plugins

    plugins = make_plugins(load_external=False)
    recorder = HookRecorder(plugins.pm, plugins)
    yield recorder
    recorder.close()


@pytest.fixture
def memory_store() -> MemoryStore:
    """An empty in-memory note store."""
    return MemoryStore()


@pytest.fixture
def kb_repo(tmp_path: Path, lorebook_home: Path) -> Path:
    """A new git repository with ``lorebook init`` done (no harness wired); return its root."""
    from lorebook.initialize import init_repo

    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    init_repo(repo, [])
    return repo

"""The harness contract suite of the lorebook test kit, run against the Codex plugin.

The contract expects every ``check`` item to be ``ok`` right after ``install``. For Codex that
is true only once a person has trusted the hooks (Codex skips them silently otherwise), so
CODEX_HOME here holds what Codex's "Trust all and continue" writes for the test repository:
the project trust and the ``[hooks.state]`` records of ``CodexHarness.trust_toml``, whose
format and hashes test_trust.py checks against files the real Codex wrote.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from lorebook.testing import HarnessContract
from lorebook_codex import hooks_file, trust
from lorebook_codex.events import EVENTS
from tests.plugins.codex.conftest import FIXTURES, recorded


def _recorded() -> list[tuple[str, Mapping[str, Any]]]:
    """The recorded payloads, their ``transcript_path`` pointing at the recorded rollout.

    The recording machine's paths are gone; the rollouts Codex wrote in the same sessions
    are fixtures, so capture reads what it would have read.
    """
    pairs = recorded("hook-payloads.jsonl") + recorded("lorebook-run/hook-payloads.jsonl")
    replay: list[tuple[str, Mapping[str, Any]]] = []
    for event, payload in pairs:
        if event in EVENTS:
            rollout = next(
                path
                for path in FIXTURES.glob("*/rollout-*.jsonl")
                if path.name.endswith(f"{payload['session_id']}.jsonl")
            )
            replay.append((event, {**payload, "transcript_path": str(rollout)}))
    return replay


class TestCodexContract(HarnessContract):
    harness_name = "codex"

    @pytest.fixture
    def recorded_payloads(self) -> list[tuple[str, Mapping[str, Any]]]:
        return _recorded()

    @pytest.fixture(autouse=True)
    def trusted_by_a_person(
        self, kb_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """CODEX_HOME as Codex leaves it once a person trusted lorebook's hooks here."""
        home = tmp_path / "codexhome"
        home.mkdir()
        project = f'[projects."{os.path.realpath(kb_repo)}"]\ntrust_level = "trusted"\n\n'
        records = trust.trust_toml(kb_repo, hooks_file.installed({}))
        (home / "config.toml").write_text(project + records, encoding="utf-8")
        monkeypatch.setenv("CODEX_HOME", str(home))

"""``lorebook mark`` from a plain shell: never attached to another session, and curated
(everyday-use issue round 2, item 11)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.conftest import CliRunner


def _a_session_fired_a_hook(kb_repo: Path) -> None:
    """What a hand-made hook payload leaves: session s1 ran a hook a moment ago."""
    log = kb_repo / ".lorebook/_logs/hook-timing.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    line = {"at": time.time(), "harness": "claude", "session": "s1", "event": "UserPromptSubmit"}
    log.write_text(json.dumps(line) + "\n", encoding="utf-8")


def test_a_mark_from_a_plain_shell_stages_under_its_own_session_and_is_curated(
    kb_repo: Path, cli: CliRunner
) -> None:
    _a_session_fired_a_hook(kb_repo)
    text = "The connection pool holds fifty connections; never raise it."
    marked = cli("mark", "--kind", "gotcha", text, "--json", cwd=kb_repo)
    assert marked.exit_code == 0, marked.stderr
    doc = marked.json()
    assert doc["log"].startswith(".lorebook/_sessions/mark")
    assert doc["proposal"]["origin"].startswith("mark:shell-")  # not claude:s1
    said = cli("mark", "--kind", "gotcha", "Run the migrations before the tests.", cwd=kb_repo)
    assert "staged under a session of its own" in said.stdout
    assert "run `lorebook curate` to turn it into a note" in said.stdout
    curated = cli("curate", "--json", cwd=kb_repo)
    assert curated.exit_code == 0, curated.stderr
    assert "nothing to curate" not in curated.stdout
    notes = [p.read_text() for p in (kb_repo / ".lorebook/nodes").rglob("*.md")]
    assert any("fifty connections" in note for note in notes), json.dumps(curated.json())[:800]

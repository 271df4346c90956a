"""Each family of secrets a red team found leaking, through each channel a session is stored
from, on the real capture path of Claude Code and of Codex; proposed through the MCP server
and curated; and found by ``lorebook scan`` in a note written by hand.

The families are :data:`tests.core.secrets_corpus.FAMILY_FORMS` (PuTTY keys and every other
private-key container, age keys, Azure SAS and other signed URLs, ``.npmrc`` lines and other
credential files, credentials in prose, DSNs and URLs carrying a key, passwords on command
lines, Hugging Face and other prefixed tokens). The channels: what the person types, what
the agent says, a tool's input, a tool's failed output, and a transcript line pasted whole
(its quotes and newlines JSON escapes).
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from lorebook.capture.stage import capture_session, log_files
from lorebook.kb.paths import KBPaths
from lorebook_claude.harness import ClaudeHarness
from lorebook_codex.harness import CodexHarness
from tests.conftest import Result
from tests.core.secrets_corpus import FAMILIES, FAMILY_FORMS

CHANNELS = ("user", "assistant", "tool-input", "tool-output", "transcript-line")
SID = "11111111-2222-4333-8444-666666666666"


def _forms(family: str) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(name, text, secrets) for fam, name, text, secrets in FAMILY_FORMS if fam == family]


def _spellings(secret: str) -> set[str]:
    """``secret`` as it reads raw, in a JSON string, and in a JSON string inside one."""
    once = json.dumps(secret)[1:-1]
    return {secret, once, json.dumps(once)[1:-1]}


def _claude(channel: str, at: int, text: str) -> list[dict[str, Any]]:
    def user(content: object) -> dict[str, Any]:
        message = {"role": "user", "content": content}
        return {"type": "user", "message": message, "uuid": f"u-{at}", "sessionId": SID}

    def assistant(*blocks: dict[str, Any]) -> dict[str, Any]:
        message = {"role": "assistant", "content": list(blocks)}
        return {"type": "assistant", "message": message, "uuid": f"a-{at}", "sessionId": SID}

    tool_id = f"toolu_{at:020d}"
    if channel == "user":
        return [user(text)]
    if channel == "assistant":
        return [assistant({"type": "text", "text": f"Noted: {text}"})]
    if channel == "tool-input":
        bash = {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": text}}
        return [assistant(bash)]
    if channel == "tool-output":
        call = {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": "make"}}
        result = {"type": "tool_result", "tool_use_id": tool_id, "is_error": True,
                  "content": f"Exit code 1\nerror: {text}"}  # fmt: skip
        return [assistant(call), user([result])]
    return [user(json.dumps(user(text)))]  # a transcript line, pasted whole


def _codex(channel: str, at: int, text: str) -> list[dict[str, Any]]:
    def item(payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": "2026-11-30T07:00:00Z", "type": "response_item", "payload": payload}

    def user(content: str) -> dict[str, Any]:
        return item({"type": "message", "role": "user",
                     "content": [{"type": "input_text", "text": content}],
                     "internal_chat_message_metadata_passthrough": {
                         "content_item_kinds": ["user.text"]}})  # fmt: skip

    call_id = f"call_{at:012d}"
    if channel == "user":
        return [user(text)]
    if channel == "assistant":
        return [item({"type": "message", "role": "assistant",
                      "content": [{"type": "output_text", "text": f"Noted: {text}"}]})]  # fmt: skip
    command = text if channel == "tool-input" else "make"
    call = item({"type": "function_call", "name": "exec_command", "call_id": call_id,
                 "arguments": json.dumps({"cmd": command})})  # fmt: skip
    if channel == "tool-input":
        return [call]
    if channel == "tool-output":
        output = f"Process exited with code 1\nOutput:\nerror: {text}"
        return [call, item({"type": "function_call_output", "call_id": call_id, "output": output})]
    return [user(json.dumps(user(text)))]  # a transcript line, pasted whole


HARNESSES = {"claude": (ClaudeHarness, _claude), "codex": (CodexHarness, _codex)}
CASES = [(h, f, c) for h in sorted(HARNESSES) for f in FAMILIES for c in CHANNELS]


def _everything_under(root: Path) -> str:
    """Every file's name and text under ``root`` (SQLite files as raw bytes)."""
    out = []
    for path in sorted(root.rglob("*")):
        out.append(str(path.relative_to(root)))
        if path.is_file():
            out.append(path.read_bytes().decode("utf-8", "replace"))
    return "\n".join(out)


def _leaks(found_in: str, family: str) -> list[tuple[str, str]]:
    return [
        (name, secret)
        for name, _, secrets in _forms(family)
        for secret in secrets
        if any(spelling in found_in for spelling in _spellings(secret))
    ]


@dataclass
class Workspace:
    """One isolated home and knowledge base a whole module's tests share (cheap to set up)."""

    repo: Path
    monkeypatch: pytest.MonkeyPatch

    def cli(self, *args: str) -> Result:
        """Run ``lorebook`` in this process, as the ``cli`` fixture does."""
        from lorebook.cli.app import main

        out, err = io.StringIO(), io.StringIO()
        self.monkeypatch.setattr(sys, "argv", ["lorebook", *args])
        code = 0
        redirected = (contextlib.redirect_stdout(out), contextlib.redirect_stderr(err))
        with contextlib.chdir(self.repo), redirected[0], redirected[1]:
            try:
                main()
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        return Result(code, out.getvalue(), err.getvalue())

    def git(self, *args: str) -> str:
        run = subprocess.run(["git", "-C", str(self.repo), *args], check=True, capture_output=True)
        return run.stdout.decode("utf-8", "replace")


@contextlib.contextmanager
def _workspace(root: Path) -> Iterator[Workspace]:
    """A home and a repository with ``lorebook init`` done, as ``lorebook_home`` and
    ``kb_repo`` make them, for a module."""
    from lorebook.constants import ENV_HOME, ENV_HOOK_SERVER
    from lorebook.initialize import init_repo

    home, repo = root / "home", root / "repo"
    home.mkdir()
    repo.mkdir()
    with pytest.MonkeyPatch.context() as mp:
        for var, value in (("HOME", home), ("USERPROFILE", home), (ENV_HOME, home / ".lb"),
                           ("XDG_CONFIG_HOME", home / ".config"),
                           ("XDG_DATA_HOME", home / ".local/share"),
                           ("XDG_STATE_HOME", home / ".local/state"),
                           ("XDG_CACHE_HOME", home / ".cache")):  # fmt: skip
            mp.setenv(var, str(value))
        for knob in ("LOREBOOK_DISABLE_PLUGINS", "LOREBOOK_LOAD_PLUGINS"):
            mp.delenv(knob, raising=False)
        mp.setenv(ENV_HOOK_SERVER, "0")
        mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
        for var in ("GIT_AUTHOR", "GIT_COMMITTER"):
            mp.setenv(f"{var}_NAME", "lorebook test")
            mp.setenv(f"{var}_EMAIL", "test@example.invalid")
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        init_repo(repo, [])
        yield Workspace(repo, mp)


@pytest.fixture(scope="module")
def captured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[Any, str]]:
    """Each (harness, family, channel) captured as its own session: its staged files' text.

    Under ``"all"``: everything under ``.lorebook/`` once every session is staged.
    """
    root = tmp_path_factory.mktemp("channels")
    staged: dict[Any, str] = {}
    with _workspace(root) as space:
        for n, (harness, family, channel) in enumerate(CASES):
            host, records = HARNESSES[harness]
            lines = [json.dumps(record) + "\n"
                     for at, (_, text, _s) in enumerate(_forms(family))
                     for record in records(channel, at, text)]  # fmt: skip
            transcript = root / f"transcript-{n}.jsonl"
            transcript.write_text("".join(lines), encoding="utf-8")
            sid = f"11111111-2222-4333-8444-{n:012d}"
            result = capture_session(KBPaths(space.repo), host(), harness, sid, str(transcript))
            assert result.new_turns >= len(_forms(family))  # each form was read, turn by turn
            texts = [
                path.read_bytes().decode("utf-8", "replace") for path in log_files(result.path)
            ]
            staged[harness, family, channel] = "\n".join(texts)
        staged["all"] = _everything_under(space.repo / ".lorebook")
        yield staged


@pytest.mark.parametrize(("harness", "family", "channel"), CASES)
def test_a_family_in_a_channel_leaves_nothing_under_lorebook(
    captured: dict[Any, str], harness: str, family: str, channel: str
) -> None:
    staged = captured[harness, family, channel]
    assert "[REDACTED]" in staged
    assert _leaks(staged, family) == []
    assert _leaks(captured["all"], family) == []


@pytest.fixture(scope="module")
def proposed(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Workspace, dict[str, Any]]]:
    """Every form of every family proposed through the MCP server's ``propose``, then one
    proposal without a secret; curated, and the result committed."""
    from lorebook.errors import LorebookError
    from lorebook.mcp_server import stage_proposal

    with _workspace(tmp_path_factory.mktemp("mcp")) as space:
        paths = KBPaths(space.repo)
        refusals: dict[str, list[str]] = {}
        for family, name, text, _ in FAMILY_FORMS:
            try:
                stage_proposal(paths, {"title": f"Remember how {family} {name} is set up",
                                       "description": "Set up for deploys",
                                       "body": f"Remember:\n{text}", "kind": "convention",
                                       "type": "practice", "tags": ["ops"], "quote": text})  # fmt: skip
            except LorebookError as exc:
                refusals.setdefault(family, []).append(f"{exc} {exc.hint}")
        staged = stage_proposal(paths, {"title": "Run the linter before pushing",
                                        "description": "Lint", "kind": "convention",
                                        "body": "Run `make lint` before every push.",
                                        "type": "practice", "tags": [], "quote": ""})  # fmt: skip
        run = space.cli("curate", "--json")
        assert run.exit_code == 0, run.stderr
        space.git("add", "-A")
        space.git("commit", "-qm", "curated", "--no-verify")
        index = space.repo / ".lorebook" / ".cache" / "index.sqlite"
        yield (
            space,
            {
                "refusals": refusals,
                "staged": staged,
                "report": run.json(),
                "lorebook": _everything_under(space.repo / ".lorebook"),
                "notes": _everything_under(space.repo / ".lorebook" / "nodes"),
                "index": index.read_bytes().decode("utf-8", "replace"),
                "objects": space.git("cat-file", "--batch-all-objects", "--batch"),
                "scan": space.cli("scan").exit_code,
            },
        )


def test_propose_refuses_a_secret_before_staging_and_the_clean_proposal_curates(
    proposed: tuple[Workspace, dict[str, Any]],
) -> None:
    _, found = proposed
    assert sum(map(len, found["refusals"].values())) == len(FAMILY_FORMS)
    first = found["refusals"]["putty"][0]
    assert first.startswith("propose: ")
    assert "what looks like a secret; nothing was staged" in first
    assert found["staged"]["ok"] is True
    assert (found["report"]["refused"], found["report"]["actions"]["add"]) == ([], 1)
    assert found["scan"] == 0


@pytest.mark.parametrize("family", FAMILIES)
def test_a_family_proposed_through_mcp_never_becomes_a_note_an_index_row_or_a_git_object(
    proposed: tuple[Workspace, dict[str, Any]], family: str
) -> None:
    space, found = proposed
    assert len(found["refusals"][family]) == len(_forms(family))
    assert _leaks("\n".join(found["refusals"][family]), family) == []  # named, never shown
    places = ("lorebook", "notes", "index", "objects")
    assert [_leaks(found[where], family) for where in places] == [[], [], [], []]
    question = f"how is {family} {_forms(family)[0][0]} set up"
    recalled = space.cli("recall", question, "--json", "--pending")
    assert recalled.exit_code == 0, recalled.stderr
    assert _leaks(recalled.stdout, family) == []


@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    with _workspace(tmp_path_factory.mktemp("scan")) as space:
        yield space


@pytest.mark.parametrize("family", FAMILIES)
def test_scan_finds_a_family_in_a_note_written_by_hand(scanned: Workspace, family: str) -> None:
    head = ["---", "type: practice", "title: Deploy notes", "description: How we deploy",
            "tags: []", "lb_schema: 2", f"lb_id: practice-deploy-{family}", "lb_kind: convention",
            "lb_status: active", "lb_confidence: medium", "---", ""]  # fmt: skip
    lines, spans = list(head), []
    for name, text, _ in _forms(family):
        spans.append((name, len(lines) + 1, len(lines) + text.count("\n") + 1))
        lines += [*text.split("\n"), ""]
    note = scanned.repo / ".lorebook" / "nodes" / "convention" / f"practice-deploy-{family}.md"
    note.parent.mkdir(parents=True, exist_ok=True)
    note.write_text("\n".join(lines), encoding="utf-8")
    run = scanned.cli("scan", str(note), "--json")
    assert run.exit_code == 1
    flagged = {hit["line"] for hit in run.json()["secrets"]}
    missed = [name for name, first, last in spans if not flagged & set(range(first, last + 1))]
    assert missed == []
    assert not flagged & set(range(1, len(head) + 1))  # the front matter is no secret

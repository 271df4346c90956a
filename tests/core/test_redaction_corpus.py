"""Every form of the secrets corpus, in every channel, leaves no trace under .lorebook/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lorebook.capture.stage import capture_session, log_files
from lorebook.events import ToolCall, Turn
from lorebook.kb.paths import KBPaths
from lorebook.secrets.redact import REDACTED, find_secrets, redact_many
from lorebook.secrets.toolinput import ARG_CHARS
from tests.conftest import CliRunner
from tests.core.secrets_corpus import FALSE_POSITIVES, FORMS, GH


def test_the_corpus_is_large_enough() -> None:
    assert len(FORMS) >= 40
    assert len(FALSE_POSITIVES) >= 25


@pytest.mark.parametrize(("name", "line", "secrets"), FORMS, ids=[f[0] for f in FORMS])
def test_each_form_is_redacted_and_scan_finds_it(
    name: str, line: str, secrets: tuple[str, ...]
) -> None:
    (clean,) = redact_many([line])
    for secret in secrets:
        assert secret not in clean, f"{name}: {clean}"
    assert REDACTED in clean
    assert find_secrets(line), f"scan misses {name}"
    assert not find_secrets(clean), f"scan still flags the redacted {name}: {clean}"


@pytest.mark.parametrize("line", FALSE_POSITIVES)
def test_benign_values_stay_intact(line: str) -> None:
    assert redact_many([line]) == [line]
    assert find_secrets(line) == []


class CorpusHarness:
    """A harness whose transcript puts every form in every channel."""

    def __init__(self, turns: list[Turn]) -> None:
        self.turns = turns

    def transcript_end(self, ref: str) -> int:
        return len(self.turns)

    def read_transcript(
        self, ref: str, since: int | None = None, until: int | None = None
    ) -> Iterator[Turn]:
        yield from self.turns[since or 0 : until]


def _channels(line: str, at: int) -> list[Turn]:
    bash = ToolCall("Bash", {"command": line, "description": "run it"})
    write = ToolCall("Write", {"file_path": ".env", "content": f"# env\n{line}\n"})
    failed = ToolCall("Bash", {"command": "make deploy"}, f"error: {line}", is_error=True)
    return [
        Turn(at, "user", line),
        Turn(at + 1, "assistant", f"Noted: {line}", (bash, write)),
        Turn(at + 2, "tool", f"error: {line}", (failed,)),
    ]


def _everything_under(root: Path) -> str:
    """Every file's name and text under ``root`` (SQLite files as raw bytes)."""
    out = []
    for path in sorted(root.rglob("*")):
        out.append(str(path.relative_to(root)))
        if path.is_file():
            out.append(path.read_bytes().decode("utf-8", "replace"))
    return "\n".join(out)


def test_no_form_reaches_the_knowledge_base_through_any_channel(kb_repo: Path) -> None:
    turns = [t for i, (_, line, _s) in enumerate(FORMS) for t in _channels(line, i * 3)]
    harness = CorpusHarness(turns)
    result = capture_session(KBPaths(kb_repo), harness, "corpus", "s-1", "ref")
    assert result.new_turns == len(turns)
    staged = _everything_under(kb_repo / ".lorebook")
    leaked = [(name, s) for name, _, secrets in FORMS for s in secrets if s in staged]
    assert leaked == []
    assert staged.count(REDACTED) >= 4 * len(FORMS)
    # What is not a secret survives: the tool names, the file path, the benign words.
    assert '"file_path": ".env"' in staged
    assert "make deploy" in staged


def test_a_secret_under_a_secret_named_key_is_replaced_whole(kb_repo: Path) -> None:
    call = ToolCall("mcp__db__connect", {"host": "db", "password": "hunter2", "user": "app"})
    harness = CorpusHarness([Turn(0, "assistant", "connecting", (call,))])
    result = capture_session(KBPaths(kb_repo), harness, "corpus", "s-2", "ref")
    staged = "".join(p.read_text() for p in log_files(result.path))
    assert "hunter2" not in staged
    assert '"user": "app"' in staged


def test_a_token_cut_by_the_logged_length_leaves_no_prefix(kb_repo: Path) -> None:
    command = "x" * (ARG_CHARS - 10) + f" {GH}"
    call = ToolCall("Bash", {"command": command})
    cut_by_host = f"fatal: bad credentials {GH[:12]}…"
    failed = ToolCall("Bash", {"command": "git push"}, cut_by_host, is_error=True)
    turns = [Turn(0, "assistant", "pushing", (call,)), Turn(1, "tool", cut_by_host, (failed,))]
    result = capture_session(KBPaths(kb_repo), CorpusHarness(turns), "corpus", "s-3", "ref")
    staged = "".join(p.read_text() for p in log_files(result.path))
    assert GH[:8] not in staged


def test_scan_finds_every_form_in_notes_file_names_and_indexes(
    kb_repo: Path, cli: CliRunner
) -> None:
    from lorebook.kb.store import MarkdownStore
    from lorebook.recall.sync import reconcile
    from lorebook.testing import make_note

    store = MarkdownStore(kb_repo)
    for i, (_, line, _s) in enumerate(FORMS):
        store.add(make_note(f"form-{i}", title=f"Form {i}", body=f"Remember: {line}"))
    store.add(make_note("hunter2-password-is-hunter2", title="Named after a secret"))
    reconcile(KBPaths(kb_repo))
    doc = cli("scan", "--json", cwd=kb_repo).json()
    assert doc["ok"] is False
    by_file: dict[str, set[int]] = {}
    for hit in doc["secrets"]:
        by_file.setdefault(Path(hit["file"]).name, set()).add(hit["line"])
    for i in range(len(FORMS)):
        assert f"practice-form-{i}.md" in by_file, FORMS[i][0]
    assert 0 in by_file["practice-hunter2-password-is-hunter2.md"]  # the file name
    assert "index.sqlite" in by_file  # the index hooks read holds the note text too
    clean = cli("scan", str(kb_repo / ".lorebook/config.yaml"), cwd=kb_repo)
    assert clean.exit_code == 0, clean.stdout

"""lorebook harvest against fake host stores laid out as the real ones.

Claude Code: ``$CLAUDE_CONFIG_DIR/projects/<slug>/memory/*.md`` with name, description and
type front matter and a ``MEMORY.md`` index. Codex: ``$CODEX_HOME/memories/MEMORY.md`` of
``# Task Group:`` blocks whose ``applies_to: cwd=`` says where they come from.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lorebook.kb.notes import parse_note
from tests.conftest import CliRunner, git

FEEDBACK = """---
name: Run the tests with tox
description: Never call pytest directly in this repository; run tox -e py so the env matches CI.
type: feedback
---
Never call pytest directly in this repository: run `tox -e py`, so the environment matches CI.
"""
USER = """---
name: The user is a data scientist
description: Explain frontend concepts with backend analogies.
type: user
---
Deep Go experience, new to React.
"""
INDEX = """- [Run the tests with tox](feedback_tox.md) - tox, not pytest
- [The user](user_role.md) - who they are
- The staging database is reset every night at 02:00 UTC, so fixtures must be reloaded.
"""


def _claude_store(home: Path, repo: Path) -> Path:
    slug = re.sub(r"[^A-Za-z0-9]", "-", str(repo.resolve()))
    memory = home / "claude-config" / "projects" / slug / "memory"
    memory.mkdir(parents=True)
    (memory / "feedback_tox.md").write_text(FEEDBACK, encoding="utf-8")
    (memory / "user_role.md").write_text(USER, encoding="utf-8")
    (memory / "MEMORY.md").write_text(INDEX, encoding="utf-8")
    return memory


def _notes(repo: Path) -> dict[str, list[str]]:
    found = {}
    for path in sorted((repo / ".lorebook" / "nodes").rglob("*.md")):
        if path.name != "index.md":
            note, _ = parse_note(path.read_text(encoding="utf-8"), source=path.name)
            found[note.id] = note.derived_from
    return found


@pytest.fixture
def claude(kb_repo: Path, lorebook_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The Claude Code memory folder of ``kb_repo``, under CLAUDE_CONFIG_DIR."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(lorebook_home / "claude-config"))
    git(kb_repo, "add", "-A")
    git(kb_repo, "commit", "-qm", "init")
    return _claude_store(lorebook_home, kb_repo)


def test_each_claude_memory_is_proposed_once(kb_repo: Path, claude: Path, cli: CliRunner) -> None:
    first = cli("harvest", "--from", "claude", "--json", cwd=kb_repo)
    assert first.exit_code == 0, first.stderr
    report = first.json()
    assert report["store"] == str(claude)
    assert sorted(report["proposed"]["new"])[1] == "feedback_tox.md"
    assert len(report["proposed"]["new"]) == 2  # the tox memory and the index's own bullet
    assert report["skipped"] == {}  # the user memory went to the personal store
    notes = _notes(kb_repo)
    assert sorted(o for origins in notes.values() for o in origins)[1:] == [
        "claude-memory:feedback_tox.md"
    ]
    assert sorted(report["outcomes"].values()) == ["note", "note", "personal"]
    status = cli("status", "--json", cwd=kb_repo).json()["left_for_review"]["harvest"]
    assert status["unreviewed"] == 2

    second = cli("harvest", "--from", "claude", cwd=kb_repo)
    assert second.exit_code == 0, second.stderr
    assert "nothing new: 3 unchanged since the last harvest" in second.stdout
    assert _notes(kb_repo) == notes


def test_the_text_report_lists_every_note_the_harvest_wrote(
    kb_repo: Path, claude: Path, cli: CliRunner
) -> None:
    done = cli("harvest", "--from", "claude", cwd=kb_repo)
    assert done.exit_code == 0, done.stderr
    added = [line for line in done.stdout.splitlines() if line.startswith("added ")]
    listed = {line.rpartition("/")[2].removesuffix(".md") for line in added}
    assert listed == set(_notes(kb_repo))  # both notes, not only the last one
    assert " curated: " not in done.stdout  # one batch of memories, not sessions


def test_an_edited_memory_comes_back_as_a_modification(
    kb_repo: Path, claude: Path, cli: CliRunner
) -> None:
    cli("harvest", "--from", "claude", cwd=kb_repo)
    before = _notes(kb_repo)
    edited = FEEDBACK + "\nUse `tox -e lint` for the linters as well.\n"
    (claude / "feedback_tox.md").write_text(edited, encoding="utf-8")
    report = cli("harvest", "--from", "claude", "--json", cwd=kb_repo).json()
    assert report["proposed"] == {"new": [], "modified": ["feedback_tox.md"]}
    assert report["curation"]["actions"]["modify"] == 1
    after = _notes(kb_repo)
    assert set(after) == set(before)  # merged into the note it became: no new note
    (note_id,) = [i for i, o in after.items() if "claude-memory:feedback_tox.md" in o]
    assert len(after[note_id]) == 2
    assert after[note_id][1].startswith("claude-memory:feedback_tox.md@")
    text = next((kb_repo / ".lorebook" / "nodes").rglob(f"{note_id}.md")).read_text()
    assert "tox -e lint" in text


def test_a_rejected_memory_does_not_come_back(kb_repo: Path, claude: Path, cli: CliRunner) -> None:
    cli("harvest", "--from", "claude", cwd=kb_repo)
    (note_id,) = [i for i, o in _notes(kb_repo).items() if "claude-memory:feedback_tox.md" in o]
    rejected = cli("review", "--reject", note_id, cwd=kb_repo)
    assert rejected.exit_code == 0, rejected.stderr
    assert note_id not in _notes(kb_repo)
    ledger = kb_repo / ".lorebook" / ".state" / "harvest-claude.json"
    for forgotten in (False, True):  # with this machine's ledger, and without it
        if forgotten:
            ledger.unlink()
        report = cli("harvest", "--from", "claude", "--json", cwd=kb_repo).json()
        assert note_id not in _notes(kb_repo)
        assert "feedback_tox.md" not in report["proposed"]["new"]
    assert report["rejected_before"] == ["feedback_tox.md"]
    # its body edited, its claim the same: still rejected
    (claude / "feedback_tox.md").write_text(FEEDBACK + "\nAlso on CI.\n", encoding="utf-8")
    again = cli("harvest", "--from", "claude", "--json", cwd=kb_repo).json()
    assert again["proposed"]["modified"] == []
    assert note_id not in _notes(kb_repo)


CODEX_MEMORY = """# Task Group: {repo} billing service

scope: the billing service of this repository
applies_to: cwd={repo}; reuse_rule=safe for this checkout

## Task 1: fix the invoice rounding, success

### rollout_summary_files

- rollout_summaries/a.md (cwd={repo}, rollout_path=x, updated_at=2026-01-01, thread_id=1)

## Reusable knowledge

- Invoice totals are rounded with banker's rounding in billing/round.py; never use round() [Task 1]

## Failures and how to do differently

- Tests failed with a stale fixture -> the fixture cache lives in .cache/fixtures; delete it
  and rerun [Task 1]

# Task Group: another project

scope: elsewhere
applies_to: cwd=/somewhere/else; reuse_rule=only there

## Reusable knowledge

- The other project deploys with make ship.

# Task Group: general preferences

scope: every project

## User preferences

- The user wants short answers.
"""


def test_codex_memories_of_this_repository_only(
    kb_repo: Path, lorebook_home: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    codex = lorebook_home / "codex-home"
    (codex / "memories").mkdir(parents=True)
    (codex / "memories" / "MEMORY.md").write_text(
        CODEX_MEMORY.format(repo=kb_repo.resolve()), encoding="utf-8"
    )
    monkeypatch.setenv("CODEX_HOME", str(codex))
    report = cli("harvest", "--from", "codex", "--json", cwd=kb_repo).json()
    assert len(report["proposed"]["new"]) == 2
    assert report["skipped"] == {"another working directory": 1}
    # the global block's user preference is the person's: their store, not the team's
    assert list(report["personal"]["notes"].values()) == ["convention-the-user-wants-short-answers"]
    origins = sorted(o for os_ in _notes(kb_repo).values() for o in os_)
    assert all(o.startswith("codex-memory:MEMORY.md#") for o in origins)
    bodies = " ".join(
        p.read_text()
        for p in (kb_repo / ".lorebook" / "nodes").rglob("*.md")
        if p.name != "index.md"
    )
    assert "banker's rounding" in bodies
    assert "make ship" not in bodies
    assert "short answers" not in bodies
    again = cli("harvest", "--from", "codex", "--json", cwd=kb_repo).json()
    assert again["proposed"]["new"] == []
    assert again["unchanged"] == 3


def test_doctor_warns_only_when_a_host_memory_holds_memories_to_harvest(
    kb_repo: Path, lorebook_home: Path, monkeypatch: pytest.MonkeyPatch, cli: CliRunner
) -> None:
    from lorebook.doctor import run_doctor

    codex = lorebook_home / "codex-home"
    codex.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(lorebook_home / "claude-config"))
    (codex / "config.toml").write_text("[features]\nmemories = true\n", encoding="utf-8")

    def memory_lines() -> dict[str, str]:
        return {c.name: c.detail for c in run_doctor(kb_repo) if c.name.endswith(" memory")}

    # Both memories are on, and neither holds anything of this repository: nothing to say.
    assert memory_lines() == {}
    git(kb_repo, "add", "-A")
    git(kb_repo, "commit", "-qm", "init")
    store = _claude_store(lorebook_home, kb_repo)
    assert memory_lines() == {
        "claude memory": f"claude's own memory holds 3 memories of this repository not "
        f"harvested yet ({store}): unreviewed and invisible to teammates"
    }
    assert cli("harvest", "--from", "claude", cwd=kb_repo).exit_code == 0
    assert memory_lines() == {}
    (store / "feedback_tox.md").write_text(FEEDBACK.replace("tox -e py", "tox -e py312"))
    assert "holds 1 memory of this repository" in memory_lines()["claude memory"]


def test_a_memory_named_like_a_file_is_titled_by_its_rule(
    kb_repo: Path, claude: Path, cli: CliRunner
) -> None:
    (claude / "no-db-mocks.md").write_text(
        "---\nname: no-db-mocks\ndescription: We don't mock the database in integration "
        "tests; use the pg_tmp fixture.\ntype: feedback\n---\nUse the pg_tmp fixture.\n",
        encoding="utf-8",
    )
    assert cli("harvest", "--from", "claude", cwd=kb_repo).exit_code == 0
    titles = []
    for path in (kb_repo / ".lorebook" / "nodes").rglob("*.md"):
        if path.name != "index.md":
            note, _ = parse_note(path.read_text(encoding="utf-8"), source=path.name)
            titles.append(note.title)
    assert "no-db-mocks" not in titles
    assert "no db mocks" not in titles
    assert any(t.startswith("Don't mock the database in integration tests") for t in titles), titles


PREFERENCE = """---
name: Terse answers
description: The user prefers terse answers without a summary at the end.
type: user
---
The user prefers terse answers; no closing summary.
"""


def _personal_notes(home: Path) -> dict[str, str]:
    found = {}
    for path in sorted((home / ".lorebook-home" / "personal" / "nodes").rglob("*.md")):
        if path.name != "index.md":
            note, _ = parse_note(path.read_text(encoding="utf-8"), source=path.name)
            found[note.id] = note.title
    return found


def test_memories_about_the_person_go_to_the_personal_store(
    kb_repo: Path, claude: Path, lorebook_home: Path, cli: CliRunner
) -> None:
    (claude / "user_style.md").write_text(PREFERENCE, encoding="utf-8")
    (claude / "MEMORY.md").write_text(
        INDEX + "- The user prefers answers in British English.\n", encoding="utf-8"
    )
    first = cli("harvest", "--from", "claude", "--json", cwd=kb_repo)
    assert first.exit_code == 0, first.stderr
    report = first.json()
    assert report["skipped"] == {}
    # The team's knowledge base: the project's rule and the staging fact, nothing about her.
    team = _notes(kb_repo)
    origins = sorted(o for os_ in team.values() for o in os_)
    assert len(origins) == 2
    assert "claude-memory:feedback_tox.md" in origins
    team_text = " ".join(
        p.read_text() for p in (kb_repo / ".lorebook" / "nodes").rglob("*.md")
    ).lower()
    assert "data scientist" not in team_text
    assert "terse" not in team_text
    assert "british english" not in team_text
    # Her own store: the three memories about her.
    personal = _personal_notes(lorebook_home)
    assert sorted(personal.values()) == [
        "Terse answers",
        "The user is a data scientist",
        "The user prefers answers in British English.",
    ]
    assert sorted(report["personal"]["notes"]) == sorted(
        k for k, v in report["outcomes"].items() if v == "personal"
    )
    assert report["personal"]["served"] is False
    text = cli("harvest", "--from", "claude", cwd=kb_repo)
    assert "nothing new: 5 unchanged" in text.stdout
    # A rerun, and one without this machine's ledger, add nothing anywhere.
    (kb_repo / ".lorebook" / ".state" / "harvest-claude.json").unlink()
    cli("harvest", "--from", "claude", "--json", cwd=kb_repo)
    assert _personal_notes(lorebook_home) == personal
    assert _notes(kb_repo) == team


def test_an_edited_memory_about_the_person_rewrites_its_personal_note(
    kb_repo: Path, claude: Path, lorebook_home: Path, cli: CliRunner
) -> None:
    cli("harvest", "--from", "claude", cwd=kb_repo)
    (note_id,) = _personal_notes(lorebook_home)
    (claude / "user_role.md").write_text(USER.replace("new to React", "new to Vue"))
    shown = cli("harvest", "--from", "claude", cwd=kb_repo)
    assert "kept in your personal store" in shown.stdout
    assert f"personal  user_role.md -> {note_id}" in shown.stdout
    (path,) = (lorebook_home / ".lorebook-home" / "personal" / "nodes").rglob(f"{note_id}.md")
    assert "new to Vue" in path.read_text()
    assert len(_personal_notes(lorebook_home)) == 1


def test_a_preference_kept_under_its_old_practice_id_is_not_written_again(
    kb_repo: Path, claude: Path, lorebook_home: Path, cli: CliRunner
) -> None:
    cli("harvest", "--from", "claude", cwd=kb_repo)
    (note_id,) = _personal_notes(lorebook_home)
    assert note_id.startswith("convention-")  # the id says the note's kind, as curation's do
    old_id = "practice-" + note_id.removeprefix("convention-")  # what harvests minted before
    (path,) = (lorebook_home / ".lorebook-home" / "personal" / "nodes").rglob(f"{note_id}.md")
    text = path.read_text(encoding="utf-8").replace(f"lb_id: {note_id}", f"lb_id: {old_id}")
    path.with_name(f"{old_id}.md").write_text(text, encoding="utf-8")
    path.unlink()
    (kb_repo / ".lorebook" / ".state" / "harvest-claude.json").unlink()  # another machine
    again = cli("harvest", "--from", "claude", "--json", cwd=kb_repo).json()
    assert again["personal"]["notes"] == {"user_role.md": old_id}
    assert list(_personal_notes(lorebook_home)) == [old_id]  # the same preference, not a copy


@pytest.mark.parametrize(
    ("line", "personal"),
    [
        ("The user prefers terse answers", True),
        ("User's name is Ada and she reviews on Fridays", True),
        ("I prefer tabs to spaces", True),
        ("The user wants the tests run with `tox -e py`", False),
        ("The user prefers pnpm in this repository", False),
        ("The staging database is reset every night at 02:00 UTC", False),
        ("Users must log in with SSO before the admin pages load", False),
    ],
)
def test_what_counts_as_about_the_person(line: str, personal: bool) -> None:
    from lorebook.hostkit.memory import about_the_person

    assert about_the_person(line) is personal

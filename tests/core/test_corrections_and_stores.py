"""Corrections served as warnings, errata with their note, and every store ranked together."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lorebook.kb.personal import open_personal_store, personal_paths
from lorebook.testing import StoreContract
from tests.conftest import fire


def _add(cli: Any, repo: Path, *args: str) -> None:
    done = cli("note", "add", *args, cwd=repo)
    assert done.exit_code == 0, done.stderr


@pytest.fixture
def refuted(kb_repo: Path, cli: Any) -> Path:
    """A refuted note anchored to a command, with a deny policy it must never exercise."""
    _add(
        cli, kb_repo, "--id", "practice-retry-flaky-tests-with-sleep",
        "--title", "Retry flaky integration tests with a sleep",
        "--description", "When the integration tests fail intermittently",
        "--body", "Add sleep 5 before retrying the integration tests.",
        "--kind", "gotcha", "--anchor-command", r"sleep \d+", "--enforce", "deny",
    )  # fmt: skip
    _add(
        cli, kb_repo, "--title", "Integration tests need the database container",
        "--description", "Before running the integration tests",
        "--body", "Start the database container first: docker compose up db.",
        "--kind", "tooling",
    )  # fmt: skip
    done = cli(
        "note", "refute", "practice-retry-flaky-tests-with-sleep",
        "--why", "the sleep hid a race in the connection pool", cwd=kb_repo,
    )  # fmt: skip
    assert done.exit_code == 0, done.stderr
    return kb_repo


def test_a_refuted_note_matching_a_prompt_is_a_warning_never_a_rule(
    refuted: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prompt = "the integration tests fail intermittently; should I retry them with a sleep?"
    text = fire(refuted, monkeypatch, "Prompt", prompt=prompt)["context"]
    assert (
        "this was tried and is wrong: Retry flaky integration tests with a sleep: When the "
        "integration tests fail intermittently (refuted: the sleep hid a race in the "
        "connection pool; see " in text
    )
    assert "### Retry flaky" not in text  # never rendered as a note to follow
    assert "Add sleep 5 before retrying" not in text
    # The rule block and the warning block are separate, the warning under its own header.
    rules, _, warnings = text.partition("approaches this project's team tried and found wrong")
    assert "Retry flaky" not in rules
    assert "Retry flaky" in warnings


def test_a_refuted_note_anchored_to_a_command_warns_and_never_denies(
    refuted: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = fire(
        refuted, monkeypatch, "Pre", tool_name="Bash", tool_input={"command": "sleep 5 && make it"}
    )
    assert out["decision"] is None
    assert "this was tried and is wrong: Retry flaky integration tests" in out["context"]


def test_errata_are_served_with_their_note(kb_repo: Path, cli: Any, monkeypatch: Any) -> None:
    _add(
        cli, kb_repo, "--title", "Install dependencies with uv sync --locked",
        "--description", "Installing the project's dependencies",
        "--body", "Run uv sync --locked after every pull.", "--kind", "tooling",
    )  # fmt: skip
    done = cli(
        "note", "erratum", "tooling-install-dependencies-with-uv-sync-locked",
        "The flag is --frozen in CI, not --locked.", cwd=kb_repo,
    )  # fmt: skip
    assert done.exit_code == 0, done.stderr
    assert cli("lint", cwd=kb_repo).exit_code == 0
    text = fire(kb_repo, monkeypatch, "Prompt", prompt="how do I install the dependencies?")
    body = text["context"]
    assert "Run uv sync --locked after every pull." in body
    assert "erratum (a correction to this note): The flag is --frozen in CI, not --locked." in body


def _config_stores(repo: Path, stores: str) -> None:
    config = repo / ".lorebook/config.yaml"
    text = config.read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if not line.startswith(("stores:", "- markdown"))]
    config.write_text("\n".join(lines) + f"\nstores: {stores}\n", encoding="utf-8")


def test_a_personal_note_is_ranked_with_a_team_note_in_one_block(
    kb_repo: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _config_stores(kb_repo, "[markdown, personal]")
    _add(
        cli, kb_repo, "--title", "Deploys go through the release pipeline",
        "--description", "Deploying the service to production",
        "--body", "Deploy the service with the release pipeline, never by hand.",
        "--kind", "convention",
    )  # fmt: skip
    _add(
        cli, kb_repo, "--store", "personal", "--title", "I deploy the service on Tuesdays",
        "--description", "My own habit when deploying the service to production",
        "--body", "Deploy the service to production on Tuesdays, after the standup.",
        "--kind", "convention",
    )  # fmt: skip
    personal = personal_paths().nodes / "convention/convention-i-deploy-the-service-on-tuesdays.md"
    assert personal.is_file()
    assert not list((kb_repo / ".lorebook/nodes").rglob("*tuesdays*"))  # never committed
    fire(kb_repo, monkeypatch, "Start", source="startup")
    # A prompt both notes answer with confidence (each served whole).
    prompt = "how do I deploy the service to production?"
    text = fire(kb_repo, monkeypatch, "Prompt", prompt=prompt)["context"]
    assert text.count("lorebook: notes the team keeps") == 1
    assert "### Deploys go through the release pipeline" in text
    assert "### I deploy the service on Tuesdays" in text
    assert f"personal store: {personal_paths().nodes}/convention/" in text  # where it came from
    assert ".lorebook/nodes/convention/convention-deploys-go-through" in text


def test_an_unknown_store_fails_naming_the_valid_ones(kb_repo: Path, cli: Any) -> None:
    _config_stores(kb_repo, "[nonexistent]")
    out = cli("recall", "anything", cwd=kb_repo)
    assert out.exit_code == 1
    # Read from the config file: the error says which file and key hold the name.
    where = "(.lorebook/config.yaml, key 'stores')"
    assert f"unknown store 'nonexistent' {where}; valid names: markdown, personal" in out.stderr
    added = cli(
        "note", "add", "--store", "nowhere", "--title", "t", "--description", "d",
        "--kind", "gotcha", cwd=kb_repo,
    )  # fmt: skip
    assert added.exit_code == 2  # named on the command line: a usage error
    assert "unknown store 'nowhere'; valid names: markdown, personal" in added.stderr


def test_an_unknown_extractor_in_the_config_names_the_file_and_key(kb_repo: Path, cli: Any) -> None:
    config = kb_repo / ".lorebook/config.yaml"
    config.write_text(config.read_text().replace("extractor: rules", "extractor: rulez"))
    out = cli("extract", cwd=kb_repo)
    assert out.exit_code == 1
    assert (
        "unknown extractor 'rulez' (.lorebook/config.yaml, key 'extraction.extractor')"
        in out.stderr
    )
    assert "provides an extractor named 'rulez'" in out.stderr


def test_personal_notes_take_no_file_dependencies(kb_repo: Path, cli: Any) -> None:
    (kb_repo / "a.py").write_text("x\n")
    out = cli(
        "note", "add", "--store", "personal", "--title", "t", "--description", "d",
        "--kind", "gotcha", "--depends-on-file", "a.py", cwd=kb_repo,
    )  # fmt: skip
    assert out.exit_code == 2  # options that do not go together
    assert "cannot be used with --store personal" in out.stderr


class TestPersonalStore(StoreContract):
    """The personal store passes the same contract as the markdown store."""

    @pytest.fixture
    def store(self, lorebook_home: Path) -> Any:
        return open_personal_store()


def test_a_refuted_bootstrap_note_is_warned_about_in_one_sentence() -> None:
    # seen on a real project: "Don't destructure props in Solid projects: Don't destructure
    # props in Solid projects because This is a Next.js app"
    from lorebook.inject.served import warning_line
    from lorebook.recall.sync import to_indexed
    from lorebook.testing import make_note

    note = make_note(
        "no-destructure",
        title="Don't destructure props in Solid projects",
        description="Don't destructure props in Solid projects.",
        lb_status="refuted",
        lb_refuted_because="This is a Next.js app, not a Solid one.",
    )
    line = warning_line(to_indexed(note, "prohibition/practice-no-destructure.md", 0, 0))
    assert line.startswith(
        "- this was tried and is wrong: Don't destructure props in Solid projects "
        "(refuted: This is a Next.js app, not a Solid one; see "
    )

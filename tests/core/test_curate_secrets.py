"""A proposal holding what looks like a secret is refused on its own: one warning naming the
session and the field, the rest of its session (and every other session) still curates,
and the secret reaches no file curation writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lorebook import hookimpl
from lorebook.capture.stage import load_log, log_path
from lorebook.curate.gate import proposal_secrets
from lorebook.kb.paths import KBPaths
from lorebook.models.curation import AddAction
from lorebook.models.session import Proposal
from lorebook.plugins import make_plugins
from lorebook.testing import make_note
from tests.conftest import CliRunner
from tests.core.test_curate import curate, proposal, stage

TOKEN = "7f3kQ9zL2mX8pW4r"
LEAKED_BODY = f"Deploy from the release branch.\nThe deploy token is {TOKEN}."


class LeakyCurator:
    """A curator that writes a token of its own into the note it adds."""

    @hookimpl
    def curate(self, proposals: list[Proposal], store: Any) -> list[AddAction]:
        note = make_note("leaky", body=f"api_key = {TOKEN}", lb_derived_from=["claude:s-d:0"])
        return [AddAction(proposal_id="s-d:0", note=note, folder="")]


def _written(repo: Path) -> str:
    """Every file curation writes or leaves outside the staged sessions."""
    root = repo / ".lorebook"
    files = [p for p in root.rglob("*") if p.is_file() and "_sessions" not in p.parts]
    return "".join(p.read_text(errors="replace") for p in files)


def test_only_the_proposal_with_a_secret_is_refused_and_the_session_curates(
    kb_repo: Path, cli: CliRunner
) -> None:
    stage(kb_repo, "s-a", [proposal("s-a", 0, "Always run migrations with alembic")])
    stage(kb_repo, "s-b", [proposal("s-b", 0, "Deploy from the release branch", body=LEAKED_BODY),
                           proposal("s-b", 1, "Use uv run pytest for the tests")])  # fmt: skip
    run = cli("curate", "--json", cwd=kb_repo)
    assert run.exit_code == 0, run.stderr
    warnings = run.stderr.splitlines()
    assert warnings == [
        "lorebook: warning: proposal s-b:0 of session s-b refused: its body (line 2) holds what "
        "looks like a secret; it will not become a note (`lorebook forget-session s-b` erases "
        "the session)"
    ]
    report = run.json()
    assert report["refused"] == ["s-b:0"]
    assert report["actions"]["add"] == 2
    nodes = kb_repo / ".lorebook/nodes/convention"
    assert sorted(p.name for p in nodes.glob("convention-*.md")) == [
        "convention-always-run-migrations-with-alembic.md",
        "convention-use-uv-run-pytest-for-the-tests.md",
    ]
    assert TOKEN not in _written(kb_repo)
    for session in ("s-a", "s-b"):
        log = load_log(log_path(KBPaths(kb_repo), "claude", session))
        assert log is not None
        assert log.status == "curated"
    again = cli("curate", "--json", cwd=kb_repo)
    assert (again.exit_code, again.stderr, again.json()["proposals"]) == (0, "", 0)
    assert cli("scan", cwd=kb_repo).exit_code == 0


def test_each_field_that_holds_a_secret_is_named() -> None:
    clean = proposal("s", 0, "Run the linter before pushing")
    assert proposal_secrets(clean) == []
    tagged = proposal("s", 1, "Rotate keys monthly", tags=("ops",), quote=f"api_key={TOKEN}")
    assert proposal_secrets(tagged) == ["quote"]
    titled = proposal("s", 2, f"The staging db password is {TOKEN}", body=LEAKED_BODY)
    assert proposal_secrets(titled) == ["title", "body (line 2)", "quote"]  # quotes the title


def test_a_session_whose_every_proposal_is_refused_is_still_consumed(kb_repo: Path) -> None:
    stage(kb_repo, "s-c", [proposal("s-c", 0, "Deploy from the release branch", body=LEAKED_BODY)])
    report = curate(kb_repo)
    assert report.refused == ["s-c:0"]
    assert report.sessions == {log_path(KBPaths(kb_repo), "claude", "s-c").name: "curated"}
    assert [r.action for r in report.results] == ["drop"]
    assert [p.name for p in (kb_repo / ".lorebook/nodes").rglob("*.md")] == ["index.md"]


def test_a_secret_a_curator_writes_into_a_note_holds_that_note_back(kb_repo: Path) -> None:
    """The scan of every note written stays: a curator cannot add a secret of its own. The
    note is held back alone, with one warning that never shows the secret."""
    stage(kb_repo, "s-d", [proposal("s-d", 0, "Use the staging cluster for load tests")])
    plugins = make_plugins(load_external=False)
    plugins.pm.register(LeakyCurator())
    report = curate(kb_repo, plugins=plugins)
    assert report.held_back == ["s-d:0"]
    (warning,) = report.problems
    assert "held back: its add cannot be written: the note holds what looks like a secret" in (
        warning
    )
    assert TOKEN not in warning
    assert TOKEN not in _written(kb_repo)
    assert not list((kb_repo / ".lorebook/nodes").rglob("leaky*.md"))


def test_recall_of_pending_proposals_withholds_the_one_holding_a_secret(
    kb_repo: Path, cli: CliRunner
) -> None:
    stage(kb_repo, "s-b", [proposal("s-b", 0, "Deploy from the release branch", body=LEAKED_BODY),
                           proposal("s-b", 1, "Deploy with the release script")])  # fmt: skip
    run = cli("recall", "deploy the release", "--json", "--pending", cwd=kb_repo)
    assert run.exit_code == 0, run.stderr
    assert TOKEN not in run.stdout
    pending = {p["id"]: p for p in run.json()["pending"]}
    assert pending["s-b:0"]["label"].startswith("withheld: it holds what looks like a secret")
    assert "body" not in pending["s-b:0"]
    assert pending["s-b:1"]["title"] == "Deploy with the release script"

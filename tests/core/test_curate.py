"""``lorebook curate``: the rules curator's judgment, the pipeline, validation before writes,
stamping, idempotence, and curation of recorded session material into readable notes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lorebook.capture.stage import load_log, log_path, write_log
from lorebook.config import load_config
from lorebook.curate.run import curate_pending
from lorebook.curate.text import DUPLICATE_THRESHOLD, SUBJECT_THRESHOLD, Claim, compare
from lorebook.kb import frontmatter
from lorebook.kb.paths import KBPaths
from lorebook.kb.store import MarkdownStore, load_snapshot
from lorebook.models.note import Note
from lorebook.models.session import LoggedTurn, Proposal, SessionLog
from lorebook.plugins import Plugins, make_plugins
from tests.conftest import CliRunner

# --- helpers shared by the curation test modules --------------------------------------------


def proposal(
    session: str,
    n: int,
    title: str,
    description: str = "When working in this repository",
    *,
    kind: str = "convention",
    body: str | None = None,
    tags: tuple[str, ...] = (),
    harness: str = "claude",
    **extra: Any,
) -> Proposal:
    """A proposal as an extractor would stage it, quoting turn ``n`` of ``session``."""
    types = {"feature": "map", "vocabulary": "map", "location": "map"}
    return Proposal.model_validate(
        {
            "id": f"{session}:{n}",
            "origin": f"{harness}:{session}:{n}",
            "type": types.get(kind, "practice"),
            "kind": kind,
            "title": title,
            "description": description,
            "body": body if body is not None else f"{title}.",
            "tags": list(tags),
            "quote": f"quote {n}: {title}",
            "extractor": "rules",
            **extra,
        }
    )


def stage(
    repo: Path,
    session: str,
    proposals: list[Proposal],
    *,
    status: str = "extracted",
    harness: str = "claude",
) -> Path:
    """Stage a session log holding ``proposals`` (and turns holding their quotes)."""
    turns = [LoggedTurn(index=i, role="user", text=p.quote) for i, p in enumerate(proposals)]
    log = SessionLog.model_validate(
        {
            "harness": harness,
            "session_id": session,
            "origin": f"{harness}:{session}",
            "transcript_hash": f"hash-of-{session}",
            "transcript_length": 100,
            "status": status,
            "extracted_turns": len(turns),
            "turns": [t.model_dump() for t in turns],
            "proposals": [p.model_dump() for p in proposals],
        }
    )
    path = log_path(KBPaths(repo), harness, session)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_log(path, log)
    return path


def add_note(
    repo: Path,
    title: str,
    description: str = "When working in this repository",
    *,
    kind: str = "convention",
    body: str = "",
    tags: tuple[str, ...] = (),
    folder: str | None = None,
    **extra: Any,
) -> str:
    """Add an existing note by hand; return its id."""
    from lorebook.slug import slugify

    note_type = "map" if kind in ("feature", "vocabulary", "location") else "practice"
    note = Note.model_validate(
        {
            "type": note_type,
            "title": title,
            "description": description,
            "tags": list(tags),
            "lb_id": f"{note_type}-{slugify(title)}",
            "lb_kind": kind,
            "body": body or f"{title}.",
            **extra,
        }
    )
    MarkdownStore(repo).add(note, folder=folder)
    return note.id


def notes_of(repo: Path) -> dict[str, Note]:
    """Every note, asserting each file is a valid note and no id is duplicated."""
    snap = load_snapshot(KBPaths(repo))
    assert snap.problems == [], snap.problems
    assert snap.duplicates == {}, snap.duplicates
    return {i: s.note for i, s in snap.notes.items()}


def tree(root: Path, *, skip: tuple[str, ...] = (".git/", ".lorebook/.cache/")) -> dict[str, bytes]:
    """Every file under ``root`` (some folders skipped) with its bytes."""
    return {
        rel: p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not (rel := p.relative_to(root).as_posix()).startswith(skip)
    }


def curate(repo: Path, plugins: Plugins | None = None, **kwargs: Any) -> Any:
    """Run curation in-process with an isolated plugin host."""
    paths = KBPaths(repo)
    return curate_pending(
        paths, load_config(paths), plugins=plugins or make_plugins(load_external=False), **kwargs
    )


# --- the rules: contradictions, near-misses, duplicates --------------------------------------

MUST_FLAG = [
    # always vs never
    (
        "Always rebase feature branches before merging",
        "Never rebase feature branches before merging",
    ),
    # use X vs do not use X
    ("Use `poetry` for dependency management", "Do not use `poetry` for dependency management"),
    # X instead of Y vs Y instead of X
    ("Use ruff instead of flake8 for linting", "Use flake8 instead of ruff for linting"),
    ("Prefer uv over pip", "Use pip instead of uv"),
    # must vs must not
    ("Migrations must run inside a transaction", "Migrations must not run inside a transaction"),
    # a shared code identifier pins the subject although the wording differs
    (
        "Call `session.commit()` at the end of each request",
        "Never call `session.commit()` inside request handlers",
    ),
    ("Always run the integration tests locally", "Skip the integration tests locally"),
    ("Enable strict mode in mypy", "Disable strict mode in mypy"),
    ("The linter checks generated files", "The linter ignores generated files"),
    ("Commits must be signed", "Commits shouldn't be signed"),
]

MUST_NOT_FLAG = [
    # one shared word, different subjects
    ("Always run the tests before pushing", "Never push directly to main"),
    # use X / do not use Y: a substitution that agrees
    ("Use uv to install dependencies", "Do not use pip to install dependencies"),
    (
        "Use uv to install the project dependencies in CI",
        "Do not use pip to install the project dependencies in CI",
    ),
    ("The API must not return HTML errors", "The API must return JSON errors"),
    # same preference, same order
    ("Use ruff instead of flake8", "Use ruff instead of flake8 for new code"),
    # a double negation agrees
    ("Never skip the pre-commit hooks", "Always run the pre-commit hooks"),
    # different identifiers
    ("Never commit `.env` files", "Always commit `.env.example`"),
    ("Do not run `pytest` with `-n auto` on CI", "Run `pytest` with `--lf` locally"),
    # a qualifier on each side: feature branches vs shared branches
    ("Always rebase feature branches", "Never rebase shared branches"),
    # mixed clauses that say the same as a preference pair
    ("Don't use flake8, use ruff", "Use ruff instead of flake8"),
    ("Never run migrations on production by hand", "Run migrations with `alembic upgrade head`"),
    (
        "Do not edit generated files in `build/`",
        "Edit the templates in `src/templates/` instead of generated files",
    ),
    # a negating word that modifies the object negates nothing: both forbid (seen in a lint
    # rule list, where "Don't use disabled tests" was read as allowing them)
    ("Don't use disabled tests", "Don't use focused tests"),
    ("Never commit the skipped fixtures", "Never commit the generated fixtures"),
]

DUPLICATES = [
    ("Use uv to manage Python dependencies", "Manage Python dependencies with uv"),
    ("Never skip the pre-commit hooks", "Always run the pre-commit hooks"),
    ("Don't use flake8, use ruff", "Use ruff instead of flake8"),
    ("Run the test suite with `uv run pytest`", "Run tests with `uv run pytest`"),
    ("Never write docstrings in spec files", "Never write doctrings in spec files"),  # a typo
]


@pytest.mark.parametrize(("old", "new"), MUST_FLAG)
def test_contradictions_are_flagged(old: str, new: str) -> None:
    verdict = compare(Claim.of(new), Claim.of(old))
    assert verdict.relation == "contradiction", verdict
    assert verdict.similarity >= SUBJECT_THRESHOLD
    assert compare(Claim.of(old), Claim.of(new)).relation == "contradiction"  # symmetric


@pytest.mark.parametrize(("old", "new"), MUST_NOT_FLAG)
def test_near_misses_are_not_flagged(old: str, new: str) -> None:
    assert compare(Claim.of(new), Claim.of(old)).relation != "contradiction"
    assert compare(Claim.of(old), Claim.of(new)).relation != "contradiction"


@pytest.mark.parametrize(("old", "new"), DUPLICATES)
def test_paraphrases_are_duplicates(old: str, new: str) -> None:
    verdict = compare(Claim.of(new), Claim.of(old))
    assert verdict.relation == "duplicate", verdict
    assert verdict.similarity >= DUPLICATE_THRESHOLD


def test_different_objects_are_not_merged() -> None:
    assert compare(
        Claim.of("Use uv for packaging"), Claim.of("Use pip for packaging")
    ).relation == ("unrelated")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "Never deploy the bravo service on Fridays",
            "Never deploy the charlie service on Fridays",
        ),
        ("Always run the tests before committing", "Always run the tests before pushing"),
    ],
)
def test_one_rule_about_two_things_is_two_notes(old: str, new: str) -> None:
    # word for word the same but one word in one place: the same rule for another object,
    # merged, the note's title named one service and its body listed ten
    verdict = compare(Claim.of(new, kind="prohibition"), Claim.of(old, kind="prohibition"))
    assert verdict.relation == "unrelated", verdict


def test_a_prohibition_without_a_negator_is_negative() -> None:
    claim = Claim.of("Force-pushing to main", kind="prohibition")
    assert claim.polarity == -1
    assert compare(Claim.of("Force-pushing to main is fine"), claim).relation == "contradiction"


# --- the pipeline --------------------------------------------------------------------------


def test_curate_adds_merges_and_stamps_the_session(kb_repo: Path, cli: CliRunner) -> None:
    existing = add_note(kb_repo, "Use uv to manage Python dependencies", tags=("python",),
                        body="Run `uv sync` after pulling.", folder="tooling")  # fmt: skip
    log = stage(kb_repo, "s1", [
        proposal("s1", 1, "Manage Python dependencies with uv", tags=("uv",),
                 body="Add packages with `uv add`, never by editing the lock file."),
        proposal("s1", 2, "Never push directly to main", kind="prohibition", tags=("git",)),
        proposal("s1", 3, "Do not push to main directly", kind="prohibition",
                 description="Publishing changes to main", tags=("git",)),
    ])  # fmt: skip
    result = cli("curate", "--json", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    report = result.json()
    assert report["ok"] is True
    assert [r["action"] for r in report["results"]] == ["modify", "add", "modify"]
    assert report["sessions"] == {log.name: "curated"}
    assert load_log(log).status == "curated"  # type: ignore[union-attr]

    notes = notes_of(kb_repo)
    merged = notes[existing]
    assert merged.derived_from == ["claude:s1:1"]
    assert merged.tags == ["python", "uv"]
    assert merged.body == (
        "Run `uv sync` after pulling.\n\nAdd packages with `uv add`, never by editing the lock file."
    )
    added = notes["prohibition-never-push-directly-to-main"]
    assert added.derived_from == ["claude:s1:2", "claude:s1:3"]  # the batch's own duplicate
    assert added.body == "Never push directly to main."  # the duplicate's body adds nothing new
    summaries = (kb_repo / ".lorebook/FOLDER_SUMMARIES.md").read_text()
    assert "- `prohibition`: Prohibitions:" in summaries
    assert "`tooling`" not in summaries  # the folder existed: curation wrote no summary for it
    assert cli("lint", cwd=kb_repo).exit_code == 0


def test_new_notes_go_to_a_fitting_folder_of_their_kind(kb_repo: Path) -> None:
    add_note(kb_repo, "Postgres runs in docker compose", kind="location", tags=("postgres",),
             folder="database")  # fmt: skip
    add_note(kb_repo, "Use conventional commits", tags=("git",), folder="workflow")
    stage(kb_repo, "s1", [
        proposal("s1", 1, "Vacuum the analytics tables weekly", tags=("postgres",)),
        proposal("s1", 2, "Sign every commit", tags=("git",)),
        proposal("s1", 3, "Staging deploys need a ticket number", kind="decision"),
    ])  # fmt: skip
    report = curate(kb_repo)
    paths = {r.proposal_id: r.path for r in report.results}
    # database/ holds locations: a convention sharing its tag is not filed there
    assert (
        paths["s1:1"]
        == ".lorebook/nodes/convention/convention-vacuum-the-analytics-tables-weekly.md"
    )
    assert paths["s1:2"] == ".lorebook/nodes/workflow/convention-sign-every-commit.md"
    assert (
        paths["s1:3"] == ".lorebook/nodes/decision/decision-staging-deploys-need-a-ticket-number.md"
    )
    summaries = (kb_repo / ".lorebook/FOLDER_SUMMARIES.md").read_text()
    assert "- `decision`: Decisions: choices made for this project, and their reasons." in summaries


def test_curate_stamps_exactly_the_sessions_it_consumed(kb_repo: Path) -> None:
    consumed = stage(kb_repo, "done", [proposal("done", 1, "Use tabs in Makefiles")])
    empty = stage(kb_repo, "empty", [])
    others = {
        "pending": stage(kb_repo, "pending", [proposal("pending", 1, "Pending claim")], status="pending"),
        "failed": stage(kb_repo, "failed", [proposal("failed", 1, "Failed claim")], status="failed"),
        "curated": stage(kb_repo, "old", [proposal("old", 1, "Old claim")], status="curated"),
    }  # fmt: skip
    before = {name: path.read_bytes() for name, path in others.items()}
    report = curate(kb_repo)
    assert report.sessions == {consumed.name: "curated", empty.name: "curated"}
    assert {name: path.read_bytes() for name, path in others.items()} == before
    assert set(notes_of(kb_repo)) == {"convention-use-tabs-in-makefiles"}


def test_a_rerun_writes_nothing(kb_repo: Path, cli: CliRunner) -> None:
    add_note(kb_repo, "Always rebase feature branches before merging")
    stage(kb_repo, "s1", [
        proposal("s1", 1, "Never rebase feature branches before merging"),
        proposal("s1", 2, "Run the linter before committing"),
    ])  # fmt: skip
    assert cli("curate", cwd=kb_repo).exit_code == 0
    before = tree(kb_repo, skip=(".git/",))
    again = cli("curate", "--json", cwd=kb_repo)
    assert again.exit_code == 0
    assert again.json()["run"] is None
    assert again.json()["results"] == []
    assert tree(kb_repo, skip=(".git/",)) == before
    assert "nothing to curate" in cli("curate", cwd=kb_repo).stdout


def test_reextracted_turns_already_curated_are_dropped(kb_repo: Path) -> None:
    first = [proposal("s1", 1, "Run the linter before committing")]
    stage(kb_repo, "s1", first)
    curate(kb_repo)
    stage(kb_repo, "s1", [*first, proposal("s1", 2, "Keep migrations reversible")])  # re-opened
    report = curate(kb_repo)
    assert [(r.action, r.status) for r in report.results] == [
        ("drop", "applied"),
        ("add", "applied"),
    ]
    assert (
        "already curated into convention-run-the-linter-before-committing"
        in report.results[0].detail
    )
    assert notes_of(kb_repo)["convention-run-the-linter-before-committing"].derived_from == [
        "claude:s1:1"
    ]


def test_unknown_curator_is_refused_with_the_valid_names(kb_repo: Path, cli: CliRunner) -> None:
    result = cli("curate", "--curator", "oracle", cwd=kb_repo)
    assert result.exit_code == 2  # a usage error
    assert "unknown curator 'oracle'; valid names: headless, http, rules" in result.stderr


# --- curation of recorded material into readable markdown ----------------------------------

RECORDED_SESSION: list[dict[str, Any]] = [
    # what an extractor proposes from a real teaching moment, quote included
    {
        "kind": "gotcha",
        "title": "Tests need the Postgres container running",
        "description": "Running the test suite locally",
        "body": "Start it with `docker compose up -d db` before `uv run pytest`; without it "
        "the fixtures hang for 60 s and then fail with `connection refused`.",
        "tags": ("testing", "postgres"),
        "quote": "no, the tests hang because the db container isn't up, start it with "
        "docker compose up -d db first",
    },
    {
        "kind": "prohibition",
        "title": "Never edit files under `migrations/versions/` by hand",
        "description": "Changing the database schema",
        "body": "Generate a new revision with `alembic revision --autogenerate` instead.",
        "tags": ("alembic",),
        "quote": "don't touch the versions folder by hand, always autogenerate a revision",
    },
]


def test_recorded_material_curates_into_readable_markdown(kb_repo: Path, cli: CliRunner) -> None:
    from tests.conftest import git

    git(kb_repo, "add", "-A")
    git(kb_repo, "commit", "-qm", "empty knowledge base")
    proposals = [
        proposal("8f1c2e", i, item["title"], item["description"], kind=item["kind"],
                 body=item["body"], tags=item["tags"], quote=item["quote"])
        for i, item in enumerate(RECORDED_SESSION, start=3)
    ]  # fmt: skip
    stage(kb_repo, "8f1c2e", proposals)
    assert cli("curate", cwd=kb_repo).exit_code == 0
    git(kb_repo, "add", "-N", ".lorebook")
    diff = git(kb_repo, "diff", "--", ".lorebook/nodes")
    for item, prop in zip(RECORDED_SESSION, proposals, strict=True):
        path = next(
            (kb_repo / ".lorebook/nodes").rglob(f"*{prop.title[:20].lower()[:5]}*.md"), None
        )
        assert path is not None
        data, body = frontmatter.split(path.read_text(encoding="utf-8"))
        assert data["title"] == item["title"]
        assert data["description"] == item["description"]
        assert data["lb_derived_from"] == [prop.origin]
        assert data["lb_kind"] == item["kind"]
        assert body.strip() == item["body"]
        assert f"+title: {item['title']}" in diff or f"+title: '{item['title']}'" in diff
        assert f"+{item['body']}" in diff
    assert "+lb_derived_from: ['claude:8f1c2e:3']" in diff
    assert "\r" not in diff
    assert "\t" not in diff


def test_an_unreadable_staged_log_is_named_and_the_others_are_curated(
    kb_repo: Path, cli: CliRunner
) -> None:
    good = stage(
        kb_repo, "s1", [proposal("s1", 1, "Never push directly to main", kind="prohibition")]
    )
    broken = good.with_name("claude-broken.json")
    broken.write_text('{"harness": "claude", "turns": "not a list"}', encoding="utf-8")
    result = cli("curate", "--json", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    assert f".lorebook/_sessions/{broken.name}: not a valid session log" in result.stderr
    assert result.json()["sessions"] == {good.name: "curated"}
    assert broken.read_text(encoding="utf-8") == '{"harness": "claude", "turns": "not a list"}'


def test_a_note_titled_in_letters_ascii_cannot_spell_gets_an_id_from_its_title() -> None:
    # seen on a project whose sessions are in Chinese: every note was "prohibition-note",
    # "prohibition-note-2" ... in the order curation wrote them, so two branches each wrote
    # their own "prohibition-note-2"
    from lorebook.curate.notes import new_note_id

    first = new_note_id("prohibition", "不要添加其他组件", [])
    second = new_note_id("prohibition", "不要做其他样式的修改", [first])
    assert first.startswith("prohibition-note-")
    assert second.startswith("prohibition-note-")
    assert first != second
    assert not second.endswith("-2")
    assert (
        new_note_id("prohibition", "不要添加其他组件", ["prohibition-x"]) == first
    )  # same title, same id
    mixed = new_note_id("prohibition", "修改当前的 bookmark-settings.tsx 不要重复添加", [])
    assert mixed.startswith("prohibition-bookmark-settings-tsx-")
    assert new_note_id("convention", "Évitez les mocks", []) == "convention-evitez-les-mocks"

"""`lorebook rebalance`: topical folders, hysteresis, conflicts pinned, resumable, bounded.

The knowledge base of the issue: 300 notes in two kinds and four topics, filed by kind (as
curation files them), so each kind's folder holds 150 notes and a 25 KB index.md.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lorebook.kb.notes import render_note
from lorebook.kb.paths import KBPaths
from lorebook.kb.store import load_snapshot
from lorebook.models.note import Note
from tests.conftest import CliRunner, git, run_lorebook

NODES = Path(".lorebook/nodes")
TOPICS = {
    "testing": ["pytest", "fixture", "coverage", "mock", "assertion"],
    "git": ["branch", "commit", "rebase", "merge", "tag"],
    "database": ["migration", "schema", "query", "index", "transaction"],
    "frontend": ["component", "css", "render", "bundle", "browser"],
}
WORDS = ["module", "service", "config", "cache", "error", "release", "docs", "api", "client"]
KINDS = ("convention", "gotcha")


def _note(note_id: str, kind: str, title: str, description: str, tags: list[str]) -> Note:
    return Note.model_validate(
        {
            "type": "practice",
            "title": title,
            "description": description,
            "lb_id": note_id,
            "lb_kind": kind,
            "tags": tags,
            "body": f"{title}. {description}.",
        }
    )


def _put(repo: Path, folder: str, note: Note) -> None:
    where = repo / NODES / folder if folder else repo / NODES
    where.mkdir(parents=True, exist_ok=True)
    (where / f"{note.id}.md").write_text(render_note(note, None), encoding="utf-8")


def _write_topics(repo: Path) -> dict[str, tuple[str, str]]:
    """300 notes filed by kind; returns id -> (kind, topic)."""
    made = {}
    for kind in KINDS:
        for t, (topic, words) in enumerate(TOPICS.items()):
            for i in range(38 if t < 2 else 37):
                word, other = words[i % 5], WORDS[(i * 7 + t) % len(WORDS)]
                note_id = f"practice-{kind}-{topic}-{word}-{other}-{i:02d}"
                title = f"{topic.title()}: the {word} of the {other} ({i})"
                description = f"How the {word} works with {topic} in the {other}"
                _put(repo, kind, _note(note_id, kind, title, description, [topic]))
                made[note_id] = (kind, topic)
    return made


@pytest.fixture
def topical(kb_repo: Path, cli: CliRunner) -> tuple[Path, dict[str, tuple[str, str]]]:
    """The 300 notes, indexed and committed (so a person reviewed them)."""
    made = _write_topics(kb_repo)
    assert cli("index", "rebuild", cwd=kb_repo).exit_code == 0
    git(kb_repo, "add", "-A")
    git(kb_repo, "commit", "-qm", "three hundred notes")
    return kb_repo, made


def _section(heading: str, words: list[str], sentences: int = 22) -> str:
    said = []
    for i in range(sentences):
        a, b, c = (words[(i * k + k - 1) % len(words)] for k in (1, 3, 5))
        said.append(f"When the {a} changes, look at the {b} and the {c} first (case {i}).")
    return f"## {heading}\n\n" + " ".join(said)


TESTING_WORDS = ["pytest", "fixture", "coverage", "mock", "assertion", "conftest"]
RELEASE_WORDS = ["release", "changelog", "version", "wheel", "publish", "tarball"]


def _multi_concept(repo: Path, note_id: str) -> None:
    """Rewrite the note ``note_id`` (of the 300) as a long note of two concepts, 4 sections."""
    path = next((repo / NODES).rglob(f"{note_id}.md"))
    note = load_snapshot(KBPaths(repo)).notes[note_id].note
    body = "\n\n".join([
        "What the team agreed at the March review.",
        _section("Fixtures and mocks", TESTING_WORDS),
        _section("Coverage of the suite", [*TESTING_WORDS[2:], *TESTING_WORDS[:2]]),
        _section("Cutting a release", RELEASE_WORDS),
        _section("The changelog and versions", [*RELEASE_WORDS[1:], RELEASE_WORDS[0]]),
    ])  # fmt: skip
    assert len(body) > 6000  # rebalance.split_note_chars' default
    path.write_text(render_note(note.model_copy(update={"body": body}), None), encoding="utf-8")


def _files(repo: Path) -> dict[str, bytes]:
    """Every committed-side file of the knowledge base (not the per-machine folders)."""
    root = repo / ".lorebook"
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.relative_to(root).parts[0] not in (".cache", ".state", "_logs")
    }


def _indexes(repo: Path) -> dict[str, int]:
    return {
        p.relative_to(repo).as_posix(): p.stat().st_size for p in (repo / NODES).rglob("index.md")
    }


def _served(cli: CliRunner, repo: Path, prompt: str) -> list[tuple[str, str, str, str]]:
    """What the prompt hook serves: (id, whole or pointer, unreviewed label, path)."""
    doc = cli("recall", prompt, "--json", cwd=repo).json()
    return [(n["id"], n["served"], str(n["unreviewed"]), n["where"]) for n in doc["notes"]]


SPLIT = ("practice-convention-testing-pytest-module-00", "practice-gotcha-git-branch-service-00")
"""Two of the 300 notes, each made a long note of two concepts (testing and releases)."""
LINKS_TO_SPLIT = "practice-convention-testing-mock-cache-03"


def test_three_hundred_notes_get_topical_folders_and_a_second_run_changes_nothing(
    topical: tuple[Path, dict[str, tuple[str, str]]], cli: CliRunner
) -> None:
    repo, made = topical
    paths = KBPaths(repo)
    for note_id in SPLIT:
        _multi_concept(repo, note_id)
    linking = load_snapshot(paths).notes[LINKS_TO_SPLIT]
    _put(repo, linking.folder, linking.note.model_copy(update={"relates_to": [SPLIT[0]]}))
    assert cli("index", "rebuild", cwd=repo).exit_code == 0
    git(repo, "commit", "-qam", "two long notes of two concepts each")
    before = load_snapshot(paths)
    assert max(_indexes(repo).values()) > 20_000  # each kind's index.md: 150 notes
    prompt = "how does the pytest fixture work with testing"
    served = _served(cli, repo, prompt)
    assert served

    done = cli("rebalance", cwd=repo)
    assert done.exit_code == 0, done.stderr
    assert "298 notes move, 8 folders created; ids do not change" in done.stdout
    assert "2 notes split into 4; each retired id leads to its parts" in done.stdout
    assert (
        f"  why: {SPLIT[0]}: body 7,"  # a split says why, with --verbose or without
    ) in done.stdout
    assert (
        "4 sections in 2 concepts sharing under 10% of their terms: 'Fixtures and mocks' + "
        "'Coverage of the suite' | 'Cutting a release' + 'The changelog and versions' -> "
        f"{SPLIT[0]}-fixtures-and-mocks, {SPLIT[0]}-cutting-a-release"
    ) in done.stdout

    after = load_snapshot(paths)
    parts = {old: [f"{old}-fixtures-and-mocks", f"{old}-cutting-a-release"] for old in SPLIT}
    new_ids = {p for ids in parts.values() for p in ids}
    assert set(after.notes) == (set(made) - set(SPLIT)) | new_ids  # other ids unchanged
    for note_id, (kind, topic) in made.items():
        if note_id in SPLIT:
            for part in parts[note_id]:  # a part keeps the tags, so the topic's folder
                assert after.notes[part].folder == f"{kind}/{topic}"
                assert after.notes[part].note.kind == kind
            continue
        assert after.notes[note_id].folder == f"{kind}/{topic}"  # each topic its own folder
        old, new = before.notes[note_id].path.as_posix(), after.notes[note_id].path.as_posix()
        if note_id != LINKS_TO_SPLIT:  # its link section names the parts now
            assert after.hashes[new] == before.hashes[old]  # the note's content is unchanged
    ledger = json.loads((repo / NODES / ".redirects.json").read_text(encoding="utf-8"))
    assert ledger == {old: sorted(ids) for old, ids in parts.items()}  # a redirect per split
    first = after.notes[parts[SPLIT[0]][0]].note
    assert first.title.endswith(": Fixtures and mocks")
    assert first.body.startswith("What the team agreed at the March review.\n\n## Fixtures")
    assert "## Cutting a release" not in first.body
    linked = (repo / NODES / after.notes[LINKS_TO_SPLIT].path).read_text(encoding="utf-8")
    assert f"`{SPLIT[0]}` (retired: now [{parts[SPLIT[0]][1]}](" in linked
    summaries = (repo / ".lorebook/FOLDER_SUMMARIES.md").read_text(encoding="utf-8")
    assert "- `convention/testing`: Notes tagged `testing`, such as " in summaries
    assert all(size <= 12_000 for size in _indexes(repo).values()), _indexes(repo)
    kind_index = (repo / NODES / "gotcha/index.md").read_text(encoding="utf-8")
    assert "- [database/](database/index.md): 37 notes. Notes tagged `database`" in kind_index
    lint = cli("lint", "--json", cwd=repo)
    assert lint.exit_code == 0, lint.stdout
    assert lint.json()["errors"] == 0
    retired = [f for f in lint.json()["findings"] if f["code"] == "retired-edge"]
    assert len(retired) == 1
    assert "it is now " + ", ".join(sorted(parts[SPLIT[0]])) in (retired[0]["message"])
    shown = cli("note", "show", SPLIT[0], "--json", cwd=repo).json()  # resolves to the parts
    assert shown["redirected_from"] == SPLIT[0]
    assert sorted(n["id"] for n in shown["notes"]) == sorted(parts[SPLIT[0]])
    text = cli("note", "show", SPLIT[0], cwd=repo)
    assert text.exit_code == 0
    assert "## Cutting a release" in text.stdout
    assert f"{SPLIT[0]} was retired; it is now " in text.stderr
    from lorebook.mcp_server import show_note

    mcp = show_note(paths, SPLIT[1])
    assert [n["id"] for n in mcp["notes"]] == sorted(parts[SPLIT[1]])

    files = _files(repo)
    again = cli("rebalance", cwd=repo)
    assert again.exit_code == 0
    assert "nothing to rebalance" in again.stdout
    assert _files(repo) == files

    served_after = _served(cli, repo, prompt)  # the hook's index follows the moves
    assert {n[2] for n in served_after if n[0] not in new_ids} == {"None"}  # stays reviewed
    for note_id, _, _, where in served_after:
        kind, topic = made[note_id] if note_id in made else made[note_id.split("-fix")[0]]
        assert f"/{kind}/{topic}/{note_id}.md" in where


def test_dry_run_prints_the_plan_and_writes_nothing(
    topical: tuple[Path, dict[str, tuple[str, str]]], cli: CliRunner
) -> None:
    repo, _ = topical
    files = _files(repo)
    dry = cli("rebalance", "--dry-run", cwd=repo)
    assert dry.exit_code == 0
    assert (
        "would move practice-convention-database-index-cache-13: nodes/convention/practice-"
        "convention-database-index-cache-13.md -> nodes/convention/database/practice-"
        "convention-database-index-cache-13.md"
    ) in dry.stdout
    assert "300 notes would move, 8 folders would be created" in dry.stdout
    doc = cli("rebalance", "--dry-run", "--json", cwd=repo).json()
    assert doc["dry_run"] is True
    assert doc["changed"] is False
    assert len(doc["moves"]) == 300
    assert sorted(doc["folders_created"]) == sorted(f"{k}/{t}" for k in KINDS for t in TOPICS)
    assert _files(repo) == files
    assert not (repo / ".lorebook/.state/rebalance-journal.json").exists()


def test_the_same_notes_give_the_same_plan_under_any_hash_seed(
    topical: tuple[Path, dict[str, tuple[str, str]]],
) -> None:
    repo, _ = topical
    plans = {
        run_lorebook(
            "rebalance",
            "--dry-run",
            "--json",
            cwd=repo,
            env={"PYTHONHASHSEED": seed, "LC_ALL": "C"},
        ).stdout
        for seed in ("0", "4242")
    }
    assert len(plans) == 1


def test_an_interrupted_run_is_finished_by_the_next(
    topical: tuple[Path, dict[str, tuple[str, str]]],
    cli: CliRunner,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from lorebook.config import load_config
    from lorebook.rebalance import apply as rebalance_apply, run as rebalance_run

    repo, made = topical
    paths = KBPaths(repo)
    real = rebalance_apply.move_file
    calls = []

    def dies_at_the_fiftieth(source: Path, target: Path) -> None:
        calls.append(source)
        if len(calls) == 50:
            raise KeyboardInterrupt
        real(source, target)

    monkeypatch.setattr(rebalance_apply, "move_file", dies_at_the_fiftieth)
    with pytest.raises(KeyboardInterrupt):
        rebalance_run.run_rebalance(paths, load_config(paths))
    monkeypatch.setattr(rebalance_apply, "move_file", real)
    assert (repo / ".lorebook/.state/rebalance-journal.json").is_file()
    assert cli("lint", cwd=repo).exit_code == 1  # mid-run: the indexes are stale

    dry = cli("rebalance", "--dry-run", cwd=repo)
    assert "would first finish the interrupted rebalance: 300 moves" in dry.stdout

    done = cli("rebalance", "--json", cwd=repo)
    assert done.exit_code == 0, done.stderr
    assert len(done.json()["resumed"]) == 300
    assert done.json()["moves"] == []  # nothing left to plan once it was finished
    after = load_snapshot(KBPaths(repo))
    assert {i: s.folder for i, s in after.notes.items()} == {
        i: f"{k}/{t}" for i, (k, t) in made.items()
    }
    assert not (repo / ".lorebook/.state/rebalance-journal.json").exists()
    assert cli("lint", cwd=repo).exit_code == 0
    assert sorted(p.name for p in (repo / NODES / "convention").iterdir()) == [
        "database", "frontend", "git", "index.md", "testing",
    ]  # fmt: skip


def _open_conflict(repo: Path, target_id: str) -> None:
    from lorebook.curate.conflicts import render_conflict
    from lorebook.models.curation import Conflict
    from lorebook.models.session import Proposal

    proposal = Proposal(
        id="s1:1", origin="claude:s1:3", type="practice", kind="convention",
        title="Never use fixtures", description="Fixtures hide state", body="No fixtures.",
        quote="never use fixtures", extractor="rules",
    )  # fmt: skip
    conflict = Conflict(id="abc-1", target_id=target_id, rationale="says the opposite",
                        proposal=proposal)  # fmt: skip
    (repo / ".lorebook/conflicts").mkdir(exist_ok=True)
    (repo / ".lorebook/conflicts/abc-1.md").write_text(render_conflict(conflict, "# c\n"))


def test_the_target_of_an_open_conflict_never_moves(
    topical: tuple[Path, dict[str, tuple[str, str]]], cli: CliRunner
) -> None:
    repo, _ = topical
    pinned = "practice-convention-testing-fixture-api-01"
    _open_conflict(repo, pinned)
    done = cli("rebalance", "--json", cwd=repo).json()
    assert pinned not in {m["id"] for m in done["moves"]}
    assert done["pinned"] == [pinned]
    assert (repo / NODES / "convention" / f"{pinned}.md").is_file()
    assert len(done["moves"]) == 299
    assert "nothing to rebalance" in cli("rebalance", cwd=repo).stdout


def test_a_homeless_note_gets_a_branch_and_a_tiny_branch_is_merged(
    kb_repo: Path, cli: CliRunner
) -> None:
    _put(kb_repo, "", _note("practice-alone-at-the-top", "gotcha", "Alone", "At the top", []))
    _put(kb_repo, "backend", _note("practice-use-sqlite", "decision", "Use SQLite", "Db", []))
    _put(kb_repo, "backend/cache", _note("practice-cache-tags", "gotcha", "Cache", "Tags", []))
    assert cli("index", "rebuild", cwd=kb_repo).exit_code == 0
    done = cli("rebalance", "--verbose", cwd=kb_repo)
    assert done.exit_code == 0, done.stderr
    assert "nodes/practice-alone-at-the-top.md -> nodes/gotcha/practice-alone-at-the-top.md" in (
        done.stdout
    )
    assert "why: backend/cache/: 1 note(s), fewer than 3: merged into backend/" in done.stdout
    snap = load_snapshot(KBPaths(kb_repo))
    assert snap.notes["practice-cache-tags"].folder == "backend"
    assert snap.notes["practice-alone-at-the-top"].folder == "gotcha"
    assert not (kb_repo / NODES / "backend/cache").exists()  # the emptied folder is gone
    summaries = (kb_repo / ".lorebook/FOLDER_SUMMARIES.md").read_text(encoding="utf-8")
    assert "- `gotcha`: Gotchas: traps in this project" in summaries
    assert cli("lint", cwd=kb_repo).exit_code == 0
    assert "nothing to rebalance" in cli("rebalance", cwd=kb_repo).stdout


def _config(repo: Path, text: str) -> None:
    path = repo / ".lorebook/config.yaml"
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def test_notes_sharing_no_topic_are_cut_by_title_and_never_merged_back(
    kb_repo: Path, cli: CliRunner
) -> None:
    _config(kb_repo, "rebalance:\n  max_notes: 8\n  min_notes: 2\n")
    names = ["apple", "banana", "cherry", "damson", "elder", "fig", "grape", "hazel",
             "iris", "juniper", "kiwi", "lemon", "mango", "nectar", "olive", "peach",
             "quince", "rowan", "sloe", "tansy"]  # fmt: skip
    for name in names:
        _put(kb_repo, "convention", _note(f"practice-{name}", "convention", name.title(),
                                          f"{name} rule", []))  # fmt: skip
    done = cli("rebalance", "--json", cwd=kb_repo)
    assert done.exit_code == 0, done.stderr
    folders = sorted(done.json()["folders_created"])
    assert folders == ["convention/titles-a-f", "convention/titles-g-m", "convention/titles-n-t"]
    assert cli("lint", cwd=kb_repo).exit_code == 0
    assert "nothing to rebalance" in cli("rebalance", cwd=kb_repo).stdout


def test_what_bootstrap_says_it_added_is_where_the_note_is_after_the_rebalance(
    kb_repo: Path, cli: CliRunner
) -> None:
    _config(kb_repo, "rebalance:\n  max_notes: 8\n  min_notes: 2\n")
    rules = ["commit generated files under dist/", "call the payments API from tests",
             "use print for logging", "import private modules of other packages",
             "store timestamps in local time", "catch bare exceptions in services",
             "run migrations by hand", "push to main directly", "log request bodies",
             "skip the changelog for user-facing changes"]  # fmt: skip
    (kb_repo / "AGENTS.md").write_text(
        "# Rules\n\n" + "".join(f"## Topic {i}\n\nNever {r}.\n\n" for i, r in enumerate(rules))
    )
    git(kb_repo, "add", "-A")
    git(kb_repo, "commit", "-qm", "rules")
    done = cli("bootstrap", cwd=kb_repo)
    assert done.exit_code == 0, done.stderr
    assert "rebalanced: 10 notes moved" in done.stdout
    said = [line.rsplit(" -> ", 1)[1] for line in done.stdout.splitlines() if " -> " in line]
    assert len(said) == 10
    assert all((kb_repo / rel).is_file() for rel in said), said


def test_a_bad_threshold_is_one_line_naming_the_key_and_values(
    kb_repo: Path, cli: CliRunner
) -> None:
    _config(kb_repo, "rebalance:\n  max_notes: 10\n  min_notes: 6\n")
    done = cli("rebalance", cwd=kb_repo)
    assert done.exit_code == 1
    assert "key 'rebalance'" in done.stderr
    assert "min_notes (6) must be at most half of max_notes (10)" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_index_stays_within_its_budget_at_any_size(kb_repo: Path, cli: CliRunner) -> None:
    from lorebook.kb.index import INDEX_BUDGET

    for n in range(700):
        _put(kb_repo, "convention", _note(f"practice-rule-{n:04d}", "convention",
                                          f"Rule {n}", "A rule about " + "things " * 12, []))  # fmt: skip
    assert cli("index", "rebuild", cwd=kb_repo).exit_code == 0
    index = (kb_repo / NODES / "convention/index.md").read_text(encoding="utf-8")
    assert len(index) <= INDEX_BUDGET
    assert "not listed here (an index.md stays within 60,000 characters)" in index
    assert cli("rebalance", cwd=kb_repo).exit_code == 0
    assert all(size <= 12_000 for size in _indexes(kb_repo).values())
    assert cli("lint", cwd=kb_repo).exit_code == 0


def test_curation_runs_the_trigger_at_its_end(
    topical: tuple[Path, dict[str, tuple[str, str]]], cli: CliRunner
) -> None:
    repo, _ = topical
    config = repo / ".lorebook/config.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("after_curate: true", "after_curate: false"), encoding="utf-8")
    files = _files(repo)
    assert cli("curate", "--json", cwd=repo).json()["rebalanced"] == []
    assert _files(repo) == files
    config.write_text(text, encoding="utf-8")
    _multi_concept(repo, SPLIT[0])
    done = cli("curate", "--json", cwd=repo)
    assert done.exit_code == 0, done.stderr
    assert len(done.json()["rebalanced"]) == 299
    (split,) = done.json()["rebalance_splits"]  # the splits it made are listed too
    assert split["id"] == SPLIT[0]
    assert [p["id"] for p in split["into"]] == [
        f"{SPLIT[0]}-fixtures-and-mocks",
        f"{SPLIT[0]}-cutting-a-release",
    ]
    assert split["into"][0]["path"] == f"convention/testing/{SPLIT[0]}-fixtures-and-mocks.md"
    assert split["reason"].startswith(f"{SPLIT[0]}: body 7,")
    assert (repo / NODES / "gotcha/frontend/index.md").is_file()


def test_curation_says_which_notes_the_trigger_split_even_with_nothing_to_curate(
    kb_repo: Path, cli: CliRunner
) -> None:
    _two_concept_kb(kb_repo)
    done = cli("curate", cwd=kb_repo)
    assert done.exit_code == 0, done.stderr
    assert done.stdout.splitlines()[:2] == [
        "nothing to curate: no session log awaits curation (run `lorebook extract`)",
        f"rebalance split {SPLIT[0]} into {SPLIT[0]}-fixtures-and-mocks, "
        f"{SPLIT[0]}-cutting-a-release (its id leads to them in nodes/.redirects.json)",
    ]


def test_notes_from_one_document_share_a_folder_and_titles_are_cut_by_their_letters() -> None:
    from pathlib import PurePosixPath

    from lorebook.kb.store import StoredNote
    from lorebook.rebalance.plan import Limits, plan_rebalance

    notes = {}
    for n in range(30):
        source = ("docs/deploy.md#steps", "CLAUDE.md#rules", "claude:s1:4")[n % 3]
        note = _note(f"practice-rule-{n:02d}", "convention", f"`cmd{n}` rule {n}", "x", [])
        note = note.model_copy(update={"derived_from": [source]})
        notes[note.id] = StoredNote(note, PurePosixPath(f"convention/{note.id}.md"), None)
    plan = plan_rebalance(notes, {}, {}, Limits(max_notes=12, min_notes=2, max_index_chars=60_000))
    folders = {m.note_id: m.target.rpartition("/")[0] for m in plan.moves}
    assert {folders[f"practice-rule-{n:02d}"] for n in range(0, 30, 3)} == {"convention/deploy"}
    assert plan.created["convention/deploy"].startswith("Notes from the deploy documents, such")
    assert "convention/claude" not in plan.created  # a document about everything is no topic
    cut = sorted(f for f in plan.created if "/titles-" in f)
    # `cmd..`: the parts meet inside `cmd2..`, so their names say as much of it as they can
    assert cut == ["convention/titles-c-cmd2", "convention/titles-cmd2-c"]


def test_a_tag_beats_a_broader_word_and_a_word_every_note_has_is_no_topic() -> None:
    """600 notes, 12 tagged topics of 50: each topic gets its folder, split again inside by
    what its notes share, never by the words every description repeats."""
    from pathlib import PurePosixPath

    from lorebook.kb.store import StoredNote
    from lorebook.rebalance.plan import Limits, plan_rebalance

    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]
    notes, tags = {}, {}
    for n in range(600):
        topic, word = f"area{n % 12}", words[n % 6]
        note = _note(f"practice-r{n:03d}", "convention", f"The {word} of {topic} {n}",
                     f"When {word} meets {topic} in general terms", [])  # fmt: skip
        notes[note.id] = StoredNote(note, PurePosixPath(f"convention/{note.id}.md"), None)
        tags[note.id] = (topic,)
    plan = plan_rebalance(notes, tags, {}, Limits())
    top = {f.split("/")[1] for f in plan.created}
    assert top == {f"area{t}" for t in range(12)}  # not 'alpha' (100 notes) nor 'general'
    assert not any(part in {"general", "terms", "meets"} for f in plan.created
                   for part in f.split("/"))  # fmt: skip
    assert all(m.target.count("/") <= 3 for m in plan.moves)


def _two_concept_kb(repo: Path) -> None:
    """Two short notes and one long note of two concepts, committed."""
    for n in range(2):
        _put(repo, "convention", _note(f"practice-short-{n}", "convention", f"Short {n}",
                                       "A short rule", ["testing"]))  # fmt: skip
    _put(repo, "convention", _note(SPLIT[0], "convention", "Team agreements", "What we agreed",
                                   ["testing"]))  # fmt: skip
    _multi_concept(repo, SPLIT[0])
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "notes")


def test_dry_run_prints_the_split_and_a_conflict_target_is_never_split(
    kb_repo: Path, cli: CliRunner
) -> None:
    _two_concept_kb(kb_repo)
    files = _files(kb_repo)
    dry = cli("rebalance", "--dry-run", cwd=kb_repo)
    assert dry.exit_code == 0, dry.stderr
    assert (
        f"would split {SPLIT[0]} (nodes/convention/{SPLIT[0]}.md) into "
        f"{SPLIT[0]}-fixtures-and-mocks (nodes/convention/{SPLIT[0]}-fixtures-and-mocks.md), "
        f"{SPLIT[0]}-cutting-a-release (nodes/convention/{SPLIT[0]}-cutting-a-release.md)"
    ) in dry.stdout
    assert "1 notes would be split into 2; each retired id would lead to its parts" in dry.stdout
    doc = cli("rebalance", "--dry-run", "--json", cwd=kb_repo).json()
    assert [s["id"] for s in doc["splits"]] == [SPLIT[0]]
    assert [p["path"] for p in doc["splits"][0]["into"]] == [
        f"convention/{SPLIT[0]}-fixtures-and-mocks.md",
        f"convention/{SPLIT[0]}-cutting-a-release.md",
    ]
    assert _files(kb_repo) == files  # nothing written

    _open_conflict(kb_repo, SPLIT[0])
    held = cli("rebalance", "--json", cwd=kb_repo).json()
    assert held["splits"] == []
    assert held["pinned"] == [SPLIT[0]]
    assert (kb_repo / NODES / "convention" / f"{SPLIT[0]}.md").is_file()
    assert not (kb_repo / NODES / ".redirects.json").exists()


def test_an_interrupted_split_is_finished_by_the_next_run(
    kb_repo: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lorebook.config import load_config
    from lorebook.rebalance import apply as rebalance_apply, run as rebalance_run

    _two_concept_kb(kb_repo)
    paths = KBPaths(kb_repo)
    real = rebalance_apply.write_part

    def dies_at_the_second(target: Path, text: str) -> None:
        if target.name.endswith("cutting-a-release.md"):
            raise KeyboardInterrupt
        real(target, text)

    monkeypatch.setattr(rebalance_apply, "write_part", dies_at_the_second)
    with pytest.raises(KeyboardInterrupt):
        rebalance_run.run_rebalance(paths, load_config(paths))
    monkeypatch.setattr(rebalance_apply, "write_part", real)
    assert (kb_repo / NODES / "convention" / f"{SPLIT[0]}.md").is_file()  # not removed yet
    assert not (kb_repo / NODES / ".redirects.json").exists()
    dry = cli("rebalance", "--dry-run", cwd=kb_repo)
    assert f"would first finish the split of {SPLIT[0]}" in dry.stdout

    done = cli("rebalance", "--json", cwd=kb_repo)
    assert done.exit_code == 0, done.stderr
    assert done.json()["resumed_splits"] == [SPLIT[0]]
    assert done.json()["splits"] == []  # nothing left to plan once it was finished
    after = load_snapshot(paths)
    assert SPLIT[0] not in after.notes
    assert {f"{SPLIT[0]}-fixtures-and-mocks", f"{SPLIT[0]}-cutting-a-release"} <= set(after.notes)
    assert not (kb_repo / ".lorebook/.state/rebalance-journal.json").exists()
    assert cli("lint", cwd=kb_repo).exit_code == 0
    assert "nothing to rebalance" in cli("rebalance", cwd=kb_repo).stdout


def test_a_long_note_of_one_concept_or_a_heading_in_code_stays_whole() -> None:
    from lorebook.rebalance.notesplit import sections, split_note

    one = "\n\n".join(
        _section(h, TESTING_WORDS) for h in ("Fixtures", "Mocks", "Coverage", "Conftest")
    )
    note = _note("practice-testing", "convention", "Testing", "How we test", [])
    assert len(one) > 6000
    assert split_note(note.model_copy(update={"body": one}), 6000, set()) == ((), "")
    fenced = "Intro\n\n## Real\n\ntext\n\n```md\n## Not a heading\n```\n\n## Second\n\nmore"
    preamble, found = sections(fenced)
    assert preamble == "Intro"
    assert [s.heading for s in found] == ["Real", "Second"]
    assert "## Not a heading" in found[0].text
    two = note.model_copy(update={"body": (
        "## Fixtures\n\n" + "A pytest fixture in conftest replaces the mock. " * 12
        + "\n\n## Releases\n\n" + "Publish the wheel after the changelog entry. " * 12
    )})  # fmt: skip
    assert split_note(two, 6000, set()) == ((), "")  # under split_note_chars: whole
    assert len(split_note(two, 1000, set())[0]) == 2
    assert split_note(two, 0, set()) == ((), "")  # 0: never


def test_parts_cut_by_title_that_meet_inside_a_letter_do_not_share_a_name() -> None:
    # seen on a real project: "titles-a-k" and "titles-k-w", both holding K
    from lorebook.rebalance.plan import _bounds

    parts = [["Alembic migrations", "Kafka topics"], ["Kibana dashboards", "Webpack config"]]
    assert _bounds(parts) == [("a", "ka"), ("ki", "w")]
    assert _bounds([["Alembic migrations", "Bump versions"], ["Kafka", "Webpack"]]) == [
        ("a", "b"),
        ("k", "w"),
    ]


def test_titles_are_cut_by_their_topic_not_by_never_or_do_not() -> None:
    # seen on a real project: prohibitions filed under "titles-a-dono" and "titles-dono-t"
    from lorebook.rebalance.plan import _bounds

    parts = [["Never hand-edit a `*.lock.yml`", "Do not mock the database"],
             ["Don't push to main", "Always use UTC"]]  # fmt: skip
    assert _bounds(parts) == [("h", "m"), ("p", "u")]

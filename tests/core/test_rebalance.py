"""`lorebook rebalance`: topical folders, hysteresis, conflicts pinned, resumable, bounded.

The knowledge base of the issue: 300 notes in two kinds and four topics, filed by kind (as
curation files them), so each kind's folder holds 150 notes and a 25 KB index.md.
"""

from __future__ import annotations

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


def test_three_hundred_notes_get_topical_folders_and_a_second_run_changes_nothing(
    topical: tuple[Path, dict[str, tuple[str, str]]], cli: CliRunner
) -> None:
    repo, made = topical
    paths = KBPaths(repo)
    before = load_snapshot(paths)
    assert max(_indexes(repo).values()) > 20_000  # each kind's index.md: 150 notes
    prompt = "how does the pytest fixture work with testing"
    served = _served(cli, repo, prompt)
    assert served

    done = cli("rebalance", cwd=repo)
    assert done.exit_code == 0, done.stderr
    assert "300 notes move, 8 folders created; ids do not change" in done.stdout

    after = load_snapshot(paths)
    assert set(after.notes) == set(before.notes) == set(made)  # ids unchanged
    for note_id, (kind, topic) in made.items():
        assert after.notes[note_id].folder == f"{kind}/{topic}"  # each topic its own folder
        old, new = before.notes[note_id].path.as_posix(), after.notes[note_id].path.as_posix()
        assert after.hashes[new] == before.hashes[old]  # the note's content is unchanged
    assert not (repo / NODES / ".redirects.json").exists()  # no note was split
    summaries = (repo / ".lorebook/FOLDER_SUMMARIES.md").read_text(encoding="utf-8")
    assert "- `convention/testing`: Notes tagged `testing`, such as " in summaries
    assert all(size <= 12_000 for size in _indexes(repo).values()), _indexes(repo)
    kind_index = (repo / NODES / "gotcha/index.md").read_text(encoding="utf-8")
    assert "- [database/](database/index.md): 37 notes. Notes tagged `database`" in kind_index
    lint = cli("lint", "--json", cwd=repo)
    assert lint.exit_code == 0, lint.stdout
    assert lint.json()["errors"] == 0

    files = _files(repo)
    again = cli("rebalance", cwd=repo)
    assert again.exit_code == 0
    assert "nothing to rebalance" in again.stdout
    assert _files(repo) == files

    served_after = _served(cli, repo, prompt)  # the hook's index follows the moves
    assert [n[:3] for n in served_after] == [n[:3] for n in served]  # a moved note stays reviewed
    for note_id, _, _, where in served_after:
        assert f"/{made[note_id][0]}/{made[note_id][1]}/{note_id}.md" in where


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
    from lorebook.kb import rebalance_run

    repo, made = topical
    paths = KBPaths(repo)
    real = rebalance_run.move_file
    calls = []

    def dies_at_the_fiftieth(source: Path, target: Path) -> None:
        calls.append(source)
        if len(calls) == 50:
            raise KeyboardInterrupt
        real(source, target)

    monkeypatch.setattr(rebalance_run, "move_file", dies_at_the_fiftieth)
    with pytest.raises(KeyboardInterrupt):
        rebalance_run.run_rebalance(paths, load_config(paths))
    monkeypatch.setattr(rebalance_run, "move_file", real)
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
    done = cli("curate", "--json", cwd=repo)
    assert done.exit_code == 0, done.stderr
    assert len(done.json()["rebalanced"]) == 300
    assert (repo / NODES / "gotcha/frontend/index.md").is_file()


def test_notes_from_one_document_share_a_folder_and_titles_are_cut_by_their_letters() -> None:
    from pathlib import PurePosixPath

    from lorebook.kb.rebalance import Limits, plan_rebalance
    from lorebook.kb.store import StoredNote

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
    assert cut == ["convention/titles-c-c", "convention/titles-c-c-2"]  # `cmd..`: by its c


def test_a_tag_beats_a_broader_word_and_a_word_every_note_has_is_no_topic() -> None:
    """600 notes, 12 tagged topics of 50: each topic gets its folder, split again inside by
    what its notes share, never by the words every description repeats."""
    from pathlib import PurePosixPath

    from lorebook.kb.rebalance import Limits, plan_rebalance
    from lorebook.kb.store import StoredNote

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

"""lorebook bootstrap on real rule files: provenance, file anchors from globs, reruns.

The temporary repository holds a copy of the community Cursor rules in
``shared/eval/corpora/awesome-cursorrules/`` and of the minsky project's
``.cursor/rules/`` (``shared/eval/transcripts/cursor-specstory/cursor-rules-at-commit/``).
"""

from __future__ import annotations

import shutil
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from lorebook.bootstrap.sections import rule_globs
from lorebook.evaluation.lenient import split_lenient
from lorebook.kb.notes import parse_note
from tests.conftest import SHARED, CliRunner

AWESOME = SHARED / "eval" / "corpora" / "awesome-cursorrules"
MINSKY = SHARED / "eval" / "transcripts" / "cursor-specstory" / "cursor-rules-at-commit"
needs_corpora = pytest.mark.skipif(
    not (AWESOME.is_dir() and MINSKY.is_dir()),
    reason="shared/eval is not present beside the repository",
)
AWESOME_SAMPLE = 40
"""Awesome rules bootstrapped by path (the whole corpus is copied; every one is read by
``test_every_awesome_rule_is_one_proposal`` without curation, which is the slow part)."""


def notes(repo: Path) -> dict[str, Any]:
    """Every note under .lorebook/nodes by id."""
    found = {}
    for path in sorted((repo / ".lorebook" / "nodes").rglob("*.md")):
        if path.name != "index.md":
            note, _ = parse_note(path.read_text(encoding="utf-8"), source=path.name)
            found[note.id] = note
    return found


@pytest.fixture
def rules_repo(kb_repo: Path) -> Path:
    """The knowledge base's repository with both rule sets copied in."""
    if not (AWESOME.is_dir() and MINSKY.is_dir()):
        pytest.skip("shared/eval is not present beside the repository")
    shutil.copytree(MINSKY, kb_repo / ".cursor" / "rules")
    shutil.copytree(AWESOME, kb_repo / "awesome-cursorrules")
    return kb_repo


@needs_corpora
def test_minsky_rules_become_notes_citing_their_file_with_globs_as_anchors(
    rules_repo: Path, cli: CliRunner
) -> None:
    result = cli("bootstrap", "--json", cwd=rules_repo)
    assert result.exit_code == 0, result.stderr
    report = result.json()
    rules = sorted(p.name for p in MINSKY.glob("*.mdc"))
    # every minsky rule file was read (the README in .cursor/rules is a document too)
    assert report["documents"]["found"] == len(rules) + 1
    assert report["documents"]["left_pending"] == []
    by_file: dict[str, list[str]] = {}
    for note_id, note in notes(rules_repo).items():
        for origin in note.derived_from:
            by_file.setdefault(origin.split("#")[0], []).append(note_id)
    conflicts = {c["proposal"].split("#")[0] for c in _conflict_origins(rules_repo)}
    stating = [n for n in rules if _states_rules(rules_repo, f".cursor/rules/{n}")]
    assert len(stating) * 2 > len(rules), stating  # most rule files state rules
    for name in stating:  # and every rule read reaches a note, or a person as a conflict
        origin = f".cursor/rules/{name}"
        assert origin in by_file or origin in conflicts, f"{origin} produced nothing"
    # a rule with globs anchors its notes to them; a match-all glob anchors nothing
    meta, _ = split_lenient((MINSKY / "bun-test-patterns.mdc").read_text(encoding="utf-8"))
    expected = list(rule_globs(meta["globs"]))
    assert expected == ["**/*.test.ts"]
    for note_id in by_file[".cursor/rules/bun-test-patterns.mdc"]:
        note = notes(rules_repo)[note_id]
        assert set(expected) <= set(note.anchors.files)
        assert "bootstrap" in note.tags
        assert "cursor-rule" in note.tags


def _states_rules(repo: Path, rel: str) -> bool:
    """True when bootstrap's reading finds a rule in the rule file ``rel``."""
    from lorebook.bootstrap.documents import for_contributors, read_documents
    from lorebook.bootstrap.drafting import rules_of
    from lorebook.bootstrap.sections import sections_of

    (doc,) = read_documents(repo, [PurePosixPath(rel)], [])
    strict = not for_contributors(doc)
    return any(rules_of(doc, s, strict=strict) for s in sections_of(doc))


def _conflict_origins(repo: Path) -> list[dict[str, str]]:
    from lorebook.curate.conflicts import list_conflicts
    from lorebook.kb.paths import KBPaths

    listing = list_conflicts(KBPaths(repo))
    return [{"proposal": c.conflict.proposal.origin} for c in listing.conflicts]


@needs_corpora
def test_awesome_rules_by_path_then_a_second_run_proposes_none_and_says_why(
    rules_repo: Path, cli: CliRunner
) -> None:
    sample = sorted((rules_repo / "awesome-cursorrules" / "rules").glob("*.mdc"))
    picked = [str(p.relative_to(rules_repo)) for p in sample[:AWESOME_SAMPLE]]
    first = cli("bootstrap", *picked, "--json", cwd=rules_repo)
    assert first.exit_code == 0, first.stderr
    report = first.json()
    assert report["documents"]["found"] == AWESOME_SAMPLE
    assert report["proposals"] >= AWESOME_SAMPLE  # each rule file states a rule or more
    cited = {o.split("#")[0] for n in notes(rules_repo).values() for o in n.derived_from}
    assert cited <= set(picked)
    anchored = [n for n in notes(rules_repo).values() if n.anchors.files]
    assert anchored, "no awesome rule carried a specific glob"
    assert all("**/*" not in n.anchors.files for n in anchored)
    status = cli("status", "--json", cwd=rules_repo).json()["left_for_review"]["bootstrap"]
    assert status["unreviewed"] == len(notes(rules_repo))  # nothing committed yet
    assert status["pending"] == 0
    before = {p: p.read_bytes() for p in (rules_repo / ".lorebook" / "nodes").rglob("*.md")}

    second = cli("bootstrap", *picked, cwd=rules_repo)
    assert second.exit_code == 0, second.stderr
    assert second.stdout.startswith(
        f"nothing to bootstrap: all {AWESOME_SAMPLE} documents are unchanged"
    )
    after = {p: p.read_bytes() for p in (rules_repo / ".lorebook" / "nodes").rglob("*.md")}
    assert after == before
    again = cli("bootstrap", *picked, "--json", cwd=rules_repo).json()
    assert again["proposals"] == 0
    assert again["documents"]["unchanged"] == AWESOME_SAMPLE


@needs_corpora
def test_every_awesome_rule_is_one_proposal(rules_repo: Path) -> None:
    from lorebook.bootstrap.documents import find_documents, read_documents
    from lorebook.bootstrap.sections import sections_of

    rels = find_documents(rules_repo, ["awesome-cursorrules"])
    assert len(rels) == len(list(AWESOME.rglob("*.mdc")))
    problems: list[str] = []
    counts = [len(sections_of(doc)) for doc in read_documents(rules_repo, rels, problems)]
    assert problems == []
    assert set(counts) <= {0, 1}
    assert sum(counts) >= len(counts) - 3

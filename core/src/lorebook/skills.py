"""The in-session curation skill, installed where each wired harness finds project skills.

Each harness spec declares the folders its host lists project skills from
(``HarnessSpec.skill_dirs``). ``lorebook init`` writes ``lorebook-curate/SKILL.md`` in every
folder a wired harness reads; ``lorebook uninstall`` removes a copy with the last wired
harness that reads it. The file carries a marker line; a file of the
same name without it is the user's own and is never overwritten or removed (init says so
and goes on). Writes are idempotent: an unchanged skill is not rewritten.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from lorebook.errors import UnsafePathError
from lorebook.kb.fsutil import write_if_changed
from lorebook.kb.paths import resolve_inside

SKILL_NAME = "lorebook-curate"

MARKER = (
    "<!-- lorebook:managed-skill: written by `lorebook init`, removed by `lorebook uninstall`. "
    "Edits are overwritten; to keep your own version, give it another name. -->"
)

SKILL_TEXT = f"""\
---
name: {SKILL_NAME}
description: Curate lorebook with the user - captured sessions and marks into reviewed \
notes, contradictions decided. Use when asked to curate or review lorebook, or when it \
reports pending sessions or open conflicts.
---

{MARKER}

# Curate the lorebook knowledge base

lorebook keeps what people taught coding assistants as markdown notes in `.lorebook/nodes/`,
committed with the code. Sessions are captured automatically; this skill turns them into
notes with the user in the loop. Every step below is a `lorebook` command that validates
and writes; never write or edit files under `.lorebook/` yourself, and never decide a
conflict for the user.

## During any session: mark what you were taught

When the user corrects you, states a rule, or names something you will need again, run
`lorebook mark --kind <kind> "<the lesson, in one or two sentences>"` (kinds: convention,
prohibition, gotcha, decision, tooling, feature, vocabulary, location; add
`--anchor-file "<glob>"` when it is about certain files). It stages a proposal of
this session; curation (below) and the user's review decide whether it becomes a note.

## 1. See what is waiting

Run `lorebook status`. It shows pending sessions, failed ones, and open conflicts. If
nothing is pending and no conflict is open, say so and stop.

## 2. Extract proposals

Run `lorebook extract --json`. Each pending session yields proposals: candidate notes,
each with the quote from the session it rests on. Tell the user how many sessions were
read and how many proposals were kept. If a session failed, show its error; the user can
retry with `lorebook extract --retry-failed`.

## 3. Curate

Run `lorebook curate --json`. Every pending proposal becomes one action:

- `add`: a new note, in the folder that fits it best;
- `modify`: a near-duplicate merged into the note it repeats (its origin added);
- `contradict`: the proposal says the opposite of a note; the note is left as it is and a
  conflict file is written under `.lorebook/conflicts/` (step 5);
- `drop`: noise, or something a note already says.

If it exits 1, show the failed steps; rerunning finishes what is left.

## 4. Review the changes with the user

Run `lorebook review`: it shows what changed in `.lorebook/` since the last commit (if this
lorebook has no `review` command, use `git status --short .lorebook/` and
`git diff .lorebook/`). Walk the user through each new or changed note: title, description,
body and where it came from (`lb_derived_from`). Undo a change the user does not want with
`lorebook review --reject <path>` (or `git restore <path>`, or delete a new file, then
`lorebook index rebuild`).

## 5. Decide every open conflict

Run `lorebook conflict list --json` (do this even when nothing was pending). For each
conflict, open its file and show the current note and the proposed one side by side, with
the rationale. Ask the user to choose, and explain the choices:

- **Accept**: the note is rewritten in place to say what the proposal says (both origins
  kept, only the new claim's dependencies; an id made of the old title is renamed after
  the new one, and the old id leads there).
- **Reject**: the note stays; the proposal is dismissed.
- **Keep as record**: the note stays, and the conflict file is kept (commit it) as the
  record of a claim someone made that the project does not follow.
- **Skip**: decide later; it stays listed.

Apply each answer with
`lorebook conflict resolve <id> --decision accept|reject|keep|skip --why "<the user's reason>"`.

## 6. Finish

Run `lorebook lint`. Summarise what changed and suggest committing `.lorebook/` (notes,
FOLDER_SUMMARIES.md, conflict files and the generated indexes) with the code it is about.
"""


@dataclass(slots=True)
class SkillReport:
    """What syncing the skill changed, and anything the user should know."""

    changed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def skill_paths(skill_dirs: Iterable[str]) -> list[str]:
    """The repository-relative SKILL.md paths for these skill folders, sorted, no repeats."""
    homes = {folder.strip("/") for folder in skill_dirs}
    return sorted(f"{home}/{SKILL_NAME}/SKILL.md" for home in homes)


def is_ours(path: Path) -> bool:
    """True when the file at ``path`` is lorebook's managed skill."""
    try:
        return MARKER in path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False


def _install(repo: Path, rel: str, report: SkillReport) -> None:
    path = resolve_inside(repo, PurePosixPath(rel), what="skill")
    if path.exists() and not is_ours(path):
        report.notes.append(
            f"left {rel} alone: it is not lorebook's (no lorebook marker); move it away and run "
            "`lorebook init` again to install the curation skill there"
        )
        return
    if write_if_changed(path, SKILL_TEXT):
        report.changed.append(rel)


def _prune(repo: Path, rel: str) -> None:
    """Remove the folders above a removed skill that are now empty (never the repository)."""
    folder = (repo / rel).parent
    while folder != repo and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def _remove(repo: Path, rel: str, report: SkillReport) -> None:
    path = resolve_inside(repo, PurePosixPath(rel), what="skill")
    if not path.is_file() or not is_ours(path):
        return
    path.unlink()
    _prune(repo, rel)
    report.changed.append(rel)


def sync_skills(repo: Path, wanted_dirs: Iterable[str], known_dirs: Iterable[str]) -> SkillReport:
    """Install the skill in ``wanted_dirs`` and remove it from the other ``known_dirs``.

    Called by ``init`` (``wanted_dirs``: the skill folders of every wired harness) and
    ``uninstall`` (those of the remaining ones); ``known_dirs`` are the skill folders of
    every harness involved, so a copy no wired harness reads any more is removed.
    Idempotent; a same-named file that is not lorebook's is left untouched, with a note
    saying so.
    """
    wanted = set(skill_paths(wanted_dirs))
    report = SkillReport()
    for rel in sorted(wanted | set(skill_paths(known_dirs))):
        try:
            if rel in wanted:
                _install(repo, rel, report)
            else:
                _remove(repo, rel, report)
        except UnsafePathError as exc:
            report.notes.append(f"left {rel} alone: {exc.message}")
    return report


__all__ = [
    "MARKER",
    "SKILL_NAME",
    "SKILL_TEXT",
    "SkillReport",
    "is_ours",
    "skill_paths",
    "sync_skills",
]

"""``lorebook migrate``: bring a knowledge base written at an older format version up to date.

Each step goes from one ``lb_schema`` to the next and is deterministic: the same files give
the same bytes on every machine. A run plans every step's writes and validates every file
before the first write; a problem refuses the whole run, naming each file. The plan and
the reviews to keep go to ``.state/migrate-journal.json`` (per machine) before the first
write; the files are then replaced one by one, atomically, the notes first and
``config.yaml`` last, so the knowledge base's version changes only once every note is done
and a run killed on the way leaves a knowledge base every reader still refuses. Running
it again finishes it: a note already at the new version is left as it is, and the
journal's reviews are kept.

Step 1 -> 2 (``canonical-frontmatter``): every note's frontmatter is written in the form
lorebook's writers write (``note_to_frontmatter``: lorebook's keys in their order, other
tools' keys after, one line each where the flat form allows, always-written keys made
explicit) with ``lb_schema: 2``; the text after the frontmatter is kept byte for byte. A
frontmatter the flat reader cannot read and that holds a ``#`` (it may hold a YAML comment,
which a rewrite would lose) has only its ``lb_schema`` line changed. ``config.yaml`` has
its ``lb_schema`` line changed and nothing else. Ids and paths never change.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lorebook.constants import SCHEMA_VERSION
from lorebook.errors import LorebookError
from lorebook.kb.paths import KBPaths
from lorebook.kb.version import config_version

JOURNAL_NAME = "migrate-journal.json"
ENV_STALL_AFTER = "LOREBOOK_TEST_MIGRATE_STALL_AFTER"
"""Tests only: after this many files are written, touch ``<journal>.stalled`` and sleep,
so a test can kill a real run inside its write phase."""
_SCHEMA_LINE = re.compile(r"^lb_schema:[ \t]*['\"]?1['\"]?[ \t]*(\r?)$", re.MULTILINE)


@dataclass(frozen=True)
class Step:
    """One migration step: from ``source`` to ``source + 1``."""

    source: int
    name: str
    summary: str


STEPS: tuple[Step, ...] = (
    Step(
        1,
        "canonical-frontmatter",
        "every note's frontmatter in lorebook's canonical form with lb_schema 2 (bodies, "
        "ids and paths kept); config.yaml's lb_schema set to 2",
    ),
)


@dataclass
class Plan:
    """What a run writes: each file's new text, in write order, and the reviews to keep."""

    version: int
    steps: list[Step]
    writes: list[tuple[str, str]] = field(default_factory=list)
    """(path relative to ``.lorebook/``, new text); ``config.yaml`` last."""
    reviewed: dict[str, str] = field(default_factory=dict)
    """Note id -> content hash after the write, for each note a person had reviewed."""
    kept_as_written: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def on_disk_version(paths: KBPaths) -> int:
    """The knowledge base's version: ``config.yaml``'s, else the lowest a note carries."""
    version = config_version(str(paths.root))
    if version is not None:
        return version
    lowest: int = SCHEMA_VERSION
    for _rel, text in _note_texts(paths):
        found = re.search(r"^lb_schema:[ \t]*([0-9]+)[ \t]*\r?$", text, re.MULTILINE)
        if found:
            lowest = min(lowest, int(found.group(1)))
    return lowest


def _note_texts(paths: KBPaths) -> list[tuple[str, str]]:
    from lorebook.kb.notes import read_note_text
    from lorebook.kb.store import walk_note_files

    found = []
    for rel, path, _problem in walk_note_files(paths.nodes):
        if path is not None:
            label = f"nodes/{rel.as_posix()}"
            found.append((label, read_note_text(path, source=f".lorebook/{label}")))
    return found


def upgrade_note_text(text: str, *, source: str) -> str:
    """A note's text at the current version (as it is when it is there already).

    For notes that arrive from elsewhere, such as a pack exported at an older version.

    Raises:
        NoteFormatError: the note is invalid at the current version, naming ``source``.
    """
    new, _kept = _rewrite_note(source, text)
    return text if new is None else new


def _rewrite_note(source: str, text: str) -> tuple[str | None, bool]:
    """The note's text at version 2 (None: already there) and whether it was kept as written.

    Raises:
        NoteFormatError: the note is invalid at version 2, naming it.
    """
    from lorebook.errors import NoteFormatError
    from lorebook.kb import frontmatter
    from lorebook.kb.flatyaml import read_flat
    from lorebook.kb.notes import frontmatter_to_note, note_to_frontmatter, split_links

    try:
        data, body = frontmatter.split(text)
    except frontmatter.FrontmatterError as exc:
        raise NoteFormatError(f"{source}: {exc}") from None
    if data.get("lb_schema") == SCHEMA_VERSION:
        frontmatter_to_note(data, split_links(body)[0], source=source)  # valid as it is
        return None, False
    if data.get("lb_schema") != 1:
        raise NoteFormatError(
            f"{source}: field 'lb_schema' is {data.get('lb_schema')!r}; migrate reads 1 or 2"
        )
    note = frontmatter_to_note(
        {**data, "lb_schema": SCHEMA_VERSION}, split_links(body)[0], source=source
    )
    end = text.find("\n---\n", 3)
    raw = text[4 : end + 1] if text.startswith("---\n") and end != -1 else ""
    flat = bool(raw) and read_flat(raw, frontmatter._RESOLVERS) is not None
    if not raw or (not flat and "#" in raw):
        return _SCHEMA_LINE.sub(f"lb_schema: {SCHEMA_VERSION}\\1", text, count=1), True
    head = frontmatter.dump(note_to_frontmatter(note))
    return f"---\n{head}---\n{text[end + 5 :]}", False


def _reviewed_before(paths: KBPaths, notes: list[tuple[str, str, str]]) -> set[str]:
    """Of (id, label, old text), the ids a person reviewed as they are now."""
    from lorebook import reviewstate
    from lorebook.kb.store import content_hash

    state = reviewstate.reviews(str(paths.root))
    kept = {i for i, _label, old in notes if state.get(i) == content_hash(old)}
    rows = []
    for note_id, label, old in notes:
        try:
            st = os.stat(paths.root / label, follow_symlinks=False)
        except OSError:
            continue
        rel = label.removeprefix("nodes/")
        rows.append((note_id, rel, bytes.fromhex(content_hash(old)), st.st_mtime_ns, st.st_size))
    return kept | set(reviewstate.committed(str(paths.root), rows))


def plan_migration(paths: KBPaths) -> Plan:
    """Every write the pending steps make, validated; problems listed, nothing written."""
    from lorebook.errors import NoteFormatError
    from lorebook.kb.store import content_hash

    version = on_disk_version(paths)
    plan = Plan(version, [])
    if version > SCHEMA_VERSION:
        return plan
    rewritten: list[tuple[str, str, str]] = []
    for label, text in _note_texts(paths):
        try:
            new, as_written = _rewrite_note(f".lorebook/{label}", text)
        except NoteFormatError as exc:
            plan.problems.append(str(exc))
            continue
        if new is None:
            continue
        note_id = label.rpartition("/")[2][:-3]
        plan.writes.append((label, new))
        rewritten.append((note_id, label, text))
        plan.reviewed[note_id] = content_hash(new)
        if as_written:
            plan.kept_as_written.append(label)
    reviewed = _reviewed_before(paths, rewritten)
    plan.reviewed = {i: h for i, h in plan.reviewed.items() if i in reviewed}
    _plan_config(paths, plan)
    if plan.writes or version < SCHEMA_VERSION:  # a note at 1 in a knowledge base at 2 too
        plan.steps = list(STEPS)
    return plan


def _plan_config(paths: KBPaths, plan: Plan) -> None:
    from lorebook.config import parse_config

    try:
        text = paths.config.read_text(encoding="utf-8")
    except FileNotFoundError:
        return
    except (OSError, UnicodeDecodeError) as exc:
        plan.problems.append(f".lorebook/config.yaml: cannot be read: {exc}")
        return
    if config_version(str(paths.root)) != 1:
        return
    new = _SCHEMA_LINE.sub(f"lb_schema: {SCHEMA_VERSION}\\1", text, count=1)
    try:
        parse_config(new, source=".lorebook/config.yaml")
    except LorebookError as exc:
        plan.problems.append(str(exc))
        return
    plan.writes.append(("config.yaml", new))


def status(paths: KBPaths) -> dict[str, Any]:
    """What ``migrate status`` reports: the version on disk and the pending steps; no write."""
    plan = plan_migration(paths)
    journal = paths.state / JOURNAL_NAME
    return {
        "ok": not plan.problems and plan.version <= SCHEMA_VERSION,
        "version": plan.version,
        "current": SCHEMA_VERSION,
        "pending": [
            {"from": s.source, "to": s.source + 1, "name": s.name, "summary": s.summary}
            for s in plan.steps
        ],
        "files": [rel for rel, _ in plan.writes],
        "kept_as_written": plan.kept_as_written,
        "interrupted": journal.exists(),
        "problems": plan.problems,
    }


def _stall(written: int) -> None:
    """Tests only: stop inside the write phase so the run can be killed there."""
    wanted = os.environ.get(ENV_STALL_AFTER)
    if wanted and wanted.isdigit() and written == int(wanted):
        Path(f"{os.environ.get('LOREBOOK_TEST_MIGRATE_MARKER', '')}").touch()
        time.sleep(600)


def run_migration(paths: KBPaths, *, on_write: Callable[[str], None] | None = None) -> Plan:
    """Apply every pending step; resumes a run that was cut short. Returns what it did.

    Raises:
        LorebookError: a file is invalid (every one named, nothing written), or the
            knowledge base is newer than this lorebook.
    """
    from lorebook import reviewstate
    from lorebook.config import load_config
    from lorebook.kb.fsutil import atomic_write_text, kb_lock
    from lorebook.kb.index import rebuild_indexes
    from lorebook.kb.version import newer_message
    from lorebook.recall.sync import reconcile

    journal = paths.state / JOURNAL_NAME
    with kb_lock(paths.lock):
        plan = plan_migration(paths)
        if plan.version > SCHEMA_VERSION:
            raise LorebookError(newer_message(plan.version))
        if plan.problems:
            raise LorebookError(
                "nothing was migrated; fix these files first:\n  " + "\n  ".join(plan.problems)
            )
        earlier = _read_journal(journal)
        plan.reviewed = {**earlier, **plan.reviewed}
        if plan.writes:
            paths.state.mkdir(parents=True, exist_ok=True)
            record = {
                "lb_schema": 1,
                "from": plan.version,
                "to": SCHEMA_VERSION,
                "files": [
                    {"path": rel, "sha256": hashlib.sha256(text.encode()).hexdigest()}
                    for rel, text in plan.writes
                ],
                "reviewed": plan.reviewed,
            }
            atomic_write_text(journal, json.dumps(record, indent=2, sort_keys=True) + "\n")
        for written, (rel, text) in enumerate(plan.writes):
            _stall(written)
            atomic_write_text(paths.root / rel, text)
            if on_write is not None:
                on_write(rel)
    config = load_config(paths)  # the rebuild holds the lock itself
    rebuild_indexes(paths, config.budgets.entry_chars)
    reconcile(paths)
    reviewstate.record(str(paths.root), plan.reviewed)
    journal.unlink(missing_ok=True)
    return plan


def _read_journal(journal: Path) -> dict[str, str]:
    """The reviews an interrupted run recorded ({} when there is no journal)."""
    try:
        data = json.loads(journal.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise LorebookError(
            f"{journal}: the journal of an interrupted migration cannot be read: {exc}"
        ) from None
    reviewed = data.get("reviewed") if isinstance(data, dict) else None
    if not isinstance(reviewed, dict):
        return {}
    return {str(k): str(v) for k, v in reviewed.items()}

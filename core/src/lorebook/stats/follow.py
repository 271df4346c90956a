"""After capture: keep the usage counts and the resume summary of the session up to date.

After every capture that staged something (the slow path of the stop, session-end and
pre-compact hooks, and ``lorebook capture``), the follow-up attributes the session's
injections (:mod:`lorebook.stats.attribution`), writes the session's entry of
``.cache/usage.json`` and, when the log knows its branch, the summary the resume brief of
the next session on that branch reads (:mod:`lorebook.inject.resume`).
:func:`remember_session` does that from a whole log; the follow-up reads only the records
staged since its last run (:mod:`lorebook.stats.tally`, built from the parts here), and
falls back to :func:`remember_session` where its tally does not apply.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from lorebook.inject.resume import summary_path
from lorebook.kb.fsutil import atomic_write_text
from lorebook.kb.janitor import sweep_temp_files
from lorebook.kb.paths import KBPaths
from lorebook.models.session import LoggedTurn, SessionLog
from lorebook.stats.attribution import FILE_KEYS, InjectionOutcome, NoteFacts, attribute
from lorebook.stats.injections import note_blocks, note_paths
from lorebook.stats.store import update_usage
from lorebook.stats.usage import session_counts

READ_ONLY_TOOLS = frozenset({"read", "glob", "grep", "ls", "view", "notebookread", "websearch"})
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.M)
_TITLE = re.compile(r"^(?:### |- )(.+?)(?: \(|: )")


def note_facts(paths: KBPaths, ids: Iterable[str]) -> dict[str, NoteFacts]:
    """Kind, enforcement and anchors of these notes, from the note index ({} without one)."""
    from lorebook.recall.index import NoteIndex, index_path

    index_file = Path(index_path(str(paths.root)))
    if not index_file.exists():
        return {}
    with NoteIndex(str(index_file)) as index:
        found = index.get(sorted(set(ids)))
    return {
        note_id: NoteFacts(
            id=note_id,
            kind=note.kind,
            enforce=note.enforce,
            commands=tuple(note.anchors.get("commands", ())),
            files=tuple(note.anchors.get("files", ())),
            body=note.body,
        )
        for note_id, note in found.items()
    }


def injected_ids(log: SessionLog) -> set[str]:
    """Every note id the log's injections name."""
    return {note for injection in log.injected for note in note_blocks(injection.text)}


def changed_files(turns: Iterable[LoggedTurn], repo: Path) -> list[str]:
    """Repository-relative files the session's tool calls changed, most recent first."""
    found: list[str] = []
    root = resolved(repo)
    for turn in turns:
        add_changed_files(turn, root, found)
    return found


def resolved(repo: Path) -> Path:
    """The repository's real path (itself when it cannot be resolved)."""
    try:
        return repo.resolve()
    except OSError:
        return repo


def add_changed_files(turn: LoggedTurn, root: Path, found: list[str]) -> None:
    """Move the files ``turn``'s tool calls changed to the front of ``found``.

    ``root``: the resolved repository (:func:`resolved`).
    """
    for call in turn.tool_calls:
        if call.name.casefold() in READ_ONLY_TOOLS:
            continue
        for path in _paths_of(call.input):
            rel = _relative(path, root)
            if rel is not None:
                if rel in found:
                    found.remove(rel)
                found.insert(0, rel)


def _paths_of(args: Mapping[str, object]) -> list[str]:
    paths = [v for k in FILE_KEYS if isinstance(v := args.get(k), str)]
    for value in args.values():
        if isinstance(value, str) and "*** Begin Patch" in value:
            paths.extend(m.strip() for m in _PATCH_FILE.findall(value))
    return paths


def _relative(path: str, root: Path) -> str | None:
    """``path`` relative to the resolved repository ``root``, or None outside it."""
    candidate = Path(path)
    if candidate.is_absolute():
        try:
            candidate = candidate.resolve().relative_to(root)
        except (ValueError, OSError):
            return None
    text = candidate.as_posix().removeprefix("./")
    return None if text.startswith("../") or text.startswith(".lorebook/") else text


def _answered(turns: list[LoggedTurn]) -> bool:
    """True when the last request got an answer: an assistant text after it, no call left."""
    last_user = max((i for i, t in enumerate(turns) if t.role == "user"), default=-1)
    after = [t for t in turns[last_user + 1 :] if t.role in ("assistant", "tool")]
    return bool(after) and is_final_answer(after[-1])


def is_final_answer(turn: LoggedTurn) -> bool:
    """Whether ``turn``, the last assistant or tool turn after a request, answers it."""
    return turn.role == "assistant" and bool(turn.text.strip()) and not turn.tool_calls


def used_notes(
    log: SessionLog, outcomes: list[InjectionOutcome], facts: Mapping[str, NoteFacts]
) -> list[dict[str, object]]:
    """The notes the session used, with their title, path, file anchors and use count."""
    uses: dict[str, int] = {}
    for injection in outcomes:
        for note in injection.notes:
            if note.used:
                uses[note.note_id] = uses.get(note.note_id, 0) + 1
    titles: dict[str, str] = {}
    paths: dict[str, str] = {}
    for logged in log.injected:
        add_names(logged.text, titles, paths)
    return used_entries(uses, titles, paths, facts)


def add_names(text: str, titles: dict[str, str], paths: dict[str, str]) -> None:
    """Take the title (the first one given) and path (the last) of every note ``text`` names."""
    paths.update(note_paths(text))
    for note_id, block in note_blocks(text).items():
        match = _TITLE.match(block)
        if match:
            titles.setdefault(note_id, match.group(1))


def used_entries(
    uses: Mapping[str, int],
    titles: Mapping[str, str],
    paths: Mapping[str, str],
    facts: Mapping[str, NoteFacts],
) -> list[dict[str, object]]:
    """The summary's ``notes``: each used note (``uses``: id -> times used) with its names."""
    return [
        {
            "id": note_id,
            "title": titles.get(note_id, note_id),
            "path": paths.get(note_id, ""),
            "files": list(facts[note_id].files) if note_id in facts else [],
            "uses": count,
        }
        for note_id, count in sorted(uses.items())
        if count
    ]


def remember_session(paths: KBPaths, stem: str, log: SessionLog, *, resume: bool = True) -> None:
    """Update the usage entry of this log and, on a branch and with ``resume``, its summary.

    First sweeps what killed writers left anywhere in the knowledge base
    (:func:`lorebook.kb.janitor.sweep_temp_files`): this runs after every session that
    staged something, so litter of a file nothing writes again does not stay.
    """
    sweep_temp_files(paths)
    facts = note_facts(paths, injected_ids(log))
    outcomes = attribute(log, facts)
    summary: dict[str, object] | None = None
    if resume and log.branch is not None and log.turns:
        users = [t for t in log.turns if t.role == "user"]
        summary = {
            "branch": log.branch,
            "harness": log.harness,
            "session_id": log.session_id,
            "ended_at": next((t.timestamp for t in reversed(log.turns) if t.timestamp), None),
            "last_ask": users[-1].text[:500] if users else "",
            "answered": _answered(list(log.turns)),
            "files": changed_files(log.turns, paths.repo),
            "notes": used_notes(log, outcomes, facts),
        }
    write_results(paths, stem, session_counts(list(outcomes)), summary)


def write_results(
    paths: KBPaths, stem: str, counts: dict[str, list[int]], summary: dict[str, object] | None
) -> None:
    """Write the log's usage entry and, when it has one, the summary of its branch."""
    update_usage(paths.root, {stem: counts})
    if summary is None:
        return
    target = Path(summary_path(str(paths.root), str(summary["branch"])))
    atomic_write_text(target, json.dumps(summary, ensure_ascii=False, indent=1) + "\n")

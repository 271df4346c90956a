"""``lorebook review`` at a terminal: triage the unreviewed notes, one key a decision.

The notes come in groups of one origin (:mod:`lorebook.review_groups`: a session, a
document, a pack, a harvest), each note with its evidence. One key accepts, rejects, edits
(``$VISUAL`` or ``$EDITOR``) or skips the note; the same letter in capitals decides the rest
of its group. Decisions take effect when a group is done and when the person quits (``q``,
Ctrl-C or the end of input), so quitting keeps what was decided: accepting is
:func:`lorebook.review.verdicts.accept` (reviewed as the note is now), rejecting is
:func:`lorebook.review.verdicts.reject_many` (the note is undone and its claim remembered).

Standard library only: keys are read one at a time in cbreak mode (``termios``), where it
exists; elsewhere a line is read and its first letter is the key.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from lorebook.errors import LorebookError

if TYPE_CHECKING:
    from collections.abc import Callable

    from lorebook.kb.paths import KBPaths
    from lorebook.review_groups import OriginGroup, PendingNote

HELP = (
    "keys: a accept, r reject, e edit, s skip this note; "
    "A accept, R reject, S skip the rest of its group; ? help; q quit (keeps what was decided)"
)
PROMPT = "[a]ccept [r]eject [e]dit [s]kip, group [A/R/S], [?] [q]uit > "
_GROUP_KEYS = {"A": "accept", "R": "reject", "S": "skip"}
_NOTE_KEYS = {"a": "accept", "r": "reject", "s": "skip"}


def read_key(stream: TextIO) -> str:
    """One key from ``stream`` (a terminal): ``q`` at the end of input, "" for an escape."""
    try:
        import termios
        import tty
    except ImportError:  # no termios (Windows): a line, its first letter
        line = stream.readline()
        return line.strip()[:1] if line else "q"
    fd = stream.fileno()
    before = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        key = os.read(fd, 1)
        if key == b"\x1b":  # an arrow or a function key: drop the rest of its sequence
            _drain(fd)
            return ""
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, before)
    return key.decode("utf-8", "replace") if key else "q"


def _drain(fd: int) -> None:
    import select

    while select.select([fd], [], [], 0.05)[0]:
        if not os.read(fd, 64):
            return


def open_editor(path: Path) -> str | None:
    """Edit ``path`` in ``$VISUAL``, ``$EDITOR`` or ``vi``; return why it failed (None: ok)."""
    command = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        code = subprocess.run([*shlex.split(command), str(path)], check=False).returncode
    except (OSError, ValueError) as exc:
        return f"cannot run the editor {command!r}: {exc}"
    return None if code == 0 else f"the editor {command!r} exited with {code}"


@dataclass(slots=True)
class Triage:
    """What the person decided and what was done with it."""

    accepted: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    remembered: int = 0
    problems: list[str] = field(default_factory=list)
    quit: bool = False
    interrupted: bool = False


@dataclass(slots=True)
class _Session:
    paths: KBPaths
    out: TextIO
    key: Callable[[], str]
    edit: Callable[[Path], str | None]
    budget: int
    triage: Triage = field(default_factory=Triage)
    decided: dict[str, str] = field(default_factory=dict)
    """Path -> accept, reject or skip: what the person decided and is not done yet."""

    def say(self, text: str = "") -> None:
        from lorebook.inject.sanitize import for_terminal

        self.out.write(for_terminal(text) + "\n")
        self.out.flush()


def _show(session: _Session, note: PendingNote, at: int, total: int) -> None:
    if note.problem:
        session.say(f"[{at}/{total}] {note.path}: cannot be read: {note.problem}")
        return
    session.say(f"[{at}/{total}] {note.title} ({note.kind})")
    session.say(f"  {note.path}")
    if note.quote:
        session.say(f"  > {note.quote}")


def _ask(session: _Session) -> str:
    session.out.write(PROMPT)
    session.out.flush()
    key = session.key()
    session.out.write((key if key.isprintable() else "") + "\n")
    return key


def _decide(session: _Session, group: OriginGroup) -> None:
    """Ask about each note of ``group``, into ``session.decided`` as the keys come."""
    from lorebook.review_groups import pending_note

    decided = session.decided
    notes = list(group.notes)
    at = 0
    while at < len(notes):
        note = notes[at]
        _show(session, note, at + 1, len(notes))
        key = _ask(session)
        if key in _GROUP_KEYS:
            decided.update(dict.fromkeys((n.path for n in notes[at:]), _GROUP_KEYS[key]))
            return
        if key in _NOTE_KEYS:
            decided[note.path] = _NOTE_KEYS[key]
            at += 1
        elif key == "e":
            problem = session.edit(session.paths.repo / note.path)
            if problem:
                session.say(problem)
            rel = note.path.split("/nodes/", 1)[1]
            notes[at] = pending_note(session.paths, note.note_id, rel, written_by=None)
            notes[at] = _with_origin(notes[at], note.origin)
        elif key == "q":
            session.triage.quit = True
            return
        else:
            session.say(HELP)


def _with_origin(note: PendingNote, origin: str) -> PendingNote:
    from dataclasses import replace

    return replace(note, origin=origin)  # an edit does not move the note to another group


def _apply(session: _Session) -> None:
    """Accept and reject what was decided (the notes as they are on disk now)."""
    from lorebook.review.verdicts import accept, reject_many

    decided, session.decided = session.decided, {}
    triage = session.triage
    cwd = session.paths.repo
    accepts = [p for p, d in decided.items() if d == "accept"]
    rejects = [p for p, d in decided.items() if d == "reject"]
    triage.skipped += [p for p, d in decided.items() if d == "skip"]
    try:
        if accepts:
            triage.accepted += accept(session.paths, accepts, cwd)
        if rejects:
            done = reject_many(session.paths, rejects, cwd, budget=session.budget)
            triage.rejected += [r.change.path for r in done]
            triage.remembered += sum(len(r.remembered) for r in done)
    except LorebookError as exc:
        triage.problems.append(exc.message)
        session.say(f"lorebook: error: {exc.message}")


def _group_line(group: OriginGroup, at: int, total: int) -> str:
    count = len(group.notes)
    return f"── group {at}/{total}: {group.origin}: {count} note{'' if count == 1 else 's'}"


def triage(
    paths: KBPaths,
    groups: list[OriginGroup],
    *,
    budget: int,
    out: TextIO | None = None,
    key: Callable[[], str] | None = None,
    edit: Callable[[Path], str | None] = open_editor,
) -> Triage:
    """Walk the person through ``groups``; decisions take effect per group and on quitting."""
    stdin, stdout = sys.stdin, out or sys.stdout
    session = _Session(paths, stdout, key or (lambda: read_key(stdin)), edit, budget)
    count = sum(len(g.notes) for g in groups)
    session.say(f"{count} unreviewed note{'' if count == 1 else 's'} in {len(groups)} groups")
    session.say(HELP)
    for at, group in enumerate(groups, start=1):
        session.say()
        session.say(_group_line(group, at, len(groups)))
        try:
            _decide(session, group)
        except KeyboardInterrupt:  # Ctrl-C quits too, keeping what was decided
            session.say()
            session.triage.quit = session.triage.interrupted = True
        _apply(session)
        if session.triage.quit:
            break
    return session.triage


__all__ = ["HELP", "Triage", "open_editor", "read_key", "triage"]

"""The follow-up's running tally of a staged log: each follow-up reads only the new records.

After every capture that staged something, the follow-up writes the session's usage counts
and resume summary (:mod:`lorebook.stats.follow`). Read from the whole log, that cost grew
with the session: a 100 MB transcript's log was read whole after every stop. Instead, the
follow-up keeps, per log, what it has learnt from the records read so far, in
``.lorebook/.state/follow/<log stem>.json`` (gitignored, per machine), and reads the body
from where it stopped:

- the usage counts of every injection already *settled* (its window, the next
  :data:`~lorebook.stats.attribution.WINDOW` assistant turns, complete: nothing later can
  change its attribution);
- each unsettled injection with the prompt before it and the assistant turns after it so
  far (at most ``WINDOW - 1``), judged again as new turns come;
- what the summary needs: the last prompt, whether the last request was answered, the last
  timestamp, the files changed (most recent first), each note's title and path.

The answer is the one :func:`~lorebook.stats.follow.remember_session` gives from the whole
log (a test compares them after every append), with one difference: a settled injection was
judged with its notes' anchors as they were then.

The tally is used only when it is provably about the same bytes: the same body file (device
and inode: a rewritten body is a new file), committed at least as far, with the same last
bytes before its offset. Otherwise, and for a log whose records are not in transcript order
(a legacy log migrated by capture keeps its turns before its injections), the follow-up
reads the whole log. A killed follow-up leaves the old tally, whose offset is still right.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lorebook.capture import staged
from lorebook.capture.staged import load_log, tally_path
from lorebook.kb.fsutil import atomic_write_text
from lorebook.kb.janitor import sweep_temp_files
from lorebook.kb.paths import KBPaths
from lorebook.models.session import LoggedInjection, LoggedTurn, SessionLog
from lorebook.stats.attribution import WINDOW, InjectionOutcome, NoteFacts, judge
from lorebook.stats.follow import (
    add_changed_files,
    add_names,
    is_final_answer,
    note_facts,
    remember_session,
    resolved,
    used_entries,
    write_results,
)
from lorebook.stats.injections import note_blocks

VERSION = 1
TAIL = 256
"""Body bytes before the tally's offset it keeps a digest of."""


@dataclass
class Tally:
    """What the follow-up has learnt from a log's body up to ``offset``."""

    device: int
    inode: int
    offset: int = 0
    tail: str = ""
    """Digest of the :data:`TAIL` body bytes before ``offset``."""
    last_index: int = -1
    """The transcript position of the last record read (records come in increasing order)."""
    turns: int = 0
    prompt: str | None = None
    """The last user turn's text (None: no user turn yet)."""
    answered: bool = False
    """Whether the turns since the last user turn end in an assistant's final answer."""
    ended_at: str | None = None
    files: list[str] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)
    paths: dict[str, str] = field(default_factory=dict)
    settled: dict[str, list[int]] = field(default_factory=dict)
    """Note id -> [times injected, times used] over the settled injections."""
    pending: list[dict[str, Any]] = field(default_factory=list)
    """Unsettled injections: ``{"injection": ..., "prompt": ..., "after": [turns]}``."""

    @classmethod
    def load(cls, path: Path) -> Tally | None:
        """The tally in ``path``, or None when there is none or it cannot be read."""
        try:
            data = json.loads(path.read_bytes())
            if data.pop("version") != VERSION:
                return None
            tally = cls(**data)
            tally.check()
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return None  # pydantic's ValidationError is a ValueError
        return tally

    def check(self) -> None:
        """Raise TypeError or ValueError unless every field has its type (a file is read)."""
        shapes: list[tuple[object, type]] = [
            (self.files, list), (self.titles, dict), (self.paths, dict),
            (self.settled, dict), (self.pending, list),
        ]  # fmt: skip
        if not all(isinstance(value, kind) for value, kind in shapes):
            raise TypeError("a list or a table is not one")
        ints = (self.device, self.inode, self.offset, self.last_index, self.turns)
        if not all(type(n) is int for n in ints) or type(self.answered) is not bool:
            raise TypeError("a count is not a number")
        texts = [self.tail, *self.files, *self.titles.values(), *self.paths.values()]
        texts += [t for t in (self.prompt, self.ended_at) if t is not None]
        if not all(isinstance(t, str) for t in texts):
            raise TypeError("a text is not a string")
        for pair in self.settled.values():
            if not isinstance(pair, list) or [type(n) for n in pair] != [int, int]:
                raise TypeError("a usage count is not [injected, used]")
        for entry in self.pending:
            if not isinstance(entry["after"], list):
                raise TypeError("an unsettled injection's turns are not a list")
            LoggedInjection.model_validate(entry["injection"])
            for turn in entry["after"]:
                LoggedTurn.model_validate(turn)
            if not isinstance(entry["prompt"], str) or len(entry["after"]) >= WINDOW:
                raise TypeError("an unsettled injection is not one")

    def save(self, path: Path) -> None:
        """Write it (atomically)."""
        atomic_write_text(path, json.dumps({"version": VERSION, **asdict(self)}) + "\n")


class _Facts:
    """Note facts from the note index, each note's read once per follow-up."""

    def __init__(self, paths: KBPaths) -> None:
        self.paths = paths
        self.known: dict[str, NoteFacts] = {}
        self.asked: set[str] = set()

    def of(self, ids: set[str]) -> dict[str, NoteFacts]:
        missing = ids - self.asked
        if missing:
            self.known.update(note_facts(self.paths, missing))
            self.asked |= missing
        return {i: self.known[i] for i in ids if i in self.known}


class _OutOfOrder(Exception):
    """A record at or before the previous one's transcript position."""


def follow_log(paths: KBPaths, target: Path, *, resume: bool = True) -> None:
    """Update the usage counts and (with ``resume``) resume summary of the staged log ``target``.

    Reads only the records committed since the last follow-up of this log (see the module
    docstring); the whole log when its tally does not apply.

    Raises:
        ValueError: the log is not valid (as :func:`lorebook.capture.staged.load_log`).
    """
    store = tally_path(paths, target.stem)
    header = staged.read_header(target)
    if header is None:
        return
    if not staged.is_legacy(header):
        committed, _, _ = staged.body_counts(header)
        fields = {k: v for k, v in header.items() if k not in staged.HEADER_ONLY}
        log = SessionLog.model_validate({**fields, "turns": [], "injected": []})
        facts = _Facts(paths)
        try:
            tally = _read_on(paths, target, committed, Tally.load(store), facts)
        except _OutOfOrder:
            pass
        else:
            sweep_temp_files(paths)
            counts, uses = _counts(tally, facts)
            summary = _summary(log, tally, uses, facts) if resume else None
            write_results(paths, target.stem, counts, summary)
            tally.save(store)
            return
    whole = load_log(target)
    if whole is not None:
        remember_session(paths, target.stem, whole, resume=resume)
    if not store.is_symlink():  # a committed link is the user's to remove (doctor names it)
        store.unlink(missing_ok=True)


def _read_on(
    paths: KBPaths, target: Path, committed: int, tally: Tally | None, facts: _Facts
) -> Tally:
    """The tally brought up to the ``committed`` body bytes (a new one when it does not apply)."""
    body = staged.body_path(target)
    try:
        stat = os.stat(body)
        device, inode = stat.st_dev, stat.st_ino
    except FileNotFoundError:
        device = inode = 0  # no body yet: nothing committed
    if tally is None or not _applies(tally, body, device, inode, committed):
        tally = Tally(device, inode)
    root = resolved(paths.repo)
    for kind, record in staged.iter_body(target, committed, tally.offset):
        index = record.get("index")
        if not isinstance(index, int) or index <= tally.last_index:
            raise _OutOfOrder
        tally.last_index = index
        if kind == "turn":
            _take_turn(tally, LoggedTurn.model_validate(record), root, facts)
        else:
            injection = LoggedInjection.model_validate(record)
            tally.pending.append({"injection": record, "prompt": tally.prompt or "", "after": []})
            add_names(injection.text, tally.titles, tally.paths)
    if committed > tally.offset:
        tally.offset = committed
        tally.tail = _tail(body, committed)
    return tally


def _applies(tally: Tally, body: Path, device: int, inode: int, committed: int) -> bool:
    """Whether ``tally`` was read from this very body, which still holds what it read."""
    if (tally.device, tally.inode) != (device, inode) or tally.offset > committed:
        return False
    try:
        return tally.offset == 0 or _tail(body, tally.offset) == tally.tail
    except OSError:
        return False


def _tail(body: Path, offset: int) -> str:
    with open(body, "rb") as handle:
        handle.seek(max(0, offset - TAIL))
        return hashlib.sha256(handle.read(min(offset, TAIL))).hexdigest()


def _take_turn(tally: Tally, turn: LoggedTurn, root: Path, facts: _Facts) -> None:
    tally.turns += 1
    if turn.timestamp:
        tally.ended_at = turn.timestamp
    if turn.role == "user":
        tally.prompt = turn.text
        tally.answered = False
    elif turn.role in ("assistant", "tool"):
        tally.answered = is_final_answer(turn)
    add_changed_files(turn, root, tally.files)
    if turn.role != "assistant":
        return
    still = []
    for entry in tally.pending:
        entry["after"].append(turn.model_dump(mode="json"))
        if len(entry["after"]) < WINDOW:
            still.append(entry)
            continue
        _count(tally.settled, _judged(entry, facts))  # settled: counted once, for good
    tally.pending = still


def _judged(entry: dict[str, Any], facts: _Facts) -> InjectionOutcome:
    injection = LoggedInjection.model_validate(entry["injection"])
    after = [LoggedTurn.model_validate(turn) for turn in entry["after"]]
    return judge(injection, entry["prompt"], after, facts.of(set(note_blocks(injection.text))))


def _count(counts: dict[str, list[int]], outcome: InjectionOutcome) -> None:
    """Add one injection's notes to ``counts`` (note id -> [times injected, times used])."""
    for note in outcome.notes:
        pair = counts.setdefault(note.note_id, [0, 0])
        pair[0] += 1
        pair[1] += int(note.used)


def _counts(tally: Tally, facts: _Facts) -> tuple[dict[str, list[int]], dict[str, int]]:
    """The log's usage entry ([injected, used] per note) and each note's times used."""
    counts = {note: list(pair) for note, pair in tally.settled.items()}
    for entry in tally.pending:
        _count(counts, _judged(entry, facts))
    counts = dict(sorted(counts.items()))
    return counts, {note: pair[1] for note, pair in counts.items()}


def _summary(
    log: SessionLog, tally: Tally, uses: dict[str, int], facts: _Facts
) -> dict[str, object] | None:
    """The resume summary of the log's branch, as :func:`remember_session` writes it."""
    if log.branch is None or not tally.turns:
        return None
    used = {note for note, count in uses.items() if count}
    return {
        "branch": log.branch,
        "harness": log.harness,
        "session_id": log.session_id,
        "ended_at": tally.ended_at,
        "last_ask": (tally.prompt or "")[:500],
        "answered": tally.answered,
        "files": list(tally.files),
        "notes": used_entries(uses, tally.titles, tally.paths, facts.of(used)),
    }

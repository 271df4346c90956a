"""Note collections ``lorebook eval retrieval`` ranks, read into the index's own note type.

Three folder formats, told apart by their files (:func:`detect_format`):

- ``lorebook``: a ``.lorebook/nodes/`` folder, each note read by
  :func:`lorebook.kb.notes.parse_note` and described by :func:`lorebook.recall.sync.to_indexed`,
  exactly as the hook's index sees it;
- ``okf``: any OKF bundle (markdown with ``type``, ``title``, ``description``, ``tags``
  front matter, as kenkeep writes it); the id is ``kk_id`` (or ``lb_id``, or the file stem),
  and ``nodes/.redirects.json`` maps retired ids to live ones for expected ids;
- ``cursor-rules``: ``.mdc`` and ``.md`` rule files; the file name is the id, the title is
  the first markdown heading (or the file name), the description comes from the front
  matter, read leniently (:mod:`lorebook.evaluation.lenient`).

A LoCoMo JSON file is the fourth kind of ``--notes``; :mod:`lorebook.evaluation.locomo`
reads it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lorebook.errors import LorebookError
from lorebook.evaluation.lenient import split_lenient
from lorebook.recall.index import IndexedNote

FORMATS = ("lorebook", "okf", "cursor-rules", "locomo")
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


class EvalInputError(LorebookError):
    """A note collection or query set cannot be read (the message names file, line, field)."""


@dataclass(slots=True)
class Collection:
    """Notes to rank, with the redirects that map retired ids to live ones."""

    notes: list[IndexedNote]
    format: str
    redirects: dict[str, list[str]] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    """Files that could not be read as notes (the hook would not serve them either)."""


def make_note(
    note_id: str, rel: str, *, title: str, description: str, body: str, tags: tuple[str, ...]
) -> IndexedNote:
    """An active note of no particular kind, for collections that are not lorebook's."""
    return IndexedNote(
        id=note_id, path=rel, mtime_ns=0, size=len(body), status="active", kind="convention",
        enforce="none", title=title, description=description, body=body, tags=tags,
    )  # fmt: skip


def note_files(root: Path, suffixes: tuple[str, ...]) -> list[Path]:
    """Files under ``root`` with one of ``suffixes``, sorted, skipping dot files and folders."""
    found = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part.startswith(".") for part in rel.parts) or not path.is_file():
            continue
        if path.suffix in suffixes:
            found.append(path)
    return found


def read_text(path: Path) -> str:
    """A file's text as UTF-8, or an :class:`EvalInputError` naming it."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise EvalInputError(f"{path}: the file is not valid UTF-8") from None
    except OSError as exc:
        raise EvalInputError(f"{path}: cannot be read ({exc.strerror})") from None


def detect_format(root: Path) -> str:
    """``lorebook``, ``okf`` or ``cursor-rules``, by what the folder's files hold."""
    files = note_files(root, (".md", ".mdc"))
    if any(p.suffix == ".mdc" for p in files):
        return "cursor-rules"
    metas = [split_lenient(read_text(p))[0] for p in files if p.name != "index.md"]
    if any("lb_id" in meta for meta in metas):
        return "lorebook"
    if any("kk_id" in meta or "type" in meta for meta in metas):
        return "okf"
    return "cursor-rules"


def notes_root(path: Path) -> Path:
    """The notes folder ``path`` names: itself, a repository's or a ``.lorebook``'s ``nodes``."""
    if (path / ".lorebook" / "nodes").is_dir():
        return path / ".lorebook" / "nodes"
    if (path / "config.yaml").is_file() and (path / "nodes").is_dir():
        return path / "nodes"
    return path


def load_collection(path: Path) -> Collection:
    """Read the note folder at ``path`` in whichever format it holds."""
    if not path.is_dir():
        raise EvalInputError(f"{path}: not a folder of notes (nor a LoCoMo .json file)")
    root = notes_root(path)
    kind = detect_format(root)
    if kind == "lorebook":
        return _load_lorebook(root)
    if kind == "okf":
        return _load_okf(root)
    return _load_rules(root)


def _redirects(root: Path) -> dict[str, list[str]]:
    from lorebook.kb.redirects import parse_redirects

    ledger = root / ".redirects.json"
    if not ledger.is_file():
        return {}
    try:
        return parse_redirects(read_text(ledger), source=str(ledger))
    except LorebookError as exc:
        raise EvalInputError(exc.message) from None


def _load_lorebook(root: Path) -> Collection:
    from lorebook.kb.notes import parse_note
    from lorebook.recall.sync import to_indexed, walk_nodes

    notes, skipped = [], []
    for rel, (mtime_ns, size) in sorted(walk_nodes(str(root))[1].items()):
        try:
            note, _ = parse_note(read_text(root / rel), source=rel)
        except LorebookError as exc:
            skipped.append(exc.message)  # the hook's index skips it too (recall.sync._read)
            continue
        notes.append(to_indexed(note, rel, mtime_ns, size))
    return Collection(notes, "lorebook", _redirects(root), skipped)


def _tags(value: Any) -> tuple[str, ...]:
    if isinstance(value, list):
        return tuple(str(v) for v in value if v is not None)
    if isinstance(value, str) and value.strip():
        return tuple(t.strip() for t in value.strip("[]").split(",") if t.strip())
    return ()


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _load_okf(root: Path) -> Collection:
    notes, seen = [], set()
    for path in note_files(root, (".md",)):
        if path.name == "index.md":
            continue
        meta, body = split_lenient(read_text(path))
        note_id = _text(meta.get("kk_id") or meta.get("lb_id") or meta.get("id")) or path.stem
        rel = path.relative_to(root).as_posix()
        if note_id in seen:
            raise EvalInputError(f"{path}: id {note_id!r} is used by another note")
        seen.add(note_id)
        notes.append(
            make_note(
                note_id,
                rel,
                title=_text(meta.get("title")) or path.stem,
                description=_text(meta.get("description")),
                body=body.strip("\n"),
                tags=_tags(meta.get("tags")),
            )
        )
    return Collection(notes, "okf", _redirects(root))


def rule_title(body: str, fallback: str) -> str:
    """The first markdown heading of ``body`` (outside code fences), else ``fallback``."""
    fenced = False
    for line in body.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and (match := _HEADING.match(line)):
            return match.group(1).strip()
    return fallback


def _load_rules(root: Path) -> Collection:
    notes, seen = [], set()
    for path in note_files(root, (".md", ".mdc")):
        rel = path.relative_to(root).as_posix()
        note_id = path.name if path.name not in seen else rel
        seen.add(note_id)
        meta, body = split_lenient(read_text(path))
        notes.append(
            make_note(
                note_id,
                rel,
                title=rule_title(body, path.name),
                description=_text(meta.get("description")),
                body=body.strip("\n"),
                tags=_tags(meta.get("tags")),
            )
        )
    return Collection(notes, "cursor-rules")


def add_distractors(base: list[IndexedNote], extra: Collection, label: str) -> list[IndexedNote]:
    """``base`` plus ``extra``'s notes; an id already taken becomes ``<label>/<id>``."""
    taken = {n.id for n in base}
    merged = list(base)
    for note in extra.notes:
        if note.id in taken:
            note = _renamed(note, f"{label}/{note.id}")
        taken.add(note.id)
        merged.append(note)
    return merged


def _renamed(note: IndexedNote, note_id: str) -> IndexedNote:
    return IndexedNote(
        id=note_id, path=note.path, mtime_ns=note.mtime_ns, size=note.size, status=note.status,
        kind=note.kind, enforce=note.enforce, title=note.title, description=note.description,
        body=note.body, tags=note.tags, superseded_by=note.superseded_by,
        refuted_because=note.refuted_because, anchors=note.anchors,
    )  # fmt: skip

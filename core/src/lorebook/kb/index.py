"""Generated files: ENTRY.md, GRAPH.md, every folder's index.md, and note link sections.

Every output is a deterministic function of the notes, FOLDER_SUMMARIES.md and the
redirects ledger: inputs are sorted by plain code point order, nothing depends on time,
locale, hash seed or the order files were written, so two clones generate the same bytes.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from lorebook.errors import LorebookError
from lorebook.kb.fsutil import kb_lock, write_if_changed
from lorebook.kb.graph import GENERATED, plural as _plural, render_graph
from lorebook.kb.notes import render_links, render_note
from lorebook.kb.paths import KBPaths
from lorebook.kb.redirects import load_redirects, render_redirects, resolve
from lorebook.kb.store import INDEX_NAME, Snapshot, content_hash, load_snapshot
from lorebook.kb.summaries import load_summaries, render_summaries

if TYPE_CHECKING:
    from lorebook.kb.catalog import Catalog, NotesView, StoredView


def _md(text: str) -> str:
    """Escape the characters that would break a markdown link text."""
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def nodes_hash(snap: NotesView, summaries: dict[str, str], redirects: dict[str, list[str]]) -> str:
    """Return the content address of the note set and the inputs of the generated files."""
    return _digest(snap.hashes, summaries, redirects)


def _digest(
    hashes: Mapping[str, str], summaries: dict[str, str], redirects: dict[str, list[str]]
) -> str:
    digest = hashlib.sha256(  # one update of the same bytes: one call, not one a note
        "".join([f"note\0{rel}\0{hashes[rel]}\n" for rel in sorted(hashes)]).encode()
    )
    digest.update(b"summaries\0" + render_summaries(summaries).encode())
    digest.update(b"redirects\0" + render_redirects(redirects).encode())
    return "sha256:" + digest.hexdigest()


@dataclass(slots=True)
class Tree:
    """Folders of ``nodes/`` with their direct notes and subfolders."""

    notes: dict[str, list[StoredView]] = field(default_factory=dict)
    children: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def build(cls, notes: Iterable[StoredView]) -> Tree:
        """Group notes by folder and link every folder to its parent."""
        tree = cls(notes={"": []}, children={"": []})
        for stored in notes:
            folder = stored.folder
            tree._ensure(folder)
            tree.notes[folder].append(stored)
        for folder in tree.notes:
            tree.children[folder].sort()
        return tree

    def listed(self, folder: str) -> list[StoredView]:
        """The folder's notes in the order its index.md lists them.

        Sorted when asked, not when the tree is built: a writer renders a few folders.
        """
        return sorted(
            self.notes[folder], key=lambda s: (s.note.type, s.note.title.casefold(), s.note.id)
        )

    def _ensure(self, folder: str) -> None:
        if folder in self.notes:
            return
        self.notes[folder] = []
        self.children[folder] = []
        parent = folder.rpartition("/")[0]
        self._ensure(parent)
        self.children[parent].append(folder)

    def count(self, folder: str) -> int:
        """Notes in ``folder`` and below."""
        return len(self.notes[folder]) + sum(self.count(c) for c in self.children[folder])

    def folders(self) -> list[str]:
        """Every folder, sorted ("" is the root)."""
        return sorted(self.notes)


def _status_suffix(stored: StoredView, where: PurePosixPath, snap: NotesView) -> str:
    note = stored.note
    if note.status == "superseded":
        links = []
        for succ in note.superseded_by:
            found = snap.locate(succ)
            rel = posixpath.relpath(found.as_posix(), where.as_posix()) if found else None
            links.append(f"[{succ}]({rel})" if rel else f"`{succ}`")
        return f" _(superseded by {', '.join(links)})_"
    if note.status == "refuted":
        return " _(refuted: do not follow)_"
    return ""


INDEX_BUDGET = 60_000
"""A folder's index.md stays under this many characters at any size: past it, the notes
left are counted, not listed (``lorebook rebalance`` splits such a folder into subfolders,
at ``rebalance.max_index_chars``, long before)."""


def _capped(lines: list[str], items: list[str], what: str) -> None:
    """Append ``items`` while the index stays within :data:`INDEX_BUDGET`; count the rest."""
    size = sum(len(line) + 1 for line in lines)
    for shown, item in enumerate(items):
        if size + len(item) + 1 > INDEX_BUDGET - 400:
            lines.append(
                f"- and {_plural(len(items) - shown, what)} not listed here (an index.md stays "
                f"within {INDEX_BUDGET:,} characters): `lorebook rebalance` splits this folder"
            )
            return
        lines.append(item)
        size += len(item) + 1


def render_folder_index(folder: str, tree: Tree, summaries: dict[str, str], snap: NotesView) -> str:
    """Return one folder's index.md: breadcrumb, summary, subfolders, notes by type.

    Within :data:`INDEX_BUDGET` characters at any size.
    """
    parts = folder.split("/") if folder else []
    lines = [GENERATED + " -->", f"# {folder or 'Knowledge base'}", ""]
    if parts:
        crumbs = ["../" * len(parts) + INDEX_NAME]
        trail = [f"[nodes]({crumbs[0]})"]
        for depth, name in enumerate(parts[:-1], start=1):
            trail.append(f"[{name}]({'../' * (len(parts) - depth)}{INDEX_NAME})")
        trail.append(parts[-1])
        lines += [" / ".join(trail), ""]
    if summaries.get(folder):
        lines += [summaries[folder], ""]
    if tree.children[folder]:
        lines += ["## Folders", ""]
        items = []
        for child in tree.children[folder]:
            name = child.rpartition("/")[2]
            summary = f" {summaries[child]}" if summaries.get(child) else ""
            items.append(
                f"- [{name}/]({name}/{INDEX_NAME}): {_plural(tree.count(child), 'note')}.{summary}"
            )
        _capped(lines, items, "folder")
        lines.append("")
    here = PurePosixPath(folder) if folder else PurePosixPath(".")
    listed = tree.listed(folder)
    for note_type, heading in (("practice", "Practices"), ("map", "Maps")):
        group = [s for s in listed if s.note.type == note_type]
        if not group:
            continue
        lines += [f"## {heading}", ""]
        items = []
        for stored in group:
            note = stored.note
            title = _md(note.title)
            if note.status != "active":
                title = f"~~{title}~~"
            suffix = _status_suffix(stored, here, snap)
            items.append(
                f"- [{title}]({stored.path.name}) `{note.id}` ({note.kind}): "
                f"{note.description}{suffix}"
            )
        _capped(lines, items, "note")
        lines.append("")
    if folder == "" and not snap.notes:
        lines += ["No notes yet. Add one with `lorebook note add`.", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def render_entry(
    tree: Tree, summaries: dict[str, str], snap: NotesView, digest: str, budget: int
) -> str:
    """Return ENTRY.md: the catalog of top-level folders, within ``budget`` characters."""
    total = len(snap.notes)
    by_status: dict[str, int] = {}
    for stored in snap.notes.values():
        by_status[stored.note.status] = by_status.get(stored.note.status, 0) + 1
    status = ""
    if set(by_status) - {"active"}:
        status = " (" + ", ".join(f"{by_status[s]} {s}" for s in sorted(by_status)) + ")"
    head = [
        f"{GENERATED}; nodes_hash: {digest} -->",
        "# Project knowledge base",
        "",
    ]
    if not total:
        head.append("No notes yet. Notes are added with `lorebook note add` or by curation.")
        return "\n".join(head) + "\n"
    head += [
        f"{_plural(total, 'note')}{status} in `.lorebook/nodes/`. Paths below are relative to "
        "`.lorebook/`: open a folder's index.md to see its notes, then read the notes that "
        "bear on the task.",
        "",
    ]
    items: list[str] = []
    for child in tree.children[""]:
        summary = f" {summaries[child]}" if summaries.get(child) else ""
        items.append(
            f"- [{child}/](nodes/{child}/{INDEX_NAME}): "
            f"{_plural(tree.count(child), 'note')}.{summary}"
        )
    if tree.notes[""]:
        items.append(
            f"- {_plural(len(tree.notes['']), 'note')} at the top level: "
            f"[nodes/index.md](nodes/{INDEX_NAME})"
        )
    text = "\n".join(head)
    for shown, item in enumerate(items):
        rest = len(items) - shown - 1
        more = f"\n- and {_plural(rest, 'more folder')}: see [nodes/index.md](nodes/{INDEX_NAME})"
        if len(text) + len(item) + 2 + (len(more) if rest else 0) > budget:
            left = len(items) - shown
            text += (
                f"\n- {_plural(left, 'folder')} not shown here: "
                f"see [nodes/index.md](nodes/{INDEX_NAME})"
            )
            break
        text += "\n" + item
    return text + "\n"


@dataclass(slots=True)
class Plan:
    """What a rebuild would write (paths relative to the repository) and remove."""

    files: dict[str, str] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    remove: list[str] = field(default_factory=list)
    digest: str = ""


def _existing_indexes(paths: KBPaths) -> list[Path]:
    found = []
    for dirpath, dirnames, filenames in os.walk(paths.nodes, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        if INDEX_NAME in filenames:
            found.append(Path(dirpath) / INDEX_NAME)
    return found


@dataclass(frozen=True, slots=True)
class Scope:
    """The part of the generated files a change can affect (ENTRY.md and GRAPH.md always)."""

    folders: Collection[str]
    """Folders whose index.md is rendered."""
    relink: Collection[str]
    """Ids of the notes whose link section is rendered."""
    graph_hash_only: bool = False
    """GRAPH.md differs only by its hash line: the rest is kept as it is on disk."""


NoteText = Callable[["StoredView", str | None], str]
"""Renders a note's whole file with a new link section."""


def _render_stored(stored: StoredView, links: str | None) -> str:
    from lorebook.models.note import Note

    note = stored.note
    if not isinstance(note, Note):
        raise TypeError("a note's file is rendered from the note itself")  # a Snapshot's
    return render_note(note, links)


def _rehashed(graph: Path, digest: str) -> str | None:
    """GRAPH.md as it is on disk with ``digest`` in its hash line (None: unreadable)."""
    try:
        text = graph.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    first, newline, rest = text.partition("\n")
    if not (first.startswith(f"{GENERATED}; nodes_hash: ") and first.endswith(" -->")):
        return None
    return f"{GENERATED}; nodes_hash: {digest} -->{newline}{rest}"


def plan_rebuild(
    paths: KBPaths,
    snap: NotesView,
    budget: int,
    *,
    scope: Scope | None = None,
    note_text: NoteText = _render_stored,
) -> Plan:
    """Compute the generated outputs for the current notes, without writing.

    Every output, unless ``scope`` names the part a change affects; ``note_text``
    renders a note whose link section changes (from a Snapshot's note by default).
    """
    summaries = load_summaries(paths)
    redirects = load_redirects(paths)
    tree = Tree.build(snap.notes.values())
    plan = Plan()
    relink = snap.notes.values() if scope is None else [
        snap.notes[i] for i in sorted(scope.relink) if i in snap.notes
    ]  # fmt: skip
    rehashed: dict[str, str] = {}
    live = set(snap.notes)

    def retired(note_id: str) -> list[str]:
        return resolve(redirects, note_id, live) if note_id in redirects else []

    for stored in relink:
        links = render_links(stored.note, stored.path, snap.locate, retired)
        if links != stored.links:
            rel = paths.rel(paths.nodes / stored.path)
            plan.notes[rel] = text = note_text(stored, links)
            where = stored.path.as_posix()
            if (new := content_hash(text)) != snap.hashes.get(where, new):
                rehashed[where] = new  # a hand-written note rewritten whole, not only its links
    # The hash of the notes as this plan leaves them: one rebuild is enough for lint.
    hashes = {**snap.hashes, **rehashed} if rehashed else snap.hashes
    plan.digest = _digest(hashes, summaries, redirects)
    plan.files[paths.rel(paths.entry)] = render_entry(tree, summaries, snap, plan.digest, budget)
    graph = _rehashed(paths.graph, plan.digest) if scope and scope.graph_hash_only else None
    plan.files[paths.rel(paths.graph)] = graph or render_graph(
        snap, plan.digest, redirects=redirects
    )
    folders = tree.folders() if scope is None else sorted(set(scope.folders) & set(tree.notes))
    for folder in folders:
        target = paths.nodes / folder / INDEX_NAME if folder else paths.nodes / INDEX_NAME
        plan.files[paths.rel(target)] = render_folder_index(folder, tree, summaries, snap)
    if scope is None:
        owned = set(plan.files)
        plan.remove = sorted(
            rel for rel in (paths.rel(p) for p in _existing_indexes(paths)) if rel not in owned
        )
    return plan


def stale_outputs(paths: KBPaths, plan: Plan) -> list[str]:
    """Return the generated files on disk that differ from the plan (missing included)."""
    stale = []
    for rel, text in plan.files.items():
        try:
            current = (paths.repo / rel).read_bytes()
        except FileNotFoundError:
            stale.append(rel)
            continue
        if current != text.encode("utf-8"):
            stale.append(rel)
    return sorted(stale + plan.remove)


@dataclass(frozen=True, slots=True)
class RebuildReport:
    """What ``index rebuild`` did."""

    written: tuple[str, ...]
    removed: tuple[str, ...]
    notes_relinked: tuple[str, ...]
    digest: str
    note_count: int
    skipped: tuple[str, ...] = ()
    """Errors of the note files left out (``skip_broken``): each names its file."""
    snapshot: Snapshot | None = field(default=None, repr=False, compare=False)
    """The notes as read (the note index is then built from them, not read again)."""


def refuse_broken(snap: Snapshot | Catalog, *, skip_unreadable: bool = False) -> None:
    """Raise when the notes cannot be indexed faithfully (unreadable or duplicate ids).

    With ``skip_unreadable``, only duplicate ids stop it: an unreadable file is left out.
    """
    reasons = [] if skip_unreadable else [p.message for p in snap.problems]
    reasons += [
        f"note id {note_id!r} is used by {len(files)} files: {', '.join(files)}"
        for note_id, files in snap.duplicates.items()
    ]
    if reasons:
        raise LorebookError(
            "cannot rebuild the indexes:\n  " + "\n  ".join(reasons),
            hint="fix these files (`lorebook lint` lists every problem), then rebuild",
        )


def write_plan(paths: KBPaths, plan: Plan) -> tuple[list[str], list[str]]:
    """Write what differs from the plan and remove what it removes: (written, relinked)."""
    relinked = [rel for rel, text in plan.notes.items() if write_if_changed(paths.repo / rel, text)]
    # The plan's digest is of the notes as these writes leave them (see plan_rebuild).
    written = [rel for rel, text in plan.files.items() if write_if_changed(paths.repo / rel, text)]
    for rel in plan.remove:
        (paths.repo / rel).unlink(missing_ok=True)
    return written, relinked


def rebuild_indexes(paths: KBPaths, budget: int, *, skip_broken: bool = False) -> RebuildReport:
    """Regenerate every owned output under the knowledge base lock; write only changes.

    With ``skip_broken`` a note file that cannot be read or parsed is left out (its error
    is in the report's ``skipped``) instead of stopping the rebuild.
    """
    with kb_lock(paths.lock):
        snap = load_snapshot(paths)
        refuse_broken(snap, skip_unreadable=skip_broken)
        plan = plan_rebuild(paths, snap, budget)
        written, relinked = write_plan(paths, plan)
    return RebuildReport(
        written=tuple(written),
        removed=tuple(plan.remove),
        notes_relinked=tuple(relinked),
        digest=plan.digest,
        note_count=len(snap.notes),
        skipped=tuple(p.message for p in snap.problems),
        snapshot=snap,
    )

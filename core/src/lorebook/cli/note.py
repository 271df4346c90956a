"""``lorebook note``: add, show and list notes (the manual capture path); supersede, refute."""

from __future__ import annotations

import sys
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Annotated, Any, get_args

import typer

from lorebook.cli import note_validity
from lorebook.cli.note_messages import misnamed, usage_error
from lorebook.cli.note_validity import (
    DependsOnFile,
    DependsOnTree,
    StoreOption,
    add_elsewhere,
    dependencies_for,
    live_note_id,
)
from lorebook.cli.output import JsonOption, print_json, repo_paths, say, warn, write_text
from lorebook.errors import LorebookError, UnsafePathError, UsageError
from lorebook.kb.notes import note_to_frontmatter
from lorebook.kb.paths import validate_relpath
from lorebook.kb.store import MarkdownStore, load_snapshot
from lorebook.models.note import ID_RE, KIND_TYPES, NOTE_KINDS, Note, NoteStatus
from lorebook.slug import title_slug

if TYPE_CHECKING:
    from lorebook.kb.lifecycle import LifecycleChange
    from lorebook.kb.paths import KBPaths

note_app = typer.Typer(
    name="note",
    help="Add, show and list notes; supersede or refute one.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

Multi = list[str] | None


def _body_text(body: str | None, body_file: Path | None) -> str:
    if body is not None and body_file is not None:
        raise UsageError("give --body or --body-file, not both")
    if body_file is None:
        return body or ""
    if str(body_file) == "-":
        return sys.stdin.read()
    try:
        return body_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LorebookError(f"--body-file {body_file}: cannot read it: {exc}") from None


def _note_id(note_id: str | None, prefix: str, title: str) -> str:
    if note_id is None:
        if not title.strip():
            raise UsageError("--title is empty: a note's title states its rule in a sentence")
        return f"{prefix}-{title_slug(title)}"  # "不要添加其他组件" too: a hash names it
    _option_path(note_id, "note id")
    if not ID_RE.match(note_id):
        raise UsageError(
            f"note id {note_id!r} must be '<kind or type>-<slug>' (for example "
            "'tooling-use-uv' or 'practice-use-uv'): the note's kind or type, then "
            "lowercase letters and digits in words joined by single hyphens"
        )
    return note_id


def add(
    ctx: typer.Context,
    title: Annotated[str, typer.Option(help="One line naming the knowledge.")],
    description: Annotated[str, typer.Option(help="One line saying when it applies.")],
    kind: Annotated[str, typer.Option(help=f"One of: {', '.join(NOTE_KINDS)}.")],
    note_type: Annotated[
        str | None,
        typer.Option("--type", help="practice or map (default: implied by --kind)."),
    ] = None,
    body: Annotated[str | None, typer.Option(help="The knowledge itself, in markdown.")] = None,
    body_file: Annotated[
        Path | None, typer.Option(help="Read the body from this file ('-' for stdin).")
    ] = None,
    tag: Annotated[Multi, typer.Option(help="A tag (repeatable).")] = None,
    relates_to: Annotated[Multi, typer.Option(help="A related note id (repeatable).")] = None,
    depends_on: Annotated[
        Multi, typer.Option(help="A note id this depends on (repeatable).")
    ] = None,
    anchor_file: Annotated[Multi, typer.Option(help="A file glob it applies to.")] = None,
    anchor_tool: Annotated[Multi, typer.Option(help="A tool name it applies to.")] = None,
    anchor_error: Annotated[Multi, typer.Option(help="A regex of error text it explains.")] = None,
    anchor_command: Annotated[
        Multi, typer.Option(help="A regex of shell commands it governs.")
    ] = None,
    enforce: Annotated[
        str, typer.Option(help="What a matching command gets: none, warn, ask or deny.")
    ] = "none",
    confidence: Annotated[str, typer.Option(help="low, medium or high.")] = "medium",
    derived_from: Annotated[
        Multi, typer.Option(help="Where it came from: a doc path or harness:session:turn.")
    ] = None,
    folder: Annotated[
        str | None, typer.Option(help="Folder under nodes/ (default: the kind's name).")
    ] = None,
    note_id: Annotated[
        str | None, typer.Option("--id", help="The id (default: <kind>-<slug of title>).")
    ] = None,
    depends_on_file: DependsOnFile = None,
    depends_on_tree: DependsOnTree = None,
    store: StoreOption = "markdown",
    json_output: JsonOption = False,
) -> None:
    """Add a note by hand: validated, then written atomically, and the indexes refreshed.

    Refused before anything is written: an invalid field, an id that exists already, and
    a --relates-to or --depends-on id that is not a note. After the write, ENTRY.md,
    GRAPH.md, the folder indexes and the link sections the note changes are regenerated,
    so `lorebook lint` passes right away (also when the id exists already, so rerunning
    an add that was interrupted after its write leaves the indexes right). Writes no folder
    summary.
    """
    paths = repo_paths(ctx)
    kind, confidence, enforce = kind.lower(), confidence.lower(), enforce.lower()
    note_type = note_type.lower() if note_type else note_type
    resolved_type = note_type or KIND_TYPES.get(kind, "practice")
    fields: dict[str, Any] = {
        "type": resolved_type,
        "title": title,
        "description": description,
        "tags": tag or [],
        "lb_id": _note_id(note_id, kind if kind in NOTE_KINDS else resolved_type, title),
        "lb_kind": kind,
        "lb_confidence": confidence,
        "lb_enforce": enforce,
        "lb_derived_from": derived_from or [],
        "lb_relates_to": relates_to or [],
        "lb_depends_on": depends_on or [],
        "lb_anchors": {
            "files": anchor_file or [],
            "tools": anchor_tool or [],
            "errors": anchor_error or [],
            "commands": anchor_command or [],
        },
        "body": _body_text(body, body_file),
        "lb_dependencies": dependencies_for(paths, depends_on_file, depends_on_tree, store),
    }
    from pydantic import ValidationError

    from lorebook.config import load_config

    budget = load_config(paths).budgets.entry_chars
    try:
        note = Note.model_validate(fields)
    except ValidationError as exc:
        # Every field comes from the command line: a bad value is a usage error.
        raise usage_error(exc) from None
    if store != "markdown":
        _refuse_dangling(paths, note, MarkdownStore(paths.repo).ids_present(_targets(note)))
        add_elsewhere(paths, store, note, folder, json_output=json_output)
        return
    refreshed = _add_markdown(paths, note, folder, budget)
    where = paths.rel(paths.nodes / _note_rel(note, folder))
    if json_output:
        print_json({"ok": True, "id": note.id, "path": where, "written": list(refreshed)})
        return
    say(f"added {note.id} at {where}")
    for rel in refreshed:
        say(f"  wrote {rel}")


def _note_rel(note: Note, folder: str | None) -> PurePosixPath:
    """Where the note goes under nodes/ (default folder: its kind), validated."""
    folder = note.kind if folder is None else folder.rstrip("/")
    _option_path(note.id, "note id")
    rel = PurePosixPath(f"{note.id}.md")
    return _option_path(folder, "folder") / rel if folder else rel


def _option_path(value: str, what: str) -> PurePosixPath:
    """A path given on the command line; one that would leave nodes/ is a usage error."""
    try:
        return validate_relpath(value, what=what)
    except UnsafePathError as exc:
        raise UsageError(exc.message, hint=exc.hint) from None


def _add_markdown(paths: KBPaths, note: Note, folder: str | None, budget: int) -> list[str]:
    """Write the note and refresh the generated files it affects (see kb.incremental).

    A person wrote it: it is recorded as reviewed on this machine (:mod:`lorebook.reviewstate`),
    so it may ask or deny before it is committed; a teammate's clone counts it from the
    commit.
    """
    from lorebook.kb.incremental import add_note
    from lorebook.kb.notes import render_note
    from lorebook.kb.store import content_hash
    from lorebook.reviewstate import record
    from lorebook.store import NoteExistsError

    rel = _note_rel(note, folder)
    written = {note.id: content_hash(render_note(note, None))}
    try:
        refreshed = add_note(
            paths, note, rel, budget, refuse=lambda known: _refuse_dangling(paths, note, known)
        )
    except NoteExistsError:
        # The same add run again after it was killed between its write and its record:
        # the note on disk is this one, so the person's review is recorded now.
        if _on_disk(paths.nodes / rel) == note:
            record(str(paths.root), written)
        raise
    record(str(paths.root), written)
    for problem in refreshed.skipped:
        warn(f"lorebook: left out of the indexes: {problem}")
    return list(refreshed.written)


def _on_disk(path: Path) -> Note | None:
    """The note in ``path``; None when there is none or it cannot be read."""
    from lorebook.errors import LorebookError
    from lorebook.kb.notes import read_note

    try:
        return read_note(path)
    except (OSError, LorebookError, ValueError):
        return None


def _targets(note: Note) -> list[str]:
    return [*note.relates_to, *note.depends_on]


def _refuse_dangling(paths: KBPaths, note: Note, known: set[str]) -> None:
    """Refuse links to notes that do not exist (lint would fail on them right away).

    ``known`` holds the ids of the note files there are.
    """
    if not _targets(note):
        return
    from lorebook.kb.redirects import load_redirects

    redirects = load_redirects(paths)
    for option, targets in (("--relates-to", note.relates_to), ("--depends-on", note.depends_on)):
        for target in targets:
            if target in known:
                continue
            successors = redirects.get(target)
            if successors:
                raise LorebookError(
                    f"{option} {target!r}: that note was retired; nothing was written",
                    hint=f"link its successor instead: {', '.join(successors)}",
                )
            raise LorebookError(
                f"{option} {target!r}: there is no note with that id; nothing was written",
                hint="`lorebook note list` shows the ids",
            )


def show(
    ctx: typer.Context,
    note_id: Annotated[str, typer.Argument(help="The note id.")],
    json_output: JsonOption = False,
) -> None:
    """Print one note (its file as it is, or its fields with --json).

    A retired id (a note split or renamed, recorded in nodes/.redirects.json) shows the
    notes it leads to, one after the other (with --json: "redirected_from" and a "notes"
    list). A control character in the file (an escape sequence) is shown as a picture (␛),
    not sent to the terminal.
    """
    paths = repo_paths(ctx)
    store = MarkdownStore(paths.repo)
    rel = store.locate(note_id)
    if rel is None:
        from lorebook.kb.redirects import load_redirects, resolve

        ledger = load_redirects(paths)
        successors = resolve(ledger, note_id, set(store.ids())) if note_id in ledger else []
        if not successors:
            hint = "it was retired, and leads to no note now" if note_id in ledger else None
            raise LorebookError(
                f"no note with id {note_id!r}",
                hint=hint or misnamed(paths, note_id) or "`lorebook note list` shows the ids",
            )
        _show_retired(paths, store, note_id, successors, json_output)
        return
    note = store.get(note_id)
    if json_output:
        print_json(
            {
                "ok": True,
                "path": paths.rel(paths.nodes / rel),
                "frontmatter": note_to_frontmatter(note),
                "body": note.body,
            }
        )
        return
    write_text((paths.nodes / rel).read_text(encoding="utf-8"))


def _show_retired(
    paths: KBPaths, store: MarkdownStore, note_id: str, successors: list[str], as_json: bool
) -> None:
    """Show the live notes a retired id leads to (it was split or renamed)."""
    shown = []
    for successor in successors:
        rel = store.locate(successor)
        if rel is not None:
            shown.append((successor, rel))
    if as_json:
        notes = [
            {
                "id": successor,
                "path": paths.rel(paths.nodes / rel),
                "frontmatter": note_to_frontmatter(store.get(successor)),
                "body": store.get(successor).body,
            }
            for successor, rel in shown
        ]
        print_json({"ok": True, "redirected_from": note_id, "notes": notes})
        return
    warn(f"{note_id} was retired; it is now {', '.join(successors)} (nodes/.redirects.json)")
    for number, (_, rel) in enumerate(shown):
        if number:
            write_text("\n")
        write_text((paths.nodes / rel).read_text(encoding="utf-8"))


def _check_filter(option: str, value: str | None, known: tuple[str, ...]) -> None:
    """A filter naming no kind or status would list nothing, silently: refuse it (exit 2)."""
    if value is None or value in known:
        return
    from lorebook.cli.usage import did_you_mean

    raise UsageError(
        f"{option} {value!r}: expected one of {', '.join(known)}",
        hint=did_you_mean(value, known),
    )


def list_notes(
    ctx: typer.Context,
    kind: Annotated[str | None, typer.Option(help="Only notes of this kind.")] = None,
    status: Annotated[str | None, typer.Option(help="Only notes with this status.")] = None,
    tag: Annotated[str | None, typer.Option(help="Only notes with this tag.")] = None,
    json_output: JsonOption = False,
) -> None:
    """List notes: id, kind, status, folder and title, sorted by id."""
    _check_filter("--kind", kind, NOTE_KINDS)
    _check_filter("--status", status, get_args(NoteStatus))
    paths = repo_paths(ctx)
    snap = load_snapshot(paths)
    rows = [
        s
        for s in snap.notes.values()
        if (kind is None or s.note.kind == kind)
        and (status is None or s.note.status == status)
        and (tag is None or tag in s.note.tags)
    ]
    for problem in snap.problems:
        warn(f"lorebook: skipped {problem.message}")
    if json_output:
        print_json(
            {
                "ok": True,
                "notes": [
                    {
                        "id": s.note.id,
                        "kind": s.note.kind,
                        "status": s.note.status,
                        "folder": s.folder,
                        "title": s.note.title,
                        "path": paths.rel(paths.nodes / s.path),
                    }
                    for s in rows
                ],
            }
        )
        return
    if not rows:
        say("no notes")
        return
    width = max(len(s.note.id) for s in rows)
    for s in rows:
        say(f"{s.note.id:<{width}}  {s.note.kind:<11} {s.note.status:<10} {s.note.title}")


def _show_change(change: LifecycleChange, json_output: bool, done: str) -> None:
    if json_output:
        print_json(
            {
                "ok": True,
                "action": change.action,
                "already_done": change.already_done,
                "written": list(change.written),
                "indexes_rebuilt": change.rebuilt is not None,
            }
        )
        return
    if change.already_done:
        say(f"{done} already; nothing changed")
        return
    say(done)
    for rel in change.written:
        say(f"  wrote {rel}")
    if change.rebuilt is not None:
        say(f"  rebuilt the indexes ({len(change.rebuilt.written)} generated files changed)")


def supersede_command(
    ctx: typer.Context,
    old: Annotated[str, typer.Argument(metavar="OLD", help="The outdated note's id.")],
    new: Annotated[str, typer.Argument(metavar="NEW", help="The active note replacing it.")],
    json_output: JsonOption = False,
) -> None:
    """Mark OLD superseded by NEW: OLD gives way to NEW wherever notes are served.

    OLD gets lb_status superseded and NEW in lb_superseded_by; NEW gets OLD in lb_supersedes.
    Both are validated before either is written; then the indexes are rebuilt (index.md
    strikes OLD through and points to NEW). Refused: a note superseding itself, a missing
    id, a NEW that is not active, a refuted OLD, a cycle. Running it again after an
    interrupted run completes it. A retired id (the note was renamed) stands for the note it
    leads to, and says so.
    """
    from lorebook.config import load_config
    from lorebook.kb.lifecycle import supersede
    from lorebook.recall.reviewkept import ReviewKept

    paths = repo_paths(ctx)
    budget = load_config(paths).budgets.entry_chars
    store = MarkdownStore(paths.repo)
    old, new = live_note_id(paths, store, old), live_note_id(paths, store, new)
    with ReviewKept(str(paths.root), [old, new]):  # a person's edit: review carries over
        change = supersede(paths, old, new, budget=budget)
    _show_change(change, json_output, f"{old} is superseded by {new}")


def refute_command(
    ctx: typer.Context,
    note_id: Annotated[str, typer.Argument(metavar="ID", help="The id of the wrong note.")],
    why: Annotated[str, typer.Option("--why", help="What was wrong with it (required).")],
    json_output: JsonOption = False,
) -> None:
    """Mark an active note refuted, saying why: it stays as a record, never served as a fact.

    The text is kept; lb_status becomes refuted and lb_refuted_because the reason, and the
    indexes are rebuilt. lint then fails on an active note that says the same thing again.
    For a note that is outdated rather than wrong, use `lorebook note supersede`. A retired
    id (the note was renamed) stands for the note it leads to, and says so.
    """
    from lorebook.config import load_config
    from lorebook.kb.lifecycle import refute
    from lorebook.recall.reviewkept import ReviewKept

    paths = repo_paths(ctx)
    budget = load_config(paths).budgets.entry_chars
    note_id = live_note_id(paths, MarkdownStore(paths.repo), note_id)
    with ReviewKept(str(paths.root), [note_id]):  # a person's edit: review carries over
        change = refute(paths, note_id, why, budget=budget)
    _show_change(change, json_output, f"{note_id} is refuted")


def register(app: typer.Typer) -> None:
    """Add the command group to the app."""
    note_app.command("add")(add)
    note_app.command("show")(show)
    note_app.command("list")(list_notes)
    note_app.command("supersede")(supersede_command)
    note_app.command("refute")(refute_command)
    note_validity.register(note_app)
    app.add_typer(note_app)

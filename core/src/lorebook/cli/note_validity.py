"""``lorebook note verify`` and ``note erratum``, and the store and dependency parts of ``add``.

What makes a note's claim checkable, what corrects it, and where a note is written.
"""

from __future__ import annotations

from typing import Annotated

import typer

from lorebook.cli.output import JsonOption, print_json, repo_paths, say, warn
from lorebook.errors import LorebookError, UsageError
from lorebook.kb.paths import KBPaths
from lorebook.kb.store import MarkdownStore
from lorebook.models.note import Dependency, Erratum, Note
from lorebook.store import NoteStore

Multi = list[str] | None
DependsOnFile = Annotated[
    Multi,
    typer.Option(
        help="A file the claim rests on; its sha256 is recorded now (PATH=SHA256: the hash "
        "you read, refused if the file no longer has it). Repeatable."
    ),
]
DependsOnTree = Annotated[
    Multi,
    typer.Option(
        help="A glob of files the claim rests on (a new matching file counts as a change); "
        "a digest over them is recorded now (GLOB=DIGEST to pass the one you saw). Repeatable."
    ),
]
StoreOption = Annotated[
    str,
    typer.Option(
        "--store",
        help="Where the note goes: markdown (the repository), personal (yours), or a store "
        "plugin's (postgres: a proposal to your organisation, served once approved).",
    ),
]


def dependencies_for(paths: KBPaths, files: Multi, trees: Multi, store: str) -> list[Dependency]:
    """Stamp ``--depends-on-file`` / ``--depends-on-tree`` (refused for non-repo stores)."""
    if not files and not trees:
        return []
    if store != "markdown":
        raise UsageError(
            f"--depends-on-file and --depends-on-tree cannot be used with --store {store}: "
            "its notes are read from every repository, so there is no one tree to check",
            hint="write the note to the repository store, or leave the dependencies out",
        )
    from lorebook.validity.record import stamp

    return stamp(paths.repo, files or [], trees or [])


def open_named_store(paths: KBPaths, name: str) -> NoteStore:
    """The store a note command writes to, by provider name (an unknown name fails)."""
    from lorebook.cli.usage import require_providers
    from lorebook.config import load_config
    from lorebook.plugins import get_plugins

    require_providers("store", [name])  # unknown: a usage error naming the valid stores
    spec = get_plugins().store(name)
    store = spec.factory(paths.repo)
    if not isinstance(store, NoteStore):
        raise LorebookError(f"store {name!r} cannot be written by `lorebook note`")
    if name not in load_config(paths).stores:
        warn(
            f"lorebook: store {name!r} is not in `stores:` of {paths.rel(paths.config)}; "
            "its notes are not served until it is"
        )
    return store


def add_elsewhere(
    paths: KBPaths, name: str, note: Note, folder: str | None, *, json_output: bool
) -> None:
    """``note add --store NAME``: write to that store, refresh its index and ``stores.json``."""
    from lorebook.config import load_config
    from lorebook.recall.refresh import refresh_stores

    store = open_named_store(paths, name)
    placed = store.add(note, folder=folder)  # a plugin's store says where, in its own terms
    where = str(store.paths.repo / placed) if isinstance(store, MarkdownStore) else placed
    refresh_stores(paths, load_config(paths))
    if json_output:
        print_json({"ok": True, "id": note.id, "store": name, "path": where})
    else:
        say(f"added {note.id} to the {name} store at {where}")


def _regenerate(paths: KBPaths) -> None:
    """Regenerate ENTRY.md and the indexes after a note changed (lint stays clean)."""
    from lorebook.config import load_config
    from lorebook.kb.index import rebuild_indexes

    rebuild_indexes(paths, load_config(paths).budgets.entry_chars)


def live_note_id(paths: KBPaths, store: MarkdownStore, note_id: str) -> str:
    """``note_id``, or the one note it leads to when it was retired (split or renamed).

    An id that is neither a note nor retired is returned as it is: the caller says it is
    not a note.

    Raises:
        NoteNotFoundError: the retired id leads to no note now.
        LorebookError: the retired id leads to several notes (named).
    """
    if store.locate(note_id) is not None:
        return note_id
    from lorebook.kb.redirects import load_redirects, successor

    ledger = load_redirects(paths)
    if note_id not in ledger:
        return note_id
    now = successor(ledger, note_id, set(store.ids()))
    warn(f"{note_id} was retired; it is now {now} (nodes/.redirects.json)")
    return now


def verify(
    ctx: typer.Context,
    note_id: Annotated[str, typer.Argument(metavar="ID", help="The note a person has checked.")],
    depends_on_file: DependsOnFile = None,
    depends_on_tree: DependsOnTree = None,
    json_output: JsonOption = False,
) -> None:
    """Re-stamp a note's dependencies after a person checked it still holds.

    Prints the state first (unchanged, stale, unknown, untracked). The note's declared
    files and trees are hashed again, so a stale note is fresh and served without its
    "recheck" mark; --depends-on-file / --depends-on-tree replace the declared ones. A
    retired id (the note was renamed) acts on the note it leads to, and says so.
    """
    from lorebook.validity.record import stamp
    from lorebook.validity.report import note_verdict

    paths = repo_paths(ctx)
    store = MarkdownStore(paths.repo)
    note_id = live_note_id(paths, store, note_id)
    note = store.get(note_id)
    before = note_verdict(paths, note)
    if depends_on_file or depends_on_tree:
        deps = stamp(paths.repo, depends_on_file or [], depends_on_tree or [])
    else:
        deps = stamp(
            paths.repo,
            [d.path for d in note.dependencies if hasattr(d, "path")],
            [d.tree for d in note.dependencies if hasattr(d, "tree")],
        )
    changed = deps != list(note.dependencies)
    if changed:
        from lorebook.recall.reviewkept import ReviewKept

        with ReviewKept(str(paths.root), [note_id]):  # a person's edit: review carries over
            store.update(note.model_copy(update={"dependencies": deps}))
        _regenerate(paths)
    if json_output:
        doc = {"ok": True, "id": note_id, "was": before.state, "changed": list(before.changed)}
        print_json({**doc, "restamped": changed, "dependencies": len(deps)})
        return
    what = f" ({', '.join(before.changed)})" if before.changed else ""
    say(f"{note_id} was {before.state}{what}")
    say(f"re-stamped {len(deps)} dependencies" if changed else "nothing to re-stamp")


def erratum(
    ctx: typer.Context,
    note_id: Annotated[str, typer.Argument(metavar="ID", help="The note to correct.")],
    text: Annotated[str, typer.Argument(help="The correction, one line.")],
    json_output: JsonOption = False,
) -> None:
    """Add an erratum: a short correction served with the note, which it does not replace.

    For a note that is wrong as a whole use `lorebook note refute`; for one that is out of
    date, `lorebook note supersede`. A retired id (the note was renamed) acts on the note it
    leads to, and says so.
    """
    from pydantic import ValidationError

    from lorebook.errors import NoteFormatError

    paths = repo_paths(ctx)
    store = MarkdownStore(paths.repo)
    note_id = live_note_id(paths, store, note_id)
    note = store.get(note_id)
    try:
        entry = Erratum(text=text)
    except ValidationError:
        raise NoteFormatError(f"erratum {text!r}: it must be one non-empty line") from None
    if entry not in note.errata:
        from lorebook.recall.reviewkept import ReviewKept

        with ReviewKept(str(paths.root), [note_id]):  # a person's edit: review carries over
            store.update(note.model_copy(update={"errata": [*note.errata, entry]}))
        _regenerate(paths)
    if json_output:
        print_json({"ok": True, "id": note_id, "errata": [e.text for e in note.errata]})
        return
    say(f"{note_id}: erratum recorded; it is served with the note")


def register(app: typer.Typer) -> None:
    """Add ``verify`` and ``erratum`` to the ``note`` group."""
    app.command("verify")(verify)
    app.command("erratum")(erratum)


__all__ = [
    "add_elsewhere",
    "dependencies_for",
    "live_note_id",
    "open_named_store",
    "register",
]

"""Session start: refresh what hooks read, then inject ENTRY.md, a status line, a resume brief.

What a person should know (sessions waiting for curation, a failing lint) is not said to the
model as an instruction for the person: past a threshold, at most once an hour, the model is
asked to tell the person in one line (:mod:`lorebook.nudges`).
"""

from __future__ import annotations

import json
import os

from lorebook.events import HookAnswer, HookEvent
from lorebook.inject.entry import entry_context, read_entry
from lorebook.inject.loaded import host_files
from lorebook.inject.resume import with_resume_brief
from lorebook.inject.stages import Context
from lorebook.inject.state import remember_notes, session_state
from lorebook.nudges import session_start_nudge


def _refresh(ctx: Context) -> None:
    """Reconcile the indexes, then start the database stores' cache refreshes, detached."""
    from lorebook.recall.stores import start_refreshers

    try:
        _reconcile(ctx)
    finally:
        start_refreshers(ctx.kb_root, ctx.problems)  # served at the next prompt, never awaited


def _reconcile(ctx: Context) -> None:
    """Reconcile the note index (and the compiled config) with the files on disk.

    This is the one place a hook may import the heavier modules (YAML, pydantic), and only
    when something changed: a ``git pull``, a hand edit, a first run on a fresh clone.
    """
    config_yaml = os.path.join(ctx.kb_root, "config.yaml")
    compiled = os.path.join(ctx.kb_root, ".cache", "config.json")
    if _nothing_changed(ctx.kb_root, config_yaml, compiled):
        from lorebook.reviewstate import refresh

        refresh(ctx.kb_root)  # a commit since: runs git only while a note awaits review
        return
    from lorebook.kb.paths import KBPaths

    paths = KBPaths.for_repo(ctx.repo)
    reloaded = None
    if not os.path.exists(compiled) or os.path.getmtime(config_yaml) > os.path.getmtime(compiled):
        from lorebook.config import load_config

        reloaded = load_config(paths)
    from lorebook.recall.refresh import session_refresh
    from lorebook.recall.sync import reconcile

    reconcile(paths, build_pieces=False)  # and flags the notes committed as they are
    session_refresh(paths, reloaded)  # the other configured stores' indexes, stores.json


def _nothing_changed(kb_root: str, config_yaml: str, compiled: str) -> bool:
    """The config, the notes and every other store's notes are as last indexed.

    One stat per folder (:mod:`lorebook.recall.freshness`), no walk of the notes and no
    import of YAML or pydantic: what a session start costs on a knowledge base that did
    not change since the last one.
    """
    from lorebook.recall.freshness import unchanged
    from lorebook.recall.index import index_path
    from lorebook.recall.stores import configured, stores_file

    try:
        if os.path.getmtime(config_yaml) > os.path.getmtime(compiled):
            return False
    except OSError:
        return not os.path.exists(config_yaml) and os.path.exists(compiled)
    if not os.path.exists(stores_file(kb_root)) and _other_stores(compiled):
        return False  # other stores are configured but not compiled yet
    roots = [kb_root] + [
        entry["root"] for entry in configured(kb_root) if isinstance(entry.get("root"), str)
    ]
    return all(unchanged(index_path(root), os.path.join(root, "nodes")) for root in roots)


def _other_stores(compiled: str) -> bool:
    try:
        with open(compiled, encoding="utf-8") as handle:
            stores = json.load(handle).get("stores", ["markdown"])
    except (OSError, ValueError, AttributeError):
        return True
    return bool(stores != ["markdown"])


def _status_line(ctx: Context) -> str:
    """What the model can use of the knowledge base's state: how many notes it may read.

    The catalog lists the notes no person has reviewed with the others: the line says how
    many there are, so that a session that opens one reads it as a suggestion.

    What a person should do (extract captured sessions, run lint) is said where a person
    reads it, by ``lorebook status`` and ``lorebook doctor``, not to the model.
    """
    unreviewed = 0
    try:
        with ctx.index() as index:
            counts = index.status_counts()
            unreviewed = index.unreviewed_count()
    except Exception as exc:  # the status line is best effort
        ctx.problems.append(f"status line: {type(exc).__name__}: {exc}")
        counts = {}
    total = sum(counts.values())
    inactive = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()) if s != "active")
    noun = "note" if total == 1 else "notes"
    line = f"lorebook status: {total} {noun}" + (f" ({inactive}, not served)" if inactive else "")
    if unreviewed:  # what a tool wrote is no rule until a person reviews it
        line += (
            f"; {unreviewed} of them not reviewed by a person yet: read"
            " those as suggestions, not as the team's rules"
        )
    return line + "."


def session_start_answer(event: HookEvent, ctx: Context) -> HookAnswer:
    """Inject the catalog (ENTRY.md), a status line and any nudge; reset what was given.

    A session that already recorded the files its host loads by itself
    (:mod:`lorebook.inject.loaded`) has them read again; nothing is written for a new
    session.
    """
    try:
        _refresh(ctx)
    except Exception as exc:  # serve the catalog even if the index could not be refreshed
        ctx.problems.append(f"refreshing the index: {type(exc).__name__}: {exc}")
    ctx.deadline.check("refreshing the index")
    fresh = event.source in ("startup", "clear", "compact", None)
    recorded = session_state(ctx.kb_root, event.session_id)[1]
    # A session that recorded what its host loads (a resume) gets it anew: files may have
    # changed. A new one has nothing to keep: its first prompt that serves notes records it.
    loaded = None if recorded is None else host_files(ctx.host, ctx.repo, event.cwd, ctx.problems)
    if fresh or loaded is not None:
        remember_notes(ctx.kb_root, event.session_id, set(), reset=fresh, loaded=loaded)
    try:
        entry = read_entry(ctx.kb_root)
    except (OSError, ValueError) as exc:  # a FIFO, a link, a huge or undecodable file
        ctx.problems.append(f"ENTRY.md not served: {exc}")
        return HookAnswer()
    if entry is None:
        return HookAnswer()
    text = f"{entry_context(entry)}\n\n{_status_line(ctx)}"
    try:
        nudge = session_start_nudge(ctx.kb_root, ctx.config.waiting_sessions, ctx.problems)
    except Exception as exc:  # a nudge is best effort
        ctx.problems.append(f"nudge: {type(exc).__name__}: {exc}")
        nudge = ""
    if nudge:
        text += f"\n\n{nudge}"
    return HookAnswer(context=with_resume_brief(text, event, ctx))

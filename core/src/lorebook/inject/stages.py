"""What each hook event answers: the catalog, ranked notes, anchored notes, ask or deny.

Runs inside the hook process, so it imports only the standard library and light lorebook
modules; the index does the heavy lifting. Only active notes are served as facts: a
superseded note gives way to its active successor, a refuted one that matches is served as
a warning, and every note is validated (:mod:`lorebook.inject.served`) in every store.
"""

from __future__ import annotations

import os
import time

from lorebook.events import HookAnswer, HookEvent
from lorebook.hookconfig import HookConfig
from lorebook.inject import served as serving
from lorebook.inject.choose import choose
from lorebook.inject.marks import location, recheck
from lorebook.inject.state import remember_notes, session_record
from lorebook.recall import anchors as match
from lorebook.recall.index import IndexedNote, NoteIndex, index_path
from lorebook.recall.serve import live_notes
from lorebook.recall.stores import StoreView, close_views, open_views
from lorebook.reviewstate import is_unreviewed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection
    from types import ModuleType

    from lorebook.recall.serve import Served

    Found = list[tuple[StoreView, str, float]]

SHELL_TOOLS = frozenset({"bash", "shell", "exec_command", "run_shell_command", "run_terminal_cmd"})


class BudgetExceeded(Exception):
    """The hook ran out of its time budget."""


class Deadline:
    """A monotonic deadline checked between bounded units of work."""

    __slots__ = ("budget_ms", "end")

    def __init__(self, started: float, budget_ms: int) -> None:
        self.budget_ms = budget_ms
        self.end = started + budget_ms / 1000

    def check(self, what: str) -> None:
        """Raise :class:`BudgetExceeded` if the budget is spent."""
        if time.monotonic() > self.end:
            raise BudgetExceeded(f"over the {self.budget_ms} ms budget while {what}")


class Context:
    """Where the hook runs: the repository, its knowledge base, config and deadline."""

    __slots__ = ("config", "deadline", "host", "kb_root", "problems", "repo")

    def __init__(
        self, repo: str, config: HookConfig, deadline: Deadline, host: ModuleType | None = None
    ) -> None:
        self.repo = repo
        self.host = host
        """The harness's event module (its ``loaded_files``: :mod:`lorebook.inject.loaded`)."""
        self.kb_root = os.path.join(repo, ".lorebook")
        self.config = config
        self.deadline = deadline
        self.problems: list[str] = []
        """Failures that did not stop the answer; the hook logs one line for each."""

    def index(self) -> NoteIndex:
        """Open the note index read-only."""
        return NoteIndex(index_path(self.kb_root))


def prompt_answer(event: HookEvent, ctx: Context) -> HookAnswer:
    """Inject the notes :func:`lorebook.inject.choose.choose` serves for this prompt.

    Every configured store is ranked together; plugins that ``config.yaml`` names by module
    path contribute candidates (``recall``) and may render the block (``inject``).
    """
    from lorebook.hookplugins import manager_for
    from lorebook.recall import pipeline

    prompt = event.prompt or ""
    if not prompt.strip():
        return HookAnswer()
    plugins = manager_for(ctx.config.hook_plugins, ctx.problems)
    seen, pointed, loaded = _session(event, ctx)  # a note only pointed to may come whole
    extra = pipeline.call_recall(plugins, pipeline.query_for(event), ctx.problems)
    usage = _usage(ctx) if ctx.config.usage else None

    def pick() -> Served | None:
        views = open_views(ctx.kb_root, ctx.problems)
        if not views:
            return None
        try:
            return choose(
                views[0].index, prompt, ctx.config, seen, stores=views, extra=extra, usage=usage,
                loaded=loaded, pointed=pointed,
            )  # fmt: skip
        finally:
            close_views(views)

    served = pick()
    if served is not None and _reviewed_since(ctx, served):
        served = pick()  # committed since the session started: served as reviewed now
    if served is None:
        return HookAnswer()
    ctx.deadline.check("ranking and rendering notes")
    warned = list(getattr(served, "warned", ()))
    if not served.shown and not warned:
        return HookAnswer()
    text = pipeline.call_inject(plugins, event, served, ctx.problems)
    pointed = set(served.shown) - set(served.whole)
    remember_notes(
        ctx.kb_root, event.session_id, {*served.shown, *warned}, loaded=loaded, pointed=pointed
    )
    return HookAnswer(context=text) if text else HookAnswer()


def _reviewed_since(ctx: Context, served: Served) -> bool:
    """Whether a note ``served`` holds as unreviewed was committed since (asks ``refresh``)."""
    from lorebook.reviewstate import refresh

    waiting = {n.id for n in served.notes if is_unreviewed(n)}
    if not waiting:
        return False
    try:
        return bool(waiting & set(refresh(ctx.kb_root)))
    except Exception as error:  # unreviewed stays unreviewed: fail closed
        ctx.problems.append(f"checking what was reviewed since: {error}")
        return False


def _session(
    event: HookEvent, ctx: Context, *, anchored: bool = False
) -> tuple[set[str], set[str], frozenset[str]]:
    """The notes this session was given, those only pointed to, the files its host loads.

    One read of the session's state file serves all three.

    For an ``anchored`` answer, a note given only as a pointer was not given: the model has
    not read it, and its file, tool or command is at hand now.

    The files are what the session recorded; asked of the host now when it recorded none
    (:mod:`lorebook.inject.loaded`), and recorded with the notes this event serves.
    """
    seen, pointed, loaded = session_record(ctx.kb_root, event.session_id)
    if anchored:
        seen -= pointed
    if loaded is None:
        from lorebook.inject.loaded import host_files

        loaded = host_files(ctx.host, ctx.repo, event.cwd, ctx.problems)
    return seen, pointed, loaded


def _usage(ctx: Context) -> dict[str, tuple[int, int]]:
    from lorebook.stats.usage import read_usage

    return read_usage(ctx.kb_root)


def _deny_reason(note: IndexedNote) -> str:
    from lorebook.inject.render import unsaid_description
    from lorebook.inject.sanitize import sanitize

    body = f"\n{note.body.strip()}" if note.body.strip() else ""
    mark = recheck(note)
    # the description says when the note applies ("pushing"): its own line, not a sentence
    # glued to the title, and not at all when the title or the body says it (as whole notes)
    about = unsaid_description(note, note.title, body)
    lead = f"\n{about}" if about else ""
    return sanitize(
        f"lorebook: a project rule forbids this command: {note.title.rstrip('.')}.{lead}"
        f"{body}\n{mark + chr(10) if mark else ''}(see {location(note)})"
    )


def _anchored(views: list[StoreView], match_one: Callable[[NoteIndex], set[str]]) -> Found:
    """(view, id, 1.0) for every note whose anchors ``match_one`` matches, store by store."""
    return [(v, note_id, 1.0) for v in views for note_id in sorted(match_one(v.index))]


def _serve_anchored(
    event: HookEvent, ctx: Context, header: str, found: Found, enforced: Collection[str] = ()
) -> HookAnswer:
    """Validate anchored notes, ask or deny per note, else inject them with warnings.

    Only a note a person reviewed asks or denies (:mod:`lorebook.reviewstate`); an
    unreviewed one is served as a labelled pointer at most. A note derived from a file the
    host loads by itself still asks or denies, but is not injected
    (:mod:`lorebook.inject.loaded`).
    """
    facts, refuted = serving.resolve(found, live_notes)
    facts = serving.validated(facts, [v for v, _, _ in found])
    for decision in ("deny", "ask"):
        # An unreviewed note never acts (review before power): at most a labelled pointer.
        ruling = [
            n for n in facts if n.key in enforced and n.enforce == decision and not is_unreviewed(n)
        ]
        if ruling:
            reason = "\n\n".join(_deny_reason(n) for n in ruling)
            return HookAnswer(decision=decision, reason=reason)
    seen, _, loaded = _session(event, ctx, anchored=True)
    if loaded:
        from lorebook.inject.loaded import not_loaded

        facts = not_loaded(facts, loaded)
    fresh = serving.reviewed_first(
        [n for n in facts if n.seen_key not in seen], ctx.config.unreviewed
    )
    warnings = [n for n in refuted if n.seen_key not in seen]
    text, shown, warned = serving.compose(header, fresh, warnings, ctx.config.tool_chars)
    if not text:
        return HookAnswer()
    remember_notes(ctx.kb_root, event.session_id, {*shown, *warned}, loaded=loaded)
    return HookAnswer(context=text)


def tool_answer(event: HookEvent, ctx: Context) -> HookAnswer:
    """Push the notes anchored to the file, tool or command at hand; ask or deny per note.

    A refuted note anchored there arrives as a warning ("this was tried and is wrong"); it
    never asks or denies.
    """
    tool = event.tool_name or ""
    files = match.tool_files(event.tool_input, ctx.repo)
    command = match.tool_command(event.tool_input) if tool.casefold() in SHELL_TOOLS else None
    views = open_views(ctx.kb_root, ctx.problems)
    try:
        by_command = _anchored(
            views, lambda i: match.match_regex(i.anchors("commands"), command) if command else set()
        )
        found = by_command + _anchored(
            views,
            lambda i: (
                (match.match_files(i.file_anchors(files), files) if files else set())
                | (match.match_tools(i.anchors("tools"), tool) if tool else set())
            ),
        )
        ctx.deadline.check("matching anchors")
        enforced = {v.key(note_id) for v, note_id, _ in by_command}
        what = ", ".join(files) or command or tool
        header = f"lorebook: notes the team keeps for this project about {what}:"
        return _serve_anchored(event, ctx, header, found, enforced)
    finally:
        close_views(views)


def error_answer(event: HookEvent, ctx: Context) -> HookAnswer:
    """After a failed tool, push the notes anchored to its error text (and its warnings)."""
    error = event.error_text or ""
    if not error.strip():
        return HookAnswer()
    views = open_views(ctx.kb_root, ctx.problems)
    try:
        found = _anchored(views, lambda i: match.match_regex(i.anchors("errors"), error[:20_000]))
        header = "lorebook: notes the team keeps for this project about this error:"
        return _serve_anchored(event, ctx, header, found)
    finally:
        close_views(views)

"""What each hook event answers: the catalog, ranked notes, anchored notes, ask or deny.

Runs inside the hook process, so it imports only the standard library and light lorebook
modules; the index does the heavy lifting. Only active notes are served: a superseded note
gives way to its active successor, a refuted one is not served.
"""

from __future__ import annotations

import os
import time

from lorebook.events import HookAnswer, HookEvent
from lorebook.hookconfig import HookConfig
from lorebook.inject import anchors as match
from lorebook.inject.render import KB_PREFIX, fit
from lorebook.inject.state import remember_notes, seen_notes
from lorebook.recall.index import IndexedNote, NoteIndex, index_path
from lorebook.recall.serve import choose, live_notes

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

    __slots__ = ("config", "deadline", "kb_root", "problems", "repo")

    def __init__(self, repo: str, config: HookConfig, deadline: Deadline) -> None:
        self.repo = repo
        self.kb_root = os.path.join(repo, ".lorebook")
        self.config = config
        self.deadline = deadline
        self.problems: list[str] = []
        """Failures that did not stop the answer; the hook logs one line for each."""

    def index(self) -> NoteIndex:
        """Open the note index read-only."""
        return NoteIndex(index_path(self.kb_root), readonly=True)


def prompt_answer(event: HookEvent, ctx: Context) -> HookAnswer:
    """Inject the notes :func:`lorebook.recall.serve.choose` serves for this prompt."""
    prompt = event.prompt or ""
    if not prompt.strip():
        return HookAnswer()
    with ctx.index() as index:
        seen = seen_notes(ctx.kb_root, event.session_id)
        served = choose(index, prompt, ctx.config, seen)
    ctx.deadline.check("ranking and rendering notes")
    if not served.shown:
        return HookAnswer()
    remember_notes(ctx.kb_root, event.session_id, set(served.shown))
    return HookAnswer(context=served.text)


def _deny_reason(note: IndexedNote) -> str:
    body = f"\n{note.body.strip()}" if note.body.strip() else ""
    return (
        f"lorebook: a project rule forbids this command: {note.title}. {note.description}"
        f"{body}\n(see {KB_PREFIX}{note.path})"
    )


def tool_answer(event: HookEvent, ctx: Context) -> HookAnswer:
    """Push the notes anchored to the file, tool or command at hand; ask or deny per note."""
    tool = event.tool_name or ""
    files = match.tool_files(event.tool_input, ctx.repo)
    command = match.tool_command(event.tool_input) if tool.casefold() in SHELL_TOOLS else None
    with ctx.index() as index:
        by_command = match.match_regex(index.anchors("commands"), command) if command else set()
        ids = set(by_command)
        ids |= match.match_files(index.anchors("files"), files) if files else set()
        ids |= match.match_tools(index.anchors("tools"), tool) if tool else set()
        ctx.deadline.check("matching anchors")
        notes = live_notes(index, sorted(ids))
    enforced = [n for n in notes if n.id in by_command]
    for decision in ("deny", "ask"):
        ruling = [n for n in enforced if n.enforce == decision]
        if ruling:
            reason = "\n\n".join(_deny_reason(n) for n in ruling)
            return HookAnswer(decision=decision, reason=reason)
    seen = seen_notes(ctx.kb_root, event.session_id)
    fresh = [n for n in notes if n.id not in seen]
    what = ", ".join(files) or command or tool
    header = f"lorebook: notes the team keeps for this project about {what}:"
    text, shown = fit(header, fresh, ctx.config.tool_chars)
    if not shown:
        return HookAnswer()
    remember_notes(ctx.kb_root, event.session_id, set(shown))
    return HookAnswer(context=text)


def error_answer(event: HookEvent, ctx: Context) -> HookAnswer:
    """After a failed tool, push the notes anchored to its error text."""
    error = event.error_text or ""
    if not error.strip():
        return HookAnswer()
    with ctx.index() as index:
        ids = match.match_regex(index.anchors("errors"), error[:20_000])
        notes = live_notes(index, sorted(ids))
    seen = seen_notes(ctx.kb_root, event.session_id)
    fresh = [n for n in notes if n.id not in seen]
    header = "lorebook: notes the team keeps for this project about this error:"
    text, shown = fit(header, fresh, ctx.config.tool_chars)
    if not shown:
        return HookAnswer()
    remember_notes(ctx.kb_root, event.session_id, set(shown))
    return HookAnswer(context=text)

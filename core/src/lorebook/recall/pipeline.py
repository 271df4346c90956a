"""The ``recall`` and ``inject`` pipeline hooks, as core calls them.

On the hook path the plugin manager holds only the modules ``config.yaml`` names in
``hook_plugins`` (:mod:`lorebook.hookplugins`; with none, no manager is built and pluggy is
not imported). Commands (``lorebook recall``, the MCP server) call the same modules, plus
the entry-point plugins, through :meth:`lorebook.plugins.Plugins.recall_hits`.

A plugin that fails to import or raises is skipped with one line in the hook's problems:
it never breaks the session. Standard library and light lorebook modules only.
"""

from __future__ import annotations

from lorebook.events import Hit, RecallQuery

TYPE_CHECKING = False
if TYPE_CHECKING:
    import pluggy

    from lorebook.events import HookEvent
    from lorebook.recall.serve import Served


def query_for(event: HookEvent) -> RecallQuery:
    """The recall query a hook event asks: its prompt, error text, files, tool, command."""
    from lorebook.recall import anchors

    tool_input = event.tool_input or {}
    return RecallQuery(
        text=event.prompt or event.error_text or "",
        files=tuple(anchors.tool_files(tool_input, event.cwd)) if tool_input else (),
        tool=event.tool_name,
        command=anchors.tool_command(tool_input) if tool_input else None,
    )


def call_recall(
    pm: pluggy.PluginManager | None, query: RecallQuery, problems: list[str]
) -> list[Hit]:
    """Every plugin's ``recall(query)`` hits, through ``pm`` (None: no plugin, no hits).

    ``pm`` is :func:`lorebook.hookplugins.manager_for` on the hook path, the commands'
    plugin manager for ``lorebook recall``. A plugin that raises is skipped
    (:func:`lorebook.hookplugins.call`).
    """
    if pm is None:
        return []
    from lorebook.hookplugins import call

    found = call(pm, "recall", problems, query=query) or []
    return [
        h for hits in found if isinstance(hits, (list, tuple)) for h in hits if isinstance(h, Hit)
    ]


POINTER = "pointer: served as one line; the ranker is not confident it answers the prompt"
"""The reason a hit of a note core served as a pointer starts with."""


def hits_of(served: Served) -> list[Hit]:
    """The served notes as hits, in the order they were served.

    A hit's ``reason`` holds the note's "recheck" mark, and for a note no person has
    reviewed the "unreviewed" label first (:mod:`lorebook.reviewstate`): a plugin's
    ``inject`` renders such a note as a labelled pointer at most, as core does. A reviewed
    note core served as a pointer (the ranker was not confident it answers the prompt, or
    it did not fit whole) says :data:`POINTER` first.
    """
    from lorebook.reviewstate import LABEL, is_unreviewed

    out = []
    whole = set(getattr(served, "whole", ()))
    for note in served.notes[: len(served.shown)]:  # what fit the budget (a prefix)
        store = getattr(note, "store", "markdown")
        score = float(getattr(note, "score", 0.0))
        key = getattr(note, "seen_key", note.id)
        label = LABEL if is_unreviewed(note) else "" if key in whole else POINTER
        marks = [label, str(getattr(note, "mark", ""))]
        reason = "; ".join(m for m in marks if m)
        out.append(Hit(note.id, score, str(store), note.title, reason))
    return out


def call_inject(
    pm: pluggy.PluginManager | None, event: HookEvent, served: Served, problems: list[str]
) -> str:
    """The text to inject: the ``inject`` hook's first result, core's rendering by default.

    Through ``pm`` (:func:`lorebook.hookplugins.manager_for`; None: no plugin, core's
    text): the built-in implementation (``trylast``) returns core's text, so a plugin
    returning a string ("" injects nothing) replaces it, and a wrapper sees it.
    """
    if pm is None:
        return served.text
    from lorebook.hookplugins import call

    text = call(pm, "inject", problems, event=event, hits=hits_of(served), text=served.text)
    return text if isinstance(text, str) else served.text


def import_cost(module: str, repo: str) -> tuple[float | None, str]:
    """What importing ``module`` costs a fresh hook process: (milliseconds, error or "").

    Measured as the hook runs it: a new interpreter, the repository as working directory.
    ``lorebook doctor`` reports it for every module ``hook_plugins`` names.
    """
    import subprocess
    import sys

    code = (
        "import time; t = time.perf_counter(); import importlib; "
        f"importlib.import_module({module!r}); print((time.perf_counter() - t) * 1000)"
    )
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code], cwd=repo, capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, str(exc)
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        return None, lines[-1] if lines else f"exit code {proc.returncode}"
    return float(proc.stdout.strip().splitlines()[-1]), ""

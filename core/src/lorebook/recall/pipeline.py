"""The ``recall`` and ``inject`` pipeline hooks, as core calls them.

On the hook fast path no plugin manager is built: only the modules ``config.yaml`` names in
``hook_plugins`` (dotted module paths) are imported, and their ``recall`` and ``inject``
functions are called with the keyword arguments they name, as pluggy would call them.
Commands (``lorebook recall``, the MCP server) call the same modules, plus the entry-point
plugins, through :meth:`lorebook.plugins.Plugins.recall_hits`.

A plugin that fails to import or raises is skipped with one line in the hook's problems:
it never breaks the session. Standard library and light lorebook modules only.
"""

from __future__ import annotations

import sys

from lorebook.events import Hit, RecallQuery

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from types import ModuleType
    from typing import Any

    from lorebook.events import HookEvent
    from lorebook.recall.serve import Served


def hook_plugins(names: Iterable[str], problems: list[str]) -> list[ModuleType]:
    """Import the modules ``config.yaml`` names in ``hook_plugins``.

    ``names`` is :attr:`lorebook.hookconfig.HookConfig.hook_plugins`. A module that fails
    to import is reported in ``problems`` and skipped.
    """
    modules = []
    for name in (n for n in names if n):
        try:
            __import__(name)  # not importlib: it costs the hook path its import
            modules.append(sys.modules[name])
        except Exception as exc:  # fail open: a broken plugin never breaks the session
            problems.append(f"plugin {name} failed to import and is skipped: {exc!r}")
    return modules


def _call(func: Callable[..., Any], **available: Any) -> Any:
    """Call ``func`` with the arguments it names (pluggy's opt-in arguments)."""
    code = func.__code__
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    return func(**{k: v for k, v in available.items() if k in names})


def query_for(event: HookEvent) -> RecallQuery:
    """The recall query a hook event asks: its prompt, error text, files, tool, command."""
    from lorebook.inject import anchors

    tool_input = event.tool_input or {}
    return RecallQuery(
        text=event.prompt or event.error_text or "",
        files=tuple(anchors.tool_files(tool_input, event.cwd)) if tool_input else (),
        tool=event.tool_name,
        command=anchors.tool_command(tool_input) if tool_input else None,
    )


def call_recall(
    modules: Iterable[ModuleType], query: RecallQuery, problems: list[str]
) -> list[Hit]:
    """Collect every module's ``recall(query)`` hits (``None`` contributes nothing)."""
    hits: list[Hit] = []
    for module in modules:
        func = getattr(module, "recall", None)
        if not callable(func):
            continue
        try:
            found = _call(func, query=query) or []
            hits += [h for h in found if isinstance(h, Hit)]
        except Exception as exc:  # fail open
            problems.append(f"plugin {module.__name__}: recall raised {exc!r}; skipped")
    return hits


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
    modules: Iterable[ModuleType], event: HookEvent, served: Served, problems: list[str]
) -> str:
    """The text to inject: what core rendered, unless a module's ``inject`` returns text.

    First result: the first module whose ``inject(event, hits)`` is not ``None`` decides
    ("" injects nothing).
    """
    hits: list[Hit] | None = None
    for module in modules:
        func = getattr(module, "inject", None)
        if not callable(func):
            continue
        hits = hits_of(served) if hits is None else hits
        try:
            text = _call(func, event=event, hits=hits)
        except Exception as exc:  # fail open
            problems.append(f"plugin {module.__name__}: inject raised {exc!r}; skipped")
            continue
        if isinstance(text, str):
            return text
    return served.text


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

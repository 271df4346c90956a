"""Output conventions for every command.

Readable text by default; with ``--json`` exactly one JSON document on stdout and every
diagnostic on stderr. Nothing a command prints sends a terminal a control character it did
not mean: a note's title or body (text anyone with a pull request can write) may hold ESC
or BEL, so :func:`say` and :func:`warn` show them as pictures (``␛``, ``␇``;
:func:`lorebook.inject.sanitize.for_terminal`), and :func:`print_json` writes them, like
the bidirectional controls, as JSON unicode escapes (the same JSON value).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Annotated, Any

import typer

from lorebook.inject.sanitize import for_terminal, json_for_terminal
from lorebook.kb.paths import KBPaths, require_repo

JsonOption = Annotated[
    bool, typer.Option("--json", help="Print one JSON document on stdout instead of text.")
]


def plural(count: int, word: str) -> str:
    """``count`` and ``word``, with an ``s`` unless the count is one ("1 note", "3 notes")."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def print_json(doc: Any) -> None:
    """Write ``doc`` as the one JSON document of this command (terminal-safe escapes)."""
    sys.stdout.write(json_for_terminal(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n")


def say(text: str = "") -> None:
    """Write readable output, control characters shown, never sent."""
    sys.stdout.write(for_terminal(text) + "\n")


def warn(text: str) -> None:
    """Write a diagnostic to stderr (never mixed into JSON output), controls shown."""
    sys.stderr.write(for_terminal(text) + "\n")


def write_text(text: str) -> None:
    """Write a file's text as it is (``note show``), but for its control characters."""
    sys.stdout.write(for_terminal(text))


def finish(
    problems: Iterable[str],
    document: Callable[[], Any],
    lines: Callable[[], Iterable[str]],
    *,
    json_output: bool,
    failed: bool,
) -> None:
    """End a batch command: its warnings, then its JSON or summary; exit 1 when ``failed``."""
    for problem in problems:
        warn(f"lorebook: warning: {problem}")
    if json_output:
        print_json(document())
    else:
        for line in lines():
            say(line)
    if failed:
        raise typer.Exit(1)


_ANY_VERSION = frozenset({"migrate"})
"""Commands that work on a knowledge base at any format version; every other refuses one
that is not at the version this lorebook reads (:mod:`lorebook.kb.version`)."""


def _command_name(ctx: typer.Context) -> str | None:
    """The command given after ``lorebook`` (``migrate`` in ``lorebook migrate run``)."""
    chain = []
    at: Any = ctx
    while at is not None:
        chain.append(at.info_name)
        at = at.parent
    return chain[-2] if len(chain) >= 2 else None


def repo_paths(ctx: typer.Context) -> KBPaths:
    """Return the knowledge base the command works on (``--repo`` or the current folder)."""
    start = (ctx.find_root().obj or {}).get("repo") or Path.cwd()
    paths = require_repo(Path(start))
    if _command_name(ctx) not in _ANY_VERSION:
        from lorebook.errors import LorebookError
        from lorebook.kb.version import version_problem

        problem = version_problem(str(paths.root))
        if problem is not None:  # every reader of an older or newer format: one line
            raise LorebookError(problem)
    return paths

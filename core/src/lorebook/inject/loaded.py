"""Nothing the host already loads: a note whose source the host reads by itself is not served.

Bootstrap turns a repository's instruction files into notes and records each note's
source (``lb_derived_from: CLAUDE.md#testing``). Claude Code puts ``CLAUDE.md`` and what it
imports in the model's context by itself, at every session start; serving Claude a note
derived from it says the same thing twice, and takes the prompt budget from a note the
model does not have. Codex does not load ``CLAUDE.md``, so Codex still gets that note.

How it is decided, cheaply:

- each harness's event module declares what its host loads in full by itself:
  ``loaded_files(repo, cwd)`` (:mod:`lorebook.hostkit.loaded`; Claude's ``CLAUDE.md`` and
  its ``@`` imports, ``AGENTS.md`` for Codex and OpenCode, ``AGENTS.md``, ``CLAUDE.md``,
  ``GEMINI.md`` and their imports for Copilot, always-applied rules for Cursor; checked
  against the real clients by tests/e2e/test_loaded_files.py);
- a prompt asks it once a session: the first prompt that serves notes keeps the answer in
  the session's state file beside the notes given
  (:func:`lorebook.inject.state.remember_notes`, a write it does anyway), the file every
  prompt reads already; a session start that finds it recorded (a resume) asks again;
- the index keeps each note's source files (:attr:`lorebook.recall.document.IndexedNote.sources`),
  read with the note;
- serving (:func:`not_loaded`) drops the repository's notes with a source in that set, whole
  and as pointers, at prompts and at tool events. A rule that asks or denies a command
  still does: an instruction file does not stop a command.

Until a prompt serves notes, each prompt asks (13 us for Codex, 171 us for Claude Code
with a 14.6 KB ``CLAUDE.md`` importing two files). A harness that declares nothing loses
nothing: every note is served.
"""

from __future__ import annotations

from lorebook.reviewstate import REPO_STORE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Set
    from types import ModuleType

    from lorebook.inject.served import ServedNote


def host_files(
    host: ModuleType | None, repo: str, cwd: str | None, problems: list[str]
) -> frozenset[str]:
    """What the host loads by itself, from its event module's ``loaded_files`` (may be none).

    A declaration that fails or answers something else than paths costs nothing but a
    line in ``problems``: then every note is served.
    """
    declared = getattr(host, "loaded_files", None) if host is not None else None
    if declared is None:
        return frozenset()
    try:
        files = declared(repo, cwd)
        result = frozenset(f for f in files if isinstance(f, str))
    except Exception as exc:  # a plugin's failure must not break the answer
        name = getattr(host, "__name__", "the harness")
        problems.append(f"{name}.loaded_files: {type(exc).__name__}: {exc}; every note served")
        return frozenset()
    return result


def spec_loads(event_module: str | None, repo: str) -> frozenset[str]:
    """What a harness's host loads by itself in ``repo`` (its event module's answer)."""
    if event_module is None:
        return frozenset()
    import importlib

    try:
        module = importlib.import_module(event_module)
    except ImportError:
        return frozenset()
    return host_files(module, repo, repo, [])


def not_loaded(notes: Iterable[ServedNote], loaded: Set[str]) -> list[ServedNote]:
    """``notes`` without the repository's notes derived from a file in ``loaded``.

    Only the repository's own store is checked: another store's note names files of
    another repository.
    """
    if not loaded:
        return list(notes)
    return [n for n in notes if n.store != REPO_STORE or loaded.isdisjoint(n.sources)]

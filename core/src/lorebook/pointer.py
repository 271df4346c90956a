"""The managed pointer block core keeps in instruction files (CLAUDE.md, AGENTS.md).

It tells the agent the knowledge base exists, where it starts and how to mark a teaching
moment; how to descend it is said once, by the catalog (ENTRY.md) it points to. Core
installs the block when the first wired harness reading that file is installed and removes
it with the last: uninstalling Codex leaves AGENTS.md's block while OpenCode or Copilot
still read it.
"""

from __future__ import annotations

from pathlib import Path

from lorebook.kb.fsutil import atomic_write_text

BEGIN = "<!-- lorebook:begin (managed by `lorebook init`; edits inside this block are replaced) -->"
END = "<!-- lorebook:end -->"
BLOCK = f"""{BEGIN}
## Project knowledge base (lorebook)

The team's notes for coding assistants are in `.lorebook/`: start at `.lorebook/ENTRY.md`
(superseded or refuted notes are history). When the user teaches you something worth
keeping (a rule, a gotcha, a name), record it with
`lorebook mark --kind <kind> "<what you learned>"`; it is reviewed before it becomes a note.
{END}"""


def instruction_files() -> list[str]:
    """The instruction files the installed harness plugins name, in harness-name order.

    Core names none itself: each host's plugin says which files its host reads
    (``HarnessSpec.instruction_files``).
    """
    from lorebook.plugins import get_plugins

    specs = get_plugins().harnesses().values()
    return list(dict.fromkeys(rel for spec in specs for rel in spec.instruction_files))


def _split(text: str) -> tuple[str, str] | None:
    start = text.find(BEGIN)
    end = text.find(END, start)
    if start == -1 or end == -1:
        return None
    return text[:start], text[end + len(END) :]


def install_pointer(path: Path) -> bool:
    """Add or refresh the block in ``path`` (created if missing); True when the file changed."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    parts = _split(text)
    if parts is None and not text.strip():
        updated = f"{BLOCK}\n"
    elif parts is None:  # one blank line before the block; the file's own ending after it
        updated = f"{text}\n{BLOCK}\n" if text.endswith("\n") else f"{text}\n\n{BLOCK}"
    else:
        updated = parts[0] + BLOCK + parts[1]
    if updated == text:
        return False
    atomic_write_text(path, updated)
    return True


def remove_pointer(path: Path) -> bool:
    """Remove the block; delete the file if nothing else is left. True when it changed."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return False
    parts = _split(text)
    if parts is None:
        return False
    before, after = parts
    if after.strip():
        rest = before.rstrip("\n") + "\n\n" + after.lstrip("\n")
    else:  # the block ends the file: take away exactly the blank line put before it
        rest = (before[:-2] if before.endswith("\n\n") else before.rstrip("\n")) + after
    if not rest.strip():
        path.unlink()
    else:
        atomic_write_text(path, rest if before.strip() else after.lstrip("\n"))
    return True


def pointer_file(repo: Path, names: tuple[str, ...]) -> str:
    """Which of a host's instruction files (all of which it reads) gets the block.

    The one that holds it already, else the first that exists, else the first (created):
    a project that keeps its instructions in ``.claude/CLAUDE.md`` gets no new root
    ``CLAUDE.md``.
    """
    existing = [name for name in names if (repo / name).is_file()]
    for name in existing:
        if BEGIN in (repo / name).read_text(encoding="utf-8", errors="replace"):
            return name
    return (existing or list(names))[0]


def has_pointer(path: Path) -> bool:
    """True when ``path`` holds the current block."""
    try:
        return BLOCK in path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return False

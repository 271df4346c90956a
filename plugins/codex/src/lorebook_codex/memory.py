"""Codex memories of a repository, for ``lorebook harvest --from codex``.

Codex keeps one global store, ``$CODEX_HOME/memories/`` (``~/.codex`` by default), on
when ``config.toml`` has ``memories = true`` under ``[features]``. Its handbook
``MEMORY.md`` is a list of ``# Task Group:`` blocks whose ``applies_to: cwd=...`` line
(and the ``cwd=`` of the rollouts they cite) say which working directory they come from; a
block counts for this repository when one of those directories is the repository or inside
it; a block naming none is global: its user preferences are the person's (``personal``),
the rest is left out. Each bullet under a block's ``## User preferences``, ``## Reusable
knowledge`` and ``## Failures and how to do differently`` is one memory. The generated
summaries and raw inputs beside it are not read.

A bullet :func:`lorebook.hostkit.memory.about_the_person` reads as about the person is
marked personal: harvest puts it in the person's own store, not the team's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from lorebook.hostkit.history import ran_inside
from lorebook.hostkit.memory import (
    MemoryEntry,
    MemoryListing,
    about_the_person,
    kind_of,
    one_line,
    slug,
    text_sha256,
)

from .trust import codex_home

if TYPE_CHECKING:
    from lorebook.models.note import NoteKind

_TASK_REFS = re.compile(r"(\s*\[Task \d+\])+\s*$")
_CWD = re.compile(r"cwd=([^;,)\s]+)")
SECTIONS: dict[str, NoteKind] = {
    "user preferences": "convention",
    "reusable knowledge": "convention",
    "failures and how to do differently": "gotcha",
}
"""The handbook sections read (lowercase) -> the note kind a bullet reads as by default."""


def memory_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where Codex keeps its memories: ``$CODEX_HOME/memories``."""
    return codex_home(env) / "memories"


@dataclass(slots=True)
class _Block:
    group: str
    cwds: list[str] = field(default_factory=list)
    sections: dict[str, list[list[str]]] = field(default_factory=dict)
    current: str | None = None


def _blocks(text: str) -> list[_Block]:
    blocks: list[_Block] = []
    for line in text.splitlines():
        if line.startswith("# Task Group:"):
            blocks.append(_Block(line.split(":", 1)[1].strip()))
            continue
        if not blocks:
            continue
        block = blocks[-1]
        block.cwds += _CWD.findall(line)
        if line.startswith("## "):
            name = line[3:].strip().lower()
            block.current = name if name in SECTIONS else None
        elif block.current is not None and line.startswith("- "):
            block.sections.setdefault(block.current, []).append([line[2:].strip()])
        elif (
            block.current is not None
            and line.startswith("  ")
            and block.sections.get(block.current)
        ):
            block.sections[block.current][-1].append(line.strip())
    return blocks


def _entry(block: _Block, section: str, lines: list[str]) -> MemoryEntry:
    text = _TASK_REFS.sub("", " ".join(" ".join(lines).split()))
    slot = f"{slug(block.group) or 'group'}/{slug(section)}"
    title = one_line(re.split(r"\s+->\s+|:\s", text, maxsplit=1)[0], 120)
    kind = kind_of(title, text, SECTIONS[section])
    key = f"MEMORY.md#{slot}/{text_sha256(text)[:12]}"
    personal = about_the_person(text)
    return MemoryEntry(key, slot, title, one_line(text), text, kind, text_sha256(text), personal)


def memory_entries(repo: Path, env: Mapping[str, str] | None = None) -> MemoryListing:
    """This repository's Codex memories (see the module docstring)."""
    handbook = memory_dir(env) / "MEMORY.md"
    listing = MemoryListing(handbook.parent if handbook.is_file() else None)
    if listing.store is None:
        return listing
    try:
        text = handbook.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        listing.problems.append(f"{handbook.name}: cannot be read ({exc})")
        return listing
    for block in _blocks(text):
        bullets = [(s, lines) for s, items in block.sections.items() for lines in items]
        if not block.cwds:
            for section, lines in bullets:
                if section == "user preferences":  # the person's, wherever they work
                    listing.entries.append(replace(_entry(block, section, lines), personal=True))
                else:
                    listing.skip("global (names no working directory)")
        elif not any(ran_inside(cwd, repo) for cwd in block.cwds):
            for _ in bullets:
                listing.skip("another working directory")
        else:
            listing.entries += [_entry(block, s, lines) for s, lines in bullets]
    return listing

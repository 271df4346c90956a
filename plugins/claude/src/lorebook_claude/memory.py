"""Claude Code's auto memory of a repository, for ``lorebook harvest --from claude``.

Claude Code keeps an auto memory per project: ``<config dir>/projects/<slug>/memory/``,
where the config dir is ``$CLAUDE_CONFIG_DIR`` (else ``~/.claude``), the slug is the
repository's absolute path with every character other than a letter or digit as ``-``
(the spelling with only ``/`` replaced is looked for too, as for past sessions), and
``autoMemoryDirectory`` in the user's ``settings.json`` moves it. Each ``*.md`` file but
``MEMORY.md`` is one memory, with front matter ``name``, ``description`` and ``type``
(``user``, ``feedback``, ``project``, ``reference``). ``MEMORY.md`` is the index; a bullet of
it that links to no memory file is a memory of its own (older releases wrote memories there).

A ``user`` memory is about the person; so is a feedback memory or index bullet that
:func:`lorebook.hostkit.memory.about_the_person` reads as such. Harvest puts those in the
person's own store, not the team's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lorebook.hostkit.memory import (
    MemoryEntry,
    MemoryListing,
    about_the_person,
    first_sentence,
    front_matter,
    kind_of,
    one_line,
    stated_rule,
    text_sha256,
)

from .history import config_dir, project_slug

if TYPE_CHECKING:
    from lorebook.models.note import NoteKind

_LINK_MD = re.compile(r"\]\(([^)]+\.md)\)")
TYPES: dict[str, NoteKind] = {
    "feedback": "convention",
    "project": "decision",
    "reference": "location",
}
"""A memory's ``type`` -> the note kind it reads as when its words say no other."""
_SLUG = re.compile(r"^[a-z0-9]+(?:[-_][a-z0-9]+)+$")
"""A memory named like a file (``no-db-mocks``), not with a sentence."""


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def memory_dir(repo: Path, env: Mapping[str, str] | None = None) -> Path:
    """The folder Claude Code keeps this repository's auto memory in (it may not exist)."""
    config = config_dir(env)
    moved = _read_json(config / "settings.json").get("autoMemoryDirectory")
    if isinstance(moved, str) and moved.strip():
        return Path(moved).expanduser()
    root = repo.resolve()
    spellings = [project_slug(root), str(root).replace("/", "-").replace("\\", "-")]
    for slug in spellings:
        if (config / "projects" / slug / "memory").is_dir():
            return config / "projects" / slug / "memory"
    return config / "projects" / spellings[0] / "memory"


def _memory_file(path: Path, listing: MemoryListing) -> None:
    try:
        text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
    except (OSError, UnicodeDecodeError) as exc:
        listing.problems.append(f"{path.name}: cannot be read ({exc})")
        return
    meta, body = front_matter(text)
    memory_type = str(meta.get("type") or "").strip().lower()
    body = body.strip()
    if not body:
        listing.skip("empty")
        return
    name = str(meta.get("name") or "").strip() or path.stem
    description = one_line(str(meta.get("description") or "")) or first_sentence(body, name)
    if _SLUG.match(name):  # "no-db-mocks" names a file; the title states its rule
        name = (
            stated_rule(description)
            or stated_rule(body)
            or name.replace("_", " ").replace("-", " ")
        )
    default = TYPES.get(memory_type, "convention")
    kind = default if default == "location" else kind_of(name, description, default)
    personal = memory_type == "user" or (
        memory_type in ("", "feedback") and about_the_person(description or name)
    )
    listing.entries.append(
        MemoryEntry(
            path.name, path.name, one_line(name, 200), description, body, kind,
            text_sha256(text), personal,
        )
    )  # fmt: skip


def _index(path: Path, listing: MemoryListing) -> None:
    """Bullets of ``MEMORY.md`` that point to no memory file are memories themselves."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return
    for line in lines:
        stripped = line.strip()
        if not stripped.startswith(("- ", "* ")) or _LINK_MD.search(stripped):
            continue
        text = stripped[2:].strip()
        if len(text.split()) < 3:
            continue
        title = one_line(text, 120)
        key = f"MEMORY.md#{text_sha256(' '.join(text.split()))[:12]}"
        listing.entries.append(
            MemoryEntry(
                key, "MEMORY.md", title, one_line(text), text, kind_of(title, text),
                text_sha256(text), about_the_person(text),
            )
        )  # fmt: skip


def memory_entries(repo: Path, env: Mapping[str, str] | None = None) -> MemoryListing:
    """This repository's Claude Code memories (see the module docstring)."""
    folder = memory_dir(repo, env)
    listing = MemoryListing(folder if folder.is_dir() else None)
    if listing.store is None:
        return listing
    for path in sorted(folder.glob("*.md")):
        if path.is_symlink() or not path.is_file():
            listing.skip("a symbolic link or not a file")
        elif path.name == "MEMORY.md":
            _index(path, listing)
        else:
            _memory_file(path, listing)
    return listing

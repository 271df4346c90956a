"""Read a note's ``lb_dependencies`` and ``lb_errata`` on the hook path, without YAML.

The note index does not keep these fields, so a hook reads them from the note file of each
note it is about to serve (a handful of small files). lorebook writes both as block
sequences of one-level mappings::

    lb_dependencies:
    - path: src/db/session.py
      sha256: 0c1f...
    - tree: migrations/*.py
      digest: 9ab4...
    lb_errata:
    - text: The flag is --frozen, not --locked.

This module reads exactly that shape (plain, single- and double-quoted scalars). Anything
else (a hand edit in flow style, a literal block) is read by the full YAML parser instead,
so an unusual but valid note costs a slower read, never a wrong answer.
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

KEYS = ("lb_dependencies", "lb_errata")
MAX_HEAD = 64 * 1024


class NoteFields:
    """The two fields of one note file; empty when the file could not be read."""

    __slots__ = ("dependencies", "errata", "readable")

    def __init__(
        self,
        dependencies: list[dict[str, Any]] | None = None,
        errata: list[str] | None = None,
        readable: bool = True,
    ) -> None:
        self.dependencies = dependencies or []
        self.errata = errata or []
        self.readable = readable


class _Unusual(Exception):
    """The frontmatter has a shape this reader does not take on."""


def _scalar(raw: str) -> str:
    raw = raw.strip()
    if raw.startswith("'"):
        if len(raw) < 2 or not raw.endswith("'"):
            raise _Unusual(raw)
        return raw[1:-1].replace("''", "'")
    if raw.startswith('"'):
        try:
            value = json.loads(raw)
        except ValueError:
            raise _Unusual(raw) from None
        if not isinstance(value, str):
            raise _Unusual(raw)
        return value
    if not raw or raw[0] in "[{|>&*!%@`" or " #" in raw:
        raise _Unusual(raw)
    return raw


def _items(lines: list[str]) -> list[dict[str, str]]:
    """Parse ``- k: v`` / ``  k: v`` lines into mappings."""
    items: list[dict[str, str]] = []
    for line in lines:
        if not line.strip():
            continue
        if line.startswith("- "):
            items.append({})
            line = "  " + line[2:]
        if not items or not line.startswith("  ") or line.startswith("   "):
            raise _Unusual(line)
        key, sep, value = line.strip().partition(": ")
        if not sep or not key.isidentifier():
            raise _Unusual(line)
        items[-1][key] = _scalar(value)
    return items


def _light(head: str) -> dict[str, list[dict[str, str]]]:
    found: dict[str, list[dict[str, str]]] = {}
    current: str | None = None
    block: list[str] = []
    for line in [*head.split("\n"), "end:"]:
        if line and not line[0].isspace() and not line.startswith("- "):
            if current is not None:
                found[current] = _items(block)
            key, _, rest = line.partition(":")
            current = key if key in KEYS else None
            if current is not None and rest.strip() not in ("", "[]"):
                raise _Unusual(line)
            block = []
        elif current is not None:
            block.append(line)
    return found


def _full(head: str) -> dict[str, Any]:
    from lorebook.kb import frontmatter

    data, _ = frontmatter.split(f"---\n{head}\n---\n")
    return data


def _frontmatter(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            text = handle.read(MAX_HEAD)
    except (OSError, UnicodeDecodeError):
        return None
    text = text.replace("\r\n", "\n").lstrip("\ufeff")
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---\n", 3)
    if end == -1:
        end = text.find("\n---", 3)
        if end == -1 or end + 4 != len(text):
            return None
    return text[4:end]


def _errata(raw: object) -> list[str]:
    if not isinstance(raw, list):
        return []
    out = []
    for item in raw:
        text = item.get("text") if isinstance(item, dict) else None
        if isinstance(text, str) and text.strip():
            out.append(text.strip())
    return out


def read_fields(path: str) -> NoteFields:
    """The dependencies and errata the note file at ``path`` declares."""
    head = _frontmatter(path)
    if head is None:
        return NoteFields(readable=False)
    data: dict[str, Any]
    if not any(f"\n{key}:" in f"\n{head}" for key in KEYS):
        return NoteFields()
    try:
        data = dict(_light(head))
    except _Unusual:
        try:
            data = _full(head)
        except Exception:  # an invalid note is lint's business; it declares nothing usable
            return NoteFields(readable=False)
    deps = data.get("lb_dependencies")
    dependencies = [d for d in deps if isinstance(d, dict)] if isinstance(deps, list) else []
    return NoteFields(dependencies, _errata(data.get("lb_errata")))


def note_file(nodes: str, rel: str) -> str:
    """The file of the note at ``rel`` (POSIX, relative to ``nodes``)."""
    return os.path.join(nodes, *rel.split("/"))

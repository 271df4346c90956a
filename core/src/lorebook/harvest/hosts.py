"""The hosts' own memories, as they lie on disk, read into entries for harvest.

**Claude Code** keeps an auto memory per project: ``<config dir>/projects/<slug>/memory/``,
where the config dir is ``$CLAUDE_CONFIG_DIR`` (else ``~/.claude``), the slug is the
repository's absolute path with every character other than a letter or digit as ``-``
(the importers look for the spelling with only ``/`` replaced too), and
``autoMemoryDirectory`` in the user's ``settings.json`` moves it. Each ``*.md`` file but
``MEMORY.md`` is one memory, with front matter ``name``, ``description`` and ``type``
(``user``, ``feedback``, ``project``, ``reference``). ``MEMORY.md`` is the index; a bullet of
it that links to no memory file is a memory of its own (older releases wrote memories there).
Auto memory is on unless ``CLAUDE_CODE_DISABLE_AUTO_MEMORY`` is set or ``autoMemoryEnabled``
is false in the user's or the project's settings.

**Codex** keeps one global store, ``$CODEX_HOME/memories/`` (``~/.codex`` by default), on
when ``config.toml`` has ``memories = true`` under ``[features]``. Its handbook
``MEMORY.md`` is a list of ``# Task Group:`` blocks whose ``applies_to: cwd=...`` line
(and the ``cwd=`` of the rollouts they cite) say which working directory they come from; a
block counts for this repository when one of those directories is the repository or inside
it; a block naming none is global: its user preferences are the person's (``personal``),
the rest is left out. Each bullet under a block's ``## User preferences``, ``## Reusable
knowledge`` and ``## Failures and how to do differently`` is one memory. The generated
summaries and raw inputs beside it are not read.

**About the person:** a ``user`` memory, and a feedback memory, index bullet or Codex
bullet whose subject is the person and whose verb says what they prefer or are ("The user
prefers terse answers", "The user's name is Ada") without naming anything of the project
(code in backticks, a path, a file name, "this repository"), is marked ``personal``:
harvest puts it in the person's own store, not the team's (:func:`about_the_person`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from lorebook.bootstrap.drafts import guess_kind
from lorebook.bootstrap.sections import clip_line, first_sentence
from lorebook.evaluation.lenient import split_lenient
from lorebook.models.note import NoteKind
from lorebook.slug import slugify

Host = Literal["claude", "codex"]
HOSTS: tuple[Host, ...] = ("claude", "codex")

_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]")
_LINK_MD = re.compile(r"\]\(([^)]+\.md)\)")
_TASK_REFS = re.compile(r"(\s*\[Task \d+\])+\s*$")
_CWD = re.compile(r"cwd=([^;,)\s]+)")
CODEX_SECTIONS: dict[str, NoteKind] = {
    "user preferences": "convention",
    "reusable knowledge": "convention",
    "failures and how to do differently": "gotcha",
}
CLAUDE_TYPES: dict[str, NoteKind] = {
    "feedback": "convention",
    "project": "decision",
    "reference": "location",
}


@dataclass(frozen=True, slots=True)
class MemoryEntry:
    """One memory of a host's store.

    Attributes:
        key: Its identity within the store (a file name, or a handbook bullet).
        slot: Where it sits; an entry that vanished from a slot while a new one appeared
            there was edited (a Claude memory's slot is its file, so it never moves).
        title: Its claim's title.
        description: One line saying what it says.
        text: What it says.
        kind: The note kind it reads as.
        sha256: Of its text as stored.
        personal: It is about the person, not the project (see the module docstring).
    """

    key: str
    slot: str
    title: str
    description: str
    text: str
    kind: NoteKind
    sha256: str
    personal: bool = False


@dataclass(slots=True)
class Listing:
    """A store's entries for one repository, and what was left out and why."""

    store: Path | None
    entries: list[MemoryEntry] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def skip(self, why: str) -> None:
        """Count one entry left out for ``why``."""
        self.skipped[why] = self.skipped.get(why, 0) + 1


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _env(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if env is None else env


# --- Claude Code ------------------------------------------------------------------------


def claude_config_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$CLAUDE_CONFIG_DIR``, else ``~/.claude`` (as the Claude importer reads it)."""
    value = _env(env).get("CLAUDE_CONFIG_DIR")
    return Path(value).expanduser() if value else Path.home() / ".claude"


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def claude_memory_dir(repo: Path, env: Mapping[str, str] | None = None) -> Path:
    """The folder Claude Code keeps this repository's auto memory in (it may not exist)."""
    config = claude_config_dir(env)
    moved = _read_json(config / "settings.json").get("autoMemoryDirectory")
    if isinstance(moved, str) and moved.strip():
        return Path(moved).expanduser()
    root = repo.resolve()
    spellings = [_NOT_ALNUM.sub("-", str(root)), str(root).replace("/", "-").replace("\\", "-")]
    for slug in spellings:
        if (config / "projects" / slug / "memory").is_dir():
            return config / "projects" / slug / "memory"
    return config / "projects" / spellings[0] / "memory"


def claude_memory_on(repo: Path, env: Mapping[str, str] | None = None) -> bool:
    """Whether Claude Code's auto memory is on for this repository."""
    if _env(env).get("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "").strip() not in ("", "0", "false"):
        return False
    for settings in (
        claude_config_dir(env) / "settings.json",
        repo / ".claude" / "settings.json",
        repo / ".claude" / "settings.local.json",
    ):
        if _read_json(settings).get("autoMemoryEnabled") is False:
            return False
    return True


_PERSON = re.compile(
    r"^(?:the\s+|this\s+)?(?:user|developer|person)(?:'s\b|\s+preferences?\b|\s+"
    r"(?:(?:always|usually|generally|strongly|really)\s+)?(?:prefers|likes|dislikes|"
    r"wants|hates|loves|is|has|works|speaks|uses|goes\s+by)\b)"
    r"|^I\s+(?:(?:always|usually|really)\s+)?(?:prefer|like|dislike|want|hate|love|am)\b",
    re.IGNORECASE,
)
"""A sentence whose subject is the person and whose verb says what they prefer or are."""
_OF_THE_PROJECT = re.compile(
    r"`|\w/\w|\b\w+\.(?:py|ts|tsx|js|jsx|md|toml|json|ya?ml|go|rs|java|rb|sh|sql|cfg|ini)\b"
    r"|\b(?:this|the|our)\s+(?:repo|repository|project|codebase|code\s+base|service|"
    r"package|app|monorepo)\b",
    re.IGNORECASE,
)
"""What names something of the project: code, a path, a file, "this repository"."""


def about_the_person(text: str) -> bool:
    """Whether a memory is about the person rather than the project.

    >>> about_the_person("The user prefers terse answers.")
    True
    >>> about_the_person("The user wants the tests run with `tox` in this repository.")
    False
    >>> about_the_person("The staging database is reset every night.")
    False
    """
    text = " ".join(text.split()).lstrip("*_ ")
    return bool(_PERSON.match(text)) and not _OF_THE_PROJECT.search(text)


_SLUG = re.compile(r"^[a-z0-9]+(?:[-_][a-z0-9]+)+$")
"""A memory named like a file (``no-db-mocks``), not with a sentence."""


def _claude_file(path: Path, listing: Listing) -> None:
    try:
        text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
    except (OSError, UnicodeDecodeError) as exc:
        listing.problems.append(f"{path.name}: cannot be read ({exc})")
        return
    meta, body = split_lenient(text)
    memory_type = str(meta.get("type") or "").strip().lower()
    body = body.strip()
    if not body:
        listing.skip("empty")
        return
    name = str(meta.get("name") or "").strip() or path.stem
    description = clip_line(str(meta.get("description") or "")) or first_sentence(body, name)
    if _SLUG.match(name):  # "no-db-mocks" names a file; the title states its rule
        from lorebook.extract.statement import state_rule

        name = (
            state_rule(description) or state_rule(body) or name.replace("_", " ").replace("-", " ")
        )
    default = CLAUDE_TYPES.get(memory_type, "convention")
    kind = default if default == "location" else guess_kind(name, description, default)
    personal = memory_type == "user" or (
        memory_type in ("", "feedback") and about_the_person(description or name)
    )
    listing.entries.append(
        MemoryEntry(
            path.name, path.name, clip_line(name, 200), description, body, kind, _sha(text),
            personal,
        )
    )  # fmt: skip


def _claude_index(path: Path, listing: Listing) -> None:
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
        title = clip_line(text, 120)
        key = f"MEMORY.md#{_sha(' '.join(text.split()))[:12]}"
        kind = guess_kind(title, text)
        listing.entries.append(
            MemoryEntry(
                key, "MEMORY.md", title, clip_line(text), text, kind, _sha(text),
                about_the_person(text),
            )
        )  # fmt: skip


def claude_entries(repo: Path, env: Mapping[str, str] | None = None) -> Listing:
    """This repository's Claude Code memories (see the module docstring)."""
    folder = claude_memory_dir(repo, env)
    listing = Listing(folder if folder.is_dir() else None)
    if listing.store is None:
        return listing
    for path in sorted(folder.glob("*.md")):
        if path.is_symlink() or not path.is_file():
            listing.skip("a symbolic link or not a file")
        elif path.name == "MEMORY.md":
            _claude_index(path, listing)
        else:
            _claude_file(path, listing)
    return listing


# --- Codex ------------------------------------------------------------------------------


def codex_home(env: Mapping[str, str] | None = None) -> Path:
    """``$CODEX_HOME``, else ``~/.codex`` (as the Codex importer reads it)."""
    value = _env(env).get("CODEX_HOME")
    return Path(value).expanduser() if value else Path.home() / ".codex"


def codex_memory_on(env: Mapping[str, str] | None = None) -> bool:
    """Whether Codex memories are on (``[features] memories = true`` in ``config.toml``)."""
    import tomllib

    try:
        data = tomllib.loads((codex_home(env) / "config.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    features = data.get("features")
    return isinstance(features, dict) and features.get("memories") is True


@dataclass(slots=True)
class _Block:
    group: str
    cwds: list[str] = field(default_factory=list)
    sections: dict[str, list[list[str]]] = field(default_factory=dict)
    current: str | None = None


def _codex_blocks(text: str) -> list[_Block]:
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
            block.current = name if name in CODEX_SECTIONS else None
        elif block.current is not None and line.startswith("- "):
            block.sections.setdefault(block.current, []).append([line[2:].strip()])
        elif (
            block.current is not None
            and line.startswith("  ")
            and block.sections.get(block.current)
        ):
            block.sections[block.current][-1].append(line.strip())
    return blocks


def _codex_entry(block: _Block, section: str, lines: list[str]) -> MemoryEntry:
    text = _TASK_REFS.sub("", " ".join(" ".join(lines).split()))
    slot = f"{slugify(block.group) or 'group'}/{slugify(section)}"
    title = clip_line(re.split(r"\s+->\s+|:\s", text, maxsplit=1)[0], 120)
    kind = guess_kind(title, text, CODEX_SECTIONS[section])
    key = f"MEMORY.md#{slot}/{_sha(text)[:12]}"
    personal = about_the_person(text)
    return MemoryEntry(key, slot, title, clip_line(text), text, kind, _sha(text), personal)


def codex_entries(repo: Path, env: Mapping[str, str] | None = None) -> Listing:
    """This repository's Codex memories (see the module docstring)."""
    from lorebook.hostkit.history import ran_inside

    handbook = codex_home(env) / "memories" / "MEMORY.md"
    listing = Listing(handbook.parent if handbook.is_file() else None)
    if listing.store is None:
        return listing
    try:
        text = handbook.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        listing.problems.append(f"{handbook.name}: cannot be read ({exc})")
        return listing
    for block in _codex_blocks(text):
        bullets = [(s, lines) for s, items in block.sections.items() for lines in items]
        if not block.cwds:
            for section, lines in bullets:
                if section == "user preferences":  # the person's, wherever they work
                    listing.entries.append(
                        replace(_codex_entry(block, section, lines), personal=True)
                    )
                else:
                    listing.skip("global (names no working directory)")
        elif not any(ran_inside(cwd, repo) for cwd in block.cwds):
            for _ in bullets:
                listing.skip("another working directory")
        else:
            listing.entries += [_codex_entry(block, s, lines) for s, lines in bullets]
    return listing


def list_entries(host: Host, repo: Path, env: Mapping[str, str] | None = None) -> Listing:
    """The memories ``host`` keeps for ``repo``."""
    return claude_entries(repo, env) if host == "claude" else codex_entries(repo, env)


def memory_on(host: Host, repo: Path, env: Mapping[str, str] | None = None) -> bool:
    """Whether ``host``'s own memory is on for ``repo``."""
    return claude_memory_on(repo, env) if host == "claude" else codex_memory_on(env)


def store_location(host: Host, repo: Path, env: Mapping[str, str] | None = None) -> Path:
    """Where ``host`` keeps (or would keep) its memories for ``repo``."""
    if host == "claude":
        return claude_memory_dir(repo, env)
    return codex_home(env) / "memories"

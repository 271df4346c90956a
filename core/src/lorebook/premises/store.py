"""The premise store: plain files under ``.lorebook/premises/``, reviewed in git like notes.

``.lorebook/premises/<context>/<source>.yaml`` holds one source: the notes or files it cites,
its facts and its rules, in the syntax of :mod:`lorebook.premises.model`. A context is a
folder (``main`` unless one is named): it isolates an experiment, and asking in one context
never reads another. Recording a source replaces its whole bundle; retracting removes the
file. Every change appends one line with its payload (the bundle recorded, or the one
removed) to ``<context>/events.jsonl`` (committed; git's ``union`` merge keeps both branches'
lines), so a replaced or retracted bundle can be read back.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from lorebook import appendlog
from lorebook.errors import LorebookError
from lorebook.kb import safeyaml
from lorebook.kb.fsutil import atomic_write_text, kb_lock
from lorebook.kb.paths import KBPaths
from lorebook.premises.kernel import SourceBundle
from lorebook.premises.model import PremiseSyntaxError, parse_atom, parse_rule

DEFAULT_CONTEXT = "main"
MAX_PER_SOURCE = 500
"""Facts and rules one source may hold."""
MAX_SOURCES = 2_000
"""Sources one context may hold."""
MAX_FILE_BYTES = 256 * 1024
EVENTS = "events.jsonl"
HEADER = (
    "# A premise source of lorebook: facts and rules of one source, with what it cites.\n"
    "# Written by `lorebook premise record`; reviewed in git like notes.\n"
)
_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,79}")


def premises_root(paths: KBPaths) -> Path:
    """``.lorebook/premises/``."""
    return paths.root / "premises"


def check_name(value: str, what: str) -> str:
    """``value`` when it is a source or context name (lowercase letters, digits, ``._-``).

    Raises:
        LorebookError: it is not.
    """
    if not _NAME.fullmatch(value) or ".." in value:
        raise LorebookError(
            f"{what} {value!r} is not a name: use lowercase letters, digits, '.', '_' and '-' "
            "(at most 80 characters, starting with a letter or digit)"
        )
    return value


def context_dir(paths: KBPaths, context: str) -> Path:
    """The folder of ``context``."""
    return premises_root(paths) / check_name(context, "context")


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A source as written on disk (the strings a person reviews)."""

    id: str
    facts: tuple[str, ...]
    rules: tuple[str, ...]
    cites: tuple[str, ...]

    def bundle(self, where: str) -> SourceBundle:
        """Parse every fact and rule.

        Raises:
            PremiseSyntaxError: one does not parse (the message names ``where``).
        """
        try:
            return SourceBundle(
                self.id,
                tuple(parse_atom(f) for f in self.facts),
                tuple(parse_rule(r) for r in self.rules),
                self.cites,
            )
        except PremiseSyntaxError as exc:
            raise PremiseSyntaxError(f"{where}: {exc.message}") from None

    def payload(self) -> dict[str, Any]:
        """The fields as JSON."""
        return {"cites": list(self.cites), "facts": list(self.facts), "rules": list(self.rules)}


def make_source(source: str, facts: list[str], rules: list[str], cites: list[str]) -> SourceFile:
    """A source checked before anything is written.

    Raises:
        LorebookError: the name is invalid, it says nothing, holds too much, or a fact or
            rule does not parse (the message quotes it).
    """
    check_name(source, "source")
    if not facts and not rules:
        raise LorebookError(f"source {source!r} has no fact and no rule (give --fact or --rule)")
    if len(facts) + len(rules) > MAX_PER_SOURCE:
        raise LorebookError(
            f"source {source!r} holds {len(facts) + len(rules)} facts and rules; "
            f"at most {MAX_PER_SOURCE}"
        )
    from lorebook.curate.gate import text_secrets

    if where := text_secrets("\n".join([*facts, *rules, *cites])):  # before any message quotes one
        raise LorebookError(
            f"source {source!r}: {where} of its facts, rules and cites hold what looks like a "
            "secret; nothing was recorded",
            hint="a premise names a thing, never a password, token or key",
        )
    made = SourceFile(
        source,
        tuple(f.strip() for f in facts),
        tuple(r.strip() for r in rules),
        tuple(c.strip() for c in cites if c.strip()),
    )
    made.bundle(f"source {source!r}")
    return made


def _string_list(data: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = data.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise LorebookError(f"{where}: '{key}' is not a list of strings")
    return tuple(value)


def read_source(path: Path, rel: str) -> SourceFile:
    """One source file.

    Raises:
        LorebookError: unreadable, not YAML, or a field of the wrong shape (naming ``rel``).
    """
    try:
        text = path.read_text(encoding="utf-8")
        data = safeyaml.load(text, max_bytes=MAX_FILE_BYTES)
    except (OSError, UnicodeDecodeError, yaml.YAMLError, LorebookError) as exc:
        reason = exc.message if isinstance(exc, LorebookError) else str(exc).splitlines()[0]
        raise LorebookError(f"{rel}: cannot be read: {reason}") from None
    if not isinstance(data, dict):
        raise LorebookError(f"{rel}: not a mapping of source, cites, facts and rules")
    unknown = sorted(set(data) - {"source", "cites", "facts", "rules"})
    if unknown:
        raise LorebookError(f"{rel}: unknown field(s) {', '.join(map(repr, unknown))}")
    if data.get("source") != path.stem:
        raise LorebookError(f"{rel}: 'source' is {data.get('source')!r}, not its file name")
    return SourceFile(
        path.stem,
        _string_list(data, "facts", rel),
        _string_list(data, "rules", rel),
        _string_list(data, "cites", rel),
    )


def load_context(paths: KBPaths, context: str) -> list[SourceFile]:
    """Every source of ``context``, by name (an absent context has none).

    Raises:
        LorebookError: a source file cannot be read.
    """
    folder = context_dir(paths, context)
    if not folder.is_dir():
        return []
    found = [
        read_source(path, paths.rel(path))
        for path in sorted(folder.glob("*.yaml"))
        if _NAME.fullmatch(path.stem)
    ]
    if len(found) > MAX_SOURCES:
        raise LorebookError(
            f"{paths.rel(folder)} holds {len(found)} sources; a context holds at most {MAX_SOURCES}"
        )
    return found


def bundles(paths: KBPaths, context: str) -> list[SourceBundle]:
    """The parsed sources of ``context``.

    Raises:
        LorebookError: a source cannot be read or parsed (naming its file).
    """
    return [
        source.bundle(paths.rel(context_dir(paths, context) / f"{source.id}.yaml"))
        for source in load_context(paths, context)
    ]


def contexts(paths: KBPaths) -> list[str]:
    """The contexts that exist."""
    root = premises_root(paths)
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if p.is_dir() and _NAME.fullmatch(p.name))


def _log(paths: KBPaths, context: str, action: str, source: str, payload: Any) -> None:
    line = {
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "action": action,
        "context": context,
        "source": source,
        "payload": payload,
    }
    where = context_dir(paths, context) / EVENTS
    if not appendlog.append(str(where), (json.dumps(line, sort_keys=True) + "\n").encode()):
        raise LorebookError(f"cannot append to {paths.rel(where)}")


def render(source: SourceFile) -> str:
    """The file text of ``source``."""
    data = {"source": source.id, **source.payload()}
    return HEADER + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def record(paths: KBPaths, source: SourceFile, context: str = DEFAULT_CONTEXT) -> str:
    """Write ``source`` (replacing its bundle), log it; returns ``replace`` or ``insert``.

    Raises:
        LorebookError: the context is full, or a write failed (nothing changed then).
    """
    folder = context_dir(paths, context)
    path = folder / f"{source.id}.yaml"
    with kb_lock(paths.state / "premises.lock"):
        existing = path.exists()
        if not existing and len(load_context(paths, context)) >= MAX_SOURCES:
            raise LorebookError(f"context {context!r} holds {MAX_SOURCES} sources already")
        folder.mkdir(parents=True, exist_ok=True)
        action = "replace" if existing else "insert"
        _log(paths, context, action, source.id, source.payload())
        atomic_write_text(path, render(source))
    return action


def retract(paths: KBPaths, source: str, context: str = DEFAULT_CONTEXT) -> None:
    """Remove a source, logging the bundle it held.

    Raises:
        LorebookError: there is no such source.
    """
    path = context_dir(paths, context) / f"{check_name(source, 'source')}.yaml"
    with kb_lock(paths.state / "premises.lock"):
        if not path.is_file():
            raise LorebookError(f"no premise source {source!r} in context {context!r}")
        old = read_source(path, paths.rel(path))
        _log(paths, context, "retract", source, old.payload())
        path.unlink()


__all__ = [
    "DEFAULT_CONTEXT",
    "EVENTS",
    "MAX_PER_SOURCE",
    "MAX_SOURCES",
    "SourceFile",
    "bundles",
    "check_name",
    "context_dir",
    "contexts",
    "load_context",
    "make_source",
    "premises_root",
    "read_source",
    "record",
    "render",
    "retract",
]

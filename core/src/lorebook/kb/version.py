"""The format version a knowledge base is at on disk, read without YAML or pydantic.

The version is ``lb_schema`` in ``config.yaml`` (the knowledge base's) and in every note
(each note's own). ``config.yaml`` holds the one that gates readers: ``lorebook migrate
run`` rewrites it last, after every note, so a run cut short leaves the knowledge base
at its old version and every reader keeps refusing it. It is read here with a
line match, cheap enough for the hooks: ``lorebook`` itself always writes the key as
``lb_schema: <n>`` on a line of its own.
"""

from __future__ import annotations

import os
import re

from lorebook.constants import SCHEMA_VERSION

_LINE = re.compile(r"^lb_schema:[ \t]*['\"]?([0-9]{1,6})['\"]?[ \t]*(?:#.*)?$", re.MULTILINE)
MIGRATE_COMMAND = "lorebook migrate run"


def config_version(kb_root: str) -> int | None:
    """``lb_schema`` of ``<kb_root>/config.yaml``; None when the file or the key is absent.

    A config without the key was not written by lorebook (every version writes it); the
    notes' own ``lb_schema`` then decides, note by note.
    """
    try:
        with open(os.path.join(kb_root, "config.yaml"), encoding="utf-8") as handle:
            text = handle.read(64 * 1024)
    except (OSError, ValueError):
        return None
    found = _LINE.search(text)
    return int(found.group(1)) if found else None


def outdated_message(version: int) -> str:
    """The one line every reader gives for a knowledge base at an older version."""
    return (
        f".lorebook/ is at format version {version} and this lorebook reads version "
        f"{SCHEMA_VERSION}: run `{MIGRATE_COMMAND}` (`lorebook migrate status` lists the steps)"
    )


def newer_message(version: int) -> str:
    """The one line for a knowledge base written by a newer lorebook."""
    return (
        f".lorebook/ is at format version {version}, newer than this lorebook reads "
        f"({SCHEMA_VERSION}): upgrade lorebook"
    )


def version_problem(kb_root: str) -> str | None:
    """Why a reader must not read this knowledge base (one line), or None when it may."""
    version = config_version(kb_root)
    if version is None or version == SCHEMA_VERSION:
        return None
    return outdated_message(version) if version < SCHEMA_VERSION else newer_message(version)

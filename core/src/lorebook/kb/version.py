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

from lorebook.constants import SCHEMA_VERSION

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
    at = text.find("lb_schema:")  # no regular expression: it would cost a cold hook 0.2 ms
    while at > 0 and text[at - 1] != "\n":
        at = text.find("lb_schema:", at + 1)
    if at == -1:
        return None
    value = text[at + len("lb_schema:") :].split("\n", 1)[0].split("#", 1)[0].strip()
    value = value.strip("'\"")
    return int(value) if value.isdigit() and len(value) <= 6 else None


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

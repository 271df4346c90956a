"""What ``lorebook note`` says when it cannot do what it was asked, in the user's terms."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from lorebook.errors import UsageError

if TYPE_CHECKING:
    from pydantic import ValidationError

    from lorebook.kb.paths import KBPaths

_OPTIONS = {
    "type": "--type", "title": "--title", "description": "--description", "tags": "--tag",
    "lb_id": "--id", "lb_kind": "--kind", "lb_confidence": "--confidence",
    "lb_enforce": "--enforce", "lb_derived_from": "--derived-from",
    "lb_relates_to": "--relates-to", "lb_depends_on": "--depends-on", "body": "--body",
}  # fmt: skip
"""The option of ``note add`` that gives each field, for its errors."""


def usage_error(exc: ValidationError) -> UsageError:
    """The first bad option, named as typed, with a close value as the hint.

    ``--kind prohibiton`` gets "did you mean 'prohibition'?".
    """
    import difflib

    from lorebook.models.messages import explain

    err = exc.errors()[0]
    field = str(err["loc"][0]) if err["loc"] else ""
    option = _OPTIONS.get(field, f"field {field!r}")
    got = err.get("input")
    allowed = re.findall(r"'([^']+)'", str((err.get("ctx") or {}).get("expected", "")))
    close = difflib.get_close_matches(str(got), allowed, n=1) if allowed else []
    hint = f"did you mean {close[0]!r}?" if close else None
    shown = "" if isinstance(got, dict | list) else f" (got {got!r})"
    return UsageError(f"note add: {option}: {explain(err)}{shown}", hint=hint)


def misnamed(paths: KBPaths, note_id: str) -> str | None:
    """Where a file whose lb_id is ``note_id`` but whose name is not lives, if one does."""
    from lorebook.kb.store import load_snapshot

    for stored in load_snapshot(paths).mismatched:
        if stored.note.id == note_id:
            where = f"{paths.rel(paths.nodes)}/{stored.path.as_posix()}"
            return (
                f"{where} has lb_id {note_id!r} but another file name; a note's file is "
                f"named after its id: rename it to {note_id}.md, or set its lb_id to "
                f"{stored.path.stem!r}"
            )
    return None

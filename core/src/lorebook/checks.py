"""A doctor check, and doctor's checks of the knowledge base's folder on disk.

:mod:`lorebook.doctor` runs every check; the folder's own (links in it, writes to it) are
here beside the type they return.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from lorebook.kb.paths import KBPaths

State = Literal["ok", "warning", "action", "problem"]
"""``action``: a one-time step the user does by hand in the host (trusting Codex's hooks);
lorebook cannot do it, so it does not make doctor fail."""


@dataclass(frozen=True, slots=True)
class Check:
    """One doctor check: what, its state, the detail, and the fix when it is not ok."""

    name: str
    state: State
    detail: str
    fix: str | None = None

    def as_json(self) -> dict[str, Any]:
        """Return the check as a JSON-ready dict."""
        return asdict(self)


def writable_check(paths: KBPaths) -> Check:
    """Whether lorebook can write under ``.lorebook/`` (a read-only mount loses every capture)."""
    import tempfile

    try:
        with tempfile.NamedTemporaryFile(dir=paths.root, prefix=".doctor-", delete=True):
            pass
    except OSError as exc:
        return Check(
            "writable",
            "problem",
            f"{paths.rel(paths.root)} cannot be written ({exc.strerror or exc}): sessions are "
            "not captured, and hooks record nothing of what they gave",
            "make .lorebook/ writable for this user (a read-only mount, or its permissions)",
        )
    return Check("writable", "ok", f"{paths.rel(paths.root)} takes new files")


def links_check(paths: KBPaths) -> Check:
    """Symbolic links under ``.lorebook/``: never followed by a write, but named here."""
    from lorebook.safeopen import links_under

    links = [paths.rel(Path(link)) for link in links_under(str(paths.root))]
    if not links:
        return Check("symbolic links", "ok", "none under the knowledge base")
    shown = ", ".join(links[:10]) + (f" and {len(links) - 10} more" if len(links) > 10 else "")
    return Check(
        "symbolic links",
        "problem",
        f"{shown}: lorebook writes nothing through a link, so what it keeps there "
        "(session state, logs, the index, the warm process's lock) is not written",
        "remove each link (`git rm --cached PATH` if it was committed: a repository has "
        "no reason to commit one under .lorebook/) and run the command again",
    )

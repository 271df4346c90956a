"""The lines a served note carries besides its text: where it lives, recheck, errata.

:mod:`lorebook.inject.render` calls these for every note it renders; a plain indexed note
(``lorebook eval``'s) has none of the attributes a served note adds, and gets its
repository location and no extra line.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from lorebook.recall.index import IndexedNote

KB_PREFIX = ".lorebook/nodes/"


def location(note: IndexedNote) -> str:
    """Where a note lives, as shown to the model (its store says where it came from)."""
    where = getattr(note, "where", None)
    return where if isinstance(where, str) else f"{KB_PREFIX}{note.path}"


def recheck(note: IndexedNote) -> str:
    """The note's "recheck: ..." line ("" for a fresh or plain note)."""
    mark = getattr(note, "mark", "")
    return mark if isinstance(mark, str) else ""


def errata_lines(note: IndexedNote) -> list[str]:
    """The note's errata, each as a line served with it."""
    return [f"erratum (a correction to this note): {t}" for t in getattr(note, "errata", ())]

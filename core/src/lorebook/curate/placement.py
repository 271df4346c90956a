"""Where curation files a new note: in the folder of its kind.

A new note goes to the folder named after its kind (``convention/``, ``prohibition/`` ...),
or to an existing folder *of the same kind* that fits it better. The kind of a folder is:

- the kind its path starts with (``convention/``, ``convention/git/``), so a folder named
  after one kind never receives a note of another;
- otherwise the kind most of the notes directly in it have (more than half): a folder a
  person made (``release/`` holding conventions) stays a home for more of the same;
- otherwise none (a folder of mixed kinds receives no new note).

Among the folders of the note's kind other than the kind's own, the one it shares the most
with wins when the fit reaches :data:`MIN_FOLDER_FIT`; else the kind's own folder. Before
this rule, any folder sharing one tag with a note took it, whatever its kind: that is how
conventions came to be filed in ``prohibition/``.

Notes that exist are never moved: a merge or an accepted rewrite keeps the note where it
lives, wherever a person put it. :func:`place_adds` holds every curator's batch to the same
rule, an LLM's or a plugin's included.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from lorebook.curate.base import KbView, UnusableAction
from lorebook.curate.text import clauses
from lorebook.errors import LorebookError
from lorebook.kb.paths import validate_relpath
from lorebook.models.curation import AddAction, CuratorAction
from lorebook.models.note import Note

KIND_SUMMARIES: dict[str, str] = {
    "convention": "Conventions: how things are done in this project.",
    "prohibition": "Prohibitions: what never to do in this project, and why.",
    "gotcha": "Gotchas: traps in this project and how to avoid them.",
    "decision": "Decisions: choices made for this project, and their reasons.",
    "tooling": "Tooling: which tools and commands to use here, and how.",
    "feature": "Features: what the parts of the system do.",
    "vocabulary": "Vocabulary: what this project's terms mean.",
    "location": "Locations: where things live in the repository.",
}
"""The summary of a folder curation creates for a kind (``FOLDER_SUMMARIES.md``)."""

TAG_WEIGHT = 3
IDENTIFIER_WEIGHT = 2
WORD_WEIGHT = 1
MIN_FOLDER_FIT = 3
"""A new note joins another folder of its kind when it shares at least this much with the
folder's notes: a tag weighs 3, an identifier 2, a word 1 (so one shared tag, or an
identifier and a word, or three words). Below it, the note goes to its kind's own folder."""


def folder_kind(folder: str, notes: Sequence[Note]) -> str | None:
    """The kind of a folder (see the module docstring); None for a mixed one."""
    head = folder.split("/", 1)[0]
    if head in KIND_SUMMARIES:
        return head
    if not notes:
        return None
    kind, count = Counter(note.kind for note in notes).most_common(1)[0]
    return kind if count * 2 > len(notes) else None


def _features(note: Note) -> dict[str, int]:
    """What a note offers for placement: tags, identifiers and words, with their weight."""
    weights: dict[str, int] = {}
    for clause in clauses(f"{note.title}\n{note.description}\n{note.body}"):
        for token in clause:
            if token.term:
                weight = IDENTIFIER_WEIGHT if token.identifier else WORD_WEIGHT
                key = f"w:{token.term}"
                weights[key] = max(weights.get(key, 0), weight)
    for tag in note.tags:
        weights[f"t:{tag}"] = TAG_WEIGHT
    return weights


def folder_fit(note: Note, folder_notes: Sequence[Note]) -> int:
    """How much ``note`` shares with the notes of one folder (see :data:`MIN_FOLDER_FIT`)."""
    mine = _features(note)
    theirs: set[str] = set()
    for other in folder_notes:
        theirs.update(_features(other))
    return sum(weight for key, weight in mine.items() if key in theirs)


def choose_folder(note: Note, folders: Mapping[str, Sequence[Note]]) -> tuple[str, str | None]:
    """The best-fitting other folder of the note's kind, else the kind's own folder.

    Args:
        note: The new note.
        folders: Every existing folder with the notes directly in it.

    Returns:
        (folder, summary): ``summary`` is None unless the folder does not exist yet.
    """
    scored = sorted(
        (-folder_fit(note, notes), folder)
        for folder, notes in folders.items()
        if folder != note.kind and folder_kind(folder, notes) == note.kind
    )
    if scored and -scored[0][0] >= MIN_FOLDER_FIT:
        return scored[0][1], None
    if note.kind in folders:
        return note.kind, None
    return note.kind, KIND_SUMMARIES[note.kind]


def fits_kind(folder: str, note: Note, folders: Mapping[str, Sequence[Note]]) -> bool:
    """True when ``folder`` is of the note's kind (a new folder: when its path says so)."""
    if folder in folders:
        return folder_kind(folder, folders[folder]) == note.kind
    return folder.split("/", 1)[0] == note.kind


def _valid(folder: str) -> bool:
    if not folder:
        return True  # the root: valid, and of no kind
    try:
        validate_relpath(folder, what="folder")
    except LorebookError:
        return False
    return True


def place_adds(
    actions: Sequence[CuratorAction | UnusableAction], view: KbView
) -> list[CuratorAction | UnusableAction]:
    """The batch with every ``add`` filed in a folder of its note's kind.

    An add a curator filed elsewhere (an LLM's "existing folder that fits", a plugin's
    choice) is moved to :func:`choose_folder`'s pick; the other items are kept as they are,
    and so is a folder the path validator refuses (validation then holds that add back).
    Folders the batch creates count for the adds after them. ``view`` is not changed.
    """
    folders = {folder: list(notes) for folder, notes in view.by_folder().items()}
    placed: list[CuratorAction | UnusableAction] = []
    for action in actions:
        if isinstance(action, AddAction):
            if _valid(action.folder) and not fits_kind(action.folder, action.note, folders):
                folder, summary = choose_folder(action.note, folders)
                action = action.model_copy(update={"folder": folder, "folder_summary": summary})
            folders.setdefault(action.folder, []).append(action.note)
        placed.append(action)
    return placed


__all__ = [
    "KIND_SUMMARIES",
    "MIN_FOLDER_FIT",
    "choose_folder",
    "fits_kind",
    "folder_fit",
    "folder_kind",
    "place_adds",
]

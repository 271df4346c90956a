"""What curation checks and records around a note it writes: no secret, and no power yet.

A pending proposal with a field that fails ``lorebook scan`` is refused on its own before
any curator sees it (:func:`refuse_secret_proposals`): it becomes a drop saying which field,
the run warns naming the session, and the session's other proposals curate as usual. A
note whose text (its id, which becomes the file name, its frontmatter or its body), or a
conflict file whose text (the proposal, the rationale, the note it quotes), still fails the
scan is held back before anything is written (:mod:`lorebook.curate.validate`), so a secret
that slipped past capture's redaction cannot become a committed file. Both are scanned as
they would be written, line by line as ``lorebook scan`` reads them. A note curation wrote
is recorded as unreviewed (:mod:`lorebook.reviewstate`) until a person commits or accepts
it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

    from lorebook.kb.store import MarkdownStore
    from lorebook.models.curation import ContradictAction, DropAction
    from lorebook.models.note import Note
    from lorebook.models.session import Proposal

PROPOSAL_FIELDS = (
    "title", "description", "body", "tags", "anchors", "quote", "target_id", "dependencies",
)  # fmt: skip
"""The fields of a proposal that can reach a note or a conflict file, in the order named."""


def text_secrets(text: str) -> str:
    """:func:`lorebook.secrets.redact.text_secrets` (imported when called: ~80 ms)."""
    from lorebook.secrets.redact import text_secrets as scan

    return scan(text)


def note_secrets(note: Note) -> str:
    """:func:`text_secrets` of the note's whole file text, as it would be written."""
    from lorebook.kb.notes import render_note

    return text_secrets(render_note(note, None))


CONFLICT_ID_SHAPE = "0000000000-1"
"""A conflict id of the real ones' shape (``<run>-<n>``), to render a conflict before its run id
is known."""


def conflict_secrets(action: ContradictAction, target: Note | None, target_path: str) -> str:
    """:func:`text_secrets` of the conflict file ``action`` would write, as it would be written.

    Args:
        action: The contradiction.
        target: The note it contradicts, as the batch leaves it (None: missing).
        target_path: Where that note lives, as the file names it.
    """
    from lorebook.curate.conflicts import render_body, render_conflict
    from lorebook.models.curation import Conflict

    conflict = Conflict(
        id=CONFLICT_ID_SHAPE,
        target_id=action.target_id,
        rationale=action.rationale,
        proposal=action.proposal,
    )
    return text_secrets(render_conflict(conflict, render_body(conflict, target, target_path)))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def proposal_secrets(proposal: Proposal) -> list[str]:
    """The fields of ``proposal`` the scan flags: ``body (line 3)``, ``title`` (none: [])."""
    data = proposal.model_dump(mode="json")
    texts = {name: "\n".join(_strings(data.get(name))) for name in PROPOSAL_FIELDS}
    if not text_secrets("\n".join(texts.values())):  # one scan for the usual clean proposal
        return []
    found = []
    for name, text in texts.items():
        where = text_secrets(text)
        if where:
            found.append(f"{name} ({where})" if "\n" in text else name)
    return found


def refuse_secret_proposals(
    proposals: Sequence[Proposal], sessions: Mapping[str, str]
) -> tuple[list[Proposal], list[DropAction], list[str]]:
    """Split off the proposals holding what looks like a secret.

    Args:
        proposals: The pending proposals.
        sessions: Proposal id -> the id of the session whose log holds it.

    Returns:
        The clean proposals; a drop for each refused one (its reason names the fields,
        never the value); one line per refused proposal, naming its session and fields.
    """
    from lorebook.models.curation import DropAction

    kept: list[Proposal] = []
    drops: list[DropAction] = []
    lines: list[str] = []
    for proposal in proposals:
        fields = proposal_secrets(proposal)
        if not fields:
            kept.append(proposal)
            continue
        what = " and ".join(fields)
        drops.append(DropAction(proposal_id=proposal.id, reason=f"refused: its {what} holds "
                                "what looks like a secret"))  # fmt: skip
        session = sessions.get(proposal.id, "?")
        lines.append(
            f"proposal {proposal.id} of session {session} refused: its {what} holds what "
            f"looks like a secret; it will not become a note (`lorebook forget-session "
            f"{session}` erases the session)"
        )
    return kept, drops, lines


def mark_unreviewed(store: MarkdownStore, note_id: str) -> None:
    """Record that no person has reviewed the note curation just wrote."""
    from lorebook.reviewstate import mark

    rel = store.locate(note_id)
    if rel is not None:
        mark(str(store.paths.root), {note_id: rel.as_posix()})

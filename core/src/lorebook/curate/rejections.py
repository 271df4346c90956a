"""What curation does with the rejections ledger (:mod:`lorebook.kb.rejections`).

``lorebook curate`` drops every pending proposal whose claim's fingerprint is in
``.lorebook/rejected-claims.txt`` (:func:`drop_rejected`), so re-importing or re-extracting
a session does not bring a rejected claim back; ``review --reject`` finds the claims of a
rejected note among the staged proposals (:func:`proposals_with_origins`). The ledger's
format, reading and writing live in :mod:`lorebook.kb.rejections` (lint checks the file
without curation) and are exported here as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lorebook.kb.rejections import (
    LEDGER_NAME,
    RejectedClaim,
    fingerprint,
    ledger_path,
    load_ledger,
    normalise_claim,
    parse_ledger,
    record_rejections,
    rejected_fingerprints,
    render_ledger,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from lorebook.kb.paths import KBPaths
    from lorebook.models.curation import DropAction
    from lorebook.models.session import Proposal


def proposals_with_origins(paths: KBPaths, origins: Iterable[str]) -> list[Proposal]:
    """The staged proposals (in ``_sessions/``) whose origin is one of ``origins``.

    A note cites the origins of the proposals it was made from; their claims are what a
    person rejects with it. Unreadable logs are skipped (lint and status report them).
    """
    from pydantic import ValidationError

    from lorebook.capture.stage import load_log

    wanted = set(origins)
    found: list[Proposal] = []
    if not wanted or not paths.sessions.is_dir():
        return found
    for path in sorted(paths.sessions.glob("*.json")):
        try:
            log = load_log(path)
        except (OSError, ValueError, ValidationError):
            continue
        if log is not None:
            found += [p for p in log.proposals if p.origin in wanted]
    return found


def drop_rejected(
    paths: KBPaths, proposals: Sequence[Proposal]
) -> tuple[list[Proposal], list[DropAction]]:
    """Split ``proposals`` into those still to judge and drops of the rejected ones.

    Raises:
        NoteFormatError: the ledger is malformed (curation then writes nothing).
    """
    from lorebook.models.curation import DropAction

    rejected = rejected_fingerprints(paths)
    label = paths.rel(ledger_path(paths))
    fresh: list[Proposal] = []
    drops: list[DropAction] = []
    for proposal in proposals:
        claim = fingerprint(proposal.title, proposal.description)
        if claim not in rejected:
            fresh.append(proposal)
            continue
        reason = (
            f"rejected before: its claim's fingerprint {claim} is in {label} "
            f"({', '.join(rejected[claim])})"
        )
        drops.append(DropAction(proposal_id=proposal.id, reason=reason))
    return fresh, drops


__all__ = [
    "LEDGER_NAME",
    "RejectedClaim",
    "drop_rejected",
    "fingerprint",
    "ledger_path",
    "load_ledger",
    "normalise_claim",
    "parse_ledger",
    "proposals_with_origins",
    "record_rejections",
    "rejected_fingerprints",
    "render_ledger",
]

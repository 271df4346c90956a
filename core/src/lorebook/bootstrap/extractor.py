"""Bootstrap through an extractor provider (``lorebook bootstrap --extractor NAME``).

The provider receives the document as a session log whose turns are its sections (one turn
per section, role ``user``: a person wrote them) and returns proposals, exactly as it does
for a captured session. Each proposal must quote its section (whitespace normalised); one
that quotes none is left out. A kept proposal cites the section it quotes, keeps that
section's file anchors and names the note an earlier text of it became, so provenance and
resumption work as without a provider.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lorebook.bootstrap.drafts import Draft
from lorebook.extract.base import ExtractionRequest, normalise
from lorebook.models.session import LoggedTurn, SessionLog

if TYPE_CHECKING:
    from lorebook.kb.paths import KBPaths
    from lorebook.models.config import Config
    from lorebook.models.session import Proposal
    from lorebook.plugins import Plugins


def _section_of(proposal: Proposal, drafts: Sequence[Draft]) -> Draft | None:
    wanted = normalise(proposal.quote)
    if not wanted:
        return None
    return next((d for d in drafts if wanted in normalise(d.text)), None)


def _as_draft(proposal: Proposal, section: Draft) -> Draft:
    files = tuple(dict.fromkeys([*section.files, *proposal.anchors.files]))
    return Draft(
        origin=section.origin,
        title=proposal.title,
        description=proposal.description,
        text=section.text,
        kind=proposal.kind,
        files=files,
        tags=tuple(dict.fromkeys([*section.tags, *proposal.tags])),
        target_id=proposal.target_id or section.target_id,
        body=proposal.body.strip() or None,
        quote=proposal.quote,
    )


def through_extractor(
    paths: KBPaths, config: Config, plugins: Plugins | None, name: str, drafts: Sequence[Draft]
) -> list[Draft]:
    """The drafts the provider ``name`` makes of the sections in ``drafts``.

    Raises:
        LorebookError: the provider is unknown, cannot be built, or fails.
    """
    import anyio

    from lorebook.extract.run import build_extractor

    if plugins is None:
        from lorebook.plugins import get_plugins

        plugins = get_plugins()
    extractor = build_extractor(
        plugins.extractor(name), config=config, paths=paths, plugins=plugins
    )
    turns = [LoggedTurn(index=n, role="user", text=d.text) for n, d in enumerate(drafts)]
    log = SessionLog(
        harness="bootstrap",
        session_id=drafts[0].origin.split("#", 1)[0],
        origin=f"bootstrap:{drafts[0].origin.split('#', 1)[0]}",
        transcript_hash="",
        transcript_length=sum(len(t.text) for t in turns),
        turns=turns,
    )
    request = ExtractionRequest(log=log, turns=turns)
    proposals = anyio.run(extractor.extract, request)
    kept = []
    for proposal in proposals:
        section = _section_of(proposal, drafts)
        if section is not None:
            kept.append(_as_draft(proposal, section))
    return kept

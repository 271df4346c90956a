"""Score proposals against labelled sessions (kenkeep's prompt-eval format), by a proxy.

A labelled session comes with an expected file: ``expected_points`` (each an ``id``, a
``claim``, ``required_facets`` and maybe ``forbidden_substrings``), ``expect_empty`` and
``max_unexpected_proposals``. Whether a proposal states every required facet of a point is a
judgment for a person or an LLM judge. This module uses a **deterministic proxy** for it,
and says so wherever it reports: a point is matched by a proposal

- whose quote occurs in a human (``user``) turn of that session, whitespace normalised, and
- whose text (title, description, body, tags) contains every code identifier of the
  point's claim: backticked spans, snake_case and camelCase tokens, case-insensitively.

Points and proposals are matched one to one (a maximum bipartite matching); a proposal left
unmatched is *unexpected*. A forbidden substring is searched, case-insensitively, in every
field of every proposal of the session, quote included.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lorebook.datafile import read_yaml
from lorebook.extract.base import ExtractionRequest, Extractor, normalise
from lorebook.extractors.terms import code_identifiers
from lorebook.importers.kenkeep import import_kenkeep
from lorebook.models.session import Proposal, SessionLog

MAX_EXPECTED_BYTES = 1024 * 1024
"""An expected file larger than this is refused unparsed."""


@dataclass(frozen=True, slots=True)
class ExpectedPoint:
    """One piece of knowledge a session should yield."""

    id: str
    claim: str
    preferred_type: str | None
    facets: tuple[str, ...]
    forbidden: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Expectation:
    """What one labelled session should (and should not) yield."""

    fixture_id: str
    category: str
    expect_empty: bool
    points: tuple[ExpectedPoint, ...]
    max_unexpected: int


@dataclass(frozen=True, slots=True)
class SessionScore:
    """How a session's proposals fare against its expectation."""

    fixture_id: str
    proposals: int
    points: int
    matched: tuple[str, ...]
    unexpected: int
    forbidden_hits: tuple[str, ...]
    max_unexpected: int
    expect_empty: bool

    @property
    def passed(self) -> bool:
        """Nothing forbidden, no more unexpected proposals than allowed, empty when expected."""
        empty_ok = not self.expect_empty or self.proposals == 0
        return empty_ok and not self.forbidden_hits and self.unexpected <= self.max_unexpected


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(item) for item in value or ())


def load_expectation(path: Path) -> Expectation:
    """Read one expected file (YAML, through :func:`lorebook.datafile.read_yaml`).

    Raises:
        DataFileError: over :data:`MAX_EXPECTED_BYTES`, an alias, too deep, or not YAML.
    """
    data = read_yaml(path, max_bytes=MAX_EXPECTED_BYTES) or {}
    points = tuple(
        ExpectedPoint(
            id=str(point["id"]),
            claim=str(point.get("claim", "")),
            preferred_type=point.get("preferred_type"),
            facets=tuple(str(f.get("criterion", "")) for f in point.get("required_facets") or ()),
            forbidden=_strings(point.get("forbidden_substrings")),
        )
        for point in data.get("expected_points") or ()
    )
    return Expectation(
        fixture_id=str(data.get("fixture_id", path.stem)),
        category=str(data.get("category", "")),
        expect_empty=bool(data.get("expect_empty", False)),
        points=points,
        max_unexpected=int(data.get("max_unexpected_proposals", 0)),
    )


def claim_identifiers(claim: str) -> list[str]:
    """The code identifiers a matching proposal must contain, lower-cased."""
    return [identifier.lower() for identifier in code_identifiers(claim)]


def proposal_text(proposal: Proposal) -> str:
    """The text the proxy searches: title, description, body and tags, lower-cased."""
    parts = [proposal.title, proposal.description, proposal.body, *proposal.tags]
    return "\n".join(parts).lower()


def quote_in_human_turn(quote: str, log: SessionLog) -> bool:
    """True when ``quote`` occurs in a ``user`` turn of the log, whitespace normalised."""
    wanted = normalise(quote)
    return bool(wanted) and any(
        turn.role == "user" and wanted in normalise(turn.text) for turn in log.turns
    )


def point_matched_by(point: ExpectedPoint, proposal: Proposal, log: SessionLog) -> bool:
    """The proxy: the quote is a human's, and every identifier of the claim is in the text."""
    if not quote_in_human_turn(proposal.quote, log):
        return False
    text = proposal_text(proposal)
    return all(identifier in text for identifier in claim_identifiers(point.claim))


def _augment(point: int, edges: list[list[int]], owner: dict[int, int], seen: set[int]) -> bool:
    """Kuhn's augmenting path step: try to give ``point`` a proposal."""
    for proposal in edges[point]:
        if proposal in seen:
            continue
        seen.add(proposal)
        if proposal not in owner or _augment(owner[proposal], edges, owner, seen):
            owner[proposal] = point
            return True
    return False


def match_points(
    points: Sequence[ExpectedPoint], proposals: Sequence[Proposal], log: SessionLog
) -> dict[int, int]:
    """A maximum one-to-one matching, as ``{proposal index: point index}``."""
    edges = [
        [j for j, proposal in enumerate(proposals) if point_matched_by(point, proposal, log)]
        for point in points
    ]
    owner: dict[int, int] = {}
    for point in range(len(points)):
        _augment(point, edges, owner, set())
    return owner


def forbidden_hits(points: Sequence[ExpectedPoint], proposals: Sequence[Proposal]) -> list[str]:
    """The forbidden substrings that occur in any field of any proposal (case-insensitive)."""
    banned = [text.lower() for point in points for text in point.forbidden]
    hits: list[str] = []
    for proposal in proposals:
        blob = (proposal_text(proposal) + "\n" + proposal.quote).lower()
        hits += [text for text in banned if text in blob and text not in hits]
    return hits


def score_session(
    expectation: Expectation, proposals: Sequence[Proposal], log: SessionLog
) -> SessionScore:
    """Score one session's proposals against its expectation (see the module's proxy)."""
    owner = match_points(expectation.points, proposals, log)
    matched = tuple(sorted(expectation.points[point].id for point in owner.values()))
    return SessionScore(
        fixture_id=expectation.fixture_id,
        proposals=len(proposals),
        points=len(expectation.points),
        matched=matched,
        unexpected=len(proposals) - len(owner),
        forbidden_hits=tuple(forbidden_hits(expectation.points, proposals)),
        max_unexpected=expectation.max_unexpected,
        expect_empty=expectation.expect_empty,
    )


@dataclass(frozen=True, slots=True)
class SessionResult:
    """One labelled session after extraction: its expectation, proposals and score."""

    expectation: Expectation
    proposals: tuple[Proposal, ...]
    score: SessionScore


def run_extractor(extractor: Extractor, log: SessionLog) -> list[Proposal]:
    """Run an extractor over every turn of a log, synchronously."""
    return asyncio.run(extractor.extract(ExtractionRequest(log=log, turns=log.turns)))


def evaluate_folder(folder: Path, extractor: Extractor) -> list[SessionResult]:
    """Extract from every ``sessions/<id>.md`` of a prompt-eval folder and score each.

    Args:
        folder: A folder with ``sessions/*.md`` (kenkeep format) and ``expected/*.yaml``.
        extractor: The extractor to score.

    Returns:
        One result per session with an expected file, in file-name order.
    """
    results: list[SessionResult] = []
    for path in sorted((folder / "expected").glob("*.yaml")):
        expectation = load_expectation(path)
        log = import_kenkeep(folder / "sessions" / f"{path.stem}.md")
        proposals = tuple(run_extractor(extractor, log))
        results.append(
            SessionResult(expectation, proposals, score_session(expectation, proposals, log))
        )
    return results

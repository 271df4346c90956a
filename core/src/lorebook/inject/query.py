"""``lorebook recall`` and the MCP server's ``recall`` tool: the hooks' ranker, on demand.

:func:`recall` ranks every configured store with :func:`lorebook.inject.choose.choose` (the
function the prompt hook calls, with the same config, validity checks and warnings) and
says why each note matched. Its ``context`` is the text the prompt hook injects for the
query in a fresh session, sanitised as the hook sanitises every answer
(:func:`lorebook.hook.for_model`); every other text it carries from a note is sanitised
the same way, and a note no person has reviewed says so (``unreviewed``). With
``pending`` it also lists proposals that no person has reviewed yet, labelled as such:
they are never served by the hooks.
"""

from __future__ import annotations

import json
from typing import Any

from lorebook.config import load_config
from lorebook.events import RecallQuery
from lorebook.hookconfig import load_hook_config
from lorebook.inject.choose import choose
from lorebook.inject.sanitize import sanitize
from lorebook.kb.paths import KBPaths
from lorebook.recall.serve import Candidate, Served, confidence
from lorebook.recall.tokenize import tokenize
from lorebook.reviewstate import LABEL, is_unreviewed

MAX_PENDING = 5


def _why(note: Any, candidate: Candidate | None, words: set[str]) -> str:
    """Why a note matched, in words a person can check."""
    parts = []
    text_words = set(tokenize(f"{note.title} {' '.join(note.tags)} {note.description} {note.body}"))
    shared = sorted(words & text_words)
    if shared:
        parts.append("shares the words " + ", ".join(shared[:8]))
    if candidate is not None:
        if candidate.coverage:
            parts.append(f"covers {candidate.coverage:.0%} of the query's weight")
        if candidate.similarity:
            parts.append(f"meaning similarity {candidate.similarity:.2f}")
    else:
        parts.append("contributed by a recall plugin")
    return "; ".join(parts) or "ranked by the plugin that contributed it"


def served_as(served: Served, note: Any) -> str:
    """How the hook serves ``note``: ``whole``, ``pointer``, or ``left out`` (the budget)."""
    key = getattr(note, "seen_key", note.id)
    if key in served.whole:
        return "whole"
    return "pointer" if key in served.shown else "left out"


def confidence_doc(candidate: Candidate | None) -> dict[str, Any]:
    """Why a note is, or is not, served whole: every test of the ranker's confidence."""
    if candidate is None:
        return {"confident": False, "tests": [["contributed by a recall plugin", False]]}
    tests = confidence(candidate)
    return {
        "confident": all(ok for _, ok in tests),
        "relevance": round(candidate.relevance, 4),
        "tests": [[text, ok] for text, ok in tests],
    }


def _note_doc(
    note: Any, candidate: Candidate | None, words: set[str], served: Served
) -> dict[str, Any]:
    """One ranked note's facts, its text sanitised.

    ``served``: ``whole`` (its body is in ``context``), ``pointer`` (one line in
    ``context``: not confident, or a whole note that did not fit, or unreviewed), or
    ``left out`` (the character budget was full).
    """
    verdict = note.verdict
    return {
        "id": note.id,
        "store": note.store,
        "title": sanitize(note.title),
        "kind": note.kind,
        "description": sanitize(note.description),
        "where": sanitize(note.where),
        "score": round(note.score, 4),
        "validity": verdict.state,
        "recheck": sanitize(verdict.mark()) or None,
        "errata": [sanitize(text) for text in note.errata],
        "why": sanitize(_why(note, candidate, words)),
        "unreviewed": LABEL if is_unreviewed(note) else None,
        "served": served_as(served, note),
        "confidence": confidence_doc(candidate),
    }


def _documents(served: Served, query: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    words = set(tokenize(query))
    by_id = {c.id: c for c in reversed(served.ranked)}  # the best candidate of an id wins
    notes = [_note_doc(n, by_id.get(n.id), words, served) for n in served.notes]
    warned = set(getattr(served, "warned", ()))
    warnings = []
    for note in getattr(served, "refuted", ()):
        if note.seen_key in warned:
            why = sanitize(note.refuted_because or "")
            warnings.append(
                {
                    "id": note.id,
                    "store": note.store,
                    "title": sanitize(note.title),
                    "refuted_because": why,
                    "where": sanitize(note.where),
                    "warning": f"this was tried and is wrong: {sanitize(note.title)} "
                    f"(refuted: {why})",
                    "unreviewed": LABEL if is_unreviewed(note) else None,
                }
            )
    return notes, warnings


MAX_LOG_HEADER = 32 * 1024 * 1024
"""A staged log whose header (where proposals live) is larger than this is not read."""


def pending_proposals(paths: KBPaths, query: str) -> list[dict[str, Any]]:
    """Proposals waiting for curation that share words with ``query``, best first.

    A proposal whose text the secret scan flags is listed without its text, labelled
    "withheld" (curation refuses it too), so recall never repeats a leaked secret.
    """
    from lorebook.bounds import read_bounded
    from lorebook.secrets.redact import text_secrets

    words = set(tokenize(query))
    found: list[tuple[float, dict[str, Any]]] = []
    if not words or not paths.sessions.is_dir():
        return []
    for path in sorted(paths.sessions.glob("*.json")):
        try:
            log = json.loads(read_bounded(path, MAX_LOG_HEADER))
        except (OSError, ValueError):  # unreadable, too large, not JSON: not listed
            continue
        if not isinstance(log, dict) or log.get("status") not in ("pending", "extracted"):
            continue
        for proposal in log.get("proposals") or []:
            if not isinstance(proposal, dict):
                continue
            text = "\n".join(str(proposal.get(k, "")) for k in ("title", "description", "body"))
            share = len(words & set(tokenize(text))) / len(words)
            if share <= 0:
                continue
            doc = {"id": proposal.get("id"), "log": paths.rel(path)}
            if text_secrets(text):
                session = log.get("session_id", path.stem)
                doc["label"] = (
                    "withheld: it holds what looks like a secret "
                    f"(`lorebook forget-session {session}` erases the session)"
                )
            else:
                doc |= {
                    k: sanitize(str(proposal.get(k) or ""))
                    for k in ("title", "description", "body")
                }
                doc["label"] = "unreviewed proposal: not a team note"
            found.append((share, doc))
    found.sort(key=lambda pair: -pair[0])
    return [doc | {"match": round(share, 2)} for share, doc in found[:MAX_PENDING]]


EXPLAINED = 8
"""``explain`` lists this many of the raw ranking's first candidates."""


def ranking_doc(served: Served) -> list[dict[str, Any]]:
    """The raw ranking's first :data:`EXPLAINED` candidates, each signal and test shown."""
    return [
        {
            "id": c.id,
            "score": round(c.score, 4),
            "lexical": round(c.lexical, 4),
            "coverage": round(c.coverage, 4),
            "similarity": round(c.similarity, 4),
            "confidence": confidence_doc(c),
        }
        for c in served.ranked[:EXPLAINED]
    ]


def recall(
    paths: KBPaths,
    query: str,
    *,
    pending: bool = False,
    explain: bool = False,
    harness: str | None = None,
    loaded: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """Rank every configured store for ``query`` as the prompt hook would; one document.

    Each note says how the hook serves it (``served``) and why (``confidence``); with
    ``explain``, ``ranking`` holds the raw ranking's first candidates, served or not. As
    ``harness``'s hook: no note derived from a file in ``loaded`` (that host loads it).
    ``unreadable`` names the note files that could not be read (no hook serves them).

    Raises:
        UnknownProviderError: ``stores:`` names a store no plugin provides.
    """
    from lorebook.plugins import get_plugins
    from lorebook.recall.refresh import refresh_stores
    from lorebook.recall.stores import close_views, open_views
    from lorebook.recall.sync import reconcile, recorded_files

    config = load_config(paths)
    problems: list[str] = []
    refresh_stores(paths, config)
    reconcile(paths)
    views = open_views(str(paths.root), problems)
    try:
        extra = get_plugins().recall_hits(paths, RecallQuery(text=query))
        served = choose(
            views[0].index, query, load_hook_config(str(paths.root)), stores=views, extra=extra,
            loaded=loaded,
        )  # fmt: skip
        notes, warnings = _documents(served, query)
        files = recorded_files(views[0].index.db)  # what the index could not read is left out
    finally:
        close_views(views)
    context = sanitize(served.text)  # as lorebook.hook.for_model gives it to the host
    doc: dict[str, Any] = {
        "ok": True, "query": query, "harness": harness, "wired": list(config.harnesses),
        "loaded": sorted(loaded), "prompt_hook": True,
        "context": context, "notes": notes, "warnings": warnings,
    }  # fmt: skip
    if explain:
        doc["ranking"] = ranking_doc(served)
    if pending:
        doc["pending"] = pending_proposals(paths, query)
    if problems:
        doc["problems"] = [sanitize(problem) for problem in problems]
    failed = [where for where, (_, _, readable) in files.items() if not readable]
    doc["unreadable"] = sorted(paths.rel(paths.nodes / where) for where in failed)
    return doc

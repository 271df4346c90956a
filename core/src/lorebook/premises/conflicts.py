"""Two notes whose premises derive a contradiction become a conflict file for a person.

A premise source cites the notes it rests on. When a context derives an atom and its
negation, the notes cited by the sources of one proof and those of the other disagree: the
pair is written as an ordinary conflict (``.lorebook/conflicts/premises-<hash>-1.md``,
decided with ``lorebook conflict resolve``), the first note as the target and the other as
the claim against it, the two proofs as the rationale. The id is a hash of the context and
the atom, so a second run writes nothing new and a decided conflict is not raised again.
A cite of a retired note id (a note split or renamed since the source was recorded) counts
as the notes ``nodes/.redirects.json`` says it leads to now.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from lorebook.kb.paths import KBPaths
from lorebook.premises.kernel import Proof, derive
from lorebook.premises.store import bundles, contexts, load_context


def _cited(proof: Proof, cites: dict[str, tuple[str, ...]], notes: set[str]) -> list[str]:
    return sorted({c for s in proof.sources() for c in cites.get(s, ()) if c in notes})


def _following_redirects(
    cites: tuple[str, ...], notes: set[str], ledger: dict[str, list[str]]
) -> tuple[str, ...]:
    """``cites`` with each retired note id replaced by the live notes it leads to.

    A source recorded before a note was split or renamed still cites the old id; the notes
    that replaced it are what it rests on now (``nodes/.redirects.json``).
    """
    from lorebook.kb.redirects import resolve

    out: list[str] = []
    for cite in cites:
        out += [cite] if cite in notes or cite not in ledger else resolve(ledger, cite, notes)
    return tuple(dict.fromkeys(out))


def premise_conflicts(paths: KBPaths) -> tuple[list[Path], list[str]]:
    """Write a conflict file for each contradiction between notes; (files written, problems).

    A context whose premises cannot be read is skipped with one problem naming the file.
    """
    from lorebook.curate.conflicts import conflict_path, record_conflict
    from lorebook.errors import LorebookError
    from lorebook.kb.redirects import load_redirects
    from lorebook.kb.store import open_store
    from lorebook.models.curation import ContradictAction
    from lorebook.models.session import Proposal

    written: list[Path] = []
    problems: list[str] = []
    store = open_store(paths.repo)
    notes = set(store.ids())
    try:
        ledger = load_redirects(paths)
    except LorebookError as exc:  # cites of retired ids then name no note, as before
        problems.append(f"retired note ids not followed: {exc.message}")
        ledger = {}
    for context in contexts(paths):
        try:
            sources = load_context(paths, context)
            derivation = derive(bundles(paths, context))
        except LorebookError as exc:
            problems.append(f"premises of context {context!r} skipped: {exc.message}")
            continue
        cites = {s.id: _following_redirects(s.cites, notes, ledger) for s in sources}
        for positive, negative in derivation.conflicts():
            ours, theirs = _cited(positive, cites, notes), _cited(negative, cites, notes)
            others = [n for n in theirs if n not in ours]
            if not ours or not others:
                continue
            key = f"{context}\n{positive.atom}".encode()
            conflict_id = f"premises-{hashlib.sha256(key).hexdigest()[:10]}-1"
            if conflict_path(paths, conflict_id).exists():
                continue
            target, claim = store.get(ours[0]), store.get(others[0])
            rationale = (
                f"the premises of context {context!r} derive both {positive.atom} (from "
                f"{', '.join(sorted(positive.sources()))}, citing {', '.join(ours)}) and "
                f"{negative.atom} (from {', '.join(sorted(negative.sources()))}, citing "
                f"{', '.join(theirs)})"
            )
            proposal = Proposal(
                id=f"premises:{context}:{positive.atom.predicate}",
                origin=f"premises:{context}:{','.join(sorted(negative.sources()))}",
                type=claim.type,
                kind=claim.kind,
                title=claim.title,
                description=claim.description,
                body=claim.body or claim.description,
                tags=list(claim.tags),
                quote="\n".join(negative.lines()),
                extractor="premises",
                target_id=target.id,
            )
            action = ContradictAction(
                proposal_id=proposal.id, target_id=target.id, proposal=proposal,
                rationale=rationale,
            )  # fmt: skip
            located = store.locate(target.id)
            written.append(
                record_conflict(
                    paths,
                    conflict_id,
                    action,
                    target,
                    None if located is None else f".lorebook/nodes/{located}",
                )
            )
    return written, problems


__all__ = ["premise_conflicts"]

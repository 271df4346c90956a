"""Deciding on the proposed change: rejecting changes, accepting unreviewed notes.

Accepting the whole proposal is ``git add`` and ``git commit``. Rejecting one change
(:func:`reject_many`) restores that file from ``HEAD`` (or deletes it when it is new), records
the claims it rejects in the rejections ledger (so curation never brings them back), and
rebuilds the indexes. Accepting an unreviewed note (:func:`accept`) gives it its power without
a commit. The changes themselves are listed by :mod:`lorebook.review.changes`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Literal

from lorebook.bounds import clip
from lorebook.constants import KB_DIRNAME
from lorebook.errors import LorebookError
from lorebook.review.changes import Change, ReviewError, categorize, git, list_changes

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from lorebook.curate.rejections import RejectedClaim
    from lorebook.kb.paths import KBPaths


@dataclass(frozen=True, slots=True)
class Rejection:
    """What ``review --reject`` undid.

    Attributes:
        change: The change undone.
        action: ``deleted`` (a new file) or ``restored`` (from ``HEAD``).
        dangling: Notes whose edges still name the rejected note's id, which no longer
            exists (``lint`` reports them).
        remembered: Fingerprints of the rejected claims newly recorded in the rejections
            ledger (:mod:`lorebook.curate.rejections`), so curation drops them from now on.
    """

    change: Change
    action: Literal["deleted", "restored"]
    dangling: tuple[str, ...] = ()
    remembered: tuple[str, ...] = ()


def _candidates(paths: KBPaths, target: str, cwd: Path) -> list[str]:
    """Return the repository-relative paths ``target`` can mean (cwd-relative first)."""
    repo = paths.repo.resolve()
    found = []
    for base in (cwd, repo):
        full = Path(os.path.normpath(base.resolve() / target))
        try:
            found.append(full.relative_to(repo).as_posix())
        except ValueError:
            continue
    return found


def find_change(paths: KBPaths, changes: list[Change], target: str, cwd: Path) -> Change:
    """Match ``target`` (a path, repository- or cwd-relative, or a note id) to a change.

    Raises:
        ReviewError: the path is outside ``.lorebook/``, is generated, or has no change.
    """
    by_path = {c.path: c for c in changes}
    by_id = {c.note_id: c for c in changes if c.note_id}
    candidates = _candidates(paths, target, cwd)
    inside = [rel for rel in candidates if rel.startswith(f"{KB_DIRNAME}/")]
    if target in by_id and not any(rel in by_path for rel in inside):
        inside = [by_id[target].path]
    # Relative to .lorebook/ itself (nodes/x.md), when that names a change and nothing else does
    in_kb = _candidates(paths, target, paths.root)
    if not any(rel in by_path for rel in inside) and in_kb and in_kb[0] in by_path:
        inside = in_kb[:1]
    if not any(rel in by_path for rel in inside) and not _exists(paths, target, cwd):
        raise ReviewError(
            f"no such note: {clip(target, quote=False)}",
            hint="`lorebook review` lists the changes; give a path as listed, or a note id",
        )
    if not inside:
        inside = [f"{KB_DIRNAME}/nodes/{rel}" for rel in _note_file(paths, target)]
    if not inside:
        raise ReviewError(
            f"{target!r} is outside {KB_DIRNAME}/: review only undoes changes to the "
            "knowledge base (use git for other files)"
        )
    for rel in inside:
        if categorize(PurePosixPath(rel).relative_to(KB_DIRNAME)) == "generated":
            raise ReviewError(
                f"{rel} is generated from the notes and cannot be rejected on its own",
                hint="reject the notes you do not want; the indexes are rebuilt after it",
            )
        if rel in by_path:
            return by_path[rel]
    raise ReviewError(
        f"{inside[0]} has no change to reject (git sees none since HEAD)",
        hint="`lorebook review` lists the changes; files git ignores are not reviewed",
    )


def _exists(paths: KBPaths, target: str, cwd: Path) -> bool:
    """Whether ``target`` is a file (from ``cwd``, the repository or ``.lorebook/``) or an id."""
    if any((base / target).exists() for base in (cwd, paths.repo, paths.root)):
        return True
    return bool(_note_file(paths, target))


def _note_file(paths: KBPaths, target: str) -> list[str]:
    """The path under ``nodes/`` of the note whose id is ``target`` ([] when none is)."""
    from lorebook.models.note import ID_RE

    if not ID_RE.match(target) or not paths.nodes.is_dir():
        return []
    found = next(paths.nodes.rglob(f"{target}.md"), None)
    return [] if found is None else [found.relative_to(paths.nodes).as_posix()]


def _prune_empty_dirs(paths: KBPaths, start: Path) -> None:
    """Remove folders left empty under ``nodes/`` or ``conflicts/`` (never those two)."""
    stops = {paths.root, paths.nodes, paths.conflicts}
    current = start
    while current not in stops and paths.root in current.parents:
        try:
            current.rmdir()
        except OSError:
            return
        current = current.parent


def _head_text(paths: KBPaths, change: Change) -> str | None:
    """The file as ``HEAD`` has it (None for a file new since ``HEAD``)."""
    if change.kind == "added":
        return None
    return git(paths.repo, "show", f"HEAD:./{change.path}")


def _claims_of_note(paths: KBPaths, change: Change, text: str) -> list[tuple[str, str]]:
    """The claims a note change brought from sessions (none when it gained no origin)."""
    from lorebook.curate.rejections import proposals_with_origins
    from lorebook.kb.notes import parse_note

    note = parse_note(text, source=change.path)[0]
    head = _head_text(paths, change)
    old = None if head is None else parse_note(head, source=f"HEAD:{change.path}")[0]
    new_origins = set(note.derived_from) - set(old.derived_from if old else ())
    if not new_origins:  # a hand edit: undoing it is not a verdict on a claim
        return []
    claims = [(p.title, p.description) for p in proposals_with_origins(paths, new_origins)]
    if old is None or (old.title, old.description) != (note.title, note.description):
        claims.append((note.title, note.description))
    return claims


def rejected_claims(paths: KBPaths, change: Change) -> list[RejectedClaim]:
    """The claims undoing ``change`` rejects, read before it is undone.

    A new or changed note that gained origins (``lb_derived_from``) since ``HEAD`` rejects
    the proposals behind them (their claims, as staged in ``_sessions/``), and its own
    claim when it is new or reworded; a new conflict file rejects its proposal. A note
    change without a new origin (a hand edit, ``note add``), a deleted file, another file,
    or one that does not parse rejects nothing (undoing it still works).
    """
    from lorebook.curate.rejections import RejectedClaim, fingerprint

    if change.kind == "deleted" or change.category not in ("note", "conflict"):
        return []
    try:
        text = (paths.repo / change.path).read_text(encoding="utf-8")
        if change.category == "note":
            claims = _claims_of_note(paths, change, text)
        elif change.kind == "added":
            from lorebook.curate.conflicts import read_conflict

            proposal = read_conflict(paths.repo / change.path, source=change.path)[0].proposal
            claims = [(proposal.title, proposal.description)]
        else:
            claims = []
    except (OSError, UnicodeDecodeError, LorebookError):
        return []
    return [RejectedClaim(fingerprint(title, desc), "review") for title, desc in claims]


def undo(paths: KBPaths, change: Change) -> Literal["deleted", "restored"]:
    """Undo one change in the working tree (and index); the caller holds the lock."""
    target = paths.repo / change.path
    if change.kind == "added":
        if change.tracked:
            git(paths.repo, "rm", "-q", "-f", "--", change.path)
        else:
            target.unlink(missing_ok=True)
        return "deleted"
    git(paths.repo, "restore", "--source=HEAD", "--staged", "--worktree", "--", change.path)
    return "restored"


def reject(paths: KBPaths, target: str, cwd: Path, *, budget: int) -> Rejection:
    """Undo the change ``target`` names, then rebuild the indexes (see :func:`reject_many`)."""
    return reject_many(paths, [target], cwd, budget=budget)[0]


def reject_many(
    paths: KBPaths, targets: Sequence[str], cwd: Path, *, budget: int
) -> list[Rejection]:
    """Undo the changes ``targets`` name, then rebuild the indexes once.

    Every target is matched before anything is undone, so one that names no change undoes
    none; a change named twice is undone once.

    Args:
        paths: The knowledge base.
        targets: Paths under ``.lorebook/`` as ``review`` prints them (or relative to
            ``cwd``), or the ids of changed notes.
        cwd: Where the command runs, for relative paths.
        budget: ENTRY.md's character budget, for the rebuild.

    Raises:
        ReviewError: see :func:`find_change`; or the indexes could not be rebuilt after the
            changes were undone (the message says so).
    """
    from lorebook.curate.rejections import load_ledger, record_rejections
    from lorebook.kb.fsutil import kb_lock

    with kb_lock(paths.lock):
        changes = list_changes(paths)
        found = list(
            {c.path: c for c in (find_change(paths, changes, t, cwd) for t in targets)}.values()
        )
        load_ledger(paths)  # a malformed ledger fails here, before anything is undone
        claims = [rejected_claims(paths, change) for change in found]
        actions = [undo(paths, change) for change in found]
        new = {r.fingerprint for r in record_rejections(paths, [c for cs in claims for c in cs])}
    rejections = []
    for change, action, own in zip(found, actions, claims, strict=True):
        remembered = tuple(dict.fromkeys(c.fingerprint for c in own if c.fingerprint in new))
        new -= set(remembered)  # a claim two changes share is remembered by the first
        rejections.append(Rejection(change, action, (), remembered))
    dangling = _rebuild_after(paths, found, actions, budget)
    return [
        Rejection(r.change, r.action, dangling.get(r.change.note_id or "", ()), r.remembered)
        for r in rejections
    ]


def _rebuild_after(
    paths: KBPaths,
    changes: Sequence[Change],
    actions: Sequence[Literal["deleted", "restored"]],
    budget: int,
) -> dict[str, tuple[str, ...]]:
    """Rebuild the indexes after ``changes`` were undone; return each gone note's danglers."""
    from lorebook.kb.index import rebuild_indexes
    from lorebook.kb.store import load_snapshot
    from lorebook.recall.sync import reconcile

    try:
        _forget_emptied_folders(paths, changes, actions)
        rebuild_indexes(paths, budget)
    except LorebookError as exc:
        done = ", ".join(f"{a} {c.path}" for c, a in zip(changes, actions, strict=True))
        raise ReviewError(
            f"{clip(done)}, but the indexes could not be rebuilt: {exc.message}",
            hint=exc.hint,
        ) from None
    for change, action in zip(changes, actions, strict=True):
        if action == "deleted":  # after the rebuild, which removes an emptied folder's index.md
            _prune_empty_dirs(paths, (paths.repo / change.path).parent)
    reconcile(paths)
    snap = load_snapshot(paths)
    gone = {c.note_id for c in changes if c.note_id and c.note_id not in snap.notes}
    dangling: dict[str, list[str]] = {}
    for note_id, stored in snap.notes.items():
        named = {i for ids in stored.note.edges().values() for i in ids}
        for target in sorted(gone & named):
            dangling.setdefault(target, []).append(note_id)
    return {target: tuple(ids) for target, ids in dangling.items()}


def _forget_emptied_folders(
    paths: KBPaths, changes: Sequence[Change], actions: Sequence[Literal["deleted", "restored"]]
) -> None:
    """Drop the summary of each folder whose last note a rejection deleted.

    Curation summarises a folder when it creates it; without this, lint warned
    "summary-without-folder" after a person rejected everything curation put there.
    """
    from lorebook.kb.fsutil import atomic_write_text
    from lorebook.kb.summaries import load_summaries, render_summaries

    summaries = load_summaries(paths)
    emptied = set()
    for change, action in zip(changes, actions, strict=True):
        folder = (paths.repo / change.path).parent
        if action != "deleted" or not folder.is_relative_to(paths.nodes):
            continue
        rel = folder.relative_to(paths.nodes).as_posix()
        held = [p for p in folder.rglob("*.md") if p.name != "index.md"] if folder.is_dir() else []
        if rel in summaries and not held:
            emptied.add(rel)
    if emptied:
        kept = {folder: text for folder, text in summaries.items() if folder not in emptied}
        atomic_write_text(paths.summaries, render_summaries(kept))


def accept(
    paths: KBPaths,
    targets: Sequence[str],
    cwd: Path,
    notice: Callable[[str], None] | None = None,
) -> list[str]:
    """Mark unreviewed notes reviewed: ``all``, note ids, or notes' paths; return the ids.

    A note no person has reviewed (curation, bootstrap, harvest or a pack wrote it, or it
    was dropped into ``nodes/`` and not committed) is served only as a pointer labelled
    "unreviewed" and cannot ask or deny until a person commits it or accepts it here
    (:mod:`lorebook.reviewstate`). What is accepted is the notes as they are on disk now.
    Every target is matched before any note is accepted. A retired id (the note was split
    or renamed, ``nodes/.redirects.json``) accepts the unreviewed notes it leads to, and
    ``notice`` is told so.

    Raises:
        ReviewError: a target names no unreviewed note (or no file at all).
    """
    from lorebook import reviewstate
    from lorebook.recall.sync import reconcile

    kb_root = str(paths.root)
    reconcile(paths)  # the index holds what is on disk, committed notes flagged
    if "all" in targets:
        return reviewstate.accept(kb_root)
    state = reviewstate.unreviewed(kb_root)
    ids: list[str] = []
    for target in targets:
        ids += _unreviewed_ids(paths, state, target, cwd, notice)
    return reviewstate.accept(kb_root, ids)


def _unreviewed_ids(
    paths: KBPaths,
    state: dict[str, str],
    target: str,
    cwd: Path,
    notice: Callable[[str], None] | None = None,
) -> list[str]:
    """The unreviewed notes ``target`` names (id or path); ``state``: id -> path in nodes/."""
    if target in state:
        return [target]
    nodes = f"{KB_DIRNAME}/nodes/"
    wanted = set(_candidates(paths, target, cwd)) | set(_candidates(paths, target, paths.root))
    ids = [i for i, rel in state.items() if nodes + rel in wanted]
    if ids:
        return ids
    successors = [] if _exists(paths, target, cwd) else _successors(paths, target)
    if successors:  # a retired id: the notes it leads to now
        now = ", ".join(successors)
        unreviewed = [i for i in successors if i in state]
        if not unreviewed:
            raise ReviewError(
                f"{target} was retired; it is now {now}, and none of them is unreviewed",
                hint="`lorebook review` lists the unreviewed notes",
            )
        if notice is not None:
            notice(f"{target} was retired; it is now {now} (nodes/.redirects.json)")
        return unreviewed
    if not _exists(paths, target, cwd):
        raise ReviewError(
            f"no such note: {clip(target, quote=False)}",
            hint="`lorebook review` lists the unreviewed notes; give an id or a path",
        )
    listed = ", ".join(sorted(state)[:10]) or "none"
    raise ReviewError(
        f"{clip(target)} is not an unreviewed note (unreviewed: {listed})",
        hint="accept one by its id or path, or every one with `--accept all`",
    )


def _successors(paths: KBPaths, target: str) -> list[str]:
    """The live notes a retired id leads to by ``nodes/.redirects.json`` ([] when none)."""
    from lorebook.kb.redirects import load_redirects, resolve
    from lorebook.kb.store import MarkdownStore
    from lorebook.models.note import ID_RE

    if not ID_RE.match(target):
        return []
    ledger = load_redirects(paths)
    if target not in ledger:
        return []
    return resolve(ledger, target, set(MarkdownStore(paths.repo).ids()))


__all__ = [
    "Rejection",
    "accept",
    "find_change",
    "reject",
    "reject_many",
    "rejected_claims",
    "undo",
]

"""``lorebook lint``: errors (exit non-zero) and warnings for the knowledge base.

Errors: unreadable or invalid notes (frontmatter, unknown ``lb_`` key, unknown schema),
id and file name mismatches, duplicate ids, dangling edges, a supersession recorded on one
note only, an active note reasserting a refuted one, an invalid redirects ledger,
rejections ledger or summaries file, and stale generated files. Warnings: orphans (in one
line: notes with no edge in or out that their folder's index.md does not list), duplicate
tags, edges to retired ids, stale link sections, summaries of folders that hold no note,
active notes whose dependencies changed (stale) or could not be checked.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any, Literal

from lorebook.errors import LorebookError
from lorebook.kb.index import plan_rebuild, stale_outputs
from lorebook.kb.lifecycle import one_sided_supersessions, reasserted_refuted
from lorebook.kb.paths import KBPaths
from lorebook.kb.redirects import load_redirects, resolve
from lorebook.kb.store import Snapshot, load_snapshot
from lorebook.kb.summaries import load_summaries

Severity = Literal["error", "warning"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One lint finding: severity, a stable code, the file and a message naming the value."""

    severity: Severity
    code: str
    path: str
    message: str

    def as_json(self) -> dict[str, Any]:
        """Return the finding as a JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class LintReport:
    """Every finding, errors first, each group sorted by file."""

    findings: tuple[Finding, ...]
    nodes_hash: str | None = None
    """The content address of the notes linted (None when it could not be computed)."""

    @property
    def errors(self) -> list[Finding]:
        """The findings that fail lint."""
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        """The findings that do not fail lint."""
        return [f for f in self.findings if f.severity == "warning"]


def _note_label(paths: KBPaths, snap: Snapshot, note_id: str) -> str:
    return f"{paths.rel(paths.nodes)}/{snap.notes[note_id].path.as_posix()}"


def _check_files(paths: KBPaths, snap: Snapshot) -> list[Finding]:
    out = [Finding("error", "invalid-note", p.path, p.message) for p in snap.problems]
    for note_id, files in snap.duplicates.items():
        out.append(
            Finding(
                "error", "duplicate-id", files[0], f"id {note_id!r} is used by: {', '.join(files)}"
            )
        )
    for stored in snap.mismatched:
        label = f"{paths.rel(paths.nodes)}/{stored.path.as_posix()}"
        out.append(
            Finding(
                "error",
                "id-mismatch",
                label,
                f"{label}: lb_id is {stored.note.id!r} but the file is named {stored.path.name!r}",
            )
        )
    return out


def _check_edges(paths: KBPaths, snap: Snapshot, redirects: dict[str, list[str]]) -> list[Finding]:
    out: list[Finding] = []
    live = set(snap.notes)
    for note_id, stored in snap.notes.items():
        label = _note_label(paths, snap, note_id)
        for key, targets in stored.note.edges().items():
            for target in targets:
                if target in live:
                    continue
                successors = resolve(redirects, target, live)
                if successors:
                    out.append(
                        Finding(
                            "warning",
                            "retired-edge",
                            label,
                            f"{label}: {key} names retired id {target!r}; it is now "
                            f"{', '.join(successors)}",
                        )
                    )
                else:
                    out.append(
                        Finding(
                            "error",
                            "dangling-edge",
                            label,
                            f"{label}: {key} names {target!r}, which is not a note",
                        )
                    )
    return out


def _check_lifecycle(paths: KBPaths, snap: Snapshot) -> list[Finding]:
    """Supersessions recorded on one side only; active notes reasserting refuted ones."""
    out: list[Finding] = []
    for edge in one_sided_supersessions(snap):
        label = _note_label(paths, snap, edge.note_id)
        out.append(
            Finding(
                "error",
                "supersede-mismatch",
                label,
                f"{label}: {edge.key} names {edge.other_id!r}, but {edge.other_id!r} does not "
                f"record it back; complete it with `lorebook note supersede {edge.old_id} "
                f"{edge.new_id}`, or remove the edge",
            )
        )
    for match in reasserted_refuted(stored.note for stored in snap.notes.values()):
        label = _note_label(paths, snap, match.active_id)
        refuted = snap.notes[match.refuted_id].note
        out.append(
            Finding(
                "error",
                "reasserts-refuted",
                label,
                f"{label}: {match.active_id!r} says again what refuted note "
                f"{match.refuted_id!r} ({_note_label(paths, snap, match.refuted_id)}) said "
                f"(similarity {match.score:.2f}): {refuted.title!r} was refuted because "
                f"{refuted.refuted_because!r}; drop or reword it, or, if it corrects that "
                f"note, name {match.refuted_id!r} in its lb_relates_to",
            )
        )
    return out


def _check_redirects(
    paths: KBPaths, snap: Snapshot, redirects: dict[str, list[str]]
) -> list[Finding]:
    out: list[Finding] = []
    label = paths.rel(paths.redirects)
    live = set(snap.notes)
    for old in sorted(redirects):
        if old in live:
            out.append(
                Finding(
                    "error",
                    "redirect-live-id",
                    label,
                    f"{label}: {old!r} is retired but a note still has that id",
                )
            )
        elif not resolve(redirects, old, live):
            out.append(
                Finding(
                    "error", "redirect-dangling", label, f"{label}: {old!r} leads to no live note"
                )
            )
    return out


def _check_rejections(paths: KBPaths) -> list[Finding]:
    """The rejections ledger (``.lorebook/rejected-claims.txt``) must parse."""
    from lorebook.kb.rejections import ledger_path, load_ledger

    try:
        load_ledger(paths)
    except LorebookError as exc:
        return [Finding("error", "invalid-rejections", paths.rel(ledger_path(paths)), str(exc))]
    return []


def _norm_tag(tag: str) -> str:
    return re.sub(r"[-_.\s]+", "-", tag.casefold())


def _check_warnings(paths: KBPaths, snap: Snapshot, summaries: dict[str, str]) -> list[Finding]:
    out: list[Finding] = []
    linked: set[str] = set()
    for stored in snap.notes.values():
        for targets in stored.note.edges().values():
            linked.update(targets)
    spellings: dict[str, set[str]] = {}
    unlinked: list[str] = []
    for note_id, stored in snap.notes.items():
        note = stored.note
        label = _note_label(paths, snap, note_id)
        for tag in note.tags:
            spellings.setdefault(_norm_tag(tag), set()).add(tag)
        repeated = sorted({t for t in note.tags if note.tags.count(t) > 1})
        if repeated:
            out.append(
                Finding(
                    "warning", "duplicate-tag", label, f"{label}: tags repeat {', '.join(repeated)}"
                )
            )
        if len(snap.notes) > 1 and not note.edges() and note_id not in linked:
            unlinked.append(note_id)
    out += _orphans(paths, snap, unlinked)
    for variants in spellings.values():
        if len(variants) > 1:
            names = ", ".join(sorted(variants))
            out.append(
                Finding(
                    "warning",
                    "duplicate-tag",
                    paths.rel(paths.nodes),
                    f"tags spelled several ways: {names}",
                )
            )
    folders = {stored.folder for stored in snap.notes.values()}
    folders |= {"/".join(f.split("/")[:i]) for f in folders for i in range(1, f.count("/") + 1)}
    label = paths.rel(paths.summaries)
    for folder in sorted(set(summaries) - folders):
        out.append(
            Finding(
                "warning",
                "summary-without-folder",
                label,
                f"{label}: folder {folder!r} holds no note",
            )
        )
    return out


SHOWN_ORPHANS = 5
"""Orphans named in lint's one orphan line; the rest are counted."""


def _orphans(paths: KBPaths, snap: Snapshot, unlinked: list[str]) -> list[Finding]:
    """One line for the notes nothing leads a reader to, or none.

    A note no other note links to is still found through its folder's index.md, which lists
    every note of the folder; only a note that index does not list (yet) is an orphan. Most
    notes link to none, so one warning per such note buried what mattered.
    """
    from lorebook.kb.store import INDEX_NAME

    listings: dict[str, str] = {}
    orphans = []
    for note_id in unlinked:
        stored = snap.notes[note_id]
        folder = stored.folder
        if folder not in listings:
            try:
                index = paths.nodes / folder / INDEX_NAME
                listings[folder] = index.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                listings[folder] = ""
        if f"]({stored.path.name})" not in listings[folder]:
            orphans.append(note_id)
    if not orphans:
        return []
    count = len(orphans)
    named = ", ".join(orphans[:SHOWN_ORPHANS])
    more = f" and {count - SHOWN_ORPHANS} more" if count > SHOWN_ORPHANS else ""
    subject = "1 note" if count == 1 else f"{count} notes"
    label = paths.rel(paths.nodes)
    return [
        Finding(
            "warning",
            "orphan",
            label,
            f"{subject} no reader can reach (no link to or from another note, not listed in "
            f"its folder's index.md): {named}{more}; run `lorebook index rebuild`",
        )
    ]


def lint(paths: KBPaths, budget: int, snap: Snapshot | None = None) -> LintReport:
    """Check the whole knowledge base and return every finding.

    Args:
        paths: The knowledge base.
        budget: ENTRY.md's character budget (from config), to check it is up to date.
        snap: The notes, when the caller has read them already.
    """
    snap = load_snapshot(paths) if snap is None else snap
    findings = _check_files(paths, snap)
    try:
        redirects = load_redirects(paths)
    except LorebookError as exc:
        findings.append(Finding("error", "invalid-redirects", paths.rel(paths.redirects), str(exc)))
        redirects = {}
    try:
        summaries = load_summaries(paths)
    except LorebookError as exc:
        findings.append(Finding("error", "invalid-summaries", paths.rel(paths.summaries), str(exc)))
        summaries = {}
    findings += _check_rejections(paths)
    findings += _check_edges(paths, snap, redirects)
    findings += _check_lifecycle(paths, snap)
    findings += _check_redirects(paths, snap, redirects)
    findings += _check_warnings(paths, snap, summaries)
    from lorebook.validity.report import stale_findings

    findings += [
        Finding("warning", code, rel, msg) for rel, code, msg in stale_findings(paths, snap)
    ]
    digest = None
    if not any(f.code in ("invalid-redirects", "invalid-summaries") for f in findings):
        plan = plan_rebuild(paths, snap, budget)
        digest = plan.digest
        # A rebuild leaves an invalid note out of the indexes: that note is mended first.
        then = (
            "fix the invalid notes, then run" if snap.failed
            else "give each id one file, then run" if snap.duplicates
            else "run"
        )  # fmt: skip
        for rel in stale_outputs(paths, plan):
            message = f"{rel} does not match the notes; {then} `lorebook index rebuild`"
            findings.append(Finding("error", "stale-generated", rel, message))
        for rel in sorted(plan.notes):
            findings.append(
                Finding(
                    "warning",
                    "stale-links",
                    rel,
                    f"{rel}: its generated link section is out of date; "
                    "run `lorebook index rebuild`",
                )
            )
    order = {"error": 0, "warning": 1}
    # Generated files come after what they are generated from: "fix the invalid notes,
    # then rebuild" is read once the invalid note is on the screen.
    findings.sort(
        key=lambda f: (order[f.severity], f.code == "stale-generated", f.path, f.code, f.message)
    )
    return LintReport(tuple(findings), digest)


def remember_lint(paths: KBPaths, report: LintReport) -> None:
    """Cache the result for the session-start status line.

    It is keyed by the nodes_hash of the notes linted; the hook compares it with ENTRY.md's,
    so a result is shown only for the notes the catalog describes.
    """
    import contextlib
    import json

    from lorebook.kb.fsutil import write_if_changed

    doc = {
        "nodes_hash": report.nodes_hash,
        "errors": len(report.errors),
        "warnings": len(report.warnings),
    }
    with contextlib.suppress(OSError):
        write_if_changed(paths.cache / "lint.json", json.dumps(doc, sort_keys=True) + "\n")

"""``lorebook harvest --from NAME``: a host's memories for this repo, into review.

One run, under ``.lorebook/.state/harvest.lock``:

1. lists the host's memory entries for this repository, as its harness plugin reads them
   (:class:`lorebook.hostkit.memory.HostMemory`, found by :mod:`lorebook.harvest.hosts`);
2. keeps those that are new or changed since harvest last handled them (the per-user ledger,
   :mod:`lorebook.harvest.ledger`); an entry whose claim is in the rejected-claims ledger
   (:mod:`lorebook.curate.rejections`) is recorded as rejected and never proposed again;
3. stages the rest as one session log (harness ``<host>-memory``) and curates every pending
   proposal; a changed entry names the note its earlier text became, so curation merges it
   into that note or records a conflict: it is proposed as a modification;
4. records each entry whose note, conflict or rejection is on disk; an entry whose step
   failed stays unrecorded and comes back next run.

A memory about the person (``MemoryEntry.personal``, as the plugin marks it: "The user
prefers terse answers") skips steps 3 and 4: it is written to the person's own store
(:mod:`lorebook.harvest.personal`), never to the team's, and recorded as ``personal``.

A note cites ``<host>-memory:<key>`` (``MEMORY.md#...`` keys for a handbook bullet); an
edited memory's later text cites ``<key>@<8 hex digits of its hash>``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lorebook.bootstrap.drafts import Draft, build_log, curate_staged, landed, stage
from lorebook.bootstrap.run import notes_by_origin
from lorebook.curate.rejections import fingerprint, rejected_fingerprints
from lorebook.harvest.hosts import host_memory
from lorebook.harvest.ledger import (
    Harvested,
    HarvestLedger,
    load_harvest_ledger,
    save_harvest_ledger,
)
from lorebook.hostkit.memory import MemoryEntry, MemoryListing
from lorebook.kb.fsutil import kb_lock
from lorebook.models.note import ID_RE

if TYPE_CHECKING:
    from lorebook.curate.run import CurateReport
    from lorebook.kb.paths import KBPaths
    from lorebook.models.config import Config
    from lorebook.plugins import Plugins

Progress = Callable[[str], None]


def session_id(host: str) -> str:
    """The session id of a host's staged memories (one log per host)."""
    return f"{host}-memories"


@dataclass(slots=True)
class HarvestReport:
    """What one harvest did."""

    host: str
    store: str | None = None
    entries: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    unchanged: int = 0
    new: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    rejected_before: list[str] = field(default_factory=list)
    outcomes: dict[str, str] = field(default_factory=dict)
    left: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    curation: CurateReport | None = None
    personal: dict[str, str] = field(default_factory=dict)
    """Memory key -> the personal note it was written to (or found already) this run."""
    personal_store: str | None = None
    personal_served: bool = True

    def as_json(self) -> dict[str, Any]:
        """The report as ``lorebook harvest --json`` prints it."""
        return {
            "ok": not self.left,
            "host": self.host,
            "store": self.store,
            "entries": self.entries,
            "skipped": dict(sorted(self.skipped.items())),
            "unchanged": self.unchanged,
            "proposed": {"new": self.new, "modified": self.modified},
            "rejected_before": self.rejected_before,
            "outcomes": dict(sorted(self.outcomes.items())),
            "left_pending": self.left,
            "problems": self.problems,
            "curation": None if self.curation is None else self.curation.as_json(),
            "personal": {
                "store": self.personal_store,
                "served": self.personal_served,
                "notes": dict(sorted(self.personal.items())),
            },
        }


@dataclass(slots=True)
class _Plan:
    drafts: list[Draft] = field(default_factory=list)
    entries: list[MemoryEntry] = field(default_factory=list)
    replaces: list[str | None] = field(default_factory=list)


def _vanished(ledger: HarvestLedger, listing: MemoryListing) -> dict[str, list[str]]:
    """Slot -> keys harvested before that the store no longer holds, in key order."""
    present = {e.key for e in listing.entries}
    found: dict[str, list[str]] = {}
    for key, record in sorted(ledger.entries.items()):
        if key not in present and record.outcome != "personal":
            found.setdefault(record.slot, []).append(key)
    return found


def _draft(host: str, entry: MemoryEntry, before: Harvested | None, notes: set[str]) -> Draft:
    origin = f"{host}-memory:{entry.key}"
    if before is not None:
        origin = f"{origin}@{entry.sha256[:8]}"
    target = before.note if before is not None and before.note in notes else None
    return Draft(
        origin=origin,
        title=entry.title,
        description=entry.description,
        text=entry.text,
        kind=entry.kind,
        tags=("harvest", f"{host}-memory"),
        target_id=target,
    )


def _plan(
    paths: KBPaths, host: str, listing: MemoryListing, ledger: HarvestLedger, report: HarvestReport
) -> _Plan:
    rejected = rejected_fingerprints(paths)
    vanished = _vanished(ledger, listing)
    notes = set(notes_by_origin(paths).values())
    plan = _Plan()
    for entry in listing.entries:
        before = ledger.entries.get(entry.key)
        if before is not None and before.sha256 == entry.sha256:
            report.unchanged += 1
            continue
        if entry.personal:
            _keep_personal(host, entry, before, ledger, report)
            continue
        replaced = None
        if before is None and vanished.get(entry.slot):
            replaced = vanished[entry.slot].pop(0)
            before = ledger.entries[replaced]
        if fingerprint(entry.title, entry.description) in rejected:
            ledger.entries[entry.key] = Harvested(
                sha256=entry.sha256, slot=entry.slot, origin="", outcome="rejected"
            )
            report.rejected_before.append(entry.key)
            continue
        (report.modified if before is not None else report.new).append(entry.key)
        plan.drafts.append(_draft(host, entry, before, notes))
        plan.entries.append(entry)
        plan.replaces.append(replaced)
    return plan


def _keep_personal(
    host: str,
    entry: MemoryEntry,
    before: Harvested | None,
    ledger: HarvestLedger,
    report: HarvestReport,
) -> None:
    """Write a memory about the person to their own store and record it."""
    from lorebook.harvest.personal import keep_personal

    earlier = before.note if before is not None and before.outcome == "personal" else None
    note_id, _wrote = keep_personal(host, entry, earlier)
    ledger.entries[entry.key] = Harvested(
        sha256=entry.sha256,
        slot=entry.slot,
        origin=f"{host}-memory:{entry.key}",
        outcome="personal",
        note=note_id,
    )
    report.personal[entry.key] = note_id
    report.outcomes[entry.key] = "personal"


def _outcome(action: str, where: str | None, detail: str) -> tuple[str, str | None]:
    if action in ("add", "modify"):
        return "note", where
    if action == "contradict":
        return "conflict", None
    if detail.startswith("rejected before"):
        return "rejected", None
    return "dropped", detail.split("already curated into ", 1)[-1].split(":", 1)[0] or None


def _record(
    plan: _Plan, curation: CurateReport, ledger: HarvestLedger, report: HarvestReport
) -> None:
    """Record each entry whose step landed; the others stay for the next run."""
    results = landed(curation)
    for n, (entry, draft, replaced) in enumerate(
        zip(plan.entries, plan.drafts, plan.replaces, strict=True), start=1
    ):
        step = results.get(f"{session_id(report.host)}:{n}")
        if step is None:
            report.left.append(entry.key)
            continue
        outcome, note = _outcome(*step)
        if note is not None and not ID_RE.match(note):
            note = draft.target_id
        ledger.entries[entry.key] = Harvested(
            sha256=entry.sha256,
            slot=entry.slot,
            origin=draft.origin,
            outcome=outcome,
            note=note or draft.target_id,
        )
        if replaced is not None:
            ledger.entries.pop(replaced, None)
        report.outcomes[entry.key] = outcome


def _note_personal_store(paths: KBPaths, config: Config, report: HarvestReport) -> None:
    """Say where the personal notes went, and refresh that store's index when it is served."""
    from lorebook.kb.personal import PERSONAL, personal_paths
    from lorebook.recall.refresh import refresh_stores

    report.personal_store = str(personal_paths().nodes)
    report.personal_served = PERSONAL in config.stores
    if report.personal_served:
        refresh_stores(paths, config)


def run_harvest(
    paths: KBPaths,
    config: Config,
    host: str,
    *,
    curator: str | None = None,
    plugins: Plugins | None = None,
    progress: Progress | None = None,
) -> HarvestReport:
    """Propose ``host``'s new and edited memories for this repository (module docstring).

    Raises:
        UsageError: no installed harness called ``host`` keeps a memory.
        LorebookError: the ledger, the rejected-claims ledger or the batch is invalid
            (nothing is recorded then).
    """
    memory = host_memory(host, plugins)
    report = HarvestReport(host=host)
    with kb_lock(paths.state / "harvest.lock"):
        listing = memory.memory_entries(paths.repo)
        report.store = None if listing.store is None else str(listing.store)
        report.entries, report.skipped = len(listing.entries), listing.skipped
        report.problems += listing.problems
        ledger = load_harvest_ledger(paths, host)
        plan = _plan(paths, host, listing, ledger, report)
        if report.personal:
            _note_personal_store(paths, config, report)
        for entry in plan.entries:
            if progress is not None:
                progress(entry.key)
        if plan.drafts:
            digest = hashlib.sha256("".join(e.sha256 for e in plan.entries).encode()).hexdigest()
            log = build_log(f"{host}-memory", session_id(host), digest, plan.drafts, "harvest")
            stage(paths, log)
            report.curation = curate_staged(paths, config, curator=curator, plugins=plugins)
            _record(plan, report.curation, ledger, report)
        save_harvest_ledger(paths, host, ledger)
    return report

"""``lorebook extract``: drain the staged session logs into proposals.

Every pending log (and every failed one, on request) under ``.lorebook/_sessions/`` is
given to the configured extractor, a few at a time. The extractor sees only the log's new
turns (``turns[extracted_turns:]``); plugins' ``extract`` hooks add their proposals to the
pool. Each proposal's quote is checked against the log: one whose quote is not there is
rejected and logged to ``.lorebook/_logs/extract-rejections.log``, never kept.

A log is rewritten atomically, validated, under the per-log lock capture also takes
(``.lorebook/.state/capture/<log-stem>.lock``), and only when it is still as it was read,
so an interrupted run leaves every log either untouched or fully updated, and a rerun
resumes with what is still pending. The slow part (the model) runs without the lock, so
capture is never held up by extraction.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import anyio
import anyio.to_thread
from pydantic import ValidationError

from lorebook.capture.stage import load_log, lock_path, write_log
from lorebook.errors import LorebookError
from lorebook.extract.base import ExtractionRequest, Extractor, normalise, quote_in_session
from lorebook.kb.fsutil import kb_lock
from lorebook.models.session import Proposal, SessionLog

if TYPE_CHECKING:
    from lorebook.kb.paths import KBPaths
    from lorebook.models.config import Config
    from lorebook.plugins import Plugins
    from lorebook.providers import ExtractorSpec

log = logging.getLogger(__name__)

REJECTIONS_LOG = "extract-rejections.log"
"""Under ``_logs/``: one line per proposal whose quote is not in its session."""

Outcome = Literal["extracted", "failed", "skipped"]


def llm_trace_dir(paths: KBPaths) -> Path:
    """Where LLM exchanges are traced: ``_logs/llm/``."""
    return paths.logs / "llm"


@dataclass(slots=True)
class SessionOutcome:
    """What one log's extraction did."""

    log: str
    session: str
    status: Outcome
    new_turns: int = 0
    kept: int = 0
    rejected: int = 0
    error: str | None = None
    sent_words: int = 0
    total_words: int = 0

    def as_json(self) -> dict[str, Any]:
        """The outcome as ``--json`` prints it."""
        return {
            "log": self.log,
            "session": self.session,
            "status": self.status,
            "new_turns": self.new_turns,
            "kept": self.kept,
            "rejected": self.rejected,
            "error": self.error,
            "sent_words": self.sent_words,
            "total_words": self.total_words,
        }


@dataclass(slots=True)
class ExtractReport:
    """What a run did, over every log it touched."""

    extractor: str
    sessions: list[SessionOutcome] = field(default_factory=list)
    llm_calls: int = 0

    def count(self, status: Outcome) -> int:
        """How many logs ended with ``status``."""
        return sum(1 for s in self.sessions if s.status == status)

    @property
    def kept(self) -> int:
        """Proposals kept, over every log."""
        return sum(s.kept for s in self.sessions)

    @property
    def rejected(self) -> int:
        """Proposals rejected (quote not in the session), over every log."""
        return sum(s.rejected for s in self.sessions)

    @property
    def sent_words(self) -> int:
        """Words of the turns sent to a model."""
        return sum(s.sent_words for s in self.sessions)

    @property
    def total_words(self) -> int:
        """Words of every turn the LLM extractor was asked about."""
        return sum(s.total_words for s in self.sessions)

    @property
    def token_fraction(self) -> float | None:
        """Share of the transcripts' words sent to a model (None: no LLM extractor ran)."""
        return self.sent_words / self.total_words if self.total_words else None

    def as_json(self) -> dict[str, Any]:
        """The report as ``lorebook extract --json`` prints it."""
        fraction = self.token_fraction
        return {
            "ok": self.count("failed") == 0,
            "extractor": self.extractor,
            "sessions": {
                "extracted": self.count("extracted"),
                "failed": self.count("failed"),
                "skipped": self.count("skipped"),
            },
            "proposals": {"kept": self.kept, "rejected": self.rejected},
            "tokens": {
                "llm_calls": self.llm_calls,
                "sent_words": self.sent_words,
                "total_words": self.total_words,
                "fraction": None if fraction is None else round(fraction, 4),
            },
            "results": [s.as_json() for s in self.sessions],
        }


Progress = Callable[[SessionOutcome], None]


def build_extractor(
    spec: ExtractorSpec, *, config: Config, paths: KBPaths, plugins: Plugins
) -> Extractor:
    """Build an extractor from its record, passing the factory what it names.

    A factory receives, by keyword, those of ``config``, ``paths`` and ``plugins`` its
    signature names (all of them if it takes ``**kwargs``), like a hook implementation.

    Raises:
        LorebookError: the factory built something that is not an extractor.
    """
    from lorebook.hookplugins import call_named

    offered = {"config": config, "paths": paths, "plugins": plugins}
    extractor = call_named(spec.factory, offered)
    if not isinstance(extractor, Extractor):
        raise LorebookError(
            f"extractor {spec.name!r} built a {type(extractor).__name__}, which has no "
            "'name' and 'async extract(request)'"
        )
    return extractor


def _error_text(exc: BaseException) -> str:
    if isinstance(exc, LorebookError):
        return exc.message if exc.hint is None else f"{exc.message} (hint: {exc.hint})"
    return f"{type(exc).__name__}: {exc}"


def read_log(path: Path) -> SessionLog:
    """Read and validate one staged session log.

    Raises:
        LorebookError: the file is not a valid session log.
    """
    try:
        log = load_log(path)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"])) or "(top level)"
        raise LorebookError(
            f"{path.name}: not a valid session log ({where}: {first['msg']})",
            hint="remove the file; capture stages it again from the transcript",
        ) from None
    except ValueError as exc:
        raise LorebookError(
            f"{path.name}: not a valid session log ({exc})",
            hint="remove the file; capture stages it again from the transcript",
        ) from None
    if log is None:
        raise FileNotFoundError(f"no session log {path}")
    return log


def logs_to_extract(paths: KBPaths, *, retry: bool) -> list[Path]:
    """Staged logs that are pending (and failed, with ``retry``), by file name."""
    wanted = {"pending", "failed"} if retry else {"pending"}
    found = []
    for path in sorted(paths.sessions.glob("*.json")) if paths.sessions.is_dir() else []:
        try:
            status = json.loads(path.read_bytes()).get("status", "pending")
        except (OSError, ValueError, AttributeError):
            status = "failed"  # unreadable: read_log reports why
        if status in wanted:
            found.append(path)
    return found


# --- one log ----------------------------------------------------------------------------


@dataclass(slots=True)
class _Run:
    paths: KBPaths
    extractor: Extractor
    plugins: Plugins
    report: ExtractReport
    limiter: anyio.CapacityLimiter
    progress: Progress | None


class _Tracer:
    """The ``trace`` callable of one request: each exchange to its own file under llm/."""

    def __init__(self, run: _Run, log_path: Path, outcome: SessionOutcome) -> None:
        self.run = run
        self.log_path = log_path
        self.outcome = outcome

    def __call__(self, exchange: dict[str, Any]) -> None:
        selection = exchange.get("selection") or {}
        self.outcome.sent_words += int(selection.get("sent_words", 0))
        self.outcome.total_words += int(selection.get("total_words", 0))
        if "request" in exchange:
            self.run.report.llm_calls += 1
        record = {"log": self.log_path.name, "at": _now(), **exchange}
        try:
            self._write(json.dumps(record, indent=2, ensure_ascii=False, default=str) + "\n")
        except OSError as exc:  # a trace is a diagnostic: losing one never fails a session
            log.warning("lorebook: cannot write an LLM trace for %s: %s", self.log_path.name, exc)

    def _write(self, text: str) -> None:
        folder = llm_trace_dir(self.run.paths)
        folder.mkdir(parents=True, exist_ok=True)
        stem = self.log_path.stem
        taken = [p.stem[len(stem) + 1 :] for p in folder.glob(f"{stem}-*.json")]
        n = max((int(t) for t in taken if t.isdigit()), default=0) + 1
        while True:
            try:
                with open(folder / f"{stem}-{n}.json", "x", encoding="utf-8") as handle:
                    handle.write(text)
                return
            except FileExistsError:
                n += 1


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _plugin_proposals(plugins: Plugins, session_log: SessionLog) -> list[Proposal]:
    """Pool what plugins' ``extract`` hooks return (collected; ``None`` adds nothing)."""
    pooled: list[Proposal] = []
    for batch in plugins.hook.extract(log=session_log.model_copy(deep=True)):
        for item in batch or []:
            if not isinstance(item, Proposal):
                raise LorebookError(
                    f"an extract hook returned a {type(item).__name__}, not a Proposal"
                )
            pooled.append(item)
    return pooled


def _key(proposal: Proposal) -> tuple[str, str]:
    return (normalise(proposal.title).lower(), normalise(proposal.quote))


def _drop_known(proposals: Sequence[Proposal], known: Sequence[Proposal]) -> list[Proposal]:
    """Drop proposals the log already holds, or that repeat one earlier in the batch."""
    seen = {_key(p) for p in known}
    fresh = []
    for proposal in proposals:
        if _key(proposal) not in seen:
            seen.add(_key(proposal))
            fresh.append(proposal)
    return fresh


async def _propose(
    run: _Run, path: Path, snapshot: SessionLog, outcome: SessionOutcome
) -> list[Proposal]:
    turns = snapshot.turns[snapshot.extracted_turns :]
    if not turns:
        return []
    request = ExtractionRequest(
        log=snapshot.model_copy(deep=True), turns=turns, trace=_Tracer(run, path, outcome)
    )
    proposals = list(await run.extractor.extract(request))
    proposals += await anyio.to_thread.run_sync(_plugin_proposals, run.plugins, snapshot)
    return _drop_known(proposals, snapshot.proposals)


def _unchanged(current: SessionLog, snapshot: SessionLog) -> bool:
    """True when nobody else extracted, re-opened or rewrote the log meanwhile."""
    return (
        current.status == snapshot.status
        and current.extracted_turns == snapshot.extracted_turns
        and current.turns[: len(snapshot.turns)] == snapshot.turns
    )


def _numbered(kept: Sequence[Proposal], current: SessionLog) -> list[Proposal]:
    """Give new proposals the next free ids ``<session>:<n>``; existing ids never change."""
    prefix = f"{current.session_id}:"
    used = [p.id[len(prefix) :] for p in current.proposals if p.id.startswith(prefix)]
    last = max((int(n) for n in used if n.isdigit()), default=0)
    return [p.model_copy(update={"id": f"{prefix}{last + i}"}) for i, p in enumerate(kept, 1)]


def _commit(paths: KBPaths, path: Path, snapshot: SessionLog, kept: list[Proposal]) -> bool:
    """Append the kept proposals and advance the log, if it is still as it was read."""
    with kb_lock(lock_path(paths, path.stem)):
        if not path.exists():
            return False
        current = read_log(path)
        if not _unchanged(current, snapshot):
            return False
        end = max(len(snapshot.turns), snapshot.extracted_turns)
        update = {
            "proposals": [*current.proposals, *_numbered(kept, current)],
            "extracted_turns": end,
            "status": "extracted" if end >= len(current.turns) else "pending",
            "error": None,
        }
        write_log(path, current.model_copy(update=update))
        return True


def _commit_failure(paths: KBPaths, path: Path, snapshot: SessionLog, error: str) -> bool:
    """Mark the log failed with ``error``; its turns and proposals stay as they are."""
    with kb_lock(lock_path(paths, path.stem)):
        if not path.exists():
            return False
        current = read_log(path)
        if not _unchanged(current, snapshot):
            return False
        write_log(path, current.model_copy(update={"status": "failed", "error": error}))
        return True


def _log_rejections(
    paths: KBPaths, path: Path, session_log: SessionLog, rejected: Sequence[Proposal]
) -> None:
    if not rejected:
        return
    lines = [
        f"{_now()}\tsession={session_log.origin}\tlog={path.name}\textractor={p.extractor}"
        f"\ttitle={json.dumps(p.title, ensure_ascii=False)}"
        f"\tquote={json.dumps(normalise(p.quote), ensure_ascii=False)}\n"
        for p in rejected
    ]
    paths.logs.mkdir(parents=True, exist_ok=True)
    with open(paths.logs / REJECTIONS_LOG, "a", encoding="utf-8") as handle:
        handle.write("".join(lines))


async def _extract_one(run: _Run, path: Path) -> SessionOutcome:
    try:
        snapshot = read_log(path)
    except (OSError, LorebookError) as exc:
        return SessionOutcome(path.name, "", "failed", error=_error_text(exc))
    outcome = SessionOutcome(
        path.name,
        snapshot.origin,
        "extracted",
        new_turns=max(len(snapshot.turns) - snapshot.extracted_turns, 0),
    )
    try:
        proposals = await _propose(run, path, snapshot, outcome)
    except Exception as exc:
        outcome.status, outcome.error = "failed", _error_text(exc)
        await _settle(_commit_failure, run.paths, path, snapshot, outcome.error, outcome)
        return outcome
    kept = [p for p in proposals if quote_in_session(p.quote, snapshot)]
    rejected = [p for p in proposals if not quote_in_session(p.quote, snapshot)]
    if await _settle(_commit, run.paths, path, snapshot, kept, outcome):
        outcome.kept, outcome.rejected = len(kept), len(rejected)
        _log_rejections(run.paths, path, snapshot, rejected)
    return outcome


async def _settle(
    commit: Callable[[KBPaths, Path, SessionLog, Any], bool],
    paths: KBPaths,
    path: Path,
    snapshot: SessionLog,
    payload: Any,
    outcome: SessionOutcome,
) -> bool:
    """Run a commit in a thread (it blocks on the lock); record why it did not write."""
    try:
        written = await anyio.to_thread.run_sync(commit, paths, path, snapshot, payload)
    except (OSError, LorebookError) as exc:
        outcome.status = "failed"
        outcome.error = f"{outcome.error + '; ' if outcome.error else ''}{_error_text(exc)}"
        return False
    if not written and outcome.status != "failed":
        outcome.status = "skipped"
        outcome.error = "the log changed or vanished while it was extracted; run again"
    return written


async def _extract_guarded(run: _Run, path: Path) -> None:
    async with run.limiter:
        outcome = await _extract_one(run, path)
    run.report.sessions.append(outcome)
    if run.progress is not None:
        run.progress(outcome)


async def extract_pending(
    paths: KBPaths,
    config: Config,
    *,
    extractor_name: str | None = None,
    retry: bool = False,
    progress: Progress | None = None,
    plugins: Plugins | None = None,
) -> ExtractReport:
    """Extract every pending session log (and failed ones, with ``retry``), concurrently.

    Args:
        paths: The knowledge base.
        config: Its config (``extraction`` says which extractor and how many at once).
        extractor_name: Overrides ``extraction.extractor``.
        retry: Also retry logs whose extraction failed.
        progress: Called with each log's outcome as soon as it is settled.
        plugins: The plugin host (default: the process-wide one).

    Returns:
        What happened to each log, with totals.

    Raises:
        LorebookError: the extractor is unknown or cannot be built (a config error, found
            before any log is touched).
    """
    if plugins is None:
        from lorebook.plugins import get_plugins

        plugins = get_plugins()
    name = extractor_name or config.extraction.extractor
    named_in = None if extractor_name else f"{paths.rel(paths.config)}, key 'extraction.extractor'"
    extractor = build_extractor(
        plugins.extractor(name, named_in=named_in), config=config, paths=paths, plugins=plugins
    )
    run = _Run(
        paths=paths,
        extractor=extractor,
        plugins=plugins,
        report=ExtractReport(extractor=name),
        limiter=anyio.CapacityLimiter(config.extraction.concurrency),
        progress=progress,
    )
    async with anyio.create_task_group() as group:
        for path in logs_to_extract(paths, retry=retry):
            group.start_soon(_extract_guarded, run, path)
    run.report.sessions.sort(key=lambda s: s.log)
    return run.report

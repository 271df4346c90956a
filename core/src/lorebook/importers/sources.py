"""What one ``lorebook import`` run will stage, decided and checked before anything is.

Every input is validated first (it exists, is a file, is in a known format, parses), so a
run that stops on an error has staged nothing. Two kinds of source come out:

* a text export (SpecStory, normalised-turns JSONL, kenkeep, console copy), parsed in
  memory into a :class:`~lorebook.models.session.SessionLog`;
* a host's native transcript (a Claude Code session file, a Codex rollout), which an
  installed harness plugin recognises (:class:`~lorebook.hostkit.history.SessionHistory`)
  and reads with its own ``read_transcript``, exactly as capture does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lorebook.datafile import DataFileError, parse_json
from lorebook.errors import LorebookError
from lorebook.hostkit.history import PastSession, SessionHistory
from lorebook.importers import FORMATS, guess_format, import_bytes
from lorebook.importers.common import ImportFormatError, NothingToImport, decode
from lorebook.importers.console import NO_MARKS
from lorebook.importers.jsonl import MAX_LINE_BYTES

if TYPE_CHECKING:
    from lorebook.harness import Harness
    from lorebook.models.session import SessionLog


@dataclass(frozen=True, slots=True)
class NativeSource:
    """A host transcript to stage through its harness: which harness, which session."""

    harness_name: str
    harness: Harness
    session: PastSession


@dataclass(frozen=True, slots=True)
class ImportSource:
    """One thing to stage: a parsed export (``log``) or a native transcript (``native``)."""

    name: str
    log: SessionLog | None = None
    native: NativeSource | None = None
    fmt: str | None = None
    """The text format ``log`` was read in (``specstory``, ``console``, ...)."""


def history_harnesses() -> dict[str, Harness]:
    """Installed harnesses whose host keeps transcripts lorebook can find, by name."""
    from lorebook.plugins import get_plugins

    found: dict[str, Harness] = {}
    for name, spec in get_plugins().harnesses().items():
        harness = spec.factory()
        if isinstance(harness, SessionHistory):
            found[name] = harness
    return found


def history_harness(name: str) -> Harness:
    """The installed harness ``name``, when its host keeps a session store lorebook reads.

    Raises:
        LorebookError: No such harness is installed, or it keeps no such store.
    """
    harnesses = history_harnesses()
    if name not in harnesses:
        known = ", ".join(sorted(harnesses)) or "none installed"
        raise LorebookError(f"--from-harness {name}: no session store to read ({known})")
    return harnesses[name]


def _describe(harness: Harness, path: Path) -> PastSession | None:
    return harness.transcript_info(path) if isinstance(harness, SessionHistory) else None


def _first_object(text: str) -> Mapping[str, object] | None:
    """The first non-blank line as a JSON object (None: not one, or nested too deep)."""
    for line in text.splitlines():
        if line.strip():
            try:
                value = parse_json(line, source="the first line", max_bytes=MAX_LINE_BYTES)
            except DataFileError:
                return None
            return value if isinstance(value, dict) else None
    return None


def _native(path: Path, fmt: str | None, harnesses: Mapping[str, Harness]) -> NativeSource | None:
    """The harness that recognises ``path`` (only ``fmt`` when it names one), or None."""
    names = [fmt] if fmt is not None and fmt in harnesses else sorted(harnesses)
    for name in names:
        session = _describe(harnesses[name], path)
        if session is not None:
            return NativeSource(name, harnesses[name], session)
    if fmt in harnesses:
        raise ImportFormatError(f"{path}: not a {fmt} transcript")
    return None


def _plain_turns(first: Mapping[str, object]) -> bool:
    """True when the first JSON object is a normalised turn or that format's header."""
    return "role" in first or set(first) <= {"session_id", "harness"}


def check_format(fmt: str | None, harnesses: Mapping[str, Harness]) -> None:
    """Refuse a ``--format`` that names no known format (the same for every file).

    Raises:
        ImportFormatError: ``fmt`` is neither a text format nor an installed harness.
    """
    if fmt is not None and fmt not in FORMATS and fmt not in harnesses:
        known = ", ".join([*FORMATS, *sorted(harnesses)])
        raise ImportFormatError(f"unknown import format {fmt!r}; known formats: {known}")


def read_source(path: Path, fmt: str | None, harnesses: Mapping[str, Harness]) -> ImportSource:
    """Check one file and read it into a source (nothing is written).

    Raises:
        LorebookError: The file is missing or a folder, its format is unknown, or it is
            not valid in its format (each message is one line naming the file).
    """
    if not path.exists():
        raise LorebookError(f"{path}: no such file")
    if path.is_dir():
        raise LorebookError(f"{path}: a folder with no transcript files in it")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LorebookError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    check_format(fmt, harnesses)
    if fmt is None or fmt in harnesses:
        first = _first_object(decode(data, str(path)))
        if fmt is not None or (first is not None and not _plain_turns(first)):
            native = _native(path, fmt, harnesses)
            if native is not None:
                return ImportSource(str(path), native=native)
            raise ImportFormatError(_unknown_json(path, harnesses))
        fmt = _guess(data, path, harnesses)
    return ImportSource(str(path), log=import_bytes(data, str(path), fmt), fmt=fmt)


def _guess(data: bytes, path: Path, harnesses: Mapping[str, Harness]) -> str:
    """The text format of ``data``, or one line naming the file and every known format."""
    if not decode(data, str(path)).strip():
        raise NothingToImport(f"{path}: the file is empty, nothing to import")
    try:
        return guess_format(data, str(path))
    except ImportFormatError:
        known = ", ".join([*FORMATS, *sorted(harnesses)])
        message = f"{path}: not a format lorebook can import (known formats: {known})"
        if any(line.startswith("> ") for line in decode(data, str(path)).splitlines()):
            message += f"; its '> ' lines could be prompts, but as a console copy: {NO_MARKS}"
        raise ImportFormatError(message) from None


def _unknown_json(path: Path, harnesses: Mapping[str, Harness]) -> str:
    installed = ", ".join(sorted(harnesses)) or "none installed"
    return (
        f"{path}: JSON lines, but neither normalised turns nor a transcript of an installed "
        f"harness ({installed})"
    )


@dataclass(frozen=True, slots=True)
class Rejected:
    """A file a run will not stage, why (one line that starts with the file), and a hint."""

    file: str
    reason: str
    hint: str | None = None
    empty: bool = False
    """Nothing in it to import (:class:`NothingToImport`): beside files that import, it is
    named and passed over, and stops nothing."""


@dataclass(frozen=True, slots=True)
class FilePlan:
    """Every file of a run checked: the sources to stage and the files that cannot be."""

    sources: list[ImportSource]
    rejected: list[Rejected]

    @property
    def blocking(self) -> bool:
        """Whether a file cannot be imported (an empty one beside others that can does not)."""
        return any(not r.empty for r in self.rejected) or (bool(self.rejected) and not self.sources)

    @property
    def total(self) -> int:
        """How many files were checked (a folder counts as the files under it)."""
        return len(self.sources) + len(self.rejected)


def in_folders(files: Iterable[Path]) -> list[Path]:
    """``files``, each folder among them replaced by the files under it, sorted by path.

    A folder of exports (``.specstory/history/``, a host's session folder) stands for its
    transcripts: every file under it but hidden ones and those in hidden folders
    (SpecStory's ``.what-is-this.md``). A folder with no such file stays, to be named.
    """
    out: list[Path] = []
    for file in files:
        path = Path(file)
        if not path.is_dir():
            out.append(path)
            continue
        found = sorted(
            inner
            for inner in path.rglob("*")
            if inner.is_file()
            and not any(part.startswith(".") for part in inner.relative_to(path).parts)
        )
        out.extend(found or [path])
    return out


def check_files(files: Iterable[Path], fmt: str | None) -> FilePlan:
    """Check and read every file, keeping each bad file's reason instead of stopping.

    A folder stands for the files under it (:func:`in_folders`).

    Raises:
        ImportFormatError: ``fmt`` names no known format (no file is read then).
    """
    harnesses = history_harnesses()
    check_format(fmt, harnesses)
    sources: list[ImportSource] = []
    rejected: list[Rejected] = []
    for file in in_folders(files):
        try:
            sources.append(read_source(Path(file), fmt, harnesses))
        except LorebookError as exc:
            named = exc.message.startswith(str(file))
            reason = exc.message if named else f"{file}: {exc.message}"
            empty = isinstance(exc, NothingToImport)
            rejected.append(Rejected(str(file), reason, exc.hint, empty))
    return FilePlan(sources, rejected)


def plan_files(files: Iterable[Path], fmt: str | None) -> list[ImportSource]:
    """Check and read every file before any is staged; any bad file stops the run.

    Raises:
        LorebookError: One or more files cannot be imported; the message names every one
            with its reason.
    """
    plan = check_files(files, fmt)
    if plan.blocking:
        raise rejection_error(plan.rejected, plan.total)
    return plan.sources


def rejection_error(rejected: Sequence[Rejected], total: int) -> LorebookError:
    """One error naming every file that cannot be imported, each with its reason.

    One bad file keeps to one line (its reason, and what became of the others); several
    are listed a line each under a count.
    """
    if total == 1:
        return LorebookError(rejected[0].reason, hint=rejected[0].hint)
    if len(rejected) == 1:
        others = "file" if total == 2 else f"{total - 1} files"
        return LorebookError(
            f"{rejected[0].reason}; nothing was staged (--skip-invalid stages the other {others})"
        )
    listed = "\n".join(f"  {item.reason}" for item in rejected)
    return LorebookError(
        f"{len(rejected)} of {total} files cannot be imported, so nothing was staged:\n{listed}",
        hint="fix or leave out those files, or pass --skip-invalid to stage the others",
    )


def choose_sessions(
    sessions: Sequence[PastSession], wanted: Sequence[str], harness_name: str
) -> list[PastSession]:
    """The sessions named in ``wanted`` (all when it is empty), in ``sessions``' order.

    A wanted id matches a session id exactly or as its unique prefix.

    Raises:
        LorebookError: An id matches no session of this repository, or several.
    """
    if not wanted:
        return list(sessions)
    chosen: list[PastSession] = []
    for key in wanted:
        hits = [s for s in sessions if s.session_id == key] or [
            s for s in sessions if s.session_id.startswith(key)
        ]
        if len(hits) != 1:
            what = "no" if not hits else f"{len(hits)}"
            raise LorebookError(
                f"--session {key}: {what} {harness_name} sessions of this repository match; "
                f"`lorebook import --from-harness {harness_name} --list` shows them"
            )
        if hits[0] not in chosen:
            chosen.append(hits[0])
    return [session for session in sessions if session in chosen]


def plan_history(harness_name: str, repo: Path, wanted: Sequence[str]) -> list[ImportSource]:
    """The chosen past sessions of ``repo`` in the host's own store, as sources."""
    harness = history_harness(harness_name)
    found = harness.past_sessions(repo) if isinstance(harness, SessionHistory) else []
    sessions = choose_sessions(found, wanted, harness_name)
    return [
        ImportSource(str(s.path), native=NativeSource(harness_name, harness, s)) for s in sessions
    ]


PROMPT_CHARS = 80
"""A listed session's first prompt is cut to this many characters."""


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """A past session as ``--list`` shows it: its prompts, read by its harness."""

    session: PastSession
    prompts: int
    first_prompt: str | None


def summarise(harness: Harness, session: PastSession) -> SessionSummary:
    """Count the human prompts of a past session; keep the first (redacted, cut, one line)."""
    prompts, first = 0, None
    for turn in harness.read_transcript(str(session.path)):
        if turn.role == "user" and not turn.injected:
            prompts += 1
            if first is None:
                line = " ".join(turn.text.split())
                first = line if len(line) <= PROMPT_CHARS else line[: PROMPT_CHARS - 1] + "…"
    if first is not None:
        from lorebook.secrets.redact import redact_many

        first = redact_many([first])[0]
    return SessionSummary(session, prompts, first)

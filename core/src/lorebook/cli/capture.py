"""``lorebook capture``, ``import``, ``forget-session``, ``prune`` and ``scan``."""

from __future__ import annotations

import hashlib
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lorebook.cli.output import JsonOption, plural, print_json, repo_paths, say, warn
from lorebook.config import load_config
from lorebook.errors import LorebookError

if TYPE_CHECKING:
    from lorebook.importers.sources import ImportSource, Rejected
    from lorebook.importers.staging import Staged
    from lorebook.kb.paths import KBPaths


def capture_command(
    ctx: typer.Context,
    harness: Annotated[str, typer.Option(help="The harness whose transcript it is.")],
    session: Annotated[str, typer.Option(help="The host's session id.")],
    transcript: Annotated[str, typer.Option(help="The transcript (path or host reference).")],
    json_output: JsonOption = False,
) -> None:
    """Stage one session's transcript by hand (hooks do this at stop and session end).

    Only what is new since the last capture is read; private spans are removed and secrets
    redacted before anything is written.
    """
    from lorebook.capture.stage import capture_session
    from lorebook.cli.usage import require_providers
    from lorebook.plugins import get_plugins

    paths = repo_paths(ctx)
    require_providers("harness", [harness])
    spec = get_plugins().harness(harness)
    result = capture_session(paths, spec.factory(), harness, session, transcript)
    if json_output:
        print_json({"ok": True, "log": paths.rel(result.path), "changed": result.changed,
                    "new_turns": result.new_turns})  # fmt: skip
    elif result.changed:
        say(f"staged {result.new_turns} new turns in {paths.rel(result.path)}")
    else:
        say(f"nothing new in {transcript}")


def import_command(
    ctx: typer.Context,
    files: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Transcript files to import (a folder: every file under it; '-': "
            "standard input, a console copy piped in).",
            metavar="FILE...",
            show_default=False,
        ),
    ] = None,
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format",
            metavar="FORMAT",
            help="console, specstory, jsonl, kenkeep, or an installed harness whose "
            "transcripts lorebook reads: claude, codex, copilot (default: guessed).",
        ),
    ] = None,
    from_harness: Annotated[
        str | None,
        typer.Option(
            "--from-harness", metavar="NAME", help="Read past sessions from this host's store."
        ),
    ] = None,
    list_only: Annotated[
        bool, typer.Option("--list", help="With --from-harness: list, stage nothing.")
    ] = False,
    sessions: Annotated[
        list[str] | None,
        typer.Option(
            "--session", metavar="ID", help="With --from-harness: stage only this session."
        ),
    ] = None,
    skip_invalid: Annotated[
        bool,
        typer.Option(
            "--skip-invalid", help="Stage the files that can be, and list the others with why."
        ),
    ] = False,
    json_output: JsonOption = False,
) -> None:
    """Turn transcripts into redacted session logs that wait for `lorebook extract`.

    Formats, guessed from the content (or named with --format): Claude Code session
    files and Codex rollouts (read by the installed harness plugin, as capture reads
    them), console copies of a Claude Code or Gemini CLI terminal (known by their ⏺, ● or
    ✦ lines, a Claude Code banner or the claude / claude-trace / gemini command, wherever
    the copy starts), SpecStory exports and Cursor's own chat exports, kenkeep sessions
    (front matter with session_id, then [USER]: / [AGENT]: lines), and normalised-turns
    JSONL, one JSON object per line:

    \b
      {"session_id": "review-1", "harness": "import"}   (optional first line)
      {"role": "user", "text": "Never call the billing API from tests."}
      {"role": "assistant", "text": "...", "tool_calls": [{"name": "Bash", "input": {}}]}

    --from-harness claude|codex|copilot finds this repository's past sessions in the
    host's own store; --list shows them, --session ID stages only those. A folder stands
    for every file under it (hidden ones aside): `lorebook import .specstory/history`.
    Every file is checked before anything is staged: when any is missing, in no known
    format or not valid in its format, one message names each such file with why, and
    nothing is staged; with --skip-invalid the others are staged and those are listed (under
    "skipped" with --json). docs/import.md has the details.
    """  # noqa: D301 (\b is click's "do not rewrap this paragraph" mark)
    from lorebook.importers.sources import plan_history
    from lorebook.importers.staging import stage_sources

    paths = repo_paths(ctx)
    _check_import_options(files, fmt, from_harness, list_only, sessions, skip_invalid)
    rejected: list[Rejected] = []
    with tempfile.TemporaryDirectory(prefix="lorebook-stdin-") as scratch:
        if from_harness is None:
            given = [_from_stdin(Path(scratch)) if str(f) == "-" else f for f in files or []]
            try:
                planned, rejected = _plan_files(given, fmt, skip_invalid)
            except LorebookError as exc:
                exc.message = exc.message.replace(str(Path(scratch)) + "/", "")
                raise
            planned, rejected = _shown(scratch, planned, rejected)
        elif list_only:
            _list_history(paths, from_harness, sessions or [], json_output)
            return
        else:
            planned = plan_history(from_harness, paths.repo, sessions or [])
        from lorebook.cli.progress import progress

        with progress("importing", len(planned), json_output=json_output) as advance:
            staged = stage_sources(paths, planned, on_source=advance)
    _report_staged(paths, staged, rejected, json_output)


def _shown(
    scratch: str, planned: list[ImportSource], rejected: list[Rejected]
) -> tuple[list[ImportSource], list[Rejected]]:
    """Standard input's copy named ``stdin-<hash>``, not by its path in ``scratch``."""
    from dataclasses import replace

    prefix = str(Path(scratch)) + "/"
    return (
        [replace(s, name=s.name.replace(prefix, "")) for s in planned],
        [replace(r, file=r.file.replace(prefix, ""), reason=r.reason.replace(prefix, ""))
         for r in rejected],
    )  # fmt: skip


def _from_stdin(scratch: Path) -> Path:
    """Standard input (``-``), saved as ``stdin-<sha256 prefix>`` in ``scratch``.

    Named by its content, so the session id it gets is the same when the same copy is
    piped in again (it is staged once), and different for another one.
    """
    stream = getattr(sys.stdin, "buffer", None)  # a text stream stands in for it in tests
    data = stream.read() if stream is not None else sys.stdin.read().encode()
    target = scratch / f"stdin-{hashlib.sha256(data).hexdigest()[:12]}"
    target.write_bytes(data)
    return target


def _check_import_options(
    files: list[Path] | None,
    fmt: str | None,
    from_harness: str | None,
    list_only: bool,
    sessions: list[str] | None,
    skip_invalid: bool,
) -> None:
    """Refuse options that do not go together, or name no format or store (exit 2)."""
    from lorebook.cli.usage import did_you_mean
    from lorebook.errors import UsageError
    from lorebook.importers import FORMATS
    from lorebook.importers.common import ImportFormatError
    from lorebook.importers.sources import check_format, history_harnesses

    if from_harness is None:
        if list_only or sessions:
            stores = "|".join(history_harnesses()) or "NAME"
            raise UsageError(f"--list and --session go with --from-harness {stores}")
        if not files:
            raise UsageError("name transcript files to import, or use --from-harness")
    elif files or fmt or skip_invalid:
        raise UsageError(
            "--from-harness reads the host's store: give no files, --format or --skip-invalid"
        )
    harnesses = history_harnesses()
    if from_harness is not None and from_harness not in harnesses:
        known = ", ".join(sorted(harnesses)) or "none installed"
        raise UsageError(
            f"--from-harness {from_harness}: no session store to read ({known})",
            hint=did_you_mean(from_harness, harnesses),
        )
    try:
        check_format(fmt, harnesses)
    except ImportFormatError as exc:
        hint = did_you_mean(fmt or "", [*FORMATS, *harnesses])
        raise UsageError(exc.message, hint=hint) from None


def _plan_files(
    files: list[Path], fmt: str | None, skip_invalid: bool
) -> tuple[list[ImportSource], list[Rejected]]:
    """The sources to stage, and the files left out (only with ``skip_invalid``).

    Without it, any bad file stops the run with one message naming every bad file.
    """
    from lorebook.importers.sources import check_files, rejection_error

    plan = check_files(files, fmt)
    if plan.blocking and not skip_invalid:
        raise rejection_error(plan.rejected, plan.total)
    return plan.sources, plan.rejected


def _report_staged(
    paths: KBPaths, staged: list[Staged], rejected: list[Rejected], json_output: bool
) -> None:
    if json_output:
        doc: dict[str, object] = {"ok": True, "imported": [
            {"file": s.source, "harness": s.harness, "session_id": s.session_id,
             "log": paths.rel(s.log), "turns": s.turns, "changed": s.changed,
             "staged": s.log.exists(), "same_as": s.same_as,
             "unreadable_lines": list(s.unreadable), "unfinished_last_line": s.unfinished}
            for s in staged
        ]}  # fmt: skip
        if rejected:
            doc["skipped"] = [
                {"file": r.file, "reason": r.reason, "empty": r.empty} for r in rejected
            ]
        print_json(doc)
        return
    for s in staged:
        if s.same_as is not None:
            say(f"same session as {s.same_as}: {s.source} (a subagent's file or a copy)")
        elif s.changed:
            say(f"imported {s.source}: {s.turns} turns -> {paths.rel(s.log)}")
        elif not s.log.exists():
            say(f"nothing in {s.source}: no turn of the person or the agent, nothing staged")
        else:
            say(f"unchanged {s.source}: staged before as {paths.rel(s.log)}, nothing new")
        if s.same_as is None:
            _say_unread(s)
    for r in rejected:
        say(f"skipped {r.reason}")
    if not staged:
        say("nothing to import")
    if bad := [r for r in rejected if not r.empty]:
        noun, pronoun = ("file", "it") if len(bad) == 1 else ("files", "they")
        say(f"{len(bad)} {noun} skipped: {pronoun} cannot be imported")


def _say_unread(s: Staged) -> None:
    """Warn of the lines of a transcript its reader skipped: none is left out in silence."""
    if s.unreadable:
        count = len(s.unreadable)
        shown = ", ".join(str(n) for n in s.unreadable[:5])
        more = f" and {count - 5} more" if count > 5 else ""
        verb = "is" if count == 1 else "are"
        warn(
            f"lorebook: {s.source}: skipped {plural(count, 'line')} that {verb} not a JSON "
            f"record (line {shown}{more}); a turn written there is not imported"
        )
    if s.unfinished:
        warn(
            f"lorebook: {s.source}: the last line has no newline and was left out (the "
            "assistant may still be writing it); import the file again once it is complete"
        )


def _list_history(paths: KBPaths, harness_name: str, wanted: list[str], json_output: bool) -> None:
    from lorebook.capture.stage import log_path
    from lorebook.hostkit.history import SessionHistory
    from lorebook.importers.sources import choose_sessions, history_harness, summarise

    harness = history_harness(harness_name)
    found = harness.past_sessions(paths.repo) if isinstance(harness, SessionHistory) else []
    rows = []
    for past in choose_sessions(found, wanted, harness_name):
        summary = summarise(harness, past)
        staged = log_path(paths, harness_name, past.session_id).exists()
        rows.append({"session_id": past.session_id, "started": past.started, "cwd": past.cwd,
                     "transcript": str(past.path), "prompts": summary.prompts,
                     "first_prompt": summary.first_prompt, "staged": staged})  # fmt: skip
    if json_output:
        print_json({"ok": True, "harness": harness_name, "sessions": rows})
        return
    say(f"{len(rows)} {harness_name} sessions of this repository")
    for row in rows:
        mark = "  (staged)" if row["staged"] else ""
        say(f"  {row['session_id']}  {row['started'] or '-'}  {row['prompts']} prompts  "
            f"{row['first_prompt'] or ''}{mark}")  # fmt: skip


def forget_command(
    ctx: typer.Context,
    session_id: Annotated[
        str,
        typer.Argument(
            help="The session id to forget, bare or as lorebook prints it (claude:<id>, or a "
            "note's origin claude:<id>:<turn>).",
        ),
    ],
    json_output: JsonOption = False,
) -> None:
    """Remove every trace of a session: staged log, proposals, LLM traces, hook state.

    Committed notes keep only the session's opaque origin id; committed conflict files that
    quote it are listed for you to delete (they are never rewritten silently).
    """
    from lorebook.capture.retention import forget_session
    from lorebook.errors import UsageError

    if not session_id.strip():
        raise UsageError(
            "forget-session: the session id is empty",
            hint="give the id `lorebook extract` printed (claude:<id>) or a note's origin",
        )
    paths = repo_paths(ctx)
    report = forget_session(paths, session_id)
    if not (report.removed or report.notes_citing or report.conflicts_quoting):
        raise LorebookError(
            f"session {session_id!r}: lorebook keeps nothing of it here (no staged log, "
            "proposals, traces or hook state, and no note or conflict cites it)",
            hint=_known_sessions(paths),
        )
    if json_output:
        print_json({"ok": True, "removed": report.removed, "notes_citing": report.notes_citing,
                    "conflicts_quoting": report.conflicts_quoting})  # fmt: skip
        return
    say(f"removed {len(report.removed)} files" if report.removed else "nothing staged for it")
    for rel in report.removed:
        say(f"  removed {rel}")
    fresh = _uncommitted(paths, report.notes_citing)
    for rel in report.notes_citing:
        if rel not in fresh:
            say(f"  note citing it (keeps only the origin id): {rel}")
    for rel in fresh:
        warn(
            f"lorebook: note not yet committed that may quote the session's words: {rel}; "
            f"reject it (`lorebook review --reject {rel}`) or edit them out"
        )
    for rel in report.conflicts_quoting:
        warn(f"lorebook: conflict file quoting it, delete it yourself if you wish: {rel}")


def _uncommitted(paths: KBPaths, rels: list[str]) -> list[str]:
    """Those of ``rels`` (repository-relative) that differ from ``HEAD`` (``review``'s list)."""
    from lorebook.review.changes import ReviewError, list_changes

    if not rels:
        return []
    try:
        changed = {change.path for change in list_changes(paths)}
    except ReviewError:
        return list(rels)  # unknown: say what a person should look at
    return [rel for rel in rels if rel in changed]


def _known_sessions(paths: KBPaths) -> str:
    """A hint naming the staged sessions' ids (the first few), for a mistyped id."""
    import json

    ids = set()
    for path in sorted(paths.sessions.glob("*.json")) if paths.sessions.is_dir() else []:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("session_id"), str):
            ids.add(data["session_id"])
    if not ids:
        return "check the id: no session is staged in this repository"
    shown = ", ".join(sorted(ids)[:5]) + (", ..." if len(ids) > 5 else "")
    return f"check the id; staged sessions: {shown}"


def prune_command(ctx: typer.Context, json_output: JsonOption = False) -> None:
    """Delete staged sessions and logs older than the retention in config.yaml."""
    from lorebook.capture.retention import prune

    paths = repo_paths(ctx)
    retention = load_config(paths).retention
    removed = prune(paths, retention.sessions_days, retention.logs_days)
    if json_output:
        print_json({"ok": True, "removed": removed})
    else:
        say(f"pruned {len(removed)} files")


def scan_command(
    ctx: typer.Context,
    files: Annotated[
        list[Path] | None, typer.Argument(help="Files to scan (default: the knowledge base).")
    ] = None,
    json_output: JsonOption = False,
) -> None:
    """Look for secrets in the knowledge base (or the given files); exit 1 if any is found.

    Scans every committed file under .lorebook/ (notes, generated indexes, conflicts), the
    note index hooks read (.cache/index.sqlite), and every file's name. It finds every form
    capture's redaction removes. `lorebook init --pre-commit` runs it on staged files.
    """
    paths = repo_paths(ctx)
    for path in files or []:
        if not path.is_file():
            what = "is a folder; name files" if path.is_dir() else "no such file"
            raise LorebookError(f"{path}: {what}; nothing was scanned")
    targets = files or _default_targets(paths)
    hits = [hit for path in targets for hit in _scan_one(path)]
    if json_output:
        print_json({"ok": not hits, "secrets": hits})
    else:
        for hit in hits:
            where = "file name" if hit["line"] == 0 else f"line {hit['line']}"
            say(f"{hit['file']}: {where}: looks like a secret")
        say(f"{len(hits)} secrets found in {len(targets)} files")
    if hits:
        raise typer.Exit(1)


def _default_targets(paths: object) -> list[Path]:
    from lorebook.kb.paths import KBPaths

    assert isinstance(paths, KBPaths)
    found = sorted(p for p in paths.root.rglob("*") if p.is_file() and _committed(paths, p))
    index = paths.cache / "index.sqlite"
    return [*found, index] if index.is_file() else found


def _scan_one(path: Path) -> list[dict[str, object]]:
    """Hits in one file: line 0 for its name, then its lines (binary files read leniently)."""
    from lorebook.secrets.redact import find_secrets

    # A slug spells "password is hunter2" as password-is-hunter2: read it as words too.
    words = path.stem.replace("-", " ").replace("_", " ")
    named = find_secrets(path.name) or find_secrets(words)
    hits: list[dict[str, object]] = [{"file": str(path), "line": 0}] if named else []
    try:
        data = path.read_bytes()
    except OSError:
        return hits
    text = data.decode("utf-8", "replace").replace("\0", "\n")
    return hits + [{"file": str(path), "line": n} for n in find_secrets(text)]


def _committed(paths: object, path: Path) -> bool:
    from lorebook.kb.paths import KBPaths

    assert isinstance(paths, KBPaths)
    rel = path.relative_to(paths.root).parts
    return not rel or rel[0] not in ("bin", "_sessions", "_logs", ".state", ".cache")


def register(app: typer.Typer) -> None:
    """Add the commands to the app (``import`` is the importers' built-in plugin's)."""
    app.command("capture")(capture_command)
    app.command("forget-session")(forget_command)
    app.command("prune")(prune_command)
    app.command("scan")(scan_command)


def register_import(app: typer.Typer) -> None:
    """Add ``import`` to the app (called by the built-in plugin ``lorebook.builtin.importers``)."""
    app.command("import")(import_command)

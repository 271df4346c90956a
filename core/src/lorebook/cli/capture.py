"""``lorebook capture``, ``import``, ``forget-session``, ``prune`` and ``scan``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lorebook.cli.output import JsonOption, print_json, repo_paths, say, warn
from lorebook.config import load_config
from lorebook.errors import LorebookError


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
    from lorebook.plugins import get_plugins

    paths = repo_paths(ctx)
    spec = get_plugins().harness(harness)
    if spec.factory is None:
        raise LorebookError(f"harness {harness!r} is not supported yet")
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
    files: Annotated[list[Path], typer.Argument(help="Transcript exports to import.")],
    fmt: Annotated[
        str | None,
        typer.Option("--format", help="specstory, jsonl, kenkeep or console (default: guessed)."),
    ] = None,
    json_output: JsonOption = False,
) -> None:
    """Turn transcript exports (SpecStory markdown, normalised-turns JSONL) into session logs.

    Imported sessions are redacted like captured ones and wait for `lorebook extract`.
    """
    import importlib

    from lorebook.capture.stage import log_path, redact_log, through_capture_hook, write_log

    import_file = importlib.import_module("lorebook.importers").import_file

    paths = repo_paths(ctx)
    staged = []
    for file in files:
        log = through_capture_hook(redact_log(import_file(file, fmt)))
        target = log_path(paths, log.harness, log.session_id)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_log(target, log)
        staged.append({"file": str(file), "log": paths.rel(target), "turns": len(log.turns)})
        if not json_output:
            say(f"imported {file}: {len(log.turns)} turns -> {paths.rel(target)}")
    if json_output:
        print_json({"ok": True, "imported": staged})


def forget_command(
    ctx: typer.Context,
    session_id: Annotated[str, typer.Argument(help="The session id to forget.")],
    json_output: JsonOption = False,
) -> None:
    """Remove every trace of a session: staged log, proposals, LLM traces, hook state.

    Committed notes keep only the session's opaque origin id; committed conflict files that
    quote it are listed for you to delete (they are never rewritten silently).
    """
    from lorebook.capture.retention import forget_session

    paths = repo_paths(ctx)
    report = forget_session(paths, session_id)
    if json_output:
        print_json({"ok": True, "removed": report.removed, "notes_citing": report.notes_citing,
                    "conflicts_quoting": report.conflicts_quoting})  # fmt: skip
        return
    say(f"removed {len(report.removed)} files" if report.removed else "nothing staged for it")
    for rel in report.removed:
        say(f"  removed {rel}")
    for rel in report.notes_citing:
        say(f"  note citing it (keeps only the origin id): {rel}")
    for rel in report.conflicts_quoting:
        warn(f"lorebook: conflict file quoting it, delete it yourself if you wish: {rel}")


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

    Fits a pre-commit hook: `lorebook scan $(git diff --cached --name-only)`.
    """
    from lorebook.capture.redact import find_secrets

    paths = repo_paths(ctx)
    targets = files or sorted(
        p for p in paths.root.rglob("*") if p.is_file() and _committed(paths, p)
    )
    hits = []
    for path in targets:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        hits += [{"file": str(path), "line": n} for n in find_secrets(text)]
    if json_output:
        print_json({"ok": not hits, "secrets": hits})
    else:
        for hit in hits:
            say(f"{hit['file']}:{hit['line']}: looks like a secret")
        say(f"{len(hits)} secrets found in {len(targets)} files")
    if hits:
        raise typer.Exit(1)


def _committed(paths: object, path: Path) -> bool:
    from lorebook.kb.paths import KBPaths

    assert isinstance(paths, KBPaths)
    rel = path.relative_to(paths.root).parts
    return not rel or rel[0] not in ("bin", "_sessions", "_logs", ".state", ".cache")


def register(app: typer.Typer) -> None:
    """Add the commands to the app."""
    app.command("capture")(capture_command)
    app.command("import")(import_command)
    app.command("forget-session")(forget_command)
    app.command("prune")(prune_command)
    app.command("scan")(scan_command)

"""``lorebook lint``, ``lorebook doctor`` and ``lorebook status``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lorebook.cli.output import JsonOption, plural, print_json, repo_paths, say
from lorebook.config import load_config
from lorebook.doctor import run_doctor
from lorebook.kb.lint import lint, remember_lint
from lorebook.status import compute_status


def lint_command(ctx: typer.Context, json_output: JsonOption = False) -> None:
    """Check every note, edge, ledger and generated file; exit 1 on any error.

    Errors: invalid notes, id/file name mismatches, duplicate ids, dangling edges, an invalid
    redirects ledger, rejections ledger or summaries file, stale generated files, an active
    note reasserting a refuted one, a supersession recorded on one note only. Warnings
    (exit 0): orphans (one line: notes with no edge that no folder index lists), duplicate
    tags, edges to retired ids, stale link sections.
    """
    paths = repo_paths(ctx)
    config = load_config(paths)
    report = lint(paths, config.budgets.entry_chars)
    remember_lint(paths, report)
    if json_output:
        print_json(
            {
                "ok": not report.errors,
                "errors": len(report.errors),
                "warnings": len(report.warnings),
                "findings": [f.as_json() for f in report.findings],
            }
        )
    else:
        for finding in report.findings:
            say(f"{finding.severity}: [{finding.code}] {finding.message}")
        say(f"{plural(len(report.errors), 'error')}, {plural(len(report.warnings), 'warning')}")
    if report.errors:
        raise typer.Exit(1)


LiveOption = Annotated[
    bool,
    typer.Option(
        "--live",
        help="Also fire a canary event through every installed hook, exactly as the host "
        "runs it, and report per harness and event whether a well-formed answer came back.",
    ),
]


def doctor_command(
    ctx: typer.Context, live: LiveOption = False, json_output: JsonOption = False
) -> None:
    """Check the installation and this repository's knowledge base; say how to fix each problem.

    One line per problem with its fix, then a summary. Exit 1 on a problem; exit 0 when
    all that is left are steps only you can do, once, in a host ("action needed: trust
    the Codex hooks"). With --live, a hook that exits non-zero, prints something that is
    not its host's JSON, logs an error or never runs at all is a problem.
    """
    from lorebook.cli.doctor_view import action_summary, group_checks, render

    start = Path((ctx.find_root().obj or {}).get("repo") or Path.cwd())
    checks = run_doctor(start, live=live)
    findings = group_checks(checks)
    failed = [c for c in checks if c.state == "problem"]
    if json_output:
        print_json({"ok": not failed, "action_needed": action_summary(findings),
                    "findings": [f.as_json() for f in findings],
                    "checks": [c.as_json() for c in checks]})  # fmt: skip
    else:
        for line in render(findings):
            say(line)
    if failed:
        raise typer.Exit(1)


def status_command(ctx: typer.Context, json_output: JsonOption = False) -> None:
    """Summarise the knowledge base: notes, sessions, conflicts, rejected claims, lint state.

    A table on a terminal; plain lines when piped; one JSON document with --json.
    """
    paths = repo_paths(ctx)
    config = load_config(paths)
    status = compute_status(paths, config.budgets.entry_chars, config.harnesses)
    if json_output:
        print_json(status.as_json())
        return
    from lorebook.cli.status_view import print_status_table, sessions_line, stdout_is_terminal

    if stdout_is_terminal():
        print_status_table(status)
        return
    kinds = ", ".join(f"{n} {k}" for k, n in status.by_kind.items()) or "none"
    states = ", ".join(f"{n} {s}" for s, n in status.by_status.items()) or "none"
    say(f"notes: {status.notes} ({states}); by kind: {kinds}")
    if status.invalid:
        from lorebook.status import invalid_notes_line

        say(invalid_notes_line(status.invalid))
    say(f"sessions: {sessions_line(status)}")
    for failure in status.failures:
        retry = "retry: lorebook extract --retry-failed"
        say(f"  failed: {failure['log']}: {failure['error']}  ({retry})")
    say(f"conflicts: {status.open_conflicts} open")
    say(
        f"rejected claims: {status.rejected_claims} "
        "(curation drops them; .lorebook/rejected-claims.txt)"
    )
    lint_state = "clean" if not status.lint_errors else plural(status.lint_errors, "error")
    say(f"lint: {lint_state}, {plural(status.lint_warnings, 'warning')}")
    say(f"harnesses: {', '.join(status.harnesses) or 'none wired'}")
    for source, left in status.left_for_review.items():
        say(
            f"{source}: {plural(left['pending'], 'proposal')} pending curation, "
            f"{plural(left['unreviewed'], 'note')} unreviewed, "
            f"{plural(left['conflicts'], 'open conflict')}"
        )
    say(
        f"stale notes: {len(status.stale)}"
        + (
            " (check each: `lorebook note verify ID` when it still holds, else edit it or"
            " `lorebook note refute ID`)"
            if status.stale
            else ""
        )
    )
    for stale in status.stale:
        say(f"  {stale['id']} ({stale['path']}): {stale['mark']}")


def register(app: typer.Typer) -> None:
    """Add the commands to the app."""
    app.command("lint")(lint_command)
    app.command("doctor")(doctor_command)
    app.command("status")(status_command)

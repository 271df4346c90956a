"""``lorebook curate``: pending proposals become notes, merges and conflict files."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from lorebook.cli.output import JsonOption, finish, repo_paths
from lorebook.config import load_config

if TYPE_CHECKING:
    from lorebook.curate.journal import StepResult
    from lorebook.curate.run import CurateReport

_VERBS = {"add": "added", "modify": "merged", "contradict": "conflict", "drop": "dropped"}


def _line(result: StepResult, moved: dict[str, str]) -> str:
    verb = _VERBS.get(result.action, result.action)
    if result.status == "failed":
        return f"failed     {result.proposal_id}: {result.detail}"
    where = result.path or result.note_id or ""
    head, sep, under = where.partition("nodes/")
    if sep and under in moved:  # moved by the rebalance at the end of the run: where it is now
        where = f"{head}nodes/{moved[under]}"
    suffix = " (already applied)" if result.status == "already-applied" else ""
    if result.action == "drop":
        return f"{verb:<10} {result.proposal_id}: {result.detail}{suffix}"
    return f"{verb:<10} {result.proposal_id} -> {where}{suffix}"


def _rebalanced(report: CurateReport) -> list[str]:
    """What the rebalance trigger did at the end of the run."""
    lines = []
    for split in report.rebalance_splits:
        into = ", ".join(str(p["id"]) for p in split.get("into", []))
        lines.append(
            f"rebalance split {split['id']} into {into} (its id leads to them in "
            "nodes/.redirects.json)"
            if into
            else f"rebalance finished the interrupted split of {split['id']}"
        )
    if report.rebalanced:
        lines.append(
            f"rebalanced: {len(report.rebalanced)} notes moved into topical folders "
            "(ids unchanged; `lorebook rebalance --dry-run` explains the limits)"
        )
    return lines


def summary_lines(report: CurateReport, *, unit: str | None = "sessions") -> list[str]:
    """What a curation run did, a line per action and then the totals.

    ``unit`` names what the run curated: sessions for ``curate``, documents for ``bootstrap``;
    None leaves that count out (``harvest`` curates one batch of memories).
    """
    counts = report.counts()
    premises = [f"conflict from premises: {rel}" for rel in report.premise_conflicts]
    if report.run is None and report.resumed is None:
        nothing = "nothing to curate: no session log awaits curation (run `lorebook extract`)"
        if premises:
            premises.append(
                "decide the conflicts: `lorebook conflict list`, then `conflict resolve`"
            )
        return [nothing, *_rebalanced(report), *premises]
    moved = {m["from"]: m["to"] for m in report.rebalanced}
    lines = [_line(r, moved) for r in report.results]
    if report.resumed:
        lines.append(f"finished the interrupted run {report.resumed}")
    lines.append(
        f"curator {report.curator}: {counts['add']} added, {counts['modify']} merged, "
        f"{counts['contradict']} conflicts, {counts['drop']} dropped, {counts['failed']} failed"
    )
    if report.held_back:
        lines.append(
            f"{len(report.held_back)} held back, their action could not be written (the "
            "warnings say why and what you can do): " + ", ".join(report.held_back)
        )
    if report.rejected:
        lines.append(
            f"{len(report.rejected)} dropped as rejected before (.lorebook/rejected-claims.txt): "
            + ", ".join(report.rejected)
        )
    if unit is not None:
        curated = sum(1 for s in report.sessions.values() if s in ("curated", "already"))
        lines.append(f"{unit} curated: {curated} of {len(report.sessions)}")
    lines += premises
    lines += _rebalanced(report)
    if counts["contradict"] or premises:
        lines.append("decide the conflicts: `lorebook conflict list`, then `conflict resolve`")
    lines.append("review with `lorebook review` (it lists new files too), then commit or restore")
    return lines


def curate_command(
    ctx: typer.Context,
    curator: Annotated[
        str | None,
        typer.Option(
            "--curator",
            help="Curator to use: rules (default; offline), headless (the wired harness's "
            "CLI), http (an OpenAI-compatible endpoint, from extraction.* in config.yaml), "
            "or one a plugin provides.",
        ),
    ] = None,
    json_output: JsonOption = False,
) -> None:
    """Turn every pending proposal into one batch of actions and apply it.

    Near-duplicates are merged into the note they repeat; a contradiction never overwrites
    a note: it becomes a conflict file in .lorebook/conflicts/ for you to decide. The whole
    batch is validated before the first write: a proposal whose action cannot be written (a
    conflict that would quote a secret, say) is held back with one warning naming it, its
    session and what you can do, and the rest is written. An interrupted run is finished by
    the next one. Sessions whose proposals all landed (or were dropped or held back) are
    marked curated. At the end the rebalance trigger runs (`lorebook rebalance`; off with
    rebalance.after_curate: false); the notes it moved and split are listed (--json:
    rebalanced, rebalance_splits). Exits 1 if a step failed or the curator's answer was
    unusable.
    """
    from lorebook.cli.progress import finish_hint, progress
    from lorebook.cli.usage import require_providers
    from lorebook.curate.run import curate_pending
    from lorebook.rebalance.aftercurate import after_curation

    paths = repo_paths(ctx)
    config = load_config(paths)
    require_providers("curator", [curator] if curator else [])
    with (
        finish_hint("lorebook curate", "it completes the interrupted batch first"),
        progress("curating the pending proposals", json_output=json_output) as advance,
    ):
        report = curate_pending(
            paths,
            config,
            curator_name=curator,
            progress=lambda done, total: advance(total=total, completed=done),
            after=after_curation(paths, config),
        )
    finish(
        report.problems,
        report.as_json,
        lambda: summary_lines(report),
        json_output=json_output,
        failed=bool(report.failed),
    )


def register(app: typer.Typer) -> None:
    """Add the command to the app."""
    app.command("curate")(curate_command)

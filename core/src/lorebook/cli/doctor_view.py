"""``lorebook doctor``'s report: one line per problem with its one fix, then a summary.

A harness reports one item per hook, and a cause they share (Codex not trusting the
repository yet) would otherwise print the same fix eight times. Checks of one harness with
the same state, detail and fix are merged into one line: "Codex hook SessionStart,
UserPromptSubmit, ... in .codex/hooks.json".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lorebook.checks import Check

MARKS = {"ok": "ok    ", "warning": "warn  ", "action": "action", "problem": "FAIL  "}


@dataclass(frozen=True, slots=True)
class Finding:
    """Checks merged into one line: who, what, state, detail, the one fix."""

    owner: str
    what: str
    state: str
    detail: str
    fix: str | None
    count: int

    @property
    def line(self) -> str:
        """The report line, without the fix."""
        head = f"{self.owner}: {self.what}" if self.owner else self.what
        return f"{head}: {self.detail}"

    def as_json(self) -> dict[str, Any]:
        """The finding as a JSON-ready dict."""
        return {"check": self.line, "state": self.state, "fix": self.fix, "checks": self.count}


def merge_whats(whats: list[str]) -> str:
    """Merge descriptions that differ in one word: "hook A in f", "hook B in f" -> "hook A, B in f".

    Runs of such descriptions merge; others are joined with "; ".
    """
    pieces: list[list[str]] = []
    varying: list[int | None] = []
    for what in whats:
        words = what.split(" ")
        if pieces:
            last = pieces[-1][0].split(" ")
            diff = [i for i, (a, b) in enumerate(zip(last, words, strict=False)) if a != b]
            same_shape = len(last) == len(words) and len(diff) == 1
            if same_shape and varying[-1] in (None, diff[0]):
                pieces[-1].append(what)
                varying[-1] = diff[0]
                continue
        pieces.append([what])
        varying.append(None)
    merged = []
    for group, at in zip(pieces, varying, strict=True):
        if at is None:
            merged.append(group[0])
            continue
        words = group[0].split(" ")
        words[at] = ", ".join(w.split(" ")[at] for w in group)
        merged.append(" ".join(words))
    return "; ".join(merged)


def group_checks(checks: list[Check]) -> list[Finding]:
    """Merge each harness's checks that share state, detail and fix; keep the order.

    A check named ``"<owner>: <what>"`` belongs to that owner (a harness); others stand
    alone.
    """
    groups: dict[tuple[str, str, str, str | None], tuple[str, list[str]]] = {}
    for check in checks:
        owner, sep, what = check.name.partition(": ")
        if not sep:
            owner, what = "", check.name
        key = (owner or check.name, check.state, check.detail, check.fix)
        groups.setdefault(key, (owner, []))[1].append(what)
    return [
        Finding(owner, merge_whats(whats), state, detail, fix, len(whats))
        for (_, state, detail, fix), (owner, whats) in groups.items()
    ]


def action_summary(findings: list[Finding]) -> list[str]:
    """What the user must do by hand, once: "trust the Codex hooks"."""
    owners = sorted({f.owner for f in findings if f.state == "action" and f.owner})
    steps = [f"trust the {owner.capitalize()} hooks" for owner in owners]
    if any(f.state == "action" and not f.owner for f in findings):
        steps.append("the steps marked action above")
    return steps


def render(findings: list[Finding]) -> list[str]:
    """The report's lines: each finding (a fix under it), then the summary."""
    lines = []
    for finding in findings:
        lines.append(f"{MARKS.get(finding.state, finding.state)}  {finding.line}")
        if finding.fix and finding.state != "ok":
            lines.append(f"        fix: {finding.fix}")
    problems = sum(1 for f in findings if f.state == "problem")
    warnings = sum(1 for f in findings if f.state == "warning")
    steps = action_summary(findings)
    parts = [f"{problems} problem{'' if problems == 1 else 's'}"] if problems else []
    if warnings:
        parts.append(f"{warnings} warning{'' if warnings == 1 else 's'}")
    if steps:
        parts.append(f"action needed: {', '.join(steps)} (once, by hand: see fix above)")
    lines.append("; ".join(parts) if parts else "everything looks right")
    return lines

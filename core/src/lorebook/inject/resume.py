"""The resume brief: a few lines at session start about the last session on this branch.

When the previous session in this repository and on this branch ended mid-task, session
start adds what the human last asked, the files it changed and the notes it used, each list
ranked by relevance to the branch's recent changes (files with uncommitted changes first,
then files changed by the branch's last commits, then the rest in the order the session
last touched them; notes anchored to those files before the others).

"Ended mid-task" means, deterministically: a file the session changed still has uncommitted
changes now, or its last request got no answer (it stopped on a tool call or an error).
Capture writes the summary this reads (:func:`lorebook.stats.follow.remember_session`)
into ``.lorebook/.state/resume/`` (gitignored), so a fresh clone has none and gets no brief.
The brief is given at most once per session (a marker under ``.state/resume/given/``), fits
the session-start budget, and is never about the session that is starting.

Runs on the hook fast path: standard library only; git is asked twice, only when a summary
for this branch exists.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import time
import zlib

from lorebook.safeopen import write_atomic

TYPE_CHECKING = False
if TYPE_CHECKING:
    from lorebook.events import HookEvent
    from lorebook.inject.stages import Context

BRIEF_CHARS = 700
"""The brief's own cap; the session-start budget (``entry_chars``) may leave it less."""
RECENT_COMMITS = 20
"""How many of the branch's last commits count as its recent changes."""


def _safe_name(text: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", text)[:64]
    return f"{safe}-{zlib.crc32(text.encode('utf-8')):08x}"


def summary_path(kb_root: str, branch: str) -> str:
    """Where capture keeps the summary of the last session on ``branch``."""
    return os.path.join(kb_root, ".state", "resume", f"{_safe_name(branch)}.json")


def _given_path(kb_root: str, session_id: str) -> str:
    return os.path.join(kb_root, ".state", "resume", "given", _safe_name(session_id))


def git_branch(repo: str) -> str | None:
    """The checked-out branch, read from ``.git/HEAD`` (None: detached, or not a git repo)."""
    git = os.path.join(repo, ".git")
    if os.path.isfile(git):  # a worktree: "gitdir: <path>"
        try:
            with open(git, encoding="utf-8") as handle:
                pointed = handle.read().strip().removeprefix("gitdir:").strip()
        except OSError:
            return None
        git = pointed if os.path.isabs(pointed) else os.path.join(repo, pointed)
    try:
        with open(os.path.join(git, "HEAD"), encoding="utf-8") as handle:
            head = handle.read().strip()
    except OSError:
        return None
    prefix = "ref: refs/heads/"
    return head[len(prefix) :] if head.startswith(prefix) else None


def _git_lines(repo: str, *args: str) -> list[str]:
    import subprocess

    try:
        out = subprocess.run(
            ["git", "-C", repo, *args],
            capture_output=True,
            text=True,
            timeout=2,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    return [line for line in out.stdout.splitlines() if line.strip()] if not out.returncode else []


def _load_summary(kb_root: str, branch: str) -> dict[str, object] | None:
    try:
        with open(summary_path(kb_root, branch), encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("branch") == branch else None


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _clean(text: str, limit: int) -> str:
    """One line, sanitised as a note's text is (:func:`lorebook.inject.sanitize.sanitize`)."""
    from lorebook.inject.sanitize import sanitize

    line = " ".join(sanitize(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "\u2026"


def _ranked_files(repo: str, files: list[str]) -> tuple[list[tuple[str, str]], bool]:
    """(file, why) in relevance order, and whether any has uncommitted changes."""
    if not files:
        return [], False
    dirty = {line[3:].strip().strip('"') for line in _git_lines(repo, "status", "--porcelain")}
    recent = _git_lines(repo, "log", f"-{RECENT_COMMITS}", "--format=", "--name-only")
    order = {path: rank for rank, path in reversed(list(enumerate(recent)))}
    ranked = sorted(
        enumerate(files),
        key=lambda item: (
            item[1] not in dirty,
            order.get(item[1], len(recent)),
            item[0],
        ),
    )
    out = []
    for _, path in ranked:
        why = "uncommitted" if path in dirty else "committed" if path in order else ""
        out.append((path, why))
    return out, any(path in dirty for path in files)


def _count(value: object) -> int:
    return value if type(value) is int else 0


def _ranked_notes(notes: list[dict[str, object]], files: list[str]) -> list[dict[str, object]]:
    def anchored(note: dict[str, object]) -> bool:
        globs = _strings(note.get("files"))
        return any(fnmatch.fnmatchcase(f, g) for f in files for g in globs)

    return sorted(
        notes,
        key=lambda n: (not anchored(n), -_count(n.get("uses")), str(n.get("id", ""))),
    )


def _lines(summary: dict[str, object], repo: str) -> list[str]:
    """The brief's lines, most relevant first; [] when the session did not end mid-task."""
    files, dirty = _ranked_files(repo, _strings(summary.get("files")))
    answered = summary.get("answered") is True
    if not dirty and answered:
        return []
    why = "files it changed are not committed" if dirty else "its last request got no answer"
    ended = _clean(str(summary.get("ended_at") or "")[:16].replace("T", " "), 20)
    head = (
        f"lorebook resume: the last session on branch {summary.get('branch')} "
        f"({summary.get('harness')}{', ' + ended if ended else ''}) ended mid-task: {why}."
    )
    lines = [head]
    ask = _clean(str(summary.get("last_ask") or ""), 240)
    if ask:
        lines.append(f'- The human last asked: "{ask}"')
    if files:
        shown = [f"{path} ({why})" if why else path for path, why in files[:8]]
        lines.append("- Files it changed: " + ", ".join(shown))
    raw_notes = summary.get("notes")
    notes = [n for n in raw_notes if isinstance(n, dict)] if isinstance(raw_notes, list) else []
    for note in _ranked_notes(notes, [path for path, _ in files])[:3]:
        title = _clean(str(note.get("title") or note.get("id")), 100)
        lines.append(f"- Note it used: {title} (.lorebook/nodes/{note.get('path')})")
    return lines


def _fit(lines: list[str], budget: int) -> str:
    """Whole lines in order while they fit; the head line or nothing."""
    kept: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > budget:
            break
        kept.append(line)
        used += len(line) + 1
    return "\n".join(kept) if len(kept) > 1 else ""


def resume_brief(repo: str, session_id: str, budget: int) -> str:
    """The brief for a session starting now ("" for none; see the module docstring)."""
    kb_root = os.path.join(repo, ".lorebook")
    branch = git_branch(repo)
    budget = min(budget, BRIEF_CHARS)
    if branch is None or budget <= 0 or os.path.exists(_given_path(kb_root, session_id)):
        return ""
    summary = _load_summary(kb_root, branch)
    if summary is None or summary.get("session_id") == session_id:
        return ""
    from lorebook.inject.sanitize import sanitize

    text = _fit([sanitize(line) for line in _lines(summary, repo)], budget)  # file names too
    if text:
        write_atomic(_given_path(kb_root, session_id), f"{time.time():.0f}\n".encode(), sync=False)
    return text


def with_resume_brief(text: str, event: HookEvent, ctx: Context) -> str:
    """``text`` (the session-start answer) with the resume brief after it, within budget."""
    try:
        brief = resume_brief(ctx.repo, event.session_id, ctx.config.entry_chars - len(text) - 2)
    except Exception as exc:  # the brief is best effort: the catalog still goes out
        ctx.problems.append(f"resume brief: {type(exc).__name__}: {exc}")
        return text
    return f"{text}\n\n{brief}" if brief else text

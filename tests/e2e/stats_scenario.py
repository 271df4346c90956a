"""The three sessions the stats tests record: a note quoted, a rule obeyed, a note ignored.

Shared by the Claude Code and Codex CLI end-to-end tests (which run them with the real
clients) and by ``tests/core/test_stats_replay.py`` (which replays the transcripts they
recorded, kept in ``tests/fixtures/stats/``).
"""

from __future__ import annotations

UV_NOTE = (
    "--title", "Add dependencies with uv add",
    "--description", "Adding a Python dependency to this project",
    "--kind", "convention",
    "--body", "Dependencies go through `uv add <pkg>` so that uv.lock stays in step with "
    "pyproject.toml.",
)  # fmt: skip
UV_NOTE_ID = "convention-add-dependencies-with-uv-add"
DEPLOY_NOTE = (
    "--title", "Deploy with make deploy-staging",
    "--description", "Shipping a build from a working copy",
    "--kind", "prohibition",
    "--anchor-command", r"deploy\.sh prod",
    "--enforce", "warn",
    "--body", "Run `make deploy-staging`; never `./deploy.sh prod` from a laptop.",
)  # fmt: skip
DEPLOY_NOTE_ID = "prohibition-deploy-with-make-deploy-staging"
UNUSED_NOTE = (
    "--title", "Timestamps are stored in UTC",
    "--description", "Storing times in the database",
    "--kind", "convention",
    "--body", "Store every timestamp as UTC in `created_at`.",
)  # fmt: skip
UNUSED_NOTE_ID = "convention-timestamps-are-stored-in-utc"

QUOTE_PROMPT = "QUOTE_CASE how do I add the requests dependency to this project?"
QUOTE_REPLY = (
    "Following the project note: dependencies go through uv add so that uv.lock stays in "
    "step with pyproject.toml. Run uv add requests."
)
OBEY_PROMPT = "OBEY_CASE ship it"
FORBIDDEN = "./deploy.sh prod"
ALLOWED = "make deploy-staging"
IGNORE_PROMPT = "IGNORE_CASE how do I add the requests dependency to this project?"
IGNORE_REPLY = "ok"


def scripted(first_user_text: str, calls_made: int) -> tuple[str, str] | None:
    """What the mock model does next: ("say", text), ("shell", command), or None (default)."""
    if "QUOTE_CASE" in first_user_text:
        return ("say", QUOTE_REPLY)
    if "IGNORE_CASE" in first_user_text:
        return ("say", IGNORE_REPLY)
    if "OBEY_CASE" in first_user_text:
        steps = [("shell", FORBIDDEN), ("shell", ALLOWED), ("say", "done")]
        return steps[min(calls_made, 2)]
    return None

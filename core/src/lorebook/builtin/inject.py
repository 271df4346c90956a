"""The built-in ``inject`` hook: inject the text core rendered for the served notes."""

from __future__ import annotations

from lorebook.hookspecs import hookimpl


@hookimpl(trylast=True)
def inject(text: str) -> str:
    """Return core's own rendering; plugins before it (or wrapping it) may replace it."""
    return text

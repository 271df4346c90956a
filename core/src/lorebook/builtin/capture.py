"""The built-in ``capture`` hook: stage the (already redacted) log as it is."""

from __future__ import annotations

from lorebook.hookspecs import hookimpl

TYPE_CHECKING = False
if TYPE_CHECKING:
    from lorebook.models.session import SessionLog


@hookimpl(trylast=True)
def capture(log: SessionLog) -> SessionLog:
    """Return the log unchanged; plugins before it (or wrapping it) may redact more."""
    return log

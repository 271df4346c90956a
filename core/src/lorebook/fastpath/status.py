"""Whether the repository's warm hook process runs, is off, or could not start.

The files the warm process (:mod:`lorebook.fastpath.server`) keeps beside its socket, the
setting that turns it off, and :func:`describe`, what ``lorebook doctor`` says of it. Here,
not in the server, so that doctor asks without importing the warm process: standard
library, the hook settings and the client's connection check only.
"""

from __future__ import annotations

import os

from lorebook.fastpath.client import available, connect, socket_path

LOCK_NAME = "hookd.lock"
"""Held by the running warm process (its pid on the first line)."""
FAILED_NAME = "hookd.failed"
"""Written when a server cannot start: the reason, one line."""


def idle_minutes(kb_root: str) -> int:
    """``budgets.hook_server_minutes`` as the hooks read it."""
    from lorebook.hookconfig import load_hook_config

    return load_hook_config(kb_root).hook_server_minutes


def describe(kb_root: str) -> tuple[bool, str, str | None]:
    """(working as it should, what ``lorebook doctor`` says, the fix) of the warm process."""
    from lorebook.constants import ENV_HOOK_SERVER

    own = "every hook runs in its own process"
    if os.environ.get(ENV_HOOK_SERVER) == "0":
        return True, f"off on this machine ({ENV_HOOK_SERVER}=0): {own}", None
    if not available():
        return True, f"not available on this platform: {own}", None
    if idle_minutes(kb_root) <= 0:
        return True, f"off (budgets.hook_server_minutes is 0): {own}", None
    failed = os.path.join(kb_root, ".cache", FAILED_NAME)
    try:
        with open(failed, encoding="utf-8", errors="replace") as handle:
            reason = handle.readline().strip()
    except OSError:
        pass
    else:
        fix = f"fix that, then delete {os.path.relpath(failed, os.path.dirname(kb_root))}"
        return False, f"could not start ({reason}): {own}", fix
    try:
        connect(socket_path(kb_root), 1.0).close()
    except OSError:
        return True, "not running: the next hook starts it", None
    try:
        with open(os.path.join(kb_root, ".cache", LOCK_NAME), encoding="utf-8") as handle:
            pid = handle.readline().strip() or "?"
    except OSError:
        pid = "?"
    return True, f"running (pid {pid}): it answers the hooks of this repository", None

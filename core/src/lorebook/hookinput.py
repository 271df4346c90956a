"""What a hook reads from its host, bounded: stdin within the budget, fields within sizes.

A host that keeps stdin open (or a payload that never ends) must not hold the hook past
its budget: stdin is read with ``select`` against the deadline where the platform allows
it (POSIX pipes), in one bounded read elsewhere. Payload fields that become file names or
state keys (the session id, paths) are refused above a size, so an 8 MB session id cannot
make a 68 MB file. Standard library only (the hook path).
"""

from __future__ import annotations

import os
import re
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO

    from lorebook.events import HookEvent

MAX_PAYLOAD = 8 * 1024 * 1024
"""Largest payload read from stdin (hosts send a prompt or a tool call, not files)."""
MAX_SESSION_ID = 256
MAX_PATH = 4096
CHUNK = 1 << 16
SESSION_ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.:")
"""What a session id may hold: hosts use UUIDs, ``ses_...`` or ``rollout-...`` ids."""
TOKEN_PREFIXES = (
    "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "sk-", "sk_live_",
    "xoxa-", "xoxb-", "xoxp-", "hf_", "npm_", "pypi-", "AIza", "AKIA", "ASIA",
)  # fmt: skip
TOKEN_RE = (
    r"(?<![A-Za-z0-9])(?:" + "|".join(map(re.escape, TOKEN_PREFIXES)) + r")[A-Za-z0-9_-]{16,}"
)
"""Provider token prefixes: a field holding one is refused before any log records it (the
full redactor is too heavy for the hook path; these fields never legitimately hold one).
The pattern is compiled only for a value holding one of :data:`TOKEN_PREFIXES`."""


def holds_token(value: str) -> bool:
    """Whether ``value`` holds what looks like a provider token (:data:`TOKEN_RE`)."""
    if not any(prefix in value for prefix in TOKEN_PREFIXES):
        return False
    return re.search(TOKEN_RE, value) is not None


class StdinTimeout(TimeoutError):
    """The host did not close stdin within the hook's budget."""


def read_stdin(stream: BinaryIO, deadline: float, limit: int = MAX_PAYLOAD) -> bytes:
    """Read ``stream`` to its end, at most ``limit + 1`` bytes, before ``deadline``.

    Raises:
        StdinTimeout: the monotonic ``deadline`` passed before the stream ended.
    """
    try:
        fd = stream.fileno()
    except (OSError, ValueError):
        return stream.read(limit + 1)  # not a real descriptor (a test's buffer)
    if os.name == "nt":
        return stream.read(limit + 1)  # select() does not take pipes on Windows
    import select

    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        left = deadline - time.monotonic()
        if left <= 0:
            raise StdinTimeout(f"the host kept stdin open past the budget ({size:,} bytes read)")
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        chunk = os.read(fd, CHUNK)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def check_event(event: HookEvent) -> None:
    """Refuse an event whose identifying fields are larger than any real host sends.

    Raises:
        ValueError: naming the field and its size (never echoing the value).
    """
    sized = (
        ("session_id", event.session_id, MAX_SESSION_ID),
        ("cwd", event.cwd, MAX_PATH),
        ("transcript path", event.transcript_ref or "", MAX_PATH),
    )
    for name, value, limit in sized:
        if len(value) > limit:
            raise ValueError(f"the payload's {name} is {len(value):,} characters (limit {limit:,})")
        if holds_token(value):
            raise ValueError(f"the payload's {name} holds what looks like a token; refused")
        if "\0" in value:  # the OS would refuse it later with a message naming nothing
            raise ValueError(f"the payload's {name} holds a NUL character; refused")
    if not SESSION_ID_CHARS.issuperset(event.session_id):
        raise ValueError("the payload's session_id holds characters no host uses in one")

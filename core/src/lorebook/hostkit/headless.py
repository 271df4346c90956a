"""Headless runs of a host CLI: whether the prompt goes in argv or on stdin.

A prompt goes on stdin when it is too long for a comfortable argv, would read as an option
(it starts with ``-``) or cannot be an argument at all (it holds a NUL byte).
"""

from __future__ import annotations

ARGV_PROMPT_LIMIT = 64 * 1024
"""Prompts longer than this many UTF-8 bytes go on stdin, not in argv."""


def prompt_on_stdin(prompt: str, limit: int = ARGV_PROMPT_LIMIT) -> bytes | None:
    """The prompt's bytes when it must go on stdin, or None when it can be an argument.

    Args:
        prompt: The prompt.
        limit: The largest prompt, in UTF-8 bytes, to put in argv.

    Returns:
        The prompt encoded as UTF-8 (unencodable characters replaced), or None.
    """
    data = prompt.encode("utf-8", "replace")
    if len(data) > limit or prompt.startswith("-") or "\0" in prompt:
        return data
    return None

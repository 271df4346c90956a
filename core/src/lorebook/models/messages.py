"""Validation errors in words: what a value must be, never the regular expression behind it.

pydantic reports a pattern mismatch as "String should match pattern '^(?:practice|…)-…'",
which tells a person nothing. :func:`explain` turns each error of a
``ValidationError`` into words about the value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lorebook.models.note import ID_PATTERN

if TYPE_CHECKING:
    from collections.abc import Mapping

_PATTERNS = {
    ID_PATTERN: (
        "must be a note id: its kind or type ('prohibition-', 'practice-', 'map-', ...), "
        "then lowercase letters and digits in words joined by single hyphens (like "
        "tooling-run-tests-with-tox)"
    ),
    r"^[a-z0-9][a-z0-9._/+-]*$": (
        "must be a tag: lowercase letters and digits, then also . _ / + or -"
    ),
    r"^[^\r\n]*\S[^\r\n]*$": "must be one line of text, not empty",
    r"^[0-9a-f]{64}$": "must be a sha256 digest: 64 lowercase hexadecimal digits",
    r"^[A-Za-z0-9][A-Za-z0-9_.-]*$": (
        "must start with a letter or digit and hold only letters, digits, '_', '.' and '-'"
    ),
}


def explain(err: Mapping[str, Any]) -> str:
    """One pydantic error detail in words ("must be one line of text, not empty")."""
    if err.get("type") == "string_pattern_mismatch":
        pattern = str((err.get("ctx") or {}).get("pattern", ""))
        return _PATTERNS.get(pattern, "holds characters that are not allowed here")
    if err.get("type") == "value_error":
        # A validator's own sentence; pydantic prefixes it with "Value error, ".
        return str((err.get("ctx") or {}).get("error") or err.get("msg", "is not valid"))
    return str(err.get("msg", "is not valid"))

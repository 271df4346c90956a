"""Errors that reach the user: each names the file, field and value at fault."""

from __future__ import annotations


class LorebookError(Exception):
    """An expected failure, reported to the user as one clear message and exit code 1.

    A :class:`UsageError` exits 2.

    Args:
        message: What went wrong, naming the file, field and value at fault.
        hint: What the user can do about it, if anything useful can be said.
    """

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if self.hint is None else f"{self.message}\n  hint: {self.hint}"


class UsageError(LorebookError):
    """The command line itself is wrong (exit code 2, not 1).

    An option's value names nothing there is (a format, a harness, an extractor), or
    options are given that do not go together. A well-formed command that fails (a missing
    file, an invalid note) is a plain :class:`LorebookError`.
    """


class UnsafePathError(LorebookError):
    """A value that would become a path escapes the knowledge base or crosses a symlink."""


class NoteFormatError(LorebookError):
    """A note file or a note value is not valid (the message names the file and field)."""


class ConfigError(LorebookError):
    """``config.yaml`` is missing, unreadable or invalid."""


class NotInitializedError(LorebookError):
    """The command needs a knowledge base and there is none here."""


class UnknownProviderError(LorebookError):
    """A configured provider name matches no registered provider."""


class DuplicateProviderError(LorebookError):
    """Two plugins register a provider under the same name."""

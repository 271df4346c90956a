"""Usage errors: a value given on the command line that names nothing there is (exit 2)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Literal

from lorebook.errors import UnknownProviderError, UsageError

ProviderKind = Literal["harness", "store", "extractor", "curator"]


def did_you_mean(value: str, known: Iterable[str]) -> str | None:
    """The hint for a close spelling of a known value ("did you mean 'console'?"), or None."""
    close = difflib.get_close_matches(value, list(known), n=1)
    return f"did you mean {close[0]!r}?" if close else None


def require_providers(kind: ProviderKind, names: Iterable[str]) -> None:
    """Refuse a provider named on the command line that no installed plugin registers.

    The same name in config.yaml is a configuration error (exit 1), raised where the
    configuration is read; here it is the command line that is wrong.

    Raises:
        UsageError: the message of :class:`UnknownProviderError`, with a "did you mean"
            when a registered name is close, else its install hint.
    """
    from lorebook.plugins import get_plugins

    plugins = get_plugins()
    for name in names:
        try:
            getattr(plugins, kind)(name)
        except UnknownProviderError as exc:
            known = getattr(plugins, f"{kind}s" if kind != "harness" else "harnesses")()
            hint = did_you_mean(name, known) or exc.hint
            raise UsageError(exc.message, hint=hint) from None

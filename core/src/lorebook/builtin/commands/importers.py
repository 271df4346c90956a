"""``lorebook import``: session logs from transcripts, exports and host session stores.

A built-in plugin on the ``register_commands`` hook, called as a third party's is. The
command's module is imported only when the application is built, never on the hook path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lorebook.hookspecs import hookimpl

if TYPE_CHECKING:
    import typer


@hookimpl(trylast=True)
def register_commands(cli: typer.Typer) -> None:
    """Add ``lorebook import``."""
    from lorebook.cli import capture

    capture.register_import(cli)

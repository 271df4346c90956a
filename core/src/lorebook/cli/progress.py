"""Progress bars for long commands (rich), shown only to a person watching a terminal.

A bar goes to stderr, and only when stderr is a terminal and the command was not asked for
``--json``: piped or captured output, CI logs and JSON documents stay exactly as they were.
Commands hand the callback to the function doing the work, which calls it once per unit
done, so core code never imports rich::

    with progress("extracting", total=len(logs), json_output=json_output) as advance:
        for log in logs:
            extract_one(log)
            advance()

``track`` wraps an iterable the same way. ``finish_hint`` turns Ctrl-C during a long writer
into one line saying what to run to finish, and exit code 130.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")

Advance = Callable[..., None]
"""Called once per unit of work done; ``advance(n)`` for n units at once. Keywords set the
bar anew: ``total`` (once it is known), ``completed`` (units done so far) and
``description`` (the step now running), e.g. ``advance(0, total=12, description="x")``."""


def _noop(
    units: int = 1,
    *,
    total: int | None = None,
    completed: int | None = None,
    description: str | None = None,
) -> None:
    """Advance nothing: there is no bar to move."""


def bars_enabled(json_output: bool = False) -> bool:
    """Whether to draw bars: stderr is a terminal, no ``--json``, ``TERM`` is not ``dumb``."""
    if json_output or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty and isatty())


@contextmanager
def progress(
    description: str, total: int | None = None, *, json_output: bool = False
) -> Iterator[Advance]:
    """A bar titled ``description`` for ``total`` units (None: a spinner with a count).

    Yields the advance callback; it does nothing when bars are not enabled. The bar is
    removed when the block ends, so the command's own report is all that stays on screen.
    """
    if not bars_enabled(json_output):
        yield _noop
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )
    from rich.text import Text

    class Count(MofNCompleteColumn):
        """``done/total``; only ``done`` until the total is known (never ``0/?``)."""

        def render(self, task: Any) -> Text:
            if task.total is None:
                return Text(str(int(task.completed)), style="progress.download")
            return super().render(task)

    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        Count(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(description, total=total)

        def advance(
            units: int = 1,
            *,
            total: int | None = None,
            completed: int | None = None,
            description: str | None = None,
        ) -> None:
            if total is None and completed is None and description is None:
                bar.advance(task, units)
                return
            fields: dict[str, Any] = {"total": total, "completed": completed}
            fields = {k: v for k, v in fields.items() if v is not None}
            if description is not None:
                fields["description"] = description
            if completed is None:
                fields["advance"] = units
            bar.update(task, refresh=True, **fields)  # a new step is shown at once

        yield advance


def track(
    items: Iterable[T], description: str, *, total: int | None = None, json_output: bool = False
) -> Iterator[T]:
    """Yield ``items``, moving a bar one step per item (see :func:`progress`)."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with progress(description, total, json_output=json_output) as advance:
        for item in items:
            yield item
            advance()


@contextmanager
def finish_hint(command: str, why: str) -> Iterator[None]:
    """On Ctrl-C inside the block: say ``run `command` to finish (why)`` and exit 130.

    Typer turns a KeyboardInterrupt that reaches it into a silent exit 130, so a long
    writer that a rerun completes catches it here, where it still knows what to say.
    """
    import typer

    try:
        yield
    except KeyboardInterrupt:
        sys.stderr.write(f"\nlorebook: interrupted; run `{command}` to finish ({why})\n")
        raise typer.Exit(130) from None

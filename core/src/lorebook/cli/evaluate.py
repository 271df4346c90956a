"""``lorebook eval``: measure lorebook against labelled data and baselines."""

from __future__ import annotations

import typer

from lorebook.cli import eval_extraction

eval_app = typer.Typer(
    name="eval",
    help="Measure lorebook: extraction against labelled sessions.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
eval_extraction.register(eval_app)


def register(app: typer.Typer) -> None:
    """Add the ``eval`` group to the application."""
    app.add_typer(eval_app, name="eval")

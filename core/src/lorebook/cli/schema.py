"""``lorebook schema NAME``: the JSON Schema of a model validated at rest or at the CLI."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

import typer

from lorebook.cli.output import JsonOption, print_json


class SchemaName(StrEnum):
    """The models with a schema."""

    config = "config"
    note = "note"
    session_log = "session-log"
    proposal = "proposal"
    curator_action = "curator-action"
    conflict = "conflict"


def schema_command(
    name: Annotated[SchemaName, typer.Argument(help="Which model.", case_sensitive=False)],
    json_output: JsonOption = False,
) -> None:
    """Print the JSON Schema of config, note, session-log, proposal, curator-action or conflict.

    The output is always one JSON document, the schema itself; --json is accepted, as by
    every command, and changes nothing.
    """
    del json_output  # the schema is JSON either way
    from pydantic import TypeAdapter

    from lorebook import models

    targets: dict[SchemaName, Any] = {
        SchemaName.config: models.Config,
        SchemaName.note: models.Note,
        SchemaName.session_log: models.SessionLog,
        SchemaName.proposal: models.Proposal,
        SchemaName.curator_action: models.CuratorAction,
        SchemaName.conflict: models.Conflict,
    }
    adapter: TypeAdapter[Any] = TypeAdapter(targets[name])
    print_json(adapter.json_schema(by_alias=True))


def register(app: typer.Typer) -> None:
    """Add the command to the app."""
    app.command("schema")(schema_command)

"""Reading a JSON state file of lorebook's into its model, with one clear error when it is bad.

Bootstrap's state, harvest's ledgers and curate's journal are JSON files lorebook writes
under ``.lorebook/.state/``. A file damaged by hand or by another tool is refused with one
line naming the file, what it should be, the first field that is wrong and why, and a hint
saying what deleting it costs; a missing file is simply absent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel, ValidationError

from lorebook.errors import LorebookError

if TYPE_CHECKING:
    from pathlib import Path

    from lorebook.kb.paths import KBPaths

Model = TypeVar("Model", bound=BaseModel)


def read_state(
    paths: KBPaths,
    path: Path,
    model: type[Model],
    *,
    what: str,
    hint: str,
    error: type[LorebookError] = LorebookError,
) -> Model | None:
    """The ``model`` held by ``path``, or None when the file does not exist.

    Raises:
        LorebookError: (or ``error``) the file is not valid JSON for ``model``: "<file>:
            not <what> (<field>: <why>)", with ``hint``.
    """
    try:
        return model.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        return None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"])) or "(top level)"
        raise error(f"{paths.rel(path)}: not {what} ({where}: {first['msg']})", hint=hint) from None

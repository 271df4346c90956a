"""The built-in ``personal`` store: notes a person keeps for themselves, never committed."""

from __future__ import annotations

from lorebook.hookspecs import hookimpl
from lorebook.providers import StoreSpec


@hookimpl(trylast=True)
def register_stores() -> list[StoreSpec]:
    """Provide the personal store (``stores: [markdown, personal]`` ranks it with the team's)."""
    from lorebook.kb.personal import open_personal_store

    return [
        StoreSpec(
            name="personal",
            factory=open_personal_store,
            description="Your own notes, across repositories, in the per-user data folder.",
        )
    ]

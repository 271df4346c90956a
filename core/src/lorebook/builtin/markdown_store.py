"""The built-in ``markdown`` store: the repository knowledge base under ``.lorebook/``."""

from __future__ import annotations

from lorebook.hookspecs import hookimpl
from lorebook.providers import StoreSpec


@hookimpl(trylast=True)
def register_stores() -> list[StoreSpec]:
    """Provide the markdown store, the default and the only one a consumer needs."""
    from lorebook.kb.store import open_store

    return [
        StoreSpec(
            name="markdown",
            factory=open_store,
            description="Notes as markdown files under .lorebook/nodes/, reviewed with git.",
        )
    ]

# mypy: disable-error-code="empty-body"
"""Every lorebook hook specification, grouped by lifecycle.

Plugins implement these with :data:`hookimpl` (also importable as ``lorebook.hookimpl``).
Core never calls ``pm.hook`` directly: it goes through the typed facade in
:mod:`lorebook.plugins`. Arguments are keyword-only public types from
:mod:`lorebook.models`; new arguments may be added, and a plugin receives only those it names.

Two kinds of hooks:

- **Providers** (``register_*``) return named records whose factories build the object that
  does the work; config picks one by name.
- **Pipeline hooks** (``capture``, ``extract``, ``curate``, ``recall``, ``inject``) let
  plugins wrap or contribute to a stage. The built-in implementations (``trylast``) call the
  configured providers.

Some pipeline hooks are specified ahead of the stage that calls them, so plugin authors can
build against the whole contract; ``docs/hooks.md`` says which ones this release calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

from lorebook.constants import PROJECT_NAME

if TYPE_CHECKING:
    from lorebook.events import Hit, HookEvent, RecallQuery
    from lorebook.models.curation import CuratorAction
    from lorebook.models.session import Proposal, SessionLog
    from lorebook.providers import CuratorSpec, ExtractorSpec, HarnessSpec, StoreSpec
    from lorebook.store import NoteStore

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)

# --- providers -------------------------------------------------------------------------


@hookspec
def register_harnesses() -> list[HarnessSpec]:
    """Declare the coding-assistant hosts this plugin translates.

    Called by core whenever it needs the harness table: ``lorebook init``, ``doctor``,
    ``plugins``, and the capture and extraction stages. Collected: every plugin's list is
    merged; names must be unique across plugins (a duplicate is an error naming both
    distributions). Return an empty list to declare nothing.

    Returns:
        Harness records, each with a name and a factory.

    Example:
        >>> from lorebook.providers import HarnessSpec
        >>> @hookimpl
        ... def register_harnesses():
        ...     return [HarnessSpec(name="myhost", factory=MyHostHarness)]
    """


@hookspec
def register_stores() -> list[StoreSpec]:
    """Declare note stores (the markdown knowledge base is the built-in one).

    Called by core when it opens the stores config names (``stores: [markdown]``).
    Collected, names unique across plugins.

    Returns:
        Store records; each factory takes the repository root and returns a ``NoteStore``.

    Example:
        >>> @hookimpl
        ... def register_stores():
        ...     return [StoreSpec(name="team", factory=TeamServerStore)]
    """


@hookspec
def register_extractors() -> list[ExtractorSpec]:
    """Declare proposal extractors (deterministic, headless-host LLM, HTTP LLM).

    Called by ``lorebook extract`` to find the configured extractor. Collected, names unique.

    Returns:
        Extractor records.

    Example:
        >>> @hookimpl
        ... def register_extractors():
        ...     return [ExtractorSpec(name="mine", factory=MyExtractor)]
    """


@hookspec
def register_curators() -> list[CuratorSpec]:
    """Declare curators, which turn proposals into a batch of actions.

    Called by ``lorebook curate`` to find the configured curator. Collected, names unique.

    Returns:
        Curator records.

    Example:
        >>> @hookimpl
        ... def register_curators():
        ...     return [CuratorSpec(name="careful", factory=CarefulCurator)]
    """


# --- pipeline --------------------------------------------------------------------------


@hookspec(firstresult=True)
def capture(log: SessionLog) -> SessionLog | None:
    """Finish a session log before it is staged under ``_sessions/``.

    Called by the capture stage on stop, session end and pre-compact, after core removed
    ``<private>`` spans and redacted secrets. First result: the built-in (``trylast``)
    returns the log unchanged; a plugin returning a log replaces it, and ``None`` passes.
    Use ``wrapper=True`` to transform what the inner implementations return (further
    redaction, say). The result must not carry anything the input had removed.

    Args:
        log: The redacted session log about to be staged.

    Returns:
        The log to stage, or None to leave the decision to the next plugin.

    Example:
        >>> @hookimpl(wrapper=True)
        ... def capture(log):
        ...     staged = yield
        ...     return staged.model_copy(update={"turns": [scrub(t) for t in staged.turns]})
    """


@hookspec
def extract(log: SessionLog) -> list[Proposal] | None:
    """Propose candidate notes from one staged session log.

    Called by ``lorebook extract`` once per pending log, beside the configured extractor
    (a ``register_extractors`` provider). Collected: every plugin's proposals are pooled with
    the extractor's. ``None`` contributes nothing. Each proposal's quote must occur in the
    log; core rejects and logs any that does not.

    Args:
        log: The staged, redacted session log.

    Returns:
        Proposals, or None.

    Example:
        >>> @hookimpl
        ... def extract(log):
        ...     return [p for p in my_rules(log)]
    """


@hookspec(firstresult=True)
def curate(proposals: list[Proposal], store: NoteStore) -> list[CuratorAction] | None:
    """Turn pending proposals into one batch of add / modify / contradict / drop actions.

    Called by ``lorebook curate`` with every pending proposal whose claim a person has not
    rejected (core drops those itself). First result: the built-in (``trylast``) runs the
    configured curator; ``None`` passes to the next plugin. Core files every ``add`` in a
    folder of its note's kind and validates the whole batch before the first write.

    Args:
        proposals: Pending proposals, in session then proposal order.
        store: The store being curated (read it to find duplicates and contradictions).

    Returns:
        The batch of actions, or None.

    Example:
        >>> @hookimpl
        ... def curate(proposals, store):
        ...     return [DropAction(proposal_id=p.id, reason="test") for p in proposals]
    """


@hookspec
def recall(query: RecallQuery) -> list[Hit] | None:
    """Contribute scored candidate notes for a query.

    Called on the hook path (prompt and tool events) and by ``lorebook recall``. Collected:
    core ranks the union of every plugin's hits with the built-in ranker's. ``None``
    contributes nothing. On the hook path only plugins named in config by module path run.

    Args:
        query: What to recall for (text, files, tool, command) and how many hits.

    Returns:
        Hits, or None.

    Example:
        >>> @hookimpl
        ... def recall(query):
        ...     return [Hit(note_id="practice-x", score=1.0, store="mine")]
    """


@hookspec(firstresult=True)
def inject(event: HookEvent, hits: list[Hit]) -> str | None:
    r"""Render the final block of text injected for an event.

    Called on the hook path once the hits are ranked and cut to the budget. First result:
    the built-in (``trylast``) renders whole notes or pointers; ``None`` passes. Return an
    empty string to inject nothing.

    Args:
        event: The normalised host event.
        hits: The ranked hits that fit the budget.

    Returns:
        The text to inject, or None.

    Example:
        >>> @hookimpl
        ... def inject(event, hits):
        ...     return "\\n".join(h.title for h in hits)
    """


PROVIDER_HOOKS = (
    "register_harnesses",
    "register_stores",
    "register_extractors",
    "register_curators",
)
PIPELINE_HOOKS = ("capture", "extract", "curate", "recall", "inject")

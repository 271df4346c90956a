# mypy: disable-error-code="empty-body"
"""Every lorebook hook specification, grouped by lifecycle.

Plugins implement these with :data:`hookimpl` (also importable as ``lorebook.hookimpl``).
Core calls the provider hooks through the typed facade in :mod:`lorebook.plugins` (one
implementation at a time, so a raising plugin fails alone), and the pipeline hooks through
a plugin manager's relay (``pm.hook``), where each spec's ``Caller:`` line says. Arguments
are keyword-only public types from :mod:`lorebook.models` and :mod:`lorebook.events`; new
arguments may be added, and a plugin receives only those it names.

Two kinds of hooks:

- **Providers** (``register_*``) return named records whose factories build the object that
  does the work; config picks one by name. ``register_commands`` adds sub-commands to the
  ``lorebook`` command line instead (the built-in features add theirs the same way).
- **Pipeline hooks** (``capture``, ``extract``, ``curate``, ``recall``, ``inject``) let
  plugins wrap or contribute to a stage. The built-in implementations (``trylast``) call the
  configured providers.

Every spec is called by core: its docstring's ``Caller:`` line names the functions that
call it (a test calls each and checks that the hook was called through the plugin
manager), and its example runs as a doctest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

from lorebook.constants import PROJECT_NAME

if TYPE_CHECKING:
    import typer

    from lorebook.curate.base import Curator
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

    Caller: :meth:`lorebook.plugins.Plugins.harnesses`, whenever core needs the harness
    table: ``lorebook init``, ``doctor``, ``plugins``, and the capture and extraction
    stages. Collected: every plugin's list is merged; names must be unique across plugins
    (a duplicate is an error naming both distributions). Return an empty list to declare
    nothing.

    Returns:
        Harness records, each with a name and a factory.

    Example:
        >>> from lorebook.hostkit.harnesses import lazy_factory
        >>> from lorebook.plugins import make_plugins
        >>> from lorebook.providers import HarnessSpec
        >>> class MyHost:
        ...     @hookimpl
        ...     def register_harnesses(self):
        ...         return [HarnessSpec(name="myhost", factory=lazy_factory("my_host:Harness"))]
        >>> plugins = make_plugins(load_external=False)
        >>> plugins.pm.register(MyHost())  # doctest: +ELLIPSIS
        '...'
        >>> "myhost" in plugins.harnesses()
        True
    """


@hookspec
def register_stores() -> list[StoreSpec]:
    """Declare note stores (``markdown`` and ``personal`` are the built-in ones).

    Caller: :meth:`lorebook.plugins.Plugins.stores`, when core opens the stores config names
    (``stores: [markdown, personal]``, by ``lorebook.kb.personal.open_stores``) for
    ``recall``, ``note add --store`` and the MCP server. Collected, names unique across
    plugins; a name config uses that no plugin provides fails, listing the valid ones.

    Returns:
        Store records; each factory takes the repository root and returns a ``NoteStore``.

    Example:
        >>> from lorebook.plugins import make_plugins
        >>> from lorebook.providers import StoreSpec
        >>> from lorebook.testing import MemoryStore
        >>> class Team:
        ...     @hookimpl
        ...     def register_stores(self):
        ...         return [StoreSpec(name="team", factory=lambda repo: MemoryStore())]
        >>> plugins = make_plugins(load_external=False)
        >>> plugins.pm.register(Team())  # doctest: +ELLIPSIS
        '...'
        >>> sorted(plugins.stores())
        ['markdown', 'personal', 'team']
    """


@hookspec
def register_extractors() -> list[ExtractorSpec]:
    """Declare proposal extractors (deterministic, headless-host LLM, HTTP LLM).

    Caller: :meth:`lorebook.plugins.Plugins.extractors`, when ``lorebook extract`` looks up
    the configured extractor. Collected, names unique.

    Returns:
        Extractor records.

    Example:
        >>> from lorebook.plugins import make_plugins
        >>> from lorebook.providers import ExtractorSpec
        >>> class Mine:
        ...     @hookimpl
        ...     def register_extractors(self):
        ...         return [ExtractorSpec(name="mine", factory=dict)]
        >>> plugins = make_plugins(load_external=False)
        >>> plugins.pm.register(Mine())  # doctest: +ELLIPSIS
        '...'
        >>> plugins.extractor("mine").name
        'mine'
    """


@hookspec
def register_curators() -> list[CuratorSpec]:
    """Declare curators, which turn proposals into a batch of actions.

    Caller: :meth:`lorebook.plugins.Plugins.curators`, when ``lorebook curate`` looks up the
    configured curator. Collected, names unique.

    Returns:
        Curator records.

    Example:
        >>> from lorebook.plugins import make_plugins
        >>> from lorebook.providers import CuratorSpec
        >>> class Careful:
        ...     @hookimpl
        ...     def register_curators(self):
        ...         return [CuratorSpec(name="careful", factory=dict)]
        >>> plugins = make_plugins(load_external=False)
        >>> plugins.pm.register(Careful())  # doctest: +ELLIPSIS
        '...'
        >>> plugins.curator("careful").name
        'careful'
    """


@hookspec
def register_commands(cli: typer.Typer) -> None:
    """Add sub-commands to the ``lorebook`` command line.

    Caller: :func:`lorebook.cli.app.build_app`, once, when ``lorebook`` builds its
    application (every command but ``note`` and ``index``, which run from an application of
    their own), through :meth:`lorebook.plugins.Plugins.register_commands`, one
    implementation at a time: the built-in features (``bootstrap``, ``harvest``, ``import``,
    ``pack``, ``stats``, ``eval``, ``mcp``) first, then entry-point plugins in loading order
    (a command lorebook ships runs without the entry-point plugins' commands; ``--help``,
    ``--version``, ``plugins``, ``doctor`` and any other command have them). A plugin that
    raises, or adds a command whose name is taken already, fails alone: what it added is
    taken back and ``lorebook plugins`` shows why. ``lorebook --help`` lists the built-in
    commands in their usual order, then the plugins' ones.

    Args:
        cli: The application (a ``typer.Typer``); add commands with ``cli.command(name)``
            and groups with ``cli.add_typer(group, name=name)``. Import what the command
            needs inside it, not at module level: every ``lorebook`` command builds the
            application.

    Example:
        >>> import typer
        >>> from typer.testing import CliRunner
        >>> from lorebook.cli.app import build_app
        >>> from lorebook.plugins import make_plugins
        >>> class Hello:
        ...     @hookimpl
        ...     def register_commands(self, cli):
        ...         @cli.command("hello", help="Say hello.")
        ...         def hello(name: str = "world") -> None:
        ...             typer.echo(f"hello {name}")
        >>> plugins = make_plugins(load_external=False)
        >>> plugins.pm.register(Hello())  # doctest: +ELLIPSIS
        '...'
        >>> print(CliRunner().invoke(build_app(plugins), ["hello", "--name", "lb"]).output)
        hello lb
        <BLANKLINE>
    """


# --- pipeline --------------------------------------------------------------------------


@hookspec(firstresult=True)
def capture(log: SessionLog) -> SessionLog | None:
    """Finish a session log before it is staged under ``_sessions/``.

    Caller: :func:`lorebook.capture.plugins.capture_hook`, on each batch of new turns that
    capture appends: on stop, session end and pre-compact for the modules ``config.yaml``
    names in ``hook_plugins`` (no entry points on the hook path; the same pluggy semantics,
    ``lorebook.hookplugins``), and for ``lorebook capture`` and native imports also every
    entry-point plugin; and :func:`lorebook.capture.stage.through_capture_hook` for a whole
    imported export. Always
    after core removed ``<private>`` spans and redacted secrets, and the result is redacted
    again. First result: the built-in (``trylast``) returns the log unchanged; a plugin
    returning a log replaces it, and ``None`` passes. Use ``wrapper=True`` to transform
    what the inner implementations return (further redaction, say). The result must not
    carry anything the input had removed.

    Args:
        log: The redacted session log about to be staged: at capture, its header fields
            and only the new turns and injections (what is staged already is never
            passed again).

    Returns:
        The log to stage, or None to leave the decision to the next plugin.

    Example:
        >>> from lorebook.models import SessionLog
        >>> from lorebook.plugins import make_plugins
        >>> class Scrub:
        ...     @hookimpl(wrapper=True)
        ...     def capture(self, log):
        ...         staged = yield
        ...         return staged.model_copy(update={"error": "scrubbed"})
        >>> plugins = make_plugins(load_external=False)
        >>> plugins.pm.register(Scrub())  # doctest: +ELLIPSIS
        '...'
        >>> log = SessionLog(harness="claude", session_id="s", origin="claude:s",
        ...                  transcript_hash="", transcript_length=0)
        >>> plugins.hook.capture(log=log).error
        'scrubbed'
    """


@hookspec
def extract(log: SessionLog) -> list[Proposal] | None:
    """Propose candidate notes from one staged session log.

    Caller: :func:`lorebook.extract.run._plugin_proposals`, once per pending log in
    ``lorebook extract``, beside the configured extractor (a ``register_extractors``
    provider). Collected: every plugin's proposals are pooled with the extractor's.
    ``None`` contributes nothing. Each proposal's quote must occur in the log; core
    rejects and logs any that does not.

    Args:
        log: The staged, redacted session log.

    Returns:
        Proposals, or None.

    Example:
        >>> from lorebook.models import SessionLog
        >>> from lorebook.plugins import make_plugins
        >>> class Nothing:
        ...     @hookimpl
        ...     def extract(self, log):
        ...         return None
        >>> plugins = make_plugins(load_external=False)
        >>> plugins.pm.register(Nothing())  # doctest: +ELLIPSIS
        '...'
        >>> log = SessionLog(harness="claude", session_id="s", origin="claude:s",
        ...                  transcript_hash="", transcript_length=0)
        >>> plugins.hook.extract(log=log)
        []
    """


@hookspec(firstresult=True)
def curate(
    proposals: list[Proposal], store: NoteStore, curator: Curator
) -> list[CuratorAction] | None:
    """Turn pending proposals into one batch of add / modify / contradict / drop actions.

    Caller: :func:`lorebook.curate.run.ask_curator`, once per ``lorebook curate`` run with
    every pending proposal whose claim a person has not rejected (core drops those itself).
    First result: the built-in (``trylast``) runs ``curator``; ``None`` passes to the next
    plugin. Core files every ``add`` in a folder of its note's kind and validates the
    whole batch before the first write.

    Args:
        proposals: Pending proposals, in session then proposal order.
        store: The store being curated (read it to find duplicates and contradictions).
        curator: The curator the run chose (``--curator``, built from its
            ``register_curators`` record); a wrapper may run it and change its answer.

    Returns:
        The batch of actions, or None.

    Example:
        >>> from lorebook.plugins import make_plugins
        >>> from lorebook.testing import MemoryStore
        >>> class DropAll:
        ...     @hookimpl(tryfirst=True)
        ...     def curate(self, proposals):
        ...         return []
        >>> plugins = make_plugins(load_external=False)
        >>> plugins.pm.register(DropAll())  # doctest: +ELLIPSIS
        '...'
        >>> plugins.hook.curate(proposals=[], store=MemoryStore(), curator=None)
        []
    """


@hookspec
def recall(query: RecallQuery) -> list[Hit] | None:
    """Contribute scored candidate notes for a query.

    Caller: :func:`lorebook.recall.pipeline.call_recall` on the hook path (prompt events),
    through a plugin manager holding the modules ``config.yaml`` names in ``hook_plugins``
    (``lorebook.hookplugins.manager_for``; a plain ``recall`` function of such a module
    is an implementation, ``@hookimpl`` gives it options); and
    :meth:`lorebook.plugins.Plugins.recall_hits` for ``lorebook recall`` and the MCP
    server, for those modules and every entry-point plugin. Collected: a hit naming a note
    of a configured store (``Hit.store``, ``Hit.note_id``) joins the notes the ranker kept,
    at its score, and is validated and rendered like them; other hits are ignored.
    ``None`` contributes nothing. A plugin that raises is skipped.

    Args:
        query: What to recall for (text, files, tool, command) and how many hits.

    Returns:
        Hits, or None.

    Example:
        >>> import types
        >>> from lorebook.events import Hit, RecallQuery
        >>> from lorebook.hookplugins import manager
        >>> from lorebook.recall.pipeline import call_recall
        >>> plugin = types.ModuleType("myplugin")
        >>> plugin.recall = lambda query: [Hit(note_id="practice-x", score=1.0, store="markdown")]
        >>> pm = manager([plugin], [])
        >>> [h.note_id for h in call_recall(pm, RecallQuery(text="uv"), [])]
        ['practice-x']
    """


@hookspec(firstresult=True)
def inject(event: HookEvent, hits: list[Hit], text: str) -> str | None:
    r"""Render the final block of text injected for a prompt.

    Caller: :func:`lorebook.recall.pipeline.call_inject`, on the hook path, once the notes
    are ranked, validated and cut to the budget, through the plugin manager holding the
    modules ``config.yaml`` names in ``hook_plugins`` (as for ``recall``). First result: the
    first implementation returning a string decides (an empty string injects nothing);
    ``None`` passes, and the built-in (``trylast``) returns ``text``, core's own rendering
    (whole notes or pointers, recheck marks, errata, warnings), which a wrapper may edit.
    Either text is sanitised before the host gets it (``lorebook.hook.for_model``).

    Args:
        event: The normalised host event.
        hits: The served notes that fit the budget, in order: the reviewed ones, then
            those no person has reviewed (``reason`` holds a note's recheck mark, if any,
            after the "unreviewed" label of a note no person has reviewed, which is to be
            rendered as a labelled pointer at most, never whole).
        text: What core rendered for these notes.

    Returns:
        The text to inject, or None.

    Example:
        >>> import types
        >>> from lorebook.events import HookEvent
        >>> from lorebook.hookplugins import manager
        >>> from lorebook.recall.pipeline import call_inject
        >>> from lorebook.recall.serve import Served
        >>> plugin = types.ModuleType("myplugin")
        >>> plugin.inject = lambda event, hits: f"{event.name}: {len(hits)} notes"
        >>> event = HookEvent(name="prompt", harness="claude", session_id="s", cwd="/r")
        >>> call_inject(manager([plugin], []), event, Served([], [], "core's text", []), [])
        'prompt: 0 notes'
        >>> class Signed:
        ...     @hookimpl(wrapper=True)
        ...     def inject(self, text):
        ...         rendered = yield
        ...         return rendered + " (signed)"
        >>> call_inject(manager([Signed()], []), event, Served([], [], "core's text", []), [])
        "core's text (signed)"
    """


PROVIDER_HOOKS = (
    "register_harnesses",
    "register_stores",
    "register_extractors",
    "register_curators",
    "register_commands",
)
PIPELINE_HOOKS = ("capture", "extract", "curate", "recall", "inject")

"""The MCP server (``lorebook mcp``, the ``lorebook[mcp]`` extra): recall for agents.

Three tools, on the official Python SDK, over stdio:

- ``recall(query, pending=False)``: what ``lorebook recall QUERY --json`` prints: the hooks'
  ranker over every configured store, validity marks, warnings, why each note matched, and
  as ``context`` the text the prompt hook would inject (:mod:`lorebook.inject.query`);
- ``note_show(note_id)``: one note of the stores ``stores:`` names (those ``recall``
  ranks), with its state; a note no person has reviewed is labelled ``unreviewed``.

Every text a tool returns from a note is sanitised as the hooks sanitise what they inject
(:func:`lorebook.inject.sanitize.sanitize`): no host-markup look-alike, invisible or
bidirectional character, or control character reaches the agent as it was written.
- ``propose(...)``: a candidate note staged for review as a session log in ``_sessions/``,
  exactly where extraction puts its proposals. It is never a direct write: only
  ``lorebook curate`` (and a person's review of the diff) turns it into a note.

``lorebook init`` registers the server for the hosts that read project MCP config
(:mod:`lorebook.mcp_config`).
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lorebook.errors import LorebookError
from lorebook.kb.paths import KBPaths

if TYPE_CHECKING:
    from lorebook.models.note import Note
    from lorebook.store import NoteStore

INSTRUCTIONS = (
    "lorebook keeps this project's team knowledge as reviewed notes. Call `recall` with "
    "the question at hand before guessing a project convention; `note_show` reads one note; "
    "`propose` suggests a new note, which a person reviews before it is ever served."
)


def _sanitised(value: Any) -> Any:
    """``value`` (front matter) with every string in it sanitised."""
    from lorebook.inject.sanitize import sanitize

    if isinstance(value, str):
        return sanitize(value)
    if isinstance(value, list):
        return [_sanitised(item) for item in value]
    if isinstance(value, dict):
        return {key: _sanitised(item) for key, item in value.items()}
    return value


def _unreviewed(paths: KBPaths, note_id: str) -> bool:
    """Whether no person has reviewed the repository's note as it is now.

    The index's verdict, the index reconciled first; a note it does not hold counts as
    unreviewed.
    """
    from lorebook.recall.index import NoteIndex, index_path
    from lorebook.recall.sync import reconcile
    from lorebook.reviewstate import is_unreviewed

    reconcile(paths)
    with NoteIndex(index_path(str(paths.root))) as index:
        indexed = index.get([note_id]).get(note_id)
    return indexed is None or is_unreviewed(indexed)


def show_note(paths: KBPaths, note_id: str) -> dict[str, Any]:
    """One note with its store, location, validity and review state.

    The stores ``stores:`` names are looked in, in config order (the ones ``recall``
    ranks: a note this tool shows is one the agent can be served); a store plugin's note
    has no ``path``. Its text is sanitised as the hooks sanitise it; ``unreviewed`` holds
    the label the hooks put beside a repository note no person has reviewed (None for a
    reviewed note). A retired id (split or renamed, in nodes/.redirects.json) gives
    ``{"ok", "redirected_from", "notes"}``: each live note it leads to, shown so.

    Raises:
        NoteNotFoundError: no configured store holds the note, nor does it lead to one.
        UnknownProviderError: ``stores:`` names a store no installed plugin provides.
    """
    from lorebook.config import load_config
    from lorebook.inject.sanitize import sanitize
    from lorebook.kb.notes import note_to_frontmatter
    from lorebook.kb.personal import open_stores
    from lorebook.reviewstate import LABEL
    from lorebook.store import NoteNotFoundError
    from lorebook.validity.report import note_verdict

    for name, store in open_stores(paths, load_config(paths)).items():
        found = _find(store, note_id)
        if found is None:
            continue
        note, path = found
        home = name == "markdown"
        verdict = note_verdict(paths, note) if home else None
        return {
            "ok": True,
            "id": note.id,
            "store": name,
            "path": path,
            "frontmatter": _sanitised(note_to_frontmatter(note)),
            "body": sanitize(note.body),
            "validity": verdict.state if verdict else "untracked",
            "recheck": (sanitize(verdict.mark()) or None) if verdict else None,
            "unreviewed": LABEL if home and _unreviewed(paths, note.id) else None,
        }
    successors = _successors(paths, note_id)
    if successors:  # a retired id (split or renamed): the notes it leads to
        return {
            "ok": True,
            "redirected_from": note_id,
            "notes": [show_note(paths, successor) for successor in successors],
        }
    raise NoteNotFoundError(note_id)


def _successors(paths: KBPaths, note_id: str) -> list[str]:
    """The live notes a retired id leads to by nodes/.redirects.json ([] when none)."""
    from lorebook.kb.redirects import load_redirects, resolve
    from lorebook.kb.store import MarkdownStore

    ledger = load_redirects(paths)
    if note_id not in ledger:
        return []
    return resolve(ledger, note_id, set(MarkdownStore(paths.repo).ids()))


def _find(store: NoteStore, note_id: str) -> tuple[Note, str | None] | None:
    """The note and its file (None for a store without files), or None when not there."""
    from lorebook.kb.store import MarkdownStore
    from lorebook.store import NoteNotFoundError

    if isinstance(store, MarkdownStore):
        rel = store.locate(note_id)
        if rel is None:
            return None
        return store.get(note_id), str(store.paths.rel(store.paths.nodes / rel))
    try:
        return store.get(note_id), None
    except NoteNotFoundError:
        return None


def stage_proposal(paths: KBPaths, fields: dict[str, Any]) -> dict[str, Any]:
    """Stage one proposal for review (a session log of its own); never write a note.

    A proposal holding what looks like a secret is refused before anything is written
    (curation would refuse it too, but its session log would keep the secret on disk).

    Raises:
        LorebookError: a field is invalid or holds what looks like a secret (named, never
            the value), or a dependency's hash moved (named).
    """
    from pydantic import ValidationError

    from lorebook.capture.stage import log_path, write_log
    from lorebook.curate.gate import proposal_secrets
    from lorebook.kb.notes import format_validation_error
    from lorebook.models.session import LoggedTurn, Proposal, SessionLog
    from lorebook.validity.record import stamp

    session = f"{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{uuid.uuid4().hex[:8]}"
    quote = " ".join(str(fields.get("quote") or fields.get("description") or "").split())
    deps = stamp(paths.repo, fields.pop("depends_on_files", None) or [])
    try:
        proposal = Proposal.model_validate(
            {**fields, "id": f"{session}:1", "origin": f"mcp:{session}:0", "quote": quote,
             "extractor": "mcp", "dependencies": [d.model_dump() for d in deps]}
        )  # fmt: skip
    except ValidationError as exc:
        raise LorebookError(format_validation_error(exc, source="propose")) from None
    held = proposal_secrets(proposal)
    if held:
        raise LorebookError(
            f"propose: {', '.join(held)} {'holds' if len(held) == 1 else 'hold'} what looks "
            "like a secret; nothing was staged",
            hint="propose the rule without the value: a note never holds a password, token or key",
        )
    log = SessionLog(
        harness="mcp", session_id=session, origin=f"mcp:{session}", transcript_hash="",
        transcript_length=0, status="extracted",
        turns=[LoggedTurn(index=0, role="assistant", text=quote)], proposals=[proposal],
    )  # fmt: skip
    path = log_path(paths, "mcp", session)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_log(path, log)
    return {
        "ok": True,
        "staged": paths.rel(path),
        "proposal": proposal.id,
        "next": "a person runs `lorebook curate` and reviews the diff; nothing is served before",
    }


def build_server(repo: Path) -> Any:
    """The MCP server for the knowledge base at ``repo`` (tools registered, not running)."""
    from mcp.server.mcpserver import MCPServer

    from lorebook import __version__
    from lorebook.inject.query import recall as recall_doc

    paths = KBPaths(repo)
    server = MCPServer("lorebook", version=__version__, instructions=INSTRUCTIONS)

    @server.tool(
        description="The project's notes relevant to a question, ranked as the hooks rank "
        "them, each with why it matched and whether its sources changed."
    )
    def recall(query: str, pending: bool = False) -> dict[str, Any]:
        return recall_doc(paths, query, pending=pending)

    @server.tool(
        description="One note by id: its fields, body, store, validity and whether a person "
        "has reviewed it. A retired id (a note split or renamed) gives the notes it leads to "
        "under 'notes', with 'redirected_from'."
    )
    def note_show(note_id: str) -> dict[str, Any]:
        return show_note(paths, note_id)

    @server.tool(
        description="Propose a new note. It is staged for a person's review and is not "
        "served until curated and reviewed."
    )
    def propose(
        title: str,
        description: str,
        body: str,
        kind: str,
        quote: str = "",
        tags: list[str] | None = None,
        depends_on_files: list[str] | None = None,
    ) -> dict[str, Any]:
        from lorebook.models.note import KIND_TYPES

        fields = {"title": title, "description": description, "body": body, "kind": kind,
                  "type": KIND_TYPES.get(kind, "practice"), "tags": tags or [], "quote": quote,
                  "depends_on_files": depends_on_files or []}  # fmt: skip
        return stage_proposal(paths, fields)

    @server.tool(
        description="Ask whether the project's premises (facts and rules under "
        ".lorebook/premises/) support, refute, contradict or leave unknown a goal such as "
        "'uses(billing, stripe)'; returns the verdict, the proof and its sources."
    )
    def premise_ask(goal: str, context: str = "main") -> dict[str, Any]:
        return premise_answer(paths, goal, context)

    @server.tool(
        description="Record a premise source: facts like 'uses(billing, stripe)' and rules "
        "like 'avoid(?s, ?l) :- uses(?s, ?l), deprecated(?l, yes)', citing the notes or files "
        "it rests on; replaces what the source said before (logged). retract=true removes it. "
        "The files are reviewed in git like notes."
    )
    def premise_record(
        source: str,
        facts: list[str] | None = None,
        rules: list[str] | None = None,
        cites: list[str] | None = None,
        context: str = "main",
        retract: bool = False,
    ) -> dict[str, Any]:
        return premise_change(paths, source, facts or [], rules or [], cites or [], context,
                              retract=retract)  # fmt: skip

    return server


def premise_answer(paths: KBPaths, goal: str, context: str) -> dict[str, Any]:
    """``premise_ask``: the verdict on ``goal`` as ``lorebook premise ask --json`` gives it.

    Raises:
        LorebookError: the goal does not parse, or a premise file cannot be read.
    """
    from lorebook.premises.kernel import ask
    from lorebook.premises.model import parse_atom
    from lorebook.premises.store import bundles

    answer = ask(bundles(paths, context), parse_atom(goal))
    return {"ok": True, "context": context, **answer.as_json()}


def premise_change(
    paths: KBPaths,
    source: str,
    facts: list[str],
    rules: list[str],
    cites: list[str],
    context: str,
    *,
    retract: bool,
) -> dict[str, Any]:
    """``premise_record``: record or retract one source (validated before any write).

    Raises:
        LorebookError: a name, fact or rule is invalid or holds what looks like a secret.
    """
    from lorebook.premises import store

    if retract:
        store.retract(paths, source, context)
        return {"ok": True, "action": "retract", "context": context, "source": source}
    action = store.record(paths, store.make_source(source, facts, rules, cites), context)
    return {"ok": True, "action": action, "context": context, "source": source,
            "next": "a person reviews .lorebook/premises/ in git like notes"}  # fmt: skip


def require_sdk() -> None:
    """Raise, with the command that installs it here, when the MCP SDK is missing."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        from lorebook.installhint import install_command

        raise LorebookError(
            "the MCP server needs the official MCP SDK",
            hint=f"install lorebook's mcp extra: {install_command('mcp')}",
        ) from None


def serve(repo: Path) -> None:
    """Run the server on stdio until the client closes it."""
    require_sdk()
    build_server(repo).run("stdio")

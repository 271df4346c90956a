"""LLM curators: a model reviews the rules curator's draft and answers a whole batch.

Both curators send one request: the pending proposals, the notes they may touch (the ones
most similar to each proposal, and every note the draft names), the existing folders, and
the deterministic curator's draft batch as a starting point. The model answers one JSON
object ``{"actions": [...]}``, each action validated on its own (a contradiction carries the
pending proposal itself, whatever the model copied); the run then validates the batch as a
whole before anything is written, exactly as for any curator. An action the model got
wrong holds back its proposal alone, with a warning, and the rest is written
(:mod:`lorebook.curate.validate`); an answer with no readable ``actions`` list, or no usable
action at all, fails the run and writes nothing.

``http`` posts to an OpenAI-compatible Chat Completions endpoint; ``headless`` runs the
wired harness's own CLI with ``LOREBOOK_INTERNAL=1`` (so lorebook's hooks ignore it). Both
read the ``extraction`` settings of ``config.yaml`` (``endpoint``, ``model``,
``api_key_env``, ``timeout_s``) and reuse the transport helpers of the LLM extractors
(:mod:`lorebook.extract.answers`). Every exchange is traced to
``.lorebook/_logs/llm/curate-<n>.json`` (request, response, duration, error).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lorebook.constants import ENV_INTERNAL
from lorebook.curate.base import CurationError, KbView, UnusableAction
from lorebook.curate.rules import claim_of_note, claim_of_proposal, judge_all
from lorebook.curate.text import similarity
from lorebook.curate.validate import AnswerItem, parse_action
from lorebook.errors import LorebookError
from lorebook.models.curation import CuratorAction
from lorebook.models.note import NOTE_KINDS

if TYPE_CHECKING:
    from lorebook.kb.paths import KBPaths
    from lorebook.models.config import Config, Extraction
    from lorebook.models.note import Note
    from lorebook.models.rebalance import PlanProposal, RebalanceRequest
    from lorebook.models.session import Proposal
    from lorebook.providers import HarnessSpec
    from lorebook.store import NoteStore

NOTES_PER_PROPOSAL = 5
"""The most similar notes shown for each proposal (beside every note the draft names)."""
MAX_NOTES = 60
BODY_CHARS = 2000

SYSTEM_PROMPT = f"""\
You curate a software project's knowledge base: markdown notes that tell coding assistants \
what the team taught them. You receive pending proposals (candidate notes extracted from \
sessions, each with the quote it rests on), the existing notes they may concern, the \
existing folders, and a draft batch written by a deterministic curator. Return the batch \
you judge right: start from the draft and change only what is wrong.

Answer with one JSON object and nothing else: {{"actions": [...]}}, exactly one action per \
proposal, in the order of the proposals. Actions:
- {{"action": "add", "proposal_id": ..., "note": <note>, "folder": ..., \
"folder_summary": null or one line}}: a new note. lb_id is "<lb_kind>-<slug>" and must not be \
taken; lb_derived_from is [the proposal's origin]; folder is the note's lb_kind, or an \
existing folder of that kind that fits it better, as in the draft (a folder of another kind \
is replaced by the draft's choice); give a folder_summary for a new folder.
- {{"action": "modify", "proposal_id": ..., "target_id": <note id>, "note": <the whole \
note>, "rationale": ...}}: the proposal says the same as the note (a near-duplicate); keep \
the note's lb_id, title and claim, keep every lb_derived_from origin and append the \
proposal's origin, add new tags, append body text only if it adds something.
- {{"action": "contradict", "proposal_id": ..., "target_id": <note id>, "proposal": <the \
proposal, copied unchanged>, "rationale": ...}}: the proposal says the opposite of the \
note (always vs never, use X vs do not use X, X instead of Y vs Y instead of X). A person \
decides each contradiction; never merge opposite claims.
- {{"action": "drop", "proposal_id": ..., "reason": ...}}: noise that is not project \
knowledge, or what a note already says citing this very origin.

A <note> has the keys type ("practice" or "map"), title, description, tags, lb_id, \
lb_kind (one of {", ".join(NOTE_KINDS)}), lb_derived_from, lb_anchors and body, as in the \
draft. Claims that share words but not a subject are unrelated (use uv vs do not use pip \
agree).
"""


def _note_json(note: Note) -> dict[str, Any]:
    data = note.model_dump(by_alias=True, mode="json", exclude={"extra"})
    if len(note.body) > BODY_CHARS:
        data["body"] = note.body[:BODY_CHARS] + "\n[... cut ...]"
    return data


def relevant_notes(
    proposals: Sequence[Proposal], view: KbView, draft: Sequence[CuratorAction]
) -> list[Note]:
    """The notes shown to the model: the draft's targets, then each proposal's closest ones."""
    chosen: dict[str, None] = {}
    for action in draft:
        target = getattr(action, "target_id", None)
        if target in view.notes:
            chosen[target] = None
    active = view.active()
    claims = {note.id: claim_of_note(note) for note in active}
    for proposal in proposals:
        claim = claim_of_proposal(proposal)
        scored = sorted((-similarity(claim, claims[n.id]), n.id) for n in active)
        for score, note_id in scored[:NOTES_PER_PROPOSAL]:
            if score < 0:
                chosen[note_id] = None
    return [view.notes[i] for i in list(chosen)[:MAX_NOTES]]


def user_message(proposals: Sequence[Proposal], store: NoteStore) -> str:
    """The request's content: proposals, relevant notes, folders and the draft, as JSON."""
    view = KbView.from_store(store)
    draft = judge_all(proposals, view.copy())
    payload = {
        "proposals": [p.model_dump(mode="json") for p in proposals],
        "notes": [_note_json(n) for n in relevant_notes(proposals, view, draft)],
        "folders": sorted(view.by_folder()),
        "draft": {"actions": [a.model_dump(by_alias=True, mode="json") for a in draft]},
    }
    return json.dumps(payload, indent=1, ensure_ascii=False)


def parse_actions(
    text: str, *, source: str, proposals: Sequence[Proposal] = ()
) -> list[AnswerItem]:
    """Find the ``{"actions": [...]}`` object in an answer and validate each action.

    A contradiction of one of ``proposals`` carries that pending proposal, not the model's
    copy of it. An action that is not valid becomes an
    :class:`~lorebook.curate.base.UnusableAction` naming what is wrong: the run holds its
    proposal back and writes the rest.

    Raises:
        CurationError: the answer holds no such object.
    """
    from lorebook.extract.answers import _FENCE, _decoded_values

    pending = {p.id: p for p in proposals}
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for candidate in candidates:
        for value in _decoded_values(candidate):
            if isinstance(value, dict) and isinstance(value.get("actions"), list):
                return [
                    parse_action(_with_pending(item, pending), n, label="the model's action")
                    for n, item in enumerate(value["actions"], start=1)
                ]
    excerpt = " ".join(text.split())[:200]
    raise CurationError(
        f"{source} answered without a JSON object holding 'actions': {excerpt!r}",
        hint="a model that ignores the answer format may be too small for curation",
    )


def _with_pending(item: Any, pending: Mapping[str, Proposal]) -> Any:
    """A contradiction carries the pending proposal itself, not the model's copy of it."""
    if isinstance(item, dict) and item.get("action") == "contradict":
        named = item.get("proposal_id")
        if isinstance(named, str) and named in pending:
            return {**item, "proposal": pending[named]}
    return item


class LLMCurator:
    """What both LLM curators share: the request, the answer's validation, the trace."""

    name = "llm"

    def __init__(self, settings: Extraction, *, paths: KBPaths | None = None) -> None:
        self.model = settings.model
        self.timeout_s = settings.timeout_s
        self.paths = paths

    def curate(self, proposals: Sequence[Proposal], store: NoteStore) -> list[AnswerItem]:
        """Ask the model for the batch; return its actions, each validated on its own."""
        exchange: dict[str, Any] = {"curator": self.name, "proposals": len(proposals)}
        started = time.monotonic()
        try:
            text = self._ask(SYSTEM_PROMPT, user_message(proposals, store), exchange)
            source = self.describe(exchange)
            actions = parse_actions(text, source=source, proposals=proposals)
            exchange["actions"] = len(actions)
            unusable = [a.problem for a in actions if isinstance(a, UnusableAction)]
            if unusable:
                exchange["unusable"] = unusable
            return actions
        except BaseException as exc:
            exchange["error"] = exc.message if isinstance(exc, LorebookError) else repr(exc)
            raise
        finally:
            exchange["duration_s"] = round(time.monotonic() - started, 3)
            exchange.setdefault("error", None)
            self._trace(exchange)

    def propose_rebalance(self, request: RebalanceRequest) -> PlanProposal:
        """Ask the model for the rebalance plan (:mod:`lorebook.curators.llmplan`), traced."""
        from lorebook.curators.llmplan import PLAN_PROMPT, parse_plan, plan_message

        exchange: dict[str, Any] = {"curator": self.name, "rebalance": len(request.notes)}
        started = time.monotonic()
        try:
            text = self._ask(PLAN_PROMPT, plan_message(request), exchange)
            proposal = parse_plan(text, source=self.describe(exchange))
            exchange["moves"], exchange["splits"] = len(proposal.moves), len(proposal.splits)
            return proposal
        except BaseException as exc:
            exchange["error"] = exc.message if isinstance(exc, LorebookError) else repr(exc)
            raise
        finally:
            exchange["duration_s"] = round(time.monotonic() - started, 3)
            exchange.setdefault("error", None)
            self._trace(exchange)

    def _ask(self, system: str, user: str, exchange: dict[str, Any]) -> str:
        raise NotImplementedError

    def describe(self, exchange: Mapping[str, Any]) -> str:
        """Who answered, for error messages."""
        return self.name

    def _trace(self, exchange: dict[str, Any]) -> None:
        if self.paths is None:
            return
        folder = self.paths.logs / "llm"
        record = {"at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), **exchange}
        text = json.dumps(record, indent=2, ensure_ascii=False, default=str) + "\n"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            taken = [p.stem.rpartition("-")[2] for p in folder.glob("curate-*.json")]
            n = max((int(t) for t in taken if t.isdigit()), default=0) + 1
            while True:
                try:
                    with open(folder / f"curate-{n}.json", "x", encoding="utf-8") as handle:
                        handle.write(text)
                    return
                except FileExistsError:
                    n += 1
        except OSError:
            return  # a trace is a diagnostic; losing one never fails a run


class HttpCurator(LLMCurator):
    """Curation through an OpenAI-compatible Chat Completions endpoint.

    Raises:
        CurationError: ``extraction.endpoint`` or ``extraction.model`` is not set.
    """

    name = "http"

    def __init__(
        self,
        settings: Extraction,
        *,
        paths: KBPaths | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(settings, paths=paths)
        if not settings.endpoint or not settings.model:
            raise CurationError(
                "the http curator needs extraction.endpoint and extraction.model in "
                ".lorebook/config.yaml",
                hint="set them to an OpenAI-compatible API, e.g. https://api.openai.com/v1",
            )
        self.url = settings.endpoint.rstrip("/") + "/chat/completions"
        self.api_key_env = settings.api_key_env
        self.env = env

    def describe(self, exchange: Mapping[str, Any]) -> str:
        """The endpoint's URL."""
        return self.url

    def _ask(self, system: str, user: str, exchange: dict[str, Any]) -> str:
        import httpx

        from lorebook.extract.answers import _content_of, _json_or_text

        env = os.environ if self.env is None else self.env
        key = env.get(self.api_key_env)
        body = {
            "model": self.model,
            "temperature": 0,
            "response_format": {"type": "json_object"},
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        }
        exchange["request"] = {"url": self.url, "body": body}
        try:
            response = httpx.post(
                self.url,
                json=body,
                headers={"Authorization": f"Bearer {key}"} if key else {},
                timeout=self.timeout_s,
            )
        except httpx.TimeoutException:
            raise CurationError(f"{self.url} did not answer within {self.timeout_s:g} s") from None
        except httpx.HTTPError as exc:
            raise CurationError(f"cannot reach {self.url}: {exc!r}") from None
        answer = _json_or_text(response)
        exchange["response"] = {"status": response.status_code, "body": answer}
        if response.status_code >= 400:
            excerpt = " ".join(response.text.split())[:300]
            raise CurationError(f"{self.url} answered HTTP {response.status_code}: {excerpt}")
        if isinstance(answer, str):
            raise CurationError(f"{self.url} answered with a body that is not JSON")
        return _content_of(answer, self.url)


class HeadlessCurator(LLMCurator):
    """Curation by the wired harness's own CLI, run non-interactively.

    Raises:
        CurationError: no wired harness can run headless.
    """

    name = "headless"

    def __init__(
        self,
        config: Config,
        *,
        harnesses: Mapping[str, HarnessSpec],
        paths: KBPaths | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(config.extraction, paths=paths)
        self.wired = list(config.harnesses)
        self.specs = dict(harnesses)
        self.env = env
        self.harness_name = self._pick()

    def _pick(self) -> str:
        from lorebook.extract.answers import pick_harness

        try:
            return pick_harness("", self.wired, self.specs)
        except LorebookError:
            raise CurationError(
                "the headless curator needs a wired harness with a headless mode; wired: "
                f"{', '.join(self.wired) or 'none'}",
                hint="run `lorebook init --harnesses <name>`, or use --curator http or rules",
            ) from None

    def describe(self, exchange: Mapping[str, Any]) -> str:
        """The harness command that answered."""
        argv = exchange.get("request", {}).get("argv") or [self.name]
        return f"headless {argv[0]}"

    def _ask(self, system: str, user: str, exchange: dict[str, Any]) -> str:
        from lorebook.extract.answers import _tail

        harness = self.specs[self.harness_name].factory()
        prompt = f"{system}\n\n{user}\n"
        argv, stdin = harness.headless(prompt, self.model)
        exchange["request"] = {
            "harness": self.harness_name,
            "argv": ["<prompt>" if arg == prompt else arg for arg in argv],
            "prompt": prompt,
        }
        env = {**(os.environ if self.env is None else self.env), ENV_INTERNAL: "1"}
        cwd = self.paths.repo if self.paths is not None else None
        result = _run(argv, stdin, env=env, cwd=cwd, timeout=self.timeout_s)
        exchange["response"] = {
            "returncode": result.returncode,
            "stdout": _tail(result.stdout),
            "stderr": _tail(result.stderr),
        }
        if result.returncode != 0:
            detail = " ".join(_tail(result.stderr).split())[-300:]
            raise CurationError(f"{argv[0]} exited with code {result.returncode}: {detail}")
        return (result.stdout or b"").decode("utf-8", "replace")


def _run(
    argv: list[str], stdin: bytes | None, *, env: dict[str, str], cwd: Path | None, timeout: float
) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            argv,
            input=stdin,
            stdin=None if stdin else subprocess.DEVNULL,
            capture_output=True,
            env=env,
            cwd=cwd,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise CurationError(f"{argv[0]} did not finish within {timeout:g} s") from None
    except OSError as exc:
        raise CurationError(f"cannot run {argv[0]}: {exc.strerror or exc}") from None


__all__ = [
    "SYSTEM_PROMPT",
    "HeadlessCurator",
    "HttpCurator",
    "LLMCurator",
    "parse_actions",
    "relevant_notes",
    "user_message",
]

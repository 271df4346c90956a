"""LLM extractors: an OpenAI-compatible HTTP endpoint, or the wired harness's own CLI.

Both send the model only the pre-selected turns (:func:`preselect`: every human turn that
could teach, with the agent turns it answers), ask for a JSON object of proposals, and trace
every exchange through the request's ``trace`` callable (the run writes each one to
``.lorebook/_logs/llm/<log-stem>-<n>.json``). A trace record holds:

``extractor``, ``session`` (the log's origin), ``selection`` (``turns``: the turn indexes
sent, ``sent_words``, ``total_words``, ``fraction``), ``request`` (the HTTP body and URL, or
the argv and prompt), ``response`` (status and body, or exit code, stdout and stderr),
``duration_s``, ``dropped`` (invalid items with the reason), ``proposals`` (how many were
built) and ``error`` (None, or why the exchange failed). Turns are counted in words, an
approximation of tokens that needs no tokenizer.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from lorebook.constants import ENV_INTERNAL
from lorebook.errors import LorebookError
from lorebook.extract.answers import (
    _content_of,
    _json_or_text,
    _tail,
    pick_harness,
)
from lorebook.extract.base import ExtractionRequest, normalise
from lorebook.extractors.prompt import (
    SYSTEM_PROMPT,
    build_proposals,
    count_words,
    headless_prompt,
    parse_answer,
    user_message,
)
from lorebook.models.session import LoggedTurn, Proposal

if TYPE_CHECKING:
    import httpx

    from lorebook.harness import Harness
    from lorebook.models.config import Config, Extraction
    from lorebook.providers import HarnessSpec


@dataclass(frozen=True, slots=True)
class Selection:
    """The turns an LLM is shown, and what share of the request's words they are."""

    turns: tuple[LoggedTurn, ...]
    sent_words: int
    total_words: int

    @property
    def fraction(self) -> float:
        """Words sent over words of every turn of the request (0 when there are none)."""
        return self.sent_words / self.total_words if self.total_words else 0.0

    def as_json(self) -> dict[str, Any]:
        """The selection as a trace records it."""
        return {
            "turns": [turn.index for turn in self.turns],
            "sent_words": self.sent_words,
            "total_words": self.total_words,
            "fraction": round(self.fraction, 4),
        }


def preselect(turns: Sequence[LoggedTurn]) -> Selection:
    """Keep the human turns that could teach, each with the agent turns it answers.

    The choice is :func:`lorebook.extractors.preselect.select_turns`: recall first, and
    independent of what the deterministic extractor proposes.
    """
    from lorebook.extractors.preselect import select_turns

    chosen = tuple(select_turns(turns))
    return Selection(chosen, count_words(chosen), count_words(turns))


class LLMExtractor:
    """What both LLM extractors share: pre-selection, parsing, tracing."""

    name = "llm"

    def __init__(self, settings: Extraction) -> None:
        self.model = settings.model
        self.timeout_s = settings.timeout_s

    async def extract(self, request: ExtractionRequest) -> list[Proposal]:
        """Ask the model about the pre-selected turns; return the valid proposals."""
        selection = preselect(request.turns)
        exchange: dict[str, Any] = {
            "extractor": self.name,
            "session": request.log.origin,
            "selection": selection.as_json(),
        }
        if not selection.turns:
            exchange["skipped"] = "no turn selected; the model was not called"
            request.trace(exchange)
            return []
        started = time.monotonic()
        try:
            text = await self._ask(request, selection.turns, exchange)
            items = parse_answer(text, source=self.describe(exchange))
            parsed = build_proposals(items, request.log, selection.turns, extractor=self.name)
            exchange["dropped"] = parsed.dropped
            exchange["proposals"] = len(parsed.proposals)
            return parsed.proposals
        except BaseException as exc:
            exchange["error"] = str(exc) if isinstance(exc, LorebookError) else repr(exc)
            raise
        finally:
            exchange["duration_s"] = round(time.monotonic() - started, 3)
            exchange.setdefault("error", None)
            request.trace(exchange)

    async def _ask(
        self, request: ExtractionRequest, turns: Sequence[LoggedTurn], exchange: dict[str, Any]
    ) -> str:
        """Send the turns; record request and response in ``exchange``; return the answer."""
        raise NotImplementedError

    def describe(self, exchange: Mapping[str, Any]) -> str:
        """Who answered, for error messages."""
        return self.name


# --- HTTP -----------------------------------------------------------------------------


class HttpExtractor(LLMExtractor):
    """Extraction through an OpenAI-compatible Chat Completions endpoint.

    Args:
        settings: ``extraction`` of the config: ``endpoint`` (the base URL, ending in
            ``/v1`` for most servers), ``model``, ``api_key_env``, ``timeout_s``.
        env: Where the API key is read (default ``os.environ``, at call time).

    Raises:
        LorebookError: ``endpoint`` or ``model`` is not set.
    """

    name = "http"

    def __init__(self, settings: Extraction, *, env: Mapping[str, str] | None = None) -> None:
        super().__init__(settings)
        if not settings.endpoint:
            raise LorebookError(
                "the http extractor needs extraction.endpoint in .lorebook/config.yaml",
                hint="set it to the base URL of an OpenAI-compatible API, e.g. "
                "https://api.openai.com/v1",
            )
        if not settings.model:
            raise LorebookError("the http extractor needs extraction.model in config.yaml")
        self.url = settings.endpoint.rstrip("/") + "/chat/completions"
        self.api_key_env = settings.api_key_env
        self.env = env

    def describe(self, exchange: Mapping[str, Any]) -> str:
        """The endpoint's URL."""
        return self.url

    def _headers(self) -> dict[str, str]:
        env = os.environ if self.env is None else self.env
        key = env.get(self.api_key_env)
        return {"Authorization": f"Bearer {key}"} if key else {}

    def _status_error(self, response: httpx.Response) -> LorebookError:
        excerpt = normalise(response.text)[:300]
        hint = None
        if response.status_code in (401, 403):
            env = os.environ if self.env is None else self.env
            state = "is set" if env.get(self.api_key_env) else "is not set"
            hint = f"the API key comes from ${self.api_key_env}, which {state}"
        return LorebookError(
            f"{self.url} answered HTTP {response.status_code}: {excerpt}", hint=hint
        )

    async def _ask(
        self, request: ExtractionRequest, turns: Sequence[LoggedTurn], exchange: dict[str, Any]
    ) -> str:
        import httpx

        body = {
            "model": self.model,
            "temperature": 0,
            "response_format": {"type": "json_object"},
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": user_message(turns)},
            ],
        }
        exchange["request"] = {"url": self.url, "body": body}
        try:
            with anyio.fail_after(self.timeout_s):
                async with httpx.AsyncClient(timeout=self.timeout_s) as client:
                    response = await client.post(self.url, json=body, headers=self._headers())
        except (TimeoutError, httpx.TimeoutException):
            raise LorebookError(f"{self.url} did not answer within {self.timeout_s:g} s") from None
        except httpx.HTTPError as exc:
            raise LorebookError(f"cannot reach {self.url}: {exc!r}") from None
        exchange["response"] = {"status": response.status_code, "body": _json_or_text(response)}
        if response.status_code >= 400:
            raise self._status_error(response)
        answer = exchange["response"]["body"]
        if isinstance(answer, str):
            raise LorebookError(f"{self.url} answered with a body that is not JSON")
        return _content_of(answer, self.url)


# --- headless host --------------------------------------------------------------------


class HeadlessExtractor(LLMExtractor):
    """Extraction by the wired harness's own CLI, run non-interactively.

    The run sets ``LOREBOOK_INTERNAL=1``, so lorebook's hooks do nothing in it and it never
    captures itself.

    Args:
        config: The whole config (``harnesses`` and ``extraction``).
        harnesses: The harness table (``get_plugins().harnesses()``).
        cwd: Where the host runs (the repository root).
        env: The environment the host inherits (default ``os.environ``).

    Raises:
        LorebookError: no wired harness can run headless.
    """

    name = "headless"

    def __init__(
        self,
        config: Config,
        *,
        harnesses: Mapping[str, HarnessSpec],
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(config.extraction)
        self.wired = list(config.harnesses)
        self.specs = dict(harnesses)
        self.cwd = cwd
        self.env = env
        self._built: dict[str, Harness] = {}
        pick_harness("", self.wired, self.specs)  # fail now, not once per session

    def harness_for(self, log_harness: str) -> Harness:
        """Build (once) and return the harness that runs for a log of ``log_harness``."""
        name = pick_harness(log_harness, self.wired, self.specs)
        if name not in self._built:
            self._built[name] = self.specs[name].factory()
        return self._built[name]

    def describe(self, exchange: Mapping[str, Any]) -> str:
        """The harness command that answered."""
        argv = exchange.get("request", {}).get("argv") or [self.name]
        return f"headless {argv[0]}"

    async def _ask(
        self, request: ExtractionRequest, turns: Sequence[LoggedTurn], exchange: dict[str, Any]
    ) -> str:
        harness = self.harness_for(request.log.harness)
        prompt = headless_prompt(turns)
        argv, stdin = harness.headless(prompt, self.model)
        exchange["request"] = {
            "harness": harness.name,
            "argv": ["<prompt>" if arg == prompt else arg for arg in argv],
            "stdin_bytes": len(stdin) if stdin else 0,
            "prompt": prompt,
        }
        env = {**(os.environ if self.env is None else self.env), ENV_INTERNAL: "1"}
        try:
            with anyio.fail_after(self.timeout_s):
                result = await anyio.run_process(
                    argv,
                    input=stdin or None,
                    stdin=None if stdin else subprocess.DEVNULL,
                    check=False,
                    cwd=self.cwd,
                    env=env,
                )
        except TimeoutError:
            raise LorebookError(f"{argv[0]} did not finish within {self.timeout_s:g} s") from None
        except OSError as exc:
            raise LorebookError(
                f"cannot run {argv[0]}: {exc.strerror or exc}",
                hint=f"install the {harness.name} CLI, or set extraction.extractor to http",
            ) from None
        exchange["response"] = {
            "returncode": result.returncode,
            "stdout": _tail(result.stdout),
            "stderr": _tail(result.stderr),
        }
        if result.returncode != 0:
            detail = normalise(_tail(result.stderr))[-300:]
            raise LorebookError(f"{argv[0]} exited with code {result.returncode}: {detail}")
        return (result.stdout or b"").decode("utf-8", "replace")

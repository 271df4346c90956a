"""A model's answer: the parts the LLM extractors and the LLM curator share.

Both call a model the same two ways (an OpenAI-compatible HTTP endpoint, or a wired harness's
CLI run headless) and read JSON out of what it answers. The extractors live with the other
built-in extractors (:mod:`lorebook.extractors.llm`); the curator is :mod:`lorebook.curators.llm`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from lorebook.errors import LorebookError
from lorebook.extract.base import normalise

if TYPE_CHECKING:
    import httpx

    from lorebook.providers import HarnessSpec

TRACE_TEXT_CHARS = 20_000
"""Stdout and stderr of a headless run are cut to this many characters in a trace."""


def _json_or_text(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return response.text[:TRACE_TEXT_CHARS]


def _content_of(body: Any, url: str) -> str:
    """The assistant message of a Chat Completions answer."""
    try:
        content = body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise LorebookError(
            f"{url} answered without choices[0].message.content: {normalise(str(body))[:200]!r}"
        ) from None
    if isinstance(content, list):  # content parts, as some compatible servers send
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if not isinstance(content, str) or not content.strip():
        raise LorebookError(f"{url} answered with an empty message")
    return content


def pick_harness(log_harness: str, wired: Sequence[str], specs: Mapping[str, HarnessSpec]) -> str:
    """The harness to run: the log's own when it is wired and installed, else the first.

    Raises:
        LorebookError: no wired harness is installed.
    """
    usable = [name for name in wired if name in specs]
    if log_harness in usable:
        return log_harness
    if usable:
        return usable[0]
    wired_text = ", ".join(wired) or "none"
    raise LorebookError(
        f"the headless extractor needs a wired harness with a headless mode; wired: {wired_text}",
        hint="run `lorebook init --harnesses <name>`, or set extraction.extractor to http",
    )


def _tail(data: bytes | None) -> str:
    text = (data or b"").decode("utf-8", "replace")
    return text[-TRACE_TEXT_CHARS:]


# --- reading the answer ---------------------------------------------------------------

_FENCE = re.compile(r"```(?:json|JSON)?[ \t]*\n(.*?)```", re.S)


def _decoded_values(text: str) -> list[Any]:
    """Every JSON object or array that starts somewhere in ``text``, in order."""
    decoder = json.JSONDecoder()
    found: list[Any] = []
    index = 0
    while True:
        starts = [i for i in (text.find("{", index), text.find("[", index)) if i >= 0]
        if not starts:
            return found
        start = min(starts)
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            index = start + 1
            continue
        found.append(value)
        index = end

"""The built-in curators (``rules``, ``headless``, ``http``) and the built-in ``curate`` hook."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lorebook.hookspecs import hookimpl
from lorebook.providers import CuratorSpec

if TYPE_CHECKING:
    from lorebook.curate.base import Curator
    from lorebook.curators.llm import HeadlessCurator, HttpCurator
    from lorebook.kb.paths import KBPaths
    from lorebook.models.config import Config
    from lorebook.models.curation import CuratorAction
    from lorebook.models.session import Proposal
    from lorebook.plugins import Plugins
    from lorebook.store import NoteStore

_LLM_OPTIONS = {
    "extraction.model": "Model name (the harness's default for headless when unset).",
    "extraction.timeout_s": "Seconds the model call may take.",
}


def _rules() -> Curator:
    from lorebook.curate.rules import RulesCurator

    return RulesCurator()


def _headless(config: Config, paths: KBPaths, plugins: Plugins) -> HeadlessCurator:
    from lorebook.curators.llm import HeadlessCurator

    return HeadlessCurator(config, harnesses=plugins.harnesses(), paths=paths)


def _http(config: Config, paths: KBPaths) -> HttpCurator:
    from lorebook.curators.llm import HttpCurator

    return HttpCurator(config.extraction, paths=paths)


@hookimpl(trylast=True)
def register_curators() -> list[CuratorSpec]:
    """Provide the deterministic curator and the two LLM curators."""
    return [
        CuratorSpec(
            name="rules",
            factory=_rules,
            description="Near-duplicates merged, contradictions flagged by documented rules, "
            "offline (no model, no network).",
        ),
        CuratorSpec(
            name="headless",
            factory=_headless,
            description="The wired harness's own CLI, run non-interactively, reviews the "
            "rules curator's draft batch.",
            options=_LLM_OPTIONS,
        ),
        CuratorSpec(
            name="http",
            factory=_http,
            description="An OpenAI-compatible Chat Completions endpoint reviews the rules "
            "curator's draft batch.",
            options={
                "extraction.endpoint": "Base URL of the API (https://api.openai.com/v1).",
                "extraction.api_key_env": "Environment variable holding the API key.",
                **_LLM_OPTIONS,
            },
        ),
    ]


@hookimpl(trylast=True)
def curate(proposals: list[Proposal], store: NoteStore, curator: Curator) -> list[CuratorAction]:
    """Run the curator the run chose."""
    return curator.curate(proposals, store)

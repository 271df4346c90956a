"""The built-in extractors: ``rules`` (offline), ``headless`` and ``http`` (LLMs)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lorebook.hookspecs import hookimpl
from lorebook.providers import ExtractorSpec

if TYPE_CHECKING:
    from lorebook.extract.base import Extractor
    from lorebook.extractors.llm import HeadlessExtractor, HttpExtractor
    from lorebook.kb.paths import KBPaths
    from lorebook.models.config import Config
    from lorebook.plugins import Plugins

_LLM_OPTIONS = {
    "extraction.model": "Model name (the harness's default for headless when unset).",
    "extraction.timeout_s": "Seconds one model call may take.",
    "extraction.concurrency": "Sessions extracted at once.",
}


def _rules() -> Extractor:
    from lorebook.extractors.rules import RulesExtractor

    return RulesExtractor()


def _headless(config: Config, paths: KBPaths, plugins: Plugins) -> HeadlessExtractor:
    from lorebook.extractors.llm import HeadlessExtractor

    return HeadlessExtractor(config, harnesses=plugins.harnesses(), cwd=paths.repo)


def _http(config: Config) -> HttpExtractor:
    from lorebook.extractors.llm import HttpExtractor

    return HttpExtractor(config.extraction)


@hookimpl(trylast=True)
def register_extractors() -> list[ExtractorSpec]:
    """Provide the deterministic extractor and the two LLM extractors."""
    return [
        ExtractorSpec(
            name="rules",
            factory=_rules,
            description="Teaching moments found by rules, offline (no model, no network).",
        ),
        ExtractorSpec(
            name="headless",
            factory=_headless,
            description="The wired harness's own CLI, run non-interactively, reads the "
            "turns the rules pre-select.",
            options=_LLM_OPTIONS,
        ),
        ExtractorSpec(
            name="http",
            factory=_http,
            description="An OpenAI-compatible Chat Completions endpoint reads the turns "
            "the rules pre-select.",
            options={
                "extraction.endpoint": "Base URL of the API (https://api.openai.com/v1).",
                "extraction.api_key_env": "Environment variable holding the API key.",
                **_LLM_OPTIONS,
            },
        ),
    ]

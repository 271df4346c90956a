"""Each pipeline and provider hook reaches plugins with the documented semantics."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from lorebook import hookimpl
from lorebook.errors import UnknownProviderError
from lorebook.events import Hit, HookEvent
from lorebook.hostkit.harnesses import lazy_factory
from lorebook.models import DropAction, Proposal, SessionLog
from lorebook.plugins import make_plugins
from lorebook.providers import CuratorSpec, ExtractorSpec, HarnessSpec
from lorebook.testing import HookRecorder, MemoryStore


def _log() -> SessionLog:
    return SessionLog(
        harness="claude",
        session_id="s1",
        origin="claude:s1",
        transcript_hash="h",
        transcript_length=10,
    )


def _proposal(n: int) -> Proposal:
    return Proposal(
        id=f"s1:{n}",
        origin="claude:s1:3",
        type="practice",
        kind="convention",
        title="Use uv",
        description="Running tests",
        body="uv run pytest",
        quote="we always use uv",
        extractor="test",
    )


def test_register_extractors_and_register_curators_build_sorted_tables() -> None:
    plugins = make_plugins(load_external=False)

    class Provider:
        @hookimpl
        def register_extractors(self) -> list[ExtractorSpec]:
            return [
                ExtractorSpec(name="mine", factory=dict),
                ExtractorSpec(name="yours", factory=dict),
            ]

        @hookimpl
        def register_curators(self) -> list[CuratorSpec]:
            return [CuratorSpec(name="careful", factory=dict)]

    plugins.pm.register(Provider())
    assert list(plugins.extractors()) == ["headless", "http", "mine", "rules", "yours"]
    assert list(plugins.curators()) == ["careful", "headless", "http", "rules"]
    assert plugins.extractor("mine").name == "mine"
    with pytest.raises(
        UnknownProviderError,
        match="unknown curator 'eager'; valid names: careful, headless, http, rules",
    ):
        plugins.curator("eager")


def test_capture_wrappers_transform_the_first_result(hook_recorder: HookRecorder) -> None:
    class Base:
        @hookimpl(trylast=True)
        def capture(self, log: SessionLog) -> SessionLog:
            return log

    class Redactor:
        @hookimpl(wrapper=True)
        def capture(self, log: SessionLog) -> Generator[None, SessionLog, SessionLog]:
            staged = yield
            return staged.model_copy(update={"error": "redacted by wrapper"})

    hook_recorder.pm.register(Base())
    hook_recorder.pm.register(Redactor())
    result = hook_recorder.pm.hook.capture(log=_log())
    assert result.error == "redacted by wrapper"
    assert hook_recorder.names() == ["capture"]


def test_extract_collects_every_plugins_proposals(hook_recorder: HookRecorder) -> None:
    class One:
        @hookimpl
        def extract(self, log: SessionLog) -> list[Proposal]:
            return [_proposal(1)]

    class Nothing:
        @hookimpl
        def extract(self, log: SessionLog) -> None:
            return None

    hook_recorder.pm.register(One())
    hook_recorder.pm.register(Nothing())
    pooled = [p for batch in hook_recorder.pm.hook.extract(log=_log()) for p in batch]
    assert [p.id for p in pooled] == ["s1:1"]


def test_curate_first_result_wins_and_none_passes(hook_recorder: HookRecorder) -> None:
    seen: list[Any] = []

    class Passes:
        @hookimpl(tryfirst=True)
        def curate(self, proposals: list[Proposal]) -> None:
            seen.append(len(proposals))
            return None

    class Decides:
        @hookimpl
        def curate(self, proposals: list[Proposal], store: MemoryStore) -> list[DropAction]:
            return [DropAction(proposal_id=p.id, reason="test") for p in proposals]

    hook_recorder.pm.register(Passes())
    hook_recorder.pm.register(Decides())
    actions = hook_recorder.pm.hook.curate(
        proposals=[_proposal(1), _proposal(2)], store=MemoryStore(), curator=None
    )
    assert [a.proposal_id for a in actions] == ["s1:1", "s1:2"]
    assert seen == [2]  # a plugin may take only the arguments it needs


def test_inject_is_first_result(hook_recorder: HookRecorder) -> None:
    class Renderer:
        @hookimpl
        def inject(self, event: HookEvent, hits: list[Hit]) -> str:
            return f"{event.name}: " + ", ".join(h.note_id for h in hits)

    hook_recorder.pm.register(Renderer())
    event = HookEvent(
        name="prompt", harness="claude", session_id="s1", cwd="/repo", prompt="run tests"
    )
    hits = [Hit(note_id="practice-use-uv", score=2.0, store="markdown")]
    text = hook_recorder.pm.hook.inject(event=event, hits=hits, text="core's")
    assert text == "prompt: practice-use-uv"


def test_inject_gives_cores_text_when_no_plugin_answers(hook_recorder: HookRecorder) -> None:
    event = HookEvent(name="prompt", harness="claude", session_id="s1", cwd="/repo")
    assert hook_recorder.pm.hook.inject(event=event, hits=[], text="core's") == "core's"


def test_register_harnesses_from_a_third_party_object() -> None:
    plugins = make_plugins(load_external=False)

    class MyHost:
        @hookimpl
        def register_harnesses(self) -> list[HarnessSpec]:
            return [
                HarnessSpec(
                    name="myhost",
                    factory=lazy_factory("my_host:Harness"),
                    instruction_files=("AGENTS.md",),
                )
            ]

    plugins.pm.register(MyHost(), name="myhost-plugin")
    assert plugins.harness("myhost").instruction_files == ("AGENTS.md",)

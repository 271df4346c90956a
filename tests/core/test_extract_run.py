"""``extract_pending`` and ``lorebook extract``: concurrency, interruption, resumption, locks.

Every log ends either as it was or fully updated; a rerun resumes what is still pending; a
grown log re-opens only its new turns; plugins' ``extract`` proposals are pooled and pass
the same quote check.
"""

from __future__ import annotations

import functools
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from lorebook import hookimpl
from lorebook.capture.stage import lock_path, write_log
from lorebook.config import write_config
from lorebook.extract.base import ExtractionRequest
from lorebook.extract.run import REJECTIONS_LOG, ExtractReport, extract_pending, read_log
from lorebook.kb.fsutil import kb_lock
from lorebook.kb.paths import KBPaths
from lorebook.models.config import Config, Extraction
from lorebook.models.session import LoggedTurn, Proposal, SessionLog
from lorebook.plugins import Plugins, make_plugins
from lorebook.providers import ExtractorSpec
from tests.conftest import CliRunner
from tests.core.mock_openai import MockOpenAI, Reply
from tests.core.test_extract_llm import (
    CONVERSATION,
    DISTRACTION,
    QUOTE,
    TEACHING,
    http_config,
    item,
    run,
    stage_log,
)

Answer = Callable[[ExtractionRequest], Any]


@pytest.fixture
def paths(kb_repo: Path) -> KBPaths:
    """The initialised knowledge base of a fresh repository."""
    return KBPaths(kb_repo)


def proposal(log: SessionLog, quote: str, title: str = "Use uv", **extra: Any) -> Proposal:
    """A proposal a test extractor returns."""
    return Proposal(
        id=f"{log.session_id}:99",
        origin=f"{log.origin}:0",
        type="practice",
        kind="tooling",
        title=title,
        description="When adding dependencies",
        body="Use uv.",
        quote=quote,
        extractor=extra.pop("extractor", "scripted"),
        **extra,
    )


class Scripted:
    """An extractor that awaits ``answer(request)``; built by the plugin below."""

    name = "scripted"

    def __init__(self, answer: Answer) -> None:
        self.answer = answer

    async def extract(self, request: ExtractionRequest) -> list[Proposal]:
        """Return what the test's answer function returns."""
        result = self.answer(request)
        return list(await result) if hasattr(result, "__await__") else list(result)


def scripted_plugins(answer: Answer, *extra_plugins: object) -> Plugins:
    """A plugin host with the ``scripted`` extractor (and any extra plugin objects)."""

    class Provider:
        @hookimpl
        def register_extractors(self) -> list[ExtractorSpec]:
            return [ExtractorSpec(name="scripted", factory=lambda: Scripted(answer))]

    plugins = make_plugins(load_external=False)
    for plugin in (Provider(), *extra_plugins):
        plugins.pm.register(plugin)
    return plugins


def scripted_config(concurrency: int = 2) -> Config:
    """A config selecting the ``scripted`` extractor."""
    return Config(extraction=Extraction(extractor="scripted", concurrency=concurrency))


def logs(paths: KBPaths) -> dict[str, SessionLog]:
    """Every staged log, by session id, validated."""
    found = [read_log(p) for p in sorted(paths.sessions.glob("*.json"))]
    return {log.session_id: log for log in found}


# --- concurrency ---------------------------------------------------------------------------


def test_logs_are_extracted_concurrently_and_each_once(paths: KBPaths) -> None:
    seen: list[str] = []
    active = peak = 0

    async def slow(request: ExtractionRequest) -> list[Proposal]:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await anyio.sleep(0.05)
        active -= 1
        seen.append(request.log.session_id)
        return [proposal(request.log, QUOTE)]

    for n in range(7):
        stage_log(paths, f"s{n}")
    report = run(paths, scripted_config(concurrency=3), plugins=scripted_plugins(slow))
    assert sorted(seen) == [f"s{n}" for n in range(7)]
    assert peak == 3
    assert report.count("extracted") == 7
    assert [s.log for s in report.sessions] == [f"s{n}.json" for n in range(7)]
    for session_id, log in logs(paths).items():
        assert (log.status, [p.id for p in log.proposals]) == ("extracted", [f"{session_id}:1"])


def test_http_run_over_several_logs_sends_each_session_once(paths: KBPaths) -> None:
    for n in range(5):
        conversation = [*CONVERSATION[:2], ("user", f"{TEACHING} This holds in service-{n}.")]
        stage_log(paths, f"s{n}", conversation)
    with MockOpenAI(default=Reply.proposals([item(QUOTE)])) as mock:
        report = run(paths, http_config(mock.url, concurrency=3))
    assert report.count("extracted") == 5
    texts = [r.user_text() for r in mock.requests]
    for n in range(5):
        assert sum(f"service-{n}." in text for text in texts) == 1
    assert all(len(log.proposals) == 1 for log in logs(paths).values())


# --- interruption and resumption ---------------------------------------------------------


def test_an_interrupted_run_leaves_every_log_valid_and_a_rerun_finishes(paths: KBPaths) -> None:
    for n in range(4):
        stage_log(paths, f"s{n}")
    gate = threading.Event()
    good = Reply.proposals([item(QUOTE)])
    held = Reply(content=good.content, wait=gate)
    plugins = make_plugins(load_external=False)
    with MockOpenAI([good, held], default=good) as mock:
        config = http_config(mock.url, concurrency=1)

        async def interrupted() -> None:
            with anyio.fail_after(20):
                async with anyio.create_task_group() as group:
                    group.start_soon(
                        functools.partial(extract_pending, paths, config, plugins=plugins)
                    )
                    while len(mock.requests) < 2:
                        await anyio.sleep(0.01)
                    group.cancel_scope.cancel()

        anyio.run(interrupted)
        states = {sid: (log.status, len(log.proposals)) for sid, log in logs(paths).items()}
        assert sorted(states.values()) == [("extracted", 1), *[("pending", 0)] * 3]
        for log in logs(paths).values():
            assert log.extracted_turns in (0, len(CONVERSATION))
            assert (log.status == "extracted") == (log.extracted_turns == len(CONVERSATION))
        gate.set()
        report = run(paths, config, plugins=plugins)
    assert report.count("extracted") == 3
    for session_id, log in logs(paths).items():
        assert (log.status, [p.id for p in log.proposals]) == ("extracted", [f"{session_id}:1"])


def test_a_grown_log_re_extracts_only_its_new_turns(paths: KBPaths) -> None:
    seen: list[list[int]] = []

    def answer(request: ExtractionRequest) -> list[Proposal]:
        seen.append([t.index for t in request.turns])
        return [proposal(request.log, DISTRACTION, title="Print the banner")]

    base = SessionLog.model_validate_json(stage_log(paths, "g").read_bytes())
    earlier = proposal(base, QUOTE).model_copy(update={"id": "g:1"})
    path = stage_log(paths, "g", extracted_turns=4, proposals=[earlier.model_dump()])
    report = run(paths, scripted_config(), plugins=scripted_plugins(answer))
    assert seen == [[4, 5, 6, 7]]
    assert report.sessions[0].new_turns == 4
    log = read_log(path)
    assert log.proposals[0] == earlier
    assert [p.id for p in log.proposals] == ["g:1", "g:2"]
    assert (log.status, log.extracted_turns) == ("extracted", len(CONVERSATION))


def test_a_grown_log_sends_the_model_only_its_new_turns(paths: KBPaths) -> None:
    rule = "Never commit generated files under build/; we always regenerate them in CI."
    grown = [*CONVERSATION, ("user", rule), ("assistant", "Noted, I will not commit build/.")]
    stage_log(paths, "g", grown, extracted_turns=len(CONVERSATION))
    with MockOpenAI() as mock:
        run(paths, http_config(mock.url))
    (request,) = mock.requests
    assert rule in request.user_text()
    assert TEACHING not in request.user_text()


def test_a_log_that_grows_during_extraction_stays_pending_for_its_new_turns(
    paths: KBPaths,
) -> None:
    path = stage_log(paths, "s1")

    def capture_meanwhile(request: ExtractionRequest) -> list[Proposal]:
        current = read_log(path)
        added = LoggedTurn(index=len(current.turns), role="user", text="One more thing.")
        write_log(path, current.model_copy(update={"turns": [*current.turns, added]}))
        return [proposal(request.log, QUOTE)]

    run(paths, scripted_config(), plugins=scripted_plugins(capture_meanwhile))
    log = read_log(path)
    assert (log.status, log.extracted_turns, len(log.turns)) == ("pending", 8, 9)
    assert [p.id for p in log.proposals] == ["s1:1"]


def test_a_log_extracted_by_someone_else_meanwhile_is_left_alone(paths: KBPaths) -> None:
    path = stage_log(paths, "s1")

    def racing(request: ExtractionRequest) -> list[Proposal]:
        current = read_log(path)
        write_log(path, current.model_copy(update={"status": "extracted", "extracted_turns": 8}))
        return [proposal(request.log, QUOTE)]

    report = run(paths, scripted_config(), plugins=scripted_plugins(racing))
    assert report.sessions[0].status == "skipped"
    assert read_log(path).proposals == []


def test_the_run_waits_for_the_capture_lock_of_a_log(paths: KBPaths) -> None:
    path = stage_log(paths, "s1")
    plugins = scripted_plugins(lambda request: [proposal(request.log, QUOTE)])
    done: list[ExtractReport] = []
    worker = threading.Thread(
        target=lambda: done.append(run(paths, scripted_config(), plugins=plugins))
    )
    try:
        with kb_lock(lock_path(paths, "s1")):  # a capture of that log, say
            worker.start()
            time.sleep(0.5)
            assert worker.is_alive()
            assert read_log(path).status == "pending"
    finally:
        worker.join(timeout=20)
    assert done[0].count("extracted") == 1
    assert read_log(path).status == "extracted"


def test_an_extractor_crash_fails_the_session_with_its_error(paths: KBPaths) -> None:
    def crash(request: ExtractionRequest) -> list[Proposal]:
        raise RuntimeError("model exploded")

    path = stage_log(paths, "s1")
    report = run(paths, scripted_config(), plugins=scripted_plugins(crash))
    assert report.sessions[0].error == "RuntimeError: model exploded"
    log = read_log(path)
    assert (log.status, log.error, log.extracted_turns) == (
        "failed",
        "RuntimeError: model exploded",
        0,
    )


def test_an_unreadable_log_is_reported_and_left_as_it_is(paths: KBPaths) -> None:
    bad = paths.sessions / "bad.json"
    bad.parent.mkdir(parents=True, exist_ok=True)
    bad.write_text('{"status": "pending", "turns": 3}', encoding="utf-8")
    report = run(paths, scripted_config(), plugins=scripted_plugins(lambda request: []))
    assert report.sessions[0].status == "failed"
    assert "bad.json: not a valid session log" in (report.sessions[0].error or "")
    assert bad.read_text(encoding="utf-8") == '{"status": "pending", "turns": 3}'


# --- the extract pipeline hook -------------------------------------------------------------


def test_extract_hook_proposals_are_pooled_and_quote_checked(paths: KBPaths) -> None:
    class Contributor:
        @hookimpl
        def extract(self, log: SessionLog) -> list[Proposal]:
            return [
                proposal(log, "Please add requests as a dependency", title="A", extractor="p"),
                proposal(log, "nobody said this", title="B", extractor="p"),
                proposal(log, QUOTE),  # the same as the extractor's: kept once
            ]

    class Silent:
        @hookimpl
        def extract(self, log: SessionLog) -> None:
            return None

    plugins = scripted_plugins(
        lambda request: [proposal(request.log, QUOTE)], Contributor(), Silent()
    )
    path = stage_log(paths, "s1")
    report = run(paths, scripted_config(), plugins=plugins)
    assert (report.kept, report.rejected) == (2, 1)
    log = read_log(path)
    assert [(p.id, p.title) for p in log.proposals] == [("s1:1", "Use uv"), ("s1:2", "A")]
    rejected = (paths.logs / REJECTIONS_LOG).read_text(encoding="utf-8")
    assert "extractor=p" in rejected
    assert '"nobody said this"' in rejected


def test_the_rules_extractor_runs_by_default_and_its_quotes_hold(paths: KBPaths) -> None:
    path = stage_log(paths, "s1")
    report = run(paths, Config())
    assert report.extractor == "rules"
    assert report.count("extracted") == 1
    assert report.token_fraction is None
    log = read_log(path)
    assert report.rejected == 0
    assert all(p.extractor == "rules" for p in log.proposals)


# --- the command ---------------------------------------------------------------------------


def test_cli_extract_json_summary_and_progress(
    cli: CliRunner, kb_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = KBPaths(kb_repo)
    stage_log(paths, "s1")
    stage_log(paths, "s2")
    with MockOpenAI([Reply.proposals([item(QUOTE), item("invented")])]) as mock:
        write_config(paths, http_config(mock.url))
        result = cli("extract", "--json", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["ok"] is True
    assert doc["sessions"] == {"extracted": 2, "failed": 0, "skipped": 0}
    assert doc["proposals"] == {"kept": 1, "rejected": 1}
    assert 0 < doc["tokens"]["fraction"] < 1
    assert doc["tokens"]["llm_calls"] == 2
    assert result.stderr.count("extracted  claude:s") == 2


def test_cli_extract_exits_1_when_a_session_fails(cli: CliRunner, kb_repo: Path) -> None:
    paths = KBPaths(kb_repo)
    stage_log(paths, "s1")
    with MockOpenAI([Reply.error(503)]) as mock:
        write_config(paths, http_config(mock.url))
        result = cli("extract", cwd=kb_repo)
        assert result.exit_code == 1
        assert "failed     claude:s1" in result.stderr
        assert "0 sessions extracted, 1 failed" in result.stdout
        retry = cli("extract", "--retry-failed", "--extractor", "rules", cwd=kb_repo)
    assert retry.exit_code == 0, retry.stderr
    assert read_log(paths.sessions / "s1.json").status == "extracted"

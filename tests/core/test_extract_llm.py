"""The LLM extractors: an OpenAI-compatible endpoint (mocked in-process) and a headless host.

What the model is sent (only the pre-selected turns), what comes back (quotes checked,
invalid items dropped and traced), and how failures leave the session log (failed, with
the error, resumable).
"""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import anyio
import pytest

from lorebook import hookimpl
from lorebook.errors import LorebookError
from lorebook.extract.answers import pick_harness
from lorebook.extract.run import REJECTIONS_LOG, ExtractReport, extract_pending, read_log
from lorebook.extractors.llm import HeadlessExtractor, preselect
from lorebook.extractors.prompt import SYSTEM_PROMPT, parse_answer
from lorebook.harness import Harness
from lorebook.kb.paths import KBPaths
from lorebook.models.config import Config, Extraction
from lorebook.models.session import LoggedTurn, SessionLog
from lorebook.plugins import Plugins, make_plugins
from lorebook.providers import HarnessSpec
from tests.core.mock_openai import MockOpenAI, Reply

KEY_ENV = "LOREBOOK_TEST_LLM_KEY"

TEACHING = (
    "No, don't call pip directly in this repository. We always use `uv add` for "
    "dependencies, because uv.lock must stay in sync."
)
QUOTE = "We always use `uv add` for dependencies"
DISTRACTION = "Also could you print the ZEBRAFISH banner when the build finishes?"

CONVERSATION: tuple[tuple[str, str], ...] = (
    ("user", "Please add requests as a dependency of the api package."),
    ("assistant", "I will run `pip install requests` and add it to requirements.txt."),
    ("user", TEACHING),
    ("assistant", "Understood, running `uv add requests` instead."),
    ("user", DISTRACTION),
    ("assistant", "Done: the banner prints after the build."),
    ("user", "Thanks, that looks good."),
    ("assistant", "You're welcome."),
)


# --- helpers (test_extract_run imports them) ----------------------------------------------


def stage_log(
    paths: KBPaths,
    name: str,
    conversation: Sequence[tuple[str, str]] = CONVERSATION,
    *,
    harness: str = "claude",
    status: str = "pending",
    extracted_turns: int = 0,
    proposals: Sequence[dict[str, Any]] = (),
) -> Path:
    """Write a session log ``_sessions/<name>.json`` whose session id is ``name``."""
    turns = turns_of(conversation)
    log = SessionLog.model_validate(
        {
            "harness": harness,
            "session_id": name,
            "origin": f"{harness}:{name}",
            "transcript_hash": "0" * 64,
            "transcript_length": 100,
            "status": status,
            "extracted_turns": extracted_turns,
            "turns": [t.model_dump() for t in turns],
            "proposals": list(proposals),
        }
    )
    path = paths.sessions / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(log.model_dump_json(indent=1), encoding="utf-8")
    return path


def item(quote: str, title: str = "Add dependencies with uv", **extra: Any) -> dict[str, Any]:
    """A proposal item as a model would answer it."""
    return {
        "type": "practice",
        "kind": "tooling",
        "title": title,
        "description": "When adding a Python dependency",
        "body": "Run `uv add <pkg>`; never `pip install`.",
        "tags": ["uv", "Dependencies"],
        "quote": quote,
        **extra,
    }


def http_config(url: str, **extraction: Any) -> Config:
    """A config that uses the http extractor at ``url``."""
    settings = {"extractor": "http", "endpoint": url, "model": "mock-model",
                "api_key_env": KEY_ENV, "timeout_s": 10, **extraction}  # fmt: skip
    return Config(extraction=Extraction.model_validate(settings))


def run(paths: KBPaths, config: Config, **kwargs: Any) -> ExtractReport:
    """Run ``extract_pending`` to completion with a fresh plugin host (no entry points)."""
    kwargs.setdefault("plugins", make_plugins(load_external=False))

    async def main() -> ExtractReport:
        return await extract_pending(paths, config, **kwargs)

    return anyio.run(main)


@pytest.fixture
def paths(kb_repo: Path) -> KBPaths:
    """The initialised knowledge base of a fresh repository."""
    return KBPaths(kb_repo)


def turns_of(conversation: Sequence[tuple[str, str]] = CONVERSATION) -> list[LoggedTurn]:
    """The conversation as logged turns."""
    return [
        LoggedTurn(index=i, role=role, text=text) for i, (role, text) in enumerate(conversation)
    ]


# --- http ------------------------------------------------------------------------------


def test_http_keeps_quoted_proposals_and_rejects_and_logs_invented_quotes(
    paths: KBPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test-123")
    invented = "Always deploy on Fridays"
    answer = Reply.proposals([item(QUOTE), item(invented, title="Deploy on Fridays")])
    path = stage_log(paths, "s1")
    with MockOpenAI([answer]) as mock:
        report = run(paths, http_config(mock.url))
    assert (report.kept, report.rejected, report.count("extracted")) == (1, 1, 1)
    log = read_log(path)
    assert log.status == "extracted"
    assert log.extracted_turns == len(CONVERSATION)
    assert [p.id for p in log.proposals] == ["s1:1"]
    kept = log.proposals[0]
    assert kept.quote == QUOTE
    assert kept.origin == "claude:s1:2"  # the user turn the quote comes from
    assert kept.extractor == "http"
    assert kept.tags == ["uv", "dependencies"]
    lines = (paths.logs / REJECTIONS_LOG).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1
    assert "session=claude:s1" in lines[0]
    assert '"Deploy on Fridays"' in lines[0]
    assert json.dumps(invented) in lines[0]


def test_http_request_holds_only_the_preselected_turns_and_the_key(
    paths: KBPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test-123")
    selected = preselect(turns_of())
    chosen = {t.index for t in selected.turns}
    assert 2 in chosen, "the teaching turn is pre-selected"
    left_out = [t for t in turns_of() if t.index not in chosen]
    assert left_out, "the rules leave some turn out of this conversation"
    stage_log(paths, "s1")
    with MockOpenAI() as mock:
        report = run(paths, http_config(mock.url))
    (request,) = mock.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["Authorization"] == "Bearer sk-test-123"
    body = request.body
    assert body["model"] == "mock-model"
    assert body["temperature"] == 0
    assert body["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
    sent = request.user_text()
    assert TEACHING in sent
    for turn in left_out:
        assert turn.text not in sent
    assert 0 < report.sent_words < report.total_words
    assert report.token_fraction == pytest.approx(selected.fraction)


def test_every_exchange_is_traced_with_request_response_duration_and_fraction(
    paths: KBPaths,
) -> None:
    stage_log(paths, "s1")
    answer = Reply.proposals([item(QUOTE), item("x", kind="opinion"), {"title": "no quote"}])
    with MockOpenAI([answer]) as mock:
        report = run(paths, http_config(mock.url))
    assert report.kept == 1
    trace = json.loads((paths.logs / "llm" / "s1-1.json").read_text(encoding="utf-8"))
    assert trace["extractor"] == "http"
    assert trace["session"] == "claude:s1"
    assert trace["request"]["url"] == f"{mock.url}/chat/completions"
    assert trace["request"]["body"] == mock.requests[0].body
    assert trace["response"]["status"] == 200
    assert trace["duration_s"] >= 0
    assert 0 < trace["selection"]["fraction"] < 1
    assert trace["error"] is None
    reasons = [d["reason"] for d in trace["dropped"]]
    assert reasons == ["unknown kind 'opinion'", "missing or empty: kind, description, body, quote"]
    assert "sk-" not in json.dumps(trace)


def test_http_500_fails_the_session_and_a_rerun_resumes_it(paths: KBPaths) -> None:
    path = stage_log(paths, "s1")
    before = read_log(path)
    with MockOpenAI([Reply.error(500, "overloaded")]) as mock:
        report = run(paths, http_config(mock.url))
    assert report.count("failed") == 1
    failed = read_log(path)
    assert failed.status == "failed"
    assert failed.error is not None
    assert f"{mock.url}/chat/completions answered HTTP 500" in failed.error
    assert "overloaded" in failed.error
    assert (failed.turns, failed.proposals, failed.extracted_turns) == (
        before.turns,
        before.proposals,
        0,
    )
    with MockOpenAI() as idle:
        assert run(paths, http_config(idle.url)).sessions == []  # failed waits for --retry
        assert idle.requests == []
    with MockOpenAI([Reply.proposals([item(QUOTE)])]) as good:
        report = run(paths, http_config(good.url), retry=True)
    assert (report.count("extracted"), report.kept) == (1, 1)
    done = read_log(path)
    assert (done.status, done.error, len(done.proposals)) == ("extracted", None, 1)


def test_an_answer_without_json_fails_with_a_clear_error(paths: KBPaths) -> None:
    path = stage_log(paths, "s1")
    with MockOpenAI([Reply.text("I found nothing noteworthy {really}.")]) as mock:
        run(paths, http_config(mock.url))
    log = read_log(path)
    assert log.status == "failed"
    assert log.error is not None
    assert "answered without a JSON object holding 'proposals'" in log.error
    trace = json.loads((paths.logs / "llm" / "s1-1.json").read_text(encoding="utf-8"))
    assert "answered without a JSON object" in trace["error"]


def test_unauthorised_names_the_key_variable(paths: KBPaths) -> None:
    path = stage_log(paths, "s1")
    with MockOpenAI([Reply.error(401, "bad key")]) as mock:
        run(paths, http_config(mock.url))
    error = read_log(path).error or ""
    assert "HTTP 401" in error
    assert f"${KEY_ENV}, which is not set" in error
    assert "Authorization" not in mock.requests[0].headers


def test_http_needs_an_endpoint_and_fails_before_touching_any_log(paths: KBPaths) -> None:
    path = stage_log(paths, "s1")
    config = Config(extraction=Extraction(extractor="http", model="m"))
    with pytest.raises(LorebookError, match=r"needs extraction\.endpoint"):
        run(paths, config)
    assert read_log(path).status == "pending"


def test_unreachable_endpoint_fails_the_session(paths: KBPaths) -> None:
    path = stage_log(paths, "s1")
    with MockOpenAI() as mock:
        url = mock.url  # the port is free again once the mock stops
    run(paths, http_config(url))
    assert "cannot reach" in (read_log(path).error or "")


@pytest.mark.parametrize(
    "answer",
    [
        '{"proposals": [{"title": "t", "quote": "q"}]}',
        'Here it is:\n```json\n{"proposals": [{"title": "t", "quote": "q"}]}\n```\nDone.',
        'Notes {not json} then {"proposals": [{"title": "t", "quote": "q"}]} end',
        '[{"title": "t", "quote": "q"}]',
        '{"title": "t", "quote": "q"}',
    ],
)
def test_parse_answer_finds_the_proposals_wherever_they_are(answer: str) -> None:
    assert parse_answer(answer, source="m") == [{"title": "t", "quote": "q"}]


def test_parse_answer_accepts_an_empty_list_and_refuses_other_json() -> None:
    assert parse_answer('{"proposals": []}', source="m") == []
    with pytest.raises(LorebookError, match="m answered without a JSON object"):
        parse_answer('{"notes": 3}', source="m")


# --- headless ----------------------------------------------------------------------------

FAKE_HOST = textwrap.dedent(
    """\
    import json, os, sys
    if os.environ.get("LOREBOOK_INTERNAL") != "1":
        sys.stderr.write("LOREBOOK_INTERNAL is not 1")
        sys.exit(3)
    args = sys.argv[1:]
    record, answer = args[0], args[1]
    prompt = args[2] if len(args) > 2 else sys.stdin.read()
    with open(record, "w", encoding="utf-8") as handle:
        json.dump({"argv_prompt": len(args) > 2, "prompt": prompt}, handle)
    if answer == "fail":
        sys.stderr.write("model overloaded")
        sys.exit(2)
    with open(answer, encoding="utf-8") as handle:
        sys.stdout.write(handle.read())
    """
)


class FakeHost:
    """A harness whose headless mode runs a small Python script."""

    name = "fakehost"
    script: Path
    record: Path
    answer: str
    stdin_over = 65_536

    def headless(self, prompt: str, model: str | None) -> tuple[list[str], bytes | None]:
        """Argv of the script; the prompt as an argument, or on stdin when long."""
        argv = [sys.executable, str(self.script), str(self.record), self.answer]
        if len(prompt.encode()) > self.stdin_over:
            return argv, prompt.encode()
        return [*argv, prompt], None


def fake_host_plugins(tmp_path: Path, answer: str, *, stdin_over: int = 65_536) -> Plugins:
    """A plugin host whose only harness is the fake one."""
    script = tmp_path / "fake_host.py"
    script.write_text(FAKE_HOST, encoding="utf-8")
    answer_file = tmp_path / "answer.txt"
    answer_file.write_text(answer, encoding="utf-8")
    FakeHost.script, FakeHost.record, FakeHost.stdin_over = (
        script,
        tmp_path / "seen.json",
        stdin_over,
    )
    FakeHost.answer = "fail" if answer == "fail" else str(answer_file)

    class Provider:
        @hookimpl
        def register_harnesses(self) -> list[HarnessSpec]:
            return [HarnessSpec(name="fakehost", factory=cast(Any, FakeHost))]

    plugins = make_plugins(load_external=False)
    plugins.pm.register(Provider())
    return plugins


def headless_config(**extraction: Any) -> Config:
    """A config wiring the fake host and using the headless extractor."""
    settings = {"extractor": "headless", "timeout_s": 30, **extraction}
    return Config(harnesses=["fakehost"], extraction=Extraction.model_validate(settings))


def test_headless_runs_the_host_with_lorebook_internal_and_parses_fenced_json(
    paths: KBPaths, tmp_path: Path
) -> None:
    answer = "Here are the notes.\n```json\n" + json.dumps({"proposals": [item(QUOTE)]}) + "\n```"
    plugins = fake_host_plugins(tmp_path, answer)
    path = stage_log(paths, "s1", harness="claude")  # not wired: the first wired host runs
    report = run(paths, headless_config(), plugins=plugins)
    assert report.count("extracted") == 1, report.sessions
    log = read_log(path)
    assert [(p.id, p.quote, p.extractor) for p in log.proposals] == [("s1:1", QUOTE, "headless")]
    seen = json.loads((tmp_path / "seen.json").read_text(encoding="utf-8"))
    assert seen["argv_prompt"] is True
    assert TEACHING in seen["prompt"]
    assert DISTRACTION in seen["prompt"]  # a one-off request is the model's to judge
    assert "You're welcome." not in seen["prompt"]  # agent text no human turn answers
    trace = json.loads((paths.logs / "llm" / "s1-1.json").read_text(encoding="utf-8"))
    assert trace["request"]["harness"] == "fakehost"
    assert "<prompt>" in trace["request"]["argv"]
    assert trace["response"]["returncode"] == 0


def test_headless_sends_a_long_prompt_on_stdin(paths: KBPaths, tmp_path: Path) -> None:
    long_rule = "We always run the linters before committing. " + "word " * 150
    conversation = [("assistant", "Committing now."), ("user", long_rule)]
    plugins = fake_host_plugins(tmp_path, json.dumps({"proposals": []}), stdin_over=500)
    stage_log(paths, "s1", conversation)
    report = run(paths, headless_config(), plugins=plugins)
    assert report.count("extracted") == 1, report.sessions
    seen = json.loads((tmp_path / "seen.json").read_text(encoding="utf-8"))
    assert seen["argv_prompt"] is False
    assert long_rule.strip() in seen["prompt"]
    trace = json.loads((paths.logs / "llm" / "s1-1.json").read_text(encoding="utf-8"))
    assert trace["request"]["stdin_bytes"] > 500


def test_headless_failure_marks_the_session_failed(paths: KBPaths, tmp_path: Path) -> None:
    plugins = fake_host_plugins(tmp_path, "fail")
    path = stage_log(paths, "s1")
    report = run(paths, headless_config(), plugins=plugins)
    assert report.count("failed") == 1
    error = read_log(path).error or ""
    assert "exited with code 2" in error
    assert "model overloaded" in error


def test_headless_timeout_fails_the_session(
    paths: KBPaths, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plugins = fake_host_plugins(tmp_path, "{}")
    sleeper = tmp_path / "sleep.py"
    sleeper.write_text("import time\ntime.sleep(30)\n", encoding="utf-8")
    monkeypatch.setattr(
        FakeHost, "headless", lambda self, prompt, model: ([sys.executable, str(sleeper)], None)
    )
    path = stage_log(paths, "s1")
    run(paths, headless_config(timeout_s=0.5), plugins=plugins)
    assert "did not finish within 0.5 s" in (read_log(path).error or "")


def test_pick_harness_prefers_the_logs_own_then_the_first_wired() -> None:
    specs = {
        "claude": HarnessSpec(name="claude", factory=cast(Any, FakeHost)),
        "codex": HarnessSpec(name="codex", factory=cast(Any, FakeHost)),
    }  # cursor is wired but its plugin is not installed
    assert pick_harness("codex", ["claude", "codex"], specs) == "codex"
    assert pick_harness("opencode", ["claude", "codex"], specs) == "claude"
    assert pick_harness("cursor", ["cursor", "codex"], specs) == "codex"
    with pytest.raises(LorebookError, match="needs a wired harness with a headless mode"):
        pick_harness("claude", ["cursor"], specs)


def test_headless_without_a_wired_harness_is_a_clear_error() -> None:
    with pytest.raises(LorebookError, match="wired: none"):
        HeadlessExtractor(Config(), harnesses={})


def test_a_real_harness_plugin_satisfies_what_headless_needs() -> None:
    spec = make_plugins().harnesses().get("claude")
    if spec is None or spec.factory is None:
        pytest.skip("the Claude plugin is not installed")
    harness: Harness = spec.factory()
    argv, stdin = harness.headless("x" * 70_000, None)
    assert stdin is not None
    assert argv[0] == "claude"

"""The LLM curators as plumbing, with a scripted mock model: what is sent, how the answer is
validated, what a bad answer does. Their judgment is not measurable here and not tested."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from lorebook.config import load_config, write_config
from lorebook.curate.base import CurationError
from lorebook.curators.llm import HeadlessCurator, HttpCurator
from lorebook.kb.paths import KBPaths
from lorebook.kb.store import MarkdownStore
from lorebook.models.config import Config
from lorebook.models.curation import AddAction
from lorebook.providers import HarnessSpec
from tests.conftest import CliRunner
from tests.core.test_curate import add_note, notes_of, proposal, stage, tree


class ChatMock:
    """POST /v1/chat/completions on 127.0.0.1, answering scripted assistant messages."""

    def __init__(self, answers: list[str], status: int = 200) -> None:
        self.answers = list(answers)
        self.status = status
        self.requests: list[dict[str, Any]] = []
        mock = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                mock.requests.append(
                    {"path": self.path, "headers": dict(self.headers),
                     "body": json.loads(self.rfile.read(length))}
                )  # fmt: skip
                content = mock.answers.pop(0) if mock.answers else '{"actions": []}'
                data = json.dumps({"choices": [{"message": {"role": "assistant",
                                                            "content": content}}]})  # fmt: skip
                if mock.status != 200:
                    data = json.dumps({"error": {"message": "overloaded"}})
                self.send_response(mock.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data.encode())

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> ChatMock:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def mock_model() -> Iterator[ChatMock]:
    with ChatMock([]) as mock:
        yield mock


def _point_at(repo: Path, url: str) -> None:
    paths = KBPaths(repo)
    config = load_config(paths)
    extraction = config.extraction.model_copy(
        update={"endpoint": url, "model": "mock-model", "api_key_env": "LOREBOOK_TEST_KEY"}
    )
    write_config(paths, config.model_copy(update={"extraction": extraction}))


def _answer_from_draft(mock: ChatMock, change: Any = None) -> None:
    """Script the model to answer its request's draft (optionally changed)."""

    def answer() -> str:
        draft = json.loads(mock.requests[-1]["body"]["messages"][1]["content"])["draft"]
        return json.dumps(change(draft) if change else draft)

    mock.answers = _Lazy(answer)


class _Lazy(list[str]):
    """A script whose single answer is computed when the request has arrived."""

    def __init__(self, make: Any) -> None:
        super().__init__(["pending"])
        self.make = make

    def pop(self, index: Any = -1) -> str:
        super().pop(index)
        return str(self.make())


def test_the_http_curator_sends_proposals_notes_and_draft_and_applies_the_answer(
    kb_repo: Path, cli: CliRunner, mock_model: ChatMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOREBOOK_TEST_KEY", "sk-test")
    existing = add_note(kb_repo, "Always rebase feature branches before merging")
    stage(kb_repo, "s1", [
        proposal("s1", 1, "Never rebase feature branches before merging"),
        proposal("s1", 2, "Keep migrations reversible", kind="decision"),
    ])  # fmt: skip
    _point_at(kb_repo, mock_model.url)

    def drop_the_second(draft: dict[str, Any]) -> dict[str, Any]:
        first, _ = draft["actions"]
        return {"actions": [first, {"action": "drop", "proposal_id": "s1:2",
                                    "reason": "the model judged it noise"}]}  # fmt: skip

    _answer_from_draft(mock_model, drop_the_second)
    result = cli("curate", "--curator", "http", "--json", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    (request,) = mock_model.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == "Bearer sk-test"
    body = request["body"]
    assert (body["model"], body["temperature"]) == ("mock-model", 0)
    system, user = body["messages"]
    assert system["role"] == "system"
    assert '{"actions": [...]}' in system["content"]
    sent = json.loads(user["content"])
    assert [p["id"] for p in sent["proposals"]] == ["s1:1", "s1:2"]
    assert [n["lb_id"] for n in sent["notes"]] == [existing]
    assert [a["action"] for a in sent["draft"]["actions"]] == ["contradict", "add"]

    report = result.json()
    assert report["curator"] == "http"
    assert [(r["action"], r["detail"]) for r in report["results"]][1] == (
        "drop", "the model judged it noise"
    )  # fmt: skip
    assert len(report["conflicts"]) == 1
    assert list(notes_of(kb_repo)) == [existing]
    trace = json.loads((kb_repo / ".lorebook/_logs/llm/curate-1.json").read_text())
    assert (trace["curator"], trace["actions"], trace["error"]) == ("http", 2, None)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("I would add both notes.", "without a JSON object holding 'actions'"),
        ('{"actions": [{"action": "add", "proposal_id": "s1:1"}]}',
         "the model's action 1 is not valid: field 'add.note'"),
        ('{"actions": []}', "no usable action for any of the 2 proposals"),
    ],
)  # fmt: skip
def test_a_bad_answer_writes_nothing(
    kb_repo: Path, cli: CliRunner, mock_model: ChatMock, answer: str, expected: str
) -> None:
    stage(kb_repo, "s1", [proposal("s1", 1, "First claim"), proposal("s1", 2, "Second claim")])
    _point_at(kb_repo, mock_model.url)
    mock_model.answers = [answer]
    before = tree(kb_repo, skip=(".git/", ".lorebook/.cache/", ".lorebook/.state/",
                                 ".lorebook/_logs/"))  # fmt: skip
    result = cli("curate", "--curator", "http", cwd=kb_repo)
    assert result.exit_code == 1
    assert expected in result.stderr
    after = tree(kb_repo, skip=(".git/", ".lorebook/.cache/", ".lorebook/.state/",
                                ".lorebook/_logs/"))  # fmt: skip
    assert after == before


TOKEN = "7f3kQ9zL2mX8pW4r"


def test_an_answer_with_bad_actions_holds_back_those_alone(
    kb_repo: Path, cli: CliRunner, mock_model: ChatMock
) -> None:
    """One action the model got wrong (not valid, or a conflict quoting a secret) holds back
    its proposal with one warning; the model's other actions are written."""
    add_note(kb_repo, "Always rebase feature branches before merging")
    add_note(kb_repo, "Always squash commits when merging")
    stage(kb_repo, "s1", [
        proposal("s1", 1, "Never rebase feature branches before merging"),
        proposal("s1", 2, "Keep migrations reversible", kind="decision"),
        proposal("s1", 3, "Never squash commits when merging"),
        proposal("s1", 4, "Run the linter before pushing"),
    ])  # fmt: skip
    _point_at(kb_repo, mock_model.url)

    def spoil(draft: dict[str, Any]) -> dict[str, Any]:
        rebase, migrations, squash, linter = draft["actions"]
        assert [a["action"] for a in draft["actions"]] == ["contradict", "add", "contradict", "add"]
        rebase["proposal"] = "the proposal, as above"  # replaced by the pending one
        del migrations["note"]
        squash["rationale"] = f"The note's body says api_key = {TOKEN}."
        return {"actions": [rebase, migrations, squash, linter]}

    _answer_from_draft(mock_model, spoil)
    result = cli("curate", "--curator", "http", "--json", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    first, second = result.stderr.splitlines()
    assert first.startswith(
        'lorebook: warning: proposal s1:2 ("Keep migrations reversible", session s1) held back: '
        "the model's action 2 is not valid: field 'add.note': "
    )
    assert second.startswith(
        'lorebook: warning: proposal s1:3 ("Never squash commits when merging", session s1) '
        "held back: its contradict cannot be written: the conflict would quote what looks "
        "like a secret"
    )
    assert all(line.endswith("`lorebook forget-session s1`") for line in (first, second))
    report = result.json()
    assert report["held_back"] == ["s1:2", "s1:3"]
    assert len(report["conflicts"]) == 1
    assert "convention-run-the-linter-before-pushing" in notes_of(kb_repo)
    written = tree(kb_repo, skip=(".git/", ".lorebook/.cache/", ".lorebook/_logs/"))
    assert not any(TOKEN.encode() in data for data in written.values())
    trace = json.loads((kb_repo / ".lorebook/_logs/llm/curate-1.json").read_text())
    assert len(trace["unusable"]) == 1
    again = cli("curate", "--curator", "http", "--json", cwd=kb_repo)
    assert (again.exit_code, again.stderr, len(mock_model.requests)) == (0, "", 1)


def test_an_http_error_is_reported(kb_repo: Path, cli: CliRunner) -> None:
    stage(kb_repo, "s1", [proposal("s1", 1, "First claim")])
    with ChatMock([], status=503) as mock:
        _point_at(kb_repo, mock.url)
        result = cli("curate", "--curator", "http", cwd=kb_repo)
    assert result.exit_code == 1
    assert "answered HTTP 503" in result.stderr


def test_the_http_curator_needs_an_endpoint(kb_repo: Path) -> None:
    with pytest.raises(CurationError, match=r"needs extraction\.endpoint"):
        HttpCurator(Config().extraction)


# --- headless: the wired harness's CLI --------------------------------------------------------

FAKE_HOST = """\
import json, os, sys
prompt = sys.stdin.read() if len(sys.argv) < 2 else sys.argv[1]
start = prompt.index('{\\n "proposals"')
draft = json.loads(prompt[start:])["draft"]
print("Here is the batch:")
print("```json")
print(json.dumps(draft))
print("```")
print(os.environ.get("LOREBOOK_INTERNAL"), file=sys.stderr)
"""


class FakeHeadlessHarness:
    """A harness whose headless mode is a Python script answering the draft."""

    name = "fakehost"

    def __init__(self, script: Path) -> None:
        self.script = script

    def headless(self, prompt: str, model: str | None) -> tuple[list[str], bytes | None]:
        return [sys.executable, str(self.script)], prompt.encode("utf-8")


def test_the_headless_curator_runs_the_wired_harness(kb_repo: Path, tmp_path: Path) -> None:
    script = tmp_path / "fakehost.py"
    script.write_text(FAKE_HOST, encoding="utf-8")
    spec = HarnessSpec(name="fakehost", factory=lambda: FakeHeadlessHarness(script))  # type: ignore[arg-type,return-value]
    curator = HeadlessCurator(
        Config(harnesses=["fakehost"]), harnesses={"fakehost": spec}, paths=KBPaths(kb_repo)
    )
    pending = [proposal("s1", 1, "Keep migrations reversible", kind="decision")]
    (action,) = curator.curate(pending, MarkdownStore(kb_repo))
    assert isinstance(action, AddAction)
    trace = json.loads((kb_repo / ".lorebook/_logs/llm/curate-1.json").read_text())
    assert trace["request"]["harness"] == "fakehost"
    assert trace["response"]["returncode"] == 0
    assert trace["response"]["stderr"].strip() == "1"  # LOREBOOK_INTERNAL=1: our hooks stay out


def test_the_headless_curator_needs_a_wired_harness() -> None:
    with pytest.raises(CurationError, match="needs a wired harness"):
        HeadlessCurator(Config(), harnesses={})

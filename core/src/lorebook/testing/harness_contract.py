"""The harness contract suite: every harness plugin, ours or a third party's, subclasses it.

Example::

    from lorebook.testing import HarnessContract

    class TestMyHost(HarnessContract):
        harness_name = "myhost"

        @pytest.fixture
        def recorded_payloads(self):
            return [("SessionStart", {...}), ("UserPromptSubmit", {...})]

        @pytest.fixture  # optional: by default, a transcript the recorded payloads name
        def recorded_transcript(self):
            return str(FIXTURES / "transcript.jsonl")

The suite wires the harness into a fresh repository with ``lorebook init``, so the plugin
must be installed (its entry point visible), exactly as a user would have it.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import pytest

from lorebook.events import EVENT_NAMES, HookAnswer, HookEvent, HostOutput
from lorebook.harness import Harness
from lorebook.testing.fakehost import FakeHost

if TYPE_CHECKING:
    from lorebook.events import Decision

Payloads = list[tuple[str, Mapping[str, Any]]]
ROLES = ("user", "assistant", "tool", "summary")


def _snapshot(root: Path) -> dict[str, bytes]:
    skip = (".lorebook/.cache", ".lorebook/.state", ".lorebook/_logs", ".git/")
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.relative_to(root).as_posix().startswith(skip)
    }


def _log_lines(repo: Path) -> list[str]:
    log = repo / ".lorebook" / "_logs" / "hook-errors.log"
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


def _parsed(harness: Harness, payloads: Payloads, names: tuple[str, ...]) -> list[HookEvent]:
    """The recorded payloads' events of the given lifecycle names."""
    events = (harness.parse_event(host_event, payload) for host_event, payload in payloads)
    return [event for event in events if event.name in names]


def _text(output: HostOutput) -> str:
    """What the hook writes back to the host, as text."""
    return output.stdout.decode("utf-8", "replace")


class HarnessContract:
    """Behaviour every harness plugin must have.

    Subclasses set ``harness_name`` and provide a ``recorded_payloads`` fixture: (host event
    name, payload) pairs the real host sent; and a ``recorded_transcript`` fixture when the
    payloads' transcript paths name files of the recording machine. The suite reads that
    transcript through the plugin, renders context, ask and deny for the recorded events
    and checks what the host would read back.
    """

    harness_name: ClassVar[str] = ""

    @pytest.fixture
    def recorded_payloads(self) -> Payloads:
        """(host event, payload) pairs recorded from the real host (subclasses override)."""
        raise NotImplementedError("a HarnessContract subclass must provide recorded_payloads")

    @pytest.fixture
    def recorded_transcript(self, harness: Harness, recorded_payloads: Payloads) -> str:
        """A transcript the real host wrote, as a ``transcript_ref`` (subclasses may override).

        By default the first ``transcript_ref`` of the recorded payloads that reads at least
        one turn; override it when the recorded paths name the recording machine's files.
        """
        for host_event, payload in recorded_payloads:
            ref = harness.parse_event(host_event, payload).transcript_ref
            if ref is None:
                continue
            try:
                if next(iter(harness.read_transcript(ref)), None) is not None:
                    return ref
            except (OSError, ValueError):
                continue
        raise AssertionError(
            f"{self.harness_name}: no recorded payload names a transcript that reads a turn; "
            "override the recorded_transcript fixture with a recorded transcript"
        )

    @pytest.fixture
    def harness(self) -> Harness:
        """The harness object, built by its registered factory."""
        from lorebook.plugins import make_plugins

        return make_plugins().harness(self.harness_name).factory()

    @pytest.fixture
    def wired_repo(self, kb_repo: Path) -> Path:
        """A repository with this harness wired by ``lorebook init``."""
        from lorebook.initialize import init_repo

        init_repo(kb_repo, [self.harness_name])
        return kb_repo

    def test_harness_satisfies_the_protocol(self, harness: Harness) -> None:
        """The object the factory builds implements every method of the contract."""
        assert isinstance(harness, Harness)
        assert harness.name == self.harness_name

    def test_install_is_idempotent_and_uninstall_exact(
        self, harness: Harness, kb_repo: Path
    ) -> None:
        """A second install changes no byte; uninstall restores the repository exactly."""
        before = _snapshot(kb_repo)
        first = harness.install(kb_repo)
        assert first.changed, "install reported no change on a fresh repository"
        after_first = _snapshot(kb_repo)
        second = harness.install(kb_repo)
        assert second.changed == ()
        assert _snapshot(kb_repo) == after_first
        assert all(item.state == "ok" for item in harness.check(kb_repo))
        harness.uninstall(kb_repo)
        assert _snapshot(kb_repo) == before
        assert any(item.state != "ok" for item in harness.check(kb_repo))

    def test_every_recorded_payload_parses(
        self, harness: Harness, recorded_payloads: Payloads
    ) -> None:
        """Each recorded payload of an installed event becomes one normalised event."""
        assert recorded_payloads, "no recorded payloads given"
        for host_event, payload in recorded_payloads:
            event = harness.parse_event(host_event, payload)
            assert isinstance(event, HookEvent)
            assert event.name in EVENT_NAMES
            assert event.harness == self.harness_name
            assert event.host_event == host_event
            assert event.session_id

    def test_payloads_missing_fields_are_refused(
        self, harness: Harness, recorded_payloads: Payloads
    ) -> None:
        """An empty payload is an error naming what is missing, never a half-filled event."""
        for host_event, _ in recorded_payloads:
            with pytest.raises(ValueError, match=r"\S"):
                harness.parse_event(host_event, {})

    def test_a_recorded_transcript_reads_through_the_plugin(
        self, harness: Harness, recorded_transcript: str
    ) -> None:
        """A transcript the host wrote reads through the plugin.

        It gives the user's and the assistant's turns, in file order, the same on a second
        read; a read from its end gives nothing, one up to it gives them all.
        """
        turns = list(harness.read_transcript(recorded_transcript))
        assert turns, f"no turn read from {recorded_transcript}"
        assert all(turn.role in ROLES for turn in turns), {turn.role for turn in turns}
        spoken = {t.role for t in turns if t.text.strip() and not t.injected}
        assert {"user", "assistant"} <= spoken, [(t.role, t.text[:40]) for t in turns]
        indexes = [turn.index for turn in turns]
        assert indexes == sorted(indexes), indexes  # file order (a record may give several)
        end = harness.transcript_end(recorded_transcript)
        assert end > 0
        assert list(harness.read_transcript(recorded_transcript, None, end)) == turns
        assert list(harness.read_transcript(recorded_transcript, end)) == []
        assert list(harness.read_transcript(recorded_transcript)) == turns  # stable

    def test_context_reaches_the_host(self, harness: Harness, recorded_payloads: Payloads) -> None:
        """Context answered to a session start or a prompt is in what the host reads back."""
        marker = "lorebook-contract-context-7f3a"
        events = _parsed(harness, recorded_payloads, ("session_start", "prompt"))
        assert events, "no recorded session_start or prompt payload"
        for event in events:
            output = harness.render(event, HookAnswer(context=marker))
            assert marker in _text(output), f"{event.host_event}: the context is not rendered"
            assert output.exit_code == 0

    @pytest.mark.parametrize("decision", ["deny", "ask"])
    def test_a_decision_on_a_tool_reaches_the_host(
        self, harness: Harness, recorded_payloads: Payloads, decision: Decision
    ) -> None:
        """A deny or an ask before a tool runs is rendered as a decision with its reason.

        Not nothing, and not the same output as the reason given as mere context (a host
        that cannot ask blocks, saying so).
        """
        reason = f"lorebook-contract-{decision}-7f3a"
        events = _parsed(harness, recorded_payloads, ("pre_tool",))
        if not events:
            pytest.skip("no recorded pre_tool payload: this host cannot be asked before a tool")
        for event in events:
            output = harness.render(event, HookAnswer(decision=decision, reason=reason))
            assert reason in _text(output), f"{event.host_event}: the {decision} is not rendered"
            as_context = harness.render(event, HookAnswer(context=reason))
            assert (output.stdout, output.exit_code) != (as_context.stdout, as_context.exit_code)
            assert harness.render(event, HookAnswer()).stdout == b""

    def test_an_empty_answer_renders_nothing(
        self, harness: Harness, recorded_payloads: Payloads
    ) -> None:
        """Nothing to say prints nothing and exits 0."""
        host_event, payload = recorded_payloads[0]
        output = harness.render(harness.parse_event(host_event, payload), HookAnswer())
        assert output.stdout == b""
        assert output.exit_code == 0

    def test_what_the_host_loads_by_itself_is_repository_files(self, wired_repo: Path) -> None:
        """The event module's optional ``loaded_files(repo, cwd)`` names repository files.

        Repository-relative ``/`` paths of regular files, among them every instruction file
        of the spec that ``init`` wrote (the host reads it: that is why it is declared); a
        cwd outside the repository counts as its root. Core serves no note derived from
        one of these files to this host (:mod:`lorebook.inject.loaded`).
        """
        from lorebook.plugins import make_plugins

        spec = make_plugins().harness(self.harness_name)
        module = importlib.import_module(spec.event_module) if spec.event_module else None
        declared = getattr(module, "loaded_files", None)
        if declared is None:
            pytest.skip(f"{spec.event_module} declares no loaded_files")
        loaded = declared(str(wired_repo), str(wired_repo))
        assert isinstance(loaded, frozenset)
        for rel in loaded:
            assert not rel.startswith(("/", "../")), rel
            assert "\\" not in rel, rel
            assert (wired_repo / rel).is_file(), rel
        written = {rel for rel in spec.instruction_files if (wired_repo / rel).is_file()}
        assert written <= loaded
        assert declared(str(wired_repo), str(wired_repo.parent)) == declared(str(wired_repo), None)

    def test_recorded_payloads_through_the_launcher_exit_0(
        self, harness: Harness, wired_repo: Path, recorded_payloads: Payloads
    ) -> None:
        """Every recorded payload, replayed as the host runs it, exits 0 and logs no error.

        Recorded transcript paths name the recording machine's files, so they are pointed at
        an empty transcript here.
        """
        host = FakeHost(wired_repo, harness)
        assert host.commands, f"{self.harness_name}: init installed no hook command to replay"
        empty = wired_repo.parent / "empty-transcript.jsonl"
        empty.write_text("")
        replayed = 0
        for host_event, payload in recorded_payloads:
            if host_event not in host.commands:
                continue
            replay = {**payload, "cwd": str(wired_repo)}
            if "transcript_path" in replay:
                replay["transcript_path"] = str(empty)
            run = host.fire(host_event, replay)
            assert run.exit_code == 0, run.stderr
            replayed += 1
        assert replayed, f"no recorded payload is for an installed event: {sorted(host.commands)}"
        assert _log_lines(wired_repo) == []

    @pytest.mark.parametrize("garbage", [b"", b"not json", b"[1, 2]", b"{}", b"\xff\xfe"])
    def test_garbage_exits_0_prints_nothing_and_logs_one_line(
        self, harness: Harness, wired_repo: Path, garbage: bytes
    ) -> None:
        """Whatever the host sends, the session is never broken."""
        host = FakeHost(wired_repo, harness)
        event = sorted(host.commands)[0]
        before = len(_log_lines(wired_repo))
        run = host.fire(event, garbage)
        assert run.exit_code == 0
        assert run.stdout == ""
        assert len(_log_lines(wired_repo)) == before + 1

    def test_internal_sessions_are_left_alone(self, harness: Harness, wired_repo: Path) -> None:
        """With LOREBOOK_INTERNAL=1 the hook does nothing at all, not even log."""
        host = FakeHost(wired_repo, harness, env={"LOREBOOK_INTERNAL": "1"})
        host.env["LOREBOOK_INTERNAL"] = "1"
        event = sorted(host.commands)[0]
        run = host.fire(event, b"garbage")
        assert (run.exit_code, run.stdout) == (0, "")
        assert _log_lines(wired_repo) == []

    def test_headless_puts_long_prompts_on_stdin(self, harness: Harness) -> None:
        """Prompts over 64 KiB never go through argv (Linux caps one argument at 128 KiB)."""
        argv, stdin = harness.headless("short prompt", None)
        assert "short prompt" in argv
        assert stdin is None
        long_prompt = "x" * (70 * 1024)
        argv, stdin = harness.headless(long_prompt, None)
        assert long_prompt not in argv
        assert stdin == long_prompt.encode("utf-8")

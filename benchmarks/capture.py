"""What capture costs at the Stop hook: a 100 MB Claude Code transcript, then 1 MB more.

Generates a realistic Claude Code transcript (the record shapes of
shared/fixtures/harnesses/claude/transcripts: user prompts, lorebook's own injections as
``hook_success`` / ``hook_additional_context`` attachments, assistant text with ``tool_use``
blocks for Read, Bash, Edit, Grep and Write, ``tool_result`` records with the tool's output
and Claude's ``toolUseResult`` copy of it). Prose comes from the rule files in
shared/eval/corpora (as benchmarks/kbgen.py uses them), file contents and command output
from this repository's own sources, and about one prompt in forty carries a secret, so
redaction does real work. Seeded: the same arguments give the same bytes.

Then, for R rounds, each with a new session id (so a new staged log):

- do-nothing: ``python -I -S -c "import json,sys; json.load(sys.stdin)"``;
- stop, 100 MB: ``.lorebook/bin/hook claude Stop`` exactly as Claude Code runs it. A delta
  this large is handed to a detached capture process (the hook returns at once), so the
  figure is the time from starting the hook until the staged log holds the whole
  transcript, and the peak RSS is that of the detached process's command run under
  /usr/bin/time on an identical copy of the session;
- follow-up: the detached process every capture that staged something starts (usage
  counts and the resume summary), run under /usr/bin/time: the first reads the whole
  staged log;
- stop, +1 MB: 1 MB of new records appended, the same hook again (inline: the hook's own
  wall time and peak RSS, from /usr/bin/time);
- follow-up, +1 MB: the follow-up after it, which reads only the records staged since
  the first (lorebook.stats.tally).

Prints median, min and max (wall clock, seconds) and the peak RSS (MB, max over rounds).

    .venv/bin/python benchmarks/capture.py [--mb 100] [--rounds 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

from kbgen import corpus_words

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ("Read", "Bash", "Edit", "Grep", "Write")
SECRETS = (
    "the staging password is hunter2-{n}, keep it out of the notes",
    "use AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEX{n:05d}KEY for the bucket",
    "export GITHUB_TOKEN=ghp_{n:06d}abcdefghijklmnopqrstuvwxyz0123 before pushing",
)
INJECTION = (
    "lorebook: notes the team keeps for this project (unreviewed notes are marked):\n\n"
    "### Run the tests with uv (.lorebook/nodes/tooling/practice-uv-run.md)\n"
    "Always `uv run pytest`; bare pytest misses the workspace members.\n"
)


class Generator:
    """Claude Code records, one JSON line each, from real prose and real source files."""

    def __init__(self, session: str, seed: int = 11) -> None:
        self.rng = random.Random(seed)
        self.session = session
        self.words = corpus_words()
        self.sources = [
            (p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8"))
            for p in sorted((ROOT / "core/src/lorebook").rglob("*.py"))
        ]
        self.parent: str | None = None
        self.clock = 1_764_000_000.0
        self.prompts = 0

    def prose(self, low: int, high: int) -> str:
        """A run of real words from the rule corpus."""
        length = self.rng.randint(low, high)
        start = self.rng.randrange(0, len(self.words) - length)
        return " ".join(self.words[start : start + length])

    def _base(self, kind: str) -> dict[str, object]:
        self.clock += self.rng.uniform(0.5, 20)
        record_id = str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(self.clock))
        record: dict[str, object] = {
            "parentUuid": self.parent, "isSidechain": False, "type": kind, "uuid": record_id,
            "timestamp": stamp, "userType": "external", "entrypoint": "cli", "cwd": "/src/app",
            "sessionId": self.session, "version": "2.1.197", "gitBranch": "main",
        }  # fmt: skip
        self.parent = record_id
        return record

    def _user(self, content: object, **extra: object) -> dict[str, object]:
        return {**self._base("user"), "message": {"role": "user", "content": content}, **extra}

    def _assistant(self, blocks: list[dict[str, object]]) -> dict[str, object]:
        message = {
            "id": f"msg_{self.rng.getrandbits(80):020x}", "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5", "content": blocks, "stop_reason": "end_turn",
            "usage": {"input_tokens": self.rng.randint(10, 90000), "output_tokens": 200},
        }  # fmt: skip
        return {**self._base("assistant"), "message": message}

    def _attachment(self, event: str, text: str, ms: int) -> Iterator[dict[str, object]]:
        command = '"$CLAUDE_PROJECT_DIR"/.lorebook/bin/hook claude ' + event
        yield {**self._base("attachment"), "attachment": {
            "type": "hook_success", "hookName": event, "hookEvent": event, "content": "",
            "stdout": "", "stderr": "", "exitCode": 0, "command": command, "durationMs": ms,
        }}  # fmt: skip
        yield {**self._base("attachment"), "attachment": {
            "type": "hook_additional_context", "content": [text], "hookName": event,
            "hookEvent": event,
        }}  # fmt: skip

    def _tool(self) -> tuple[dict[str, object], str, dict[str, object]]:
        """(tool_use block, tool output, Claude's toolUseResult) for one random tool."""
        name = self.rng.choice(TOOLS)
        path, source = self.rng.choice(self.sources)
        use_id = f"toolu_{self.rng.getrandbits(96):024x}"
        if name == "Read":
            tool_input: dict[str, object] = {"file_path": f"/src/app/{path}"}
            file = {"filePath": f"/src/app/{path}", "content": source}
            return self._use(use_id, name, tool_input), source, {"type": "text", "file": file}
        lines = source.splitlines()
        at = self.rng.randrange(0, max(1, len(lines) - 40))
        snippet = "\n".join(lines[at : at + self.rng.randint(5, 40)])
        if name == "Bash":
            tool_input = {"command": f"uv run pytest -q tests/{Path(path).stem}", "timeout": 120}
            output = "\n".join(f"{path}:{at + i}: {line}" for i, line in enumerate(lines[at:]))
            output = output[: self.rng.randint(2000, 30000)]
            return self._use(use_id, name, tool_input), output, {"stdout": output, "stderr": ""}
        if name == "Edit":
            tool_input = {"file_path": f"/src/app/{path}", "old_string": snippet,
                          "new_string": snippet.replace("self", "this")}  # fmt: skip
            return self._use(use_id, name, tool_input), "The file has been updated.", {}
        if name == "Write":
            tool_input = {"file_path": f"/src/app/{path}.new", "content": source}
            return self._use(use_id, name, tool_input), "File created successfully.", {}
        pattern = self.rng.choice(source.split() or ["def"])[:30]
        tool_input = {"pattern": pattern, "path": "/src/app"}
        output = "\n".join(p for p, s in self.sources if pattern in s)
        return self._use(use_id, name, tool_input), output, {"filenames": output.split("\n")}

    @staticmethod
    def _use(use_id: str, name: str, tool_input: dict[str, object]) -> dict[str, object]:
        return {"type": "tool_use", "id": use_id, "name": name, "input": tool_input}

    def exchange(self) -> Iterator[dict[str, object]]:
        """One prompt, its injection, a few tool calls with their results, an answer."""
        self.prompts += 1
        text = self.prose(8, 80)
        if self.prompts % 40 == 0:
            text += "\n" + self.rng.choice(SECRETS).format(n=self.prompts)
        yield self._user(text, promptId=str(uuid.UUID(int=self.rng.getrandbits(128))))
        yield from self._attachment("UserPromptSubmit", INJECTION, self.rng.randint(15, 40))
        for _ in range(self.rng.randint(1, 5)):
            use, output, result = self._tool()
            yield self._assistant([{"type": "text", "text": self.prose(10, 60)}, use])
            failed = self.rng.random() < 0.05
            block = {"tool_use_id": use["id"], "type": "tool_result", "content": output,
                     "is_error": failed}  # fmt: skip
            yield self._user([block], toolUseResult=result)
        yield self._assistant([{"type": "text", "text": self.prose(30, 250)}])

    def write(self, path: Path, size: int) -> None:
        """Append whole exchanges to ``path`` until it has grown by ``size`` bytes."""
        with path.open("ab") as handle:
            target = handle.seek(0, 2) + size
            while handle.tell() < target:
                for record in self.exchange():
                    handle.write(json.dumps(record).encode() + b"\n")


def wired_repo(root: Path) -> Path:
    """A git repository with lorebook initialised for Claude Code."""
    repo = root / "repo"
    if not (repo / ".lorebook/bin/hook").exists():
        from lorebook.initialize import init_repo

        repo.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        init_repo(repo, ["claude"])
    return repo


def run_timed(
    argv: list[str], payload: bytes, env: dict[str, str], cwd: Path
) -> tuple[float, float]:
    """Run one process under /usr/bin/time; return (wall seconds, peak RSS in MB)."""
    started = time.perf_counter()
    proc = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *argv], input=payload, capture_output=True, env=env,
        cwd=cwd, check=True,
    )  # fmt: skip
    wall = time.perf_counter() - started
    return wall, int(proc.stderr.decode().strip().splitlines()[-1]) / 1024


def staged_length(repo: Path, session: str) -> int:
    """The transcript bytes the staged log of ``session`` covers (0: none yet)."""
    from lorebook.capture.stage import log_path
    from lorebook.kb.paths import KBPaths

    try:
        header = json.loads(log_path(KBPaths(repo), "claude", session).read_bytes())
    except (OSError, ValueError):
        return 0
    return int(header.get("transcript_length", 0))


def wait_staged(repo: Path, session: str, length: int, started: float) -> float:
    """Seconds from ``started`` until the staged log covers ``length`` bytes."""
    deadline = time.monotonic() + 300
    while staged_length(repo, session) < length:
        if time.monotonic() > deadline:
            raise SystemExit(f"the capture of {session} did not finish within 300 s")
        time.sleep(0.01)
    return time.perf_counter() - started


def wait_idle(seconds: float = 600) -> None:
    """Wait until no detached capture or follow-up runs (their CPU would skew the figures)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        busy = False
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            busy = busy or b"lorebook.capture.worker" in cmdline
        if not busy:
            return
        time.sleep(0.1)


def one_round(repo: Path, base: Path, mb: int, env: dict[str, str]) -> dict[str, float]:
    """Capture a fresh copy of the transcript, then 1 MB more; return the figures."""
    session = str(uuid.uuid4())
    ref = repo.parent / f"{session}.jsonl"
    ref.write_bytes(base.read_bytes())
    hook = [str(repo / ".lorebook/bin/hook"), "claude", "Stop"]
    payload = json.dumps({
        "session_id": session, "transcript_path": str(ref), "cwd": str(repo),
        "hook_event_name": "Stop", "stop_hook_active": False,
    }).encode()  # fmt: skip
    out: dict[str, float] = {}
    started = time.perf_counter()
    out["hook returned"], _ = run_timed(hook, payload, env, repo)
    out[f"stop, {mb} MB (until staged)"] = wait_staged(repo, session, ref.stat().st_size, started)
    wait_idle()
    out["detached capture RSS"] = detached_rss(repo, base, env)
    wait_idle()
    # The capture's own follow-up has run (wait_idle): without its tally, this one reads
    # the whole log, as the first follow-up of a session does.
    tally = tally_file(repo, session)
    tally.unlink()
    out[f"follow-up, {mb} MB log"], out["follow-up RSS"] = follow_up(repo, session, env)
    before = tally.read_bytes()
    Generator(session, seed=int(time.time())).write(ref, 1 << 20)
    out["stop, +1 MB"], out["stop, +1 MB RSS"] = run_timed(hook, payload, env, repo)
    wait_idle()
    tally.write_bytes(before)  # as it was when that capture's follow-up started
    out["follow-up, +1 MB"], out["follow-up, +1 MB RSS"] = follow_up(repo, session, env)
    if staged_length(repo, session) != ref.stat().st_size:
        raise SystemExit("the +1 MB capture did not stage the new records inline")
    ref.unlink()
    return out


def detached_rss(repo: Path, base: Path, env: dict[str, str]) -> float:
    """Peak RSS of the detached capture's own command, on an identical copy of the session."""
    from lorebook.capture.hook import capture_argv

    session = str(uuid.uuid4())
    ref = repo.parent / f"{session}.jsonl"
    ref.write_bytes(base.read_bytes())
    argv = capture_argv(str(repo), "claude", session, str(ref), "lorebook_claude.transcript")
    _, rss = run_timed(argv, b"", env, repo)
    ref.unlink()
    return rss


def tally_file(repo: Path, session: str) -> Path:
    """The follow-up's tally of the staged log of ``session``."""
    from lorebook.capture.stage import log_path, tally_path
    from lorebook.kb.paths import KBPaths

    paths = KBPaths(repo)
    return tally_path(paths, log_path(paths, "claude", session).stem)


def follow_up(repo: Path, session: str, env: dict[str, str]) -> tuple[float, float]:
    """The detached follow-up after a capture: usage counts and resume summary."""
    from lorebook.capture.hook import worker_argv
    from lorebook.capture.stage import log_path
    from lorebook.kb.paths import KBPaths

    log = log_path(KBPaths(repo), "claude", session)
    return run_timed(worker_argv("follow", str(repo), str(log)), b"", env, repo)


def main() -> None:
    """Generate the transcript, run the rounds, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100, help="transcript size in MB")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="build (or reuse) the repository here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lorebook-bench-capture-") as tmp:
        root = args.keep or Path(tmp)
        repo = wired_repo(root)
        base = root / f"transcript-{args.mb}mb.jsonl"
        if not base.exists():
            Generator("bench").write(base, args.mb << 20)
        print(f"transcript: {base.stat().st_size / 1e6:.1f} MB, {args.rounds} rounds")
        env = {k: v for k, v in os.environ.items() if k != "LOREBOOK_INTERNAL"}
        env["CLAUDE_PROJECT_DIR"] = str(repo)
        nothing = [sys.executable, "-I", "-S", "-c", "import json,sys; json.load(sys.stdin)"]
        samples: dict[str, list[float]] = {"do-nothing": [], "do-nothing RSS": []}
        for _ in range(args.rounds):
            wall, rss = run_timed(nothing, b"{}", env, repo)
            samples["do-nothing"].append(wall)
            samples["do-nothing RSS"].append(rss)
            for name, value in one_round(repo, base, args.mb, env).items():
                samples.setdefault(name, []).append(value)
        report(samples)
        errors = repo / ".lorebook/_logs/hook-errors.log"
        if errors.exists():
            print("hook errors:", errors.read_text()[-2000:])


def report(samples: dict[str, list[float]]) -> None:
    """Print median, min and max of every time, the maximum of every RSS."""
    print(f"{'figure':<32}{'median s':>10}{'min s':>9}{'max s':>9}")
    for name, values in samples.items():
        if "RSS" in name:
            continue
        print(f"{name:<32}{statistics.median(values):>10.3f}{min(values):>9.3f}{max(values):>9.3f}")
    for name, values in samples.items():
        if "RSS" in name:
            print(f"{name + ' (MB, max)':<32}{max(values):>10.1f}")


if __name__ == "__main__":
    main()

"""SIGKILL every lorebook writer mid-run, rerun it, and check nothing is torn or lost.

Writers: ``index rebuild`` (from nothing), ``note add``, ``import``, ``extract``, ``curate``,
``capture`` and ``bootstrap``, each the real CLI in its own process on a knowledge base
built for it. For each kill the writer starts on a fresh copy of its starting state and
gets SIGKILL at a random moment of its clean run's duration (after interpreter start-up);
a kill that arrives after the process ended is not counted and is tried again. Then:

- after the kill: every note and conflict file parses, every JSON file under .lorebook/
  parses, every staged log loads, no note, conflict or staged log that was there before is
  gone, and no file (other than a lock or a temporary file) is zero bytes;
- the same command is rerun to completion (``note add`` may say the id exists: its write
  had landed) and must succeed;
- after the rerun: the same checks, no temporary file left anywhere under .lorebook/, and
  the tree (outside .git, .cache, .state and _logs) and the note index's notes are those
  of an uninterrupted run.

Prints one line per writer and the totals; exits 1 when any check failed.

    .venv/bin/python benchmarks/kill_writers.py [--kills 210] [--seed 1] [--notes 200]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from kbgen import write_kb

LOREBOOK = [sys.executable, "-m", "lorebook"]
SKIP = (".git/", ".lorebook/.cache/", ".lorebook/.state/", ".lorebook/_logs/", ".lorebook/bin/")
TIMEOUT = 300.0
STARTUP = 0.25
"""Seconds a kill waits at least: before that the process is still importing."""


@dataclass
class Writer:
    """One writer: how to prepare its starting state and the command line it runs."""

    name: str
    argv: list[str]
    prepare: Callable[[Path, Path], None]
    """Called with (repo, work folder) to build the starting state in ``repo``."""
    exists_ok: bool = False
    """A rerun may refuse because the killed run's write had landed (``note add``)."""


@dataclass
class Tally:
    """What happened to one writer's kills."""

    kills: int = 0
    missed: int = 0
    seconds: float = 0.0
    clean_run: float = 0.0
    problems: list[str] = field(default_factory=list)

    def count(self, kind: str) -> int:
        """How many problems of this kind were found."""
        return sum(1 for p in self.problems if p.startswith(kind + ":"))


def lorebook(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run the CLI to completion in ``repo``."""
    proc = subprocess.run(
        [*LOREBOOK, *args], cwd=repo, capture_output=True, text=True, timeout=TIMEOUT, check=False
    )
    if check and proc.returncode != 0:
        raise RuntimeError(f"lorebook {' '.join(args)}: exit {proc.returncode}: {proc.stderr}")
    return proc


def new_repo(repo: Path, harnesses: tuple[str, ...] = ("claude",)) -> None:
    """A git repository with ``lorebook init`` done."""
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    lorebook(repo, "init", "--harnesses", ",".join(harnesses))


RULES = (
    "No, never call the {a} API from tests; always use the {b} fake instead.",
    "We always run `{a} check` before pushing, never skip it for {b}.",
    "Don't edit {a}.lock by hand; regenerate it with `{b} sync`.",
    "Actually the {a} service reads its config from {b}.toml, not from the environment.",
)
WORDS = ("billing", "ledger", "cache", "search", "upload", "mailer", "auth", "report", "queue")


def teaching_turns(session: int, turns: int) -> list[tuple[str, str]]:
    """(user text, assistant text) pairs with a teaching moment every few turns."""
    out = []
    for t in range(turns):
        a, b = WORDS[(session + t) % len(WORDS)], f"{WORDS[t % len(WORDS)]}{session}x{t}"
        if t % 3 == 0:
            user = RULES[t % len(RULES)].format(a=a, b=b)
        else:
            user = f"Please look at src/{a}/module_{t}.py and tell me what {b} does."
        out.append((user, f"I read src/{a}/module_{t}.py: {b} formats {a} records. " * 3))
    return out


def write_jsonl_sessions(folder: Path, sessions: int, turns: int) -> None:
    """Normalised-turns JSONL transcripts, the documented import format."""
    folder.mkdir(parents=True, exist_ok=True)
    for s in range(sessions):
        lines = [json.dumps({"session_id": f"bench-{s:03d}", "harness": "import"})]
        for user, assistant in teaching_turns(s, turns):
            lines.append(json.dumps({"role": "user", "text": user}))
            lines.append(json.dumps({"role": "assistant", "text": assistant}))
        (folder / f"session-{s:03d}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def claude_line(session: str, n: int, role: str, text: str) -> str:
    """One line of a Claude Code transcript."""
    message: dict[str, object] = {"role": role, "content": text}
    if role == "assistant":
        message["content"] = [{"type": "text", "text": text}]
    return json.dumps(
        {"type": role, "message": message, "uuid": f"{session}-{n:06d}", "sessionId": session}
    )


def write_claude_transcript(path: Path, session: str, turns: int, start: int = 0) -> None:
    """Append ``turns`` user/assistant exchanges to a Claude Code transcript."""
    lines = []
    for t, (user, assistant) in enumerate(teaching_turns(start, turns), start):
        lines.append(claude_line(session, 2 * t, "user", user))
        lines.append(claude_line(session, 2 * t + 1, "assistant", assistant))
    with path.open("a", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")


def write_docs(repo: Path, documents: int, sections: int) -> None:
    """Markdown documents under docs/, one rule per section, for bootstrap."""
    docs = repo / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    for d in range(documents):
        parts = [f"# Guide {d}\n"]
        for s, (user, _) in enumerate(teaching_turns(d, sections)):
            parts.append(f"## Rule {d}.{s}\n\n{user}\n")
        (docs / f"guide-{d:02d}.md").write_text("\n".join(parts), encoding="utf-8")


def writers(notes: int) -> list[Writer]:
    """Every writer, with its starting state (built once, copied for every kill)."""

    def kb_for_rebuild(repo: Path, work: Path) -> None:
        write_kb(repo, notes)
        lb = repo / ".lorebook"
        for generated in [lb / "ENTRY.md", lb / "GRAPH.md", *lb.glob("nodes/**/index.md")]:
            generated.unlink(missing_ok=True)
        shutil.rmtree(lb / ".cache", ignore_errors=True)

    def kb(repo: Path, work: Path) -> None:
        write_kb(repo, notes)
        lorebook(repo, "index", "rebuild")

    def transcripts(repo: Path, work: Path) -> None:
        new_repo(repo)
        write_jsonl_sessions(repo / "transcripts", SESSIONS, 40)

    def staged(repo: Path, work: Path, sessions: int = 10, turns: int = 40) -> None:
        new_repo(repo)
        write_jsonl_sessions(repo / "transcripts", sessions, turns)
        lorebook(repo, "import", "--format", "jsonl", *sorted_files(repo, "transcripts"))

    def extracted(repo: Path, work: Path) -> None:
        staged(repo, work, 4, 24)
        lorebook(repo, "extract")

    def claude_transcript(repo: Path, work: Path) -> None:
        new_repo(repo)
        write_claude_transcript(repo / "session.jsonl", "kill-capture", 800)

    def documents(repo: Path, work: Path) -> None:
        new_repo(repo)
        write_docs(repo, 4, 6)

    add = ["note", "add", "--title", "Killed writers leave whole notes", "--kind", "gotcha",
           "--description", "Checked by kill_writers.py", "--body", "Rerun it."]  # fmt: skip
    return [
        Writer("index rebuild", ["index", "rebuild"], kb_for_rebuild),
        Writer("note add", add, kb, exists_ok=True),
        Writer("import", ["import", "--format", "jsonl", *JSONL_NAMES], transcripts),
        Writer("extract", ["extract"], staged),
        Writer("curate", ["curate"], extracted),
        Writer("capture", CAPTURE, claude_transcript),
        Writer("bootstrap", ["bootstrap"], documents),
    ]


SESSIONS = 12
JSONL_NAMES = [f"transcripts/session-{s:03d}.jsonl" for s in range(SESSIONS)]
CAPTURE = ["capture", "--harness", "claude", "--session", "kill-capture",
           "--transcript", "session.jsonl"]  # fmt: skip


def sorted_files(repo: Path, folder: str) -> list[str]:
    """Files of a folder, relative to the repository, sorted."""
    return sorted(str(p.relative_to(repo)) for p in (repo / folder).iterdir())


def tree(repo: Path) -> dict[str, bytes]:
    """Every file outside the per-machine folders, by path."""
    out = {}
    for path in sorted(repo.rglob("*")):
        rel = path.relative_to(repo).as_posix()
        if path.is_file() and not any(rel.startswith(s) for s in SKIP):
            out[rel] = path.read_bytes()
    return out


def indexed(repo: Path) -> dict[str, str]:
    """The note index's notes (path -> id), or {} when there is no index."""
    from lorebook.recall.index import index_path
    from lorebook.recall.writer import IndexWriter

    where = index_path(str(repo / ".lorebook"))
    if not os.path.exists(where):
        return {}
    with IndexWriter(where) as index:
        return {path: note_id for path, (note_id, _, _) in index.files().items()}


def kept(repo: Path) -> set[str]:
    """Files a writer must never lose: notes, conflicts, staged logs."""
    lb = repo / ".lorebook"
    found = [*lb.glob("nodes/**/*.md"), *lb.glob("conflicts/*.md"), *lb.glob("_sessions/*.json")]
    return {p.relative_to(repo).as_posix() for p in found if p.name != "index.md"}


NOT_OURS = (".tmp", ".lock", ".sqlite", "-journal", "-wal", "-shm")
"""Left out of the zero-byte check: temporary files (checked after the rerun), locks (empty
by design) and SQLite's files (SQLite reads an empty file as an empty database, and a hot
journal is its recovery; the note index is checked against the clean run's instead)."""


def whole(repo: Path) -> list[str]:
    """Torn or zero-byte files under .lorebook/ (see :data:`NOT_OURS` for what is skipped)."""
    from lorebook.capture.stage import load_log
    from lorebook.curate.conflicts import list_conflicts
    from lorebook.kb.notes import parse_note, read_note_text
    from lorebook.kb.paths import KBPaths

    problems = []
    lb = repo / ".lorebook"
    for path in sorted(lb.rglob("*")):
        rel = path.relative_to(repo).as_posix()
        if not path.is_file() or path.name.endswith(NOT_OURS):
            continue
        try:
            if path.stat().st_size == 0:
                problems.append(f"zero-byte: {rel}")
            elif rel.startswith(".lorebook/nodes/") and path.suffix == ".md":
                if path.name != "index.md":
                    parse_note(read_note_text(path), source=rel)
            elif rel.startswith(".lorebook/_sessions/") and path.suffix == ".json":
                load_log(path)
            elif path.suffix in (".json", ".jsonl"):
                for line in ([path.read_text()] if path.suffix == ".json" else
                             path.read_text().splitlines()):  # fmt: skip
                    json.loads(line)
        except Exception as exc:  # any failure to read back is a torn file
            problems.append(f"torn: {rel}: {type(exc).__name__}: {str(exc)[:200]}")
    conflicts = list_conflicts(KBPaths(repo), include_decided=True).problems
    problems += [f"torn: conflict: {str(p)[:200]}" for p in conflicts]
    return problems


def temporaries(repo: Path) -> list[str]:
    """Temporary files (``.<name>.<pid>.<hex>.tmp``) anywhere under .lorebook/."""
    return sorted(p.relative_to(repo).as_posix() for p in (repo / ".lorebook").rglob("*.tmp"))


def kill_once(writer: Writer, seed: Path, work: Path, delay: float, tally: Tally) -> bool:
    """One kill and rerun on a fresh copy of ``seed``; False if the kill came too late."""
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(seed, work, symlinks=True)
    before = kept(work)
    proc = subprocess.Popen(
        [*LOREBOOK, *writer.argv], cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    time.sleep(delay)
    if proc.poll() is not None:
        return False
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    tally.kills += 1
    tally.problems += [f"{p} (after the kill at {delay:.2f} s)" for p in whole(work)]
    tally.problems += [f"lost: {rel}" for rel in sorted(before - kept(work))]
    rerun = lorebook(work, *writer.argv, check=False)
    landed = writer.exists_ok and rerun.returncode == 1 and "already" in rerun.stderr
    if rerun.returncode != 0 and not landed:
        tally.problems.append(f"rerun: exit {rerun.returncode}: {rerun.stderr.strip()[:300]}")
    tally.problems += [f"{p} (after the rerun)" for p in whole(work)]
    tally.problems += [f"temporary: {rel}" for rel in temporaries(work)]
    return True


def compare(work: Path, expected: dict[str, bytes], index: dict[str, str], tally: Tally) -> None:
    """The rerun's tree and index against the uninterrupted run's."""
    got = tree(work)
    for rel in sorted(set(got) | set(expected)):
        if got.get(rel) != expected.get(rel):
            state = "missing" if rel not in got else "extra" if rel not in expected else "differs"
            tally.problems.append(f"tree: {rel} {state} (final tree is not the clean run's)")
    if indexed(work) != index:
        tally.problems.append("tree: the note index's notes are not the clean run's")


def run_writer(writer: Writer, kills: int, rng: random.Random, base: Path) -> Tally:
    """Prepare, run once cleanly (the reference), then kill ``kills`` times."""
    tally = Tally()
    started = time.monotonic()
    seed = base / "seed"
    writer.prepare(seed, base)
    reference = base / "reference"
    shutil.copytree(seed, reference, symlinks=True)
    clock = time.monotonic()
    lorebook(reference, *writer.argv)
    tally.clean_run = time.monotonic() - clock
    expected, index = tree(reference), indexed(reference)
    work = base / "work"
    attempts = 0
    while tally.kills < kills and attempts < kills * 10:  # a loaded machine misses more
        attempts += 1
        delay = rng.uniform(min(STARTUP, tally.clean_run / 2), tally.clean_run)
        if kill_once(writer, seed, work, delay, tally):
            compare(work, expected, index, tally)
        else:
            tally.missed += 1
    tally.seconds = time.monotonic() - started
    return tally


KINDS = ("torn", "zero-byte", "lost", "temporary", "rerun", "tree")


def main(argv: list[str] | None = None) -> int:
    """Run every writer's kills; print one line per writer; 1 if any check failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=210, help="SIGKILLs in all (spread evenly)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--notes", type=int, default=200, help="notes for rebuild and note add")
    parser.add_argument("--only", action="append", help="run only this writer (repeatable)")
    args = parser.parse_args(argv)
    chosen = [w for w in writers(args.notes) if not args.only or w.name in args.only]
    per = -(-args.kills // len(chosen))
    rng = random.Random(args.seed)
    tallies: dict[str, Tally] = {}
    with tempfile.TemporaryDirectory(prefix="lorebook-kills-") as tmp:
        for n, writer in enumerate(chosen):
            tallies[writer.name] = run_writer(writer, per, rng, Path(tmp) / f"w{n}")
            print_row(writer.name, tallies[writer.name])
    print_total(tallies)
    return 1 if any(t.problems for t in tallies.values()) else 0


def print_row(name: str, tally: Tally) -> None:
    """One writer's figures, and its first problems."""
    counts = " ".join(f"{kind} {tally.count(kind)}" for kind in KINDS)
    print(f"{name:14} kills {tally.kills:4} (late {tally.missed:3}) {counts} "
          f"clean run {tally.clean_run:.2f} s, {tally.seconds:.0f} s", flush=True)  # fmt: skip
    for problem in tally.problems[:5]:
        print(f"    {problem}", flush=True)


def print_total(tallies: dict[str, Tally]) -> None:
    """Totals over every writer."""
    kills = sum(t.kills for t in tallies.values())
    counts = " ".join(f"{k} {sum(t.count(k) for t in tallies.values())}" for k in KINDS)
    seconds = sum(t.seconds for t in tallies.values())
    print(f"{'total':14} kills {kills:4} {counts} in {seconds:.0f} s")


if __name__ == "__main__":
    sys.exit(main())

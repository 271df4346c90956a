"""The follow-up after capture reads only new records, and says what a read of the whole log says.

Sessions are made up from a seeded generator (prompts, answers that quote, cite or ignore the
notes, shell commands a note forbids, files written, lorebook's injections of real notes),
staged the way capture stages them (appended, then the header committed), a few records at a
time. After every append the follow-up's usage entry and resume summary are compared with
those :func:`remember_session` writes from the whole log.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

from lorebook.capture import staged
from lorebook.capture.retention import forget_session, prune
from lorebook.capture.stage import load_log, log_path, tally_path, write_log
from lorebook.inject.resume import summary_path
from lorebook.kb.notes import read_note
from lorebook.kb.paths import KBPaths
from lorebook.stats.follow import remember_session
from lorebook.stats.tally import follow_log
from lorebook.stats.usage import usage_path
from tests.conftest import CliRunner

NOTES = (
    ("Deploy with make deploy-staging", "prohibition", ["--anchor-command", r"deploy\.sh prod",
     "--enforce", "warn"], "Run `make deploy-staging`; never `./deploy.sh prod` from a laptop."),
    ("Never force push main", "prohibition", ["--anchor-command", r"push --force",
     "--enforce", "deny"], "Open a pull request instead of `git push --force`."),
    ("Exports go through the writer module", "convention", ["--anchor-file", "src/export/*.py"],
     "Call `write_export()` from src/export/writer.py; it batches rows and closes the file."),
    ("Gateway timeouts mean the cache is cold", "gotcha", ["--anchor-error", "504 Gateway"],
     "Warm the cache with `make warm` before the load test starts."),
)  # fmt: skip
PROMPTS = (
    "add the export of invoices",
    "deploy this to staging please",
    "why does the load test fail with 504 Gateway Timeout?",
    "never ./deploy.sh prod from a laptop, they said; run make deploy-staging",
    "push it",
)
ANSWERS = (
    "Done: the export is in place.",
    "I will run make deploy-staging as the note says.",
    "Warm the cache with make warm before the load test starts, then rerun it.",
    "Call write_export from the writer module; it batches rows and closes the file.",
    "Following exports-go-through-the-writer-module I used the writer.",
    PROMPTS[3],  # an echo of the prompt: not a use of the note it quotes
    "",
)
COMMANDS = ("./deploy.sh prod", "make deploy-staging", "git push --force origin main", "make warm",
            "pytest -q")  # fmt: skip
FILES = ("src/export/writer.py", "src/app.py", "README.md", "../elsewhere.py", "src/export/csv.py")


@pytest.fixture
def repo(kb_repo: Path, cli: CliRunner) -> Path:
    """A repository on branch main with four notes, indexed."""
    import subprocess

    subprocess.run(["git", "-C", str(kb_repo), "checkout", "-q", "-b", "main"], check=True)
    for title, kind, anchors, body in NOTES:
        args = ["note", "add", "--title", title, "--kind", kind, "--description", title, *anchors]
        assert cli(*args, "--body", body, cwd=kb_repo).exit_code == 0
    assert cli("index", "rebuild", cwd=kb_repo).exit_code == 0
    return kb_repo


def injections(repo: Path) -> list[str]:
    """lorebook's injections of the repository's notes, as its prompt hook renders them."""
    paths = KBPaths(repo)
    blocks = []
    for file in sorted(paths.nodes.rglob("*.md")):
        if file.name == "index.md":
            continue
        note = read_note(file, source=paths.rel(file))
        rel = paths.rel(file)
        blocks.append(f"### {note.title} ({note.kind}; {rel})\n{note.body.strip()}")
    texts = [f"lorebook: notes the team keeps for this project:\n\n{block}" for block in blocks]
    texts.append("lorebook: notes the team keeps for this project:\n\n" + "\n\n".join(blocks[:2]))
    return texts


def session(rng: random.Random, repo: Path, size: int) -> list[tuple[str, dict[str, Any]]]:
    """A made-up session: (``turn`` | ``injected``, record) in transcript order."""
    texts = injections(repo)
    records: list[tuple[str, dict[str, Any]]] = []
    index = rng.randrange(3)
    for _ in range(size):
        index += rng.randint(1, 3)
        stamp = f"2026-12-03T09:{index % 60:02d}:00Z" if rng.random() < 0.7 else None
        roll = rng.random()
        if roll < 0.2:
            records.append(("turn", {"index": index, "role": "user", "text": rng.choice(PROMPTS),
                                     "timestamp": stamp}))  # fmt: skip
        elif roll < 0.35:
            records.append(("injected", {"index": index, "text": rng.choice(texts),
                                         "host_event": "UserPromptSubmit", "timestamp": stamp}))  # fmt: skip
        elif roll < 0.8:
            calls = []
            for _ in range(rng.choice((0, 0, 1, 2))):
                if rng.random() < 0.5:
                    calls.append({"name": "Bash", "input": {"command": rng.choice(COMMANDS)}})
                else:
                    name = rng.choice(("Write", "Edit", "Read"))
                    where = rng.choice(FILES)
                    if rng.random() < 0.5:
                        where = str(repo / where)
                    calls.append({"name": name, "input": {"file_path": where}})
            records.append(("turn", {"index": index, "role": "assistant",
                                     "text": rng.choice(ANSWERS), "tool_calls": calls,
                                     "timestamp": stamp}))  # fmt: skip
        elif roll < 0.95:
            records.append(("turn", {"index": index, "role": "tool", "text": "ok",
                                     "timestamp": stamp}))  # fmt: skip
        else:
            records.append(("turn", {"index": index, "role": "summary", "text": "so far"}))
    return records


def new_log(repo: Path, name: str) -> Path:
    """An empty staged log on branch main."""
    target = log_path(KBPaths(repo), "claude", name)
    target.parent.mkdir(parents=True, exist_ok=True)
    header = {"harness": "claude", "session_id": name, "origin": f"claude:{name}",
              "transcript_hash": "", "transcript_length": 0, "branch": "main"}  # fmt: skip
    target.write_bytes(staged.encode_header(staged.header_of(header, 0)))
    return target


def append(target: Path, records: list[tuple[str, dict[str, Any]]]) -> None:
    """Append records and commit them, as capture does."""
    header = staged.read_header(target)
    assert header is not None
    committed, turns, injected = staged.body_counts(header)
    data = b"".join(staged.encode_record(kind, record) for kind, record in records)
    added = sum(kind == "turn" for kind, _ in records)
    size, _, _ = staged.append_body(target, committed, [(data, added, len(records) - added)])
    header["body"] = {"bytes": size, "turns": turns + added,
                      "injected": injected + len(records) - added}  # fmt: skip
    target.write_bytes(staged.encode_header(header))


def results(repo: Path, stem: str) -> tuple[Any, Any]:
    """(the log's usage entry, the branch's summary) as they are on disk."""
    kb = KBPaths(repo).root
    usage = json.loads(Path(usage_path(str(kb))).read_text())["sessions"].get(stem)
    summary = Path(summary_path(str(kb), "main"))
    return usage, json.loads(summary.read_text()) if summary.exists() else None


def reference(repo: Path, target: Path) -> tuple[Any, Any]:
    """What the follow-up of the whole log writes."""
    log = load_log(target)
    assert log is not None
    remember_session(KBPaths(repo), target.stem, log)
    return results(repo, target.stem)


def followed(repo: Path, target: Path) -> tuple[Any, Any]:
    """What the follow-up with its tally writes."""
    follow_log(KBPaths(repo), target)
    return results(repo, target.stem)


@pytest.mark.parametrize("seed", range(12))
def test_after_every_append_the_tally_says_what_the_whole_log_says(repo: Path, seed: int) -> None:
    rng = random.Random(seed)
    records = session(rng, repo, rng.randint(10, 80))
    target = new_log(repo, f"s{seed}")
    at = 0
    while at < len(records):
        step = rng.randint(1, 12)
        append(target, records[at : at + step])
        at += step
        mine = followed(repo, target)
        assert mine == reference(repo, target), f"after {at} records"
    assert tally_path(KBPaths(repo), target.stem).exists()


def test_the_made_up_sessions_use_notes_answer_and_change_files(repo: Path) -> None:
    """The generated sessions exercise what they are meant to compare (not only zeros)."""
    used = listed = answered = files = False
    for seed in range(12):
        rng = random.Random(seed)
        records = session(rng, repo, rng.randint(10, 80))
        target = new_log(repo, f"check{seed}")
        append(target, records)
        usage, summary = followed(repo, target)
        used = used or any(pair[1] for pair in (usage or {}).values())
        listed = listed or bool(summary and summary["notes"])
        answered = answered or bool(summary and summary["answered"])
        files = files or bool(summary and summary["files"])
    assert (used, listed, answered, files) == (True, True, True, True)


def test_a_follow_up_reads_only_the_records_committed_since_the_last(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(7)
    records = session(rng, repo, 60)
    target = new_log(repo, "offsets")
    append(target, records[:40])
    followed(repo, target)
    first = os.path.getsize(staged.body_path(target))
    append(target, records[40:])
    starts: list[int] = []
    real = staged.iter_body

    def spy(path: Path, committed: int, start: int = 0) -> Any:
        starts.append(start)
        return real(path, committed, start)

    monkeypatch.setattr(staged, "iter_body", spy)
    assert followed(repo, target) == reference(repo, target)
    assert starts[0] == first  # the follow-up's read; then the reference's, from 0
    assert followed(repo, target) == reference(repo, target)  # nothing new: nothing read
    assert starts[2] == os.path.getsize(staged.body_path(target))


def test_a_rewritten_body_or_a_broken_tally_is_read_whole(repo: Path) -> None:
    rng = random.Random(3)
    records = session(rng, repo, 50)
    target = new_log(repo, "rewritten")
    append(target, records[:30])
    followed(repo, target)
    log = load_log(target)
    assert log is not None
    # A tool rewrites the log (fewer turns; write_log puts a log's injections after all its
    # turns, so this one has none, to stay in transcript order): the old tally's offset
    # means nothing now.
    write_log(target, log.model_copy(update={"turns": log.turns[:5], "injected": []}))
    assert followed(repo, target) == reference(repo, target)
    assert json.loads(tally_path(KBPaths(repo), target.stem).read_text())["turns"] == 5
    store = tally_path(KBPaths(repo), target.stem)
    good = json.loads(store.read_text())
    broken = (
        "{",
        '{"version": 1}',
        json.dumps({**good, "device": "x"}),
        json.dumps({**good, "files": "src/app.py"}),
        json.dumps({**good, "pending": [{"injection": {}, "prompt": "", "after": []}]}),
    )
    for n, text in enumerate(broken):
        store.write_text(text)
        append(target, records[30 + 3 * n : 33 + 3 * n])
        assert followed(repo, target) == reference(repo, target), text
        assert json.loads(store.read_text())["offset"] > 0  # a new tally replaced it


def test_a_log_with_its_turns_before_its_injections_is_read_whole(repo: Path) -> None:
    rng = random.Random(11)
    records = session(rng, repo, 60)
    target = new_log(repo, "migrated")
    turns = [r for r in records if r[0] == "turn"]
    append(target, turns + [r for r in records if r[0] == "injected"])  # a migrated log's order
    assert followed(repo, target) == reference(repo, target)
    assert not tally_path(KBPaths(repo), target.stem).exists()


def test_forget_and_prune_remove_the_tally(repo: Path) -> None:
    paths = KBPaths(repo)
    records = session(random.Random(5), repo, 30)
    for name in ("gone", "old"):
        target = new_log(repo, name)
        append(target, records)
        followed(repo, target)
        assert tally_path(paths, target.stem).exists()
    forget_session(paths, "gone")
    assert not tally_path(paths, log_path(paths, "claude", "gone").stem).exists()
    old = log_path(paths, "claude", "old")
    stale = old.stat().st_mtime - 40 * 86400
    os.utime(old, (stale, stale))
    assert paths.rel(old) in prune(paths, 30, 30)
    assert not tally_path(paths, old.stem).exists()
    deleted = new_log(repo, "deleted by hand")
    append(deleted, records)
    followed(repo, deleted)
    kept = new_log(repo, "kept")
    append(kept, records)
    followed(repo, kept)
    for part in (deleted, staged.body_path(deleted)):
        part.unlink()
    prune(paths, 30, 30)
    assert not tally_path(paths, deleted.stem).exists()
    assert tally_path(paths, kept.stem).exists()

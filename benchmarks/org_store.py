"""The organisation store (lorebook-postgres) at size, on a PostgreSQL server of its own.

Starts a throwaway server (initdb/pg_ctl on a free port on 127.0.0.1, as the tests do; or
``--dsn`` names one), then measures:

- load: ``--notes`` organisation notes (100,000 by default, text from kbgen's corpus) put
  in with ``PostgresStore.add_many`` in batches, then approved in one statement;
- writers: ``--writers`` concurrent writers (10), each on its own connection, adding
  ``--per-writer`` notes (1,000) one transaction each; then checks that every note is there
  once (none lost, none duplicated);
- cache refresh: what session start runs detached (``python -m lorebook_postgres.refresh``
  as its own process): from an empty cache, then with nothing changed, then after 100
  notes are approved anew;
- the prompt hook: a repository of 1,000 notes (kbgen) wired for Claude Code, its launcher
  run with a typical prompt, interleaved with the do-nothing hook, ``--rounds`` times, first
  with ``stores: [markdown]`` and then with ``stores: [markdown, postgres]`` (the
  organisation's cache ranked beside it); each hook in its own process (no warm process).

    .venv/bin/python benchmarks/org_store.py [--notes 100000] [--writers 10]
        [--per-writer 1000] [--rounds 20] [--dsn DSN]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from kbgen import KINDS, note_texts, write_kb

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests' server helper

from lorebook.models.note import Note  # noqa: E402
from lorebook_postgres.store import PostgresStore  # noqa: E402

ORG = "bench"
PROMPT = "why does the session start command fail when the repo path has spaces?"
BATCH = 5000


def _note(i: int, prefix: str, text: tuple[str, str, str]) -> Note:
    title, description, body = text
    return Note.model_validate(
        {
            "type": "practice",
            "title": title,
            "description": description,
            "lb_id": f"practice-{prefix}-{i:06d}",
            "lb_kind": KINDS[i % len(KINDS)],
            "body": body,
        }
    )


def load(dsn: str, count: int) -> float:
    """Put ``count`` notes in and approve them; return the seconds."""
    texts = note_texts(count, seed=11)
    store = PostgresStore(ORG, dsn=dsn)
    started = time.perf_counter()
    for start in range(0, count, BATCH):
        notes = [_note(i, "org", texts[i]) for i in range(start, min(count, start + BATCH))]
        refused = store.add_many(notes)
        if refused:
            sys.exit(f"load: {len(refused)} notes refused")
    with store.pool().connection() as conn:
        conn.execute(
            "UPDATE lorebook_notes SET review = 'approved', approved_content = content, "
            "approved_version = version, approved_by = current_user, approved_at = now() "
            "WHERE org = %s",
            (ORG,),
        )
    seconds = time.perf_counter() - started
    store.close()
    return seconds


def writers(dsn: str, count: int, each: int) -> tuple[float, int, int]:
    """``count`` writers adding ``each`` notes at once; (seconds, notes found, distinct)."""
    texts = note_texts(each, seed=13)
    errors: list[str] = []
    gate = threading.Barrier(count + 1)

    def write(w: int) -> None:
        store = PostgresStore(ORG, dsn=dsn)
        try:
            store.ids()
            gate.wait()
            for i in range(each):
                store.add(_note(i, f"w{w:02d}", texts[i]))
        except Exception as exc:
            errors.append(repr(exc))
        finally:
            store.close()

    threads = [threading.Thread(target=write, args=(w,)) for w in range(count)]
    for thread in threads:
        thread.start()
    gate.wait()
    started = time.perf_counter()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - started
    if errors:
        sys.exit(f"writers: {errors[:3]}")
    store = PostgresStore(ORG, dsn=dsn)
    with store.pool().connection() as conn:
        rows = conn.execute(
            "SELECT count(*), count(DISTINCT id) FROM lorebook_notes "
            "WHERE org = %s AND id LIKE 'practice-w%%'",
            (ORG,),
        ).fetchone()
    store.close()
    assert rows is not None
    return seconds, int(rows[0]), int(rows[1])


def refresh_seconds(cache: Path, env: dict[str, str]) -> float:
    """One cache refresh, as session start runs it (its own process); the seconds."""
    argv = [sys.executable, "-m", "lorebook_postgres.refresh", "--org", ORG, "--cache", str(cache)]
    started = time.perf_counter()
    subprocess.run(argv, env=env, check=True)
    seconds = time.perf_counter() - started
    status = json.loads((cache / ".state/postgres-refresh.json").read_text())
    if not status.get("ok"):
        sys.exit(f"refresh failed: {status}")
    return seconds


def reapprove(dsn: str, count: int) -> None:
    """Approve ``count`` notes anew (a new version each), as reviewers would."""
    store = PostgresStore(ORG, dsn=dsn)
    with store.pool().connection() as conn:
        conn.execute(
            "UPDATE lorebook_notes SET version = version + 1, approved_version = version + 1, "
            "approved_at = now() WHERE org = %s AND id IN (SELECT id FROM lorebook_notes "
            "WHERE org = %s ORDER BY id LIMIT %s)",
            (ORG, ORG, count),
        )
    store.close()


def hook_rounds(repo: Path, env: dict[str, str], rounds: int) -> tuple[float, float, int]:
    """Median prompt hook and do-nothing hook (ms), and how many prompts got context."""
    hook = [str(repo / ".lorebook/bin/hook"), "claude", "UserPromptSubmit"]
    nothing = [sys.executable, "-I", "-S", "-c", "import json,sys; json.load(sys.stdin)"]
    prompt_ms: list[float] = []
    nothing_ms: list[float] = []
    served = 0
    for r in range(rounds):
        payload = json.dumps(
            {
                "session_id": f"bench-{time.monotonic_ns()}-{r}",
                "transcript_path": "/dev/null",
                "cwd": str(repo),
                "hook_event_name": "UserPromptSubmit",
                "prompt": PROMPT,
            }
        ).encode()
        for argv, out in ((hook, prompt_ms), (nothing, nothing_ms)):
            started = time.perf_counter()
            done = subprocess.run(argv, input=payload, capture_output=True, env=env, cwd=repo)
            out.append((time.perf_counter() - started) * 1000)
            if argv is hook and done.stdout.strip():
                served += 1
    return statistics.median(prompt_ms), statistics.median(nothing_ms), served


def set_stores(repo: Path, stores: str, env: dict[str, str]) -> None:
    """Rewrite config.yaml's stores (and organisation); a command compiles stores.json."""
    config = repo / ".lorebook/config.yaml"
    keep = [
        line
        for line in config.read_text().splitlines()
        if not line.startswith(("stores:", "organisation:"))
    ]
    config.write_text("\n".join([*keep, f"stores: {stores}", f"organisation: {ORG}"]) + "\n")
    lorebook = str(Path(sys.executable).parent / "lorebook")
    subprocess.run([lorebook, "recall", "warm up"], cwd=repo, env=env, capture_output=True)
    listed = json.loads((repo / ".lorebook/.cache/stores.json").read_text())["stores"]
    if [entry["name"] for entry in listed] != stores.strip("[]").split(", "):
        sys.exit(f"stores.json lists {listed}, not {stores}")


def main() -> None:
    """Run every measure and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=100_000)
    parser.add_argument("--writers", type=int, default=10)
    parser.add_argument("--per-writer", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--dsn", default=None)
    args = parser.parse_args()
    from tests.plugins.postgres.server import find_bindir, remove_server, start_server

    server = None
    dsn = args.dsn
    if dsn is None:
        bindir = find_bindir()
        if bindir is None:
            sys.exit("no PostgreSQL server binaries (initdb, pg_ctl): install postgresql")
        server = start_server(bindir)
        dsn = server.dsn
    try:
        with tempfile.TemporaryDirectory(prefix="lorebook-org-bench-") as tmp:
            run(args, dsn, Path(tmp))
    finally:
        if server is not None:
            remove_server(server)


def run(args: argparse.Namespace, dsn: str, tmp: Path) -> None:
    """The measures, in a temporary home."""
    env = {**os.environ, "LOREBOOK_HOME": str(tmp / "home"), "LOREBOOK_POSTGRES_DSN": dsn}
    env["LOREBOOK_HOOK_SERVER"] = "0"
    os.environ.update(env)
    print(f"load {args.notes:,} notes (add_many, approve): {load(dsn, args.notes):.1f} s")
    seconds, found, distinct = writers(dsn, args.writers, args.per_writer)
    expected = args.writers * args.per_writer
    print(
        f"{args.writers} writers x {args.per_writer:,} notes: {seconds:.1f} s, "
        f"{found:,} stored, {distinct:,} distinct (expected {expected:,}; "
        f"lost {expected - distinct}, duplicated {found - distinct})"
    )
    approve_writers(dsn)
    cache = tmp / "home/postgres" / ORG
    total = args.notes + expected
    print(f"cache refresh from empty ({total:,} notes): {refresh_seconds(cache, env):.1f} s")
    print(f"cache refresh, nothing changed: {refresh_seconds(cache, env):.2f} s")
    reapprove(dsn, 100)
    print(f"cache refresh, 100 notes approved anew: {refresh_seconds(cache, env):.2f} s")
    repo = tmp / "repo"
    write_kb(repo, 1000)
    set_stores(repo, "[markdown]", env)
    alone = hook_rounds(repo, env, args.rounds)
    set_stores(repo, "[markdown, postgres]", env)
    beside = hook_rounds(repo, env, args.rounds)
    for label, (hook_ms, nothing_ms, served) in (
        ("1,000-note repository alone", alone),
        (f"with the organisation cache ({total:,} notes) beside it", beside),
    ):
        print(
            f"prompt hook, {label}: {hook_ms:.1f} ms median, do-nothing {nothing_ms:.1f} ms, "
            f"ratio {hook_ms / nothing_ms:.2f} ({served}/{args.rounds} answered with context)"
        )


def approve_writers(dsn: str) -> None:
    """Approve the writers' notes too, so the cache holds every note."""
    store = PostgresStore(ORG, dsn=dsn)
    with store.pool().connection() as conn:
        conn.execute(
            "UPDATE lorebook_notes SET review = 'approved', approved_content = content, "
            "approved_version = version, approved_by = current_user, approved_at = now() "
            "WHERE org = %s AND review = 'proposed'",
            (ORG,),
        )
    store.close()


if __name__ == "__main__":
    main()

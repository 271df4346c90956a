"""Concurrent writers lose nothing: each its own connection, as writers on many machines."""

from __future__ import annotations

import threading
from pathlib import Path

from lorebook.store import NoteExistsError
from lorebook.testing.store_contract import make_note
from lorebook_postgres.store import PostgresStore

WRITERS = 10
NOTES = 1000  # the 10 x 1,000 (benchmarks/org_store.py times the same)


def _writers(dsn: str, org: str, cache: Path, work: list[list[str]]) -> tuple[int, list[str]]:
    """Run one writer per list of slugs at once; return (refused as existing, other errors)."""
    refused: list[str] = []
    errors: list[str] = []
    lock = threading.Lock()
    gate = threading.Barrier(len(work))

    def write(slugs: list[str]) -> None:
        store = PostgresStore(org, dsn=dsn, cache=cache)
        try:
            store.ids()  # connected before the start
            gate.wait()
            for slug in slugs:
                try:
                    store.add(make_note(slug))
                except NoteExistsError:
                    with lock:
                        refused.append(slug)
        except BaseException as exc:  # pragma: no cover - reported below
            with lock:
                errors.append(repr(exc))
        finally:
            store.close()

    threads = [threading.Thread(target=write, args=(slugs,)) for slugs in work]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return len(refused), errors


def test_ten_writers_lose_nothing_and_duplicate_nothing(
    pg_dsn: str, org: str, cache_dir: Path
) -> None:
    work = [[f"w{w}-n{n}" for n in range(NOTES)] for w in range(WRITERS)]
    refused, errors = _writers(pg_dsn, org, cache_dir, work)
    assert (refused, errors) == (0, [])
    store = PostgresStore(org, dsn=pg_dsn, cache=cache_dir)
    try:
        ids = store.ids()
    finally:
        store.close()
    assert len(ids) == WRITERS * NOTES
    assert ids == sorted({f"practice-{slug}" for slugs in work for slug in slugs})


def test_writers_racing_for_the_same_ids_store_each_once(
    pg_dsn: str, org: str, cache_dir: Path
) -> None:
    same = [f"shared-{n}" for n in range(50)]
    refused, errors = _writers(pg_dsn, org, cache_dir, [same] * WRITERS)
    assert errors == []
    assert refused == (WRITERS - 1) * len(same)  # every loser told, none overwrote
    store = PostgresStore(org, dsn=pg_dsn, cache=cache_dir)
    try:
        assert len(store.ids()) == len(same)
    finally:
        store.close()

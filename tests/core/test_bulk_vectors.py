"""Blobs computed in a forked child are the bytes this process computes, or are redone here."""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from lorebook.recall import bulk, semantic
from lorebook.recall.document import IndexedNote, pack_body
from lorebook.recall.index import index_path
from tests.conftest import CliRunner

pytestmark = pytest.mark.skipif(
    semantic.model_files() is None or not bulk.CAN_FORK,
    reason="needs the semantic model (pip install 'lorebook[semantic]') and Linux (bulk.CAN_FORK)",
)


def expected(embedder: semantic.Embedder, batch: list[IndexedNote]) -> bulk.Blobs:
    """The packed bodies and vectors, computed one after the other in this process."""
    vectors = bulk.quantize_many(embedder, bulk.note_vectors(embedder, batch))
    return [pack_body(note.body) for note in batch], vectors


def notes(count: int) -> list[IndexedNote]:
    return [
        IndexedNote(f"practice-n{i}", f"n{i}.md", 0, 0, "active", "gotcha", "none",
                    f"Cache note {i}", "When the cache bites", "invalidate the tenant key " * i)
        for i in range(count)
    ]  # fmt: skip


@pytest.fixture
def embedder() -> Iterator[semantic.Embedder]:
    table = semantic.ensure_piece_table()
    assert table is not None
    opened = semantic.open_embedder(table, bulk=True)
    assert opened is not None
    if opened.matrix is None:
        pytest.skip("numpy is not installed: vectors are computed one note at a time")
    yield opened
    opened.close()


def test_a_child_computes_the_vectors_this_process_computes(
    embedder: semantic.Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    batch = notes(12)
    monkeypatch.setattr(bulk, "BACKGROUND_NOTES", 10)
    pending = bulk.PendingBlobs(embedder, batch)
    assert pending._child is not None  # forked
    assert pending.result() == expected(embedder, batch)
    few = bulk.PendingBlobs(embedder, batch[:9])
    assert few._child is None  # too few to be worth a process
    assert few.result() == expected(embedder, batch[:9])


def in_the_child(monkeypatch: pytest.MonkeyPatch, act: Callable[[], object]) -> None:
    """Fork for any batch, and have a forked child run ``act`` before embedding."""
    here = os.getpid()
    real = bulk.note_vectors

    def vectors(*args: object) -> list[bytes]:
        if os.getpid() != here:
            act()
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(bulk, "BACKGROUND_NOTES", 1)
    monkeypatch.setattr(bulk, "note_vectors", vectors)


def test_a_failed_child_s_vectors_are_computed_here(
    embedder: semantic.Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    batch = notes(12)
    wanted = expected(embedder, batch)

    def fail() -> None:
        raise MemoryError

    in_the_child(monkeypatch, fail)
    assert bulk.PendingBlobs(embedder, batch).result() == wanted


def test_a_stuck_child_is_killed_and_its_work_done_here(
    embedder: semantic.Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    batch = notes(12)
    wanted = expected(embedder, batch)
    in_the_child(monkeypatch, lambda: time.sleep(60))  # a child deadlocked at its fork, say
    monkeypatch.setattr(bulk, "CHILD_SECONDS", 0.5)
    pending = bulk.PendingBlobs(embedder, batch)
    assert pending._child is not None
    pid = pending._child[0]
    started = time.monotonic()
    assert pending.result() == wanted
    assert time.monotonic() - started < 30
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # killed and reaped: no zombie left


def test_a_child_reaped_by_someone_else_still_gives_its_blobs(
    embedder: semantic.Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    batch = notes(12)  # a few kB: the child has written them all and exited
    monkeypatch.setattr(bulk, "BACKGROUND_NOTES", 1)
    pending = bulk.PendingBlobs(embedder, batch)
    assert pending._child is not None
    os.waitpid(pending._child[0], 0)  # a host's SIGCHLD handler, say
    assert pending.result() == expected(embedder, batch)


def test_a_cancelled_child_is_stopped_and_reaped(
    embedder: semantic.Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bulk, "BACKGROUND_NOTES", 1)
    pending = bulk.PendingBlobs(embedder, notes(3))
    assert pending._child is not None
    pid = pending._child[0]
    pending.cancel()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # already reaped: no zombie left
    pending.cancel()  # a second cancel does nothing


def test_a_rebuild_with_vectors_from_a_child_stores_what_one_process_stores(
    kb_repo: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lorebook.kb.notes import render_note
    from lorebook.models.note import Note

    for i in range(40):
        note = Note.model_validate({"type": "practice", "lb_kind": "gotcha", "title": f"Note {i}",
                                    "description": "Cache", "lb_id": f"practice-cache-{i}",
                                    "body": f"Invalidate the cache {i} times. " * (i % 5)})  # fmt: skip
        target = kb_repo / ".lorebook/nodes" / f"a{i % 3}" / f"{note.id}.md"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render_note(note, None), encoding="utf-8")

    def rebuilt() -> list[tuple[object, ...]]:
        for leftover in (kb_repo / ".lorebook/.cache").glob("index.sqlite*"):
            leftover.unlink()
        assert cli("index", "rebuild", cwd=kb_repo).exit_code == 0
        with sqlite3.connect(index_path(str(kb_repo / ".lorebook"))) as db:
            return db.execute("SELECT id, body, vec FROM docs ORDER BY id").fetchall()

    here = rebuilt()
    forks: list[int] = []
    real_fork = bulk._fork

    def counted(compute: Callable[[], bytes]) -> tuple[int, int]:
        forks.append(1)
        return real_fork(compute)

    monkeypatch.setattr(bulk, "_fork", counted)
    monkeypatch.setattr(bulk, "BACKGROUND_NOTES", 8)
    assert rebuilt() == here
    assert forks == [1]
    assert len(here) == 40
    assert all(vec for _, _, vec in here)

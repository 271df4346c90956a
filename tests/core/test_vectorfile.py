"""The vectors file: what the index names is every note's vector, whole, and nothing is left."""

from __future__ import annotations

import math
import random
from array import array
from pathlib import Path

import pytest

from lorebook.recall import dense, vectorfile
from lorebook.recall.document import IndexedNote
from lorebook.recall.index import NoteIndex
from lorebook.recall.semantic import DIM
from lorebook.recall.writer import IndexWriter


def _vector(rng: random.Random) -> bytes:
    vec = [rng.gauss(0, 1) for _ in range(DIM)]
    norm = math.sqrt(sum(x * x for x in vec))
    return dense.quantize(array("f", [x / norm for x in vec]).tobytes())


def _note(i: int, body: str = "x") -> IndexedNote:
    return IndexedNote(f"practice-n{i}", f"n{i}.md", 0, 0, "active", "gotcha", "none",
                       f"Title {i}", "d", body)  # fmt: skip


@pytest.fixture
def vectors(monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """Each note's stored vector, made up per (id, body) and kept here."""
    rng = random.Random(7)
    made: dict[str, bytes] = {}

    def embed(self: IndexWriter, notes: list[IndexedNote]) -> list[bytes]:
        for note in notes:
            made[note.id] = _vector(rng)
        return [made[n.id] for n in notes]

    monkeypatch.setattr(IndexWriter, "_vectors", embed)
    monkeypatch.setattr(dense, "CHUNK", 3)  # several chunks
    return made


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if vectorfile.PREFIX in p.name)


def _named(index: NoteIndex) -> str:
    return index._meta("vectors")


def test_the_named_file_holds_every_note_and_is_the_only_one_left(
    tmp_path: Path, vectors: dict[str, bytes]
) -> None:
    with IndexWriter(str(tmp_path / "index.sqlite")) as index:
        index.apply([_note(i) for i in range(10)])
        index.apply([_note(4, "longer body"), _note(11)], ["practice-n7"])
        index.apply(removals=["practice-n1"])
        assert _files(tmp_path) == [_named(index)]
        rows = index.db.execute("SELECT num, vec FROM docs ORDER BY num").fetchall()
        from_rows = [tuple(bytes(part) for part in c[1:]) for c in dense.pack(rows)]
        from_file = [tuple(bytes(part) for part in c) for c in index.vector_chunks()]
        assert from_file == from_rows
        assert {bytes(v) for _, v in rows} == {
            vectors[f"practice-n{i}"] for i in (0, 2, 3, 4, 5, 6, 8, 9, 11)
        }


def test_a_missing_file_gives_the_same_nearest_notes_until_the_next_write(
    tmp_path: Path, vectors: dict[str, bytes]
) -> None:
    path = tmp_path / "index.sqlite"
    query = [1 / math.sqrt(DIM)] * DIM
    with IndexWriter(str(path)) as index:
        index.apply([_note(i) for i in range(8)])
        before = dense.nearest(index, query, 3)
        (tmp_path / _named(index)).unlink()
        assert dense.nearest(index, query, 3) == before
        assert index.vectors_missing()
        index.apply()  # what session start's reconcile does when only the file is gone
        assert not index.vectors_missing()
        assert dense.nearest(index, query, 3) == before
        index.apply([_note(8)])
        assert _files(tmp_path) == [_named(index)]
        assert len(dense.nearest(index, query, 20)) == 9


def test_a_killed_writers_file_goes_and_a_failed_write_keeps_the_old_file(
    tmp_path: Path, vectors: dict[str, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "index.sqlite"
    with IndexWriter(str(path)) as index:
        index.apply([_note(i) for i in range(4)])
        left = tmp_path / f"index.sqlite{vectorfile.PREFIX}0123456789abcdef"
        left.write_bytes(b"written by a writer killed before it named the file")
        index.apply([_note(4)])
        assert _files(tmp_path) == [_named(index)]
        old = _named(index)
        kept = (tmp_path / old).read_bytes()

        pack = IndexWriter._pack_vectors

        def pack_then_fail(self: IndexWriter, names: list[str]) -> None:
            pack(self, names)
            raise OSError("disk full")

        monkeypatch.setattr(IndexWriter, "_pack_vectors", pack_then_fail)
        with pytest.raises(OSError, match="disk full"):
            index.apply([_note(5)])
        assert _named(index) == old
        assert _files(tmp_path) == [old]
        assert (tmp_path / old).read_bytes() == kept


def test_a_damaged_file_is_refused_with_its_path(tmp_path: Path, vectors: dict[str, bytes]) -> None:
    with IndexWriter(str(tmp_path / "index.sqlite")) as index:
        index.apply([_note(i) for i in range(3)])
        named = tmp_path / _named(index)
        named.write_bytes(named.read_bytes()[:-5])
        with pytest.raises(ValueError, match=str(named)):
            list(index.vector_chunks())

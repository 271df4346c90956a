"""The vectors file: what the index names is every note's vector, whole, and nothing is left."""

from __future__ import annotations

import math
import mmap
import random
import subprocess
import sys
from array import array
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

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


def _from_rows(index: NoteIndex, folder: Path) -> bytes:
    """The bytes of a vectors file written from the notes' rows, as a full repack writes it."""
    rows = index.db.execute("SELECT num, vec FROM docs WHERE vec IS NOT NULL ORDER BY num")
    name = vectorfile.write_vectors(str(folder / "index.sqlite"), rows)
    try:
        return (folder / name).read_bytes()
    finally:
        (folder / name).unlink()


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

        def pack_then_fail(
            self: IndexWriter, names: list[str], changed: dict[int, bytes | None]
        ) -> None:
            pack(self, names, changed)
            raise OSError("disk full")

        monkeypatch.setattr(IndexWriter, "_pack_vectors", pack_then_fail)
        with pytest.raises(OSError, match="disk full"):
            index.apply([_note(5)])
        assert _named(index) == old
        assert _files(tmp_path) == [old]
        assert (tmp_path / old).read_bytes() == kept


def test_a_writer_killed_while_writing_leaves_no_short_file_under_a_vectors_name(
    tmp_path: Path,
) -> None:
    """Killed before its file is on disk, a writer leaves only a temporary the next one sweeps."""
    script = (
        "import os, sys\n"
        "from lorebook.recall import vectorfile\n"
        "os.fsync = lambda fd: os._exit(9)\n"  # killed after writing, before the flush
        "vectorfile.write_vectors(sys.argv[1], [])\n"
    )
    index = str(tmp_path / "index.sqlite")
    run = subprocess.run([sys.executable, "-c", script, index], check=False)
    assert run.returncode == 9
    left = [p.name for p in tmp_path.iterdir()]
    assert len(left) == 1
    assert left[0].startswith(f".index.sqlite{vectorfile.PREFIX}")
    assert left[0].endswith(".tmp")
    vectorfile.sweep_vectors(index, keep=[])
    assert list(tmp_path.iterdir()) == []


def test_a_damaged_file_is_refused_with_its_path(tmp_path: Path, vectors: dict[str, bytes]) -> None:
    with IndexWriter(str(tmp_path / "index.sqlite")) as index:
        index.apply([_note(i) for i in range(3)])
        named = tmp_path / _named(index)
        named.write_bytes(named.read_bytes()[:-5])
        with pytest.raises(ValueError, match=str(named)):
            list(index.vector_chunks())


WRITES = st.lists(
    st.tuples(
        st.lists(st.integers(0, 14), max_size=4),  # notes written (new or replaced)
        st.lists(st.integers(0, 14), max_size=3),  # notes removed
        st.booleans(),  # whether this write has the model (else its notes get no vector)
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=40, deadline=None)
@given(writes=WRITES)
def test_each_write_copies_the_notes_it_leaves_and_gives_the_bytes_of_a_full_repack(
    writes: list[tuple[list[int], list[int], bool]],
) -> None:
    import tempfile

    rng = random.Random(11)
    model = [True]

    def embed(self: IndexWriter, notes: list[IndexedNote]) -> list[bytes | None]:
        return [_vector(rng) if model[0] else None for _ in notes]

    with tempfile.TemporaryDirectory() as scratch, pytest.MonkeyPatch.context() as patch:
        patch.setattr(IndexWriter, "_vectors", embed)
        folder = Path(scratch)
        with IndexWriter(str(folder / "index.sqlite")) as index:
            index.apply([_note(i) for i in range(6)])
            for written, removed, with_model in writes:
                model[0] = with_model
                index.apply([_note(i, f"body {rng.random()}") for i in written],
                            [f"practice-n{i}" for i in removed])  # fmt: skip
                assert (folder / _named(index)).read_bytes() == _from_rows(index, folder)
                assert _files(folder) == [_named(index)]


def test_a_damaged_file_is_not_copied_the_next_write_reads_every_vector_from_the_rows(
    tmp_path: Path, vectors: dict[str, bytes]
) -> None:
    with IndexWriter(str(tmp_path / "index.sqlite")) as index:
        index.apply([_note(i) for i in range(5)])
        named = tmp_path / _named(index)
        whole = named.read_bytes()
        named.write_bytes(whole[:-5])
        index.apply([_note(5)])
        assert (tmp_path / _named(index)).read_bytes() == _from_rows(index, tmp_path)
        assert len(dense.nearest(index, [1 / math.sqrt(DIM)] * DIM, 10)) == 6


def _resident_kb(path: Path) -> int:
    """Kilobytes of the mappings of ``path`` resident in this process (Linux's smaps)."""
    total, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split(maxsplit=1)[0]
        if "-" in head and not head.endswith(":"):  # a mapping's first line: range, ..., path
            inside = line.endswith(str(path))
        elif inside and head == "Rss:":
            total += int(line.split()[1])
    return total


@pytest.mark.skipif(
    not Path("/proc/self/smaps").exists() or not hasattr(mmap, "MADV_DONTNEED"),
    reason="reads Linux's /proc/self/smaps",
)
def test_a_scan_of_every_vector_does_not_keep_them_all_resident(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = _vector(random.Random(3))
    monkeypatch.setattr(IndexWriter, "_vectors", lambda self, notes: [stored for _ in notes])

    def peak_kb(index: NoteIndex) -> int:
        """The most of the vectors file resident at once while every note is read."""
        path, peak = tmp_path / _named(index), 0
        for _, _, ints in index.vector_chunks():
            assert bytes(ints) == stored[4:] * (len(ints) // DIM)  # the values, read in place
            peak = max(peak, _resident_kb(path))
        return peak

    with IndexWriter(str(tmp_path / "index.sqlite")) as index:
        index.apply([_note(i) for i in range(65536)])  # 16 MB of values
        dropped = peak_kb(index)
        monkeypatch.setattr(vectorfile.VectorFile, "release", lambda self, end: None)
        kept = peak_kb(index)
    # What stays is the chunk being read and what the kernel maps ahead of it (up to 4 MB
    # on the machine this was written on), not every value read so far.
    assert kept > 15 * 1024
    assert dropped < kept / 2

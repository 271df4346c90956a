"""The piece table's flat file: the same pieces and vectors as the table, read in place."""

from __future__ import annotations

import os
import sqlite3
import struct
import zlib
from array import array
from pathlib import Path

import pytest

from lorebook.recall import piecefile, semantic
from tests.core.semantic_data import PASTED, needs_model

DIM = semantic.DIM


def _table(path: Path, pieces: dict[str, float]) -> str:
    """A piece table as build_piece_table writes it: piece -> DIM float16 values, and the
    sorted CRC-32s of every prefix of every piece."""
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE pieces (piece TEXT PRIMARY KEY, vec BLOB NOT NULL)")
    db.executemany(
        "INSERT INTO pieces VALUES (?, ?)",
        [
            (p, struct.pack(f"<{DIM}e", *[v + i / 1024 for i in range(DIM)]))
            for p, v in pieces.items()
        ],
    )
    crcs = sorted({zlib.crc32(p[:n].encode()) for p in pieces for n in range(1, len(p) + 1)})
    db.execute("CREATE TABLE prefix_hashes (crcs BLOB NOT NULL)")
    db.execute("INSERT INTO prefix_hashes VALUES (?)", (struct.pack(f"={len(crcs)}I", *crcs),))
    db.commit()
    db.close()
    return str(path)


PIECES = {"plumless": 0.5, "buckeroo": -0.25, "\u2581cache": 1.0, "ing": 0.125, "é": 2.0}


def test_every_piece_is_found_with_its_vector_even_when_two_share_a_crc(tmp_path: Path) -> None:
    assert zlib.crc32(b"plumless") == zlib.crc32(b"buckeroo")  # a known CRC-32 collision
    table = _table(tmp_path / "t.sqlite", PIECES)
    assert piecefile.write_piece_file(table, DIM) == str(tmp_path / "t.pieces")
    _check_every_piece(table)


def _check_every_piece(table: str) -> None:
    """Open the table's flat file and find every piece of :data:`PIECES` and its vector."""
    flat = piecefile.open_piece_file(table)
    assert flat is not None
    try:
        for piece, value in PIECES.items():
            at = flat.find(piece)
            assert at >= 0, piece
            expected = struct.unpack(
                f"<{DIM}e", struct.pack(f"<{DIM}e", *[value + i / 1024 for i in range(DIM)])
            )
            assert list(flat.vector(at)) == list(expected)
        for absent in ("plumles", "buckeroos", "cache", ""):
            assert flat.find(absent) == -1
        prefixes = {zlib.crc32(p[:n].encode()) for p in PIECES for n in range(1, len(p) + 1)}
        assert sorted(flat.prefixes) == sorted(prefixes)
        assert list(flat.crcs) == sorted(flat.crcs)
    finally:
        flat.close()


@pytest.mark.parametrize(
    "damage",
    [
        lambda raw: raw[: len(raw) // 2],  # cut short
        lambda raw: b"NOTMAGIC" + raw[8:],
        lambda raw: raw + b"\0\0\0\0",  # a size its header does not explain
        lambda raw: b"",
    ],
)
def test_a_damaged_flat_file_is_ignored_and_the_table_is_read(
    tmp_path: Path, damage: object
) -> None:
    table = _table(tmp_path / "t.sqlite", PIECES)
    path = Path(piecefile.write_piece_file(table, DIM))
    path.write_bytes(damage(path.read_bytes()))  # type: ignore[operator]
    assert piecefile.open_piece_file(table) is None
    embedder = semantic.Embedder(table)
    try:
        assert embedder.flat is None
        assert embedder.db is not None
        assert embedder.pieces("cache plumless") == {"\u2581cache": 1, "plumless": 1}
    finally:
        embedder.close()


def test_the_embedder_reads_the_flat_file_without_opening_the_table(tmp_path: Path) -> None:
    table = _table(tmp_path / "t.sqlite", PIECES)
    piecefile.write_piece_file(table, DIM)
    flat, plain = semantic.Embedder(table), semantic.Embedder(table)
    plain.flat, plain.db = None, sqlite3.connect(table)  # the same table, read by SQL
    try:
        assert flat.db is None
        text = "cache plumlessing buckeroo é cacheé"
        assert flat.pieces(text) == plain.pieces(text)
        assert flat.embed(text) == plain.embed(text)
    finally:
        flat.close()
        plain.close()


@needs_model
def test_the_model_s_flat_file_gives_the_table_s_pieces_and_vectors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = semantic.ensure_piece_table()
    assert table is not None
    written = piecefile.open_piece_file(table)  # ensure_piece_table wrote it
    assert written is not None
    written.close()
    flat = semantic.Embedder(table)
    monkeypatch.setattr(semantic, "open_piece_file", lambda table: None)
    plain = semantic.Embedder(table)
    try:
        assert flat.flat is not None
        assert plain.flat is None
        for text in (PASTED, "why does the session start fail when the repo path has spaces?"):
            assert flat.pieces(text) == plain.pieces(text)
            assert flat.embed(text) == plain.embed(text)
    finally:
        flat.close()
        plain.close()


@needs_model
def test_a_flat_file_of_the_float32_layout_is_rewritten_by_the_next_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A machine upgraded from a lorebook that kept float32 vectors gets the new file."""
    monkeypatch.setenv("LOREBOOK_CACHE_DIR", str(tmp_path))
    table = semantic.ensure_piece_table()
    assert table is not None
    path = Path(piecefile.piece_file_path(table))
    raw = path.read_bytes()
    _, count, _, dim = piecefile.HEADER.unpack_from(raw)
    vectors_at = len(raw) - 8 * dim * count
    old = array("d", raw[vectors_at:])
    path.write_bytes(b"LBPIECE1" + raw[8:vectors_at] + array("f", old).tobytes())
    assert piecefile.open_piece_file(table) is None  # the hooks read the table meanwhile
    assert semantic.ensure_piece_table() == table
    flat = piecefile.open_piece_file(table)
    assert flat is not None
    flat.close()
    assert path.read_bytes() == raw


@needs_model
def test_a_cache_folder_that_takes_no_flat_file_still_serves_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOREBOOK_CACHE_DIR", str(tmp_path))

    def refuse(table: str, dim: int) -> str:
        raise PermissionError(f"{table}: read-only folder")

    monkeypatch.setattr(semantic, "write_piece_file", refuse)
    table = semantic.ensure_piece_table()
    assert table is not None
    assert Path(table).is_file()
    assert piecefile.open_piece_file(table) is None
    embedder = semantic.open_embedder(table)
    assert embedder is not None
    try:
        assert embedder.flat is None
        assert any(embedder.embed("the session start hook"))
    finally:
        embedder.close()


def test_vectors_are_read_where_os_has_no_pread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows has no os.pread: the file is read by seeking."""
    table = _table(tmp_path / "t.sqlite", PIECES)
    piecefile.write_piece_file(table, DIM)
    monkeypatch.delattr(os, "pread")
    _check_every_piece(table)

"""The session-start status line's counts: kept by every index write, equal to counting."""

from __future__ import annotations

from pathlib import Path

from lorebook.recall.document import IndexedNote
from lorebook.recall.writer import IndexWriter


def note(i: int, status: str = "active") -> IndexedNote:
    return IndexedNote(f"practice-n{i}", f"n{i}.md", 0, 0, status, "gotcha", "none",
                       f"Title {i}", "About caches", f"cache tenant {i}")  # fmt: skip


def test_status_counts_kept_by_each_write_equal_counting_the_notes(tmp_path: Path) -> None:
    with IndexWriter(str(tmp_path / "index.sqlite")) as index:
        index.apply([note(i) for i in range(6)])
        index.apply([note(1, "superseded"), note(2, "refuted"), note(7, "refuted")])
        index.apply([note(2, "active")], ["practice-n0", "practice-n7"])
        counted = dict(index.db.execute("SELECT status, COUNT(*) FROM docs GROUP BY status"))
        assert index.status_counts() == counted == {"active": 4, "superseded": 1}


def test_an_index_written_before_statuses_were_kept_still_counts_them(tmp_path: Path) -> None:
    with IndexWriter(str(tmp_path / "index.sqlite")) as index:
        index.apply([note(1), note(2, "refuted")])
        index.db.execute("UPDATE meta SET value = '[2, 6, 2, []]' WHERE key = 'totals'")
        assert index.status_counts() == {"active": 1, "refuted": 1}
        index.apply([note(3)])  # the next write counts them once and keeps them again
        assert index.status_counts() == {"active": 2, "refuted": 1}

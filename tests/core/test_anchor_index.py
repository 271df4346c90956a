"""Pre-tool reads only the file anchors whose literal ends fit the file: never fewer than match."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings, strategies as st

from lorebook.recall.anchors import glob_regex
from lorebook.recall.index import IndexedNote
from lorebook.recall.writer import IndexWriter, glob_literals

parts = st.sampled_from(["src", "docs", "a", "b.py", "x.ts", "*", "**", "*.ts", "?", "test"])
globs = st.lists(parts, min_size=1, max_size=4).map("/".join)
paths = st.lists(
    st.sampled_from(["src", "docs", "a", "b.py", "x.ts", "y.test.ts", "z"]), min_size=1, max_size=4
).map("/".join)


@settings(max_examples=300, deadline=None)
@given(pattern=globs, path=paths)
def test_the_literal_ends_never_reject_a_matching_path(pattern: str, path: str) -> None:
    prefix, suffix = glob_literals(pattern)
    if glob_regex(pattern).match(path):
        assert path.startswith(prefix)
        assert path.endswith(suffix)


def test_the_index_returns_the_globs_that_can_match(tmp_path: Path) -> None:
    def note(note_id: str, globs: list[str]) -> IndexedNote:
        return IndexedNote(
            id=note_id, path=f"{note_id}.md", mtime_ns=0, size=0, status="active",
            kind="gotcha", enforce="warn", title=note_id, description="", body="",
            anchors={"files": globs},
        )  # fmt: skip

    with IndexWriter(str(tmp_path / "index.sqlite")) as index:
        index.apply([note("ts", ["src/**/*.ts"]), note("docs", ["docs/*.md"]), note("any", ["**"])])
        assert index.file_anchors(["src/app/main.ts"]) == [("**", "any"), ("src/**/*.ts", "ts")]
        assert index.file_anchors(["docs/readme.md"]) == [("**", "any"), ("docs/*.md", "docs")]

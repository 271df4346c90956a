"""The store contract suite: every note store plugin subclasses :class:`StoreContract`.

Example::

    from lorebook.testing import StoreContract

    class TestMyStore(StoreContract):
        @pytest.fixture
        def store(self, tmp_path):
            return MyStore(tmp_path)
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from lorebook.errors import LorebookError
from lorebook.models.note import Note
from lorebook.store import NoteExistsError, NoteNotFoundError, NoteStore


def make_note(slug: str = "use-uv", **fields: Any) -> Note:
    """Return a valid practice note; ``fields`` override frontmatter keys (by alias)."""
    data: dict[str, Any] = {
        "type": "practice",
        "title": f"Title of {slug}",
        "description": f"When {slug} applies",
        "lb_id": f"practice-{slug}",
        "lb_kind": "convention",
        "body": f"The body of {slug}.",
    }
    data.update(fields)
    return Note.model_validate(data)


class StoreContract:
    """Behaviour every :class:`~lorebook.store.NoteStore` must have.

    Subclasses provide a ``store`` fixture returning an empty store.
    """

    @pytest.fixture
    def store(self) -> NoteStore:
        """An empty store (subclasses override this)."""
        raise NotImplementedError("a StoreContract subclass must provide a `store` fixture")

    def test_added_note_reads_back_equal(self, store: NoteStore) -> None:
        """A note reads back equal to what was added."""
        note = make_note(tags=["python", "testing"], lb_relates_to=["practice-other"])
        store.add(note)
        assert store.get(note.id) == note

    def test_unicode_and_markdown_survive(self, store: NoteStore) -> None:
        """Non-ASCII text and markdown survive storage unchanged."""
        note = make_note(
            "unicode",
            title="Zażółć: «quotes» — and `code`",
            body="# Heading\n\n- item with ünïcödé\n\n```sh\nuv run pytest\n```",
        )
        store.add(note)
        assert store.get(note.id) == note

    def test_adding_an_existing_id_fails_and_keeps_the_first(self, store: NoteStore) -> None:
        """A second note with the same id is refused; the first is untouched."""
        first = make_note(body="first")
        store.add(first)
        with pytest.raises(NoteExistsError):
            store.add(make_note(body="second"))
        assert store.get(first.id).body == "first"

    def test_unknown_id_is_not_found(self, store: NoteStore) -> None:
        """get, remove and update of an unknown id raise NoteNotFoundError."""
        with pytest.raises(NoteNotFoundError):
            store.get("practice-missing")
        with pytest.raises(NoteNotFoundError):
            store.remove("practice-missing")
        with pytest.raises(NoteNotFoundError):
            store.update(make_note("missing"))

    def test_update_replaces_in_place(self, store: NoteStore) -> None:
        """Update replaces the note and keeps one copy."""
        store.add(make_note(), folder="tooling")
        changed = make_note(body="changed", lb_confidence="high")
        store.update(changed)
        assert store.get(changed.id) == changed
        assert store.ids() == [changed.id]

    def test_remove_deletes(self, store: NoteStore) -> None:
        """Remove deletes exactly the named note."""
        store.add(make_note("a"))
        store.add(make_note("b"))
        store.remove("practice-a")
        assert store.ids() == ["practice-b"]

    def test_ids_and_iteration_are_sorted(self, store: NoteStore) -> None:
        """ids() and iter_notes() come in id order."""
        for slug in ("zeta", "alpha", "mid"):
            store.add(make_note(slug))
        assert store.ids() == ["practice-alpha", "practice-mid", "practice-zeta"]
        assert [n.id for n in store.iter_notes()] == store.ids()

    def test_unsafe_folder_is_refused_and_nothing_is_stored(self, store: NoteStore) -> None:
        """Folders that would escape the store are refused."""
        for folder in ("../escape", "/abs/path", "a/../b", "a\\b"):
            with pytest.raises(LorebookError):
                store.add(make_note(), folder=folder)
        assert store.ids() == []

    def test_concurrent_adds_lose_nothing(self, store: NoteStore) -> None:
        """Threads adding notes at once lose none."""
        errors: list[BaseException] = []

        def worker(n: int) -> None:
            try:
                for i in range(10):
                    store.add(make_note(f"t{n}-{i}"))
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        assert len(store.ids()) == 40

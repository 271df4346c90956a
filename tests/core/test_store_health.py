"""The optional ``health()`` of the store contract, which ``lorebook doctor`` calls."""

from __future__ import annotations

from pathlib import Path

from lorebook.kb.store import MarkdownStore
from lorebook.store import StoreHealth, store_health


class _Remote:
    name = "remote"

    def __init__(self, answer: object) -> None:
        self.answer = answer

    def health(self) -> object:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def test_a_file_backed_store_has_no_health_check(tmp_path: Path) -> None:
    assert store_health(MarkdownStore(tmp_path)) is None


def test_a_store_says_how_it_is() -> None:
    said = StoreHealth("warning", "unreachable; serving the cache", "check the server")
    assert store_health(_Remote(said)) is said  # type: ignore[arg-type]


def test_a_health_check_that_fails_is_a_problem_not_a_traceback() -> None:
    health = store_health(_Remote(RuntimeError("boom")))  # type: ignore[arg-type]
    assert health == StoreHealth("problem", "its health check failed: RuntimeError: boom")
    health = store_health(_Remote("fine"))  # type: ignore[arg-type]
    assert health == StoreHealth("problem", "its health check returned str")

"""Progress bars appear on a terminal only; piped output and --json never see them."""

from __future__ import annotations

import io

import pytest

from lorebook.cli import progress as progress_mod


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_no_bar_when_stderr_is_not_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    assert list(progress_mod.track([1, 2, 3], "counting")) == [1, 2, 3]
    assert err.getvalue() == ""
    assert not progress_mod.bars_enabled()


def test_bar_drawn_on_a_terminal_and_not_with_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TERM", raising=False)
    err = FakeTerminal()
    monkeypatch.setattr("sys.stderr", err)
    assert progress_mod.bars_enabled()
    with progress_mod.progress("rebuilding", total=4) as advance:
        advance()
        advance(3)
    assert "rebuilding" in err.getvalue()
    err.truncate(0)
    assert list(progress_mod.track(range(3), "quiet", json_output=True)) == [0, 1, 2]
    assert "quiet" not in err.getvalue()


def test_dumb_terminal_gets_no_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stderr", FakeTerminal())
    monkeypatch.setenv("TERM", "dumb")
    assert not progress_mod.bars_enabled()

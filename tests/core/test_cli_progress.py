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


def _run_on_terminal(args: list[str], cwd: object, monkeypatch: pytest.MonkeyPatch) -> str:
    import contextlib
    import sys

    from lorebook.cli.app import main

    monkeypatch.delenv("TERM", raising=False)
    monkeypatch.chdir(cwd)  # type: ignore[arg-type]
    monkeypatch.setattr(sys, "argv", ["lorebook", *args])
    err = FakeTerminal()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code: object = 0
        try:
            main()
        except SystemExit as exc:
            code = exc.code
    assert code in (0, None), err.getvalue()
    return err.getvalue()


def test_long_commands_show_a_bar_on_a_terminal(
    kb_repo: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pathlib import Path

    session = (
        Path(__file__).resolve().parents[2] / "scripts/demo_sessions/01-tests-and-billing.jsonl"
    )
    assert "importing" in _run_on_terminal(["import", str(session)], kb_repo, monkeypatch)
    assert "extracting sessions" in _run_on_terminal(["extract"], kb_repo, monkeypatch)
    assert "curating" in _run_on_terminal(["curate"], kb_repo, monkeypatch)
    assert "rebuilding the indexes" in _run_on_terminal(["index", "rebuild"], kb_repo, monkeypatch)


def test_every_long_step_shows_a_total_and_moves(
    kb_repo: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bootstrap's documents and its curation, and index rebuild's steps: never "N/?"."""
    import re
    import subprocess
    from pathlib import Path

    repo = Path(str(kb_repo))
    rules = "".join(f"- Never deploy service{i} on a Friday without a rollback plan.\n"
                    for i in range(6))  # fmt: skip
    for name in ("CONTRIBUTING.md", "docs/deploy.md"):
        (repo / name).parent.mkdir(exist_ok=True)
        (repo / name).write_text(f"# Rules\n\n## Deploys\n\n{rules}", encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    shown = _run_on_terminal(["bootstrap"], repo, monkeypatch)
    assert "bootstrap: documents" in shown
    assert re.search(r"bootstrap: curating\S*\s.*\b\d+/\d+\b", shown), shown
    assert re.search(r"\d/\?", shown) is None, shown
    shown = _run_on_terminal(["index", "rebuild"], repo, monkeypatch)
    assert "rebuilding the indexes: generated files" in shown
    assert re.search(r"\d/\?", shown) is None, shown

"""Validity that acts: dependencies stamped at write, re-checked at read, stale notes demoted.

Seed 000's "tests I would want" are here: a stale note is demoted (and marked) on the prompt
path, a budget overrun is unknown and never unchanged, a new file inside a tree scope makes
the note stale while one outside it does not.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from lorebook.validity import check as validity
from lorebook.validity.check import Budget, StatCache, check
from lorebook.validity.record import DependencyError, stamp_file, stamp_tree
from tests.conftest import fire


def _write(repo: Path, rel: str, text: str) -> Path:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _age(path: Path) -> None:
    """Make a file look written a minute ago (older than the stat cache's racy window)."""
    old = path.stat().st_mtime - 60
    os.utime(path, (old, old))


def _deps(repo: Path, files: tuple[str, ...] = (), trees: tuple[str, ...] = ()) -> list[Any]:
    out = [stamp_file(repo, f).model_dump() for f in files]
    return out + [stamp_tree(repo, t).model_dump() for t in trees]


# --- the check itself ------------------------------------------------------------------


def test_no_dependency_is_untracked_and_an_edit_makes_stale(tmp_path: Path) -> None:
    _write(tmp_path, "src/db.py", "POOL = 5\n")
    _write(tmp_path, "src/other.py", "x = 1\n")
    deps = _deps(tmp_path, files=("src/db.py",))
    assert check(str(tmp_path), [], Budget(), StatCache()).state == "untracked"
    assert check(str(tmp_path), deps, Budget(), StatCache()).state == "unchanged"
    _write(tmp_path, "src/other.py", "x = 2\n")  # an unrelated edit changes nothing
    assert check(str(tmp_path), deps, Budget(), StatCache()).state == "unchanged"
    _write(tmp_path, "src/db.py", "POOL = 50\n")
    verdict = check(str(tmp_path), deps, Budget(), StatCache())
    assert (verdict.state, verdict.changed) == ("stale", ("src/db.py",))
    assert verdict.mark() == "recheck: `src/db.py` changed since this was written"
    (tmp_path / "src/db.py").unlink()
    assert check(str(tmp_path), deps, Budget(), StatCache()).state == "stale"


def test_line_endings_do_not_make_a_note_stale(tmp_path: Path) -> None:
    path = _write(tmp_path, "a.txt", "one\ntwo\n")
    deps = _deps(tmp_path, files=("a.txt",))
    path.write_bytes(b"one\r\ntwo\r\n")  # the same file checked out on Windows
    assert check(str(tmp_path), deps, Budget(), StatCache()).state == "unchanged"


def test_a_new_file_inside_a_tree_scope_is_a_change_and_one_outside_is_not(
    tmp_path: Path,
) -> None:
    _write(tmp_path, "migrations/0001_init.py", "up\n")
    deps = _deps(tmp_path, trees=("migrations/*.py",))
    _write(tmp_path, "migrations/README.md", "not python\n")
    _write(tmp_path, "elsewhere/0002.py", "up\n")
    assert check(str(tmp_path), deps, Budget(), StatCache()).state == "unchanged"
    _write(tmp_path, "migrations/0002_more.py", "up\n")
    verdict = check(str(tmp_path), deps, Budget(), StatCache())
    assert (verdict.state, verdict.changed) == ("stale", ("migrations/*.py",))


def test_an_absence_claim_over_an_empty_tree_goes_stale_when_a_file_appears(
    tmp_path: Path,
) -> None:
    deps = _deps(tmp_path, trees=("src/**/*_test.go",))
    assert check(str(tmp_path), deps, Budget(), StatCache()).state == "unchanged"
    _write(tmp_path, "src/pkg/a_test.go", "package pkg\n")
    assert check(str(tmp_path), deps, Budget(), StatCache()).state == "stale"


def test_a_spent_budget_is_unknown_never_unchanged(tmp_path: Path) -> None:
    _write(tmp_path, "big.bin", "x" * 5000)
    _write(tmp_path, "small.txt", "y")
    deps = _deps(tmp_path, files=("big.bin", "small.txt"))
    verdict = check(str(tmp_path), deps, Budget(bytes=100), StatCache())
    assert verdict.state == "unknown"
    assert verdict.changed == ("big.bin",)
    assert "budget of bytes" in verdict.reason
    assert verdict.mark().startswith("recheck: `big.bin` could not be verified")
    assert check(str(tmp_path), deps, Budget(files=1), StatCache()).state == "unknown"
    assert check(str(tmp_path), deps, Budget(ms=-1), StatCache()).state == "unknown"
    tree = _deps(tmp_path, trees=("*",))
    assert check(str(tmp_path), tree, Budget(entries=1), StatCache()).state == "unknown"
    # A change found before the budget ran out is still reported as stale.
    _write(tmp_path, "big.bin", "z" * 10)
    assert check(str(tmp_path), deps, Budget(bytes=100, files=1), StatCache()).state == "stale"


def test_unchanged_files_cost_no_hashing(tmp_path: Path) -> None:
    path = _write(tmp_path, "src/db.py", "POOL = 5\n")
    _age(path)
    deps = _deps(tmp_path, files=("src/db.py",))
    cache = StatCache(str(tmp_path / "cache.json"))
    assert check(str(tmp_path), deps, Budget(), cache).state == "unchanged"
    assert cache.hashed == ["src/db.py"]
    cache.save()
    again = StatCache(str(tmp_path / "cache.json"))
    # A byte budget of zero: only a file whose stat is cached can be checked at all.
    assert check(str(tmp_path), deps, Budget(bytes=0), again).state == "unchanged"
    assert again.hashed == []
    path.write_text("POOL = 6\n", encoding="utf-8")  # same size, new mtime: hashed again
    assert check(str(tmp_path), deps, Budget(), again).state == "stale"
    assert again.hashed == ["src/db.py"]


def test_links_and_unsafe_paths_cannot_be_verified(tmp_path: Path) -> None:
    _write(tmp_path, "real.py", "x\n")
    (tmp_path / "link.py").symlink_to(tmp_path / "real.py")
    for dep in ({"path": "link.py", "sha256": "0" * 64}, {"path": "../x", "sha256": "0" * 64}):
        verdict = check(str(tmp_path), [dep], Budget(), StatCache())
        assert verdict.state == "unknown", dep


# --- stamping at write -------------------------------------------------------------------


def test_a_supplied_hash_that_no_longer_matches_is_refused(tmp_path: Path) -> None:
    _write(tmp_path, "src/db.py", "POOL = 5\n")
    seen = stamp_file(tmp_path, "src/db.py").sha256
    assert stamp_file(tmp_path, f"src/db.py={seen}").sha256 == seen
    _write(tmp_path, "src/db.py", "POOL = 9\n")
    with pytest.raises(DependencyError, match="changed since it was read"):
        stamp_file(tmp_path, f"src/db.py={seen}")
    with pytest.raises(DependencyError, match="no such file"):
        stamp_file(tmp_path, "src/missing.py")
    now = stamp_file(tmp_path, "src/db.py").sha256
    assert stamp_file(tmp_path, f"src/db.py={now.upper()}").sha256 == now  # sha256sum -b | tr
    with pytest.raises(DependencyError, match="'abc' is not a SHA-256") as cut:
        stamp_file(tmp_path, "src/db.py=abc")  # once "src/db.py=abc: no such file"
    assert "sha256sum src/db.py" in str(cut.value.hint)
    with pytest.raises(DependencyError, match="outside the repository"):
        stamp_file(tmp_path, str(tmp_path.parent / "elsewhere.py"))
    with pytest.raises(DependencyError, match="not a path inside"):
        stamp_file(tmp_path, "../escape.py")


def test_note_add_records_hashes_and_refuses_a_moved_one(kb_repo: Path, cli: Any) -> None:
    _write(kb_repo, "src/db.py", "POOL = 5\n")
    _write(kb_repo, "migrations/0001.py", "up\n")
    added = cli(
        "note", "add", "--title", "Pool size is five", "--description", "Database pool",
        "--kind", "gotcha", "--depends-on-file", "src/db.py",
        "--depends-on-tree", "migrations/*.py", cwd=kb_repo,
    )  # fmt: skip
    assert added.exit_code == 0, added.stderr
    shown = cli("note", "show", "gotcha-pool-size-is-five", "--json", cwd=kb_repo).json()
    deps = shown["frontmatter"]["lb_dependencies"]
    assert deps[0] == {"path": "src/db.py", "sha256": stamp_file(kb_repo, "src/db.py").sha256}
    assert deps[1]["tree"] == "migrations/*.py"
    refused = cli(
        "note", "add", "--title", "Other", "--description", "d", "--kind", "gotcha",
        "--depends-on-file", f"src/db.py={'0' * 64}", cwd=kb_repo,
    )  # fmt: skip
    assert refused.exit_code == 1
    assert "changed since it was read" in refused.stderr
    assert not list((kb_repo / ".lorebook/nodes").rglob("gotcha-other.md"))


# --- the prompt hook: marked, demoted, re-stamped ---------------------------------------


def _twin_notes(cli: Any, repo: Path) -> None:
    """Two equally relevant notes; the first (by id) rests on src/db.py."""
    for slug, extra in (("alpha", ["--depends-on-file", "src/db.py"]), ("beta", [])):
        done = cli(
            "note", "add", "--id", f"practice-pool-{slug}",
            "--title", "Database connection pool size",
            "--description", "How large the database connection pool is",
            "--body", "The database connection pool holds five connections.",
            "--kind", "gotcha", *extra, cwd=repo,
        )  # fmt: skip
        assert done.exit_code == 0, done.stderr


def _order(text: str) -> list[str]:
    return [line for line in text.splitlines() if "practice-pool-" in line]


def test_an_edited_dependency_marks_the_note_and_ranks_it_below_a_fresh_twin(
    kb_repo: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(kb_repo, "src/db.py", "POOL = 5\n")
    _twin_notes(cli, kb_repo)
    prompt = "how large is the database connection pool?"
    before = fire(kb_repo, monkeypatch, "Prompt", prompt=prompt)["context"]
    assert "practice-pool-alpha" in _order(before)[0]
    assert "recheck" not in before
    _write(kb_repo, "src/db.py", "POOL = 50\n")
    after = fire(kb_repo, monkeypatch, "Prompt", prompt=prompt, session_id="s2")["context"]
    first, second = _order(after)
    assert "practice-pool-beta" in first
    assert "practice-pool-alpha" in second
    assert "recheck: `src/db.py` changed since this was written" in after
    assert after.index("recheck:") > after.index("practice-pool-alpha")
    # The session that saw it fresh gets it again, now marked.
    again = fire(kb_repo, monkeypatch, "Prompt", prompt=prompt)["context"]
    assert "recheck: `src/db.py` changed" in again
    # A person checks it and re-stamps it: fresh again, first again, no mark.
    verified = cli("note", "verify", "practice-pool-alpha", cwd=kb_repo)
    assert verified.exit_code == 0, verified.stderr
    assert "was stale (src/db.py)" in verified.stdout
    fresh = fire(kb_repo, monkeypatch, "Prompt", prompt=prompt, session_id="s3")["context"]
    assert "recheck" not in fresh
    assert "practice-pool-alpha" in _order(fresh)[0]


def test_a_budget_overrun_on_the_hook_is_unknown_and_marked(
    kb_repo: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(kb_repo, "src/db.py", "POOL = 5\n")
    _twin_notes(cli, kb_repo)
    (kb_repo / ".lorebook/.cache/validity.json").unlink(missing_ok=True)
    monkeypatch.setattr(validity, "MAX_BYTES", 1)
    out = fire(kb_repo, monkeypatch, "Prompt", prompt="database connection pool size")
    text = out["context"]
    assert "recheck: `src/db.py` could not be verified" in text
    assert "practice-pool-beta" in _order(text)[0]


def test_status_and_lint_list_stale_notes(kb_repo: Path, cli: Any) -> None:
    _write(kb_repo, "src/db.py", "POOL = 5\n")
    _twin_notes(cli, kb_repo)
    assert cli("status", "--json", cwd=kb_repo).json()["stale_notes"] == []
    _write(kb_repo, "src/db.py", "POOL = 7\n")
    status = cli("status", "--json", cwd=kb_repo).json()
    assert [s["id"] for s in status["stale_notes"]] == ["practice-pool-alpha"]
    assert "recheck: `src/db.py` changed" in status["stale_notes"][0]["mark"]
    text = cli("status", cwd=kb_repo).stdout
    assert "stale notes: 1" in text
    lint = cli("lint", "--json", cwd=kb_repo)
    findings = lint.json()["findings"]
    stale = [f for f in findings if f["code"] == "stale-note"]
    assert len(stale) == 1
    assert stale[0]["severity"] == "warning"
    assert "lorebook note verify practice-pool-alpha" in stale[0]["message"]
    cli("note", "verify", "practice-pool-alpha", cwd=kb_repo)
    assert cli("status", "--json", cwd=kb_repo).json()["stale_notes"] == []


def test_whether_a_document_still_says_a_quote_is_cached_against_its_stat(
    tmp_path: Path,
) -> None:
    from lorebook.validity.check import Budget, StatCache, source_gone

    body = "> Never push to main; open a pull request.\n\nFrom `AGENTS.md`, under Git.\n"
    doc = tmp_path / "AGENTS.md"
    doc.write_text("# Git\n\n- Never push to main; open a pull request.\n")
    old = time.time() - 10  # older than the racy window: its stat can be trusted
    os.utime(doc, (old, old))
    cache = StatCache(None)
    assert source_gone(str(tmp_path), body, ["AGENTS.md"], Budget(), {}, cache) is None
    read: dict[str, list[str]] = {}
    assert source_gone(str(tmp_path), body, ["AGENTS.md"], Budget(), read, cache) is None
    assert read == {}  # answered from the cache: the document was not read again
    doc.write_text("# Git\n\n- Push where you like.\n")
    assert source_gone(str(tmp_path), body, ["AGENTS.md"], Budget(), {}, cache) == "AGENTS.md"
    assert source_gone(str(tmp_path), body, ["README.md"], Budget(), {}, cache) is None
    # a document that is not here (renamed, deleted, or another repository's: a note a pack
    # brought, all of whose notes lint called "source-gone") says nothing either way
    doc.unlink()
    assert source_gone(str(tmp_path), body, ["AGENTS.md"], Budget(), {}, cache) is None

"""What a config field, a tool or a spec says it does is what the code does (issue 31)."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from lorebook import hookimpl
from lorebook.kb.paths import KBPaths
from lorebook.kb.personal import open_personal_store
from lorebook.kb.store import MarkdownStore
from lorebook.mcp_server import show_note
from lorebook.plugins import Plugins, make_plugins
from lorebook.providers import StoreSpec
from lorebook.store import NoteNotFoundError
from lorebook.testing import make_note
from lorebook.testing.memory_store import MemoryStore
from tests.conftest import REPO_ROOT


def _stores(repo: Path, names: str) -> None:
    config = repo / ".lorebook/config.yaml"
    text, count = re.subn(
        r"(?m)^stores: \[.*\]$", f"stores: [{names}]", config.read_text(encoding="utf-8")
    )
    assert count == 1
    config.write_text(text, encoding="utf-8")


def test_the_stores_description_says_what_writes_and_the_writes_agree(
    kb_repo: Path, cli: Any
) -> None:
    """`stores:` said "the first one is written"; nothing writes there. Notes are written to
    the repository store (or the one `note add --store` names), whatever the order."""
    _stores(kb_repo, "personal, markdown")
    done = cli("note", "add", "--title", "Use uv", "--description", "d", "--kind", "gotcha",
               cwd=kb_repo)  # fmt: skip
    assert done.exit_code == 0, done.stderr
    assert MarkdownStore(kb_repo).ids() == ["gotcha-use-uv"]
    assert open_personal_store().ids() == []
    schema = cli("schema", "config", cwd=kb_repo).json()
    description = schema["properties"]["stores"]["description"]
    assert "first one is written" not in description
    assert "repository store (`markdown`)" in description
    assert "`lorebook note add --store NAME`" in description


def _with_memory_store(store: MemoryStore) -> Plugins:
    plugins = make_plugins(load_external=False)

    class Memory:
        @hookimpl
        def register_stores(self) -> list[StoreSpec]:
            return [StoreSpec(name="memory", factory=lambda repo: store)]

    plugins.pm.register(Memory(), name="memory-store")
    return plugins


def test_note_show_reads_the_stores_config_names(
    kb_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The MCP server's note_show looked in the repository and personal stores whatever
    `stores:` said: a plugin's store was never read, an unserved personal note was shown."""
    paths = KBPaths(kb_repo)
    open_personal_store().add(make_note("mine"))
    memory = MemoryStore()
    memory.add(make_note("shared"))
    plugins = _with_memory_store(memory)
    monkeypatch.setattr("lorebook.plugins.get_plugins", lambda: plugins)

    with pytest.raises(NoteNotFoundError):  # not in `stores:`, so not served, not shown
        show_note(paths, "practice-mine")
    _stores(kb_repo, "markdown, memory")
    shown = show_note(paths, "practice-shared")
    assert (shown["store"], shown["path"], shown["body"]) == ("memory", None, memory.get(
        "practice-shared").body)  # fmt: skip
    _stores(kb_repo, "markdown, memory, personal")
    mine = show_note(paths, "practice-mine")
    assert (mine["store"], mine["validity"], mine["unreviewed"]) == ("personal", "untracked", None)
    assert mine["path"].endswith("/practice-mine.md")


def _names_used(paths: list[Path], skip: Path) -> set[str]:
    """Every name, attribute and imported name the modules use (``skip`` excepted)."""
    used: set[str] = set()
    for path in paths:
        if path == skip:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Name):
                used.add(node.id)
            elif isinstance(node, ast.Attribute):
                used.add(node.attr)
            elif isinstance(node, ast.ImportFrom):
                used.update(alias.name for alias in node.names)
    return used


def test_every_public_function_of_redaction_has_a_caller_outside_the_tests() -> None:
    """`capture/redact.py:redact()` was called only by tests: what the tests checked was
    not what capture, marks or imports run. Each public function has a production caller."""
    import lorebook.secrets.redact as module

    source = Path(module.__file__ or "")
    production = [*(REPO_ROOT / "core/src").rglob("*.py"), *(REPO_ROOT / "plugins").glob(
        "*/src/**/*.py")]  # fmt: skip
    used = _names_used(production, skip=source)
    inside = _names_used([source], skip=Path())
    tree = ast.parse(source.read_text(encoding="utf-8"))
    public = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    public = [name for name in public if not name.startswith("_")]
    assert "redact_many" in public
    assert [name for name in public if name not in used | inside] == []

"""Plugin loading: built-ins, entry points, fail-open, knobs, the typed facade."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from lorebook import hookimpl
from lorebook.errors import DuplicateProviderError, UnknownProviderError
from lorebook.events import RecallQuery
from lorebook.plugins import DEFAULT_PLUGINS, make_plugins
from lorebook.providers import HarnessSpec, StoreSpec
from lorebook.testing import HookRecorder
from tests.conftest import run_lorebook


def _fake_distribution(
    site: Path, name: str, module: str, source: str, group: str = "lorebook.plugin"
) -> None:
    """Write an installed distribution (dist-info + module) the way pip would."""
    (site / f"{module}.py").write_text(textwrap.dedent(source))
    info = site / f"{name.replace('-', '_')}-0.0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.0.1\n")
    (info / "entry_points.txt").write_text(f"[{group}]\n{name} = {module}\n")


@pytest.fixture
def broken_site(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    _fake_distribution(
        site, "lorebook-broken", "lorebook_broken", "raise RuntimeError('boom at import')\n"
    )
    _fake_distribution(
        site,
        "lorebook-raising",
        "lorebook_raising",
        """
        from lorebook import hookimpl

        @hookimpl
        def register_stores():
            raise ValueError("cannot build my stores")
        """,
        group="lorebook.store",
    )
    return site


def test_a_plugin_whose_import_raises_is_listed_as_failed_and_nothing_else_breaks(
    broken_site: Path, kb_repo: Path
) -> None:
    env = {"PYTHONPATH": os.pathsep.join([str(broken_site), os.environ.get("PYTHONPATH", "")])}
    doc = json.loads(run_lorebook("plugins", "--json", cwd=kb_repo, env=env).stdout)
    by_name = {p["name"]: p for p in doc["plugins"]}
    broken = by_name["lorebook-broken"]
    assert broken["status"] == "failed"
    assert broken["distribution"] == "lorebook-broken"
    assert broken["version"] == "0.0.1"
    assert broken["error"] == "RuntimeError: boom at import"
    assert by_name["claude"]["status"] == "loaded"
    assert by_name["lorebook.builtin.markdown_store"]["hooks"] == ["register_stores"]

    # Every other command still works, including ones that build the provider tables.
    run_lorebook(
        "note",
        "add",
        "--title",
        "Still works",
        "--description",
        "D",
        "--kind",
        "gotcha",
        cwd=kb_repo,
        env=env,
    )
    run_lorebook("index", "rebuild", cwd=kb_repo, env=env)
    run_lorebook("lint", cwd=kb_repo, env=env)
    doctor = run_lorebook("doctor", "--json", cwd=kb_repo, env=env, check=False)
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["plugin lorebook-broken"]["state"] == "problem"
    assert "boom at import" in checks["plugin lorebook-broken"]["detail"]


def test_a_provider_hook_that_raises_fails_alone(
    broken_site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(broken_site))
    import importlib

    importlib.invalidate_caches()
    plugins = make_plugins(env={})
    # the built-ins and every installed store plugin (lorebook-postgres in the workspace)
    assert list(plugins.stores())[:2] == ["markdown", "personal"]
    raising = next(r for r in plugins.records if r.name == "lorebook-raising")
    assert raising.status == "failed"
    assert raising.error == "ValueError: cannot build my stores"


def test_plugins_lists_a_plugin_whose_hook_raises_as_failed_with_a_one_line_reason(
    broken_site: Path, kb_repo: Path
) -> None:
    """Loading only registers a plugin: its provider hook fails when first called, and
    ``lorebook plugins`` used to list such a plugin as loaded."""
    source = """
        from lorebook import hookimpl

        @hookimpl
        def register_curators():
            raise ValueError("first line\\nsecond line\\nthird line")
        """
    _fake_distribution(broken_site, "lorebook-wordy", "lorebook_wordy", source)
    env = {"PYTHONPATH": os.pathsep.join([str(broken_site), os.environ.get("PYTHONPATH", "")])}
    text = run_lorebook("plugins", cwd=kb_repo, env=env).stdout
    assert (
        "lorebook-raising  (lorebook-raising 0.0.1)  failed: ValueError: cannot build my stores\n"
        in text
    )
    assert "lorebook-wordy  (lorebook-wordy 0.0.1)  failed: ValueError: first line (+2 more" in text
    assert (
        "lorebook-broken  (lorebook-broken 0.0.1)  failed: RuntimeError: boom at import\n" in text
    )
    assert "claude  (lorebook-claude 0.1.0)  loaded\n" in text
    doc = json.loads(run_lorebook("plugins", "--json", cwd=kb_repo, env=env).stdout)
    by_name = {p["name"]: p for p in doc["plugins"]}
    assert by_name["lorebook-raising"]["status"] == "failed"
    assert by_name["lorebook-wordy"]["error"] == "ValueError: first line (+2 more lines)"
    assert (doc["ok"], doc["problems"]) == (True, [])


def test_plugins_says_which_two_plugins_provide_one_name_and_exits_1(
    tmp_path: Path, kb_repo: Path
) -> None:
    source = """
        from lorebook import hookimpl
        from lorebook.providers import StoreSpec

        @hookimpl
        def register_stores():
            return [StoreSpec(name="markdown", factory=lambda repo: None)]
        """
    _fake_distribution(tmp_path, "lorebook-twin", "lorebook_twin", source, group="lorebook.store")
    env = {"PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    done = run_lorebook("plugins", cwd=kb_repo, env=env, check=False)
    assert done.returncode == 1
    assert "store 'markdown' is registered by both lorebook and lorebook-twin" in done.stderr
    assert "lorebook-twin  (lorebook-twin 0.0.1)  loaded" in done.stdout


def test_knobs_disable_and_restrict_plugins() -> None:
    disabled = make_plugins(env={"LOREBOOK_DISABLE_PLUGINS": "claude, codex"})
    status = {r.name: r.status for r in disabled.records}
    assert status["claude"] == "disabled"
    assert status["codex"] == "disabled"
    assert "claude" not in disabled.harnesses()
    only = make_plugins(env={"LOREBOOK_LOAD_PLUGINS": "cursor"})
    assert list(only.harnesses()) == ["cursor"]
    none = make_plugins(env={"LOREBOOK_LOAD_PLUGINS": ""})
    assert none.harnesses() == {}
    assert list(none.stores()) == ["markdown", "personal"]  # built-ins are not external


def test_loading_order_is_deterministic() -> None:
    names = [r.name for r in make_plugins(env={}).records]
    assert names[: len(DEFAULT_PLUGINS)] == list(DEFAULT_PLUGINS)  # built-ins first
    assert names == [r.name for r in make_plugins(env={}).records]
    harness_plugins = [
        n for n in names if n in {"claude", "codex", "cursor", "opencode", "copilot"}
    ]
    assert harness_plugins == sorted(harness_plugins)


def test_duplicate_provider_names_are_rejected_naming_both() -> None:
    plugins = make_plugins(load_external=False)

    class Twin:
        @hookimpl
        def register_stores(self) -> list[StoreSpec]:
            return [StoreSpec(name="markdown", factory=lambda repo: None)]  # type: ignore[arg-type,return-value]

    plugins.pm.register(Twin(), name="twin")
    with pytest.raises(
        DuplicateProviderError, match="'markdown' is registered by both lorebook and twin"
    ):
        plugins.stores()


def test_unknown_provider_lists_valid_names() -> None:
    plugins = make_plugins(env={})
    with pytest.raises(UnknownProviderError) as info:
        plugins.harness("vim")
    assert "unknown harness 'vim'; valid names: claude, codex, copilot, cursor, opencode" in str(
        info.value
    )


def test_a_harness_spec_without_a_factory_fails_its_plugin_alone_and_init_writes_nothing(
    tmp_path: Path, kb_repo: Path
) -> None:
    """There is no "declared, not supported yet" harness: a spec whose factory is None (the
    old sentinel) is refused where it is built, its plugin is listed as failed saying why,
    the other harnesses still load, and init knows no such harness."""
    site = tmp_path / "site"
    site.mkdir()
    _fake_distribution(
        site, "lorebook-someday", "lorebook_someday",
        """
        from lorebook import hookimpl
        from lorebook.providers import HarnessSpec

        @hookimpl
        def register_harnesses():
            return [HarnessSpec(name="someday", factory=None)]
        """,
        group="lorebook.harness",
    )  # fmt: skip
    env = {"PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    doctor = run_lorebook("doctor", "--json", cwd=kb_repo, env=env, check=False)
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["plugin lorebook-someday"]["state"] == "problem"
    assert checks["plugin lorebook-someday"]["detail"].endswith(
        "TypeError: HarnessSpec 'someday': factory must be a callable that builds the "
        "harness, not None"
    )
    assert "claude" in checks["harness plugins"]["detail"]  # the others still load
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    done = run_lorebook("init", "--harnesses", "someday", cwd=fresh, env=env, check=False)
    assert done.returncode == 2  # a usage error: no such harness
    assert "unknown harness 'someday'" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (fresh / ".lorebook").exists()


def test_pipeline_hooks_reach_plugins_through_the_recorder(hook_recorder: HookRecorder) -> None:
    from lorebook.events import Hit

    class Recaller:
        @hookimpl
        def recall(self, query: RecallQuery) -> list[Hit]:
            return [Hit(note_id="practice-x", score=1.0, store="test", title=query.text)]

    hook_recorder.pm.register(Recaller())
    result = hook_recorder.pm.hook.recall(query=RecallQuery(text="uv"))
    assert result == [[Hit(note_id="practice-x", score=1.0, store="test", title="uv")]]
    assert hook_recorder.names() == ["recall"]
    assert hook_recorder.of("recall")[0].kwargs["query"].text == "uv"


def test_harness_spec_records_are_typed() -> None:
    plugins = make_plugins(env={})
    spec = plugins.harness("claude")
    assert isinstance(spec, HarnessSpec)
    assert spec.instruction_files == ("CLAUDE.md", ".claude/CLAUDE.md")

"""The host-plugin template renders into a plugin that installs beside core and passes its own
tests and the harness contract suite; the suite fails when the plugin installs nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

TEMPLATE = REPO_ROOT / "templates" / "host-plugin"
RENDER = TEMPLATE / "render.py"


def render_script(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the template's render script as a plugin author does."""
    return subprocess.run(
        [sys.executable, str(RENDER), *args], capture_output=True, text=True, check=False
    )


def render(target: Path) -> Path:
    """The plugin the render script writes for ``acmehost`` ("Acme Host")."""
    proc = render_script("acmehost", "Acme Host", str(target))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert str(target) in proc.stdout
    return target


def install(plugin: Path, site: Path) -> None:
    """``pip install`` the rendered plugin (no dependencies: core is already installed)."""
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--disable-pip-version-check", "--target", str(site), str(plugin)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr


def run_tests(plugin: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=plugin, env=env, capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip


@pytest.fixture
def rendered(tmp_path: Path) -> tuple[Path, Path]:
    plugin = render(tmp_path / "lorebook-acmehost")
    return plugin, tmp_path / "site"


def test_no_placeholder_survives_rendering(rendered: tuple[Path, Path]) -> None:
    plugin, _ = rendered
    for path in plugin.rglob("*"):
        assert "__HOST" not in path.as_posix()
        if path.is_file():
            assert "__HOST" not in path.read_text(encoding="utf-8"), path


def test_the_script_renders_every_template_file_but_itself(rendered: tuple[Path, Path]) -> None:
    plugin, _ = rendered
    written = sorted(p.relative_to(plugin).as_posix() for p in plugin.rglob("*") if p.is_file())
    assert "render.py" not in written
    assert "src/lorebook_acmehost/harness.py" in written
    assert "tests/fixtures/README.md" in written
    assert 'name = "lorebook-acmehost"' in (plugin / "pyproject.toml").read_text(encoding="utf-8")
    assert "Acme Host" in (plugin / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("Acme-Host", "Acme Host"), "harness name 'Acme-Host'"),
        (("1acme", "Acme Host"), "harness name '1acme'"),
        (("acmehost", ""), "title ''"),
    ],
)
def test_the_script_refuses_a_bad_name_or_title(
    tmp_path: Path, args: tuple[str, str], message: str
) -> None:
    proc = render_script(*args, str(tmp_path / "out"))
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()


def test_the_script_never_writes_into_a_folder_that_holds_files(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("keep", encoding="utf-8")
    proc = render_script("acmehost", "Acme Host", str(tmp_path))
    assert proc.returncode == 2
    assert "already exists and is not an empty folder" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.txt"]
    assert render_script().returncode == 2
    assert "usage:" in render_script().stderr


def test_the_rendered_reader_numbers_a_resumed_read_from_lines_before(
    rendered: tuple[Path, Path],
) -> None:
    """A resumed read is numbered from the lines capture says lie before it.

    A plugin derived from the template must not count the whole transcript again at every
    capture.
    """
    plugin, _ = rendered
    code = (
        "import sys\n"
        "from lorebook.hostkit.jsonl import takes_lines_before\n"
        "from lorebook_acmehost.harness import Harness\n"
        "h = Harness()\n"
        "ref = sys.argv[1]\n"
        "data = open(ref, 'rb').read()\n"
        "turns = list(h.read_transcript(ref, data.index(b'\\n') + 1, None, lines_before=100))\n"
        "print(takes_lines_before(h.transcript.read_transcript), [t.index for t in turns])\n"
    )
    env = {**os.environ, "PYTHONPATH": str(plugin / "src")}
    transcript = plugin / "tests/fixtures/transcript.jsonl"
    proc = subprocess.run(
        [sys.executable, "-c", code, str(transcript)],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split(None, 1) == ["True", "[100, 101, 102, 103]\n"]


def test_the_rendered_plugin_passes_its_tests_and_the_contract_suite(
    rendered: tuple[Path, Path],
) -> None:
    plugin, site = rendered
    install(plugin, site)
    proc = run_tests(plugin, site)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " passed" in proc.stdout
    assert "skipped" not in proc.stdout
    assert "TestContract" not in proc.stdout  # nothing of the contract failed or was skipped
    summary = proc.stdout.strip().splitlines()[-1]
    assert int(summary.split()[0]) >= 14, summary  # the contract suite's tests ran, and ours


def test_the_contract_suite_fails_when_nothing_is_installed_to_replay(
    rendered: tuple[Path, Path],
) -> None:
    plugin, site = rendered
    harness = plugin / "src/lorebook_acmehost/harness.py"
    text = harness.read_text(encoding="utf-8")
    broken = text.replace("        return FILE.hook_commands(repo)", "        return {}")
    assert broken != text
    harness.write_text(broken, encoding="utf-8")
    install(plugin, site)
    proc = run_tests(plugin, site)
    assert proc.returncode == 1, proc.stdout
    assert "init installed no hook command to replay" in proc.stdout


@pytest.mark.parametrize(
    ("module", "old", "new", "failing"),
    [
        (
            "events.py",
            '    if answer.decision in ("deny", "ask"):',
            "    if False:",
            "test_a_decision_on_a_tool_reaches_the_host",
        ),
        (
            "harness.py",
            'if role in ("user", "assistant")',
            'if role == "user"',
            "test_a_recorded_transcript_reads_through_the_plugin",
        ),
    ],
)
def test_the_contract_suite_fails_when_the_plugin_drops_a_decision_or_a_turn(
    rendered: tuple[Path, Path], module: str, old: str, new: str, failing: str
) -> None:
    """The contract renders ask and deny and reads a transcript through the plugin.

    A plugin that renders no decision, or reads no assistant turn, fails it.
    """
    plugin, site = rendered
    path = plugin / "src/lorebook_acmehost" / module
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    install(plugin, site)
    proc = run_tests(plugin, site)
    assert proc.returncode == 1, proc.stdout
    assert f"TestContract::{failing}" in proc.stdout

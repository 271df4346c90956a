"""The layer contract: ``scripts/layers.py`` measures the import graph and fails on new faults.

The real tree must hold no circle and no upward import beyond the script's known lists; the
small packages built here check that the measurement sees what Python runs (a function's
lazy import counts, one under ``TYPE_CHECKING`` does not) and reports what is new.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "layers.py"


@pytest.fixture(scope="module")
def layers() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lorebook_layers_script", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_lorebook_has_no_new_circle_or_upward_import(layers: ModuleType) -> None:
    report = layers.measure()
    new = [line for line in report.lines if line.startswith("NEW")]
    assert report.new == 0, "\n".join(new)


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


LOW_HIGH = (("low", ("pkg", "pkg.low")), ("high", ("pkg.high",)))


def test_a_lazy_upward_import_is_new_and_a_type_only_one_is_not(
    layers: ModuleType, tmp_path: Path
) -> None:
    source = _package(
        tmp_path,
        {
            "__init__.py": "",
            "low.py": (
                "TYPE_CHECKING = False\n"
                "if TYPE_CHECKING:\n"
                "    from pkg.high import Thing\n"
                "def later():\n"
                "    from pkg import high\n"
            ),
            "high.py": "from pkg.low import later\n",
        },
    )
    report = layers.measure(source, "pkg", LOW_HIGH, (), ())

    assert report.new == 2  # the upward import and the circle it closes
    assert "NEW   circle of 2: pkg.high, pkg.low" in report.lines
    assert any(
        line.startswith("NEW   pkg/low.py:5 pkg.low (layer 1) -> pkg.high") for line in report.lines
    )
    assert "upward imports: 1" in report.lines

    known = layers.measure(
        source, "pkg", LOW_HIGH, {("pkg.low", "pkg.high")}, (frozenset({"pkg.low", "pkg.high"}),)
    )
    assert known.new == 0


def test_type_only_imports_make_no_circle(layers: ModuleType, tmp_path: Path) -> None:
    source = _package(
        tmp_path,
        {
            "__init__.py": "",
            "low.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.high\n",
            "high.py": "from . import low\n",
        },
    )
    report = layers.measure(source, "pkg", LOW_HIGH, (), ())

    assert report.new == 0
    assert "circles: 0" in report.lines
    assert "upward imports: 0" in report.lines


def test_a_module_without_a_layer_and_a_gone_entry_are_reported(
    layers: ModuleType, tmp_path: Path
) -> None:
    source = _package(tmp_path, {"__init__.py": "", "low.py": "", "stray.py": "import pkg.low\n"})
    report = layers.measure(source, "pkg", LOW_HIGH, {("pkg.low", "pkg.high")}, ())

    assert report.new == 1
    assert report.lines[0].startswith("NEW   pkg.stray belongs to no layer")
    assert report.stale == 1
    assert "gone  pkg.low -> pkg.high: remove it from KNOWN_UPWARD" in report.lines


def test_the_script_prints_the_measure_and_fails_on_a_new_upward_import(
    layers: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert layers.main([]) == 0
    out = capsys.readouterr().out
    assert "circles: " in out
    assert "modules over 500 lines: 0" in out  # issue 31: no module over 500 lines

    source = tmp_path / "src"
    lorebook = source / "lorebook"
    lorebook.mkdir(parents=True)
    (lorebook / "__init__.py").write_text("")
    (lorebook / "errors.py").write_text("from lorebook.cli import app\n")
    (lorebook / "cli").mkdir()
    (lorebook / "cli" / "__init__.py").write_text("")
    (lorebook / "cli" / "app.py").write_text("from lorebook import errors\n")

    assert layers.main(["--source", str(source)]) == 1
    captured = capsys.readouterr()
    assert "NEW   circle of 2: lorebook.cli.app, lorebook.errors" in captured.out
    assert "lorebook.errors (layer 1) -> lorebook.cli.app (layer 7)" in captured.out
    assert "new: see the lines marked NEW" in captured.err


def test_pipeline_packages_over_the_ceiling_fail_and_over_the_target_warn(
    layers: ModuleType, tmp_path: Path
) -> None:
    source = _package(
        tmp_path, {"__init__.py": "", "low.py": "a = 1\nb = 2\nc = 3\n", "high.py": "d = 4\n"}
    )

    def measure(limits: tuple[int, int]) -> tuple[int, int, list[str]]:
        report = layers.measure(source, "pkg", LOW_HIGH, (), (), ("pkg.low", "pkg.high"), limits)
        return report.new, report.stale, report.lines

    new, stale, lines = measure((3, 3))
    assert (new, stale) == (1, 0)
    assert "pipeline packages: 4 lines (low 3, high 1); target under 3" in lines
    assert any(
        line.startswith("NEW   the pipeline packages hold 4 lines, over the 3") for line in lines
    )
    new, stale, lines = measure((3, 4))
    assert (new, stale) == (0, 1)
    assert any(
        line.startswith("over  the pipeline packages hold 4 lines, 1 over") for line in lines
    )
    assert measure((4, 4))[:2] == (0, 0)


def test_the_real_pipeline_packages_are_counted(
    layers: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    assert layers.main([]) == 0
    out = capsys.readouterr().out
    (line,) = [line for line in out.splitlines() if line.startswith("pipeline packages: ")]
    assert "(kb " in line
    assert ", curate " in line
    total = int(line.split()[2])
    assert total <= max(layers.PIPELINE_LINES_ALLOWED, layers.MAX_PIPELINE_LINES)

"""The hook's finder loads a package's compiled modules, and only while they are current."""

from __future__ import annotations

import json
import os
import py_compile
import subprocess
import sys
from pathlib import Path

import lorebook

CORE = str(Path(lorebook.__file__).resolve().parent.parent)


def _imports(folder: Path, *names: str) -> dict[str, dict[str, object]]:
    """Import ``names`` in a fresh ``-I -S`` interpreter with the finder installed for the
    ``pkg`` package in ``folder``; each module's VALUE, file and loader."""
    code = (
        f"import sys, json; sys.path += [{CORE!r}, {str(folder)!r}]; "
        "from lorebook.fastpath.finder import install; "
        f"install({{'pkg': [{str(folder)!r}]}}); "
        "import importlib; out = {}\n"
        f"for name in {list(names)!r}:\n"
        "    m = importlib.import_module(name)\n"
        "    out[name] = {'value': getattr(m, 'VALUE', None), 'file': m.__file__,"
        " 'loader': type(m.__spec__.loader).__name__, 'path': getattr(m, '__path__', None)}\n"
        "print(json.dumps(out))"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # -I ignores it; the test's files stay as written
    out = subprocess.run(
        [sys.executable, "-I", "-S", "-B", "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    result: dict[str, dict[str, object]] = json.loads(out.stdout)
    return result


def _package(tmp_path: Path) -> Path:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("VALUE = 'package'\n")
    (pkg / "mod.py").write_text("VALUE = 1\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "leaf.py").write_text("from pkg.mod import VALUE as BASE\nVALUE = BASE + 10\n")
    for source in pkg.rglob("*.py"):
        py_compile.compile(str(source), doraise=True)
    return pkg


def test_current_compiled_modules_are_loaded_by_the_hook_finder(tmp_path: Path) -> None:
    pkg = _package(tmp_path)
    found = _imports(tmp_path, "pkg", "pkg.mod", "pkg.sub.leaf")
    assert {name: m["value"] for name, m in found.items()} == {
        "pkg": "package",
        "pkg.mod": 1,
        "pkg.sub.leaf": 11,
    }
    assert {m["loader"] for m in found.values()} == {"_Compiled"}
    assert found["pkg.sub.leaf"]["file"] == str(pkg / "sub" / "leaf.py")
    assert found["pkg"]["path"] == [str(pkg)]


def test_an_edited_module_runs_its_new_source(tmp_path: Path) -> None:
    """A source edited after it was compiled (an editable install): the new code runs."""
    pkg = _package(tmp_path)
    source = pkg / "mod.py"
    source.write_text("VALUE = 222\n")  # another size: the compiled file's header is stale
    os.utime(source, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns + 5 * 10**9))
    found = _imports(tmp_path, "pkg.mod", "pkg.sub.leaf")
    assert found["pkg.mod"]["value"] == 222
    assert found["pkg.mod"]["loader"] == "SourceFileLoader"  # the standard machinery's
    assert found["pkg.sub.leaf"] == {**found["pkg.sub.leaf"], "value": 232, "loader": "_Compiled"}


def test_a_module_without_a_compiled_file_or_with_a_damaged_one_is_left_to_python(
    tmp_path: Path,
) -> None:
    pkg = _package(tmp_path)
    (pkg / "fresh.py").write_text("VALUE = 'never compiled'\n")
    cached = pkg / "__pycache__" / f"mod.{sys.implementation.cache_tag}.pyc"
    cached.write_bytes(b"\0" * 64)  # not a compiled file of this interpreter
    found = _imports(tmp_path, "pkg.fresh", "pkg.mod")
    assert found["pkg.fresh"]["value"] == "never compiled"
    assert found["pkg.mod"]["value"] == 1
    assert {m["loader"] for m in found.values()} == {"SourceFileLoader"}

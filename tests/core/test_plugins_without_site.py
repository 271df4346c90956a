"""Plugins installed in editable mode load in the hook launcher's ``python -I -S`` too."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

import lorebook

PLUGIN = """
from lorebook import hookimpl
from lorebook.providers import StoreSpec


@hookimpl
def register_stores():
    return [StoreSpec(name="editable", factory=lambda repo: None)]
"""


def test_a_store_plugin_installed_editable_loads_without_site(tmp_path: Path) -> None:
    source = tmp_path / "src"
    (source / "lbeditable").mkdir(parents=True)
    (source / "lbeditable" / "__init__.py").write_text(PLUGIN)
    site = tmp_path / "lib" / "site-packages"  # what an editable install leaves there
    dist = site / "lbeditable-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: lbeditable\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[lorebook.store]\neditable = lbeditable\n")
    (site / "_lbeditable.pth").write_text(f"{source}\n")
    folders = [str(Path(lorebook.__file__).parent.parent), sysconfig.get_paths()["purelib"]]
    code = (
        f"import sys; sys.path += {[*folders, str(site)]!r}\n"
        "from lorebook.plugins import get_plugins\n"
        "print(sorted(get_plugins().stores()))\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "'editable'" in done.stdout, done.stdout

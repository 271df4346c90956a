"""The command that adds an extra to the lorebook running now, however it was installed.

A hint that says ``pip install 'lorebook[mcp]'`` is wrong for most users: lorebook is
installed from a clone (editable, into the clone's ``.venv``), with pipx, as a uv tool, or
with pip into an environment of theirs. Each leaves a trace this module reads: pip's
``direct_url.json`` (where the code came from, and whether it is editable), pipx's
``pipx_metadata.json`` and uv's ``uv-receipt.toml`` in the environment's folder.
"""

from __future__ import annotations

import json
import shlex
import sys
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

DISTRIBUTION = "lorebook"


def _origin() -> tuple[str, bool]:
    """Where lorebook was installed from (a folder, or its name on an index), and editable."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        text = distribution(DISTRIBUTION).read_text("direct_url.json")
    except PackageNotFoundError:
        text = None
    try:
        found = json.loads(text) if text else {}
    except ValueError:
        found = {}
    url = found.get("url", "") if isinstance(found, dict) else ""
    if not url.startswith("file://"):
        return DISTRIBUTION, False
    editable = bool((found.get("dir_info") or {}).get("editable"))
    return unquote(urlparse(url).path), editable


def _with_extras(location: str, extras: list[str]) -> str:
    return f"{location}[{','.join(dict.fromkeys(extras))}]"


def _uv_tool(prefix: Path, extra: str) -> str | None:
    """``uv tool install`` again, with the extra and every ``--with`` the receipt records."""
    try:
        receipt: dict[str, Any] = tomllib.loads((prefix / "uv-receipt.toml").read_text("utf-8"))
        requirements = receipt["tool"]["requirements"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    words = ["uv", "tool", "install"]
    for requirement in requirements:
        if not isinstance(requirement, dict) or "name" not in requirement:
            return None
        where = next((requirement[k] for k in ("editable", "directory", "path", "url")
                      if k in requirement), None)  # fmt: skip
        spec = where or f"{requirement['name']}{requirement.get('specifier', '')}"
        extras = list(requirement.get("extras", []))
        if requirement["name"] == DISTRIBUTION:
            spec = _with_extras(spec, [*extras, extra])
            words += (["--editable"] if "editable" in requirement else []) + [spec]
        else:
            words += ["--with", _with_extras(spec, extras) if extras else spec]
    return shlex.join(words)


def install_command(extra: str) -> str:
    """The shell command that adds ``lorebook[extra]`` to the lorebook that runs now.

    >>> "[mcp]" in install_command("mcp")
    True
    """
    location, editable = _origin()
    spec = _with_extras(location, [extra])
    editable_flag = ["-e"] if editable else []
    prefix = Path(sys.prefix)
    if (prefix / "uv-receipt.toml").is_file():
        uv = _uv_tool(prefix, extra)
        if uv is not None:
            return uv
        return shlex.join(["uv", "pip", "install", "--python", sys.executable, spec])
    if (prefix / "pipx_metadata.json").is_file():
        return shlex.join(["pipx", "runpip", prefix.name, "install", *editable_flag, spec])
    words = [sys.executable, "-m", "pip", "install", *editable_flag, spec]
    constraints = Path(location).parent / "constraints.txt"
    if editable and constraints.is_file():  # a clone pins its versions (scripts/_venv.sh)
        words += ["-c", str(constraints)]
    return shlex.join(words)

"""Install lorebook as a user would, next to other tools, and check that it runs.

A fresh virtual environment first gets typer, pydantic and httpx at the oldest releases
lorebook's ranges allow (another tool in the same environment might hold them there), then
``pip install`` of core and one harness plugin from this checkout, without
constraints.txt. The check passes when pip keeps those three versions, ``pip check``
finds nothing broken, and lorebook works in a throwaway git repository: ``--version``,
``init``, ``note add``, ``lint``, ``doctor``. Needs the package registry; writes nothing
outside a temporary folder. Run it with any Python 3.11+:

    python3 scripts/check_install.py [--plugin claude] [--keep]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import tomllib
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HELD = ("typer", "pydantic", "httpx")


def lowest_allowed() -> dict[str, str]:
    """The lower bound core's pyproject gives each held package (``typer>=0.16,<1`` -> 0.16)."""
    data = tomllib.loads((ROOT / "core/pyproject.toml").read_text(encoding="utf-8"))
    found: dict[str, str] = {}
    for req in data["project"]["dependencies"]:
        name, _, rest = req.partition(">=")
        if name in HELD:
            found[name] = rest.split(",")[0]
    missing = set(HELD) - set(found)
    if missing:
        raise SystemExit(f"core/pyproject.toml has no lower bound for {sorted(missing)}")
    return found


def run(argv: list[str], cwd: Path | None = None) -> str:
    """Run a command; stop the check with its output when it fails."""
    env = {k: v for k, v in os.environ.items() if k not in ("PIP_CONSTRAINT", "VIRTUAL_ENV")}
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=env, check=False)
    shown = " ".join(argv[1:] if argv[0].endswith("python") else argv)
    if proc.returncode != 0:
        raise SystemExit(
            f"check failed: {shown} exited {proc.returncode}\n{proc.stdout}{proc.stderr}"
        )
    return proc.stdout


def versions(python: str) -> dict[str, str]:
    """The installed version of each held package."""
    code = "import importlib.metadata as m, sys; [print(n, m.version(n)) for n in sys.argv[1:]]"
    out = run([python, "-c", code, *HELD])
    return dict(line.split() for line in out.splitlines())


def check(plugin: str, work: Path) -> None:
    """Run the whole check inside ``work``."""
    venv.create(work / "env", with_pip=True)
    python = str(work / "env" / ("Scripts" if os.name == "nt" else "bin") / "python")
    pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    held = lowest_allowed()
    # the newest patch release of each lower bound: typer 0.16 -> typer~=0.16.0
    run([*pip, *(f"{name}~={version}.0" if version.count(".") == 1 else f"{name}=={version}"
                 for name, version in held.items())])  # fmt: skip
    before = versions(python)
    print("held before installing lorebook:", before)
    run([*pip, str(ROOT / "core"), str(ROOT / "plugins" / plugin)])
    after = versions(python)
    if after != before:
        raise SystemExit(f"check failed: pip replaced {before} with {after}")
    run([python, "-m", "pip", "check"])
    lorebook = [python, "-m", "lorebook"]
    print(run([*lorebook, "--version"]).strip())
    repo = work / "repo"
    repo.mkdir()
    run(["git", "init", "-q"], cwd=repo)
    run([*lorebook, "init", "--harnesses", plugin], cwd=repo)
    note = ["--title", "Run tests with tox", "--description", "How the tests run",
            "--kind", "convention", "--body", "Always tox -e py."]  # fmt: skip
    run([*lorebook, "note", "add", *note], cwd=repo)
    run([*lorebook, "lint"], cwd=repo)
    print(run([*lorebook, "doctor"], cwd=repo).strip().splitlines()[-1])
    print(f"ok: lorebook and lorebook-{plugin} install and run next to {after}")


def main() -> None:
    """Parse the options and run the check in a temporary folder."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plugin", default="claude", help="the harness plugin to install")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="lorebook-install-"))
    try:
        check(args.plugin, work)
    finally:
        if args.keep:
            print("kept", work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

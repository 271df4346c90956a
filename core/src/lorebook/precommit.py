"""The opt-in git pre-commit hook (``lorebook init --pre-commit``): scan what is committed.

The hook runs ``lorebook scan`` on the staged ``.lorebook/`` files, as they are staged
(checked out of the index into a temporary folder beside the working tree's config.yaml,
so an edit made after ``git add`` can neither hide nor add a finding), and stops the
commit when a secret is found.

A user's own pre-commit hook is never overwritten. A shell script gets lorebook's block
right after its first line, between two marker lines, so it runs first whatever the rest
of the script does; any other hook (a binary, a Python script, the pre-commit framework's
generated hook) is refused with a message saying what to add to it. ``uninstall`` removes
exactly the block, and the file too when lorebook created it. The hook is per machine
(``.git/hooks`` is not committed) and names this machine's interpreter, like the launcher.
"""

from __future__ import annotations

import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path

from lorebook.errors import LorebookError
from lorebook.kb.fsutil import atomic_write_text

BEGIN = "# >>> lorebook pre-commit: secrets scan of staged .lorebook/ files >>>"
BEGIN_CREATED = "# >>> lorebook pre-commit (file created by lorebook): secrets scan >>>"
END = "# <<< lorebook pre-commit <<<"
SHELLS = ("sh", "bash", "dash", "zsh", "ksh")

_BODY = """\
lorebook_files=$(git diff --cached --name-only --diff-filter=ACMR -z -- .lorebook/ | tr '\\0' '\\n')
if [ -n "$lorebook_files" ]; then
    lorebook_tmp=$(mktemp -d) || exit 1
    mkdir -p "$lorebook_tmp/.lorebook" && cp .lorebook/config.yaml "$lorebook_tmp/.lorebook/"
    printf '%s\\n' "$lorebook_files" | git checkout-index -f --prefix="$lorebook_tmp/" --stdin
    (cd "$lorebook_tmp" && printf '%s\\n' "$lorebook_files" | tr '\\n' '\\0' |
        xargs -0 {python} -m lorebook scan)
    lorebook_status=$?
    rm -rf "$lorebook_tmp"
    if [ "$lorebook_status" -ne 0 ]; then
        echo "lorebook: the commit is stopped: a staged .lorebook/ file holds a secret" >&2
        echo "lorebook: remove it, git add the file again, and commit" >&2
        exit 1
    fi
fi
"""


def hook_path(repo: Path) -> Path:
    """Where git runs this repository's pre-commit hook (``core.hooksPath`` respected)."""
    out = subprocess.run(
        ["git", "rev-parse", "--git-path", "hooks/pre-commit"],
        cwd=repo, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if out.returncode != 0 or not out.stdout.strip():
        raise LorebookError(
            f"{repo} is not a git repository: there is no pre-commit hook to install",
            hint="run `git init` first, or leave out --pre-commit",
        )
    path = Path(out.stdout.strip())
    return path if path.is_absolute() else repo / path


def _block(begin: str) -> str:
    python = shlex.quote(sys.executable)
    return f"{begin}\n{_BODY.format(python=python)}{END}\n"


def _strip_block(text: str) -> tuple[str, bool, bool]:
    """``text`` without lorebook's block; whether there was one; whether lorebook made the file."""
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.rstrip("\n") in (BEGIN, BEGIN_CREATED)]
    if not starts:
        return text, False, False
    start = starts[0]
    ends = [i for i, line in enumerate(lines) if i > start and line.rstrip("\n") == END]
    if not ends:
        raise LorebookError(
            "the pre-commit hook has lorebook's begin marker but not its end marker",
            hint=f"remove the lines from {BEGIN!r} on by hand",
        )
    created = lines[start].rstrip("\n") == BEGIN_CREATED
    return "".join(lines[:start] + lines[ends[0] + 1 :]), True, created


def _is_shell_script(text: str) -> bool:
    first = text.split("\n", 1)[0]
    if not first.startswith("#!"):
        return False
    words = first[2:].split()
    names = [os.path.basename(w) for w in words[:2]]
    return bool(names) and (names[0] in SHELLS or (names[0] == "env" and names[-1] in SHELLS))


def install_pre_commit(repo: Path) -> list[str]:
    """Install (or refresh) lorebook's block in the pre-commit hook; return what changed.

    Raises:
        LorebookError: not a git repository, or a hook of the user's that is not a shell
            script (nothing is written; the message says what to add to it).
    """
    path = hook_path(repo)
    try:
        current = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        current = None
    except (OSError, UnicodeDecodeError) as exc:
        raise LorebookError(f"{path}: cannot read the pre-commit hook: {exc}") from None
    if current is None:
        wanted = "#!/bin/sh\n" + _block(BEGIN_CREATED)
    else:
        rest, _, created = _strip_block(current)
        if not _is_shell_script(rest):
            raise LorebookError(
                f"{path} is a pre-commit hook of your own and not a shell script; lorebook "
                "did not change it",
                hint="add this to it: `lorebook scan` on the staged .lorebook/ files (for the "
                "pre-commit framework: a local hook running `lorebook scan`), or leave out "
                "--pre-commit",
            )
        first, _, body = rest.partition("\n")
        wanted = f"{first}\n{_block(BEGIN_CREATED if created else BEGIN)}{body}"
    if wanted == current:
        return []
    atomic_write_text(path, wanted)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return [_shown(repo, path)]


def uninstall_pre_commit(repo: Path) -> list[str]:
    """Remove exactly lorebook's block (and the file, when lorebook created it)."""
    try:
        path = hook_path(repo)
        current = path.read_text(encoding="utf-8")
    except (LorebookError, OSError, UnicodeDecodeError):
        return []
    rest, found, created = _strip_block(current)
    if not found:
        return []
    if created and rest.strip() in ("", "#!/bin/sh"):
        path.unlink()
        return [f"removed {_shown(repo, path)}"]
    atomic_write_text(path, rest)
    return [f"removed lorebook's block from {_shown(repo, path)}"]


def _shown(repo: Path, path: Path) -> str:
    try:
        return path.relative_to(repo).as_posix()
    except ValueError:
        return str(path)

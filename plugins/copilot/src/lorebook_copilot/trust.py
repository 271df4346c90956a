"""Whether Copilot CLI trusts a repository, so that its ``.github/hooks`` run at all.

Copilot loads repository hooks only in a trusted folder and says nothing when it skips
them (shared/HARNESSES.md section 4.1). Trust persists in ``$COPILOT_HOME/config.json``
(a JSON file Copilot manages, with ``//`` comment lines at the top): its
``trustedFolders`` list, where a folder trusts everything inside it (verified with
1.0.102: a parent folder's entry made the repository's hooks fire). A headless run may
trust the folder for itself instead (``--trust-folder``, or ``COPILOT_ALLOW_ALL=true``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from lorebook.harness import CheckItem

from .history import copilot_home

WHAT = "Copilot CLI folder trust (repository hooks run only in a trusted folder)"

HOW_TO_TRUST = (
    "Copilot skips the hooks of an untrusted folder without a word: start `copilot` in "
    '{repo} once and choose to trust the folder (or add it to "trustedFolders" in '
    "{config}); a headless run can pass --trust-folder or set COPILOT_ALLOW_ALL=true"
)


def trusted_folders(config: Path) -> list[str]:
    """The ``trustedFolders`` of Copilot's config file (``[]`` when it has none).

    Raises:
        ValueError: the file exists but is not the JSON object Copilot writes.
    """
    try:
        text = config.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise ValueError(f"{config}: {exc.strerror or exc}") from None
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    try:
        data = json.loads(body) if body.strip() else {}
    except ValueError as exc:
        raise ValueError(f"{config} is not valid JSON: {exc}") from None
    folders = data.get("trustedFolders", []) if isinstance(data, dict) else None
    if not isinstance(folders, list):
        raise ValueError(f"{config}: 'trustedFolders' must be a list")
    return [folder for folder in folders if isinstance(folder, str)]


def _inside(repo: Path, folder: str) -> bool:
    try:
        root = Path(folder).expanduser().resolve()
    except (OSError, RuntimeError):
        return False
    return root == repo or root in repo.parents


def trust_item(repo: Path, env: Mapping[str, str] | None = None) -> CheckItem:
    """``ok`` when a trusted folder holds the repository, else ``untrusted`` (or ``unknown``)."""
    config = copilot_home(env) / "config.json"
    fix = HOW_TO_TRUST.format(repo=repo, config=config)
    try:
        folders = trusted_folders(config)
    except ValueError as exc:
        return CheckItem(WHAT, "unknown", fix=f"{exc}. {fix}")
    resolved = repo.resolve()
    if any(_inside(resolved, folder) for folder in folders):
        return CheckItem(WHAT, "ok")
    return CheckItem(WHAT, "untrusted", fix=fix)

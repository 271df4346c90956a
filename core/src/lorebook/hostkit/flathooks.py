"""lorebook's entries in a versioned, flat JSON hooks file (``{"version": 1, "hooks": ...}``).

Some hosts read ``{"version": 1, "hooks": {"<event>": [{<entry>}, ...]}}``: one list of
handler entries per event, with no matcher groups in between (GitHub Copilot CLI's
``.github/hooks/*.json`` entries carry ``bash`` and ``powershell`` commands, Cursor's
``.cursor/hooks.json`` entries a ``command``). lorebook puts one entry in the list of each
event it listens to. Our entries are recognised by a predicate on the entry (its command
runs lorebook's launcher), so an older lorebook's entry is recognised too; everything
else in the file is the user's and is kept as it is, in its order. Install is idempotent
(an older entry of ours is replaced where it stood); uninstall is exact: events and the
``hooks`` key that only our entries filled go, and a file left with nothing but its
``version`` is deleted (with its folder, when that is then empty).

Not for the hook path: it imports ``pathlib`` and the atomic writer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lorebook.hostkit import hookfile

if TYPE_CHECKING:
    from lorebook.harness import CheckState

EntryIsOurs = Callable[[Any], bool]
"""Whether one handler entry of the file is lorebook's (any version)."""


class FlatHookFile:
    """One host's flat hooks file, with lorebook's events, entries and recogniser bound.

    Args:
        path: The file, relative to the repository (``.github/hooks/lorebook.json``).
        events: Every host event lorebook installs an entry for, in order.
        entry: The exact entry lorebook installs for one event.
        is_ours: Recognises lorebook's entries (any version).
        fix: What a person runs to repair the file.
        version: The ``version`` a new file gets.
    """

    def __init__(
        self,
        path: str,
        events: tuple[str, ...],
        entry: Callable[[str], dict[str, Any]],
        is_ours: EntryIsOurs,
        fix: str,
        version: int = 1,
    ) -> None:
        """Bind the host's file, events, entry, recogniser and fix."""
        self.path = path
        self.events = events
        self.entry = entry
        self.is_ours = is_ours
        self.fix = fix
        self.version = version

    def load(self, repo: Path) -> dict[str, Any]:
        """Read the file (``{}`` when it does not exist); see :func:`hookfile.load`."""
        return hookfile.load(repo / self.path, self.fix)

    def installed(self, data: dict[str, Any]) -> dict[str, Any]:
        """The data with exactly one entry of ours per event (older ones replaced in place).

        Events keep their order (ours not yet there go last); events lorebook no longer
        installs lose our entries; every other key is kept.
        """
        hooks: dict[str, Any] = {}
        for event, entries in data.get("hooks", {}).items():
            kept = self._with_ours(entries, event) if event in self.events else self._strip(entries)
            if kept is not None:
                hooks[event] = kept
        for event in self.events:
            hooks.setdefault(event, [self.entry(event)])
        base = data if data else {"version": self.version}
        return {**base, "hooks": hooks}

    def _strip(self, entries: list[Any]) -> list[Any] | None:
        """The entries without ours (None when only ours were there), or the same list."""
        kept = [entry for entry in entries if not self.is_ours(entry)]
        if len(kept) == len(entries):
            return entries
        return kept or None

    def _with_ours(self, entries: list[Any], event: str) -> list[Any]:
        ours = self.entry(event)
        result: list[Any] = []
        for entry in entries:
            if not self.is_ours(entry):
                result.append(entry)
            elif ours not in result:
                result.append(ours)  # where the first older entry of ours stood
        return result if ours in result else [*result, ours]

    def uninstalled(self, data: dict[str, Any]) -> dict[str, Any]:
        """The data without our entries; events and ``hooks`` only we filled are dropped."""
        if "hooks" not in data:
            return data
        hooks: dict[str, Any] = {}
        for event, entries in data["hooks"].items():
            kept = self._strip(entries)
            if kept is not None:
                hooks[event] = kept
        if hooks == data["hooks"]:
            return data
        rest = {k: v for k, v in data.items() if k != "hooks"}
        return {**data, "hooks": hooks} if hooks else rest

    def install(self, repo: Path) -> bool:
        """Merge our entries into the file; True when it was written.

        Raises:
            LorebookError: the file exists but is not a hooks file (nothing is written).
        """
        data = self.load(repo)
        wanted = self.installed(data)
        if (repo / self.path).exists() and wanted != data:
            hookfile.keep_original(repo, self.path, data)
        return hookfile.write_changed(repo / self.path, data, wanted)

    def uninstall(self, repo: Path) -> tuple[bool, bool]:
        """Remove exactly our entries: (whether the file changed, whether it was deleted).

        Raises:
            LorebookError: the file is not a hooks file (nothing is written).
        """
        data = self.load(repo)
        remaining = self.uninstalled(data)
        keep = bool(set(remaining) - {"version"})  # a file left with its version alone goes
        if hookfile.give_back_original(repo, self.path, data, remaining, keep=keep):
            return True, False
        return hookfile.write_or_remove(repo / self.path, data, remaining, keep=keep)

    def states(self, data: dict[str, Any]) -> Iterator[tuple[str, CheckState]]:
        """(event, ``ok`` | ``changed`` | ``missing``) of each event lorebook installs."""
        hooks = data.get("hooks", {})
        for event in self.events:
            ours = [e for e in hooks.get(event, []) if self.is_ours(e)]
            if ours == [self.entry(event)]:
                yield event, "ok"
            else:
                yield event, "changed" if ours else "missing"

    def our_entries(self, repo: Path) -> dict[str, dict[str, Any]]:
        """The installed entry of ours for each event (empty when not installed)."""
        found: dict[str, dict[str, Any]] = {}
        for event, entries in self.load(repo).get("hooks", {}).items():
            ours = [e for e in entries if self.is_ours(e)]
            if ours and event in self.events:
                found[event] = ours[0]
        return found

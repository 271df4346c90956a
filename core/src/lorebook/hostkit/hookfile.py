r"""lorebook's entries in a host's JSON hooks file of matcher groups.

Several hosts read ``{"hooks": {"<Event>":
[{"matcher": "*", "hooks": [{"type": "command", "command": "...", "timeout": 10}]}]}}``.
lorebook adds one matcher group per event it listens to, holding one command. Our entries
are recognised by their command (an ``is_ours(command)`` predicate, so an older lorebook's
entry is recognised too); everything else in the file is the user's and is kept as it is,
in its order. Install is idempotent, uninstall is exact: the user's file comes back byte for
byte (one written in another format than 2-space indent is kept, as it was, in the clone's
``.lorebook/.state/originals/`` until uninstall gives it back).

The pure functions take the predicate and the wanted groups; :class:`HookFile` binds them
to one host's file, events and command, with the install, uninstall and check steps a
harness needs.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lorebook.errors import LorebookError

if TYPE_CHECKING:
    from lorebook.harness import CheckState

IsOurs = Callable[[str], bool]
"""Whether a hook command is one lorebook installed (any version)."""

HookSpec = tuple[str, str | None, int]
"""(host event, matcher or None, timeout in seconds) of one hook lorebook installs."""

MAX_HOOKS_FILE_BYTES = 4 * 1024 * 1024
"""A host settings file larger than this is refused unread."""

Position = tuple[int, int, dict[str, Any], dict[str, Any]]
"""(group index, handler index, group, entry) of one of our entries in an event's list."""


def hook_group(command: str, matcher: str | None, timeout: int) -> dict[str, Any]:
    """The matcher group lorebook installs for one event: one command entry.

    Args:
        command: The shell command the host runs.
        matcher: The group's ``matcher`` (tool events), or None for no ``matcher`` key.
        timeout: The entry's timeout in seconds.

    Returns:
        ``{"matcher"?, "hooks": [{"type": "command", "command", "timeout"}]}``.
    """
    group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
    group["hooks"] = [{"type": "command", "command": command, "timeout": timeout}]
    return group


def is_our_entry(entry: Any, is_ours: IsOurs) -> bool:
    """Whether a hook entry is a dict whose ``command`` string ``is_ours`` recognises."""
    if not isinstance(entry, dict):
        return False
    command = entry.get("command")
    return isinstance(command, str) and is_ours(command)


def our_positions(groups: Any, is_ours: IsOurs) -> list[Position]:
    """(group index, handler index, group, entry) of each of our entries in an event's list.

    Anything that is not a list of groups holding lists of entries is skipped, not raised.
    """
    found: list[Position] = []
    for group_index, group in enumerate(groups if isinstance(groups, list) else ()):
        entries = group.get("hooks") if isinstance(group, dict) else None
        for handler_index, entry in enumerate(entries if isinstance(entries, list) else ()):
            if is_our_entry(entry, is_ours):
                found.append((group_index, handler_index, group, entry))
    return found


def our_commands(groups: Any, is_ours: IsOurs) -> list[str]:
    """The commands of lorebook's entries among an event's matcher groups."""
    return [entry["command"] for _, _, _, entry in our_positions(groups, is_ours)]


def _strip_group(group: Any, is_ours: IsOurs) -> tuple[Any, bool]:
    """The group without our entries (None if nothing else was in it), and if any went."""
    entries = group.get("hooks") if isinstance(group, dict) else None
    if not isinstance(entries, list):
        return group, False
    kept = [entry for entry in entries if not is_our_entry(entry, is_ours)]
    if len(kept) == len(entries):
        return group, False
    if not kept:
        return None, True
    return {**group, "hooks": kept}, True


def without_ours(groups: list[Any], is_ours: IsOurs) -> tuple[list[Any], bool]:
    """An event's groups without our entries (emptied groups dropped), and if any went."""
    kept: list[Any] = []
    removed = False
    for group in groups:
        stripped, changed = _strip_group(group, is_ours)
        removed = removed or changed
        if stripped is not None:
            kept.append(stripped)
    return kept, removed


def with_ours(groups: list[Any], ours: dict[str, Any], is_ours: IsOurs) -> list[Any]:
    """An event's groups with exactly one group of ours.

    Our group takes the place of the first group that held only our entries (so an older
    lorebook entry is replaced where it stood, and keeps its position, which some hosts put
    in a hook's trust key), or goes last; our entries mixed into a user's group are taken
    out of it.
    """
    result: list[Any] = []
    placed = False
    for group in groups:
        stripped, changed = _strip_group(group, is_ours)
        if not changed:
            result.append(group)
        elif stripped is not None:
            result.append(stripped)
        elif not placed:
            result.append(ours)
            placed = True
    if not placed:
        result.append(ours)
    return result


def installed(
    data: dict[str, Any], wanted: Mapping[str, dict[str, Any]], is_ours: IsOurs
) -> dict[str, Any]:
    """The file's data with our groups in place (and stale entries of ours removed).

    Args:
        data: The file as loaded (see :func:`load`).
        wanted: Our matcher group for each event we listen to, in install order.
        is_ours: Recognises our commands, including older versions of them.

    Returns:
        New data; ``data`` is not changed. Events not in ``wanted`` lose our entries (and
        go when nothing else was in them); every other key is kept, in its order.
    """
    hooks: dict[str, Any] = dict(data.get("hooks", {}))
    for event in [name for name in hooks if name not in wanted]:
        kept, removed = without_ours(hooks[event], is_ours)
        if removed and not kept:
            del hooks[event]
        elif removed:
            hooks[event] = kept
    for event, group in wanted.items():
        hooks[event] = with_ours(hooks.get(event, []), group, is_ours)
    return {**data, "hooks": hooks}


def uninstalled(data: dict[str, Any], is_ours: IsOurs) -> dict[str, Any]:
    """The file's data without our entries; keys emptied by that removal are dropped.

    Returns ``data`` itself when none of our entries is in it.
    """
    if "hooks" not in data:
        return data
    hooks: dict[str, Any] = {}
    removed_any = False
    for event, groups in data["hooks"].items():
        kept, removed = without_ours(groups, is_ours)
        removed_any = removed_any or removed
        if kept or not removed:
            hooks[event] = kept if removed else groups
    if not removed_any:
        return data
    rest = {key: value for key, value in data.items() if key != "hooks"}
    return {**data, "hooks": hooks} if hooks else rest


def events_of(data: dict[str, Any], events: Iterable[str]) -> Iterator[tuple[str, list[Any]]]:
    """Each of ``events``, with the groups the file's data holds for it (``[]`` if none)."""
    hooks = data.get("hooks", {})
    for event in events:
        yield event, hooks.get(event, [])


def load(path: Path, fix: str) -> dict[str, Any]:
    """Read a hooks file: ``{}`` when it does not exist.

    The file is committed (a repository hands it to us), so it is read through
    :func:`lorebook.datafile.read_json`: over :data:`MAX_HOOKS_FILE_BYTES` or nested too
    deep is refused as invalid JSON is.

    Args:
        path: The file.
        fix: What to run once the file is repaired (ends the hint of an invalid-JSON error).

    Raises:
        LorebookError: the file is not valid JSON, is not a JSON object, or its ``hooks``
            (or one event under it) has a shape the host would not accept.
    """
    from lorebook.datafile import DataFileError, read_json

    try:
        data = read_json(path, max_bytes=MAX_HOOKS_FILE_BYTES)
    except FileNotFoundError:
        return {}
    except DataFileError as exc:
        raise LorebookError(exc.message, hint="fix or remove it, then " + fix) from None
    if not isinstance(data, dict):
        raise LorebookError(f"{path} must hold a JSON object, not {type(data).__name__}")
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise LorebookError(f"{path}: 'hooks' must be an object, not {type(hooks).__name__}")
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise LorebookError(
                f"{path}: 'hooks.{event}' must be a list, not {type(groups).__name__}"
            )
    return data


def dump(data: dict[str, Any]) -> bytes:
    """The file as the hosts write theirs: 2-space indent, trailing newline, UTF-8."""
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


class HookFile:
    """One host's hooks file, with lorebook's events, command and recogniser bound.

    Args:
        path: The file, relative to the repository (``.myhost/hooks.json``).
        hooks: (event, matcher, timeout) of every hook lorebook installs, in order.
        command: The exact command lorebook installs for one event.
        is_ours: Recognises lorebook's commands (any version).
        fix: What a person runs to repair the file (``lorebook init --harnesses x``).
    """

    def __init__(
        self,
        path: str,
        hooks: tuple[HookSpec, ...],
        command: Callable[[str], str],
        is_ours: IsOurs,
        fix: str,
    ) -> None:
        """Bind the host's file, hooks, command, recogniser and fix."""
        self.path = path
        self.hooks = hooks
        self.command = command
        self.is_ours = is_ours
        self.fix = fix

    @property
    def events(self) -> tuple[str, ...]:
        """The host events lorebook installs a hook for, in order."""
        return tuple(event for event, _, _ in self.hooks)

    def group(self, event: str, matcher: str | None, timeout: int) -> dict[str, Any]:
        """The matcher group lorebook installs for one event."""
        return hook_group(self.command(event), matcher, timeout)

    def load(self, path: Path) -> dict[str, Any]:
        """Read the file at ``path`` (see :func:`load`); ``{}`` when it does not exist.

        Raises:
            LorebookError: the file's content is not a hooks file.
        """
        return load(path, self.fix)

    def installed(self, data: dict[str, Any]) -> dict[str, Any]:
        """The data with lorebook's hooks in place (see :func:`installed`)."""
        wanted = {
            event: self.group(event, matcher, timeout) for event, matcher, timeout in self.hooks
        }
        return installed(data, wanted, self.is_ours)

    def uninstalled(self, data: dict[str, Any]) -> dict[str, Any]:
        """The data without lorebook's entries (see :func:`uninstalled`)."""
        return uninstalled(data, self.is_ours)

    def events_of(self, data: dict[str, Any]) -> Iterator[tuple[str, list[Any]]]:
        """Each event lorebook installs, with the groups the data holds for it."""
        return events_of(data, self.events)

    def our_positions(self, groups: Any) -> list[Position]:
        """(group index, handler index, group, entry) of each of our entries in ``groups``."""
        return our_positions(groups, self.is_ours)

    def our_commands(self, groups: Any) -> list[str]:
        """The commands of lorebook's entries among an event's matcher groups."""
        return our_commands(groups, self.is_ours)

    def install(self, repo: Path) -> bool:
        """Merge lorebook's hooks into the repository's file.

        Keeps every hook, matcher group and key the user has, in their order; a second run
        changes no byte; an older lorebook entry is replaced where it stood, never
        duplicated. The file is rewritten (2-space indent) only when its content changes.

        Returns:
            True when the file was written, False when it already held exactly this.

        Raises:
            LorebookError: the file exists but is not a hooks file (nothing is written).
        """
        path = repo / self.path
        data = self.load(path)
        wanted = self.installed(data)
        if path.exists() and wanted != data:
            keep_original(repo, self.path, data)
        return write_changed(path, data, wanted)

    def uninstall(self, repo: Path) -> tuple[bool, bool]:
        """Remove exactly lorebook's entries from the repository's file.

        Matcher groups, events and the ``hooks`` key that only our entries filled go with
        them. A file left holding ``{}`` is deleted, and its folder too if it is then empty.

        Returns:
            (whether the file changed, whether it was deleted).

        Raises:
            LorebookError: the file is not a hooks file (nothing is written).
        """
        path = repo / self.path
        data = self.load(path)
        remaining = self.uninstalled(data)
        if give_back_original(repo, self.path, data, remaining, keep=bool(remaining)):
            return True, False
        return write_or_remove(path, data, remaining, keep=bool(remaining))

    def states(self, data: dict[str, Any]) -> Iterator[tuple[str, CheckState, list[Any]]]:
        """(event, state, groups) of each event lorebook installs, for ``check``.

        The state is ``ok`` when the event's groups are exactly as :meth:`installed` would
        leave them, ``changed`` when they hold an entry of ours that differs, and
        ``missing`` when they hold none.
        """
        wanted = dict(self.events_of(self.installed(data)))
        for event, groups in self.events_of(data):
            if groups == wanted[event]:
                yield event, "ok", groups
            elif self.our_commands(groups):
                yield event, "changed", groups
            else:
                yield event, "missing", groups

    def hook_commands(self, repo: Path) -> dict[str, str]:
        """The installed lorebook command for each event (empty when not installed).

        Raises:
            LorebookError: the file is not a hooks file.
        """
        commands: dict[str, str] = {}
        for event, groups in self.events_of(self.load(repo / self.path)):
            found = self.our_commands(groups)
            if found:
                commands[event] = found[0]
        return commands


def _original(repo: Path, rel: str) -> Path:
    """Where install keeps a file as the user wrote it (``.lorebook/.state/``, per clone)."""
    from lorebook.constants import KB_DIRNAME

    return repo / KB_DIRNAME / ".state" / "originals" / rel


def keep_original(repo: Path, rel: str, data: dict[str, Any]) -> None:
    """Before install writes over it, keep the user's file when its format is not ours.

    ``data`` is what the file at ``rel`` holds. :func:`give_back_original` gives the bytes
    back at uninstall, so a file written with another indent or with one-line arrays comes
    back byte for byte.
    """
    from lorebook.kb.fsutil import atomic_write_bytes

    raw = (repo / rel).read_bytes()
    kept = _original(repo, rel)
    if raw != dump(data) and not kept.exists():
        kept.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(kept, raw)


def give_back_original(
    repo: Path, rel: str, data: dict[str, Any], remaining: dict[str, Any], *, keep: bool
) -> bool:
    """At uninstall, write the user's kept bytes when ``remaining`` is what they held.

    Returns whether it did (the kept copy is dropped either way: used, or out of date
    because the user changed the file since).
    """
    from lorebook.kb.fsutil import atomic_write_bytes

    kept = _original(repo, rel)
    if not kept.is_file():
        return False
    raw = kept.read_bytes()
    kept.unlink()
    try:
        same = keep and remaining != data and json.loads(raw) == remaining
    except ValueError:
        return False
    if same:
        atomic_write_bytes(repo / rel, raw)
    return bool(same)


def write_changed(path: Path, data: dict[str, Any], wanted: dict[str, Any]) -> bool:
    """Write ``wanted`` over a file that held ``data``, unless it already holds exactly that.

    Returns whether the file was written.
    """
    if path.exists() and wanted == data:
        return False
    _write(path, wanted)
    return True


def write_or_remove(
    path: Path, data: dict[str, Any], remaining: dict[str, Any], *, keep: bool
) -> tuple[bool, bool]:
    """Write what is left of ``data`` without lorebook's entries, or delete the file.

    ``remaining`` is written when ``keep``; otherwise the file goes, and its folder too if
    it is then empty. Returns (whether the file changed, whether it was deleted).
    """
    if remaining == data:
        return False, False
    if keep:
        _write(path, remaining)
        return True, False
    path.unlink()
    with contextlib.suppress(OSError):
        path.parent.rmdir()  # only succeeds when the folder is now empty
    return True, True


def _write(path: Path, data: dict[str, Any]) -> None:
    from lorebook.kb.fsutil import atomic_write_bytes

    atomic_write_bytes(path, dump(data))

"""Record every hook call a plugin manager makes (pluggy's hook-call monitoring)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from lorebook.plugins import Plugins


@dataclass(frozen=True, slots=True)
class HookCall:
    """One hook call: the hook's name, its keyword arguments, and what it returned."""

    name: str
    kwargs: Mapping[str, Any]
    result: Any = None
    error: BaseException | None = None


class HookRecorder:
    """Records the hook calls made through ``pm.hook`` until :meth:`close`.

    Pipeline hooks (``capture``, ``extract``, ``curate``, ``recall``, ``inject``) go through
    ``pm.hook`` and are recorded. Provider hooks are called one implementation at a time by
    the facade (so a raising plugin fails alone) and are not.

    Example:
        >>> recorder = HookRecorder(plugins.pm)
        >>> plugins.hook.recall(query=RecallQuery(text="uv"))
        >>> recorder.names()
        ['recall']
    """

    def __init__(self, pm: pluggy.PluginManager, plugins: Plugins | None = None) -> None:
        self.pm = pm
        self.plugins = plugins
        """The facade that owns ``pm``, when the recorder was built for one."""
        self.calls: list[HookCall] = []
        self._pending: list[tuple[str, Mapping[str, Any]]] = []
        self._undo: Callable[[], None] = pm.add_hookcall_monitoring(self._before, self._after)

    def _before(
        self, hook_name: str, impls: Sequence[pluggy.HookImpl], kwargs: Mapping[str, Any]
    ) -> None:
        self._pending.append((hook_name, dict(kwargs)))

    def _after(
        self,
        outcome: pluggy.Result[Any],
        hook_name: str,
        impls: Sequence[pluggy.HookImpl],
        kwargs: Mapping[str, Any],
    ) -> None:
        name, args = self._pending.pop()
        error = outcome.exception
        result = None if error is not None else outcome.get_result()
        self.calls.append(HookCall(name, args, result, error))

    def names(self) -> list[str]:
        """Return the names of the recorded calls, in order."""
        return [call.name for call in self.calls]

    def of(self, name: str) -> list[HookCall]:
        """Return the recorded calls of one hook."""
        return [call for call in self.calls if call.name == name]

    def close(self) -> None:
        """Stop recording."""
        self._undo()

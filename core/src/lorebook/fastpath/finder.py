"""Imports for the hook process, without importlib's Python-level search.

A prompt imports about forty lorebook modules. For each, the standard path finder and
source loader work in Python (the folder's suffixes, the source's stat, the compiled file's
path, its header) before the module's code runs: about 2 ms of every hook process, a tenth
of what the do-nothing hook costs. The launcher
(:mod:`lorebook.fastpath.launcher`) installs :class:`HookFinder` for lorebook's packages and the
wired harnesses' instead; it reads the same compiled file the standard loader would and
trusts it under the same rule (its header names the source's modification time and size).

Whatever it cannot serve exactly as the standard machinery would, it leaves to that
machinery: a module with no compiled file or a stale one (an edited source: the standard
loader then recompiles it), a hash-based compiled file, an extension module, a namespace
package, or an interpreter with ``-O`` or a ``pycache_prefix``.

Runs on the hook path: standard library only.
"""

from __future__ import annotations

import marshal
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import CodeType, ModuleType
    from typing import Any

_external = sys.modules.get("_frozen_importlib_external")
"""importlib's path machinery, loaded at start-up (its magic number, its suffixes)."""


class _Compiled:
    """The loader of one module whose code object was read from its compiled file."""

    def __init__(self, code: CodeType) -> None:
        self.code = code

    def create_module(self, spec: ModuleSpec) -> None:
        """The default module object."""
        return None

    def exec_module(self, module: ModuleType) -> None:
        """Run the module's code in it."""
        exec(self.code, module.__dict__)


_ABSENT = "absent"
"""The folder holds no such module: the next folder is searched."""


class HookFinder:
    """A meta path finder for the top-level packages ``packages`` (name -> its folders)."""

    def __init__(self, packages: dict[str, list[str]]) -> None:
        self.packages = packages
        self.listings: dict[str, set[str]] = {}
        assert _external is not None
        self.magic: bytes = _external.MAGIC_NUMBER
        self.extensions: tuple[str, ...] = tuple(_external.EXTENSION_SUFFIXES)
        self.tag = sys.implementation.cache_tag

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        """The spec of ``name``, one of the packages' modules with a current compiled file.

        None otherwise: the standard finders then take it.
        """
        top, dot, _ = name.partition(".")
        if top not in self.packages:
            return None
        folders = path if dot else self.packages[top]
        last = name.rpartition(".")[2]
        for folder in folders or ():
            found = self._in_folder(name, folder, last)
            if not isinstance(found, str):  # a spec, or None: the standard finders'
                return found
        return None

    def _listing(self, folder: str) -> set[str]:
        listing = self.listings.get(folder)
        if listing is None:
            try:
                listing = self.listings[folder] = set(os.listdir(folder))
            except OSError:
                listing = self.listings[folder] = set()
        return listing

    def _in_folder(self, name: str, folder: str, last: str) -> ModuleSpec | str | None:
        listing = self._listing(folder)
        if any(last + suffix in listing for suffix in self.extensions):
            return None  # an extension module comes first: the standard finder's
        if last in listing and "__init__.py" in self._listing(os.path.join(folder, last)):
            package: str | None = os.path.join(folder, last)
            source = os.path.join(folder, last, "__init__.py")
        elif last + ".py" in listing:
            package, source = None, os.path.join(folder, last + ".py")
        elif last in listing:
            return None  # a namespace package, or a folder of sources only
        else:
            return _ABSENT
        head, tail = os.path.split(source)
        cached = os.path.join(head, "__pycache__", f"{tail[:-3]}.{self.tag}.pyc")
        code = self._current_code(source, cached)
        if code is None:
            return None
        spec = _bootstrap_spec(name, _Compiled(code), source, package)
        spec.cached = cached
        return spec

    def _current_code(self, source: str, cached: str) -> CodeType | None:
        """The code in ``cached`` when its header names ``source`` as it is now, else None."""
        try:
            stat = os.stat(source)
            with open(cached, "rb") as handle:
                data = handle.read()
        except OSError:
            return None
        if (
            len(data) < 16
            or data[:4] != self.magic
            or data[4:8] != b"\0\0\0\0"  # flags: a timestamp-checked file (not hash-based)
            or int.from_bytes(data[8:12], "little") != int(stat.st_mtime) & 0xFFFFFFFF
            or int.from_bytes(data[12:16], "little") != stat.st_size & 0xFFFFFFFF
        ):
            return None
        try:
            code = marshal.loads(memoryview(data)[16:])
        except (EOFError, ValueError, TypeError):
            return None
        return code if type(code).__name__ == "code" else None


def _bootstrap_spec(name: str, loader: _Compiled, origin: str, package: str | None) -> ModuleSpec:
    """A module spec as the standard finder makes it (``__file__``, ``__path__``)."""
    spec_type: Any = type(sys.__spec__)  # importlib's ModuleSpec, without importing importlib
    spec: ModuleSpec = spec_type(name, loader, origin=origin, is_package=package is not None)
    if package is not None:
        spec.submodule_search_locations = [package]
    spec.has_location = True
    return spec


def install(packages: dict[str, list[str]]) -> None:
    """Put a :class:`HookFinder` for ``packages`` first on ``sys.meta_path``.

    Does nothing where it could not load exactly what the standard machinery would: an
    interpreter other than CPython's, with ``-O``, or with a ``pycache_prefix``.
    """
    if _external is None or sys.flags.optimize or sys.pycache_prefix is not None:
        return
    if sys.implementation.cache_tag is None or type(sys.__spec__).__name__ != "ModuleSpec":
        return
    sys.meta_path.insert(0, HookFinder(packages))

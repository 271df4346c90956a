"""The lorebook test kit for plugin authors (opt-in).

Enable its fixtures in a ``conftest.py``::

    pytest_plugins = ["lorebook.testing"]

Fixtures: ``lorebook_home`` (an isolated home and data folder), ``hook_recorder`` (records
every hook call of a plugin manager), ``memory_store`` (an in-memory note store),
``kb_repo`` (a fresh git repository with ``lorebook init`` done).

Contract suites: subclass :class:`StoreContract` (provide a ``store`` fixture) or
:class:`HarnessContract` (set ``harness_name``, provide ``recorded_payloads``); every store
and harness plugin, ours or a third party's, passes the same tests. :class:`FakeHost`
replays recorded payloads through the installed hook commands exactly as the host runs them.
"""

from __future__ import annotations

from lorebook.testing.fakehost import FakeHost, HookRun
from lorebook.testing.fixtures import hook_recorder, kb_repo, lorebook_home, memory_store
from lorebook.testing.harness_contract import HarnessContract
from lorebook.testing.memory_store import MemoryStore
from lorebook.testing.recorder import HookCall, HookRecorder
from lorebook.testing.store_contract import StoreContract, make_note

__all__ = [
    "FakeHost",
    "HarnessContract",
    "HookCall",
    "HookRecorder",
    "HookRun",
    "MemoryStore",
    "StoreContract",
    "hook_recorder",
    "kb_repo",
    "lorebook_home",
    "make_note",
    "memory_store",
]

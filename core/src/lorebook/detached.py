"""Commands a hook starts and does not wait for: capture, the lint nudge, a store's refresh.

Each runs in its own session with its standard streams on ``/dev/null``, so it outlives
the hook that started it. The :class:`subprocess.Popen` objects are kept and polled: one
that is garbage-collected before its exit status was read warns (``ResourceWarning``) even
when the child has long finished, and a child never waited for stays a zombie until this
process exits. Finished children are collected whenever another starts and when this
process exits; one still running then goes on, adopted by the system.

Standard library only; :mod:`subprocess` is imported when a command is first started.
"""

from __future__ import annotations

import atexit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from subprocess import Popen

_RUNNING: list[Popen[bytes]] = []


def _collect() -> None:
    """Read the exit status of every finished child; keep those still running."""
    _RUNNING[:] = [child for child in _RUNNING if child.poll() is None]


atexit.register(_collect)


def start(argv: list[str], cwd: str) -> None:
    """Start ``argv`` in ``cwd``, detached, and return at once.

    Raises:
        OSError: The command could not be started.
    """
    import subprocess

    _collect()
    _RUNNING.append(
        subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            cwd=cwd,
        )
    )

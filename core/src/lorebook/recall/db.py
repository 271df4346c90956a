"""SQLite for the hook path: the C module, without ``sqlite3``'s Python layer.

``import sqlite3`` also imports :mod:`datetime` to register its date adapters (deprecated
since Python 3.12), about 2 ms of every hook process; lorebook keeps no dates in SQLite.
The modules a hook imports take ``sqlite3`` from here: CPython's ``_sqlite3``, whose
classes are the very objects ``sqlite3`` re-exports (``sqlite3.Error is _sqlite3.Error``),
so a connection made here and one made by ``import sqlite3`` elsewhere behave and fail
alike. An interpreter without that module gets ``sqlite3`` itself.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3 as sqlite3
else:
    try:
        import _sqlite3 as sqlite3
    except ImportError:  # not CPython
        import sqlite3

__all__ = ["sqlite3"]

"""``python -m lorebook_postgres.refresh``: refresh an organisation's cache, detached.

The session-start hook starts it (the command the store puts in ``stores.json``) and does
not wait: the session is served the cache as it is, and the next prompt the refreshed one.
A database that is down or slow leaves the cache as it was, records the failure (for
``lorebook-postgres status``) and logs one line to the repository's
``.lorebook/_logs/hook-errors.log``. It never prompts and prints nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

STATEMENT_TIMEOUT_MS = 60_000


def main(argv: list[str] | None = None) -> int:
    """Refresh the cache of ``--org`` in ``--cache``; log a failure under ``--kb-root``."""
    parser = argparse.ArgumentParser(prog="python -m lorebook_postgres.refresh")
    parser.add_argument("--org", required=True)
    parser.add_argument("--cache", required=True, type=Path)
    parser.add_argument("--kb-root", default=None)
    args = parser.parse_args(argv)
    from lorebook.errors import LorebookError
    from lorebook_postgres.cache import RefreshBusyError, refresh, save_status
    from lorebook_postgres.store import PostgresStore

    store = PostgresStore(args.org, cache=args.cache, statement_timeout_ms=STATEMENT_TIMEOUT_MS)
    try:
        done = refresh(store)
    except RefreshBusyError:
        return 0
    except (LorebookError, OSError, ValueError) as exc:
        _failed(store, args.kb_root, _one_line(exc))
        return 1
    except Exception as exc:  # psycopg's errors: the server went away mid-refresh
        _failed(store, args.kb_root, f"{type(exc).__name__}: {_one_line(exc)}")
        return 1
    finally:
        store.close()
    save_status(store.paths, ok=True, notes=done.notes, seconds=round(done.seconds, 3))
    return 0


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300]


def _failed(store: object, kb_root: str | None, message: str) -> None:
    from lorebook_postgres.cache import last_status, save_status

    paths = store.paths  # type: ignore[attr-defined]
    save_status(paths, ok=False, error=message)
    if kb_root:
        from lorebook.hook import log_failure

        since = last_status(paths).get("last_ok", "never")
        log_failure(
            kb_root,
            "postgres",
            "refresh",
            f"organisation store unreachable, serving its cache (last refreshed {since}): "
            f"{message}",
        )


if __name__ == "__main__":
    sys.exit(main())

"""The ``postgres`` store: an organisation's notes in PostgreSQL, proposals until approved.

Every write is one transaction. ``add`` inserts a proposal (a unique id per organisation:
a second writer of the same id is refused, nothing is overwritten); ``update`` replaces
the proposed text and, when this store read or wrote the note before, only if no one
changed it since (:class:`UpdateConflictError` otherwise); ``approve`` records who (the
database role) and when. Only approved text is served, through the local cache
(:mod:`lorebook_postgres.cache`): the hooks never wait on the network.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import sys
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from lorebook.errors import LorebookError
from lorebook.kb.notes import parse_note, render_note
from lorebook.kb.paths import validate_relpath
from lorebook.kb.personal import PersonalPaths
from lorebook.models.note import Note
from lorebook.store import NoteExistsError, NoteNotFoundError, StoreHealth
from lorebook_postgres import schema, settings

if TYPE_CHECKING:
    from psycopg import Connection
    from psycopg_pool import ConnectionPool

NAME = "postgres"
CONNECT_TIMEOUT_S = 5
HEALTH_TIMEOUT_S = 3
POOL_SIZE = 8
COLUMNS = "folder, content, title, description, tags, body, kind, status"


class UnreachableError(LorebookError):
    """The database cannot be reached (down, refusing, or too slow)."""


class NotAllowedError(LorebookError):
    """The database role this store connects as has no right to do this."""


class UpdateConflictError(LorebookError):
    """Someone changed the note since this writer read it: nothing was overwritten."""


@dataclass(frozen=True, slots=True)
class Proposal:
    """A note whose current text awaits a person's approval."""

    id: str
    version: int
    title: str
    proposed_by: str
    proposed_at: datetime
    replaces_approved: bool


@dataclass(frozen=True, slots=True)
class SearchHit:
    """An approved note PostgreSQL's full-text search ranked (``ts_rank_cd``)."""

    id: str
    title: str
    rank: float


def _row_values(note: Note, folder: str) -> tuple[Any, ...]:
    """The column values of ``COLUMNS`` for ``note`` in ``folder``."""
    return (
        folder,
        render_note(note, None),
        note.title,
        note.description,
        " ".join(note.tags),
        note.body,
        note.kind,
        note.status,
    )


class PostgresStore:
    """An organisation's notes in one PostgreSQL database (see the module docstring).

    ``paths`` is the local read-only cache of the approved notes: what the hooks rank.
    The connection opens on first use, never when the store is built.
    """

    def __init__(
        self,
        org: str | None,
        *,
        dsn: str | None = None,
        cache: Path | None = None,
        statement_timeout_ms: int | None = None,
    ) -> None:
        self.name = NAME
        self.org = org
        self._dsn = dsn
        self._statement_timeout_ms = statement_timeout_ms
        self.role = ""
        """The database role the store connects as (known once connected)."""
        self.paths = PersonalPaths(cache or settings.cache_root(org))
        self._pool: ConnectionPool[Connection[Any]] | None = None
        self._lock = threading.Lock()
        self._versions: dict[str, int] = {}

    # --- connection --------------------------------------------------------------------

    def _scope(self) -> str:
        if not self.org:
            raise settings.SettingsError(
                "the postgres store has no organisation",
                hint="set `organisation: <name>` in .lorebook/config.yaml",
            )
        return self.org

    def pool(self) -> ConnectionPool[Connection[Any]]:
        """The connection pool, opened (and the table created) on first use.

        Raises:
            UnreachableError: no connection within the connect timeout.
        """
        with self._lock:
            if self._pool is None:
                self._pool = self._open_pool()
            return self._pool

    def _open_pool(self) -> ConnectionPool[Connection[Any]]:
        import psycopg
        from psycopg_pool import ConnectionPool

        logging.getLogger("psycopg.pool").addHandler(logging.NullHandler())
        logging.getLogger("psycopg.pool").propagate = False  # failures are raised, not logged
        dsn = self._dsn or settings.connection_string()
        kwargs: dict[str, Any] = {"connect_timeout": CONNECT_TIMEOUT_S}
        if self._statement_timeout_ms:
            kwargs["options"] = f"-c statement_timeout={int(self._statement_timeout_ms)}"
        try:  # one connection first: a server that is down fails now, with its reason
            with psycopg.connect(dsn, **kwargs) as conn:
                ensure_schema(conn)
                self.role = conn.info.user
        except psycopg.OperationalError as exc:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise UnreachableError(
                f"the postgres store cannot reach its database: {reason}",
                hint=f"check {settings.ENV_DSN} (or the user config's dsn) and the server",
            ) from None
        pool: ConnectionPool[Connection[Any]] = ConnectionPool(
            dsn,
            min_size=1,
            max_size=POOL_SIZE,
            kwargs=kwargs,
            timeout=CONNECT_TIMEOUT_S * 2,
            open=True,
            name="lorebook-postgres",
        )
        atexit.register(pool.close)
        return pool

    def refresh_argv(self, kb_root: str) -> list[str] | None:
        """The command that refreshes the cache, which session start runs detached.

        Core keeps it in the repository's ``.cache/stores.json`` (per machine, never
        committed); it names this interpreter, the organisation and the cache folder, and
        never the connection (read from the environment or the user config when it runs).
        """
        if not self.org:
            return None
        return [
            sys.executable, "-m", "lorebook_postgres.refresh", "--org", self.org,
            "--cache", str(self.paths.root), "--kb-root", kb_root,
        ]  # fmt: skip

    def health(self) -> StoreHealth:
        """Whether the database answers, for ``lorebook doctor`` (never on the hook path).

        One direct connection (no pool, nothing created), waiting at most
        ``HEALTH_TIMEOUT_S``. Unreachable is a warning while a cache was refreshed before
        (the hooks serve it), a problem when there is none.
        """
        from lorebook_postgres.cache import last_status

        if not self.org:
            return StoreHealth(
                "problem",
                "the postgres store has no organisation",
                "set `organisation: <name>` in .lorebook/config.yaml",
            )
        since = last_status(self.paths).get("last_ok")
        cached = f"cache {self.paths.root}, last refreshed {since or 'never'}"
        try:
            dsn = self._dsn or settings.connection_string()
        except LorebookError as exc:
            return StoreHealth("problem", f"organisation {self.org!r}: {exc.message}", exc.hint)
        import psycopg

        try:
            with psycopg.connect(dsn, connect_timeout=HEALTH_TIMEOUT_S) as conn:
                role = conn.info.user
                found = conn.execute("SELECT to_regclass(%s)", (schema.TABLE,)).fetchone()
                waiting = 0
                if found is not None and found[0] is not None:
                    row = conn.execute(
                        f"SELECT count(*) FROM {schema.TABLE} "
                        "WHERE org = %s AND review = 'proposed'",
                        (self.org,),
                    ).fetchone()
                    waiting = int(row[0]) if row else 0
        except psycopg.Error as exc:
            reason = " ".join(str(exc).split())[:200] or type(exc).__name__
            return StoreHealth(
                "warning" if since else "problem",
                f"organisation {self.org!r}: the database is unreachable ({reason}); "
                f"the hooks serve the {cached}",
                f"check {settings.ENV_DSN} (or the user config's dsn) and the server; "
                "`lorebook-postgres status` checks again",
            )
        return StoreHealth(
            "ok",
            f"organisation {self.org!r}: the database answers (as {role}), "
            f"{waiting} proposals await approval; {cached}",
        )

    def close(self) -> None:
        """Close the pool (idempotent)."""
        with self._lock:
            if self._pool is not None:
                self._pool.close()
                self._pool = None

    # --- the NoteStore contract --------------------------------------------------------

    def add(self, note: Note, *, folder: str | None = None) -> str:
        """Insert ``note`` as a proposal; return where it went (organisation, folder, id).

        Raises:
            NoteExistsError: the organisation has a note with this id (nothing written).
        """
        org = self._scope()
        rel = _target(note, folder)
        with self.pool().connection() as conn:
            row = conn.execute(
                f"INSERT INTO {schema.TABLE} (org, id, {COLUMNS}) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (org, id) DO NOTHING RETURNING version",
                (org, note.id, *_row_values(note, rel.parent.as_posix().strip("."))),
            ).fetchone()
        if row is None:
            raise NoteExistsError(f"a note with id {note.id!r} exists already in {org!r}")
        self._remember(note.id, row[0])
        return f"{org}/{rel.as_posix()} (a proposal until approved)"

    def add_many(self, notes: Iterable[Note], *, folder: str | None = None) -> list[str]:
        """Insert many proposals in one transaction (an import); return the ids refused.

        A note whose id the organisation has already is refused and reported, never
        overwritten; the others are stored.
        """
        org = self._scope()
        rows = []
        for note in notes:
            rel = _target(note, folder)
            rows.append((org, note.id, *_row_values(note, rel.parent.as_posix().strip("."))))
        stored: set[str] = set()
        with self.pool().connection() as conn, conn.transaction(), conn.cursor() as cur:
            cur.executemany(
                f"INSERT INTO {schema.TABLE} (org, id, {COLUMNS}) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (org, id) DO NOTHING RETURNING id",
                rows,
                returning=True,
            )
            while True:
                stored.update(row[0] for row in cur.fetchall())
                if not cur.nextset():
                    break
        return [row[1] for row in rows if row[1] not in stored]

    def update(self, note: Note) -> None:
        """Replace the note's text with a new proposal (its folder kept).

        Raises:
            NoteNotFoundError: no note has ``note.id``.
            UpdateConflictError: it changed since this store read or wrote it.
        """
        org = self._scope()
        _target(note, "")
        with self._lock:
            seen = self._versions.get(note.id)
        with self.pool().connection() as conn, conn.transaction():
            current = conn.execute(
                f"SELECT version, folder FROM {schema.TABLE} WHERE org = %s AND id = %s FOR UPDATE",
                (org, note.id),
            ).fetchone()
            if current is None:
                raise NoteNotFoundError(note.id)
            if seen is not None and current[0] != seen:
                raise UpdateConflictError(
                    f"note {note.id!r} in {org!r} changed since it was read (version {seen}, "
                    f"now {current[0]}): nothing was overwritten",
                    hint="read it again and apply the change to the new text",
                )
            row = conn.execute(
                f"UPDATE {schema.TABLE} SET ({COLUMNS}) = (%s, %s, %s, %s, %s, %s, %s, %s), "
                "version = version + 1, review = 'proposed', proposed_by = current_user, "
                "proposed_at = now() WHERE org = %s AND id = %s RETURNING version",
                (*_row_values(note, current[1]), org, note.id),
            ).fetchone()
        assert row is not None  # the row is locked FOR UPDATE
        self._remember(note.id, row[0])

    def get(self, note_id: str) -> Note:
        """The note's current text (approved or proposed).

        Raises:
            NoteNotFoundError: no note has this id.
        """
        org = self._scope()
        with self.pool().connection() as conn:
            row = conn.execute(
                f"SELECT content, version FROM {schema.TABLE} WHERE org = %s AND id = %s",
                (org, note_id),
            ).fetchone()
        if row is None:
            raise NoteNotFoundError(note_id)
        self._remember(note_id, row[1])
        return parse_note(row[0], source=f"postgres:{org}/{note_id}")[0]

    def remove(self, note_id: str) -> None:
        """Delete the note.

        Raises:
            NoteNotFoundError: no note has this id.
        """
        org = self._scope()
        with self.pool().connection() as conn, _allowed(self.role, "remove notes"):
            cur = conn.execute(
                f"DELETE FROM {schema.TABLE} WHERE org = %s AND id = %s", (org, note_id)
            )
            if cur.rowcount == 0:
                raise NoteNotFoundError(note_id)
        with self._lock:
            self._versions.pop(note_id, None)

    def ids(self) -> list[str]:
        """Every note id of the organisation (proposed or approved), sorted."""
        org = self._scope()
        with self.pool().connection() as conn:
            rows = conn.execute(
                f'SELECT id FROM {schema.TABLE} WHERE org = %s ORDER BY id COLLATE "C"', (org,)
            ).fetchall()
        return [r[0] for r in rows]

    def iter_notes(self) -> Iterator[Note]:
        """Every note's current text, in id order."""
        org = self._scope()
        with self.pool().connection() as conn:
            rows = conn.execute(
                f'SELECT id, content FROM {schema.TABLE} WHERE org = %s ORDER BY id COLLATE "C"',
                (org,),
            ).fetchall()
        for note_id, content in rows:
            yield parse_note(content, source=f"postgres:{org}/{note_id}")[0]

    # --- review ------------------------------------------------------------------------

    def proposals(self) -> list[Proposal]:
        """The notes awaiting approval, oldest proposal first."""
        org = self._scope()
        with self.pool().connection() as conn:
            rows = conn.execute(
                f"SELECT id, version, title, proposed_by, proposed_at, "
                f"approved_content IS NOT NULL FROM {schema.TABLE} "
                "WHERE org = %s AND review = 'proposed' ORDER BY proposed_at, id",
                (org,),
            ).fetchall()
        return [Proposal(*row) for row in rows]

    def approve(self, note_id: str, version: int | None = None) -> tuple[str, datetime]:
        """Approve the note's current text; return who (the database role) and when.

        ``version``: approve only that version (what the reviewer saw).

        Raises:
            NoteNotFoundError: no note has this id.
            UpdateConflictError: it changed since the reviewer saw it, or is approved already.
        """
        org = self._scope()
        with (
            self.pool().connection() as conn,
            _allowed(self.role, "approve"),
            conn.transaction(),
        ):
            row = conn.execute(
                f"UPDATE {schema.TABLE} SET review = 'approved', approved_content = content, "
                "approved_version = version, approved_by = current_user, approved_at = now() "
                "WHERE org = %s AND id = %s AND review = 'proposed' "
                "AND (%s::integer IS NULL OR version = %s::integer) "
                "RETURNING approved_by, approved_at",
                (org, note_id, version, version),
            ).fetchone()
            if row is None:
                raise self._refusal(conn, org, note_id, version)
        return row[0], row[1]

    def _refusal(
        self, conn: Connection[Any], org: str, note_id: str, version: int | None
    ) -> LorebookError:
        found = conn.execute(
            f"SELECT version, review FROM {schema.TABLE} WHERE org = %s AND id = %s",
            (org, note_id),
        ).fetchone()
        if found is None:
            return NoteNotFoundError(note_id)
        if found[1] == "approved":
            return UpdateConflictError(f"note {note_id!r} in {org!r} is approved already")
        return UpdateConflictError(
            f"note {note_id!r} in {org!r} changed since it was shown (version {version}, "
            f"now {found[0]}): not approved",
            hint="review the new text and approve that version",
        )

    def reject(self, note_id: str) -> None:
        """Drop a proposal: a new note is deleted, a change returns to the approved text.

        Raises:
            NoteNotFoundError: no proposal has this id.
        """
        org = self._scope()
        with (
            self.pool().connection() as conn,
            _allowed(self.role, "reject"),
            conn.transaction(),
        ):
            cur = conn.execute(
                f"DELETE FROM {schema.TABLE} WHERE org = %s AND id = %s "
                "AND review = 'proposed' AND approved_content IS NULL",
                (org, note_id),
            )
            if cur.rowcount:
                return
            done = conn.execute(
                f"UPDATE {schema.TABLE} SET content = approved_content, "
                "version = approved_version, review = 'approved' "
                "WHERE org = %s AND id = %s AND review = 'proposed'",
                (org, note_id),
            )
            if done.rowcount == 0:
                raise NoteNotFoundError(note_id)

    def search(self, query: str, limit: int = 10) -> list[SearchHit]:
        """Approved notes matching ``query``, ranked by ``ts_rank_cd`` (weights A-D)."""
        org = self._scope()
        with self.pool().connection() as conn:
            rows = conn.execute(
                f"SELECT id, title, ts_rank_cd(search, q) AS rank FROM {schema.TABLE}, "
                "websearch_to_tsquery('english', %s) AS q WHERE org = %s "
                "AND approved_content IS NOT NULL AND search @@ q "
                "ORDER BY rank DESC, id LIMIT %s",
                (query, org, limit),
            ).fetchall()
        return [SearchHit(r[0], r[1], float(r[2])) for r in rows]

    def _remember(self, note_id: str, version: int) -> None:
        with self._lock:
            self._versions[note_id] = version


@contextlib.contextmanager
def _allowed(role: str, action: str) -> Iterator[None]:
    """Turn the database's refusal of a privilege into one clear error."""
    from psycopg import errors

    try:
        yield
    except errors.InsufficientPrivilege as exc:
        raise NotAllowedError(
            f"the database role {role!r} may not {action} in the postgres store "
            f"({exc.diag.message_primary})",
            hint="an approver's role needs UPDATE on the approved_* columns and DELETE "
            "(see the lorebook-postgres README)",
        ) from None


def _target(note: Note, folder: str | None) -> PurePosixPath:
    """The note's place (default folder: its kind), every part validated.

    Raises:
        LorebookError: an unsafe folder or id, or file dependencies (there is no one tree
            to check an organisation's note against).
    """
    if note.dependencies:
        raise LorebookError(
            f"note {note.id!r}: an organisation note declares no file dependencies",
            hint="leave --depends-on-* out, or write the note to the repository store",
        )
    folder = note.kind if folder is None else folder.rstrip("/")
    validate_relpath(note.id, what="note id")
    rel = PurePosixPath(f"{note.id}.md")
    return validate_relpath(folder, what="folder") / rel if folder else rel


def ensure_schema(conn: Connection[Any]) -> None:
    """Create the table and its indexes if missing (one creator at a time).

    A writer's or approver's role need not have the right to create tables: the table is
    only created when it does not exist.
    """
    found = conn.execute("SELECT to_regclass(%s)", (schema.TABLE,)).fetchone()
    if found is not None and found[0] is not None:
        return
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (schema.SCHEMA_LOCK,))
        conn.execute(schema.CREATE)


def open_store(repo: Path | None) -> PostgresStore:
    """Build the store for a repository (the store provider's factory; no connection yet).

    Never raises for a missing setting: the session-start hook builds it too, and a
    store that cannot connect serves its last cache.
    """
    try:
        org = settings.organisation(repo)
    except LorebookError:
        org = None
    return PostgresStore(org)

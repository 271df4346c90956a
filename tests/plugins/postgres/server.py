"""A throwaway PostgreSQL server for the tests: initdb and pg_ctl in a temporary folder.

It listens on a free port on 127.0.0.1 only (and a socket in its own folder), trusts
local connections, and is stopped and deleted when the tests end. As root (initdb refuses
to run as root) the server runs as the ``postgres`` user, through ``runuser``.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

USER = "lorebook"


def find_bindir() -> Path | None:
    """The folder holding initdb and pg_ctl (the newest Debian version first), or None."""
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if os.access(os.path.join(candidate, "initdb"), os.X_OK):
            return Path(candidate)
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Server:
    """A running server: its folder, port and a superuser connection string."""

    bindir: Path
    folder: Path
    port: int

    @property
    def dsn(self) -> str:
        """Connect to the ``postgres`` database as the superuser."""
        return self.dsn_for("postgres")

    def dsn_for(self, database: str, user: str = USER) -> str:
        """Connect to ``database`` as ``user``."""
        return f"host=127.0.0.1 port={self.port} user={user} dbname={database}"

    def _run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        command = [str(self.bindir / argv[0]), *argv[1:]]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        return subprocess.run(command, capture_output=True, text=True, check=False, timeout=120)

    def start(self) -> None:
        """initdb, then pg_ctl start (waiting until it accepts connections)."""
        data = self.folder / "data"
        done = self._run("initdb", "-D", str(data), "-U", USER, "--auth=trust", "-E", "UTF8")
        if done.returncode:
            raise RuntimeError(f"initdb failed: {done.stderr.strip()}")
        options = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.folder} -c fsync=off"
        done = self._run(
            "pg_ctl", "-D", str(data), "-o", options, "-l", str(self.folder / "log"), "-w", "start"
        )
        if done.returncode:
            log = (self.folder / "log").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"pg_ctl start failed: {done.stderr.strip()} {log}")

    def stop(self) -> None:
        """pg_ctl stop (fast), if it runs."""
        self._run("pg_ctl", "-D", str(self.folder / "data"), "-m", "fast", "-w", "stop")

    def restart(self) -> None:
        """Start it again after :meth:`stop` (same folder, same port)."""
        options = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.folder} -c fsync=off"
        done = self._run(
            "pg_ctl", "-D", str(self.folder / "data"), "-o", options,
            "-l", str(self.folder / "log"), "-w", "start",
        )  # fmt: skip
        if done.returncode:
            raise RuntimeError(f"pg_ctl start failed: {done.stderr.strip()}")


def start_server(bindir: Path) -> Server:
    """Start a fresh server in a new temporary folder."""
    folder = Path(tempfile.mkdtemp(prefix="lorebook-pg-"))
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    server = Server(bindir, folder, _free_port())
    try:
        server.start()
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return server


def remove_server(server: Server) -> None:
    """Stop the server and delete its folder."""
    server.stop()
    shutil.rmtree(server.folder, ignore_errors=True)

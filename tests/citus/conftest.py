"""One Citus cluster (a coordinator and two workers on loopback) for the whole session.

Marked ``citus`` (``pytest -m "not citus"`` leaves them out) and ``integration``. They skip,
saying why, only when Citus cannot be built here (no source, no compiler or build tools).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.config import Settings
from service.http.app import create_app
from service.tools.client import PlaylogClient
from tests.citus.cluster import CitusUnavailable, Cluster, running_cluster
from tests.faults.processes import LOG_KEY


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if item.path.is_relative_to(here):
            item.add_marker(pytest.mark.citus)
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session")
def citus_cluster() -> Iterator[Cluster]:
    try:
        # Asynchronous commits on every node, as a careless operator leaves them (issue 32).
        with running_cluster(workers=2, synchronous_commit="off") as cluster:
            yield cluster
    except CitusUnavailable as exc:
        pytest.skip(f"Citus is not available here: {exc}")


@pytest.fixture(scope="session")
async def citus_url(citus_cluster: Cluster) -> str:
    """The coordinator, migrated and distributed (four shards a table: quick to create and move)."""
    from service.store import database
    from service.store.citus import distribute

    await asyncio.to_thread(database.upgrade, citus_cluster.url)
    conn = await asyncpg.connect(citus_cluster.url)
    try:
        await distribute(conn, shard_count=4)
    finally:
        await conn.close()
    return citus_cluster.url


@pytest.fixture
async def citus_pool(citus_url: str) -> AsyncIterator[asyncpg.Pool]:
    pool = await asyncpg.create_pool(citus_url, min_size=1, max_size=4)
    try:
        yield pool
    finally:
        await pool.close()


@pytest.fixture
async def citus_api(citus_url: str, tmp_path: Path) -> AsyncIterator[PlaylogClient]:
    settings = Settings(
        database_url=citus_url,
        data_dir=tmp_path,
        jwt_secret="test-secret-that-is-long-enough-for-hs256",
        log_signing_key=LOG_KEY,  # one deployment on the cluster: every test's app shares its key
        scheduler_interval=0.05,
        log_format="json",
    )
    client: AsyncTestClient[Litestar]
    async with AsyncTestClient(create_app(settings)) as client:
        yield PlaylogClient(str(client.base_url), http=client)

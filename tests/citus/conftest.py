"""One Citus cluster (a coordinator and two workers on loopback) for the whole session.

Marked ``citus`` (``pytest -m "not citus"`` leaves them out) and ``integration``. They skip,
saying why, only when Citus cannot be built here (no source, no compiler or build tools).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.citus.cluster import CitusUnavailable, Cluster, running_cluster


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
    import asyncpg

    from service import database
    from service.citus import distribute

    await asyncio.to_thread(database.upgrade, citus_cluster.url)
    conn = await asyncpg.connect(citus_cluster.url)
    try:
        await distribute(conn, shard_count=4)
    finally:
        await conn.close()
    return citus_cluster.url

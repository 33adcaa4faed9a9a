"""What the ``playlog`` commands share: the command group, clear failures, the database."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from functools import wraps
from typing import Any, TypeVar

import click

from service.config import Settings, SettingsError
from service.deployment import Disagreement
from service.store.database import DatabaseUnavailable

F = TypeVar("F", bound=Callable[..., Any])


def friendly(fn: F) -> F:
    """Turn the expected failures into one clear line and exit code 1, not a traceback."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (DatabaseUnavailable, SettingsError) as exc:
            click.echo(f"playlog: {exc}", err=True)
            sys.exit(1)
        except Disagreement as exc:
            click.echo(
                f"playlog: this configuration does not fit the deployment in its database.\n{exc}", err=True
            )
            sys.exit(1)

    return wrapper  # type: ignore[return-value]


def resolve_database(settings: Settings, *, migrate: bool = True) -> str:
    """The configured URL (checked), or an embedded PostgreSQL in the data directory."""
    from service.store import database

    if settings.database_url:
        url = settings.database_url
        database.check_url(url)
    else:
        click.echo(f"playlog: no PLAYLOG_DATABASE_URL; embedded PostgreSQL in {settings.data_dir}", err=True)
        url = database.start_embedded(settings.data_dir)
    asyncio.run(database.ping(url))
    if migrate:
        try:
            database.upgrade(url)
        except Exception as exc:
            raise DatabaseUnavailable(f"Migrations failed: {exc}".splitlines()[0]) from None
    return url


T = TypeVar("T")


def on_connection(url: str, work: Callable[[Any], Awaitable[T]]) -> T:
    """Run ``work(conn)`` on one new connection to ``url``, closed however it ends."""
    import asyncpg

    async def run() -> T:
        conn = await asyncpg.connect(url)
        try:
            return await work(conn)
        finally:
            await conn.close()

    return asyncio.run(run())


@click.group()
@click.version_option(package_name="playlog")
def main() -> None:
    """playlog: an event-sourced service for turn-based games with hidden information."""

"""The ``playlog`` command line."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

import click

from service.config import Settings
from service.database import DatabaseUnavailable

F = TypeVar("F", bound=Callable[..., Any])


def friendly(fn: F) -> F:
    """Turn the expected failures into one clear line and exit code 1, not a traceback."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except DatabaseUnavailable as exc:
            click.echo(f"playlog: {exc}", err=True)
            sys.exit(1)

    return wrapper  # type: ignore[return-value]


def resolve_database(settings: Settings, *, migrate: bool = True) -> str:
    """The configured URL (checked), or an embedded PostgreSQL in the data directory."""
    from service import database

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


@click.group()
@click.version_option(package_name="playlog")
def main() -> None:
    """playlog: an event-sourced service for turn-based games with hidden information."""


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--workers", default=1, show_default=True, type=click.IntRange(min=1), help="Worker processes.")
@friendly
def serve(host: str, port: int, workers: int) -> None:
    """Run the HTTP service (migrations applied at start)."""
    settings = Settings.from_env()
    url = resolve_database(settings)
    # uvicorn builds the app in each worker (service.asgi); the workers get the resolved database
    # and the signing key from the environment, so all of them agree on both.
    os.environ["PLAYLOG_DATABASE_URL"] = url
    os.environ["PLAYLOG_JWT_SECRET"] = settings.secret()
    import uvicorn

    from service.serving import uvicorn_options

    uvicorn.run(
        "service.asgi:app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="warning",
        access_log=False,
        **uvicorn_options(settings),  # connection cap, header and keep-alive timeouts
    )


@main.group()
def db() -> None:
    """Database schema (Alembic migrations)."""


@db.command()
@click.option("--revision", default="head", show_default=True)
@friendly
def upgrade(revision: str) -> None:
    """Apply migrations up to REVISION."""
    from service import database

    url = resolve_database(Settings.from_env(), migrate=False)
    database.upgrade(url, revision)
    click.echo(f"database at {revision}")


@db.command()
@click.option("--revision", default="base", show_default=True)
@friendly
def downgrade(revision: str) -> None:
    """Revert migrations down to REVISION."""
    from service import database

    url = resolve_database(Settings.from_env(), migrate=False)
    database.downgrade(url, revision)
    click.echo(f"database at {revision}")


@main.command("moderator-token")
@click.option("--hours", default=12, show_default=True, type=int)
def moderator_token(hours: int) -> None:
    """Print a moderator bearer token (signed with this deployment's secret)."""
    from datetime import timedelta

    from service.auth import Principal, issue

    click.echo(issue(Settings.from_env().secret(), Principal(role="moderator"), timedelta(hours=hours)))


@main.command()
def openapi() -> None:
    """Print the OpenAPI document (as committed in openapi/openapi.json)."""
    from service.app import create_app
    from service.openapi import export

    settings = Settings(database_url="postgresql://unused/unused", jwt_secret="unused")
    sys.stdout.buffer.write(export(create_app(settings)))


@main.command()
@click.option("--url", required=True, help="Base URL of a running playlog service")
@click.option("--kind", default="exploding_kittens", show_default=True)
@click.option("--players", default=2, show_default=True, type=int)
@click.option("--games", "count", default=1, show_default=True, type=int)
@click.option("--concurrency", default=4, show_default=True, type=int)
@click.option("--option", "extra", multiple=True, help="Game option KEY=JSON, e.g. reaction_window=0")
@click.option("--seed", default=None, type=int, help="Seed the bots' choices")
def bots(
    url: str, kind: str, players: int, count: int, concurrency: int, extra: tuple[str, ...], seed: int | None
) -> None:
    """Play COUNT full games with random bots; exit 1 if one fails or its chain does not verify."""
    import json

    from service.bot_runner import run_bots

    options: dict[str, Any] = {"players": players}
    if kind == "exploding_kittens":
        options["reaction_window"] = 0
    for item in extra:
        key, _, value = item.partition("=")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    ok = asyncio.run(run_bots(url, kind, options, count, concurrency, seed))
    sys.exit(0 if ok else 1)


@main.group("projections")
def projections_group() -> None:
    """Read models (lobby list, player statistics), projected from the log."""


@projections_group.command("rebuild")
@click.option("--batch-size", default=5000, show_default=True, type=click.IntRange(1, 100_000))
@friendly
def rebuild_projections(batch_size: int) -> None:
    """Empty the read models and replay the whole log into them (safe to interrupt and rerun)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from service.pool import create_pool
    from service.projector import RebuildReport, rebuild
    from service.store import EventStore

    url = resolve_database(Settings.from_env())
    columns = (
        TextColumn("rebuilding read models"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]:>10,.0f} events/s"),
        TimeElapsedColumn(),
    )

    async def run() -> RebuildReport:
        pool = await create_pool(url, min_size=1, max_size=4)
        try:
            with Progress(*columns, transient=False) as bar:
                task = bar.add_task("rebuild", total=None, rate=0.0)
                started = time.perf_counter()

                def progress(done: int, total: int) -> None:
                    elapsed = time.perf_counter() - started
                    rate = done / elapsed if elapsed > 0 else 0.0
                    bar.update(task, completed=done, total=max(total, done), rate=rate)

                return await rebuild(EventStore(pool), url, batch_size=batch_size, progress=progress)
        finally:
            await pool.close()

    report = asyncio.run(run())
    click.echo(
        f"rebuilt read models: {report.events:,} events in {report.seconds:.1f} s"
        f" ({report.rate:,.0f} events/s)"
    )


if __name__ == "__main__":
    main()

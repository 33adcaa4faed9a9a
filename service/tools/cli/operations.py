"""The operator's commands: the database's migrations, moderator tokens, Citus, the read models."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import click

from service.config import Settings
from service.store.database import DatabaseUnavailable
from service.tools.cli.common import friendly, main, on_connection, resolve_database


@main.group()
def db() -> None:
    """Database schema (Alembic migrations)."""


@db.command()
@click.option("--revision", default="head", show_default=True)
@friendly
def upgrade(revision: str) -> None:
    """Apply migrations up to REVISION."""
    from service.store import database

    url = resolve_database(Settings.from_env(), migrate=False)
    database.upgrade(url, revision)
    click.echo(f"database at {revision}")


@db.command()
@click.option("--revision", default="base", show_default=True)
@friendly
def downgrade(revision: str) -> None:
    """Revert migrations down to REVISION."""
    from service.store import database

    url = resolve_database(Settings.from_env(), migrate=False)
    database.downgrade(url, revision)
    click.echo(f"database at {revision}")


async def _release_claims(url: str, name: str) -> int:
    """Put the disputes a revoked moderator held back in the queue (service/app/disputes.py)."""
    from service.app.disputes import Disputes
    from service.app.games import GameService
    from service.store.events import EventStore
    from service.store.pool import create_pool

    pool = await create_pool(url, min_size=1, max_size=2)
    try:
        return await Disputes(GameService(EventStore(pool)), pool, window=0).release_claims_of(name)
    finally:
        await pool.close()


@main.command("moderator-token")
@click.option("--name", help="Issue a token for this moderator (the name goes in the token).")
@click.option(
    "--ttl",
    default=8.0,
    show_default=True,
    type=click.FloatRange(min=0.01, max=72),
    help="Hours the token is valid.",
)
@click.option("--revoke", "revoked", metavar="NAME", help="Refuse every token of NAME issued so far.")
@click.option("--list", "listing", is_flag=True, help="List the moderators holding a live token.")
@friendly
def moderator_token(name: str | None, ttl: float, revoked: str | None, listing: bool) -> None:
    """Issue, revoke or list moderator tokens (recorded in the database)."""
    from service.app import moderators

    if sum((name is not None, revoked is not None, listing)) != 1:
        raise click.UsageError("give exactly one of --name NAME, --revoke NAME, --list")
    settings = Settings.from_env()
    url = resolve_database(settings)

    async def run(conn: Any) -> None:
        if name is not None:
            try:
                click.echo(await moderators.issue(conn, settings.keyring(), name, ttl * 3600))
            except ValueError as exc:
                raise click.BadParameter(str(exc), param_hint="--name") from None
        elif revoked is not None:
            if not await moderators.revoke(conn, revoked):
                raise click.ClickException(f"no moderator named {revoked!r}")
            click.echo(f"revoked every token of {revoked!r} issued until now")
            released = await _release_claims(url, revoked)
            click.echo(f"released {released} dispute(s) {revoked!r} held: back in the queue, open")
        else:
            for row in await moderators.active(conn):
                issued, expires = f"{row.issued_at:%Y-%m-%d %H:%M}", f"{row.expires_at:%Y-%m-%d %H:%M}"
                click.echo(f"{row.name}\tissued {issued} UTC\texpires {expires} UTC")

    on_connection(url, run)


@main.group("citus")
def citus_group() -> None:
    """The log on a Citus cluster (PLAYLOG_DATABASE_URL points at the coordinator)."""


@citus_group.command("distribute")
@click.option("--shard-count", default=None, type=click.IntRange(1, 4096), help="Default: Citus's own")
@friendly
def distribute_citus(shard_count: int | None) -> None:
    """Migrate, then distribute the tables by game and player and delegate the append (once)."""
    from service.store.citus import NotCitus, distribute

    url = resolve_database(Settings.from_env())
    try:
        steps = on_connection(url, lambda conn: distribute(conn, shard_count=shard_count))
    except NotCitus as exc:
        raise DatabaseUnavailable(str(exc)) from None
    for step in steps:
        click.echo(step)
    click.echo("distributed" if steps else "already distributed")


@main.group("projections")
def projections_group() -> None:
    """Read models (lobby list, player statistics, players' games), projected from the log."""


@projections_group.command("rebuild")
@click.option("--batch-size", default=5000, show_default=True, type=click.IntRange(1, 100_000))
@friendly
def rebuild_projections(batch_size: int) -> None:
    """Empty the read models and replay the whole log into them (safe to interrupt and rerun)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from service.readmodels.rebuild import RebuildReport, rebuild
    from service.store.events import EventStore
    from service.store.pool import create_pool

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

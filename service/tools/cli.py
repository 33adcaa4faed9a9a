"""The ``playlog`` command line."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Awaitable, Callable
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import click

from service.config import Settings
from service.store.database import DatabaseUnavailable

F = TypeVar("F", bound=Callable[..., Any])
SHUTDOWN_TIMEOUT = 10


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


def served_at(host: str, port: int) -> str:
    """The base URL a client on this machine reaches ``playlog serve`` at."""
    if host in ("0.0.0.0", "::", ""):  # every interface: this machine reaches it on loopback
        host = "127.0.0.1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def serving_line(url: str) -> str:
    return f"playlog serving on {url} (pages {url}/, API {url}/games, OpenAPI {url}/schema/openapi.json)"


def announce_when_ready(url: str, interval: float = 0.2) -> None:
    """Print ``serving_line`` once ``/readyz`` answers 200 (the app started, its database
    answering), from a thread: uvicorn, told to log warnings only, says nothing when it is up."""

    def watch() -> None:
        while True:
            try:
                with urllib.request.urlopen(f"{url}/readyz", timeout=2) as answer:
                    if answer.status == 200:
                        click.echo(serving_line(url))
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(interval)

    threading.Thread(target=watch, name="playlog-announce", daemon=True).start()


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


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--workers", default=1, show_default=True, type=click.IntRange(min=1), help="Worker processes.")
@click.option(
    "--shutdown-timeout",
    default=SHUTDOWN_TIMEOUT,
    show_default=True,
    type=click.IntRange(min=1),
    help="Seconds in-flight requests get to finish on SIGTERM/SIGINT.",
)
@friendly
def serve(host: str, port: int, workers: int, shutdown_timeout: int) -> None:
    """Run the HTTP service (migrations applied at start).

    SIGTERM and SIGINT alike: stop accepting, end the streams with a last comment, let requests
    in flight finish (at most --shutdown-timeout seconds), stop the background tasks, then stop
    the embedded PostgreSQL if this process started it.
    """
    # uvicorn shuts down gracefully on SIGTERM, then raises it again for its default action,
    # which would kill this process before the embedded PostgreSQL is stopped: SIGTERM is made
    # to end it the way SIGINT does (KeyboardInterrupt), with the clean-up below.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    from service.store import database

    try:
        settings = Settings.from_env()
        url = resolve_database(settings)
        # uvicorn builds the app in each worker (service.http.asgi); the workers get the resolved
        # database and the signing keys from the environment, so all of them agree on them.
        os.environ["PLAYLOG_DATABASE_URL"] = url
        os.environ["PLAYLOG_JWT_SECRET"] = settings.secret()
        log_keys = settings.log_identity().keys  # made here once, not by each worker at once
        os.environ["PLAYLOG_LOG_SIGNING_KEY"] = ",".join(key.text for key in log_keys)
        import uvicorn

        from service.http.fast.serving import uvicorn_options

        announce_when_ready(served_at(host, port))
        uvicorn.run(
            "service.http.asgi:app",
            factory=True,
            host=host,
            port=port,
            workers=workers,
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=shutdown_timeout,
            **uvicorn_options(settings),  # connection cap, header and keep-alive timeouts
        )
    except KeyboardInterrupt:
        pass
    finally:
        database.stop_embedded()


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


@main.command("log-keys")
@click.option(
    "--rotate", is_flag=True, help="Sign with a new key from the next start (the old ones stay published)."
)
def log_keys(rotate: bool) -> None:
    """Print the transparency log's public keys (signed-note verifier keys), newest first."""
    from service.transparency import identity

    settings = Settings.from_env()
    if rotate:
        if settings.log_signing_key:
            raise click.UsageError("PLAYLOG_LOG_SIGNING_KEY is set: put the new key first there")
        keys = identity.rotate(settings.data_dir, settings.log_origin)
    else:
        keys = settings.log_identity()
    for verifier in keys.verifiers:
        click.echo(verifier.text)


@main.command()
@click.option("--log", "log_url", required=True, help="The log's base URL (https://playlog.example)")
@click.option("--key", "key_file", required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--state", "state_dir", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--name", default=None, help="The witness's name, to make a new key when --key does not exist")
@click.option(
    "--log-key", "log_key", multiple=True, help="A verifier key of the log (default: pinned on first contact)"
)
@click.option("--interval", default=5.0, show_default=True, type=click.FloatRange(min=0.01))
@click.option("--once", is_flag=True, help="Look once, then exit.")
def witness(
    log_url: str,
    key_file: Path,
    state_dir: Path,
    name: str | None,
    log_key: tuple[str, ...],
    interval: float,
    once: bool,
) -> None:
    """Witness a playlog transparency log: cosign each checkpoint that extends the last one cosigned;
    refuse (exit 3, evidence in STATE/evidence/) a history that does not."""
    import httpx

    from service.runtime import log as logs
    from service.transparency.notes import NoteError, Verifier
    from service.transparency.witness import Refused, Witness, load_key

    logs.configure(Settings.from_env().log_format)
    log = logs.get_logger("playlog.witness")
    try:
        signer = load_key(key_file, name)
        keys = [Verifier.parse(k) for k in log_key] or None
    except NoteError as exc:
        raise click.UsageError(str(exc)) from None
    click.echo(f"witness key: {signer.verifier.text}", err=True)
    watcher = Witness(log_url.rstrip("/"), signer, state_dir, keys)

    async def run() -> int:
        async with httpx.AsyncClient(timeout=10.0) as client:
            while True:
                try:
                    outcome = await watcher.round(client)
                    log.info("witness_round", outcome=outcome, log=log_url)
                except Refused as exc:
                    log.error("witness_refused", reason=exc.reason, evidence=str(exc.evidence), log=log_url)
                    click.echo(f"playlog witness: REFUSED: {exc}", err=True)
                    return 3
                except (httpx.HTTPError, ValueError) as exc:
                    log.warning("witness_round_failed", error=str(exc), log=log_url)
                    if once:
                        return 1
                if once:
                    return 0
                await asyncio.sleep(interval)

    sys.exit(asyncio.run(run()))


@main.command()
def openapi() -> None:
    """Print the OpenAPI document (as committed in openapi/openapi.json)."""
    from service.http.app import create_app
    from service.http.openapi import export

    settings = Settings(database_url="postgresql://unused/unused", jwt_secret="unused")
    sys.stdout.buffer.write(export(create_app(settings)))


@main.command()
@click.option(
    "--url",
    "urls",
    required=True,
    multiple=True,
    help="Base URL of a running playlog service; repeat it for several instances (used in turn)",
)
@click.option("--kind", default=None, help="A game kind (default: the first the registry lists)")
@click.option("--players", default=2, show_default=True, type=int)
@click.option("--games", "count", default=1, show_default=True, type=int)
@click.option("--concurrency", default=4, show_default=True, type=int)
@click.option("--option", "extra", multiple=True, help="Game option KEY=JSON (over the game's quick options)")
@click.option("--seed", default=None, type=int, help="Seed the bots' choices")
def bots(
    urls: tuple[str, ...],
    kind: str | None,
    players: int,
    count: int,
    concurrency: int,
    extra: tuple[str, ...],
    seed: int | None,
) -> None:
    """Play COUNT full games with random bots; exit 1 if one fails or its chain does not verify."""
    import json

    from domain import registry
    from service.tools.bot_runner import run_bots

    kind = kind or next(iter(registry.games()))
    about = registry.get(kind).about
    # The game's quick options (no window to wait out), then the caller's.
    options: dict[str, Any] = {"players": players, **(about.quick_options if about else {})}
    for item in extra:
        key, _, value = item.partition("=")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    ok = asyncio.run(run_bots(urls, kind, options, count, concurrency, seed))
    sys.exit(0 if ok else 1)


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

    from service.readmodels.projector import RebuildReport, rebuild
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


@main.command("export")
@click.argument("game_id", type=click.UUID)
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), help="Default: stdout")
@friendly
def export_game(game_id: uuid.UUID, output: Path | None) -> None:
    """Write GAME_ID as a portable JSON Lines file (docs/export-format.md)."""
    from projections.export import format as export_format
    from service.store import portable

    url = resolve_database(Settings.from_env())

    async def run(conn: Any) -> list[str]:
        return [line async for line in portable.export_lines(conn, game_id, now=time.time())]

    try:
        lines = on_connection(url, run)
    except export_format.ExportError as exc:
        click.echo(f"playlog: {exc}", err=True)
        sys.exit(1)
    if output is None:
        sys.stdout.write("".join(lines))
    else:
        output.write_text("".join(lines), encoding="utf-8")
        click.echo(f"exported {len(lines) - 1} records to {output}", err=True)


@main.command("verify")
@click.argument("file", required=False, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--all", "every_game", is_flag=True, help="Re-execute every game of the database instead.")
@click.option(
    "--verbose", "-v", is_flag=True, help="With --all: a line for every game, not only divergent ones."
)
def verify_file(file: Path | None, every_game: bool, verbose: bool) -> None:
    """Check an exported game with no server and no database (chain, shuffles, re-execution,
    seeds), or with --all every game of the database under the running code."""
    if every_game:
        from service.tools.verify_all import verify_all

        url = resolve_database(Settings.from_env())
        found = on_connection(url, lambda conn: verify_all(conn, every=verbose))
        sys.exit(0 if all(v.ok for v in found) else 1)
    if file is None:
        raise click.UsageError("Give FILE, or --all.")
    from projections.export import verify as export_verify
    from service.store import portable

    report = export_verify.verify_lines(portable.open_lines(file))
    for line in report.lines():
        click.echo(line)
    sys.exit(0 if report.ok else 1)


@main.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@friendly
def import_file(file: Path) -> None:
    """Load an exported game into this database (refused if it does not verify or exists)."""
    from projections.export import format as export_format
    from service.store import portable

    try:
        export = export_format.read(portable.open_lines(file))
    except export_format.ExportError as exc:
        click.echo(f"playlog: {exc}", err=True)
        sys.exit(1)
    url = resolve_database(Settings.from_env())

    try:
        report = on_connection(url, lambda conn: portable.import_game(conn, export))
    except portable.ImportRefused as exc:
        click.echo(f"playlog: import refused ({exc.code}): {exc}", err=True)
        sys.exit(1)
    click.echo(f"imported game {report.game_id}: {report.events} events, chain verified")


if __name__ == "__main__":
    main()

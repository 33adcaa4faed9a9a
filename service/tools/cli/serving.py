"""``playlog serve``, ``playlog openapi`` and ``playlog bots``: running the service and playing it."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
import time
import urllib.error
import urllib.request
from typing import Any

import click

from service import deployment
from service.config import Settings
from service.tools.cli.common import friendly, main, on_connection, resolve_database

SHUTDOWN_TIMEOUT = 10


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
        keys, log_identity = settings.keyring(), settings.log_identity()  # made here once
        # Refused here, in one clear message, before a worker starts (each checks again).
        on_connection(url, lambda conn: deployment.check(conn, settings, log_identity, keys))
        # uvicorn builds the app in each worker (service.http.asgi); the workers get the resolved
        # database and the signing keys from the environment, so all of them agree on them.
        os.environ["PLAYLOG_DATABASE_URL"] = url
        os.environ["PLAYLOG_JWT_SECRET"] = settings.secret()
        os.environ["PLAYLOG_LOG_SIGNING_KEY"] = ",".join(key.text for key in log_identity.keys)
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

"""The Litestar application: ``create_app()``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from litestar import Litestar
from litestar.datastructures import State
from litestar.di import Provide
from litestar.openapi import OpenAPIConfig
from litestar.plugins.prometheus import PrometheusConfig

from service import log as logs
from service.access import Access
from service.api.audit import AccessController, AuditController, ExportController, SeatTranscriptController
from service.api.chunks import SpectatorChunksController
from service.api.deps import provide_games
from service.api.disputes import GameDisputesController, ModerationController
from service.api.health import HealthController
from service.api.incidents import IncidentController
from service.api.lobby import LobbyController
from service.api.metrics import MetricsController
from service.api.play import PlayController
from service.api.players import PlayersController
from service.api.streams import PlayerStreamController, SpectatorController
from service.api.transparency import GameLogProofController, TransparencyController
from service.batching import AppendBatcher
from service.bodies import JsonRequest
from service.chunks import Chunks
from service.citus import is_citus
from service.config import Settings
from service.disputes import Disputes
from service.edge import edge
from service.errors import EXCEPTION_HANDLERS, problem_details_plugin
from service.feeds import FeedHub
from service.games import GameService
from service.incidents import Incidents
from service.limits import StreamSlots, rate_limits
from service.listing import Listings
from service.moderators import Moderators
from service.notifications import Listener, Notifier
from service.openapi import CompletedJsonRenderPlugin
from service.players import Players
from service.pool import create_pool
from service.projector import Projector
from service.replica import Reads
from service.request_context import echo_request_id
from service.responses import AppResponse
from service.scheduler import Scheduler
from service.shutdown import on_shutdown_signal
from service.store import EventStore
from service.tables import Tables
from service.transparency.log import Sequencer, TransparencyLog
from service.web.pages import pages_router, template_config

VERSION = "0.1.0"


def create_app(settings: Settings | None = None, *, database_url: str | None = None) -> Litestar:
    """The app for ``database_url`` (default: the settings' URL; the CLI resolves embedded)."""
    settings = settings or Settings.from_env()
    url = database_url or settings.database_url
    if not url:
        raise ValueError("create_app needs a database URL (playlog serve starts an embedded one).")
    logs.configure(settings.log_format)
    keys = settings.keyring()

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        pool = await create_pool(url, max_size=20)
        async with pool.acquire() as conn:
            store = EventStore(pool, batcher=None if await is_citus(conn) else AppendBatcher(pool))
        # A replica that is down at start only sends its reads to the primary: no connection first.
        replica = None
        if settings.read_database_url:
            replica = EventStore(await create_pool(settings.read_database_url, min_size=0, max_size=20))
        reads = Reads(store, replica, wait=settings.replica_wait)
        listener = Listener(url)
        notifier = Notifier(pool, local=listener.deliver)
        tables = Tables(store, settings.cache_games)  # the one cache: commands, feeds, projector
        games = GameService(
            store, notifier=notifier, retries=settings.command_retries, tables=tables, reads=reads
        )
        listener.on_append(games.invalidate)
        listener.on_resync(games.forget_all)
        scheduler = Scheduler(games, settings.scheduler_interval)
        feeds = FeedHub(reads, listener, tables)
        moderators = Moderators(pool, settings.moderator_cache_seconds)
        listener.on_auth(moderators.on_auth)
        listener.on_resync(moderators.invalidate)
        players = Players(pool, keys, settings.player_token_lifetime)
        disputes = Disputes(games, pool, settings.dispute_window)
        listings = Listings(reads)
        app.state.update(pool=pool, store=store, games=games, listener=listener, feeds=feeds)
        app.state.update(keyring=keys, settings=settings, moderators=moderators, players=players)
        app.state.update(disputes=disputes, listings=listings, incidents=Incidents(pool, games.forget))
        app.state.update(access=Access(games, settings.seat_token_after_game))
        app.state.update(chunks=Chunks(feeds, games))
        notifier.start()
        listener.start()
        scheduler.start()
        projector = Projector(store, url, listener, tables=tables)
        app.state.update(projector=projector)
        projector.start()
        identity = settings.log_identity()  # made at the first start, not by `playlog openapi`
        sequencer = Sequencer(url, identity, settings.log_interval)
        transparency = TransparencyLog(pool, identity, settings.witnesses())
        app.state.update(transparency=transparency, sequencer=sequencer)
        sequencer.start()
        # On SIGTERM/SIGINT, streams end with a last comment before uvicorn waits for responses.
        unhook = on_shutdown_signal(feeds.drain)
        try:
            yield
        finally:
            unhook()
            feeds.drain()
            await sequencer.stop()
            await projector.stop()
            await scheduler.stop()
            await feeds.close()
            await listener.stop()
            await notifier.stop()
            await pool.close()
            if replica is not None:
                await replica.db.close()

    prometheus = PrometheusConfig(app_name="playlog", group_path=True)
    return Litestar(
        route_handlers=[
            HealthController,
            LobbyController,
            PlayController,
            PlayersController,
            PlayerStreamController,
            SpectatorController,
            SpectatorChunksController,
            AuditController,
            ExportController,
            SeatTranscriptController,
            AccessController,
            GameDisputesController,
            ModerationController,
            IncidentController,
            MetricsController,
            TransparencyController,
            GameLogProofController,
            pages_router,
        ],
        template_config=template_config,
        dependencies={"games": Provide(provide_games, sync_to_thread=False)},
        lifespan=[lifespan],
        plugins=[problem_details_plugin()],
        exception_handlers=EXCEPTION_HANDLERS,
        # One edge layer (log context, metrics, OPTIONS, security and instance headers), then the
        # rate limits: the 429 they raise is answered outside both, as Litestar's own was.
        middleware=[
            edge(settings.instance_id, prometheus),
            *rate_limits(settings.rate_limit_writes, settings.rate_limit_commands),
        ],
        openapi_config=OpenAPIConfig(
            title="playlog",
            version=VERSION,
            path="/schema",
            render_plugins=[CompletedJsonRenderPlugin()],
        ),
        request_class=JsonRequest,
        response_class=AppResponse,
        request_max_body_size=settings.max_body_bytes,
        after_request=echo_request_id,
        state=State({"streams": StreamSlots(settings.max_streams)}),
    )

"""The Litestar application: ``create_app()``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from litestar import Litestar
from litestar.datastructures import State
from litestar.di import Provide
from litestar.openapi import OpenAPIConfig

from service.bootstrap import running
from service.config import Settings
from service.http.api.audit import (
    AccessController,
    AuditController,
    ExportController,
    SeatTranscriptController,
)
from service.http.api.chunks import SpectatorChunksController
from service.http.api.computer import ComputerPlayersController
from service.http.api.deps import provide_games
from service.http.api.disputes import GameDisputesController
from service.http.api.erasure import SeatErasureController
from service.http.api.health import HealthController
from service.http.api.incidents import IncidentController
from service.http.api.lobby import LobbyController
from service.http.api.metrics import MetricsController
from service.http.api.moderation import ModerationController
from service.http.api.play import PlayController
from service.http.api.players import PlayersController
from service.http.api.ratings import RatingsController
from service.http.api.streams import PlayerStreamController, SpectatorController
from service.http.api.traces import SeatTraceController
from service.http.api.transparency import GameLogProofController, TransparencyController
from service.http.api.webhooks import WebhooksController
from service.http.errors import EXCEPTION_HANDLERS, problem_details_plugin
from service.http.fast.edge import edge
from service.http.fast.requests import JsonRequest
from service.http.fast.responses import AppResponse
from service.http.limits import StreamSlots, rate_limits
from service.http.openapi import CompletedJsonRenderPlugin
from service.http.web.pages import pages_router, template_config
from service.runtime import log as logs
from service.runtime.request_context import echo_request_id

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
        async with running(settings, url, keys) as services:
            app.state.update(services.by_name())
            yield

    return Litestar(
        route_handlers=[
            HealthController,
            LobbyController,
            SeatTraceController,
            ComputerPlayersController,
            PlayController,
            SeatErasureController,
            PlayersController,
            RatingsController,
            WebhooksController,
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
            edge(settings.instance_id),
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

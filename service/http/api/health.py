"""Liveness and readiness.

``/healthz`` answers 200 as long as the process serves requests, database or not (restarting the
process would not bring the database back). ``/readyz`` answers 503 ``database_unavailable`` with
``Retry-After`` while the database does not answer, so a load balancer sends traffic elsewhere.
"""

from __future__ import annotations

import asyncio

import msgspec
from litestar import Controller

from service.app.games import GameService
from service.http.api.problems import UNAVAILABLE, problems
from service.http.fast.routes import get
from service.store.database import UNAVAILABLE_ERRORS, DatabaseUnavailable

READY_TIMEOUT = 2.0


class Health(msgspec.Struct, frozen=True):
    status: str


class HealthController(Controller):
    tags = ["operations"]

    @get(
        "/healthz",
        operation_id="healthz",
        summary="The process is up",
        responses=problems({503: ["too_many_connections"]}),
    )
    async def healthz(self) -> Health:
        return Health(status="ok")

    @get(
        "/readyz",
        operation_id="readyz",
        summary="The database answers",
        responses=problems(UNAVAILABLE, {503: ["service_unavailable"]}),
    )
    async def readyz(self, games: GameService) -> Health:
        try:
            async with asyncio.timeout(READY_TIMEOUT):
                await games.ping()
        except UNAVAILABLE_ERRORS as exc:
            raise DatabaseUnavailable(f"Database unreachable: {exc}") from None
        return Health(status="ready")

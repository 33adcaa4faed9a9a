"""Liveness and readiness."""

from __future__ import annotations

import msgspec
from litestar import Controller, get
from litestar.datastructures import State
from litestar.exceptions import HTTPException

from service.api.problems import UNAVAILABLE, problems


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
    async def readyz(self, state: State) -> Health:
        try:
            await state.pool.fetchval("SELECT 1")
        except Exception as exc:
            raise HTTPException(status_code=503, detail=f"Database unreachable: {exc}") from None
        return Health(status="ready")

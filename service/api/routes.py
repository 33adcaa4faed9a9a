"""Litestar's route decorators, except that a route's guards are handed the handler itself.

Litestar hands each guard a copy of the route handler (``copy(handler)``, in case a guard changes
it): some 80 Python calls, a third of what a whole ``GET /healthz`` costs, on every guarded
request. Our guards (service/api/guards.py) read the connection and never the handler.
"""

from __future__ import annotations

from typing import Any

import litestar
from litestar.connection import ASGIConnection
from litestar.handlers.http_handlers import HTTPRouteHandler


async def _authorize(handler: HTTPRouteHandler, connection: ASGIConnection[Any, Any, Any, Any]) -> None:
    for guard in handler.resolve_guards():
        await guard(connection, handler)  # type: ignore[misc]  # as Litestar does: resolved guards are async


class get(litestar.get):
    async def authorize_connection(self, connection: ASGIConnection[Any, Any, Any, Any]) -> None:
        await _authorize(self, connection)


class post(litestar.post):
    async def authorize_connection(self, connection: ASGIConnection[Any, Any, Any, Any]) -> None:
        await _authorize(self, connection)


class delete(litestar.delete):
    async def authorize_connection(self, connection: ASGIConnection[Any, Any, Any, Any]) -> None:
        await _authorize(self, connection)

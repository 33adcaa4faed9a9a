"""What every HTTP request and response gets, in one ASGI layer (Litestar builds it per route):

- the request's log context, bound before anything logs (service/runtime/request_context.py);
- the request metrics, under the names of Litestar's Prometheus plugin (service/runtime/metrics.py);
- ``OPTIONS`` answered from the routes as finally built (service/http/fast/methods.py);
- the security headers outside ``/schema`` (service/http/web/security.py);
- the instance header on every response, errors and streams included.

Each of these was a middleware of its own: one layer saves a call and a ``send`` wrapper per
layer, and a frame less to resume each time a request waits.
"""

from __future__ import annotations

import time
from typing import Any

from litestar.enums import ScopeType
from litestar.middleware.base import DefineMiddleware
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from service.http.fast.methods import allowed_methods
from service.http.web.security import HEADERS as SECURITY_HEADERS
from service.runtime.metrics import request_finished, request_started
from service.runtime.request_context import bind_request_context

# Which process answered: behind a load balancer, the one place a client or a test can tell.
INSTANCE_HEADER = b"x-playlog-instance"


class Edge:
    def __init__(self, app: ASGIApp, *, instance_id: str) -> None:
        self.app = app
        instance = (INSTANCE_HEADER, instance_id.encode())
        self.headers = [*SECURITY_HEADERS, instance]
        self.schema_headers = [instance]  # Litestar's docs pages load their renderers from a CDN
        self.allowed: dict[int, dict[str, str]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:  # (the service has no websocket route)
            await self.app(scope, receive, send)
            return
        bind_request_context(scope)
        method: str = scope["method"]
        path: str = scope.get("path_template") or scope["path"]
        extra = self.schema_headers if scope["path"].startswith("/schema") else self.headers
        status = 200
        started = time.perf_counter()
        duration = 0.0

        async def edge_send(message: Message) -> None:
            nonlocal status, duration
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), *extra]
            elif message["type"] == "http.response.body":
                duration = time.perf_counter() - started
            await send(message)

        in_progress = request_started(method, path)
        try:
            if method == "OPTIONS" and (methods := self._allowed(scope)) is not None:
                await _allow(edge_send, methods)
            else:
                await self.app(scope, receive, edge_send)
        finally:
            request_finished(in_progress, status, duration)

    def _allowed(self, scope: Scope) -> str | None:
        litestar_app: Any = scope["litestar_app"]
        allowed = self.allowed.get(id(litestar_app))
        if allowed is None:
            allowed = self.allowed[id(litestar_app)] = allowed_methods(litestar_app)
        return allowed.get(scope.get("path_template", ""))


async def _allow(send: Send, methods: str) -> None:
    headers = [(b"allow", methods.encode()), (b"content-length", b"0")]
    await send({"type": "http.response.start", "status": 204, "headers": headers})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


def edge(instance_id: str) -> DefineMiddleware:
    """The edge layer's middleware definition."""
    return DefineMiddleware(Edge, instance_id=instance_id)

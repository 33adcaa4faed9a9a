"""Per-request log context: request id, game id and seat, merged into every log line of a request.

One context variable holds the request's fields (set once per request, read by the structlog
processor below); structlog's own contextvars helpers clear and bind one variable per key, which
cost more than the rest of a cheap request.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, MutableMapping
from contextvars import ContextVar
from typing import Any

from litestar import Request, Response
from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

REQUEST_ID_HEADER = "X-Request-ID"
# Which process answered: behind a load balancer, the one place a client or a test can tell.
INSTANCE_HEADER = b"x-playlog-instance"

_request_context: ContextVar[dict[str, Any] | None] = ContextVar("playlog_request_context", default=None)


async def bind_request_context(request: Request[Any, Any, Any]) -> None:
    context: dict[str, Any] = {
        "request_id": (request.headers.get(REQUEST_ID_HEADER) or uuid.uuid4().hex)[:64]
    }
    params = request.path_params
    if "game_id" in params:
        context["game_id"] = str(params["game_id"])
    if "seat" in params:
        context["seat"] = params["seat"]
    _request_context.set(context)


async def echo_request_id(response: Response[Any]) -> Response[Any]:
    context = _request_context.get()
    if context:
        response.headers[REQUEST_ID_HEADER] = context["request_id"]
    return response


def instance_header(instance_id: str) -> Callable[[ASGIApp], ASGIApp]:
    """ASGI middleware naming this instance on every HTTP response, errors and streams included."""
    header = (INSTANCE_HEADER, instance_id.encode())

    def factory(app: ASGIApp) -> ASGIApp:
        async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != ScopeType.HTTP:
                await app(scope, receive, send)
                return

            async def send_with_header(message: Message) -> None:
                if message["type"] == "http.response.start":
                    message["headers"] = [*message.get("headers", []), header]
                await send(message)

            await app(scope, receive, send_with_header)

        return middleware

    return factory


def merge_request_context(
    _logger: Any, _method: str, event: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """structlog processor: the current request's fields, under the line's own."""
    context = _request_context.get()
    return {**context, **event} if context else event

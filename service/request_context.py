"""Per-request log context: request id, game id and seat, merged into every log line of a request.

One context variable holds the request's fields (set once per request, read by the structlog
processor below); structlog's own contextvars helpers clear and bind one variable per key, which
cost more than the rest of a cheap request.
"""

from __future__ import annotations

import uuid
from collections.abc import MutableMapping
from contextvars import ContextVar
from typing import Any

from litestar import Request, Response

REQUEST_ID_HEADER = "X-Request-ID"

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


def merge_request_context(
    _logger: Any, _method: str, event: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """structlog processor: the current request's fields, under the line's own."""
    context = _request_context.get()
    return {**context, **event} if context else event

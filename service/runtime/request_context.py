"""Per-request log context: request id, game id and seat, merged into every log line of a request.

One context variable holds the request's fields (set once per request by the edge layer,
service/http/fast/edge.py, read by the structlog processor below); structlog's own contextvars helpers clear
and bind one variable per key, which cost more than the rest of a cheap request.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping
from contextvars import ContextVar
from typing import Any

from litestar import Response
from litestar.types import Scope

from service.runtime.headers import header

REQUEST_ID_HEADER = "X-Request-ID"
_REQUEST_ID = REQUEST_ID_HEADER.lower().encode()

_request_context: ContextVar[dict[str, Any] | None] = ContextVar("playlog_request_context", default=None)


def bind_request_context(scope: Scope) -> None:
    """The request's fields, from its routed scope."""
    context: dict[str, Any] = {
        # else 32 random hex digits, as a uuid4's (os.urandom: a fraction of uuid4's calls)
        "request_id": (header(scope, _REQUEST_ID) or os.urandom(16).hex())[:64]
    }
    params = scope.get("path_params") or {}
    if "game_id" in params:
        context["game_id"] = str(params["game_id"])
    if "seat" in params:
        context["seat"] = params["seat"]
    _request_context.set(context)


def current_request_id() -> str | None:
    context = _request_context.get()
    return context["request_id"] if context else None


async def echo_request_id(response: Response[Any]) -> Response[Any]:
    request_id = current_request_id()
    if request_id:
        response.headers[REQUEST_ID_HEADER] = request_id
    return response


def merge_request_context(
    _logger: Any, _method: str, event: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """structlog processor: the current request's fields, under the line's own."""
    context = _request_context.get()
    return {**context, **event} if context else event

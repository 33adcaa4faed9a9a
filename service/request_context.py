"""Per-request log context: request id, game id and seat, bound for every log line of a request."""

from __future__ import annotations

import uuid
from typing import Any

import structlog
from litestar import Request, Response

REQUEST_ID_HEADER = "X-Request-ID"


async def bind_request_context(request: Request[Any, Any, Any]) -> None:
    structlog.contextvars.clear_contextvars()
    request_id = request.headers.get(REQUEST_ID_HEADER) or uuid.uuid4().hex
    request.state.request_id = request_id[:64]
    context: dict[str, Any] = {"request_id": request.state.request_id}
    params = request.path_params
    if "game_id" in params:
        context["game_id"] = str(params["game_id"])
    if "seat" in params:
        context["seat"] = params["seat"]
    structlog.contextvars.bind_contextvars(**context)


async def echo_request_id(response: Response[Any]) -> Response[Any]:
    request_id = structlog.contextvars.get_contextvars().get("request_id")
    if request_id:
        response.headers[REQUEST_ID_HEADER] = request_id
    return response

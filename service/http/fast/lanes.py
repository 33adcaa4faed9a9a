"""A seat's command and view, answered below Litestar's handler pipeline (a lane of their own).

These two routes carry most requests: a command, and most of the views a client reads. For each,
Litestar's handler pipeline (service/http/fast/routes.py trims it already) builds a kwargs model and
a signature model and converts every parameter through them, runs the dependencies, wraps the
return value in a response object, runs the after-request hook and encodes: about a fifth of the
service's Python work per command. A lane is the route's innermost middleware. It takes a
request only when every parameter is present in its plain spelling and within the bounds the
OpenAPI document gives; then it runs the route's own guards and the handler's own code
(service/http/api/play.py) and sends the same status, headers and bytes. Anything else (a parameter
out of bounds, misspelt, repeated, an unknown one) goes on to Litestar's handler, which answers as
it always has, refusals included: nothing has been read or done before that choice.

An error raised in the lane is answered by Litestar's exception middleware, as the handler's are,
inside the route's other middleware (the edge's headers and metrics, the rate limits).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from litestar._asgi.utils import wrap_in_exception_handler
from litestar.serialization import encode_json, get_serializer
from litestar.types import ASGIApp, Receive, Scope, Send

from service.http.api.params import INT32_MAX
from service.http.fast.requests import JsonRequest
from service.runtime.request_context import REQUEST_ID_HEADER, current_request_id

# What the lane took from the request, for the answer (the scope is the request's own).
_TAKEN = "playlog.lane"
_KEY = re.compile(r"[!-~]{1,200}")  # the Idempotency-Key header's schema: visible ASCII, <= 200
_REQUEST_ID = REQUEST_ID_HEADER.lower().encode()

Answer = Callable[[JsonRequest, uuid.UUID, int, dict[str, Any]], Awaitable[Any]]
Take = Callable[[Scope], dict[str, Any] | None]


def lane(take: Take, answer: Answer) -> Callable[[ASGIApp], ASGIApp]:
    """The route middleware: ``take(scope)`` gives the handler's other arguments, or None to leave
    the request to Litestar; ``answer(request, game_id, seat, arguments)`` gives the body."""

    def middleware(app: ASGIApp) -> ASGIApp:
        return Lane(app, take, answer)

    return middleware


class Lane:
    def __init__(self, app: ASGIApp, take: Take, answer: Answer) -> None:
        self.app = app
        self.take = take
        self.answer = answer
        self.answered = wrap_in_exception_handler(self._answered)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        params: dict[str, Any] = scope["path_params"]
        seat = params["seat"]
        taken = self.take(scope) if 0 <= seat <= INT32_MAX else None
        if taken is None:
            await self.app(scope, receive, send)
            return
        scope[_TAKEN] = taken  # type: ignore[literal-required]
        await self.answered(scope, receive, send)

    async def _answered(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = JsonRequest(scope, receive, send)
        handler: Any = scope["route_handler"]
        await handler.authorize_connection(request)  # the route's guards, as Litestar runs them
        params: dict[str, Any] = scope["path_params"]
        taken: dict[str, Any] = scope[_TAKEN]  # type: ignore[literal-required]
        result = await self.answer(request, params["game_id"], params["seat"], taken)
        body = encode_json(result, get_serializer(handler.resolve_type_encoders()))
        # As Litestar's response would carry them: the request id (the app's after-request hook),
        # then the JSON body's type and length.
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
        if request_id := current_request_id():
            headers.insert(0, (_REQUEST_ID, request_id.encode("latin-1")))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body, "more_body": False})


def take_min_version(scope: Scope) -> dict[str, Any] | None:
    """``getSeatView``'s one query parameter, ``min_version``, when absent or plainly within its
    schema (the route's guard reads it: service/http/api/guards.py)."""
    query: bytes = scope["query_string"]
    if not query:
        return {"min_version": 0}
    name, _, value = query.partition(b"=")
    if name != b"min_version" or not value.isdigit() or len(value) > 10 or int(value) > INT32_MAX:
        return None
    return {"min_version": int(value)}


def take_command(scope: Scope) -> dict[str, Any] | None:
    """``sendCommand``'s query and header parameters, when each is plainly within its schema."""
    taken: dict[str, Any] = {"idempotency_key": None, "expected_version": None, "view": False}
    query: bytes = scope["query_string"]
    if query:
        seen = set()
        for pair in query.split(b"&"):
            name, _, value = pair.partition(b"=")
            if name in seen:
                return None
            seen.add(name)
            if name == b"view" and value in (b"true", b"false"):
                taken["view"] = value == b"true"
            elif name == b"expected_version" and value.isdigit() and len(value) <= 10:
                if (version := int(value)) > INT32_MAX:
                    return None
                taken["expected_version"] = version
            else:
                return None
    key = None
    for name, value in scope["headers"]:
        if name == b"idempotency-key":
            if key is not None:
                return None
            key = value.decode("latin-1")
            if not _KEY.fullmatch(key):
                return None
    taken["idempotency_key"] = key
    return taken

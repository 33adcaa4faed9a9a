"""The app's response class: Litestar's, its common case (a JSON body, nothing else) sent leaner.

Litestar turns every handler's return value into an ``ASGIResponse`` whose headers go through a
case-insensitive mutable mapping (a look-up and a rewrite per header), some 60 Python calls a
response, more than the rest of a cheap request. A JSON body with plain headers (every JSON route
here) is sent with the same status, headers, header order and body, from a list; anything else
(cookies, background tasks, other media types, HEAD, no-body statuses) is left to Litestar.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from litestar import Litestar, Request, Response
from litestar.background_tasks import BackgroundTask, BackgroundTasks
from litestar.datastructures import Cookie
from litestar.enums import MediaType
from litestar.response.base import ASGIResponse
from litestar.serialization import get_serializer
from litestar.types import Receive, Scope, Send, TypeEncodersMap

RawHeaders = list[tuple[bytes, bytes]]


class JsonBody:
    """A whole response: its start (status and headers), then its body, as ``ASGIResponse`` sends them."""

    __slots__ = ("body", "headers", "status")

    def __init__(self, status: int, headers: RawHeaders, body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status, "headers": self.headers})
        await send({"type": "http.response.body", "body": self.body, "more_body": False})


def _plain_json(media_type: Any, status: int) -> bool:
    return media_type == MediaType.JSON and status >= 200 and status not in (204, 304)


class AppResponse(Response[Any]):
    def to_asgi_response(  # type: ignore[override]  # any ASGI app will do, as for Litestar's
        self,
        app: Litestar | None,
        request: Request[Any, Any, Any],
        *,
        background: BackgroundTask | BackgroundTasks | None = None,
        cookies: Iterable[Cookie] | None = None,
        encoded_headers: Iterable[tuple[bytes, bytes]] | None = None,
        headers: dict[str, str] | None = None,
        is_head_response: bool = False,
        media_type: MediaType | str | None = None,
        status_code: int | None = None,
        type_encoders: TypeEncodersMap | None = None,
    ) -> ASGIResponse | JsonBody:
        media = self.media_type or media_type or MediaType.JSON
        status = self.status_code or status_code or 200
        if (
            app is not None
            or background is not None
            or self.background is not None
            or cookies
            or self.cookies
            or encoded_headers is not None
            or is_head_response
            or not _plain_json(media, status)
        ):
            return super().to_asgi_response(
                app,
                request,
                background=background,
                cookies=cookies,
                encoded_headers=encoded_headers,
                headers=headers,
                is_head_response=is_head_response,
                media_type=media_type,
                status_code=status_code,
                type_encoders=type_encoders,
            )
        if type_encoders:
            type_encoders = {**type_encoders, **(self.response_type_encoders or {})}
        else:
            type_encoders = self.response_type_encoders
        body = self.render(self.content, "application/json", get_serializer(type_encoders))
        merged = {**headers, **self.headers} if headers else self.headers
        raw = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in merged.items()]
        names = {name for name, _ in raw}
        if b"content-type" not in names:
            raw.append((b"content-type", b"application/json"))
        if b"content-length" not in names:
            raw.append((b"content-length", str(len(body)).encode("latin-1")))
        return JsonBody(status, raw, body)

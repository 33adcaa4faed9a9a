"""Litestar's request class with its body read leaner and decoded by the one decoder
(``service/app/bodies.py``): it overrides Litestar's private body reading, so it lives here.
"""

from __future__ import annotations

import math
from typing import Any

import msgspec
from litestar import Request
from litestar.exceptions import ClientException, InternalServerException
from litestar.exceptions.http_exceptions import RequestEntityTooLarge
from litestar.types import Empty

from domain.integers import integers_as_ints
from service.app.bodies import check_media_type, decode_any
from service.app.errors import ServiceError
from service.runtime.headers import header


class JsonRequest(Request[Any, Any, Any]):
    """Litestar's request, its ``data`` bodies decoded by the shared decoder above."""

    async def body(self) -> bytes:
        """Litestar's ``body()``: the same size limit, refusals and caching (in the connection's
        state, for any other reader of the request), read without its chunk generator, whose
        steps cost more than the rest of reading a small body."""
        if self._body is Empty:
            state = self._connection_state
            if state.body is Empty:
                state.body = await self._read_body()
            self._body = state.body
        return self._body

    @property
    def content_length(self) -> int | None:
        """Litestar's ``content_length``, read from the raw headers: its own builds the request's
        whole ``Headers`` mapping first, for one value."""
        if self._content_length is not Empty:
            return self._content_length
        announced = header(self.scope, b"content-length")
        try:
            self._content_length = int(announced) if announced is not None else None
        except ValueError:
            raise ClientException(f"Invalid content-length: {announced!r}") from None
        return self._content_length

    async def _read_body(self) -> bytes:
        if not self.is_connected:
            raise InternalServerException("stream consumed")
        limit = self.route_handler.resolve_request_max_body_size() or math.inf
        announced = self.content_length
        if announced is not None and announced > limit:  # refused before reading anything
            raise RequestEntityTooLarge
        chunks: list[bytes] = []
        received = 0
        while event := await self.receive():
            if event["type"] == "http.request":
                chunk = event["body"]
                if chunk:
                    received += len(chunk)
                    if received > limit:
                        raise RequestEntityTooLarge
                    chunks.append(chunk)
                if not event.get("more_body", False):
                    break
            if event["type"] == "http.disconnect":
                raise InternalServerException("client disconnected prematurely")
        self.is_connected = False
        return b"".join(chunks)

    async def json(self) -> Any:
        check_media_type(self.headers.get("content-type"))
        value = decode_any(await self.body())
        # Litestar converts ``data`` leniently (strict=False: ``"public": 0`` would pass as false);
        # a Struct body is held to the exact types the OpenAPI document gives it.
        field = self.route_handler.parsed_data_field
        body_type = field.annotation if field is not None else None
        if isinstance(body_type, type) and issubclass(body_type, msgspec.Struct):
            value = integers_as_ints(body_type, value)
            try:
                msgspec.convert(value, body_type, strict=True)
            except msgspec.ValidationError as exc:
                raise ServiceError(400, "invalid_body", str(exc)) from None
        return value

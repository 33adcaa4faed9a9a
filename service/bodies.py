"""Request bodies: the one JSON decoder every route goes through, depth-limited, JSON only.

msgspec decodes recursively, so a body of a few thousand nested ``[`` would end in a
RecursionError (a 500). Nesting is measured first, skipping strings, and refused past
``MAX_DEPTH``: no command, option or lobby body of any game comes near it.
"""

from __future__ import annotations

import math
import re
from typing import Any, TypeVar

import msgspec
from litestar import Request
from litestar.exceptions import ClientException, InternalServerException
from litestar.exceptions.http_exceptions import RequestEntityTooLarge
from litestar.types import Empty

from domain.integers import integers_as_ints
from service.errors import ServiceError
from service.headers import header

T = TypeVar("T")

MAX_DEPTH = 32
# Strings (whose brackets do not count) and the brackets themselves, found by the regex engine.
_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)
_OPENERS = frozenset(b"[{")
_ANY = msgspec.json.Decoder()


def check_depth(body: bytes) -> None:
    """Refuse ``body`` (400 invalid_body) if its arrays and objects nest deeper than MAX_DEPTH."""
    if body.count(b"[") + body.count(b"{") <= MAX_DEPTH:
        return  # the common case: too few brackets to nest that deep
    depth = 0
    for match in _TOKENS.finditer(body):
        token = match.group()
        if len(token) != 1:
            continue
        if token[0] in _OPENERS:
            depth += 1
            if depth > MAX_DEPTH:
                raise ServiceError(
                    400, "invalid_body", f"The body nests arrays and objects deeper than {MAX_DEPTH}."
                )
        else:
            depth -= 1


def check_media_type(content_type: str | None) -> None:
    """Bodies are JSON: ``application/json`` or ``application/*+json`` (none given: assumed)."""
    if not content_type:
        return
    media_type = content_type.split(";", 1)[0].strip().lower()
    if media_type == "application/json" or (
        media_type.startswith("application/") and media_type.endswith("+json")
    ):
        return
    raise ServiceError(
        415, "unsupported_media_type", f"Bodies are application/json, not {media_type or 'empty'}."
    )


def decode(body: bytes, decoder: msgspec.json.Decoder[T] = _ANY) -> T:
    """``body`` decoded by ``decoder`` (default: any JSON value); a bad body is 400 invalid_body."""
    check_depth(body)
    try:
        return decoder.decode(body)
    except msgspec.DecodeError as exc:  # ValidationError included: both are the client's body
        raise ServiceError(400, "invalid_body", _message(exc, body)) from None
    except RecursionError:  # belt and braces: check_depth should have refused it
        raise ServiceError(400, "invalid_body", "The body nests too deep.") from None


def _message(exc: msgspec.DecodeError, body: bytes) -> str:
    if not body:
        return "The body is empty; a JSON document is expected."
    return str(exc)


def decode_any(body: bytes) -> Any:
    return decode(body, _ANY)


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

"""Request bodies: the one JSON decoder every route goes through, depth-limited, JSON only.

msgspec decodes recursively, so a body of a few thousand nested ``[`` would end in a
RecursionError (a 500). Nesting is measured first, skipping strings, and refused past
``MAX_DEPTH``: no command, option or lobby body of any game comes near it.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

import msgspec
from litestar import Request

from service.errors import ServiceError

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


def _integral(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_integral(item) for item in value]
    return value


def _takes_integers(info: msgspec.inspect.Type) -> bool:
    if isinstance(info, msgspec.inspect.ListType):
        info = info.item_type
    return isinstance(info, msgspec.inspect.IntType)


def integers_as_ints(body_type: type[msgspec.Struct], value: Any) -> Any:
    """``value`` with the integral floats of ``body_type``'s integer fields (and lists of them) as
    ints: JSON Schema's ``integer`` is a number without a fraction, ``2.0`` included."""
    if not isinstance(value, dict):
        return value
    for field in msgspec.structs.fields(body_type):
        if field.encode_name in value and _takes_integers(msgspec.inspect.type_info(field.type)):
            value[field.encode_name] = _integral(value[field.encode_name])
    return value


class JsonRequest(Request[Any, Any, Any]):
    """Litestar's request, its ``data`` bodies decoded by the shared decoder above."""

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

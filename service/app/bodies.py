"""Request bodies: the one JSON decoder every route goes through, depth-limited, JSON only.

msgspec decodes recursively, so a body of a few thousand nested ``[`` would end in a
RecursionError (a 500). Nesting is measured first, skipping strings, and refused past
``MAX_DEPTH``: no command, option or lobby body of any game comes near it.
"""

from __future__ import annotations

import re
from typing import Any, Protocol, TypeVar

import msgspec

from service.app.errors import ServiceError

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class Decoder(Protocol[T_co]):
    """What reads a body: a msgspec JSON decoder, or a game's commands (domain/registry.py)."""

    def decode(self, body: bytes, /) -> T_co: ...


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


def decode(body: bytes, decoder: Decoder[T] = _ANY) -> T:
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

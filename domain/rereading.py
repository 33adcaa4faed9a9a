"""A game's command re-read before its rules see it: another game's command, or a field of the
wrong type, is refused, so the rules only ever see well-formed commands."""

from __future__ import annotations

from typing import TypeVar

import msgspec

from domain import refusals
from domain.errors import RuleViolation

T = TypeVar("T")

_ENCODER = msgspec.json.Encoder()


def reread(command: object, types: tuple[type, ...], decoder: msgspec.json.Decoder[T], game: str) -> T:
    """``command`` re-read through the game's JSON ``decoder`` (its command types: ``types``)."""
    if type(command) not in types:
        raise RuleViolation(refusals.UNKNOWN_COMMAND, f"This is not an {game} command.")
    try:
        # As a client's JSON is read: the same checks as msgspec.convert into the union, which
        # builds the union's type information again on every call (50x slower).
        return decoder.decode(_ENCODER.encode(command))
    except Exception as exc:  # garbage field values of any kind
        raise RuleViolation(refusals.INVALID_COMMAND, f"Malformed command: {exc}") from None

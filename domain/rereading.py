"""A game's command as its rules take it, and the stricter reading for commands built by hand.

``checked`` is what every game's ``decide`` does first: another game's command (or anything that
is no command of the game) is refused with ``unknown_command``. The fields are not read again
there: every command that reaches the rules on the service's paths was read by the game's own
decoder (a client's body: domain/registry.py's ``Kind.commands``; a recorded command:
projections/commands.py), which checks them once.

``rereading(decider)`` is for callers that build commands by hand, as the rules' tests and their
fuzzing do: its ``decide`` first re-reads the command through the game's JSON decoder, so a field
of the wrong type is refused with ``invalid_command`` as a client's body would be.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, TypeVar, get_args

import msgspec

from domain import refusals
from domain.decider import Context, Decider
from domain.errors import RuleViolation

T = TypeVar("T")

_ENCODER = msgspec.json.Encoder()


def checked(command: object, types: tuple[type, ...], game: str) -> Any:
    """``command``, if it is one of the game's command ``types``; else ``unknown_command``."""
    if type(command) not in types:
        raise RuleViolation(refusals.UNKNOWN_COMMAND, f"This is not an {game} command.")
    return command


def reread(command: object, decoder: msgspec.json.Decoder[T]) -> T:
    """``command`` re-read through the game's JSON ``decoder``: malformed fields are refused."""
    try:
        # As a client's JSON is read: the same checks as msgspec.convert into the union, which
        # builds the union's type information again on every call (50x slower).
        return decoder.decode(_ENCODER.encode(command))
    except Exception as exc:  # garbage field values of any kind
        raise RuleViolation(refusals.INVALID_COMMAND, f"Malformed command: {exc}") from None


def rereading(decider: Decider) -> Decider:
    """``decider`` whose ``decide`` re-reads each command first (commands built by hand)."""
    types = get_args(decider.types.command)
    decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(decider.types.command)
    title = decider.about.title if decider.about is not None else decider.kind

    def decide(state: Any, command: Any, ctx: Context) -> Sequence[Any]:
        return decider.decide(state, reread(checked(command, types, title), decoder), ctx)

    # Its events and state the same way (a game without its own: decided, then folded).
    return dataclasses.replace(decider, decide=decide, decide_and_fold=None)

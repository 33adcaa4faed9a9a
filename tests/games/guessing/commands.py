"""What a seat (or the server) may ask."""

from __future__ import annotations

from domain.decider import Command


class Guess(Command, frozen=True, kw_only=True):
    """The active seat names ``target``'s card: right, the target is out."""

    target: int
    value: int


class Swap(Command, frozen=True, kw_only=True):
    """The active seat swaps its card for one drawn at random from the pile."""


class Mark(Command, frozen=True, kw_only=True):
    """Any standing seat, at any time: cross ``value`` off its own sheet (nobody else knows)."""

    value: int


class Concede(Command, frozen=True, kw_only=True):
    """Leave the running game: the seat's card goes face up."""


class ActOnDeadline(Command, frozen=True, kw_only=True):
    """The server: the active seat's time is up, its turn passes."""


GuessingCommand = Guess | Swap | Mark | Concede | ActOnDeadline
COMMAND_TYPES = (Guess, Swap, Mark, Concede, ActOnDeadline)

"""What a seat (or the server) may ask."""

from __future__ import annotations

from domain.decider import ActOnTimeout, Command, Concede


class Guess(Command, frozen=True, kw_only=True):
    """The active seat names ``target``'s card: right, the target is out."""

    target: int
    value: int


class Swap(Command, frozen=True, kw_only=True):
    """The active seat swaps its card for one drawn at random from the pile."""


class Mark(Command, frozen=True, kw_only=True):
    """Any standing seat, at any time: cross ``value`` off its own sheet (nobody else knows)."""

    value: int


# The kernel's two (domain/decider.py): on the deadline, the active seat's turn passes; a seat
# that concedes shows its card face up.
GuessingCommand = Guess | Swap | Mark | Concede | ActOnTimeout
COMMAND_TYPES = (Guess, Swap, Mark, Concede, ActOnTimeout)

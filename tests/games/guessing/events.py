"""What happened. Hidden fields (other seats' cards, the pile) are blanked by ``redact``."""

from __future__ import annotations

from domain.decider import Event


class Dealt(Event, frozen=True, kw_only=True):
    """One card to each seat, the rest face down. ``hands`` (but one's own) and ``pile`` hidden."""

    first_seat: int
    hands: tuple[int | None, ...]
    pile: tuple[int, ...]
    pile_size: int
    deadline: float | None = None


class Guessed(Event, frozen=True, kw_only=True):
    seat: int
    target: int
    value: int
    right: bool


class Swapped(Event, frozen=True, kw_only=True):
    """The seat's card went into the pile at the place of the one it took. ``given``, ``taken``
    and ``place`` hidden from the other seats."""

    seat: int
    given: int | None
    taken: int | None
    place: int | None


class Marked(Event, frozen=True, kw_only=True):
    """Private: only the seat knows it exists."""

    seat: int
    value: int


class TimedOut(Event, frozen=True, kw_only=True):
    seat: int


class SeatConceded(Event, frozen=True, kw_only=True):
    seat: int
    card: int


class TurnPassed(Event, frozen=True, kw_only=True):
    seat: int
    turn: int
    deadline: float | None = None


class GameEnded(Event, frozen=True, kw_only=True):
    """Every card face up; the highest card standing wins."""

    hands: tuple[int | None, ...]
    winners: tuple[int, ...]


GuessingEvent = Dealt | Guessed | Swapped | Marked | TimedOut | SeatConceded | TurnPassed | GameEnded

"""The game's options and state (frozen msgspec Structs)."""

from __future__ import annotations

import math
from typing import Annotated

import msgspec

from domain.decider import Phase


class GuessingOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``rounds``: turns before the highest card standing wins. ``seed`` is the service's."""

    players: Annotated[int, msgspec.Meta(ge=2, le=4)]
    rounds: Annotated[int, msgspec.Meta(ge=1, le=100)] = 12
    decision_timeout: Annotated[float, msgspec.Meta(ge=1, le=86400)] | None = None
    seed: int | None = None
    first_seat: Annotated[int, msgspec.Meta(ge=0, le=3)] | None = None

    def __post_init__(self) -> None:
        if self.first_seat is not None and self.first_seat >= self.players:
            raise ValueError(f"first_seat must be below players ({self.players})")
        if self.decision_timeout is not None and not math.isfinite(self.decision_timeout):
            raise ValueError("decision_timeout must be a finite number of seconds")

    @property
    def deck_size(self) -> int:
        return 2 * self.players + 2


class GuessingState(msgspec.Struct, frozen=True, kw_only=True):
    """``hands[seat]``: the seat's one card (None once it is out); ``pile``: the hidden cards;
    ``marks[seat]``: the values the seat crossed off its own sheet (its private notes)."""

    options: GuessingOptions
    phase: Phase = "not_started"
    hands: tuple[int | None, ...] = ()
    pile: tuple[int, ...] = ()
    revealed: tuple[int, ...] = ()
    marks: tuple[tuple[int, ...], ...] = ()
    active_seat: int = 0
    turn: int = 0
    deadline: float | None = None
    winners: tuple[int, ...] = ()

    @property
    def players(self) -> int:
        return self.options.players

    def standing(self) -> list[int]:
        return [seat for seat, card in enumerate(self.hands) if card is not None]

    def next_standing(self, seat: int) -> int:
        for step in range(1, self.players + 1):
            candidate = (seat + step) % self.players
            if self.hands[candidate] is not None:
                return candidate
        return seat


def initial_state(options: GuessingOptions) -> GuessingState:
    return GuessingState(options=options)

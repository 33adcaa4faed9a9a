"""Options and state of an Exploding Kittens game (immutable; ``evolve`` replaces fields)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from domain.decider import Pending, Phase
from domain.exploding_kittens.cards import Card

Edition = Literal["2022", "classic"]

# A public game's per-move limit unless its host gives one (``decision_timeout``: null turns it
# off): a minute, Board Game Arena's realtime pace (RULES 3; rules.md, "The clock").
PUBLIC_CLOCK = {"decision_timeout": 60.0}


class ExplodingKittensOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Game options, validated at creation (bad values raise ``invalid_options``)."""

    players: Annotated[int, msgspec.Meta(ge=2, le=5)]
    edition: Edition = "2022"
    special_combos: bool = True
    reaction_window: Annotated[float, msgspec.Meta(ge=0, le=600)] = 3.0
    decision_timeout: Annotated[float, msgspec.Meta(gt=0, le=86400)] | None = None
    seed: int | None = None
    first_seat: Annotated[int, msgspec.Meta(ge=0, description="Below `players`")] | None = None

    def __post_init__(self) -> None:
        if self.first_seat is not None and self.first_seat >= self.players:
            raise ValueError(f"first_seat must be below players ({self.players})")


class ReactionWindow(msgspec.Struct, frozen=True, kw_only=True):
    """An action waiting for its Nope chain to close."""

    actor: int
    cards: tuple[Card, ...]  # one action card, or the combo
    combo: bool
    target: int | None
    named: Card | None
    nopes: tuple[int, ...]  # seats that played the chain's Nopes, in order
    deadline: float
    passed: tuple[int, ...]  # seats that passed since the top card

    @property
    def top_seat(self) -> int:
        return self.nopes[-1] if self.nopes else self.actor


class PendingDefuse(Pending, frozen=True, kw_only=True, tag="defuse"):
    """A drawn Kitten and a Defuse in hand: where does the seat put the Kitten back?"""

    deadline: float | None


class PendingFavor(Pending, frozen=True, kw_only=True, tag="favor"):
    """A Favor: which card does the seat give ``receiver``?"""

    receiver: int
    deadline: float | None


class PendingDiscardPick(Pending, frozen=True, kw_only=True, tag="discard_pick"):
    """Five different cards: which card does the seat take from the discard pile?"""

    deadline: float | None


ExplodingKittensPending = PendingDefuse | PendingFavor | PendingDiscardPick


class ExplodingKittensState(msgspec.Struct, frozen=True, kw_only=True):
    options: ExplodingKittensOptions
    phase: Phase = "not_started"
    hands: tuple[tuple[Card, ...], ...] = ()
    draw_pile: tuple[Card, ...] = ()  # top first
    discard: tuple[Card, ...] = ()  # oldest first
    out_of_game: tuple[Card, ...] = ()
    alive: tuple[bool, ...] = ()
    active_seat: int = 0
    turns_owed: int = 1
    under_attack: bool = False
    turn_deadline: float | None = None
    window: ReactionWindow | None = None
    pending: ExplodingKittensPending | None = None
    drawn_kitten: int | None = None  # seat holding a drawn Kitten not yet placed
    winners: tuple[int, ...] = ()  # the last seat standing, once the game is over
    commitment: str = ""
    salt: str | None = None
    # Per seat, what it knows of the pile now (domain/exploding_kittens/knowledge): the known cards
    # from the top, and where the Kitten it last put back is now.
    seen_future: tuple[tuple[Card, ...], ...] = ()
    placed_kitten: tuple[int | None, ...] = ()

    @property
    def players(self) -> int:
        return self.options.players

    def living(self) -> list[int]:
        return [seat for seat, alive in enumerate(self.alive) if alive]

    def next_living(self, seat: int) -> int:
        n = len(self.alive)
        for step in range(1, n + 1):
            candidate = (seat + step) % n
            if self.alive[candidate]:
                return candidate
        return seat

    def eligible(self) -> list[int]:
        """Seats that may answer the open window: all living seats but the top card's player."""
        if self.window is None:
            return []
        top = self.window.top_seat
        return [seat for seat, alive in enumerate(self.alive) if alive and seat != top]

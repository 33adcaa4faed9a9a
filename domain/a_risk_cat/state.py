"""The game's options, its pending decisions and its state (all frozen msgspec Structs)."""

from __future__ import annotations

import math
from typing import Annotated, Literal

import msgspec

from domain.decider import Pending, Phase

# The base game, or the full game with the paintings' special powers (RULES 2).
Mode = Literal["base", "full"]

# A public game's per-move limit unless its host gives one (``decision_timeout``: null turns it
# off): a minute, Board Game Arena's realtime pace (RULES 3; rules.md, "The clock").
PUBLIC_CLOCK = {"decision_timeout": 60.0}


class ARiskCatOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Game options, fixed at creation.

    ``seed`` is for the service (it seeds the RNG it passes in ``ctx``); the engine never reads it.
    """

    players: Annotated[int, msgspec.Meta(ge=3, le=8)]
    mode: Mode = "base"
    # seconds; a day at most, as in Exploding Kittens, and at least one so that a seat can answer
    decision_timeout: Annotated[float, msgspec.Meta(ge=1, le=86400)] | None = None
    seed: int | None = None
    first_seat: Annotated[int, msgspec.Meta(ge=0, le=7, description="Below `players`")] | None = None

    def __post_init__(self) -> None:
        if self.first_seat is not None and self.first_seat >= self.players:
            raise ValueError(f"first_seat must be below players ({self.players})")
        if self.decision_timeout is not None and not math.isfinite(self.decision_timeout):
            raise ValueError("decision_timeout must be a finite number of seconds")


# --- pending decisions: what the game waits for, and from which seat (the kernel's ``Pending``) -


class PendingFirstDraw(Pending, frozen=True, kw_only=True, tag="first_draw"):
    """Start of a turn: the seat must draw."""


class PendingDrawOrStop(Pending, frozen=True, kw_only=True, tag="draw_or_stop"):
    """Draw again (only if ``can_draw``: the bag is not empty) or stop."""

    can_draw: bool


class PendingRunSteal(Pending, frozen=True, kw_only=True, tag="steal"):
    """The drawn ``token`` matches the tops of ``from_seats``: take any of their runs (all or none)."""

    token: str
    from_seats: tuple[int, ...]


class PendingMusicianCat(Pending, frozen=True, kw_only=True, tag="musician_cat"):
    """A drawn Musician Cat: take the Cat runs of ``take_from`` (all), swap with one of
    ``swap_with``, or keep it."""

    token: str
    take_from: tuple[int, ...]
    swap_with: tuple[int, ...]


class PendingRobinTellTarget(Pending, frozen=True, kw_only=True, tag="robin_tell_target"):
    """Several stacks are equally the richest: the seat picks one."""

    candidates: tuple[int, ...]


class PendingRobinTellDeal(Pending, frozen=True, kw_only=True, tag="robin_tell_deal"):
    """Deal ``next_token`` (the robbed pile's top, public) onto any seat's stack."""

    robbed_seat: int
    remaining: int
    next_token: str


class PendingLadiesTake(Pending, frozen=True, kw_only=True, tag="ladies_take"):
    """The three ladies: ``taken`` of 4 so far; the top of any of ``from_seats`` may be taken."""

    taken: int
    from_seats: tuple[int, ...]


ARiskCatPending = (
    PendingFirstDraw
    | PendingDrawOrStop
    | PendingRunSteal
    | PendingMusicianCat
    | PendingRobinTellTarget
    | PendingRobinTellDeal
    | PendingLadiesTake
)

CheaterState = Literal["none", "armed", "spent"]


class ARiskCatState(msgspec.Struct, frozen=True, kw_only=True):
    """The whole truth (moderators see all of it; views show parts).

    ``bag`` is the draw order, top first. Each stack is listed bottom to top. ``turn_tokens`` are
    this turn's tokens in the order obtained; ``drawn`` the tokens drawn this turn (the bust check
    looks only at these; a Cat swapped away stays in it). ``power_queue`` holds the tokens whose
    power (full mode) has triggered but not yet resolved, in the order they joined. ``robin_pile``
    is a stack taken by Robin Tell and being dealt (bottom to top). ``conceded``: the seats that
    left the game (their stacks stay).
    """

    options: ARiskCatOptions
    phase: Phase = "not_started"
    removed_paintings: tuple[int, ...] = ()
    bag: tuple[str, ...] = ()
    commitment: str = ""
    salt: str = ""
    stacks: tuple[tuple[str, ...], ...] = ()
    active_seat: int = 0
    turn_number: int = 0
    turn_tokens: tuple[str, ...] = ()
    drawn: tuple[str, ...] = ()
    cheater: CheaterState = "none"
    power_queue: tuple[str, ...] = ()
    robin_pile: tuple[str, ...] = ()
    robbed_seat: int | None = None
    conceded: tuple[int, ...] = ()  # the seats that left, in the order they left
    pending: ARiskCatPending | None = None
    deadline: float | None = None
    scores: tuple[int, ...] | None = None
    winners: tuple[int, ...] = ()
    paintings_won: tuple[int, ...] = ()

    @property
    def players(self) -> int:
        return self.options.players

    @property
    def full(self) -> bool:
        return self.options.mode == "full"

    def standing(self) -> list[int]:
        """The seats that have not conceded."""
        return [s for s in range(self.players) if s not in self.conceded]

"""What each viewer may see: a seat its own card and notes, everyone the rest of the table."""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from domain import refusals
from domain.decider import Phase
from domain.errors import RuleViolation
from domain.viewers import Moderator, Seat, Viewer
from tests.games.guessing.commands import GuessingCommand
from tests.games.guessing.events import Dealt, GuessingEvent, Marked, Swapped
from tests.games.guessing.legal import legal_commands
from tests.games.guessing.state import GuessingState


class GuessingPublic(msgspec.Struct, frozen=True, kw_only=True):
    players: int
    phase: Phase
    active_seat: int | None
    turn: int
    standing: tuple[int, ...]
    revealed: tuple[int, ...]
    pile_size: int
    deadline: float | None
    winners: tuple[int, ...]


class GuessingSeatView(msgspec.Struct, frozen=True, kw_only=True, tag_field="view", tag="seat"):
    seat: int
    card: int | None
    marks: tuple[int, ...]
    public: GuessingPublic
    legal_commands: list[GuessingCommand]


class GuessingSpectatorView(msgspec.Struct, frozen=True, kw_only=True, tag_field="view", tag="spectator"):
    public: GuessingPublic


class GuessingModeratorView(msgspec.Struct, frozen=True, kw_only=True, tag_field="view", tag="moderator"):
    public: GuessingPublic
    hands: tuple[int | None, ...]
    pile: tuple[int, ...]
    marks: tuple[tuple[int, ...], ...]


GuessingView = GuessingSeatView | GuessingSpectatorView | GuessingModeratorView


def _public(state: GuessingState) -> GuessingPublic:
    playing = state.phase != "not_started"
    return GuessingPublic(
        players=state.players,
        phase=state.phase,
        active_seat=state.active_seat if playing else None,
        turn=state.turn,
        standing=tuple(state.standing()),
        revealed=state.revealed,
        pile_size=len(state.pile),
        deadline=state.deadline,
        winners=state.winners,
    )


def view(state: GuessingState, viewer: Viewer) -> GuessingView:
    public = _public(state)
    if isinstance(viewer, Moderator):
        return GuessingModeratorView(public=public, hands=state.hands, pile=state.pile, marks=state.marks)
    if isinstance(viewer, Seat):
        seat = viewer.index
        if type(seat) is not int or not 0 <= seat < state.players:
            raise RuleViolation(refusals.NOT_A_PLAYER, f"There is no seat {seat} in this game.")
        if state.phase != "not_started":
            return GuessingSeatView(
                seat=seat,
                card=state.hands[seat],
                marks=state.marks[seat],
                public=public,
                legal_commands=legal_commands(state, seat),
            )
    return GuessingSpectatorView(public=public)


def private_to(event: GuessingEvent) -> int | None:
    """A mark is known to its seat alone; every other event to every viewer."""
    return event.seat if isinstance(event, Marked) else None


def redact(event: GuessingEvent, viewer: Viewer) -> GuessingEvent | None:
    if isinstance(viewer, Moderator):
        return event
    me = viewer.index if isinstance(viewer, Seat) else None
    match event:
        case Dealt():
            hands = tuple(card if seat == me else None for seat, card in enumerate(event.hands))
            return replace(event, hands=hands, pile=())
        case Swapped() if event.seat != me:
            return replace(event, given=None, taken=None, place=None)
        case Marked() if event.seat != me:
            return None
    return event

"""What each viewer may see of the state (``view``) and of one event (``redact``), per RULES 1.9."""

from __future__ import annotations

from typing import Any, Literal, cast

import msgspec
from msgspec.structs import replace

from domain import refusals
from domain.errors import RuleViolation
from domain.exploding_kittens.cards import Card
from domain.exploding_kittens.commands import ExplodingKittensCommand
from domain.exploding_kittens.events import (
    CardDrawn,
    CardStolen,
    DeckDealt,
    DeckShuffled,
    ExplodingKittensEvent,
    FavorGiven,
    FutureSeen,
    KittenDefused,
    PlayerConceded,
    ReactionPassed,
)
from domain.exploding_kittens.legal import legal_commands
from domain.exploding_kittens.state import Edition, ExplodingKittensState, PendingFavor
from domain.viewers import Moderator, Seat, Viewer


class ReactionWindowInfo(msgspec.Struct, frozen=True, kw_only=True):
    """The open window: the action, its Nopes, who may answer (never who holds a Nope) and until when."""

    actor: int
    cards: tuple[Card, ...]
    combo: bool
    target: int | None
    named: Card | None
    chain_length: int  # Nopes in the chain; a Nope command must repeat it
    nopers: tuple[int, ...]
    eligible: tuple[int, ...]
    deadline: float


# The tags of the state's pending decisions (domain/exploding_kittens/state.py).
DecisionKind = Literal["defuse", "favor", "discard_pick"]


class PendingDecisionInfo(msgspec.Struct, frozen=True, kw_only=True):
    kind: DecisionKind
    seat: int
    receiver: int | None
    deadline: float | None


class ExplodingKittensPublic(msgspec.Struct, frozen=True, kw_only=True):
    """What every player and spectator may know."""

    started: bool
    players: int
    edition: Edition
    special_combos: bool
    reaction_window: float
    decision_timeout: float | None
    alive: tuple[bool, ...]
    active_seat: int | None
    turns_owed: int
    under_attack: bool
    turn_deadline: float | None
    hand_sizes: tuple[int, ...]
    draw_pile_size: int
    discard: tuple[Card, ...]  # oldest first
    out_of_game: tuple[Card, ...]
    kitten_being_placed_by: int | None
    window: ReactionWindowInfo | None
    pending: PendingDecisionInfo | None
    winner: int | None
    commitment: str


class ExplodingKittensSeatView(msgspec.Struct, frozen=True, kw_only=True, tag_field="view", tag="seat"):
    seat: int
    hand: tuple[Card, ...]
    seen_future: tuple[Card, ...]  # the pile's top cards it knows now, top first (RULES 1.9)
    placed_kitten: int | None  # where the Kitten it last put back is now, from the top
    public: ExplodingKittensPublic
    legal_commands: list[ExplodingKittensCommand]


class ExplodingKittensSpectatorView(
    msgspec.Struct, frozen=True, kw_only=True, tag_field="view", tag="spectator"
):
    public: ExplodingKittensPublic


class ExplodingKittensModeratorView(
    msgspec.Struct, frozen=True, kw_only=True, tag_field="view", tag="moderator"
):
    public: ExplodingKittensPublic
    hands: tuple[tuple[Card, ...], ...]
    draw_pile: tuple[Card, ...]  # top first
    salt: str | None
    seen_future: tuple[tuple[Card, ...], ...]
    placed_kitten: tuple[int | None, ...]
    passed: tuple[int, ...]


ExplodingKittensView = (
    ExplodingKittensSeatView | ExplodingKittensSpectatorView | ExplodingKittensModeratorView
)


def public_view(state: ExplodingKittensState) -> ExplodingKittensPublic:
    opts = state.options
    window = state.window
    pending = state.pending
    started = state.phase != "not_started"
    return ExplodingKittensPublic(
        started=started,
        players=opts.players,
        edition=opts.edition,
        special_combos=opts.special_combos,
        reaction_window=opts.reaction_window,
        decision_timeout=opts.decision_timeout,
        alive=state.alive,
        active_seat=state.active_seat if started else None,
        turns_owed=state.turns_owed,
        under_attack=state.under_attack,
        turn_deadline=state.turn_deadline,
        hand_sizes=tuple(map(len, state.hands)),
        draw_pile_size=len(state.draw_pile),
        discard=state.discard,
        out_of_game=state.out_of_game,
        kitten_being_placed_by=state.drawn_kitten,
        window=None
        if window is None
        else ReactionWindowInfo(
            actor=window.actor,
            cards=window.cards,
            combo=window.combo,
            target=window.target,
            named=window.named,
            chain_length=len(window.nopes),
            nopers=window.nopes,
            eligible=tuple(state.eligible()),
            deadline=window.deadline,
        ),
        pending=None
        if pending is None
        else PendingDecisionInfo(
            kind=cast(DecisionKind, pending.kind),
            seat=pending.seat,
            receiver=pending.receiver if isinstance(pending, PendingFavor) else None,
            deadline=pending.deadline,
        ),
        winner=state.winners[0] if state.winners else None,
        commitment=state.commitment,
    )


def view(state: ExplodingKittensState, viewer: Viewer) -> ExplodingKittensView:
    public = public_view(state)
    if isinstance(viewer, Moderator):
        return ExplodingKittensModeratorView(
            public=public,
            hands=state.hands,
            draw_pile=state.draw_pile,
            salt=state.salt,
            seen_future=state.seen_future,
            placed_kitten=state.placed_kitten,
            passed=state.window.passed if state.window is not None else (),
        )
    if isinstance(viewer, Seat) and (type(viewer.index) is not int or not 0 <= viewer.index < state.players):
        # A seat this game does not have is refused, in every game (domain/refusals.py).
        raise RuleViolation(refusals.NOT_A_PLAYER, f"There is no seat {viewer.index} in this game.")
    if isinstance(viewer, Seat) and state.phase != "not_started":
        seat = viewer.index
        return ExplodingKittensSeatView(
            seat=seat,
            hand=state.hands[seat],
            seen_future=state.seen_future[seat],
            placed_kitten=state.placed_kitten[seat],
            public=public,
            legal_commands=legal_commands(state, seat),
        )
    return ExplodingKittensSpectatorView(public=public)


def private_to(event: ExplodingKittensEvent) -> int | None:
    """The seat that alone may know ``event`` exists (a pass), None for events all viewers see."""
    return event.seat if type(event) is ReactionPassed else None


def redact(event: ExplodingKittensEvent, viewer: Viewer) -> ExplodingKittensEvent | None:
    """The event as ``viewer`` may see it; None if it may not see it at all."""
    if isinstance(viewer, Moderator):
        return event
    me = viewer.index if isinstance(viewer, Seat) else None
    redacted: Any = event
    match event:
        case DeckDealt():
            redacted = replace(
                event,
                hands=tuple(hand if seat == me else () for seat, hand in enumerate(event.hands)),
                draw_pile=(),
                salt=None,
            )
        case ReactionPassed():
            redacted = event if event.seat == me else None
        case CardDrawn():
            redacted = event if event.seat == me else replace(event, card=None)
        case KittenDefused():
            redacted = (
                replace(event, salt=None) if event.seat == me else replace(event, position=None, salt=None)
            )
        case FavorGiven():
            redacted = event if me in (event.giver, event.receiver) else replace(event, card=None)
        case CardStolen():
            redacted = event if me in (event.thief, event.victim) else replace(event, card=None)
        case FutureSeen():
            redacted = event if event.seat == me else replace(event, cards=())
        case DeckShuffled():
            redacted = replace(event, order=(), salt=None)
        case PlayerConceded():
            redacted = replace(event, kitten_position=None)
    result: ExplodingKittensEvent | None = redacted
    return result

"""What each viewer may see (RULES 2.6): views of the state and redaction of events.

Public: every stack's top token and size, this turn's tokens (and the paintings drawn, which a
new draw must avoid; not the drawn tokens' ids: a Cat swapped away may be covered since), the bag's
size and commitment, paintings removed, whose turn, the pending decision and its deadline, the
top of a pile Robin Tell is dealing, scores at the end. Hidden from every player (moderators
only): the bag's order and salts, every stack below its top (its owner included: players do not
look at their older tokens), the tokens a Banker sent back, the order of a stop.
"""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from domain import refusals
from domain.a_risk_cat.commands import ARiskCatCommand
from domain.a_risk_cat.events import (
    ARiskCatEvent,
    ARiskCatGameSetUp,
    BankerReturned,
    RobinTellTargetChosen,
    RobinTellTriggered,
    TurnBusted,
    TurnStopped,
)
from domain.a_risk_cat.legal import legal_commands
from domain.a_risk_cat.state import ARiskCatPending, ARiskCatState, Mode
from domain.a_risk_cat.tokens import painting
from domain.decider import Phase
from domain.errors import RuleViolation
from domain.viewers import Moderator, Seat, Spectator, Viewer


class ARiskCatStackView(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    size: int
    top: str | None


class ARiskCatViewBase(msgspec.Struct, frozen=True, kw_only=True, tag_field="view"):
    players: int
    mode: Mode
    phase: Phase
    removed_paintings: tuple[int, ...]
    bag_size: int
    commitment: str
    active_seat: int | None
    turn_number: int
    stacks: tuple[ARiskCatStackView, ...]
    turn_tokens: tuple[str, ...]
    drawn_paintings: tuple[int, ...]
    cheater_armed: bool
    robin_tell_pile_size: int
    robin_tell_pile_top: str | None
    robbed_seat: int | None
    conceded: tuple[int, ...]
    pending: ARiskCatPending | None
    deadline: float | None
    scores: tuple[int, ...] | None
    winners: tuple[int, ...]
    paintings_won: tuple[int, ...]


class ARiskCatSpectatorView(ARiskCatViewBase, frozen=True, kw_only=True, tag="spectator"):
    """Public information only."""


class ARiskCatSeatView(ARiskCatViewBase, frozen=True, kw_only=True, tag="seat"):
    """Public information plus what this seat may do now."""

    seat: int
    legal_commands: list[ARiskCatCommand]


class ARiskCatModeratorView(ARiskCatViewBase, frozen=True, kw_only=True, tag="moderator"):
    """Everything: full stacks (bottom to top), the bag's order (top first), the salt."""

    full_stacks: tuple[tuple[str, ...], ...]
    bag: tuple[str, ...]
    salt: str
    robin_tell_pile: tuple[str, ...]
    power_queue: tuple[str, ...]
    cheater: str


ARiskCatView = ARiskCatSpectatorView | ARiskCatSeatView | ARiskCatModeratorView


def _public(state: ARiskCatState) -> dict[str, object]:
    playing = state.phase != "not_started"
    return {
        "players": state.players,
        "mode": state.options.mode,
        "phase": state.phase,
        "removed_paintings": state.removed_paintings,
        "bag_size": len(state.bag),
        "commitment": state.commitment,
        "active_seat": state.active_seat if playing else None,
        "turn_number": state.turn_number,
        "stacks": tuple(
            ARiskCatStackView(seat=seat, size=len(stack), top=stack[-1] if stack else None)
            for seat, stack in enumerate(state.stacks)
        ),
        "turn_tokens": state.turn_tokens,
        "drawn_paintings": tuple(sorted({painting(t) for t in state.drawn})),
        "cheater_armed": state.cheater == "armed",
        "robin_tell_pile_size": len(state.robin_pile),
        "robin_tell_pile_top": state.robin_pile[-1] if state.robin_pile else None,
        "robbed_seat": state.robbed_seat,
        "conceded": state.conceded,
        "pending": state.pending,
        "deadline": state.deadline,
        "scores": state.scores,
        "winners": state.winners,
        "paintings_won": state.paintings_won,
    }


def view(state: ARiskCatState, viewer: Viewer) -> ARiskCatViewBase:
    match viewer:
        case Moderator():
            return ARiskCatModeratorView(
                **_public(state),  # type: ignore[arg-type]
                full_stacks=state.stacks,
                bag=state.bag,
                salt=state.salt,
                robin_tell_pile=state.robin_pile,
                power_queue=state.power_queue,
                cheater=state.cheater,
            )
        case Seat(index=index):
            if type(index) is not int or not 0 <= index < state.players:
                raise RuleViolation(refusals.NOT_A_PLAYER, f"There is no seat {index} in this game.")
            return ARiskCatSeatView(
                **_public(state),  # type: ignore[arg-type]
                seat=index,
                legal_commands=legal_commands(state, index),  # type: ignore[arg-type]
            )
        case Spectator():
            return ARiskCatSpectatorView(**_public(state))  # type: ignore[arg-type]
    raise RuleViolation("invalid_viewer", "Unknown viewer.")


def redact(event: ARiskCatEvent, viewer: Viewer) -> ARiskCatEvent | None:
    """The full event for moderators; for everyone else the same event with its hidden fields
    blanked (bag orders, salts, a stop's order, a Banker's returned tokens, a robbed pile)."""
    if isinstance(viewer, Moderator):
        return event
    match event:
        case ARiskCatGameSetUp() | TurnBusted():
            return replace(event, bag=(), salt="")
        case BankerReturned():
            return replace(event, returned=(), bag=(), salt="")
        case RobinTellTriggered() | RobinTellTargetChosen():
            return replace(event, pile=())
        case TurnStopped():
            return replace(event, order=())
    return event

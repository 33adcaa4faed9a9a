"""Exploding Kittens' public entry points: ``initial_state``, ``start``, ``decide``, ``evolve`` and
the server's side.

``decide`` checks who may act and dispatches to the rulebook's sections: setup.py (RULES 1.3),
turn.py (1.4, 1.5), actions.py (1.6), combos.py (1.6 combos), reactions.py (1.7), leaving.py
(1.8); the server's own commands (RULES 3: closing a window, acting on a timeout) are here.
``evolve`` (fold.py) only applies facts.
"""

from __future__ import annotations

from typing import assert_never

from domain import refusals
from domain.batch import Batch
from domain.decider import ActOnTimeout, Concede, Context, Outcome
from domain.errors import RuleViolation
from domain.exploding_kittens.actions import answer_favor, give, play_card
from domain.exploding_kittens.batch import ExplodingKittensBatch
from domain.exploding_kittens.cards import Card
from domain.exploding_kittens.combos import answer_discard_pick, play_combo, take
from domain.exploding_kittens.commands import (
    COMMAND_TYPES,
    Defuse,
    DrawCard,
    ExplodingKittensCommand,
    GiveCard,
    Nope,
    PassReaction,
    PlayCard,
    PlayCombo,
    ResolveReactions,
    TakeFromDiscard,
)
from domain.exploding_kittens.events import ExplodingKittensEvent
from domain.exploding_kittens.fold import evolve
from domain.exploding_kittens.leaving import concede
from domain.exploding_kittens.reactions import close_window, nope, pass_reaction
from domain.exploding_kittens.setup import initial_state, start
from domain.exploding_kittens.state import (
    ExplodingKittensState,
    PendingDefuse,
    PendingDiscardPick,
    PendingFavor,
)
from domain.exploding_kittens.turn import answer_defuse, defuse, draw
from domain.rereading import checked

State = ExplodingKittensState

__all__ = ["deadline", "decide", "evolve", "initial_state", "on_deadline", "outcome", "start"]


def _validated(command: object) -> ExplodingKittensCommand:
    valid: ExplodingKittensCommand = checked(command, COMMAND_TYPES, "Exploding Kittens")
    return valid


def _acting_seat(state: State, ctx: Context) -> int:
    seat = ctx.seat
    if type(seat) is not int or not 0 <= seat < state.players:
        raise RuleViolation(refusals.NOT_A_PLAYER, "Only a seat of this game may send this command.")
    if not state.alive[seat]:
        raise RuleViolation("player_eliminated", f"Seat {seat} is out of the game.")
    return seat


def decide(state: State, command: object, ctx: Context) -> list[ExplodingKittensEvent]:
    """The events a command leads to; raises ``RuleViolation`` (and nothing else) if refused."""
    return decide_and_fold(state, command, ctx)[0]


def decide_and_fold(state: State, command: object, ctx: Context) -> tuple[list[ExplodingKittensEvent], State]:
    """``decide``'s events and the state after them, folded as they were made (domain/batch.py)."""
    cmd = _validated(command)
    if state.phase == "not_started":
        raise RuleViolation(refusals.GAME_NOT_STARTED, "The game has not started yet.")
    if state.phase == "over":
        raise RuleViolation(refusals.GAME_OVER, "The game is over.")
    if isinstance(cmd, ResolveReactions | ActOnTimeout) and ctx.seat is not None:
        raise RuleViolation(refusals.SERVER_ONLY, "Only the server acts on a deadline.")
    batch: ExplodingKittensBatch = Batch(state, evolve)
    window = state.window
    if (
        window is not None
        and ctx.now >= window.deadline
        and not isinstance(cmd, Nope | PassReaction | ResolveReactions)
    ):
        # The deadline, not the write, closes the window: settle it before anything else.
        close_window(batch, ctx, "deadline")
    match cmd:
        case ResolveReactions():
            _resolve_reactions(batch, ctx)
        case ActOnTimeout():
            _act_on_timeout(batch, ctx)
        case Concede():
            concede(batch, _acting_seat(state, ctx), ctx)
        case Nope():
            nope(batch, _acting_seat(state, ctx), cmd, ctx)
        case PassReaction():
            pass_reaction(batch, _acting_seat(state, ctx), ctx)
        case _:
            seat = _acting_seat(state, ctx)
            if batch.state.window is not None:
                raise RuleViolation("window_open", "An action is waiting for its reaction window to close.")
            match cmd:
                case Defuse():
                    answer_defuse(batch, seat, cmd, ctx)
                case GiveCard():
                    answer_favor(batch, seat, cmd, ctx)
                case TakeFromDiscard():
                    answer_discard_pick(batch, seat, cmd, ctx)
                case _:
                    _check_turn(batch.state, seat)
                    match cmd:
                        case DrawCard():
                            draw(batch, seat, ctx, by_server=False)
                        case PlayCard():
                            play_card(batch, seat, cmd, ctx)
                        case PlayCombo():
                            play_combo(batch, seat, cmd, ctx)
                    if isinstance(cmd, PlayCard | PlayCombo) and state.options.reaction_window == 0:
                        close_window(batch, ctx, "at_once")  # nobody may Nope (reactions.py)
    return batch.events, batch.state


def _check_turn(state: State, seat: int) -> None:
    if seat != state.active_seat:
        raise RuleViolation(refusals.NOT_YOUR_TURN, f"It is seat {state.active_seat}'s turn.")
    if state.pending is not None:
        raise RuleViolation(
            "decision_pending", f"Waiting for seat {state.pending.seat} to answer ({state.pending.kind})."
        )


def _resolve_reactions(batch: ExplodingKittensBatch, ctx: Context) -> None:
    window = batch.state.window
    if window is None:
        raise RuleViolation("window_closed", "No reaction window is open.")
    if ctx.now < window.deadline:
        raise RuleViolation(refusals.DEADLINE_NOT_REACHED, "The reaction window is still open.")
    close_window(batch, ctx, "deadline")


def _act_on_timeout(batch: ExplodingKittensBatch, ctx: Context) -> None:
    s = batch.state
    if s.options.decision_timeout is None:
        raise RuleViolation(refusals.NO_DEADLINE, "This game has no decision timeout.")
    if s.window is not None:
        raise RuleViolation("window_open", "A reaction window is open; it closes by ResolveReactions.")
    pending = s.pending
    deadline = pending.deadline if pending is not None else s.turn_deadline
    if deadline is None or ctx.now < deadline:
        raise RuleViolation(refusals.DEADLINE_NOT_REACHED, "The decision's deadline has not passed.")
    rng = ctx.rng
    match pending:
        case None:
            draw(batch, s.active_seat, ctx, by_server=True)
        case PendingDefuse():
            defuse(batch, pending.seat, rng.randint(0, len(s.draw_pile)), ctx, by_server=True)
        case PendingFavor():
            give(batch, pending, rng.choice(s.hands[pending.seat]), ctx, by_server=True)
        case PendingDiscardPick():
            choices = [c for c in s.discard if c is not Card.EXPLODING_KITTEN]
            take(batch, pending.seat, rng.choice(choices), ctx, by_server=True)
        case _:
            assert_never(pending)


def deadline(state: State) -> float | None:
    """The earliest time the server must act on its own, if any."""
    if state.phase != "playing":
        return None
    if state.window is not None:
        return state.window.deadline
    if state.pending is not None:
        return state.pending.deadline
    return state.turn_deadline


def waiting_for(state: State) -> int | None:
    """The seat whose answer ``deadline(state)`` waits for: the pending decision's or the turn's
    (None while a reaction window is open: every living seat may answer it, none has to)."""
    if state.phase != "playing" or state.window is not None:
        return None
    return state.pending.seat if state.pending is not None else state.active_seat


def on_deadline(state: State) -> ExplodingKittensCommand:
    """The command the server sends (with ``ctx.seat = None``) once ``deadline(state)`` has passed."""
    if state.window is not None:
        return ResolveReactions()
    return ActOnTimeout()


def outcome(state: State) -> Outcome | None:
    if state.phase != "over":
        return None
    return Outcome(winners=state.winners)

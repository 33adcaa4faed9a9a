"""Turns and drawing (RULES.md 1.4 "A turn, and owed turns", 1.5 "Exploding Kitten and Defuse").

A turn ends by drawing; an Attack leaves the next seat owing turns (``turns_owed``). Drawing a
Kitten with a Defuse in hand opens the one decision a Defuse leaves: where to put the Kitten back
(0 = top .. len(draw pile) = bottom); without one the seat explodes, its hand goes face up to the
discard pile and the exploded Kitten leaves the game.

Rulings kept here (RULES.md):

- A player holding a Defuse always defuses; the only choice is the position. On decision timeout
  the Kitten goes to a uniformly random position (chosen in ``decide``, written in the event).
- ``decision_timeout`` also bounds the active seat's turn: the clock restarts whenever the seat is
  free to act again (turn start, window close, a Favor given, a discard pick); on timeout the
  server draws for it. Server-made choices carry ``by_server=True``.
- A late answer to a pending decision is still accepted while the server has not acted.
- Fair shuffles: ``KittenDefused`` carries a public ``commitment`` of the new draw pile order and
  a hidden ``salt``.
"""

from __future__ import annotations

from typing import TypeVar

from domain import refusals
from domain.commitment import commit, new_salt
from domain.decider import Context
from domain.errors import RuleViolation
from domain.exploding_kittens.batch import ExplodingKittensBatch, timeout_at
from domain.exploding_kittens.cards import Card
from domain.exploding_kittens.commands import Defuse
from domain.exploding_kittens.events import (
    CardDrawn,
    ExplodingKittensWon,
    KittenDefused,
    KittenDrawn,
    OwedTurnStarted,
    PlayerExploded,
)
from domain.exploding_kittens.state import ExplodingKittensPending, ExplodingKittensState, PendingDefuse

State = ExplodingKittensState
P = TypeVar("P", bound=ExplodingKittensPending)


def end_one_turn(batch: ExplodingKittensBatch, ctx: Context) -> None:
    """The active seat's current owed turn is over (a draw, a Skip, a Defuse)."""
    s = batch.state
    if s.turns_owed > 1:
        batch.emit(
            OwedTurnStarted(
                seat=s.active_seat,
                turns_owed=s.turns_owed - 1,
                under_attack=s.under_attack,
                deadline=timeout_at(s, ctx),
            )
        )
    else:
        batch.emit(
            OwedTurnStarted(
                seat=s.next_living(s.active_seat),
                turns_owed=1,
                under_attack=False,
                deadline=timeout_at(s, ctx),
            )
        )


def after_elimination(batch: ExplodingKittensBatch, seat: int, was_active: bool, ctx: Context) -> bool:
    """Declare the winner, or pass the turn if the eliminated seat had it. True if the game ended."""
    s = batch.state
    living = s.living()
    if len(living) == 1:
        batch.emit(ExplodingKittensWon(winner=living[0]))
        return True
    if was_active:
        batch.emit(
            OwedTurnStarted(
                seat=s.next_living(seat), turns_owed=1, under_attack=False, deadline=timeout_at(s, ctx)
            )
        )
    return False


def draw(batch: ExplodingKittensBatch, seat: int, ctx: Context, *, by_server: bool) -> None:
    s = batch.state
    if not s.draw_pile:  # cannot happen: the pile always holds living players - 1 Kittens
        raise RuleViolation("draw_pile_empty", "The draw pile is empty.")
    top = s.draw_pile[0]
    if top is not Card.EXPLODING_KITTEN:
        batch.emit(CardDrawn(seat=seat, card=top, by_server=by_server))
        end_one_turn(batch, ctx)
        return
    has_defuse = Card.DEFUSE in s.hands[seat]
    batch.emit(
        KittenDrawn(
            seat=seat,
            by_server=by_server,
            deadline=timeout_at(s, ctx) if has_defuse else None,
            defusable=has_defuse,
        )
    )
    if not has_defuse:
        batch.emit(PlayerExploded(seat=seat, discarded=batch.state.hands[seat]))
        after_elimination(batch, seat, True, ctx)


def pending_for(state: State, seat: int, kind: type[P]) -> P:
    """The pending decision of type ``kind`` that ``seat`` answers; refused if there is none."""
    pending = state.pending
    if not isinstance(pending, kind):
        raise RuleViolation(refusals.NO_PENDING_DECISION, "No such decision is pending.")
    if pending.seat != seat:
        raise RuleViolation("not_your_decision", f"The decision belongs to seat {pending.seat}.")
    return pending


def defuse(batch: ExplodingKittensBatch, seat: int, position: int, ctx: Context, *, by_server: bool) -> None:
    s = batch.state
    pile = (*s.draw_pile[:position], Card.EXPLODING_KITTEN, *s.draw_pile[position:])
    salt = new_salt(ctx.rng)
    batch.emit(
        KittenDefused(
            seat=seat, position=position, commitment=commit(pile, salt), salt=salt, by_server=by_server
        )
    )
    end_one_turn(batch, ctx)


def answer_defuse(batch: ExplodingKittensBatch, seat: int, cmd: Defuse, ctx: Context) -> None:
    pending_for(batch.state, seat, PendingDefuse)
    size = len(batch.state.draw_pile)
    if not 0 <= cmd.position <= size:
        raise RuleViolation("invalid_position", f"The position must be between 0 (top) and {size} (bottom).")
    defuse(batch, seat, cmd.position, ctx, by_server=False)

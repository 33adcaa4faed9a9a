"""Leaving (RULES.md 1.8 "End", and 3 "Rules common to every game"): a seat concedes a running game.

Rulings kept here:

- The leaver is eliminated as if exploded: its hand goes face up to the discard pile.
- A drawn Kitten awaiting its placement leaves the game, otherwise the bottom-most Kitten of the
  draw pile leaves (``leaving_kitten``, decided here and written in ``PlayerConceded``; removing
  it is deterministic, so it needs no new shuffle commitment).
- Owed turns are lost and the next living seat owes 1 if it was their turn; a chain they started
  is discarded unresolved; a Favor they were to answer resolves with nothing.
"""

from __future__ import annotations

from domain.decider import Context
from domain.exploding_kittens.batch import ExplodingKittensBatch, timeout_at
from domain.exploding_kittens.cards import Card
from domain.exploding_kittens.events import (
    KittenLeft,
    PlayerConceded,
)
from domain.exploding_kittens.reactions import close_window
from domain.exploding_kittens.state import ExplodingKittensState, PendingFavor
from domain.exploding_kittens.turn import after_elimination

State = ExplodingKittensState


def leaving_kitten(s: State, seat: int) -> tuple[KittenLeft, int | None]:
    """RULES 1.8: the Kitten that leaves with ``seat``: the one it was placing, else the
    bottom-most of the draw pile (its index from the top), else none."""
    if s.drawn_kitten == seat:
        return "drawn", None
    for i in range(len(s.draw_pile) - 1, -1, -1):
        if s.draw_pile[i] is Card.EXPLODING_KITTEN:
            return "pile", i
    return "none", None


def concede(batch: ExplodingKittensBatch, seat: int, ctx: Context) -> None:
    s = batch.state
    was_active = s.active_seat == seat
    giver_left = isinstance(s.pending, PendingFavor) and s.pending.seat == seat
    turn_deadline = timeout_at(s, ctx) if giver_left else s.turn_deadline
    kitten_left, kitten_position = leaving_kitten(s, seat)
    batch.emit(
        PlayerConceded(
            seat=seat,
            discarded=s.hands[seat],
            turn_deadline=turn_deadline,
            kitten_left=kitten_left,
            kitten_position=kitten_position,
        )
    )
    if after_elimination(batch, seat, was_active, ctx):
        return
    s = batch.state
    if s.window is not None and all(other in s.window.passed for other in s.eligible()):
        close_window(batch, ctx, "leave")

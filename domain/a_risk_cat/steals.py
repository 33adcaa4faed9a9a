"""Steals and stops (RULES.md 2.3 "A turn"): taking matching runs, the Musician Cat's choices,
stopping and stacking this turn's tokens.

Rulings and interpretations kept here:

- Steals: per matching stack, the whole run of identical tokens on top, or nothing.
- Runs stolen at once join this turn's tokens clockwise from the active seat, each run top first;
  powers resolve in that order.
- Musician Cat option (a) takes the Cat runs of *every* Cat-topped other stack (no subset); it
  is offered only when there is at least one. The swap may target any non-empty stack of another
  seat (a Cat-topped one included; full mode: not Angel-topped). The Cat leaves this turn's
  tokens; the swapped-in token is appended to them (it is "obtained" last).
- A stop's order is hidden from everyone but moderators, the stopping seat included in streamed
  events (nobody looks at a stack's older tokens); the seat knows what it sent.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.a_risk_cat.batch import ARiskCatBatch
from domain.a_risk_cat.events import (
    RunsStolen,
    StolenRun,
    TurnStopped,
)
from domain.a_risk_cat.powers import resolve_powers
from domain.a_risk_cat.stacks import top_run, triggers
from domain.a_risk_cat.state import (
    ARiskCatPending,
)
from domain.a_risk_cat.turn import end_turn


def steal(batch: ARiskCatBatch, from_seats: Sequence[int], *, by_server: bool) -> ARiskCatPending | None:
    state = batch.state
    runs = tuple(StolenRun(from_seat=s, tokens=top_run(state.stacks[s])) for s in from_seats)
    joining = [t for run in runs for t in run.tokens]
    batch.emit(
        RunsStolen(seat=state.active_seat, runs=runs, triggers=triggers(state, joining), by_server=by_server)
    )
    return resolve_powers(batch)


def stop(batch: ARiskCatBatch, order: tuple[str, ...], *, by_server: bool) -> ARiskCatPending | None:
    state = batch.state
    seat = state.active_seat
    batch.emit(
        TurnStopped(
            seat=seat,
            count=len(order),
            new_top=order[-1],
            stack_size=len(state.stacks[seat]) + len(order),
            order=order,
            by_server=by_server,
        )
    )
    return end_turn(batch)

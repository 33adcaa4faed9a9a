"""Build A Risk Cat states by hand (a rigged bag, chosen stacks) and play commands on them."""

from __future__ import annotations

import random
from collections.abc import Sequence

from domain.a_risk_cat import DECIDER
from domain.a_risk_cat.events import ARiskCatEvent
from domain.a_risk_cat.rules import decide, evolve
from domain.a_risk_cat.state import (
    ARiskCatOptions,
    ARiskCatPending,
    ARiskCatState,
    CheaterState,
    PendingDrawOrStop,
    PendingFirstDraw,
)
from domain.a_risk_cat.tokens import removed_paintings
from domain.decider import Command, Context
from domain.errors import RuleViolation
from domain.rereading import rereading


def make_state(
    *,
    players: int = 3,
    mode: str = "base",
    stacks: Sequence[Sequence[str]] | None = None,
    bag: Sequence[str] = (),
    active: int = 0,
    turn_tokens: Sequence[str] = (),
    drawn: Sequence[str] | None = None,
    cheater: CheaterState = "none",
    pending: ARiskCatPending | None = None,
    timeout: float | None = None,
    deadline: float | None = None,
) -> ARiskCatState:
    """A running game in the middle of seat ``active``'s turn (the bag is drawn from index 0).

    Without ``pending``, the seat must draw (no tokens yet this turn) or may draw or stop.
    ``drawn`` defaults to ``turn_tokens``.
    """
    options = ARiskCatOptions(players=players, mode=mode, decision_timeout=timeout)  # type: ignore[arg-type]
    if stacks is None:
        stacks = [() for _ in range(players)]
    assert len(stacks) == players
    if pending is None:
        pending = (
            PendingDrawOrStop(seat=active, can_draw=bool(bag))
            if turn_tokens
            else PendingFirstDraw(seat=active)
        )
    if deadline is None and timeout is not None:
        deadline = timeout
    return ARiskCatState(
        options=options,
        phase="playing",
        removed_paintings=removed_paintings(players),
        bag=tuple(bag),
        commitment="c0",
        salt="s0",
        stacks=tuple(tuple(s) for s in stacks),
        active_seat=active,
        turn_number=1,
        turn_tokens=tuple(turn_tokens),
        drawn=tuple(turn_tokens if drawn is None else drawn),
        cheater=cheater,
        pending=pending,
        deadline=deadline,
    )


def ctx(seat: int | None, *, now: float = 0.0, seed: int = 0) -> Context:
    return Context(rng=random.Random(seed), now=now, seat=seat)


def play(
    state: ARiskCatState, command: Command, seat: int | None = None, *, now: float = 0.0
) -> tuple[ARiskCatState, list[ARiskCatEvent]]:
    """Decide for ``seat`` (default: the seat the game waits for) and fold the events."""
    if seat is None and state.pending is not None:
        seat = state.pending.seat
    events = list(decide(state, command, ctx(seat, now=now)))
    for event in events:
        state = evolve(state, event)
    return state, events


def timeout(state: ARiskCatState) -> tuple[ARiskCatState, list[ARiskCatEvent]]:
    """The server acts on the pending decision's deadline."""
    from domain.a_risk_cat.rules import deadline, on_deadline

    when = deadline(state)
    assert when is not None
    events = list(decide(state, on_deadline(state), ctx(None, now=when)))
    for event in events:
        state = evolve(state, event)
    return state, events


def refusal(state: ARiskCatState, command: object, seat: int | None = None, *, now: float = 0.0) -> str:
    """The code of the RuleViolation ``decide`` raises (fails if it accepts the command), for a
    command built by hand (read as a client's body would be: domain/rereading.py)."""
    try:
        HAND_BUILT.decide(state, command, ctx(seat, now=now))
    except RuleViolation as exc:
        return exc.code
    raise AssertionError(f"{command!r} was accepted")


def types(events: Sequence[object]) -> list[str]:
    return [type(e).__name__ for e in events]


HAND_BUILT = rereading(DECIDER)

"""Build A Risk Cat states by hand (a rigged bag, chosen stacks) and play commands on them."""

from __future__ import annotations

from collections.abc import Sequence

from domain.a_risk_cat import DECIDER
from domain.a_risk_cat.state import (
    ARiskCatOptions,
    ARiskCatPending,
    ARiskCatState,
    CheaterState,
    PendingDrawOrStop,
    PendingFirstDraw,
)
from domain.a_risk_cat.tokens import removed_paintings
from domain.rereading import rereading
from tests.given import Rules, given_for


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


def types(events: Sequence[object]) -> list[str]:
    return [type(e).__name__ for e in events]


# The one idiom of rule tests (tests/given.py): given(make_state(...)).when(command[, seat]).then(...);
# without a seat, the seat the game waits for acts.
# Commands built by hand, read as a client's body would be (domain/rereading.py).
HAND_BUILT = rereading(DECIDER)
given = given_for(
    Rules(
        decide=HAND_BUILT.decide,
        fold=DECIDER.fold,
        acting=lambda state: state.pending.seat if state.pending is not None else None,
        deadline=DECIDER.clock.deadline,
        on_deadline=DECIDER.clock.on_deadline,
        start=DECIDER.start,
    )
)

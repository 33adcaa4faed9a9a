"""Setup (RULES.md 2.2 "Setup"): the paintings in play, the bag shuffled, the first seat.

The bag is an ordered tuple (top first), shuffled with ``ctx.rng``; the shuffle publishes
``commit(order, salt)`` and hides the order and the salt.
"""

from __future__ import annotations

from domain import refusals
from domain.a_risk_cat.batch import ARiskCatBatch
from domain.a_risk_cat.events import (
    ARiskCatEvent,
    ARiskCatGameSetUp,
)
from domain.a_risk_cat.state import (
    ARiskCatOptions,
    ARiskCatState,
    PendingFirstDraw,
)
from domain.a_risk_cat.tokens import (
    removed_paintings,
    tokens_in_play,
)
from domain.commitment import commit, new_salt
from domain.decider import Context
from domain.errors import RuleViolation


def initial_state(options: ARiskCatOptions) -> ARiskCatState:
    return ARiskCatState(options=options, stacks=((),) * options.players)


def start(state: ARiskCatState, ctx: Context) -> list[ARiskCatEvent]:
    if state.phase != "not_started":
        raise RuleViolation(refusals.GAME_ALREADY_STARTED, "The game has already started.")
    options = state.options
    first = options.first_seat if options.first_seat is not None else ctx.rng.randrange(options.players)
    bag = list(tokens_in_play(options.players))
    ctx.rng.shuffle(bag)
    salt = new_salt(ctx.rng)
    batch = ARiskCatBatch(state, ctx)
    batch.emit(
        ARiskCatGameSetUp(
            players=options.players,
            mode=options.mode,
            first_seat=first,
            removed_paintings=removed_paintings(options.players),
            bag_size=len(bag),
            commitment=commit(bag, salt),
            bag=tuple(bag),
            salt=salt,
        )
    )
    return batch.finish(PendingFirstDraw(seat=first)).events

"""The events of one decision, folded as they are emitted (the kernel's batch), with the
context and the game's last step: naming the decision the game waits for next."""

from __future__ import annotations

import math
from collections.abc import Sequence

from msgspec.structs import replace

from domain.a_risk_cat.events import (
    ARiskCatEvent,
)
from domain.a_risk_cat.fold import evolve
from domain.a_risk_cat.state import (
    ARiskCatPending,
    ARiskCatState,
)
from domain.batch import Batch
from domain.commitment import commit, new_salt
from domain.decider import Context
from domain.errors import RuleViolation


class ARiskCatBatch(Batch[ARiskCatState, ARiskCatEvent]):
    """The kernel's batch for one decision, with the context and this game's last step."""

    __slots__ = ("ctx",)

    def __init__(self, state: ARiskCatState, ctx: Context) -> None:
        super().__init__(state, evolve)
        self.ctx = ctx

    def finish(self, pending: ARiskCatPending | None) -> ARiskCatBatch:
        """The last event names the decision the game now waits for, and its deadline; the batch,
        finished."""
        if pending is not None:
            timeout = self.state.options.decision_timeout
            deadline = None if timeout is None else clock(self.ctx) + timeout
            self.replace_last(replace(self.events[-1], awaiting=pending, deadline=deadline))
        return self

    def shuffled_bag(self, tokens: Sequence[str]) -> tuple[tuple[str, ...], str, str]:
        bag = list(tokens)
        self.ctx.rng.shuffle(bag)
        salt = new_salt(self.ctx.rng)
        return tuple(bag), commit(bag, salt), salt


def clock(ctx: Context) -> float:
    now = ctx.now
    if not isinstance(now, int | float) or not math.isfinite(now):
        raise RuleViolation("invalid_clock", "The server's clock gave no usable time.")
    return float(now)

"""The events of one command, folded as they are emitted (the kernel's batch), and the decision
clock: when a seat that is free to act again times out."""

from __future__ import annotations

from domain.batch import Batch
from domain.decider import Context
from domain.exploding_kittens.events import ExplodingKittensEvent
from domain.exploding_kittens.state import ExplodingKittensState

ExplodingKittensBatch = Batch[ExplodingKittensState, ExplodingKittensEvent]
"""The kernel's batch, as this game's steps receive it."""


def timeout_at(state: ExplodingKittensState, ctx: Context) -> float | None:
    timeout = state.options.decision_timeout
    return None if timeout is None else ctx.now + timeout

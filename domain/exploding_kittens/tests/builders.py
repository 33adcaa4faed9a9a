"""Rigged Exploding Kittens states for rule tests."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from msgspec.structs import replace

from domain.decider import Context
from domain.exploding_kittens import DECIDER
from domain.exploding_kittens.cards import Card
from domain.exploding_kittens.setup import initial_state
from domain.exploding_kittens.state import ExplodingKittensOptions, ExplodingKittensState
from domain.rereading import rereading
from tests.given import Rules, given_for

K = Card.EXPLODING_KITTEN
D = Card.DEFUSE
A = Card.ATTACK
S = Card.SKIP
F = Card.FAVOR
SH = Card.SHUFFLE
SF = Card.SEE_THE_FUTURE
N = Card.NOPE
TC = Card.TACOCAT
CM = Card.CATTERMELON
HP = Card.HAIRY_POTATO_CAT
BC = Card.BEARD_CAT
RR = Card.RAINBOW_RALPHING_CAT


def rigged(
    hands: Sequence[Sequence[Card]],
    pile: Sequence[Card] = (TC, CM, HP, K),
    *,
    active: int = 0,
    turns_owed: int = 1,
    under_attack: bool = False,
    discard: Sequence[Card] = (),
    alive: Sequence[bool] | None = None,
    **options: Any,
) -> ExplodingKittensState:
    """A started game with these hands (seat order) and draw pile (top first)."""
    opts = ExplodingKittensOptions(players=len(hands), **{"reaction_window": 0.0, **options})
    n = len(hands)
    return replace(
        initial_state(opts),
        phase="playing",
        hands=tuple(tuple(h) for h in hands),
        draw_pile=tuple(pile),
        discard=tuple(discard),
        alive=tuple(alive) if alive is not None else (True,) * n,
        active_seat=active,
        turns_owed=turns_owed,
        under_attack=under_attack,
        seen_future=((),) * n,
        placed_kitten=(None,) * n,
        commitment="c",
        salt="s",
    )


def ctx(seat: int | None, now: float = 0.0, seed: int = 0) -> Context:
    return Context(rng=random.Random(seed), now=now, seat=seat)


def types(events: Sequence[object]) -> list[str]:
    return [type(e).__name__ for e in events]


# The one idiom of rule tests (tests/given.py): given(rigged(...)).when(command, seat).then(...)
given = given_for(
    Rules(
        # Commands built by hand, read as a client's body would be (domain/rereading.py).
        decide=rereading(DECIDER).decide,
        fold=DECIDER.fold,
        deadline=DECIDER.clock.deadline,
        on_deadline=DECIDER.clock.on_deadline,
        start=DECIDER.start,
    )
)

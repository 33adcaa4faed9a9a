"""The guessing game's declarations for the conformance kit (tests/conformance/kit.py), found
through the registry (tests/declared.py)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from hypothesis import strategies as st
from msgspec.structs import replace

from domain.viewers import Seat, Viewer
from tests.conformance.kit import GameKit
from tests.games.guessing import DECIDER
from tests.games.guessing.commands import Guess, Mark
from tests.games.guessing.events import Dealt, Swapped
from tests.games.guessing.state import GuessingState


def cards(state: GuessingState) -> Counter[int]:
    """Every card is in a hand, in the pile or face up."""
    return Counter([*(c for c in state.hands if c is not None), *state.pile, *state.revealed])


def blind_view(state: GuessingState, viewer: Viewer, rng: random.Random) -> GuessingState:
    """Re-deal the other seats' cards and the pile; re-write the other seats' notes."""
    me = viewer.index if isinstance(viewer, Seat) else None
    if state.phase == "not_started":
        return state
    hidden = [c for s, c in enumerate(state.hands) if s != me and c is not None] + list(state.pile)
    rng.shuffle(hidden)
    hands = tuple(c if s == me or c is None else hidden.pop() for s, c in enumerate(state.hands))
    size = state.options.deck_size
    marks = tuple(
        m if s == me else tuple(rng.sample(range(1, size + 1), rng.randrange(3)))
        for s, m in enumerate(state.marks)
    )
    return replace(state, hands=hands, pile=tuple(hidden), marks=marks)


def blind_event(event: Any, viewer: Viewer, rng: random.Random) -> Any:
    me = viewer.index if isinstance(viewer, Seat) else None
    match event:
        case Dealt():
            pool = [c for s, c in enumerate(event.hands) if s != me and c is not None] + list(event.pile)
            rng.shuffle(pool)
            hands = tuple(c if s == me or c is None else pool.pop() for s, c in enumerate(event.hands))
            return replace(event, hands=hands, pile=tuple(pool))
        case Swapped() if event.seat != me:
            return replace(
                event, given=rng.randrange(1, 11), taken=rng.randrange(1, 11), place=rng.randrange(6)
            )
    return event


def probes(state: GuessingState, rng: random.Random) -> list[Any]:
    value = rng.randrange(-1, state.options.deck_size + 2)
    target = rng.randrange(-1, state.players + 1)
    return [Guess(target=target, value=value), Mark(value=value)]


KITS = (
    GameKit(
        name="guessing",
        decider=DECIDER,
        options=st.fixed_dictionaries(
            {
                "players": st.integers(2, 4),
                "rounds": st.integers(1, 20),
                "decision_timeout": st.sampled_from([None, 5.0]),
            }
        ),
        conserved=cards,
        blind_view=blind_view,
        blind_event=blind_event,
        probes=probes,
    ),
)

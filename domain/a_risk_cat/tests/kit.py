"""A Risk Cat's declarations for the conformance kit (tests/conformance/kit.py): in the rules'
own words (RULES.md 2.6 and the tokens in play), never read off ``view`` or ``redact``. The kit
finds them through the registry (tests/declared.py)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from hypothesis import strategies as st
from msgspec.structs import replace

from domain.a_risk_cat import DECIDER
from domain.a_risk_cat import events as arc
from domain.a_risk_cat.commands import DrawToken, StopAndStack
from domain.a_risk_cat.state import ARiskCatState
from domain.a_risk_cat.tokens import ALL_TOKENS
from domain.viewers import Viewer
from tests.conformance.kit import GameKit


def _salt(rng: random.Random) -> str:
    return f"{rng.getrandbits(128):032x}"


# --- A Risk Cat: RULES 2.6 ----------------------------------------------------------------------


def arc_tokens(state: ARiskCatState) -> Counter[str]:
    """Every token in play is in the bag, a stack, this turn's tokens or Robin Tell's pile."""
    return Counter([*state.bag, *(t for s in state.stacks for t in s), *state.turn_tokens, *state.robin_pile])


def arc_blind_view(state: ARiskCatState, viewer: Viewer, rng: random.Random) -> ARiskCatState:
    """No player sees the bag's order or a stack below its top (its owner included): re-deal the
    bag and everything below the tops (sizes and tops kept), and the salt."""
    below = [*(t for s in state.stacks for t in s[:-1]), *state.robin_pile[:-1], *state.bag]
    rng.shuffle(below)

    def refill(stack: tuple[str, ...]) -> tuple[str, ...]:
        return (*(below.pop() for _ in stack[:-1]), *stack[-1:])

    stacks = tuple(refill(s) for s in state.stacks)
    robin = refill(state.robin_pile)
    bag = tuple(below.pop() for _ in state.bag)
    return replace(state, stacks=stacks, robin_pile=robin, bag=bag, salt=_salt(rng) if state.salt else "")


def _shuffled(rng: random.Random, tokens: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(rng.sample(ALL_TOKENS, len(tokens)))


def arc_blind_event(event: Any, viewer: Viewer, rng: random.Random) -> Any:
    """The event's hidden fields (RULES 2.6) re-dealt."""
    match event:
        case arc.ARiskCatGameSetUp() | arc.TurnBusted():
            return replace(event, bag=_shuffled(rng, event.bag), salt=_salt(rng))
        case arc.BankerReturned():
            returned = _shuffled(rng, event.returned)
            return replace(event, returned=returned, bag=_shuffled(rng, event.bag), salt=_salt(rng))
        case arc.RobinTellTriggered() | arc.RobinTellTargetChosen():
            return replace(event, pile=_shuffled(rng, event.pile))
        case arc.TurnStopped():
            return replace(event, order=_shuffled(rng, event.order))
    return event


def arc_move(command: Any) -> Any:
    """A stop is one move whatever the order it lists (RULES 2.3: the seat's free choice);
    ``legal_commands`` offers two orders of it, not all of them."""
    if isinstance(command, StopAndStack) and isinstance(command.order, list | tuple):
        return ("StopAndStack", tuple(sorted(map(str, command.order))))
    return command


def arc_prefer(state: ARiskCatState, command: Any) -> float:
    """Draw more while the bag is full, so that games reach busts, powers and the end."""
    return 3.0 if isinstance(command, DrawToken) and len(state.bag) > 12 else 1.0


def arc_options(mode: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "players": st.integers(3, 8),
            "mode": st.just(mode),
            "decision_timeout": st.sampled_from([None, 10.0]),
        }
    )


KITS: tuple[GameKit, ...] = tuple(
    GameKit(
        name=f"a_risk_cat[{mode}]",
        decider=DECIDER,
        options=arc_options(mode),
        conserved=arc_tokens,
        blind_view=arc_blind_view,
        blind_event=arc_blind_event,
        prefer=arc_prefer,
        move=arc_move,
        max_steps=400,  # a game of A Risk Cat takes a few hundred commands
    )
    for mode in ("base", "full")
)

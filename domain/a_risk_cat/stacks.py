"""Reading the table (RULES.md 2.3 "A turn", 2.5 "Full game powers"): stacks, their top runs,
what may be stolen, swapped, robbed or taken. Pure queries on the state, shared by the rules,
the legal commands and the views.

Rulings kept here:

- Tokens of the same painting are identical, for duplicates and for steals (the Banker and the
  Cheater are identical to each other).
- Only tokens *drawn* this turn cause a bust; tokens that joined by a steal, a Cat swap or the
  three ladies never do; a Cat swapped away still counts as drawn.
- An Angel on top protects its whole stack from every power and from the Cat swap, but not from
  ordinary steals, and it can still receive tokens.
- Robin Tell: the richest stack is the largest; Angel-topped and empty stacks cannot be chosen;
  the active seat's own stack can be the richest.
- Full mode: a power triggers once, when its token joins this turn's tokens (drawn, stolen,
  swapped in, taken by the ladies); the ladies fire for the lady that completes the trio.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.a_risk_cat.state import (
    ARiskCatState,
)
from domain.a_risk_cat.tokens import (
    ANGEL,
    BANKER,
    CHEATER,
    LADIES,
    MUSICIAN_CATS,
    ROBIN_TELL,
    painting,
)


def top(stack: Sequence[str]) -> str | None:
    return stack[-1] if stack else None


def top_run(stack: Sequence[str]) -> tuple[str, ...]:
    """The run of identical tokens (same painting) on top of a stack, listed top first."""
    if not stack:
        return ()
    p = painting(stack[-1])
    run: list[str] = []
    for token in reversed(stack):
        if painting(token) != p:
            break
        run.append(token)
    return tuple(run)


def angel_protected(state: ARiskCatState, seat: int) -> bool:
    """Full mode: an Angel on top makes the whole stack immune to every power and the Cat swap."""
    stack = state.stacks[seat]
    return state.full and bool(stack) and painting(stack[-1]) == ANGEL


def others(state: ARiskCatState, seat: int) -> list[int]:
    """The other seats, clockwise from the one after ``seat``."""
    n = state.players
    return [(seat + i) % n for i in range(1, n)]


def steal_options(state: ARiskCatState, token: str) -> tuple[int, ...]:
    p = painting(token)
    return tuple(
        s for s in others(state, state.active_seat) if state.stacks[s] and painting(state.stacks[s][-1]) == p
    )


def cat_take_options(state: ARiskCatState) -> tuple[int, ...]:
    return steal_options(state, f"p{MUSICIAN_CATS}-1")


def cat_swap_options(state: ARiskCatState) -> tuple[int, ...]:
    return tuple(
        s for s in others(state, state.active_seat) if state.stacks[s] and not angel_protected(state, s)
    )


def robin_candidates(state: ARiskCatState) -> tuple[int, ...]:
    """The largest non-empty stacks that are not Angel-topped, the active seat's own included
    (listed from the active seat, clockwise)."""
    seats = [state.active_seat, *others(state, state.active_seat)]
    eligible = [s for s in seats if state.stacks[s] and not angel_protected(state, s)]
    if not eligible:
        return ()
    largest = max(len(state.stacks[s]) for s in eligible)
    return tuple(s for s in eligible if len(state.stacks[s]) == largest)


def ladies_options(state: ARiskCatState) -> tuple[int, ...]:
    return cat_swap_options(state)


def triggers(state: ARiskCatState, joining: Sequence[str]) -> tuple[str, ...]:
    """The joining tokens whose power triggers (full mode): Robin Tell, Banker, Cheater, and the
    lady that completes the three ladies this turn (which happens at most once a turn)."""
    if not state.full:
        return ()
    ladies = {painting(t) for t in state.turn_tokens} & LADIES
    out: list[str] = []
    for token in joining:
        p = painting(token)
        if token in (ROBIN_TELL, BANKER, CHEATER):
            out.append(token)
        elif p in LADIES and p not in ladies:
            ladies.add(p)
            if len(ladies) == len(LADIES):
                out.append(token)
    return tuple(out)


def is_bust(state: ARiskCatState, token: str) -> bool:
    p = painting(token)
    return any(painting(d) == p for d in state.drawn)

"""The commands a seat may send now: complete and concrete (a bot picks from this list)."""

from __future__ import annotations

from itertools import combinations

from domain.a_risk_cat.commands import (
    ChooseRobinTellTarget,
    DealRobinTellToken,
    DismissLadies,
    DrawToken,
    KeepMusicianCat,
    StealRuns,
    StopAndStack,
    SwapMusicianCat,
    TakeMusicianCats,
    TakeTokenForLadies,
)
from domain.a_risk_cat.state import (
    ARiskCatState,
    PendingDrawOrStop,
    PendingFirstDraw,
    PendingLadiesTake,
    PendingMusicianCat,
    PendingRobinTellDeal,
    PendingRobinTellTarget,
    PendingRunSteal,
)
from domain.decider import Command


def legal_commands(state: ARiskCatState, seat: int) -> list[Command]:
    """Empty unless the game waits for ``seat``.

    A stop is offered in two orders, as obtained (last on top) and its reverse; ``decide`` accepts
    any permutation. A steal is offered as every subset of the matching stacks (none included).
    """
    pending = state.pending
    if state.phase != "playing" or pending is None or pending.seat != seat:
        return []
    match pending:
        case PendingFirstDraw():
            return [DrawToken()]
        case PendingDrawOrStop():
            draw: list[Command] = [DrawToken()] if pending.can_draw else []
            obtained = list(state.turn_tokens)
            stops: list[Command] = [StopAndStack(order=obtained)]
            if len(obtained) > 1:
                stops.append(StopAndStack(order=obtained[::-1]))
            return draw + stops
        case PendingRunSteal():
            seats = pending.from_seats
            return [
                StealRuns(from_seats=list(chosen))
                for size in range(len(seats) + 1)
                for chosen in combinations(seats, size)
            ]
        case PendingMusicianCat():
            take: list[Command] = [TakeMusicianCats()] if pending.take_from else []
            swaps: list[Command] = [SwapMusicianCat(with_seat=s) for s in pending.swap_with]
            return [*take, *swaps, KeepMusicianCat()]
        case PendingRobinTellTarget():
            return [ChooseRobinTellTarget(seat=s) for s in pending.candidates]
        case PendingRobinTellDeal():
            return [DealRobinTellToken(to_seat=s) for s in range(state.players)]
        case PendingLadiesTake():
            takes: list[Command] = [TakeTokenForLadies(from_seat=s) for s in pending.from_seats]
            return [*takes, DismissLadies()]
    return []  # pragma: no cover

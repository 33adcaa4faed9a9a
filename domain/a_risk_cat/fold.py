"""``evolve``: an event applied to the state. Only facts: every random outcome (the bag's order,
each drawn token) and every choice is in the events; no RNG, no clock. What it derives from the
state is bookkeeping the events imply: the power queue advances as each power resolves, a dealt
token is the robbed pile's top.
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec.structs import replace

from domain.a_risk_cat.events import (
    ARiskCatEvent,
    ARiskCatGameEnded,
    ARiskCatGameSetUp,
    ARiskCatTurnStarted,
    BankerReturned,
    CheaterArmed,
    LadiesAssembled,
    LadiesDismissed,
    LadyTookToken,
    MusicianCatKept,
    MusicianCatsTaken,
    MusicianCatSwapped,
    RobinTellTargetChosen,
    RobinTellTokenDealt,
    RobinTellTriggered,
    RunsStolen,
    SeatConceded,
    StolenRun,
    TokenDrawn,
    TurnBusted,
    TurnStopped,
)
from domain.a_risk_cat.state import (
    ARiskCatState,
)


def _set_stack(
    stacks: tuple[tuple[str, ...], ...], seat: int, stack: tuple[str, ...]
) -> tuple[tuple[str, ...], ...]:
    return (*stacks[:seat], stack, *stacks[seat + 1 :])


def _take_runs(
    state: ARiskCatState, runs: Sequence[StolenRun]
) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]:
    stacks = state.stacks
    joined = state.turn_tokens
    for run in runs:
        stack = stacks[run.from_seat]
        stacks = _set_stack(stacks, run.from_seat, stack[: len(stack) - len(run.tokens)])
        joined += run.tokens
    return stacks, joined


def evolve(state: ARiskCatState, event: ARiskCatEvent) -> ARiskCatState:
    """Apply one event: sets fields only, never an RNG or a clock."""
    after = {"pending": event.awaiting, "deadline": event.deadline}
    match event:
        case ARiskCatGameSetUp():
            return replace(
                state,
                phase="playing",
                removed_paintings=event.removed_paintings,
                bag=event.bag,
                commitment=event.commitment,
                salt=event.salt,
                stacks=((),) * event.players,
                active_seat=event.first_seat,
                turn_number=1,
                **after,
            )
        case ARiskCatTurnStarted():
            return replace(
                state,
                active_seat=event.seat,
                turn_number=event.turn_number,
                turn_tokens=(),
                drawn=(),
                cheater="none",
                power_queue=(),
                **after,
            )
        case TokenDrawn():
            bag = (
                state.bag[1:]
                if state.bag[:1] == (event.token,)
                else tuple(t for t in state.bag if t != event.token)
            )
            return replace(
                state,
                bag=bag,
                turn_tokens=(*state.turn_tokens, event.token),
                drawn=(*state.drawn, event.token),
                cheater="spent" if event.spared else state.cheater,
                power_queue=state.power_queue + event.triggers,
                **after,
            )
        case TurnBusted():
            return replace(
                state,
                bag=event.bag,
                commitment=event.commitment,
                salt=event.salt,
                turn_tokens=(),
                drawn=(),
                power_queue=(),
                **after,
            )
        case RunsStolen():
            stacks, joined = _take_runs(state, event.runs)
            return replace(
                state,
                stacks=stacks,
                turn_tokens=joined,
                power_queue=state.power_queue + event.triggers,
                **after,
            )
        case MusicianCatsTaken():
            stacks, joined = _take_runs(state, event.runs)
            return replace(state, stacks=stacks, turn_tokens=joined, **after)
        case MusicianCatSwapped():
            stack = state.stacks[event.with_seat]
            return replace(
                state,
                stacks=_set_stack(state.stacks, event.with_seat, (*stack[:-1], event.cat)),
                turn_tokens=(*(t for t in state.turn_tokens if t != event.cat), event.token),
                power_queue=state.power_queue + event.triggers,
                **after,
            )
        case CheaterArmed():
            return replace(state, cheater="armed", power_queue=state.power_queue[1:], **after)
        case BankerReturned():
            if event.count == 0:
                return replace(state, power_queue=state.power_queue[1:], **after)
            stack = state.stacks[event.seat]
            return replace(
                state,
                stacks=_set_stack(state.stacks, event.seat, stack[: len(stack) - event.count]),
                bag=event.bag,
                commitment=event.commitment,
                salt=event.salt,
                power_queue=state.power_queue[1:],
                **after,
            )
        case RobinTellTriggered():
            if event.robbed_seat is None:
                return replace(state, power_queue=state.power_queue[1:], **after)
            return replace(
                state,
                stacks=_set_stack(state.stacks, event.robbed_seat, ()),
                robin_pile=event.pile,
                robbed_seat=event.robbed_seat,
                power_queue=state.power_queue[1:],
                **after,
            )
        case RobinTellTargetChosen():
            return replace(
                state,
                stacks=_set_stack(state.stacks, event.robbed_seat, ()),
                robin_pile=event.pile,
                robbed_seat=event.robbed_seat,
                **after,
            )
        case RobinTellTokenDealt():
            pile = state.robin_pile[:-1]
            return replace(
                state,
                stacks=_set_stack(state.stacks, event.to_seat, (*state.stacks[event.to_seat], event.token)),
                robin_pile=pile,
                robbed_seat=state.robbed_seat if pile else None,
                **after,
            )
        case LadiesAssembled():
            return replace(state, power_queue=state.power_queue[1:], **after)
        case LadyTookToken():
            stack = state.stacks[event.from_seat]
            return replace(
                state,
                stacks=_set_stack(state.stacks, event.from_seat, stack[:-1]),
                turn_tokens=(*state.turn_tokens, event.token),
                power_queue=state.power_queue + event.triggers,
                **after,
            )
        case TurnStopped():
            return replace(
                state,
                stacks=_set_stack(state.stacks, event.seat, state.stacks[event.seat] + event.order),
                turn_tokens=(),
                drawn=(),
                power_queue=(),
                **after,
            )
        case SeatConceded():
            return replace(state, conceded=(*state.conceded, event.seat), **after)
        case ARiskCatGameEnded():
            return replace(
                state,
                phase="over",
                scores=event.scores,
                winners=event.winners,
                paintings_won=event.paintings_won,
                **after,
            )
        case MusicianCatKept() | LadiesDismissed():
            return replace(state, **after)
    return state

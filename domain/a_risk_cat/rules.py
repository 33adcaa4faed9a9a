"""A Risk Cat's public entry points: ``initial_state``, ``start``, ``decide``, ``evolve``, and the
server's side (RULES.md 3 "Rules common to every game": timeouts, conceding).

``decide`` checks the command against the pending decision, then runs every automatic step that
follows (bust, powers, end of turn, end of game) until the game waits for a seat again; the last
event it returns names that pending decision (``awaiting``) and its ``deadline``. The steps live
by the rulebook's sections: setup.py (2.2), turn.py (2.3), steals.py (2.3 steals and stops),
powers.py (2.5), scoring.py (2.4); stacks.py reads the table; fold.py holds ``evolve``.

Rulings kept here (RULES 3):

- Server timeouts: draw at the start of a turn; afterwards stop with the tokens in the order
  obtained (last on top); decline a steal; keep a Cat; Robin Tell deals everything left back to
  the robbed seat; Robin Tell's target among tied richest stacks is the first of them in seat
  order after the chooser (its own stack last); the ladies take nothing. Such events have
  ``by_server=True``. The server's timeout command is refused before the deadline or when
  ``decision_timeout`` is off.
- Leaving a running game (``Concede``): the seat concedes (``SeatConceded``, public). Its turns
  are skipped from then on; if it was the active seat, its pending decisions resolve at once with
  the timeout choices above (by the server), except that a turn not yet begun is skipped without
  a draw. Its stack stays on the table and is scored at the end. With fewer than two seats
  standing, the turn in progress is closed the same way (never drawing) and the game ends at
  once, scored.
"""

from __future__ import annotations

from typing import NoReturn

from msgspec.structs import replace

from domain import refusals
from domain.a_risk_cat.batch import ARiskCatBatch
from domain.a_risk_cat.commands import (
    COMMAND_TYPES,
    ARiskCatCommand,
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
from domain.a_risk_cat.events import (
    ARiskCatEvent,
    LadiesDismissed,
    LadyTookToken,
    MusicianCatKept,
    MusicianCatsTaken,
    MusicianCatSwapped,
    SeatConceded,
    StolenRun,
)
from domain.a_risk_cat.fold import evolve
from domain.a_risk_cat.powers import after_deal, after_lady_take, deal, resolve_powers, rob
from domain.a_risk_cat.setup import initial_state, start
from domain.a_risk_cat.stacks import angel_protected, top_run, triggers
from domain.a_risk_cat.state import (
    ARiskCatPending,
    ARiskCatState,
    PendingDrawOrStop,
    PendingFirstDraw,
    PendingLadiesTake,
    PendingMusicianCat,
    PendingRobinTellDeal,
    PendingRobinTellTarget,
    PendingRunSteal,
)
from domain.a_risk_cat.steals import steal, stop
from domain.a_risk_cat.turn import draw, end_turn, first_after
from domain.decider import ActOnTimeout, Command, Concede, Context, Outcome
from domain.errors import RuleViolation
from domain.rereading import checked

__all__ = ["deadline", "decide", "evolve", "initial_state", "on_deadline", "outcome", "start", "waiting_for"]


def _refuse_top(state: ARiskCatState, active: int, seat: int, code: str, message: str) -> NoReturn:
    """Refuse taking ``seat``'s top token: an Angel's protection first, else ``code``."""
    if seat != active and state.stacks[seat] and angel_protected(state, seat):
        raise RuleViolation("angel_protected", f"An Angel protects seat {seat}'s stack.")
    raise RuleViolation(code, message)


def _validated(command: object) -> ARiskCatCommand:
    valid: ARiskCatCommand = checked(command, COMMAND_TYPES, "A Risk Cat")
    return valid


def decide(state: ARiskCatState, command: object, ctx: Context) -> list[ARiskCatEvent]:
    """The events a command produces, or RuleViolation (and nothing else) when it is refused."""
    return _decided(state, command, ctx).events


def decide_and_fold(
    state: ARiskCatState, command: object, ctx: Context
) -> tuple[list[ARiskCatEvent], ARiskCatState]:
    """``decide``'s events and the state after them, folded as they were made (domain/batch.py)."""
    batch = _decided(state, command, ctx)
    return batch.events, batch.state


def _decided(state: ARiskCatState, command: object, ctx: Context) -> ARiskCatBatch:
    """The batch of a command's events, or RuleViolation (and nothing else) when it is refused."""
    command = _validated(command)
    if not isinstance(ctx, Context):
        raise RuleViolation("invalid_context", "The command came without a usable context.")
    if state.phase == "not_started":
        raise RuleViolation(refusals.GAME_NOT_STARTED, "The game has not started yet.")
    if state.phase == "over":
        raise RuleViolation(refusals.GAME_OVER, "The game is over.")
    pending = state.pending
    if pending is None:  # pragma: no cover - a running game always waits for someone
        raise RuleViolation(refusals.NO_PENDING_DECISION, "The game is not waiting for any decision.")
    seat = ctx.seat
    if isinstance(command, ActOnTimeout):
        if seat is not None:
            raise RuleViolation(refusals.SERVER_ONLY, "Only the server acts on a timeout.")
        now = ctx.now
        if state.deadline is None:
            raise RuleViolation(refusals.NO_DEADLINE, "The pending decision has no deadline.")
        if not isinstance(now, int | float) or not now >= state.deadline:
            raise RuleViolation(
                refusals.DEADLINE_NOT_REACHED, "The pending decision's deadline has not passed."
            )
        batch = ARiskCatBatch(state, ctx)
        return batch.finish(_timeout_step(batch, pending))
    if type(seat) is not int or not 0 <= seat < state.players:
        raise RuleViolation(refusals.NOT_A_PLAYER, "Only a seat of this game may send this command.")
    if isinstance(command, Concede):
        if seat in state.conceded:
            raise RuleViolation("already_conceded", "This seat has already conceded.")
        return _concede(ARiskCatBatch(state, ctx), seat)
    if seat != pending.seat:
        raise RuleViolation(
            refusals.NOT_YOUR_TURN, f"The game is waiting for seat {pending.seat}, not seat {seat}."
        )
    return _answer(ARiskCatBatch(state, ctx), pending, command)


def _expect(pending: ARiskCatPending, what: str) -> RuleViolation:
    waiting = {
        PendingFirstDraw: "the first draw of the turn",
        PendingDrawOrStop: "draw again or stop",
        PendingRunSteal: "a steal choice",
        PendingMusicianCat: "a Musician Cat choice",
        PendingRobinTellTarget: "Robin Tell's target",
        PendingRobinTellDeal: "Robin Tell's deal",
        PendingLadiesTake: "the three ladies' take",
    }[type(pending)]
    return RuleViolation(refusals.NO_PENDING_DECISION, f"No {what} is pending; the game waits for {waiting}.")


def _seat_arg(state: ARiskCatState, value: int) -> int:
    if not 0 <= value < state.players:
        raise RuleViolation(refusals.INVALID_TARGET, f"There is no seat {value} in this game.")
    return value


def _answer(batch: ARiskCatBatch, pending: ARiskCatPending, command: Command) -> ARiskCatBatch:
    state = batch.state
    match command:
        case DrawToken():
            if not isinstance(pending, PendingFirstDraw | PendingDrawOrStop):
                raise _expect(pending, "draw")
            if not state.bag:
                raise RuleViolation("bag_empty", "The bag is empty: the only choice is to stop.")
            return batch.finish(draw(batch, by_server=False))
        case StopAndStack(order=order):
            if isinstance(pending, PendingFirstDraw):
                raise RuleViolation("must_draw_first", "A turn starts with at least one draw.")
            if not isinstance(pending, PendingDrawOrStop):
                raise _expect(pending, "stop")
            if len(order) != len(state.turn_tokens) or sorted(order) != sorted(state.turn_tokens):
                raise RuleViolation(
                    "invalid_order", "The order must list each of this turn's tokens exactly once."
                )
            return batch.finish(stop(batch, tuple(order), by_server=False))
        case StealRuns(from_seats=from_seats):
            if not isinstance(pending, PendingRunSteal):
                raise _expect(pending, "steal choice")
            if len(set(from_seats)) != len(from_seats):
                raise RuleViolation("duplicate_seat", "Each stack can be named only once.")
            for s in from_seats:
                if s not in pending.from_seats:
                    raise RuleViolation(
                        "stack_not_stealable", f"Seat {s}'s stack is not topped by a matching token."
                    )
            chosen = [s for s in pending.from_seats if s in from_seats]
            return batch.finish(steal(batch, chosen, by_server=False))
        case TakeMusicianCats():
            if not isinstance(pending, PendingMusicianCat):
                raise _expect(pending, "Musician Cat choice")
            if not pending.take_from:
                raise RuleViolation("no_cats_to_take", "No other stack is topped by a Musician Cat.")
            runs = tuple(StolenRun(from_seat=s, tokens=top_run(state.stacks[s])) for s in pending.take_from)
            batch.emit(MusicianCatsTaken(seat=pending.seat, runs=runs))
            return batch.finish(resolve_powers(batch))
        case SwapMusicianCat(with_seat=with_seat):
            if not isinstance(pending, PendingMusicianCat):
                raise _expect(pending, "Musician Cat choice")
            target = _seat_arg(state, with_seat)
            if target not in pending.swap_with:
                _refuse_top(
                    state,
                    pending.seat,
                    target,
                    "stack_not_swappable",
                    "The Cat can only be swapped with another seat's non-empty stack.",
                )
            taken = state.stacks[target][-1]
            batch.emit(
                MusicianCatSwapped(
                    seat=pending.seat,
                    with_seat=target,
                    cat=pending.token,
                    token=taken,
                    triggers=triggers(state, [taken]),
                )
            )
            return batch.finish(resolve_powers(batch))
        case KeepMusicianCat():
            if not isinstance(pending, PendingMusicianCat):
                raise _expect(pending, "Musician Cat choice")
            batch.emit(MusicianCatKept(seat=pending.seat, token=pending.token))
            return batch.finish(resolve_powers(batch))
        case ChooseRobinTellTarget(seat=robbed):
            if not isinstance(pending, PendingRobinTellTarget):
                raise _expect(pending, "Robin Tell target")
            target = _seat_arg(state, robbed)
            if target not in pending.candidates:
                if angel_protected(state, target):
                    raise RuleViolation("angel_protected", f"An Angel protects seat {target}'s stack.")
                raise RuleViolation(
                    refusals.INVALID_TARGET, "Robin Tell robs one of the richest stacks only."
                )
            return batch.finish(rob(batch, target, by_server=False))
        case DealRobinTellToken(to_seat=to_seat):
            if not isinstance(pending, PendingRobinTellDeal):
                raise _expect(pending, "Robin Tell deal")
            deal(batch, _seat_arg(state, to_seat), by_server=False)
            return batch.finish(after_deal(batch))
        case TakeTokenForLadies(from_seat=from_seat):
            if not isinstance(pending, PendingLadiesTake):
                raise _expect(pending, "ladies' take")
            source = _seat_arg(state, from_seat)
            if source not in pending.from_seats:
                _refuse_top(
                    state,
                    pending.seat,
                    source,
                    "invalid_target",
                    "The ladies take the top of another seat's non-empty stack.",
                )
            token = state.stacks[source][-1]
            batch.emit(
                LadyTookToken(
                    seat=pending.seat, from_seat=source, token=token, triggers=triggers(state, [token])
                )
            )
            return batch.finish(after_lady_take(batch, pending.taken + 1))
        case DismissLadies():
            if not isinstance(pending, PendingLadiesTake):
                raise _expect(pending, "ladies' take")
            batch.emit(LadiesDismissed(seat=pending.seat, taken=pending.taken))
            return batch.finish(resolve_powers(batch))
    raise RuleViolation(refusals.UNKNOWN_COMMAND, "This is not an A Risk Cat command.")  # pragma: no cover


def _timeout_step(batch: ARiskCatBatch, pending: ARiskCatPending) -> ARiskCatPending | None:
    """RULES 3: the most neutral legal choice, marked as made by the server; the next decision."""
    state = batch.state
    match pending:
        case PendingFirstDraw():
            return draw(batch, by_server=True)
        case PendingDrawOrStop():
            return stop(batch, state.turn_tokens, by_server=True)
        case PendingRunSteal():
            return steal(batch, [], by_server=True)
        case PendingMusicianCat():
            batch.emit(MusicianCatKept(seat=pending.seat, token=pending.token, by_server=True))
            return resolve_powers(batch)
        case PendingRobinTellTarget():
            return rob(batch, first_after(state, pending.seat, pending.candidates), by_server=True)
        case PendingRobinTellDeal():
            while batch.state.robin_pile:
                deal(batch, pending.robbed_seat, by_server=True)
            return after_deal(batch)
        case PendingLadiesTake():
            batch.emit(LadiesDismissed(seat=pending.seat, taken=pending.taken, by_server=True))
            return resolve_powers(batch)
    raise RuleViolation(refusals.NO_PENDING_DECISION, "Nothing to act on.")  # pragma: no cover


def _concede(batch: ARiskCatBatch, seat: int) -> ARiskCatBatch:
    """RULES 3: the seat concedes. Its pending decisions resolve with the timeout choices and its
    turns are skipped; with fewer than two seats standing, the turn in progress closes the same
    way (never drawing) and the game ends, scored."""
    before = batch.state
    pending = before.pending
    batch.emit(SeatConceded(seat=seat))
    while pending is not None and (pending.seat in batch.state.conceded or len(batch.state.standing()) < 2):
        pending = end_turn(batch) if isinstance(pending, PendingFirstDraw) else _timeout_step(batch, pending)
    if len(batch.events) == 1 and pending is not None:
        # Nothing else happened: the decision the game waits for keeps its deadline.
        batch.replace_last(replace(batch.events[0], awaiting=pending, deadline=before.deadline))
        return batch
    return batch.finish(pending)


def deadline(state: ARiskCatState) -> float | None:
    """When the server answers the pending decision itself (None: no timeout, or not running)."""
    if state.phase != "playing" or state.pending is None:
        return None
    return state.deadline


def waiting_for(state: ARiskCatState) -> int | None:
    """The seat whose answer ``deadline(state)`` waits for: the pending decision's."""
    return state.pending.seat if state.phase == "playing" and state.pending is not None else None


def on_deadline(state: ARiskCatState) -> ActOnTimeout:
    return ActOnTimeout()


def outcome(state: ARiskCatState) -> Outcome | None:
    if state.phase != "over" or state.scores is None:
        return None
    return Outcome(winners=state.winners, scores=state.scores)

"""The rules: setup, decide (commands -> events) and evolve (events -> state).

``decide`` checks a command against the pending decision, then runs every automatic step that
follows (bust, powers, end of turn, end of game) until the game waits for a seat again; the last
event it returns names that pending decision (``awaiting``) and its ``deadline``. ``evolve`` only
sets fields: every random outcome (the bag's order, each drawn token) is in the events.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NoReturn

import msgspec
from msgspec.structs import replace

from domain import refusals
from domain.a_risk_cat.commands import (
    COMMAND_TYPES,
    ARiskCatActOnTimeout,
    ARiskCatCommand,
    ChooseRobinTellTarget,
    Concede,
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
from domain.a_risk_cat.scoring import score
from domain.a_risk_cat.state import (
    ARiskCatOptions,
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
from domain.a_risk_cat.tokens import (
    ANGEL,
    BANKER,
    CHEATER,
    LADIES,
    MUSICIAN_CATS,
    ROBIN_TELL,
    painting,
    removed_paintings,
    tokens_in_play,
)
from domain.batch import Batch
from domain.commitment import commit, new_salt
from domain.decider import Command, Context, Outcome
from domain.errors import RuleViolation

LADIES_MAX_TAKES = 4

# --- reading the table ------------------------------------------------------------------------


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


# --- setup ------------------------------------------------------------------------------------


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
    turn = _Turn(state, ctx)
    turn.emit(
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
    return turn.finish(PendingFirstDraw(seat=first))


# --- decide -----------------------------------------------------------------------------------


class _Turn(Batch[ARiskCatState, ARiskCatEvent]):
    """The kernel's batch for one decision, with the context and this game's last step."""

    __slots__ = ("ctx",)

    def __init__(self, state: ARiskCatState, ctx: Context) -> None:
        super().__init__(state, evolve)
        self.ctx = ctx

    def finish(self, pending: ARiskCatPending | None) -> list[ARiskCatEvent]:
        """The last event names the decision the game now waits for, and its deadline."""
        if pending is not None:
            timeout = self.state.options.decision_timeout
            deadline = None if timeout is None else _clock(self.ctx) + timeout
            self.replace_last(replace(self.events[-1], awaiting=pending, deadline=deadline))
        return self.events

    def shuffled_bag(self, tokens: Sequence[str]) -> tuple[tuple[str, ...], str, str]:
        bag = list(tokens)
        self.ctx.rng.shuffle(bag)
        salt = new_salt(self.ctx.rng)
        return tuple(bag), commit(bag, salt), salt


def _clock(ctx: Context) -> float:
    now = ctx.now
    if not isinstance(now, int | float) or not math.isfinite(now):
        raise RuleViolation("invalid_clock", "The server's clock gave no usable time.")
    return float(now)


def _refuse_top(state: ARiskCatState, active: int, seat: int, code: str, message: str) -> NoReturn:
    """Refuse taking ``seat``'s top token: an Angel's protection first, else ``code``."""
    if seat != active and state.stacks[seat] and angel_protected(state, seat):
        raise RuleViolation("angel_protected", f"An Angel protects seat {seat}'s stack.")
    raise RuleViolation(code, message)


def _validated(command: object) -> ARiskCatCommand:
    """The command re-read through msgspec: another game's command, or any field of the wrong
    type, is refused here, so the rules below only ever see well-formed commands."""
    if type(command) not in COMMAND_TYPES:
        raise RuleViolation(refusals.UNKNOWN_COMMAND, "This is not an A Risk Cat command.")
    try:
        valid: ARiskCatCommand = msgspec.convert(msgspec.to_builtins(command), ARiskCatCommand)
    except Exception as exc:  # garbage field values of any kind
        raise RuleViolation(refusals.INVALID_COMMAND, f"Malformed command: {exc}") from None
    return valid


def decide(state: ARiskCatState, command: object, ctx: Context) -> list[ARiskCatEvent]:
    """The events a command produces, or RuleViolation (and nothing else) when it is refused."""
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
    if isinstance(command, ARiskCatActOnTimeout):
        if seat is not None:
            raise RuleViolation("server_only", "Only the server acts on a timeout.")
        now = ctx.now
        if state.deadline is None:
            raise RuleViolation(refusals.NO_DEADLINE, "The pending decision has no deadline.")
        if not isinstance(now, int | float) or not now >= state.deadline:
            raise RuleViolation(
                refusals.DEADLINE_NOT_REACHED, "The pending decision's deadline has not passed."
            )
        turn = _Turn(state, ctx)
        return turn.finish(_timeout_step(turn, pending))
    if type(seat) is not int or not 0 <= seat < state.players:
        raise RuleViolation(refusals.NOT_A_PLAYER, "Only a seat of this game may send this command.")
    if isinstance(command, Concede):
        if seat in state.conceded:
            raise RuleViolation("already_conceded", "This seat has already conceded.")
        return _concede(_Turn(state, ctx), seat)
    if seat != pending.seat:
        raise RuleViolation(
            refusals.NOT_YOUR_TURN, f"The game is waiting for seat {pending.seat}, not seat {seat}."
        )
    return _answer(_Turn(state, ctx), pending, command)


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


def _answer(turn: _Turn, pending: ARiskCatPending, command: Command) -> list[ARiskCatEvent]:
    state = turn.state
    match command:
        case DrawToken():
            if not isinstance(pending, PendingFirstDraw | PendingDrawOrStop):
                raise _expect(pending, "draw")
            if not state.bag:
                raise RuleViolation("bag_empty", "The bag is empty: the only choice is to stop.")
            return turn.finish(_draw(turn, by_server=False))
        case StopAndStack(order=order):
            if isinstance(pending, PendingFirstDraw):
                raise RuleViolation("must_draw_first", "A turn starts with at least one draw.")
            if not isinstance(pending, PendingDrawOrStop):
                raise _expect(pending, "stop")
            if len(order) != len(state.turn_tokens) or sorted(order) != sorted(state.turn_tokens):
                raise RuleViolation(
                    "invalid_order", "The order must list each of this turn's tokens exactly once."
                )
            return turn.finish(_stop(turn, tuple(order), by_server=False))
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
            return turn.finish(_steal(turn, chosen, by_server=False))
        case TakeMusicianCats():
            if not isinstance(pending, PendingMusicianCat):
                raise _expect(pending, "Musician Cat choice")
            if not pending.take_from:
                raise RuleViolation("no_cats_to_take", "No other stack is topped by a Musician Cat.")
            runs = tuple(StolenRun(from_seat=s, tokens=top_run(state.stacks[s])) for s in pending.take_from)
            turn.emit(MusicianCatsTaken(seat=pending.seat, runs=runs))
            return turn.finish(_resolve_powers(turn))
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
            turn.emit(
                MusicianCatSwapped(
                    seat=pending.seat,
                    with_seat=target,
                    cat=pending.token,
                    token=taken,
                    triggers=triggers(state, [taken]),
                )
            )
            return turn.finish(_resolve_powers(turn))
        case KeepMusicianCat():
            if not isinstance(pending, PendingMusicianCat):
                raise _expect(pending, "Musician Cat choice")
            turn.emit(MusicianCatKept(seat=pending.seat, token=pending.token))
            return turn.finish(_resolve_powers(turn))
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
            return turn.finish(_rob(turn, target, by_server=False))
        case DealRobinTellToken(to_seat=to_seat):
            if not isinstance(pending, PendingRobinTellDeal):
                raise _expect(pending, "Robin Tell deal")
            _deal(turn, _seat_arg(state, to_seat), by_server=False)
            return turn.finish(_after_deal(turn))
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
            turn.emit(
                LadyTookToken(
                    seat=pending.seat, from_seat=source, token=token, triggers=triggers(state, [token])
                )
            )
            return turn.finish(_after_lady_take(turn, pending.taken + 1))
        case DismissLadies():
            if not isinstance(pending, PendingLadiesTake):
                raise _expect(pending, "ladies' take")
            turn.emit(LadiesDismissed(seat=pending.seat, taken=pending.taken))
            return turn.finish(_resolve_powers(turn))
    raise RuleViolation(refusals.UNKNOWN_COMMAND, "This is not an A Risk Cat command.")  # pragma: no cover


def _timeout_step(turn: _Turn, pending: ARiskCatPending) -> ARiskCatPending | None:
    """RULES 3: the most neutral legal choice, marked as made by the server; the next decision."""
    state = turn.state
    match pending:
        case PendingFirstDraw():
            return _draw(turn, by_server=True)
        case PendingDrawOrStop():
            return _stop(turn, state.turn_tokens, by_server=True)
        case PendingRunSteal():
            return _steal(turn, [], by_server=True)
        case PendingMusicianCat():
            turn.emit(MusicianCatKept(seat=pending.seat, token=pending.token, by_server=True))
            return _resolve_powers(turn)
        case PendingRobinTellTarget():
            return _rob(turn, first_after(state, pending.seat, pending.candidates), by_server=True)
        case PendingRobinTellDeal():
            while turn.state.robin_pile:
                _deal(turn, pending.robbed_seat, by_server=True)
            return _after_deal(turn)
        case PendingLadiesTake():
            turn.emit(LadiesDismissed(seat=pending.seat, taken=pending.taken, by_server=True))
            return _resolve_powers(turn)
    raise RuleViolation(refusals.NO_PENDING_DECISION, "Nothing to act on.")  # pragma: no cover


def first_after(state: ARiskCatState, chooser: int, seats: Sequence[int]) -> int:
    """RULES 3: the first of ``seats`` in seat order after ``chooser`` (the chooser's own last)."""
    n = state.players
    return min(seats, key=lambda s: (s - chooser - 1) % n)


def _concede(turn: _Turn, seat: int) -> list[ARiskCatEvent]:
    """RULES 3: the seat concedes. Its pending decisions resolve with the timeout choices and its
    turns are skipped; with fewer than two seats standing, the turn in progress closes the same
    way (never drawing) and the game ends, scored."""
    before = turn.state
    pending = before.pending
    turn.emit(SeatConceded(seat=seat))
    while pending is not None and (pending.seat in turn.state.conceded or len(turn.state.standing()) < 2):
        pending = _end_turn(turn) if isinstance(pending, PendingFirstDraw) else _timeout_step(turn, pending)
    if len(turn.events) == 1 and pending is not None:
        # Nothing else happened: the decision the game waits for keeps its deadline.
        turn.replace_last(replace(turn.events[0], awaiting=pending, deadline=before.deadline))
        return turn.events
    return turn.finish(pending)


# --- the steps of a turn ------------------------------------------------------------------------


def _draw(turn: _Turn, *, by_server: bool) -> ARiskCatPending | None:
    """2.3: draw the bag's top token; bust check; then the steal or Cat choice; then powers."""
    state = turn.state
    seat = state.active_seat
    token = state.bag[0]
    duplicate = is_bust(state, token)
    spared = duplicate and state.full and state.cheater == "armed"
    turn.emit(
        TokenDrawn(
            seat=seat,
            token=token,
            spared=spared,
            triggers=() if duplicate and not spared else triggers(state, [token]),
            by_server=by_server,
        )
    )
    if duplicate and not spared:
        returned = turn.state.turn_tokens
        bag, commitment, salt = turn.shuffled_bag(turn.state.bag + returned)
        turn.emit(
            TurnBusted(
                seat=seat,
                token=token,
                returned=returned,
                bag_size=len(bag),
                commitment=commitment,
                bag=bag,
                salt=salt,
            )
        )
        return _end_turn(turn)
    state = turn.state
    if painting(token) == MUSICIAN_CATS:
        take_from = cat_take_options(state)
        swap_with = cat_swap_options(state)
        if take_from or swap_with:
            return PendingMusicianCat(seat=seat, token=token, take_from=take_from, swap_with=swap_with)
    else:
        matching = steal_options(state, token)
        if matching:
            return PendingRunSteal(seat=seat, token=token, from_seats=matching)
    return _resolve_powers(turn)


def _steal(turn: _Turn, from_seats: Sequence[int], *, by_server: bool) -> ARiskCatPending | None:
    state = turn.state
    runs = tuple(StolenRun(from_seat=s, tokens=top_run(state.stacks[s])) for s in from_seats)
    joining = [t for run in runs for t in run.tokens]
    turn.emit(
        RunsStolen(seat=state.active_seat, runs=runs, triggers=triggers(state, joining), by_server=by_server)
    )
    return _resolve_powers(turn)


def _resolve_powers(turn: _Turn) -> ARiskCatPending | None:
    """2.5: resolve the triggered powers in the order their tokens joined, then draw or stop."""
    while turn.state.power_queue:
        state = turn.state
        seat = state.active_seat
        token = state.power_queue[0]
        if token == CHEATER:
            turn.emit(CheaterArmed(seat=seat, token=token))
        elif token == BANKER:
            _banker(turn)
        elif token == ROBIN_TELL:
            candidates = robin_candidates(state)
            if len(candidates) == 1:
                robbed = candidates[0]
                pile = state.stacks[robbed]
                turn.emit(
                    RobinTellTriggered(
                        seat=seat,
                        token=token,
                        candidates=candidates,
                        robbed_seat=robbed,
                        count=len(pile),
                        pile_top=pile[-1],
                        pile=pile,
                    )
                )
                return _deal_pending(turn)
            turn.emit(RobinTellTriggered(seat=seat, token=token, candidates=candidates))
            if candidates:
                return PendingRobinTellTarget(seat=seat, candidates=candidates)
        else:  # the lady that completed the three ladies
            turn.emit(LadiesAssembled(seat=seat, token=token))
            pending = _ladies_pending(turn, 0)
            if pending is not None:
                return pending
    return PendingDrawOrStop(seat=turn.state.active_seat, can_draw=bool(turn.state.bag))


def _banker(turn: _Turn) -> None:
    state = turn.state
    seat = state.active_seat
    stack = state.stacks[seat]
    blocked = angel_protected(state, seat)
    count = 0 if blocked else (len(stack) + 1) // 2
    if count == 0:
        turn.emit(
            BankerReturned(
                seat=seat,
                token=BANKER,
                count=0,
                blocked=blocked,
                new_top=top(stack),
                stack_size=len(stack),
                bag_size=len(state.bag),
                commitment="",  # nothing went back: no reshuffle, nothing new to commit to
            )
        )
        return
    returned = stack[len(stack) - count :]
    kept = stack[: len(stack) - count]
    bag, commitment, salt = turn.shuffled_bag(state.bag + returned)
    turn.emit(
        BankerReturned(
            seat=seat,
            token=BANKER,
            count=count,
            blocked=False,
            new_top=top(kept),
            stack_size=len(kept),
            bag_size=len(bag),
            commitment=commitment,
            returned=returned,
            bag=bag,
            salt=salt,
        )
    )


def _rob(turn: _Turn, robbed: int, *, by_server: bool) -> ARiskCatPending | None:
    state = turn.state
    pile = state.stacks[robbed]
    turn.emit(
        RobinTellTargetChosen(
            seat=state.active_seat,
            robbed_seat=robbed,
            count=len(pile),
            pile_top=pile[-1],
            pile=pile,
            by_server=by_server,
        )
    )
    return _deal_pending(turn)


def _deal_pending(turn: _Turn) -> ARiskCatPending:
    state = turn.state
    assert state.robbed_seat is not None and state.robin_pile
    return PendingRobinTellDeal(
        seat=state.active_seat,
        robbed_seat=state.robbed_seat,
        remaining=len(state.robin_pile),
        next_token=state.robin_pile[-1],
    )


def _deal(turn: _Turn, to_seat: int, *, by_server: bool) -> None:
    state = turn.state
    pile = state.robin_pile
    turn.emit(
        RobinTellTokenDealt(
            seat=state.active_seat,
            token=pile[-1],
            to_seat=to_seat,
            remaining=len(pile) - 1,
            next_token=top(pile[:-1]),
            by_server=by_server,
        )
    )


def _after_deal(turn: _Turn) -> ARiskCatPending | None:
    if turn.state.robin_pile:
        return _deal_pending(turn)
    return _resolve_powers(turn)


def _ladies_pending(turn: _Turn, taken: int) -> ARiskCatPending | None:
    """The ladies wait for a take while fewer than four were taken and a stack can give one;
    otherwise they are dismissed at once."""
    state = turn.state
    sources = ladies_options(state)
    if taken < LADIES_MAX_TAKES and sources:
        return PendingLadiesTake(seat=state.active_seat, taken=taken, from_seats=sources)
    turn.emit(LadiesDismissed(seat=state.active_seat, taken=taken))
    return None


def _after_lady_take(turn: _Turn, taken: int) -> ARiskCatPending | None:
    pending = _ladies_pending(turn, taken)
    return pending if pending is not None else _resolve_powers(turn)


def _stop(turn: _Turn, order: tuple[str, ...], *, by_server: bool) -> ARiskCatPending | None:
    state = turn.state
    seat = state.active_seat
    turn.emit(
        TurnStopped(
            seat=seat,
            count=len(order),
            new_top=order[-1],
            stack_size=len(state.stacks[seat]) + len(order),
            order=order,
            by_server=by_server,
        )
    )
    return _end_turn(turn)


def _end_turn(turn: _Turn) -> ARiskCatPending | None:
    """2.4: the game ends when a turn ends with the bag empty (or, RULES 3, with fewer than two
    seats standing); else the next standing seat's turn (conceded seats are skipped)."""
    state = turn.state
    standing = state.standing()
    if not state.bag or len(standing) < 2:
        sheet = score(state.stacks, state.removed_paintings, state.conceded)
        turn.emit(
            ARiskCatGameEnded(
                holdings=sheet.holdings,
                paintings_won=sheet.paintings_won,
                scores=sheet.scores,
                winners=sheet.winners,
            )
        )
        return None
    seat = first_after(state, state.active_seat, standing)
    turn.emit(ARiskCatTurnStarted(seat=seat, turn_number=state.turn_number + 1))
    return PendingFirstDraw(seat=seat)


# --- evolve -----------------------------------------------------------------------------------


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


# --- the server's side --------------------------------------------------------------------------


def deadline(state: ARiskCatState) -> float | None:
    """When the server answers the pending decision itself (None: no timeout, or not running)."""
    if state.phase != "playing" or state.pending is None:
        return None
    return state.deadline


def on_deadline(state: ARiskCatState) -> ARiskCatActOnTimeout:
    return ARiskCatActOnTimeout()


def outcome(state: ARiskCatState) -> Outcome | None:
    if state.phase != "over" or state.scores is None:
        return None
    return Outcome(winners=state.winners, scores=state.scores)

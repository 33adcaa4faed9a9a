"""``start``, ``decide`` (who may act, then the answer), ``evolve`` (facts only), the deadline.

The rules: each seat holds one secret card of ``1 .. 2 * players + 2``; the rest are face down
in the pile. On its turn a seat names another standing seat's card (right: that seat is out and
its card face up) or swaps its card for one drawn at random from the pile. Any standing seat may
cross a value off its own sheet at any time; nobody else learns it did. After ``rounds`` turns, or
when one seat is left, the highest card standing wins.
"""

from __future__ import annotations

import msgspec

from domain import refusals
from domain.decider import ActOnTimeout, Concede, Context, Outcome
from domain.errors import RuleViolation
from tests.games.guessing.commands import COMMAND_TYPES, Guess, Mark, Swap
from tests.games.guessing.events import (
    Dealt,
    GameEnded,
    Guessed,
    GuessingEvent,
    Marked,
    SeatConceded,
    Swapped,
    TimedOut,
    TurnPassed,
)
from tests.games.guessing.state import GuessingState

State = GuessingState


def start(state: State, ctx: Context) -> list[GuessingEvent]:
    if state.phase != "not_started":
        raise RuleViolation(refusals.GAME_ALREADY_STARTED, "The game has already started.")
    options = state.options
    deck = list(range(1, options.deck_size + 1))
    ctx.rng.shuffle(deck)
    first = options.first_seat if options.first_seat is not None else ctx.rng.randrange(options.players)
    hands, pile = tuple(deck[: options.players]), tuple(deck[options.players :])
    return [Dealt(first_seat=first, hands=hands, pile=pile, pile_size=len(pile), deadline=_due(state, ctx))]


def _due(state: State, ctx: Context) -> float | None:
    timeout = state.options.decision_timeout
    return None if timeout is None else ctx.now + timeout


def _seat(state: State, ctx: Context) -> int:
    seat = ctx.seat
    if type(seat) is not int or not 0 <= seat < state.players:
        raise RuleViolation(refusals.NOT_A_PLAYER, "Only a seat of this game may act.")
    if state.hands[seat] is None:
        raise RuleViolation("seat_out", "This seat is out of the game.")
    return seat


def _value(state: State, value: object) -> int:
    if type(value) is not int or not 1 <= value <= state.options.deck_size:
        raise RuleViolation("invalid_value", f"A card is a number from 1 to {state.options.deck_size}.")
    return value


def _turn_ends(state: State, ctx: Context, events: list[GuessingEvent]) -> list[GuessingEvent]:
    """After a turn (or a seat leaving): the end, or the next standing seat's turn."""
    after = fold(state, events)
    standing = after.standing()
    if len(standing) <= 1 or after.turn + 1 >= after.options.rounds:
        best = max(standing, key=lambda s: after.hands[s] or 0)
        return [*events, GameEnded(hands=after.hands, winners=(best,))]
    nxt = after.next_standing(after.active_seat)
    return [*events, TurnPassed(seat=nxt, turn=after.turn + 1, deadline=_due(after, ctx))]


def decide(state: State, command: object, ctx: Context) -> list[GuessingEvent]:
    if not isinstance(command, COMMAND_TYPES):
        raise RuleViolation(refusals.UNKNOWN_COMMAND, "Not a command of this game.")
    if state.phase == "not_started":
        raise RuleViolation(refusals.GAME_NOT_STARTED, "The game has not started yet.")
    if state.phase == "over":
        raise RuleViolation(refusals.GAME_OVER, "The game is over.")
    if isinstance(command, ActOnTimeout):
        if ctx.seat is not None:
            raise RuleViolation(refusals.SERVER_ONLY, "Only the server acts on a deadline.")
        if state.deadline is None:
            raise RuleViolation(refusals.NO_DEADLINE, "Nothing in this game has a deadline.")
        if ctx.now < state.deadline:
            raise RuleViolation(refusals.DEADLINE_NOT_REACHED, "The deadline has not passed.")
        return _turn_ends(state, ctx, [TimedOut(seat=state.active_seat)])
    seat = _seat(state, ctx)
    match command:
        case Mark(value=value):
            value = _value(state, value)
            if value in state.marks[seat]:
                raise RuleViolation("already_marked", "This value is already crossed off.")
            return [Marked(seat=seat, value=value)]
        case Concede():
            card = state.hands[seat]
            assert card is not None
            conceded: list[GuessingEvent] = [SeatConceded(seat=seat, card=card)]
            if seat == state.active_seat or len(state.standing()) <= 2:
                return _turn_ends(state, ctx, conceded)
            return conceded
    if seat != state.active_seat:
        raise RuleViolation(refusals.NOT_YOUR_TURN, "Another seat plays now.")
    match command:
        case Guess(target=target, value=value):
            if type(target) is not int or target == seat or target not in state.standing():
                raise RuleViolation(refusals.INVALID_TARGET, "Name another seat still in the game.")
            value = _value(state, value)
            return _turn_ends(
                state,
                ctx,
                [Guessed(seat=seat, target=target, value=value, right=state.hands[target] == value)],
            )
        case Swap():
            place = ctx.rng.randrange(len(state.pile))
            given = state.hands[seat]
            return _turn_ends(
                state, ctx, [Swapped(seat=seat, given=given, taken=state.pile[place], place=place)]
            )
    raise RuleViolation(refusals.UNKNOWN_COMMAND, "Not a command of this game.")  # pragma: no cover


def evolve(state: State, event: GuessingEvent) -> State:
    match event:
        case Dealt():
            return GuessingState(
                options=state.options,
                phase="playing",
                hands=event.hands,
                pile=event.pile,
                marks=((),) * state.players,
                active_seat=event.first_seat,
                deadline=event.deadline,
            )
        case Guessed(target=target, right=True):
            card = state.hands[target]
            assert card is not None
            return _replace_hand(state, target, None, revealed=(*state.revealed, card))
        case Swapped(seat=seat, given=given, taken=taken, place=place):
            assert given is not None and taken is not None and place is not None
            pile = (*state.pile[:place], given, *state.pile[place + 1 :])
            return _replace_hand(state, seat, taken, pile=pile)
        case Marked(seat=seat, value=value):
            marks = tuple((*m, value) if s == seat else m for s, m in enumerate(state.marks))
            return _copy(state, marks=marks)
        case SeatConceded(seat=seat, card=card):
            return _replace_hand(state, seat, None, revealed=(*state.revealed, card))
        case TurnPassed(seat=seat, turn=turn, deadline=deadline):
            return _copy(state, active_seat=seat, turn=turn, deadline=deadline)
        case GameEnded(winners=winners):
            return _copy(state, phase="over", winners=winners, deadline=None)
    return state  # Guessed wrong, TimedOut: the turn's end says what changes


def _copy(state: State, **changes: object) -> State:
    return msgspec.structs.replace(state, **changes)


def _replace_hand(state: State, seat: int, card: int | None, **changes: object) -> State:
    hands = tuple(card if s == seat else c for s, c in enumerate(state.hands))
    return _copy(state, hands=hands, **changes)


def fold(state: State, events: list[GuessingEvent]) -> State:
    for event in events:
        state = evolve(state, event)
    return state


def deadline(state: State) -> float | None:
    return state.deadline if state.phase == "playing" else None


def on_deadline(state: State) -> ActOnTimeout:
    return ActOnTimeout()


def outcome(state: State) -> Outcome | None:
    return Outcome(winners=state.winners) if state.phase == "over" else None
